// SPDX-License-Identifier: GPL-3.0-or-later
#include "control/attitude.h"

#include <math.h>
#include <string.h>

#include "nav/nav_math.h"

#define CTL_SERVO_FULL_DEG 45.0f
/* corner of the yaw-rate washout, rad/s */
#define CTL_YAW_HP_RAD_S 0.2f

void ctl_params_default(struct ctl_params *p)
{
	p->rll2srv_tconst = 0.5f;
	p->rll2srv_p = 1.0f;
	p->rll2srv_i = 0.3f;
	p->rll2srv_d = 0.08f;
	p->rll2srv_imax = 3000.0f;
	p->rll2srv_rmax = 0.0f;
	p->ptch2srv_tconst = 0.5f;
	/* ArduPilot's, as the roll loop's: with P 0.6 and I 0.5 (kp_ff 0.135,
	 * the elevator left to the integrator) the cub's attitude took 2.5 s to
	 * follow the flare's pitch-up, and in its turns onto a 10 m/s tailwind
	 * it lost 2.5 m and zoomed back; P 1.0 and I 0.3 (kp_ff 0.385) keep those
	 * turns within 0.8 m (docs/campaign.md, 2026-12-06) */
	p->ptch2srv_p = 1.0f;
	p->ptch2srv_i = 0.3f;
	p->ptch2srv_d = 0.04f;
	p->ptch2srv_imax = 3000.0f;
	p->ptch2srv_rmax_up = 0.0f;
	p->ptch2srv_rmax_dn = 0.0f;
	p->ptch2srv_rll = 1.0f;
	p->yaw2srv_slip = 0.0f;
	p->yaw2srv_int = 0.0f;
	p->yaw2srv_damp = 0.0f;
	p->yaw2srv_rll = 1.0f;
	p->yaw2srv_imax = 1500.0f;
	p->kff_rddrmix = 0.5f;
	p->scaling_speed = 15.0f;
	/* this airframe's, as nav_params_default has them (ArduPilot: 9, 45) */
	p->arspd_fbw_min = 11.0f;
	p->trim_throttle = 60.0f;
}

void ctl_init(struct ctl *c)
{
	memset(c, 0, sizeof(*c));
}

float ctl_speed_scaler(const struct ctl_params *p, const struct vehicle_state *vs, float throttle)
{
	if ((vs->valid & VEHICLE_AIRSPEED_VALID) && vs->airspeed_m_s > 0.0001f)
		return nav_clampf(p->scaling_speed / vs->airspeed_m_s, 0.5f, 2.0f);
	if (throttle > 0.0f)
		return nav_clampf(0.5f + p->trim_throttle * 0.01f / throttle / 2.0f, 0.6f, 1.67f);
	return 1.67f;
}

/*
 * The shared rate loop. With P meaning "servo per demanded rate" the
 * feed-forward gain is what is left of P after the integrator's and the
 * damper's contributions at the time constant: (P - I tau) tau - D.
 */
static float rate_loop(struct ctl_axis *a, float desired, float ff_extra, float achieved, float kp,
		       float ki, float kd, float imax_cd, float tau, float scaler, float eas2tas,
		       float dt, bool integ_off)
{
	float ki_rate = ki * tau;
	float kp_ff = fmaxf((kp - ki * tau) * tau - kd, 0.0f) / eas2tas;
	float rate_err = (desired - achieved) * scaler;
	a->desired_rate_deg_s = desired;

	if (integ_off || !(ki_rate > 0.0f) || !(dt > 0.0f)) {
		a->integ_deg = 0.0f;
	} else {
		float d_integ = rate_err * ki_rate * dt * scaler;
		/* no winding further into a saturated output */
		if (a->last_out_deg < -CTL_SERVO_FULL_DEG && d_integ < 0.0f)
			d_integ = 0.0f;
		if (a->last_out_deg > CTL_SERVO_FULL_DEG && d_integ > 0.0f)
			d_integ = 0.0f;
		float lim = imax_cd * 0.01f;
		a->integ_deg = nav_clampf(a->integ_deg + d_integ, -lim, lim);
	}
	float out = (rate_err * kd + (desired + ff_extra) * kp_ff) * scaler + a->integ_deg;
	a->last_out_deg = out;
	return nav_clampf(out, -CTL_SERVO_FULL_DEG, CTL_SERVO_FULL_DEG);
}

float ctl_roll_step(struct ctl_axis *a, const struct ctl_params *p, float roll_dem_rad,
		    float roll_rad, float rate_rad_s, float scaler, float eas2tas, float dt,
		    bool integ_off)
{
	float tau = fmaxf(p->rll2srv_tconst, 0.1f);
	float desired = nav_wrap_pi(roll_dem_rad - roll_rad) * NAV_RAD2DEG / tau;
	if (p->rll2srv_rmax > 0.0f)
		desired = nav_clampf(desired, -p->rll2srv_rmax, p->rll2srv_rmax);
	return rate_loop(a, desired, 0.0f, rate_rad_s * NAV_RAD2DEG, p->rll2srv_p, p->rll2srv_i,
			 p->rll2srv_d, p->rll2srv_imax, tau, scaler, eas2tas, dt, integ_off);
}

float ctl_pitch_step(struct ctl_axis *a, const struct ctl_params *p, float pitch_dem_rad,
		     float pitch_rad, float rate_rad_s, float roll_rad, float airspeed_m_s,
		     float scaler, float eas2tas, float dt, bool integ_off)
{
	float tau = fmaxf(p->ptch2srv_tconst, 0.1f);
	float desired = (pitch_dem_rad - pitch_rad) * NAV_RAD2DEG / tau;
	if (desired > 0.0f && p->ptch2srv_rmax_up > 0.0f)
		desired = fminf(desired, p->ptch2srv_rmax_up);
	if (desired < 0.0f && p->ptch2srv_rmax_dn > 0.0f)
		desired = fmaxf(desired, -p->ptch2srv_rmax_dn);
	/* a level turn at bank phi needs a body pitch rate of
	 * (g / V) tan(phi) sin(phi) cos(theta): fed forward, while the rate loop
	 * itself works on the pitch angle's rate, so the integrator removes any
	 * error the feed-forward leaves */
	float v = fmaxf(airspeed_m_s, fmaxf(p->arspd_fbw_min, 1.0f));
	float phi = nav_clampf(roll_rad, -80.0f * NAV_DEG2RAD, 80.0f * NAV_DEG2RAD);
	float turn = cosf(pitch_rad) * fabsf(NAV_G_M_S2 / v * tanf(phi) * sinf(phi));
	return rate_loop(a, desired, turn * NAV_RAD2DEG * p->ptch2srv_rll, rate_rad_s * NAV_RAD2DEG,
			 p->ptch2srv_p, p->ptch2srv_i, p->ptch2srv_d, p->ptch2srv_imax, tau, scaler,
			 eas2tas, dt, integ_off);
}

float ctl_yaw_step(struct ctl *c, const struct ctl_params *p, float yaw_rate_rad_s,
		   float roll_rad, float airspeed_m_s, float accel_y_m_s2, float scaler, float dt,
		   bool integ_off)
{
	float v = fmaxf(airspeed_m_s, fmaxf(p->arspd_fbw_min, 1.0f));
	/* the yaw rate of a coordinated turn at this bank */
	float turn = NAV_G_M_S2 / v * sinf(roll_rad) * p->yaw2srv_rll;
	float hp_in = (yaw_rate_rad_s - turn) * NAV_RAD2DEG;
	float k = dt > 0.0f ? expf(-CTL_YAW_HP_RAD_S * dt) : 1.0f;
	float hp_out = k * c->yaw_hp_out + hp_in - c->yaw_hp_in;
	c->yaw_hp_in = hp_in;
	c->yaw_hp_out = hp_out;

	struct ctl_axis *a = &c->yaw;
	float kd = p->yaw2srv_damp;
	if (integ_off || !(kd > 0.0f) || !(p->yaw2srv_int > 0.0f) || !(dt > 0.0f)) {
		a->integ_deg = 0.0f;
	} else {
		float ay = isfinite(accel_y_m_s2) ? accel_y_m_s2 : 0.0f;
		float d_integ = -p->yaw2srv_int * (p->yaw2srv_slip * ay + hp_out) * dt;
		if (!(a->last_out_deg < -CTL_SERVO_FULL_DEG && d_integ < 0.0f) &&
		    !(a->last_out_deg > CTL_SERVO_FULL_DEG && d_integ > 0.0f))
			a->integ_deg += d_integ;
		float lim = p->yaw2srv_imax * 0.01f / (kd * scaler * scaler);
		a->integ_deg = nav_clampf(a->integ_deg, -lim, lim);
	}
	float out = kd * (a->integ_deg - hp_out) * scaler * scaler;
	a->last_out_deg = out;
	return nav_clampf(out, -CTL_SERVO_FULL_DEG, CTL_SERVO_FULL_DEG);
}

void ctl_update(struct ctl *c, const struct ctl_params *p, const struct vehicle_state *vs,
		const struct ctl_demand *d, float dt, struct ctl_surfaces *out)
{
	float scaler = ctl_speed_scaler(p, vs, d->throttle);
	float v = (vs->valid & VEHICLE_AIRSPEED_VALID) ? vs->airspeed_m_s : p->scaling_speed;
	/* the gains are for equivalent airspeed; the altitude's share is small at
	 * model-field heights and the state carries no density, so 1 */
	float eas2tas = 1.0f;
	/* the angles' own rates (body rates seen through the Euler kinematics):
	 * in a climbing or banked turn the body rates are not the angles' rates,
	 * and a loop on body rates would hold a steady angle error there */
	float p_b = vs->rate_rad_s[0], q_b = vs->rate_rad_s[1], r_b = vs->rate_rad_s[2];
	float sr = sinf(vs->roll_rad), cr = cosf(vs->roll_rad);
	float tp = tanf(nav_clampf(vs->pitch_rad, -1.4f, 1.4f));
	float roll_rate = p_b + tp * (q_b * sr + r_b * cr);
	float pitch_rate = q_b * cr - r_b * sr;
	float roll_deg = ctl_roll_step(&c->roll, p, d->roll_rad, vs->roll_rad, roll_rate, scaler,
				       eas2tas, dt, d->integrators_off);
	float pitch_deg = ctl_pitch_step(&c->pitch, p, d->pitch_rad, vs->pitch_rad, pitch_rate,
					 vs->roll_rad, v, scaler, eas2tas, dt, d->integrators_off);
	float yaw_deg = ctl_yaw_step(c, p, r_b, vs->roll_rad, v, d->accel_y_m_s2, scaler, dt,
				     d->integrators_off);
	out->aileron = roll_deg / CTL_SERVO_FULL_DEG;
	out->elevator = pitch_deg / CTL_SERVO_FULL_DEG;
	out->rudder = nav_clampf(yaw_deg / CTL_SERVO_FULL_DEG + p->kff_rddrmix * out->aileron, -1.0f, 1.0f);
}
