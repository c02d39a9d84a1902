// SPDX-License-Identifier: GPL-3.0-or-later
#include "nav/tecs.h"

#include <math.h>
#include <string.h>

#include "nav/nav_math.h"

/* Time constant of the lag on the height demand outside landing (the
 * 0.05/0.95 filter at 10 Hz of the original). */
#define TECS_HGT_DEM_TAU_S 1.95f
#define TECS_TAS_FLOOR_M_S 3.0f
/* Margin the pitch integrator may reach past the pitch limits, rad. */
#define TECS_PITCH_INTEG_MARGIN 0.0783f
/* The takeoff's speed cap on the throttle, against the energy loop's gain. */
#define TECS_TKOFF_THR_GAIN 4.0f
/* ... and its cut's lag: without it the cap took the gusts' airspeed (and its
 * rate, through TECS_THR_DAMP) to the throttle frame by frame, which only a
 * takeoff slew had hidden. At TKOFF_THR_SLEW -1 (the hand launch since
 * 2026-12-06) 9-17 % of the skywalker's climb frames moved the throttle by
 * more than 0.05, by up to 0.75 at once. */
#define TECS_TKOFF_THR_TAU_S 0.5f
/* The flare's pitch integrator: a sink-rate error gone in TECS_LAND_TCONST / 2.
 * Measured on the demo's world, seeds 1-6: at 1 (the loop's own gain) the
 * touchdown was 10.6 and 13.0 m short on seeds 1 and 2, at 2 4.3 and 10.5,
 * at 3 seed 2 ballooned 9.6 m long. */
#define TECS_FLARE_INTEG_RATE 2.0f
/* How much lower the flare's pitch floor is past the land point (8 degrees; 2 until
 * draw 6361 judged it, docs/campaign.md: as good or better on both airframes). */
#define TECS_FLARE_PAST_PITCH_RAD (8.0f * NAV_DEG2RAD)

void tecs_params_default(struct tecs_params *p)
{
	p->tecs_clmb_max = 5.0f;
	p->tecs_sink_min = 2.0f;
	p->tecs_sink_max = 5.0f;
	p->tecs_time_const = 5.0f;
	p->tecs_thr_damp = 0.5f;
	p->tecs_integ_gain = 0.1f;
	p->tecs_vert_acc = 7.0f;
	p->tecs_spd_omega = 2.0f;
	p->tecs_rll2thr = 10.0f;
	p->tecs_spdweight = 1.0f;
	p->tecs_ptch_damp = 0.0f;
	p->tecs_land_sink = 0.25f;
	p->tecs_land_arspd = -1.0f;
	p->tecs_synairspeed = 0.0f;
	/* ArduPilot's later TECS_LAND_TCONST 2 s and TECS_LAND_DAMP 0.5 leave
	 * this airframe 0.3-0.5 m under the flare path at touchdown (15 m
	 * short): tighter */
	p->tecs_land_tconst = 1.0f;
	p->tecs_land_damp = 1.0f;
	p->arspd_fbw_min = 9.0f;
	p->arspd_fbw_max = 22.0f;
	p->thr_min = 0.0f;
	p->thr_max = 100.0f;
	p->trim_throttle = 45.0f;
	p->lim_pitch_max = 2000.0f;
	p->lim_pitch_min = -2500.0f;
	p->land_pitch_cd = 0.0f;
}

void tecs_init(struct tecs *t)
{
	memset(t, 0, sizeof(*t));
}

void tecs_hold_pitch(struct tecs *t, float pitch_rad, float trim_rad)
{
	if (!isfinite(pitch_rad) || !isfinite(trim_rad))
		return;
	t->integ_seb = trim_rad;
	t->pitch_dem_rad = pitch_rad;
	t->last_pitch_dem_rad = pitch_rad;
	t->bumpless = false;
}

static void reset(struct tecs *t, const struct tecs_input *in, float tas)
{
	t->tas_state = tas;
	t->integ_dtas = 0.0f;
	t->vel_dot = 0.0f;
	t->tas_dem_adj = tas;
	t->tas_rate_dem = 0.0f;
	t->hgt_dem_rl = in->hgt_m;
	t->hgt_dem_adj = in->hgt_m;
	t->hgt_dem_adj_last = in->hgt_m;
	t->hgt_rate_dem = 0.0f;
	t->integ_thr = 0.0f;
	t->integ_seb = 0.0f;
	t->underspeed = false;
	t->pitch_dem_rad = in->pitch_rad;
	t->last_pitch_dem_rad = in->pitch_rad;
	t->throttle_dem = 0.0f;
	t->initialised = true;
	t->bumpless = true;
}

/* Second-order complementary filter: airspeed with the measured acceleration
 * (or, without one, a second-order tracking filter whose rate is the estimate). */
static void update_speed(struct tecs *t, const struct tecs_params *p, const struct tecs_input *in,
			 float dt)
{
	float tas_meas = in->eas_m_s * in->eas2tas;
	float w = p->tecs_spd_omega;
	bool have_acc = isfinite(in->vel_dot_m_s2);
	float err = tas_meas - t->tas_state;
	/* no windup while the filter is held at its floor */
	float d_integ = err * w * w;
	if (t->tas_state > TECS_TAS_FLOOR_M_S || d_integ > 0.0f)
		t->integ_dtas += d_integ * dt;
	float acc = have_acc ? in->vel_dot_m_s2 : 0.0f;
	float rate = t->integ_dtas + acc + err * w * 1.41421356f;
	t->tas_state += rate * dt;
	if (t->tas_state < TECS_TAS_FLOOR_M_S)
		t->tas_state = TECS_TAS_FLOOR_M_S;
	t->vel_dot = have_acc ? in->vel_dot_m_s2 : rate;
}

void tecs_update(struct tecs *t, const struct tecs_params *p, const struct tecs_input *in, float dt)
{
	const float g = NAV_G_M_S2;
	float eas2tas = in->eas2tas > 0.1f ? in->eas2tas : 1.0f;
	float tas_min = p->arspd_fbw_min * eas2tas, tas_max = p->arspd_fbw_max * eas2tas;
	float thr_min = p->thr_min * 0.01f, thr_max = p->thr_max * 0.01f;
	float nom_thr = nav_clampf(p->trim_throttle * 0.01f, thr_min, thr_max);
	float pitch_max = p->lim_pitch_max * 0.01f * NAV_DEG2RAD;
	float pitch_min = p->lim_pitch_min * 0.01f * NAV_DEG2RAD;
	float ste_dot_max = p->tecs_clmb_max * g, ste_dot_min = -p->tecs_sink_min * g;
	bool landing = in->stage == TECS_STAGE_LAND_APPROACH || in->stage == TECS_STAGE_LAND_FLARE;

	if (!t->initialised || !(dt > 0.0f) || dt > 1.0f) {
		reset(t, in, in->eas_ok ? in->eas_m_s * eas2tas : 0.5f * (tas_min + tas_max));
		t->last_stage = in->stage;
		if (!(dt > 0.0f) || dt > 1.0f)
			return;
	}

	if (in->eas_ok) {
		update_speed(t, p, in, dt);
	} else {
		/* no sensor: the speed is taken to be the demand, derivative 0 */
		t->tas_state = nav_clampf(in->eas_dem_m_s * eas2tas, tas_min, tas_max);
		t->vel_dot = 0.0f;
	}
	float tas = t->tas_state;

	/* speed demand: within the flight envelope, changed no faster than half
	 * the energy rate the aircraft has */
	float tas_dem = nav_clampf(in->eas_dem_m_s * eas2tas, tas_min, tas_max);
	float rate_max = 0.5f * ste_dot_max / tas, rate_min = 0.5f * ste_dot_min / tas;
	float dv = nav_clampf(tas_dem - t->tas_dem_adj, rate_min * dt, rate_max * dt);
	t->tas_dem_adj += dv;
	t->tas_rate_dem = dv / dt;
	if (!in->eas_ok) {
		t->tas_dem_adj = tas;
		t->tas_rate_dem = 0.0f;
	}

	/* height demand: rate limited, then smoothed (not while landing: the
	 * glide path is smooth already, and a lag would put the aircraft above it) */
	float dh = nav_clampf(in->hgt_dem_m - t->hgt_dem_rl, -p->tecs_sink_max * dt,
			      p->tecs_clmb_max * dt);
	if (in->stage == TECS_STAGE_LAND_FLARE)
		dh = in->hgt_dem_m - t->hgt_dem_rl;
	t->hgt_dem_rl += dh;
	if (in->stage == TECS_STAGE_TAKEOFF) {
		/* In the climb-out pitch flies the speed, not the height, and
		 * the aircraft outclimbs TECS_CLMB_MAX: a demand left behind
		 * it is a false energy surplus at the hand-over, which winds
		 * the throttle integrator down (in calm air the skywalker
		 * then sank 2.5 m under its first leg's height, 1.5 m since).
		 * So the demand keeps up with the aircraft, as far as the
		 * takeoff height. */
		float up = fminf(in->hgt_m, in->hgt_dem_m);
		t->hgt_dem_rl = fmaxf(t->hgt_dem_rl, up);
		t->hgt_dem_adj = fmaxf(t->hgt_dem_adj, up);
	}
	t->hgt_dem_adj_last = t->hgt_dem_adj;
	if (landing) {
		t->hgt_dem_adj = t->hgt_dem_rl;
	} else {
		float a = dt / (TECS_HGT_DEM_TAU_S + dt);
		t->hgt_dem_adj += a * (t->hgt_dem_rl - t->hgt_dem_adj);
	}
	if (in->stage != t->last_stage) {
		t->hgt_rate_dem = 0.0f;
		t->tkoff_thr_cut = 0.0f;
		if (in->stage == TECS_STAGE_LAND_FLARE)
			t->flare_pitch0_rad = t->last_pitch_dem_rad;
		/* The takeoff's pitch integrator holds the takeoff pitch (set
		 * there on the runway, wound there by the speed guard in the
		 * climb: faster than ARSPD_FBW_MIN, it asks for more pitch).
		 * Carried into the cruise it is 10 degrees of nose-up the
		 * integrator takes 15 s to shed: the cub zoomed 7 m past the
		 * takeoff height and then slowed to 1.24 x its stall. From zero
		 * the skywalker, trimmed 2 degrees up, sagged 2.4 m while the
		 * integrator found its trim. So the cruise starts from the
		 * attitude that flies level at this speed: the present one less
		 * the climb's path angle. */
		if (t->last_stage == TECS_STAGE_TAKEOFF) {
			float gamma = asinf(nav_clampf(in->climb_m_s / fmaxf(t->tas_state, TECS_TAS_FLOOR_M_S),
						       -1.0f, 1.0f));
			t->integ_seb = nav_clampf(in->pitch_rad - gamma, pitch_min, pitch_max);
		}
	} else
		t->hgt_rate_dem = (t->hgt_dem_adj - t->hgt_dem_adj_last) / dt;
	t->last_stage = in->stage;

	/* underspeed: slow at full throttle; stays until the height is regained */
	if (in->eas_ok && in->stage != TECS_STAGE_LAND_FLARE &&
	    ((tas < 0.9f * tas_min && t->throttle_dem >= 0.95f * thr_max) ||
	     (t->underspeed && in->hgt_m < t->hgt_dem_adj && tas < tas_min)))
		t->underspeed = true;
	else
		t->underspeed = false;

	/* energies */
	float spe_dem = t->hgt_dem_adj * g, ske_dem = 0.5f * t->tas_dem_adj * t->tas_dem_adj;
	float spe_dot_dem = t->hgt_rate_dem * g, ske_dot_dem = tas * t->tas_rate_dem;
	float spe_est = in->hgt_m * g, ske_est = 0.5f * tas * tas;
	float spe_dot = in->climb_m_s * g, ske_dot = tas * t->vel_dot;

	/* throttle */
	float cos_phi = cosf(in->roll_rad);
	float roll_comp = p->tecs_rll2thr * (1.0f / nav_clampf(cos_phi * cos_phi, 0.1f, 1.0f) - 1.0f);
	float k_thr = 1.0f / (p->tecs_time_const * (ste_dot_max - ste_dot_min));
	float thr;
	t->ste_error = spe_dem - spe_est + ske_dem - ske_est;
	if (in->stage == TECS_STAGE_LAND_FLARE && !in->flare_power) {
		thr = thr_min;
		t->integ_thr = 0.0f;
	} else if (in->stage == TECS_STAGE_TAKEOFF || t->underspeed) {
		thr = thr_max;
		t->integ_thr = 0.0f;
		if (in->stage == TECS_STAGE_TAKEOFF && in->eas_ok && in->tkoff_eas_max_m_s > 0.0f) {
			/* At its takeoff pitch a powerful aircraft keeps gaining speed
			 * (the cub: 26 m/s at full throttle), and trades it for height
			 * at the hand-over to the first leg: a zoom past the takeoff
			 * height. Past the cap the throttle comes off in proportion to
			 * the excess kinetic energy and its rate, at 4 times the energy
			 * loop's gain. */
			float v_cap = in->tkoff_eas_max_m_s * eas2tas;
			float excess = 0.5f * (tas * tas - v_cap * v_cap) +
				       p->tecs_thr_damp * tas * t->vel_dot;
			float cut = nav_clampf(TECS_TKOFF_THR_GAIN * k_thr * excess, 0.0f, thr_max - thr_min);
			t->tkoff_thr_cut += dt / (TECS_TKOFF_THR_TAU_S + dt) * (cut - t->tkoff_thr_cut);
			thr = thr_max - t->tkoff_thr_cut;
		}
	} else if (in->eas_ok) {
		float ste_dot_dem = nav_clampf(spe_dot_dem + ske_dot_dem, ste_dot_min, ste_dot_max);
		float ste_dot_err = ste_dot_dem - spe_dot - ske_dot;
		ste_dot_dem += roll_comp;
		float ff = nom_thr + ste_dot_dem / (ste_dot_max - ste_dot_min) * (thr_max - thr_min);
		thr = (t->ste_error + ste_dot_err * p->tecs_thr_damp) * k_thr + ff;
		thr = nav_clampf(thr, thr_min, thr_max);
		float amp = 0.5f * (thr_max - thr_min);
		float imax = nav_clampf(thr_max - thr + 0.1f, -amp, amp);
		float imin = nav_clampf(thr_min - thr - 0.1f, -amp, amp);
		t->integ_thr += t->ste_error * p->tecs_integ_gain * dt * k_thr;
		t->integ_thr = nav_clampf(t->integ_thr, imin, imax);
		thr = nav_clampf(thr + t->integ_thr, thr_min, thr_max);
	} else {
		/* no airspeed: throttle from the pitch demand, between the trim and
		 * the limits, plus the turn's extra drag */
		float pd = t->last_pitch_dem_rad;
		if (pd > 0.0f && pitch_max > 0.0f)
			thr = nom_thr + (thr_max - nom_thr) * pd / pitch_max;
		else if (pd < 0.0f && pitch_min < 0.0f)
			thr = nom_thr + (thr_min - nom_thr) * pd / pitch_min;
		else
			thr = nom_thr;
		thr += roll_comp / (ste_dot_max - ste_dot_min) * (thr_max - thr_min);
		thr = nav_clampf(thr, thr_min, thr_max);
	}
	t->throttle_dem = thr;

	/* pitch: the energy balance */
	float ske_w = p->tecs_spdweight;
	if (!in->eas_ok || in->stage == TECS_STAGE_LAND_FLARE)
		ske_w = 0.0f;
	else if (t->underspeed || in->stage == TECS_STAGE_TAKEOFF)
		ske_w = 2.0f;   /* speed first: in a climb-out pitch only guards the speed */
	float spe_w = 2.0f - ske_w;
	float seb_dem = spe_dem * spe_w - ske_dem * ske_w;
	float seb_dot_dem = spe_dot_dem * spe_w - ske_dot_dem * ske_w;
	float seb_est = spe_est * spe_w - ske_est * ske_w;
	float seb_dot = spe_dot * spe_w - ske_dot * ske_w;
	t->seb_error = seb_dem - seb_est;
	float seb_dot_err = seb_dot_dem - seb_dot;

	if (in->stage == TECS_STAGE_TAKEOFF)
		pitch_max = nav_clampf(in->ptch_takeoff_rad, 0.0f, pitch_max);
	if (in->stage == TECS_STAGE_LAND_FLARE) {
		float lp = p->land_pitch_cd * 0.01f * NAV_DEG2RAD;
		/* past the land point a flare still in the air floats level
		 * over the ground at the floor: 8 degrees lower there */
		if (in->flare_past)
			lp -= TECS_FLARE_PAST_PITCH_RAD;
		/* The floor rises to LAND_PITCH_CD with the height flown in the
		 * flare, as ArduPlane's does, not at once: a floor at the
		 * flare's start pitched the nose up from the approach's
		 * attitude, and the aircraft floated over the path (in a
		 * headwind gust, long) and then sank under it, the motor off
		 * and the pitch catching up late (the demo, 8-11 m short). It
		 * rises from TECS_FLARE_FLOOR_DROP_DEG under the pitch the
		 * approach flew, not from LIM_PITCH_MIN as ArduPlane's: a
		 * flare begun 2.5 m over its path (a gust) then dived at -20
		 * degrees for it, and sank 3.5 m/s at 3 m. */
		float f = nav_clampf(in->flare_frac, 0.0f, 1.0f);
		float start = fminf(t->flare_pitch0_rad - TECS_FLARE_FLOOR_DROP_DEG * NAV_DEG2RAD, lp);
		lp = (1.0f - f) * start + f * lp;
		if (lp > pitch_min)
			pitch_min = nav_clampf(lp, pitch_min, pitch_max);
	}

	/* The weights sum to 2: divide by the larger so the loop's gain on the
	 * quantity it controls is the same whatever the split (with height
	 * alone, 2 SPE would otherwise double the pitch per metre). The flare
	 * has its own, shorter time constant and damping. */
	bool flare = in->stage == TECS_STAGE_LAND_FLARE;
	float tconst = flare ? p->tecs_land_tconst : p->tecs_time_const;
	float damp = flare ? p->tecs_land_damp : p->tecs_ptch_damp;
	float gain_inv = tas * tconst * g * fmaxf(spe_w, ske_w);
	float temp = t->seb_error + seb_dot_dem * tconst + seb_dot_err * damp;
	/* The integrator is kept in radians of pitch, so a change of speed or of
	 * stage (time constant, weights) keeps the trim it holds. Alone it may
	 * ask for no more than the pitch limits (plus a margin), and it stops
	 * integrating into a saturated demand: once an error goes it holds only
	 * what trims the aircraft, not a wound-up excess. */
	float i_min = pitch_min - TECS_PITCH_INTEG_MARGIN;
	float i_max = pitch_max + TECS_PITCH_INTEG_MARGIN;
	if (t->bumpless) {
		/* take over at the present attitude */
		t->integ_seb = nav_clampf(nav_clampf(in->pitch_rad, pitch_min, pitch_max) - temp / gain_inv,
					  i_min, i_max);
		t->bumpless = false;
	}
	float unclamped = temp / gain_inv + t->integ_seb;
	float d_integ = t->seb_error * p->tecs_integ_gain * dt / gain_inv;
	if (flare) {
		/* With the motor off the pitch that holds a sink is not the
		 * powered approach's trim plus the path angle: the aircraft
		 * slows and, the thrust gone, the attitude must rise as it
		 * does, by more than TECS_INTEG_GAIN's slow trim finds in the
		 * few seconds of a flare (the demo's skywalker sank 1.3 m/s
		 * where 1.0 was asked and touched down 16 m short, its pitch
		 * demand held at the LAND_PITCH_CD floor). So in the flare the
		 * integrator takes the sink-rate error, plus the height error
		 * over TECS_LAND_TCONST, and removes it in half that time
		 * constant: the motor-off attitude is found within the flare. */
		d_integ = (t->seb_error / tconst + seb_dot_err) * dt * TECS_FLARE_INTEG_RATE / gain_inv;
	}
	if ((unclamped > pitch_max && d_integ > 0.0f) || (unclamped < pitch_min && d_integ < 0.0f))
		d_integ = 0.0f;
	t->integ_seb = nav_clampf(t->integ_seb + d_integ, i_min, i_max);
	float pitch = temp / gain_inv + t->integ_seb;
	float step = dt * p->tecs_vert_acc / tas;
	pitch = nav_clampf(pitch, t->last_pitch_dem_rad - step, t->last_pitch_dem_rad + step);
	pitch = nav_clampf(pitch, pitch_min, pitch_max);
	t->pitch_dem_rad = pitch;
	t->last_pitch_dem_rad = pitch;
}
