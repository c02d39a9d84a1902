// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Airspeed and sideslip: the pitot's intake (true airspeed from the
 * differential pressure and the air density), the wind states' start, the
 * sensor's health check against the wind triangle, and the fusion on the
 * delayed horizon of the true airspeed and of a zero sideslip.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "estim/estim_internal.h"
#include "estim/estim_math.h"

#define N ESTIM_NSTATES

static float row_tas(const struct estim *e, int row, const void *meas, float h[N])
{
	const float *tas = meas;
	float u[3] = { e->x.vel[0] - e->x.wind[0], e->x.vel[1] - e->x.wind[1], e->x.vel[2] };
	float n = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
	memset(h, 0, sizeof(float) * N);
	if (n < 1.0f)
		n = 1.0f;
	for (int i = 0; i < 3; i++)
		h[ESTIM_S_VEL + i] = u[i] / n;
	h[ESTIM_S_WIND] = -u[0] / n;
	h[ESTIM_S_WIND + 1] = -u[1] / n;
	return *tas - n;
}

/* beta = vb_y / vb_x with vb = R' (v - w); d vb/dtheta = R' [u x] */
static float row_beta(const struct estim *e, int row, const void *meas, float h[N])
{
	float R[3][3], vb[3];
	float u[3] = { e->x.vel[0] - e->x.wind[0], e->x.vel[1] - e->x.wind[1], e->x.vel[2] };
	em_quat_to_dcm(e->x.q, R);
	em_mat_t_vec(R, u, vb);
	memset(h, 0, sizeof(float) * N);
	if (vb[0] < 1.0f)
		return 0.0f;
	float g[3] = { -vb[1] / (vb[0] * vb[0]), 1.0f / vb[0], 0.0f };
	float gr[3];  /* g R' as a row: gr = R g */
	em_mat_vec(R, g, gr);
	/* (gr)' [u x] = (gr x u)' ... r' skew(u) = (u x r)' with sign: r' [u x] x = r . (u x x) = x . (r x u) */
	h[ESTIM_S_ATT + 0] = gr[1] * u[2] - gr[2] * u[1];
	h[ESTIM_S_ATT + 1] = gr[2] * u[0] - gr[0] * u[2];
	h[ESTIM_S_ATT + 2] = gr[0] * u[1] - gr[1] * u[0];
	for (int i = 0; i < 3; i++)
		h[ESTIM_S_VEL + i] = gr[i];
	h[ESTIM_S_WIND] = -gr[0];
	h[ESTIM_S_WIND + 1] = -gr[1];
	return 0.0f - vb[1] / vb[0];
}

/* Wind from the velocity and airspeed along the body x axis. */
void estim_wind_start(struct estim *e, float tas)
{
	float R[3][3];
	em_quat_to_dcm(e->x.q, R);
	e->x.wind[0] = e->x.vel[0] - tas * R[0][0];
	e->x.wind[1] = e->x.vel[1] - tas * R[1][0];
	e->wind_active = true;
	estim_cov_reset(e, ESTIM_S_WIND, 2, 4.0f);
}

/*
 * The health check. ArduPilot's rules (AP_Airspeed_Health.cpp): every 200
 * ms a check passes or fails; the health probability p becomes 0.9 p on a
 * failure and 0.98 p + 0.02 on a pass; under 0.1 the sensor is disabled
 * (ARSPD_OPTIONS bit 0), over 0.95 a disabled one is used again (bit 1); a
 * disabled one must pass within 0.7 of the gate; with the GPS lost it is
 * used again at once, the ground speed being no reference any more. A check
 * fails when |airspeed - ground speed| > ARSPD_WIND_MAX (when set), or
 * (bit 3) when the airspeed is more than ARSPD_WIND_GATE sigmas from the
 * synthetic airspeed |v - w_ref|. ArduPilot takes the EKF's own airspeed
 * innovation there, against the filter's wind; but a pitot that creeps (a
 * blocked port leaking, a blocked one in a descent) drags the filter's wind
 * along with it, each sample well within the gate, and the innovation never
 * grows. fulmar's reference wind w_ref follows the filter's at most
 * ARSP_REF_RATE_M_S2, and not while the sensor's samples are withheld
 * (below): a creep moves the filter's wind, not the reference, and the
 * difference grows until it fails. A sample 3 sigmas off (0.6 of the gate)
 * is not fused, and at the first such sample, as when the sensor is
 * disabled, the filter's wind is put back to the reference: what the lying
 * sensor dragged it by is undone; fused again only after 2 s within 1.5
 * sigmas. While samples are withheld so, the airspeed published is the
 * synthetic one, as after the sensor is disabled.
 */
#define ARSP_CHECK_US 200000u
#define ARSP_PROB_BAD 0.90f
#define ARSP_PROB_GOOD 0.98f
#define ARSP_PROB_DISABLE 0.1f
#define ARSP_PROB_REENABLE 0.95f
#define ARSP_GATE_DISABLED 0.7f
#define ARSP_WARN_US 15000000u
/* The reference wind's largest rate, m/s^2: a weather front's change, not a
 * pitot's creep (a 120 s leak takes 0.06-0.3 m/s^2 off a 15 m/s reading). */
#define ARSP_REF_RATE_M_S2 0.02f
/* The reference wind is the filter's for this long after the wind is first
 * observed (the first turn), s: the filter's wind moves by metres a second
 * as it converges (the demo's by 4 m/s in 10 s after its first turn), and a
 * reference held back from that would refuse the good sensor's samples. */
#define ARSP_LEARN_S 60.0f
/* The check judges a flying aircraft only: over the ground faster than this,
 * and through the air (synthetically) faster than min_airspeed_m_s. */
#define ARSP_MIN_GROUND_M_S 2.0f
/* The wind's variance per axis when put back to the reference, (m/s)^2:
 * under the sideslip fusion's 1 in total, so that turns keep it observed. */
#define ARSP_RESET_WIND_VAR 0.25f
/* A sample further than this fraction of the gate from the synthetic
 * airspeed is not fused (3 sigma at the default 5): a lying sensor drags
 * the wind by no more than that before the check trips. A good sensor's
 * gusts reach it seldom: 5.5 of their sigma in turbulence 7.7. */
#define ARSP_FUSE_GATE_FRAC 0.6f
/* Once withheld, samples are fused again only after ARSP_RESUME_US within
 * this fraction of the gate (1.5 sigma at the default 5). */
#define ARSP_RESUME_GATE_FRAC 0.3f
#define ARSP_RESUME_US 2000000u

static void arsp_ref_update(struct estim *e, float dt)
{
	struct estim_arsp_health *a = &e->arsp;
	float pw = e->P[ESTIM_S_WIND][ESTIM_S_WIND] + e->P[ESTIM_S_WIND + 1][ESTIM_S_WIND + 1];
	if (pw < 1.0f)
		a->observed_s += dt;
	if (!a->ref_set || a->disabled || pw >= 1.0f || a->observed_s < ARSP_LEARN_S) {
		/* not yet observed (no turn yet) or still converging, or not
		 * dragged by the sensor */
		a->wind_ref_ne_m_s[0] = e->x.wind[0];
		a->wind_ref_ne_m_s[1] = e->x.wind[1];
		a->ref_set = true;
		return;
	}
	if (a->withholding)
		return;
	float d[2] = { e->x.wind[0] - a->wind_ref_ne_m_s[0], e->x.wind[1] - a->wind_ref_ne_m_s[1] };
	float n = sqrtf(d[0] * d[0] + d[1] * d[1]), step = ARSP_REF_RATE_M_S2 * dt;
	float k = n > step ? step / n : 1.0f;
	a->wind_ref_ne_m_s[0] += k * d[0];
	a->wind_ref_ne_m_s[1] += k * d[1];
}

/* The airspeed's sigma against the synthetic airspeed along u = v - w_ref:
 * the sensor's noise and the filter's velocity and wind variances. */
static float arsp_sigma(const struct estim *e, const float u[3], float n)
{
	static const int idx[5] = { ESTIM_S_VEL, ESTIM_S_VEL + 1, ESTIM_S_VEL + 2, ESTIM_S_WIND, ESTIM_S_WIND + 1 };
	float h[5] = { u[0] / n, u[1] / n, u[2] / n, -u[0] / n, -u[1] / n };
	float s = e->cfg.tas_noise_m_s * e->cfg.tas_noise_m_s;
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			s += h[i] * e->P[idx[i]][idx[j]] * h[j];
	return sqrtf(s > 0.0f ? s : 0.0f);
}

static void arsp_wind_to_ref(struct estim *e)
{
	e->x.wind[0] = e->arsp.wind_ref_ne_m_s[0];
	e->x.wind[1] = e->arsp.wind_ref_ne_m_s[1];
	estim_cov_reset(e, ESTIM_S_WIND, 2, ARSP_RESET_WIND_VAR);
}

static void arsp_disable(struct estim *e)
{
	e->arsp.disabled = true;
	e->arsp.disables++;
	arsp_wind_to_ref(e);
}

/* One sample through the check (t_us: its time on the delayed horizon).
 * Returns true when it may be fused. */
static bool arsp_check(struct estim *e, float tas, bool gps, uint64_t t_us)
{
	struct estim_arsp_health *a = &e->arsp;
	const struct estim_config *c = &e->cfg;
	bool consist = (c->arsp_options & ESTIM_ARSP_CONSISTENCY) && c->arsp_wind_gate > 0.0f;
	bool implaus = c->arsp_wind_max_m_s > 0.0f;
	float dt = a->last_sample_us && t_us > a->last_sample_us ? (float)(t_us - a->last_sample_us) * 1e-6f : 0.0f;
	a->last_sample_us = t_us;
	if (a->disabled && !gps) {
		a->disabled = false;
		a->enables++;
		a->gps_fallbacks++;
	}
	if (!e->wind_active || !gps || !e->yaw_aligned || (!consist && !implaus)) {
		a->sample_bad = false;
		return !a->disabled;
	}
	arsp_ref_update(e, dt);
	float u[3] = { e->x.vel[0] - a->wind_ref_ne_m_s[0], e->x.vel[1] - a->wind_ref_ne_m_s[1], e->x.vel[2] };
	float syn = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
	float gs = sqrtf(e->x.vel[0] * e->x.vel[0] + e->x.vel[1] * e->x.vel[1]);
	if (gs < ARSP_MIN_GROUND_M_S || syn < c->min_airspeed_m_s) {
		a->sample_bad = false;
		return !a->disabled;
	}
	a->synthetic_m_s = syn;
	a->test_ratio = fabsf(tas - syn) / arsp_sigma(e, u, syn);
	a->speed_diff_m_s = fabsf(tas - gs);
	float gate = c->arsp_wind_gate * (a->disabled ? ARSP_GATE_DISABLED : 1.0f);
	bool bad = (consist && !(a->test_ratio <= gate)) || (implaus && a->speed_diff_m_s > c->arsp_wind_max_m_s);
	a->sample_bad = bad;
	float lim = (a->withholding ? ARSP_RESUME_GATE_FRAC : ARSP_FUSE_GATE_FRAC) * gate;
	bool near = !(consist && !(a->test_ratio <= lim)) && !bad;
	bool fuse = near;
	if (a->withholding) {
		/* taken again only after agreeing closely for a while: a sensor
		 * lying by about the threshold would otherwise be fused between
		 * its doubted samples and drag the wind again each time */
		if (!near)
			a->agree_since_us = 0;
		else if (a->agree_since_us == 0)
			a->agree_since_us = t_us;
		fuse = near && t_us - a->agree_since_us >= ARSP_RESUME_US;
	}
	if (fuse)
		a->agree_since_us = 0;
	if (!fuse) {
		a->withheld_us = t_us;
		/* the first sample doubted: what the sensor dragged the wind by
		 * before it is undone at once, not when the check trips */
		if (!a->withholding && !a->disabled)
			arsp_wind_to_ref(e);
	}
	a->withholding = !fuse;
	if (a->last_check_us == 0 || t_us - a->last_check_us >= ARSP_CHECK_US) {
		a->last_check_us = t_us;
		a->prob = bad ? ARSP_PROB_BAD * a->prob : ARSP_PROB_GOOD * a->prob + (1.0f - ARSP_PROB_GOOD);
		if (!a->disabled) {
			if ((c->arsp_options & ESTIM_ARSP_DISABLE) && a->prob < ARSP_PROB_DISABLE)
				arsp_disable(e);
			/* ARSPD_WIND_WARN; unset or over ARSPD_WIND_MAX it is ARSPD_WIND_MAX */
			float warn = c->arsp_wind_warn_m_s;
			if ((!(warn > 0.0f) || warn > c->arsp_wind_max_m_s) && implaus)
				warn = c->arsp_wind_max_m_s;
			if (warn > 0.0f && a->speed_diff_m_s > warn &&
			    (a->last_warn_us == 0 || t_us - a->last_warn_us > ARSP_WARN_US)) {
				a->last_warn_us = t_us;
				a->warnings++;
			}
		} else if ((c->arsp_options & ESTIM_ARSP_REENABLE) && a->prob > ARSP_PROB_REENABLE) {
			a->disabled = false;
			a->enables++;
		}
	}
	return !a->disabled && fuse;
}

void estim_fuse_airspeed(struct estim *e, const struct estim_obs *o)
{
	const struct estim_config *c = &e->cfg;
	float tas = o->v[0];
	e->tas_last_m_s = tas;
	bool gps = estim_recent(e->t_delayed_us, e->innov[ESTIM_GPS_VEL].last_fused_us, estim_gps_timeout_s(e)) ||
		   estim_recent(e->t_delayed_us, e->innov[ESTIM_GPS_POS].last_fused_us, estim_gps_timeout_s(e));
	bool trusted = arsp_check(e, tas, gps, o->t_us);
	if (tas < c->min_airspeed_m_s || !e->yaw_aligned)
		return;
	if (!e->wind_active) {
		if (!gps)
			return;
		estim_wind_start(e, tas);
	}
	if (c->use_airspeed && trusted) {
		float r[3] = { c->tas_noise_m_s * c->tas_noise_m_s, 0.0f, 0.0f };
		estim_fuse_vector(e, ESTIM_TAS, 1, row_tas, &tas, r, c->tas_gate, o->t_us);
	}
	/* Sideslip ties heading to the wind: only once the wind is known in
	 * both axes (a turn has made it observable), or a wrong initial
	 * heading would be locked to a wind made from it. */
	if (c->use_beta && e->P[ESTIM_S_WIND][ESTIM_S_WIND] + e->P[ESTIM_S_WIND + 1][ESTIM_S_WIND + 1] < 1.0f) {
		float r[3] = { c->beta_noise_rad * c->beta_noise_rad, 0.0f, 0.0f };
		estim_fuse_vector(e, ESTIM_BETA, 1, row_beta, NULL, r, c->beta_gate, o->t_us);
	}
}

int estim_push_airspeed(struct estim *e, const struct airspeed_sample *s)
{
	uint64_t t_us = estim_sample_time(e, s->t_us);
	if (!isfinite(s->diff_pressure_pa) || fabsf(s->diff_pressure_pa) > 10000.0f) {
		e->count.airspeed_invalid++;
		e->innov[ESTIM_TAS].invalid++;
		return -EINVAL;
	}
	float dp = s->diff_pressure_pa > 0.0f ? s->diff_pressure_pa : 0.0f;
	float eas = sqrtf(2.0f * dp / RHO0);
	float rho = e->air_density;
	if (isfinite(s->temp_c) && s->temp_c > -60.0f && s->temp_c < 90.0f)
		rho = e->air_density * e->baro_temp_k / (s->temp_c + 273.15f);
	float tas = eas * sqrtf(RHO0 / rho);
	e->tas_meas_m_s = tas;
	e->tas_meas_us = t_us;
	if (!e->running) {
		e->tas_last_m_s = tas;
		return -EAGAIN;
	}
	struct estim_obs o = { .t_us = estim_meas_time(t_us, e->cfg.airspeed_delay_ms), .v = { tas, 0.0f, 0.0f } },
			 avg;
	if (!estim_decim_add(e, &e->tas_dec, ESTIM_TAS_MAX_HZ, &o, &avg))
		return 0;
	return estim_obs_push(e, e->tas_buf, &e->tas_head, &e->tas_count, &avg);
}
