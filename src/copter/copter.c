// SPDX-License-Identifier: GPL-3.0-or-later
#include "copter/copter.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEG_F 0.017453293f
#define CM 0.01f
#define G_M_S2 9.80665f
#define MAV_SEVERITY_CRITICAL 2
#define MAV_SEVERITY_WARNING 4
#define MAV_SEVERITY_INFO 6

/* Mission commands and frames the copter reads (MAVLink's numbers). */
#define CMD_NAV_WAYPOINT 16
#define CMD_NAV_LOITER_UNLIM 17
#define CMD_NAV_LOITER_TURNS 18
#define CMD_NAV_LOITER_TIME 19
#define CMD_NAV_RETURN_TO_LAUNCH 20
#define CMD_NAV_LAND 21
#define CMD_NAV_TAKEOFF 22
#define CMD_CONDITION_YAW 115
#define CMD_DO_CHANGE_SPEED 178
#define CMD_DO_SET_HOME 179
#define FRAME_GLOBAL 0
#define FRAME_GLOBAL_INT 5

#define STICK_ARM_US 2000000u           /* ArduCopter's ARM_DELAY and DISARM_DELAY of the sticks */
#define STICK_YAW_FULL 0.89f            /* 4000 of 4500 */
#define THROTTLE_ZERO 0.02f             /* the stick's bottom (ArduCopter's control_in 0) */
#define RC_THR_LOW_STEPS_US 100000u     /* the throttle under FS_THR_VALUE this long */
#define FS_CLOSE_TO_HOME_M 5.0f         /* ArduCopter's FS_CLOSE_TO_HOME_CM */
#define EKF_CHECK_US 100000u            /* ArduCopter's EKF check runs at 10 Hz ... */
#define EKF_CHECK_TICKS 10              /* ... and acts on ten bad ticks */
#define BRAKE_DECEL_M_S2 7.5f           /* BRAKE_MODE_DECEL_RATE */
#define YAW_LOOK_AHEAD_M 2.0f           /* a leg shorter than this keeps its heading */

void copter_params_default(struct copter_params *p)
{
	memset(p, 0, sizeof(*p));
	copter_atc_params_default(&p->atc);
	copter_psc_params_default(&p->psc);
	copter_wpnav_params_default(&p->wpnav);
	copter_motors_params_default(&p->mot);
	copter_land_params_default(&p->land);
	servo_params_default(&p->servo);
	fence_params_default(&p->fence);
	/* ArduCopter's: ceiling, circle and polygons; RTL or LAND; home a rally point, 0.3 km */
	p->fence.fence_type = FENCE_TYPE_ALT_MAX | FENCE_TYPE_CIRCLE | FENCE_TYPE_POLYGON;
	p->fence.fence_action = 1;
	p->fence.rally_incl_home = 1;
	p->fence.rally_limit_km = 0.3f;
	/* ArduCopter's outputs: a quad's motors 1..4 on SERVO1..4, MOT_PWM_* their range */
	for (int i = 0; i < SERVO_CHANNELS; i++)
		p->servo.ch[i].servo_function = i < 4 ? (float)(COPTER_SERVO_FUNC_MOTOR1 + i) : 0.0f;
	p->poshold.brake_rate = 8;
	p->poshold.brake_angle = 3000;
	p->fltmode_ch = 5;
	for (int i = 0; i < 6; i++)
		p->fltmode[i] = COPTER_STABILIZE;
	p->thr_dz = 100;
	p->pilot_y_rate = 202.5f;
	p->fs_thr_enable = 1;
	p->fs_thr_value = 975;
	p->rc_fs_timeout = 1.0f;
	p->rc_speed = 490;
	p->fs_gcs_enable = 0;
	p->fs_gcs_timeout = 5.0f;
	p->fs_ekf_action = 1;
	p->fs_ekf_thresh = 0.8f;
	p->batt_low_volt = 10.5f;
	p->batt_low_mah = 0;
	p->batt_low_timer = 10;
	p->batt_fs_low_act = 0;
	p->rtl_alt = 1500;
	p->rtl_climb_min = 0;
	p->rtl_speed = 0;
	p->rtl_loit_time = 5000;
	p->rtl_alt_final = 0;
	p->circle_radius = 1000;
	p->circle_rate = 20;
	p->wp_yaw_behavior = 2;
	p->disarm_delay = 10;
	p->land_repositions = 1;
	p->arming_check = 1;
	p->arming_rudder = 2;
}

void copter_init(struct copter *c, struct vehicle *v)
{
	memset(c, 0, sizeof(*c));
	c->v = v;
	c->last_mode = v->mode;
	c->switch_pos = -1;
	c->rally_index = -1;
	copter_atc_init(&c->atc);
	copter_land_init(&c->land);
}

int copter_switch_position(uint16_t pwm_us)
{
	static const uint16_t top[5] = { 1230, 1360, 1490, 1620, 1749 };
	for (int i = 0; i < 5; i++)
		if (pwm_us <= top[i])
			return i;
	return 5;
}

bool copter_mode_navigates(uint32_t mode)
{
	return mode == COPTER_AUTO || mode == COPTER_GUIDED || mode == COPTER_LOITER ||
	       mode == COPTER_RTL || mode == COPTER_POSHOLD || mode == COPTER_BRAKE ||
	       mode == COPTER_LAND;
}

bool copter_target(const struct copter *c, struct nav_wp *wp)
{
	uint32_t mode = c->v->mode;
	bool leg;
	switch (c->phase) {
	case COPTER_PHASE_TAKEOFF:
	case COPTER_PHASE_LEG:
	case COPTER_PHASE_RTL_CLIMB:
	case COPTER_PHASE_RTL_RETURN:
	case COPTER_PHASE_RTL_LOITER:
	case COPTER_PHASE_RTL_FINAL:
		leg = true;
		break;
	case COPTER_PHASE_HOLD:
		/* GUIDED's HOLD without a fly-to or a takeoff is its loiter: no point */
		leg = mode != COPTER_GUIDED || c->v->guided.generation || c->v->takeoff.generation;
		break;
	default:
		leg = false;
		break;
	}
	if (!leg || !c->origin_set || !c->psc_running ||
	    (mode != COPTER_AUTO && mode != COPTER_GUIDED && mode != COPTER_RTL))
		return false;
	struct nav_ne ne = { c->leg.dest_ne_m[0], c->leg.dest_ne_m[1] };
	nav_geo_ll_from_ne(c->origin_lat_deg, c->origin_lon_deg, ne, &wp->lat_deg, &wp->lon_deg);
	wp->alt_rel_m = c->leg.dest_alt_m;
	return true;
}

/* Modes that cannot fly without a position estimate (ArduCopter's requires_GPS). */
static bool needs_position(uint32_t mode)
{
	return copter_mode_navigates(mode) && mode != COPTER_LAND;
}

static float clampf(float v, float lo, float hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static float wrap_pi(float a)
{
	while (a > (float)M_PI)
		a -= 2.0f * (float)M_PI;
	while (a < -(float)M_PI)
		a += 2.0f * (float)M_PI;
	return a;
}

static void say(struct copter_output *out, int severity, const char *text)
{
	out->text = text;
	out->text_severity = severity;
}

/* Seconds since t_us; a time a moment ahead of now (stamped at its source
 * after the loop read its clock) is 0 old. */
static float age_s(uint64_t now_us, uint64_t t_us)
{
	return t_us >= now_us ? 0.0f : (float)((double)(now_us - t_us) * 1e-6);
}

/* The pilot's sticks this step (all 0, throttle at its bottom, without RC). */
struct sticks {
	bool live;
	float roll, pitch, yaw, throttle;
};

static struct sticks read_sticks(const struct copter *c, const struct copter_params *p,
				 const struct vehicle_input *in)
{
	struct sticks s = { 0 };
	s.live = in->rc_seen && !c->rc_fs && age_s(in->now_us, in->rc.timestamp_us) < p->rc_fs_timeout;
	if (!s.live)
		return s;
	s.roll = rc_stick(&in->rc, 0);
	s.pitch = rc_stick(&in->rc, 1);
	s.throttle = rc_throttle_stick(&in->rc);
	s.yaw = rc_stick(&in->rc, 3);
	return s;
}

/* ArduCopter's get_pilot_desired_throttle: mid-stick is MOT_THST_HOVER, the
 * curve's expo chosen so that the ends stay 0 and 1. */
static float pilot_throttle(const struct copter_params *p, float stick01)
{
	float thr_mid = clampf(p->mot.mot_thst_hover, 0.1f, 0.9f);
	float in = stick01;
	float expo = clampf(-(thr_mid - 0.5f) / 0.375f, -0.5f, 1.0f);
	return in * (1.0f - expo) + expo * in * in * in;
}

/* ArduCopter's get_pilot_desired_climb_rate: THR_DZ (per mille) about mid-stick. */
static float pilot_climb_m_s(const struct copter_params *p, const struct sticks *s)
{
	if (!s->live)
		return 0.0f;
	float dz = clampf(p->thr_dz, 0.0f, 400.0f) * 0.001f;
	float bottom = 0.5f - dz, top = 0.5f + dz;
	float up = p->wpnav.pilot_speed_up * CM;
	float dn = (p->wpnav.pilot_speed_dn > 0.0f ? p->wpnav.pilot_speed_dn :
						     p->wpnav.pilot_speed_up) * CM;
	if (s->throttle < bottom)
		return dn * (s->throttle - bottom) / bottom;
	if (s->throttle > top)
		return up * (s->throttle - top) / (1.0f - top);
	return 0.0f;
}

static bool throttle_zero(const struct sticks *s)
{
	return !s->live || s->throttle <= THROTTLE_ZERO;
}

static bool pilot_throttle_mode(uint32_t mode)
{
	return mode == COPTER_STABILIZE;
}

/* ---- positions ---- */

static void ne_of(const struct copter *c, double lat_deg, double lon_deg, float ne[2])
{
	struct nav_ne v = nav_geo_ne_from_ll(c->origin_lat_deg, c->origin_lon_deg, lat_deg, lon_deg);
	ne[0] = v.n_m;
	ne[1] = v.e_m;
}

static void home_ne(const struct copter *c, const struct vehicle_input *in, float ne[2])
{
	if (in->home_set)
		ne_of(c, in->home.lat_deg, in->home.lon_deg, ne);
	else
		ne[0] = ne[1] = 0.0f;
}

/*
 * The kinematic acceleration in NED: the specific force less the estimator's
 * accelerometer bias, turned by the attitude, gravity added back (ArduCopter's
 * ahrs.get_accel_ef(), which takes the EKF's bias off too). With the bias left
 * on, the land detector's 1 m/s/s reads it on a vehicle at rest: fulmar-sim's
 * quad in draw 6907's f027 (9.8 m/s, turbulence 7.7) carried a bias of 0.32 and
 * -0.32 m/s/s forward and right, 0.45 m/s/s level, and sliding over the grass
 * at 0.4-0.5 m/s/s it read 0.95-1.14 against the truth's 0.33-0.56, so it
 * declared "landed" 2.7 s after touching down, not 1 s; the wind slid it
 * meanwhile, and its feet caught as the motors spooled down and tipped it.
 */
static void accel_ned(const struct vehicle_input *in, float out[3])
{
	const float *q = in->vs.q;
	float f[3];
	for (int i = 0; i < 3; i++)
		f[i] = in->accel_body_m_s2[i] - in->accel_bias_body_m_s2[i];
	float w = q[0], x = q[1], y = q[2], z = q[3];
	float r[3][3] = {
		{ 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y) },
		{ 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x) },
		{ 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) },
	};
	for (int i = 0; i < 3; i++)
		out[i] = r[i][0] * f[0] + r[i][1] * f[1] + r[i][2] * f[2];
	out[2] += G_M_S2;
	for (int i = 0; i < 3; i++)
		if (!isfinite(out[i]))
			out[i] = 0.0f;
}

static void quat_roll_pitch(const float q[4], float *roll, float *pitch, float *yaw)
{
	float w = q[0], x = q[1], y = q[2], z = q[3];
	*roll = atan2f(2.0f * (w * x + y * z), 1.0f - 2.0f * (x * x + y * y));
	*pitch = asinf(clampf(2.0f * (w * y - z * x), -1.0f, 1.0f));
	*yaw = atan2f(2.0f * (w * z + x * y), 1.0f - 2.0f * (y * y + z * z));
}

/* ---- the mode's work ---- */

static void set_phase(struct copter *c, enum copter_phase ph, const struct vehicle_input *in)
{
	c->phase = ph;
	c->phase_us = in->now_us;
}

static struct copter_wpnav_params leg_params(const struct copter_params *p, float speed_cm_s)
{
	struct copter_wpnav_params wp = p->wpnav;
	if (speed_cm_s > 0.0f)
		wp.wpnav_speed = speed_cm_s;
	return wp;
}

/* Where the vehicle's target is now: a new leg starts there. */
static void target_now(const struct copter *c, const struct copter_psc_meas *m, float ne[2],
		       float *alt)
{
	if (c->psc_running) {
		ne[0] = c->psc.xy.pos_ne_m[0];
		ne[1] = c->psc.xy.pos_ne_m[1];
		*alt = c->psc.z.alt_m;
	} else {
		ne[0] = m->pos_ne_m[0];
		ne[1] = m->pos_ne_m[1];
		*alt = m->alt_m;
	}
}

static bool start_leg(struct copter *c, const struct copter_params *p,
		      const struct copter_psc_meas *m, const float dest_ne[2], float dest_alt,
		      float speed_cm_s)
{
	float o[2], oalt;
	target_now(c, m, o, &oalt);
	struct copter_wpnav_params wp = leg_params(p, speed_cm_s);
	if (copter_wpnav_leg_start(&c->leg, &wp, &p->psc, o, oalt, dest_ne, dest_alt) != 0) {
		/* not a place (or parameters that do not fly): hold where the target is */
		copter_wpnav_leg_start(&c->leg, &p->wpnav, &p->psc, o, oalt, o, oalt);
		return false;
	}
	/* WP_YAW_BEHAVIOR: face along a leg that goes somewhere */
	float dn = dest_ne[0] - o[0], de = dest_ne[1] - o[1];
	if (!c->yaw_fixed && p->wp_yaw_behavior != 0.0f && hypotf(dn, de) > YAW_LOOK_AHEAD_M &&
	    !(p->wp_yaw_behavior == 2.0f && c->phase >= COPTER_PHASE_RTL_CLIMB &&
	      c->phase <= COPTER_PHASE_RTL_FINAL))
		c->yaw_cd = atan2f(de, dn) / DEG_F * 100.0f;
	return true;
}

static void start_loiter(struct copter *c, const struct copter_psc_meas *m)
{
	float vel[2] = { m->vel_ne_m_s[0], m->vel_ne_m_s[1] };
	float pos[2] = { m->pos_ne_m[0], m->pos_ne_m[1] };
	if (c->psc_running) {
		pos[0] = c->psc.xy.pos_ne_m[0];
		pos[1] = c->psc.xy.pos_ne_m[1];
	}
	if (!m->pos_valid)
		vel[0] = vel[1] = 0.0f;
	copter_wpnav_loiter_init(&c->loiter, pos, vel);
	c->hold_alt_m = c->psc_running ? c->psc.z.alt_m : m->alt_m;
}

static void start_land(struct copter *c, const struct vehicle_input *in,
		       const struct copter_psc_meas *m)
{
	start_loiter(c, m);
	set_phase(c, COPTER_PHASE_LAND, in);
}

/* RTL as ArduCopter flies it: up, home, loiter, down. */
static void start_rtl(struct copter *c, const struct copter_params *p,
		      const struct vehicle_input *in, const struct copter_psc_meas *m)
{
	if (c->land.landed || !in->home_set) {
		start_land(c, in, m);
		return;
	}
	float here[2], alt;
	target_now(c, m, here, &alt);
	c->rtl_alt_m = fmaxf(p->rtl_alt * CM, m->alt_m + p->rtl_climb_min * CM);
	c->rtl_alt_m = fmaxf(c->rtl_alt_m, alt);
	/* the rally point nearest, at its height */
	struct nav_wp pos = { in->vs.lat_deg, in->vs.lon_deg, in->vs.alt_rel_m }, rp;
	uint16_t idx;
	c->rally_index = -1;
	c->rtl_ne_m[0] = c->rtl_ne_m[1] = 0.0f;
	home_ne(c, in, c->rtl_ne_m);
	if (m->pos_valid &&
	    rally_select(&p->fence, in->rally, &in->home, in->home_alt_msl_m, &pos, &rp, &idx)) {
		c->rally_index = idx;
		ne_of(c, rp.lat_deg, rp.lon_deg, c->rtl_ne_m);
		c->rtl_alt_m = fmaxf(rp.alt_rel_m, alt);
	}
	/* under the fence's ceiling */
	const struct fence_params *fp = &p->fence;
	if (fp->fence_enable != 0.0f && ((uint8_t)fp->fence_type & FENCE_TYPE_ALT_MAX))
		c->rtl_alt_m = fminf(c->rtl_alt_m, fp->fence_alt_max - fp->fence_margin);
	set_phase(c, COPTER_PHASE_RTL_CLIMB, in);
	start_leg(c, p, m, here, fmaxf(c->rtl_alt_m, alt), 0.0f);
}

static void rtl_next(struct copter *c, const struct copter_params *p,
		     const struct vehicle_input *in, const struct copter_psc_meas *m)
{
	const float *h = c->rtl_ne_m;
	switch (c->phase) {
	case COPTER_PHASE_RTL_CLIMB:
		set_phase(c, COPTER_PHASE_RTL_RETURN, in);
		start_leg(c, p, m, h, c->rtl_alt_m, p->rtl_speed);
		break;
	case COPTER_PHASE_RTL_RETURN:
		set_phase(c, COPTER_PHASE_RTL_LOITER, in);
		break;
	case COPTER_PHASE_RTL_LOITER:
		if (p->rtl_alt_final > 0.0f) {
			set_phase(c, COPTER_PHASE_RTL_FINAL, in);
			start_leg(c, p, m, h, p->rtl_alt_final * CM, 0.0f);
		} else {
			start_land(c, in, m);
		}
		break;
	default:
		break;
	}
}

/* ---- AUTO's mission ---- */

static void item_place(const struct copter *c, const struct vehicle_input *in,
		       const struct copter_psc_meas *m, const struct mission_item *it, float ne[2],
		       float *alt)
{
	if (it->x != 0 || it->y != 0) {
		ne_of(c, it->x * 1e-7, it->y * 1e-7, ne);
	} else {
		ne[0] = m->pos_ne_m[0];
		ne[1] = m->pos_ne_m[1];
	}
	bool absolute = it->frame == FRAME_GLOBAL || it->frame == FRAME_GLOBAL_INT;
	*alt = absolute ? it->z - in->home_alt_msl_m : it->z;
	/* 0: the present height (ArduCopter's for a waypoint without one) */
	if (it->z == 0.0f && !absolute)
		*alt = c->psc_running ? c->psc.z.alt_m : m->alt_m;
}

static void do_command(struct copter *c, const struct vehicle_input *in,
		       const struct copter_psc_meas *m, const struct mission_item *it,
		       struct copter_output *out)
{
	switch (it->command) {
	case CMD_DO_CHANGE_SPEED:
		if (it->param2 > 0.0f && isfinite(it->param2))
			c->speed_cm_s = it->param2 * 100.0f;
		break;
	case CMD_DO_SET_HOME:
		out->home_changed = true;
		if (it->param1 == 1.0f || (it->x == 0 && it->y == 0)) {
			out->home = (struct nav_wp){ in->vs.lat_deg, in->vs.lon_deg, 0.0f };
			out->home_alt_msl_m = in->vs.alt_msl_m;
		} else {
			bool absolute = it->frame == FRAME_GLOBAL || it->frame == FRAME_GLOBAL_INT;
			out->home = (struct nav_wp){ it->x * 1e-7, it->y * 1e-7, 0.0f };
			out->home_alt_msl_m = absolute ? it->z : in->home_alt_msl_m + it->z;
		}
		break;
	case CMD_CONDITION_YAW: {
		float a = it->param1 * 100.0f;
		if (it->param4 != 0.0f)
			c->yaw_cd += (it->param3 < 0.0f ? -a : a);
		else
			c->yaw_cd = a;
		c->yaw_fixed = true;
		break;
	}
	default:
		break;
	}
	(void)m;
}

static bool nav_command(uint16_t cmd)
{
	return cmd == CMD_NAV_WAYPOINT || cmd == CMD_NAV_LOITER_UNLIM || cmd == CMD_NAV_LOITER_TURNS ||
	       cmd == CMD_NAV_LOITER_TIME || cmd == CMD_NAV_RETURN_TO_LAUNCH ||
	       cmd == CMD_NAV_LAND || cmd == CMD_NAV_TAKEOFF;
}

static void start_item(struct copter *c, const struct copter_params *p,
		       const struct vehicle_input *in, const struct copter_psc_meas *m,
		       const struct mission_item *it)
{
	float ne[2], alt;
	item_place(c, in, m, it, ne, &alt);
	c->item_reached_said = false;
	c->hold_s = 0.0f;
	switch (it->command) {
	case CMD_NAV_TAKEOFF: {
		float here[2], now_alt;
		target_now(c, m, here, &now_alt);
		set_phase(c, COPTER_PHASE_TAKEOFF, in);
		start_leg(c, p, m, here, fmaxf(alt, now_alt), 0.0f);
		break;
	}
	case CMD_NAV_WAYPOINT:
	case CMD_NAV_LOITER_TIME:
	case CMD_NAV_LOITER_UNLIM:
		set_phase(c, COPTER_PHASE_LEG, in);
		c->hold_s = it->command == CMD_NAV_LOITER_UNLIM ? INFINITY : fmaxf(it->param1, 0.0f);
		start_leg(c, p, m, ne, alt, c->speed_cm_s);
		break;
	case CMD_NAV_LOITER_TURNS: {
		float r = it->param3 != 0.0f ? fabsf(it->param3) : p->circle_radius * CM;
		c->circle_radius_m = fmaxf(r, 0.5f);
		c->circle_dir = it->param3 < 0.0f ? -1 : 1;
		c->circle_center_ne_m[0] = ne[0];
		c->circle_center_ne_m[1] = ne[1];
		c->circle_goal_rad = fmaxf(it->param1, 0.0f) * 2.0f * (float)M_PI;
		/* to the edge nearest the vehicle first */
		float here[2], now_alt;
		target_now(c, m, here, &now_alt);
		float dn = here[0] - ne[0], de = here[1] - ne[1];
		float d = hypotf(dn, de);
		c->circle_angle_rad = d > 0.1f ? atan2f(de, dn) : 0.0f;
		float edge[2] = { ne[0] + c->circle_radius_m * cosf(c->circle_angle_rad),
				  ne[1] + c->circle_radius_m * sinf(c->circle_angle_rad) };
		c->circle_total_rad = 0.0f;
		c->circle_rate_rad_s = 0.0f;
		c->hold_alt_m = alt;
		set_phase(c, COPTER_PHASE_LEG, in);
		c->hold_s = -1.0f;    /* marks the leg to the circle */
		start_leg(c, p, m, edge, alt, c->speed_cm_s);
		break;
	}
	case CMD_NAV_LAND:
		if (it->x != 0 || it->y != 0) {
			float here[2], now_alt;
			target_now(c, m, here, &now_alt);
			set_phase(c, COPTER_PHASE_LEG, in);
			c->hold_s = -2.0f;    /* marks the leg before a landing */
			start_leg(c, p, m, ne, now_alt, c->speed_cm_s);
		} else {
			start_land(c, in, m);
		}
		break;
	case CMD_NAV_RETURN_TO_LAUNCH:
		start_rtl(c, p, in, m);
		break;
	default:
		break;
	}
}

/* From item c->item on: the do-commands at once, then the next nav item. */
static void auto_advance(struct copter *c, const struct copter_params *p,
			 const struct vehicle_input *in, const struct copter_psc_meas *m,
			 struct copter_output *out)
{
	const struct mission *ms = in->mission;
	while (ms && c->item < ms->count) {
		const struct mission_item *it = &ms->items[c->item];
		if (nav_command(it->command)) {
			start_item(c, p, in, m, it);
			return;
		}
		do_command(c, in, m, it, out);
		c->item++;
	}
	start_loiter(c, m);
	set_phase(c, COPTER_PHASE_DONE, in);
	say(out, MAV_SEVERITY_INFO, "Mission complete: holding");
}

static void item_reached(struct copter *c, struct copter_output *out)
{
	if (c->item_reached_said)
		return;
	c->item_reached_said = true;
	out->reached = true;
	out->reached_seq = c->item;
}

static void item_done(struct copter *c, const struct copter_params *p,
		      const struct vehicle_input *in, const struct copter_psc_meas *m,
		      struct copter_output *out)
{
	item_reached(c, out);
	c->item++;
	c->yaw_fixed = false;   /* CONDITION_YAW holds through the nav item after it */
	auto_advance(c, p, in, m, out);
}

/* ---- mode changes ---- */

static void enter_mode(struct copter *c, const struct copter_params *p,
		       const struct vehicle_input *in, const struct copter_psc_meas *m,
		       struct copter_output *out)
{
	uint32_t mode = c->v->mode;
	out->mode_changed = true;
	set_phase(c, COPTER_PHASE_NONE, in);
	c->yaw_fixed = false;
	c->yaw_cd = in->vs.yaw_rad / DEG_F * 100.0f;
	if (c->psc_running) {
		/* from where it is: the new mode's targets start on the vehicle */
		copter_psc_init(&c->psc, m, c->throttle_out, p->mot.mot_thst_hover);
	}
	switch (mode) {
	case COPTER_AUTO:
		c->item = 1;
		c->speed_cm_s = 0.0f;
		if (c->v->armed && c->auto_armed)
			auto_advance(c, p, in, m, out);
		break;
	case COPTER_RTL:
		start_rtl(c, p, in, m);
		break;
	case COPTER_LAND:
		start_land(c, in, m);
		break;
	case COPTER_GUIDED:
		c->guided_gen = c->v->guided.generation;
		c->takeoff_gen = c->v->takeoff.generation;
		start_loiter(c, m);
		set_phase(c, COPTER_PHASE_HOLD, in);
		if (c->v->guided.generation) {
			float ne[2];
			ne_of(c, c->v->guided.lat_deg, c->v->guided.lon_deg, ne);
			set_phase(c, COPTER_PHASE_LEG, in);
			start_leg(c, p, m, ne, c->v->guided.alt_rel_m, 0.0f);
		}
		break;
	case COPTER_POSHOLD:
		copter_poshold_init(&c->poshold);
		start_loiter(c, m);
		break;
	case COPTER_LOITER:
	case COPTER_BRAKE:
		start_loiter(c, m);
		break;
	default:
		break;
	}
}

/* ---- failsafes ---- */

enum fs_action {
	FS_ACT_NONE = 0,
	FS_ACT_RTL,
	FS_ACT_LAND,
	FS_ACT_ALT_HOLD,
};

static void disarm(struct copter *c)
{
	char why[8];
	vehicle_arm(c->v, false, false, 0, why, sizeof(why));
}

static void failsafe_act(struct copter *c, const struct vehicle_input *in,
			 const struct copter_psc_meas *m, const struct sticks *s,
			 enum fs_action a, const char *what, struct copter_output *out)
{
	if (!c->v->armed || a == FS_ACT_NONE) {
		snprintf(c->text, sizeof(c->text), "%s", what);
		say(out, MAV_SEVERITY_WARNING, c->text);
		return;
	}
	uint32_t mode = c->v->mode;
	/* ArduCopter's should_disarm_on_failsafe */
	if (c->land.landed || (pilot_throttle_mode(mode) && throttle_zero(s))) {
		disarm(c);
		snprintf(c->text, sizeof(c->text), "%s - Disarming", what);
		say(out, MAV_SEVERITY_CRITICAL, c->text);
		return;
	}
	if (mode == COPTER_LAND) {
		snprintf(c->text, sizeof(c->text), "%s: continuing LAND", what);
		say(out, MAV_SEVERITY_CRITICAL, c->text);
		return;
	}
	char why[96];
	uint32_t want = a == FS_ACT_RTL ? COPTER_RTL : a == FS_ACT_ALT_HOLD ? COPTER_ALT_HOLD :
				      COPTER_LAND;
	if (want == COPTER_RTL) {
		float h[2];
		home_ne(c, in, h);
		bool close = m->pos_valid && in->home_set &&
			     hypotf(m->pos_ne_m[0] - h[0], m->pos_ne_m[1] - h[1]) < FS_CLOSE_TO_HOME_M;
		if (close || vehicle_set_mode(c->v, COPTER_RTL, why, sizeof(why)) != 0)
			want = COPTER_LAND;
	}
	if (want != COPTER_RTL && vehicle_set_mode(c->v, want, why, sizeof(why)) != 0)
		vehicle_set_mode(c->v, COPTER_LAND, why, sizeof(why));
	snprintf(c->text, sizeof(c->text), "%s: %s", what, vehicle_mode_name(VEHICLE_COPTER,
									    c->v->mode));
	say(out, MAV_SEVERITY_CRITICAL, c->text);
}

/* ArduCopter's variance vote: two of compass, velocity and position at the
 * threshold, the velocity at twice it counting as two. */
static bool ekf_over_threshold(float thresh, const struct vehicle_input *in)
{
	int over = in->ekf_mag_var >= thresh;
	over += in->ekf_vel_var >= 2.0f * thresh ? 2 : in->ekf_vel_var >= thresh;
	return over >= 2 || (over >= 1 && in->ekf_pos_var >= thresh);
}

static void ekf_check(struct copter *c, const struct copter_params *p,
		      const struct vehicle_input *in, struct copter_output *out)
{
	if (in->now_us - c->ekf_check_us < EKF_CHECK_US)
		return;
	c->ekf_check_us = in->now_us;
	if (!c->v->armed || !(p->fs_ekf_thresh > 0.0f)) {
		c->ekf_bad_count = 0;
		if (c->ekf_fs) {
			c->ekf_fs = false;
			say(out, MAV_SEVERITY_INFO, "EKF Failsafe Cleared");
		}
		return;
	}
	bool pos = in->vs.valid & VEHICLE_POSITION_VALID;
	if (pos && !ekf_over_threshold(p->fs_ekf_thresh, in)) {
		if (c->ekf_bad_count > 0 && --c->ekf_bad_count == 0 && c->ekf_fs) {
			c->ekf_fs = false;
			say(out, MAV_SEVERITY_INFO, "EKF Failsafe Cleared");
		}
		return;
	}
	if (c->ekf_fs || ++c->ekf_bad_count < EKF_CHECK_TICKS)
		return;
	c->ekf_fs = true;
	uint32_t mode = c->v->mode;
	if (p->fs_ekf_action == 0.0f || (!needs_position(mode) && p->fs_ekf_action != 3.0f)) {
		say(out, MAV_SEVERITY_CRITICAL, pos ? "EKF variance" : "EKF Failsafe: no position");
		return;
	}
	uint32_t want = p->fs_ekf_action == 2.0f && needs_position(mode) ? COPTER_ALT_HOLD : COPTER_LAND;
	char why[96];
	if (mode != want && vehicle_set_mode(c->v, want, why, sizeof(why)) != 0)
		vehicle_set_mode(c->v, COPTER_STABILIZE, why, sizeof(why));
	snprintf(c->text, sizeof(c->text), "EKF Failsafe: changed to %s Mode",
		 vehicle_mode_name(VEHICLE_COPTER, c->v->mode));
	say(out, MAV_SEVERITY_CRITICAL, c->text);
}

static void failsafes(struct copter *c, const struct copter_params *p,
		      const struct vehicle_input *in, const struct copter_psc_meas *m,
		      struct copter_output *out)
{
	/* RC: frames stopped, the receiver's failsafe, or the throttle under FS_THR_VALUE. */
	if (in->rc_seen && p->fs_thr_enable != 0.0f) {
		bool stale = age_s(in->now_us, in->rc.timestamp_us) >= p->rc_fs_timeout;
		bool low = !stale && (in->rc.failsafe || (in->rc.channel_count >= 3 &&
							  in->rc.channels_us[2] < p->fs_thr_value));
		if (low && !c->rc_bad_since_us)
			c->rc_bad_since_us = in->now_us;
		if (!low)
			c->rc_bad_since_us = 0;
		bool bad = stale || (low && in->now_us - c->rc_bad_since_us >= RC_THR_LOW_STEPS_US);
		if (bad && !c->rc_fs) {
			c->rc_fs = true;
			struct sticks none = { 0 };
			if (p->fs_thr_enable == 2.0f && c->v->mode == COPTER_AUTO && !c->land.landed)
				say(out, MAV_SEVERITY_CRITICAL, "Radio Failsafe: continuing AUTO");
			else
				failsafe_act(c, in, m, &none,
					     p->fs_thr_enable == 3.0f ? FS_ACT_LAND : FS_ACT_RTL,
					     "Radio Failsafe", out);
		} else if (!bad && c->rc_fs) {
			c->rc_fs = false;
			say(out, MAV_SEVERITY_INFO, "Radio Failsafe Cleared");
		}
	}
	struct sticks s = read_sticks(c, p, in);
	/* GCS: heartbeats stopped after there were some. */
	if (p->fs_gcs_enable != 0.0f && in->gcs_heartbeat_us) {
		bool lost = age_s(in->now_us, in->gcs_heartbeat_us) >= p->fs_gcs_timeout;
		if (lost && !c->gcs_fs) {
			c->gcs_fs = true;
			if (p->fs_gcs_enable == 2.0f && c->v->mode == COPTER_AUTO && !c->land.landed)
				say(out, MAV_SEVERITY_CRITICAL, "GCS Failsafe: continuing AUTO");
			else
				failsafe_act(c, in, m, &s,
					     p->fs_gcs_enable == 5.0f ? FS_ACT_LAND : FS_ACT_RTL,
					     "GCS Failsafe", out);
		} else if (!lost && c->gcs_fs) {
			c->gcs_fs = false;
			say(out, MAV_SEVERITY_INFO, "GCS Failsafe Cleared");
		}
	}
	/* Battery: low for BATT_LOW_TIMER, or the capacity used. Once. */
	bool low = p->batt_low_volt > 0.0f && isfinite(in->batt_voltage_v) &&
		   in->batt_voltage_v < p->batt_low_volt;
	c->batt_low_since_us = low ? (c->batt_low_since_us ? c->batt_low_since_us : in->now_us) : 0;
	bool used = p->batt_low_mah > 0.0f && isfinite(in->batt_used_mah) &&
		    in->batt_used_mah >= p->batt_low_mah;
	if (!c->batt_fs && c->v->armed &&
	    (used || (c->batt_low_since_us &&
		      (double)(in->now_us - c->batt_low_since_us) * 1e-6 >= (double)p->batt_low_timer))) {
		c->batt_fs = true;
		char what[64];
		snprintf(what, sizeof(what), "Battery 1 is low %.2fV used %.0f mAh",
			 (double)(isfinite(in->batt_voltage_v) ? in->batt_voltage_v : 0.0f),
			 (double)(isfinite(in->batt_used_mah) ? in->batt_used_mah : 0.0f));
		enum fs_action a = p->batt_fs_low_act == 1.0f ? FS_ACT_LAND :
				   p->batt_fs_low_act == 2.0f ? FS_ACT_RTL : FS_ACT_NONE;
		failsafe_act(c, in, m, &s, a, what, out);
	}
	ekf_check(c, p, in, out);
}

/* ---- the geofence ---- */

static const char *fence_name(uint8_t b)
{
	if (b & FENCE_TYPE_POLYGON)
		return "polygon";
	if (b & FENCE_TYPE_CIRCLE)
		return "circle";
	if (b & FENCE_TYPE_ALT_MAX)
		return "max alt";
	return "min alt";
}

/* A new breach: ArduCopter's FENCE_ACTION. */
static void fence_act(struct copter *c, const struct copter_params *p,
		      const struct vehicle_input *in, const struct copter_psc_meas *m,
		      const struct sticks *s, uint8_t fresh, struct copter_output *out)
{
	int action = (int)p->fence.fence_action;
	char what[48];
	snprintf(what, sizeof(what), "Fence breached: %s", fence_name(fresh));
	if (action == 0) {
		snprintf(c->text, sizeof(c->text), "%s", what);
		say(out, MAV_SEVERITY_CRITICAL, c->text);
		return;
	}
	if (action == 4 && !c->land.landed && c->v->mode != COPTER_LAND) {
		char why[96];
		if (vehicle_set_mode(c->v, COPTER_BRAKE, why, sizeof(why)) == 0) {
			snprintf(c->text, sizeof(c->text), "%s: BRAKE", what);
			say(out, MAV_SEVERITY_CRITICAL, c->text);
			return;
		}
	}
	failsafe_act(c, in, m, s, action == 2 || action == 4 || action == 5 ? FS_ACT_LAND : FS_ACT_RTL,
		     what, out);
}

/*
 * Judged while FENCE_ENABLE, armed, not landed, with a home and a position.
 * A type newly breached takes FENCE_ACTION once; the breach ends when no
 * type is breached.
 */
static void fence_step(struct copter *c, const struct copter_params *p,
		       const struct vehicle_input *in, const struct copter_psc_meas *m,
		       struct copter_output *out)
{
	bool on = p->fence.fence_enable != 0.0f && c->v->armed && in->home_set && m->pos_valid &&
		  !c->land.landed;
	uint8_t b = 0, margin = 0;
	if (on) {
		struct nav_wp pos = { in->vs.lat_deg, in->vs.lon_deg, in->vs.alt_rel_m };
		b = fence_breaches(&p->fence, in->fence, &in->home, &pos, &margin);
	}
	uint8_t fresh = b & (uint8_t)~c->fence_breaches;
	uint8_t was = c->fence_breaches;
	c->fence_breaches = b;
	c->fence_margins = margin;
	if (fresh) {
		if (!was) {
			c->fence_breach_count++;
			c->fence_breach_us = in->now_us;
		}
		c->fence_breach_type = fence_breach_type(fresh);
		out->fence_event = true;
		out->fence_code = b;
		struct sticks s = read_sticks(c, p, in);
		fence_act(c, p, in, m, &s, fresh, out);
	} else if (was && !b) {
		out->fence_event = true;
		out->fence_code = 0;
		say(out, MAV_SEVERITY_INFO, "Fence breach cleared");
	}
}

/* ---- arming ---- */

static void prearm(struct copter *c, const struct vehicle_input *in)
{
	bool pos = needs_position(c->v->mode);
	c->v->prearm_problem = !in->estimator_converged ? "estimator not converged" :
			       pos && !in->gps_fix ? "GPS: no 3D fix" :
			       pos && !in->home_set ? "home not set" :
			       !in->rc_seen ? "RC not found" : NULL;
}

static void stick_arming(struct copter *c, const struct copter_params *p,
			 const struct vehicle_input *in, const struct sticks *s,
			 struct copter_output *out)
{
	bool low = s->live && throttle_zero(s);
	bool right = low && s->yaw > STICK_YAW_FULL && !c->v->armed;
	bool left = low && s->yaw < -STICK_YAW_FULL && c->v->armed && p->arming_rudder == 2.0f &&
		    (c->land.landed || pilot_throttle_mode(c->v->mode));
	if (p->arming_rudder == 0.0f || (!right && !left)) {
		c->stick_since_us = 0;
		return;
	}
	if (!c->stick_since_us)
		c->stick_since_us = in->now_us;
	if (in->now_us - c->stick_since_us < STICK_ARM_US)
		return;
	c->stick_since_us = 0;
	if (right) {
		if (vehicle_arm(c->v, true, false, (uint32_t)p->arming_check, c->text,
				sizeof(c->text)) != 0) {
			say(out, MAV_SEVERITY_WARNING, c->text);
			return;
		}
		say(out, MAV_SEVERITY_INFO, "Arming motors");
	} else {
		disarm(c);
		say(out, MAV_SEVERITY_INFO, "Disarming motors");
	}
}

/* ---- the step ---- */


static void z_climb(struct copter *c, const struct copter_params *p, float climb, bool force,
		    enum copter_wpnav_use use, float dt)
{
	struct copter_psc_limits lim;
	copter_wpnav_limits(&p->wpnav, use, &lim);
	copter_psc_z_input_climb(&c->psc, &p->psc, &lim, climb, force, dt);
}

static void xy_loiter(struct copter *c, const struct copter_params *p, const struct sticks *s,
		      const struct vehicle_input *in, float dt)
{
	struct copter_psc_limits lim;
	copter_wpnav_limits(&p->wpnav, COPTER_WPNAV_PILOT, &lim);
	struct copter_psc_xy_target t;
	copter_wpnav_loiter_update(&c->loiter, &p->wpnav, &p->psc, s ? -s->pitch : 0.0f,
				   s ? s->roll : 0.0f, in->vs.yaw_rad, dt, &t);
	copter_psc_xy_set(&c->psc, &lim, &t);
}

static void fly_leg(struct copter *c, const struct copter_params *p,
		    const struct copter_psc_meas *m, float dt)
{
	struct copter_psc_limits lim;
	struct copter_wpnav_params wp = leg_params(p, c->speed_cm_s);
	copter_wpnav_limits(&wp, COPTER_WPNAV_AUTO, &lim);
	struct copter_psc_xy_target xy;
	struct copter_psc_z_target z;
	copter_wpnav_leg_update(&c->leg, &wp, m, dt, &xy, &z);
	copter_psc_xy_set(&c->psc, &lim, &xy);
	copter_psc_z_set(&c->psc, &lim, &z);
}

static void fly_circle(struct copter *c, const struct copter_params *p, float dt)
{
	float r = c->circle_radius_m;
	float speed = p->wpnav.wpnav_speed * CM, accel = p->wpnav.wpnav_accel * CM;
	float w_max = fminf(fabsf(p->circle_rate) * DEG_F, fminf(speed / r, sqrtf(accel / r)));
	/* the angular rate ramps at the tangential acceleration */
	float w = fminf(c->circle_rate_rad_s + accel / r * dt, w_max);
	c->circle_rate_rad_s = w;
	float step = w * dt;
	c->circle_angle_rad = wrap_pi(c->circle_angle_rad + (float)c->circle_dir * step);
	c->circle_total_rad += step;
	float a = c->circle_angle_rad, ca = cosf(a), sa = sinf(a);
	float dir = (float)c->circle_dir;
	struct copter_psc_xy_target t = {
		{ c->circle_center_ne_m[0] + r * ca, c->circle_center_ne_m[1] + r * sa },
		{ -dir * r * w * sa, dir * r * w * ca },
		{ -r * w * w * ca, -r * w * w * sa },
	};
	struct copter_psc_limits lim;
	copter_wpnav_limits(&p->wpnav, COPTER_WPNAV_AUTO, &lim);
	copter_psc_xy_set(&c->psc, &lim, &t);
	struct copter_psc_z_target z = { c->hold_alt_m, 0.0f, 0.0f };
	copter_psc_z_set(&c->psc, &lim, &z);
}

/* Slower than this up or down with the motors at their floor: touching the ground. */
#define COPTER_TOUCH_CLIMB_M_S 0.2f

/*
 * Coming down onto the ground, or on it with the motors at their floor, the
 * point is no longer held (ArduCopter's soften_for_landing): its target
 * follows the vehicle and the velocity integrator empties. Otherwise the
 * lean that held the vehicle against the wind, and the integral of the
 * estimate's wander, are held against the ground: the lean asked grows past
 * the land detector's 15 degrees, it never lands, and a gust can tip it
 * (fulmar-sim's quad in 3.5 m/s of wind, turbulence 7.7: 30 degrees asked
 * 4 s after touching down). The same test says c->ground_contact, on which
 * copter_step lets go of the heading too.
 */
static void soften_for_landing(struct copter *c, const struct copter_psc_meas *m)
{
	/* the motors at their floor and the descent stopped: on the ground (in
	 * the air the floor comes with a sink the estimate sees; letting go
	 * there let a gust carry the vehicle into its touchdown sideways) */
	bool touching = c->limit.throttle_lower && m->alt_valid &&
			fabsf(m->climb_m_s) < COPTER_TOUCH_CLIMB_M_S;
	c->ground_contact = c->land.landed_maybe || touching;
	if (m->pos_valid && (c->land.landed_maybe || touching)) {
		copter_wpnav_loiter_init(&c->loiter, m->pos_ne_m, m->vel_ne_m_s);
		c->psc.vel_integ_ne[0] = c->psc.vel_integ_ne[1] = 0.0f;
	}
}

/* The land phase: hold the point (when there is a position), descend. */
static void fly_land(struct copter *c, const struct copter_params *p,
		     const struct vehicle_input *in, const struct copter_psc_meas *m,
		     const struct sticks *s, float dt, struct copter_demand *d)
{
	soften_for_landing(c, m);
	/* LAND_REPOSITION: the pilot's sticks move the point, as LOITER's */
	bool pilot = p->land_repositions != 0.0f && s && s->live;
	xy_loiter(c, p, pilot ? s : NULL, in, dt);
	float off = m->pos_valid ? hypotf(c->psc.xy.pos_ne_m[0] - m->pos_ne_m[0],
					  c->psc.xy.pos_ne_m[1] - m->pos_ne_m[1]) : NAN;
	float climb = copter_wpnav_land_climb_rate(&p->wpnav, &p->psc, in->vs.alt_rel_m, off);
	z_climb(c, p, climb, true, COPTER_WPNAV_LAND, dt);
	d->landing = true;
	d->climb_target_m_s = climb;
	d->fly = !c->land.landed;
}

/* The auto modes' work this step: AUTO's items, RTL, LAND, GUIDED, BRAKE. */
static void run_phase(struct copter *c, const struct copter_params *p,
		      const struct vehicle_input *in, const struct copter_psc_meas *m,
		      const struct sticks *s, float dt, struct copter_demand *d,
		      struct copter_output *out)
{
	double in_phase_s = (double)(in->now_us - c->phase_us) * 1e-6;
	switch (c->phase) {
	case COPTER_PHASE_TAKEOFF:
		fly_leg(c, p, m, dt);
		d->climb_target_m_s = c->leg.v_m_s * c->leg.unit[2];
		if (c->leg.reached && c->v->mode == COPTER_AUTO)
			item_done(c, p, in, m, out);
		else if (c->leg.reached)
			set_phase(c, COPTER_PHASE_HOLD, in);
		break;
	case COPTER_PHASE_LEG:
		fly_leg(c, p, m, dt);
		d->climb_target_m_s = c->leg.v_m_s * c->leg.unit[2];
		if (!c->leg.reached)
			break;
		if (c->v->mode == COPTER_GUIDED) {
			set_phase(c, COPTER_PHASE_HOLD, in);
		} else if (c->hold_s == -1.0f) {
			set_phase(c, COPTER_PHASE_CIRCLE, in);
		} else if (c->hold_s == -2.0f) {
			start_land(c, in, m);
		} else {
			if (in->mission && c->item < in->mission->count &&
			    in->mission->items[c->item].command == CMD_NAV_WAYPOINT)
				item_reached(c, out);
			set_phase(c, COPTER_PHASE_HOLD, in);
		}
		break;
	case COPTER_PHASE_HOLD:
		fly_leg(c, p, m, dt);
		if (c->v->mode == COPTER_AUTO && in_phase_s >= (double)c->hold_s)
			item_done(c, p, in, m, out);
		break;
	case COPTER_PHASE_CIRCLE:
		fly_circle(c, p, dt);
		if (c->circle_total_rad >= c->circle_goal_rad)
			item_done(c, p, in, m, out);
		break;
	case COPTER_PHASE_RTL_CLIMB:
	case COPTER_PHASE_RTL_RETURN:
		fly_leg(c, p, m, dt);
		d->climb_target_m_s = c->leg.v_m_s * c->leg.unit[2];
		if (c->leg.reached)
			rtl_next(c, p, in, m);
		break;
	case COPTER_PHASE_RTL_LOITER:
		fly_leg(c, p, m, dt);
		if (in_phase_s * 1000.0 >= (double)p->rtl_loit_time)
			rtl_next(c, p, in, m);
		break;
	case COPTER_PHASE_RTL_FINAL:
		fly_leg(c, p, m, dt);
		d->climb_target_m_s = c->leg.v_m_s * c->leg.unit[2];
		break;
	case COPTER_PHASE_LAND:
		fly_land(c, p, in, m, s, dt, d);
		return;
	case COPTER_PHASE_DONE:
		xy_loiter(c, p, NULL, in, dt);
		z_climb(c, p, 0.0f, false, COPTER_WPNAV_PILOT, dt);
		break;
	default:
		/* nothing to fly (AUTO waiting on the ground) */
		d->fly = false;
		return;
	}
}

/* POSHOLD's axes (copter/poshold.h): the loiter controller runs throughout,
 * its target kept on the vehicle until both axes hand over to it. */
static void poshold_demand(struct copter *c, const struct copter_params *p,
			   const struct vehicle_input *in, const struct copter_psc_meas *m,
			   float roll_cd, float pitch_cd, float dt)
{
	if (c->land.landed)
		copter_poshold_init(&c->poshold);
	struct copter_poshold_in pin = {
		.stick_cd = { roll_cd, pitch_cd },
		.vel_ne_m_s = { m->vel_ne_m_s[0], m->vel_ne_m_s[1] },
		.yaw_rad = in->vs.yaw_rad,
		.ctl_accel_ne_m_s2 = { c->nav_psc_out.accel_ne_m_s2[0], c->nav_psc_out.accel_ne_m_s2[1] },
		.ctl_cd = { c->nav_psc_out.roll_rad / DEG_F * 100.0f,
			    c->nav_psc_out.pitch_rad / DEG_F * 100.0f },
		.angle_max_cd = p->atc.angle_max,
		.dt_s = dt,
	};
	bool start = copter_poshold_update(&c->poshold, &p->poshold, &pin);
	if (!copter_poshold_loitering(&c->poshold) || start)
		copter_wpnav_loiter_init(&c->loiter, m->pos_ne_m, m->vel_ne_m_s);
	xy_loiter(c, p, NULL, in, dt);
}

static void mode_demand(struct copter *c, const struct copter_params *p,
			const struct vehicle_input *in, const struct copter_psc_meas *m,
			const struct sticks *s, float dt, struct copter_demand *d, struct copter_output *out)
{
	uint32_t mode = c->v->mode;
	float angle_max = p->atc.angle_max;
	d->yaw_rate = true;
	d->yaw_rate_cds = s->yaw * p->pilot_y_rate * 100.0f;
	/* a higher pitch pulse is nose up: the stick pushed forward (low) leans forward */
	float roll = s->roll * angle_max, pitch = s->pitch * angle_max;
	float total = hypotf(roll, pitch);
	if (total > angle_max) {
		roll *= angle_max / total;
		pitch *= angle_max / total;
	}
	switch (mode) {
	case COPTER_STABILIZE:
		d->roll_cd = roll;
		d->pitch_cd = pitch;
		d->throttle = pilot_throttle(p, s->throttle);
		d->fly = !throttle_zero(s);
		break;
	case COPTER_ALT_HOLD:
	case COPTER_LOITER: {
		float climb = pilot_climb_m_s(p, s);
		d->climb_target_m_s = climb;
		d->fly = !c->land.landed || (climb > 0.0f && !throttle_zero(s));
		d->psc = true;
		if (mode == COPTER_ALT_HOLD) {
			d->roll_cd = roll;
			d->pitch_cd = pitch;
			/* no horizontal control: the psc's lean is replaced below */
		} else {
			/* the pilot bringing it down: as a LAND's touchdown */
			if (climb < 0.0f)
				soften_for_landing(c, m);
			xy_loiter(c, p, s, in, dt);
		}
		z_climb(c, p, climb, false, COPTER_WPNAV_PILOT, dt);
		break;
	}
	case COPTER_POSHOLD: {
		float climb = pilot_climb_m_s(p, s);
		d->climb_target_m_s = climb;
		d->fly = !c->land.landed || (climb > 0.0f && !throttle_zero(s));
		d->psc = true;
		poshold_demand(c, p, in, m, roll, pitch, dt);
		if (climb < 0.0f)
			soften_for_landing(c, m);
		z_climb(c, p, climb, false, COPTER_WPNAV_PILOT, dt);
		break;
	}
	case COPTER_BRAKE: {
		struct copter_psc_limits lim = { 50.0f, BRAKE_DECEL_M_S2, 2.5f, 1.5f, 2.5f };
		float zero[2] = { 0.0f, 0.0f };
		copter_psc_xy_input_vel(&c->psc, &p->psc, &lim, zero, dt);
		z_climb(c, p, 0.0f, false, COPTER_WPNAV_PILOT, dt);
		d->psc = true;
		d->fly = !c->land.landed;
		d->yaw_rate = false;
		break;
	}
	case COPTER_GUIDED:
		if (c->v->takeoff.generation != c->takeoff_gen) {
			/* ArduCopter's user takeoff: straight up from here, then hold */
			c->takeoff_gen = c->v->takeoff.generation;
			if (c->v->armed && c->land.landed) {
				float here[2], now_alt;
				target_now(c, m, here, &now_alt);
				c->auto_armed = true;
				set_phase(c, COPTER_PHASE_TAKEOFF, in);
				start_leg(c, p, m, here, fmaxf(c->v->takeoff.alt_rel_m, now_alt), 0.0f);
			}
		}
		if (c->v->guided.generation != c->guided_gen) {
			c->guided_gen = c->v->guided.generation;
			float ne[2];
			ne_of(c, c->v->guided.lat_deg, c->v->guided.lon_deg, ne);
			set_phase(c, COPTER_PHASE_LEG, in);
			start_leg(c, p, m, ne, c->v->guided.alt_rel_m, 0.0f);
		}
		d->psc = true;
		d->yaw_rate = false;
		d->fly = !c->land.landed || c->phase == COPTER_PHASE_TAKEOFF;
		if (c->phase == COPTER_PHASE_LEG || c->phase == COPTER_PHASE_TAKEOFF ||
		    (c->phase == COPTER_PHASE_HOLD && (c->v->guided.generation || c->v->takeoff.generation))) {
			run_phase(c, p, in, m, s, dt, d, out);
		} else {
			xy_loiter(c, p, NULL, in, dt);
			z_climb(c, p, 0.0f, false, COPTER_WPNAV_PILOT, dt);
		}
		break;
	case COPTER_AUTO:
	case COPTER_RTL:
	case COPTER_LAND:
		d->psc = true;
		d->yaw_rate = false;
		d->fly = true;
		if (mode == COPTER_AUTO && c->phase == COPTER_PHASE_NONE && c->v->armed &&
		    c->auto_armed) {
			c->item = 1;
			auto_advance(c, p, in, m, out);
		}
		run_phase(c, p, in, m, s, dt, d, out);
		if (c->phase == COPTER_PHASE_DONE || c->phase == COPTER_PHASE_RTL_FINAL ||
		    c->phase == COPTER_PHASE_HOLD)
			d->fly = !c->land.landed;
		break;
	default:
		break;
	}
}

static void place_outputs(const struct copter_params *p, const struct copter_motors_out *mo,
			  struct copter_output *out)
{
	for (int ch = 0; ch < SERVO_CHANNELS; ch++) {
		int k = copter_motor_of_servo_function((int)p->servo.ch[ch].servo_function);
		if (k >= 0 && k < mo->count)
			out->pwm_us[ch] = mo->pwm_us[k];
		else
			out->pwm_us[ch] = (uint16_t)clampf(p->servo.ch[ch].servo_trim, 0.0f, 65535.0f);
	}
}

void copter_step(struct copter *c, const struct copter_params *p, const struct vehicle_input *in,
		 struct copter_output *out)
{
	memset(out, 0, sizeof(*out));
	const struct vehicle_state *vs = &in->vs;
	float dt = isfinite(in->dt_s) && in->dt_s > 0.0f ? in->dt_s : 0.0f;
	if (!c->motors_ok) {
		c->motors_ok = copter_motors_init(&c->motors, &p->mot) == 0;
		if (!c->motors_ok) {
			for (int ch = 0; ch < SERVO_CHANNELS; ch++)
				out->pwm_us[ch] = 0;
			say(out, MAV_SEVERITY_CRITICAL, "PreArm: unknown FRAME_CLASS or FRAME_TYPE");
			c->v->prearm_problem = "unknown FRAME_CLASS or FRAME_TYPE";
			if (c->v->armed)
				disarm(c);
			return;
		}
	}
	prearm(c, in);
	if (!c->origin_set && (in->home_set || (vs->valid & VEHICLE_POSITION_VALID))) {
		c->origin_lat_deg = in->home_set ? in->home.lat_deg : vs->lat_deg;
		c->origin_lon_deg = in->home_set ? in->home.lon_deg : vs->lon_deg;
		c->origin_set = true;
		c->last_mode = UINT32_MAX;   /* a mode entered before is set up again */
	}
	float acc[3];
	accel_ned(in, acc);
	struct copter_psc_meas m;
	copter_psc_meas_from_state(vs, c->origin_lat_deg, c->origin_lon_deg, acc, &m);
	if (!c->origin_set)
		m.pos_valid = false;

	/* the pilot's mode switch: a new position asks for its mode */
	struct sticks s = read_sticks(c, p, in);
	unsigned int fch = (unsigned int)p->fltmode_ch;
	if (s.live && fch >= 1 && fch <= in->rc.channel_count && !c->v->initialising) {
		int pos = copter_switch_position(in->rc.channels_us[fch - 1]);
		bool fs = c->rc_fs || c->gcs_fs || c->batt_fs || c->ekf_fs;
		if (pos != c->switch_pos) {
			c->switch_pos = pos;
			c->switch_mode = (uint32_t)p->fltmode[pos];
			c->switch_pending = !fs;
			if (c->switch_pending &&
			    vehicle_set_mode(c->v, c->switch_mode, c->text, sizeof(c->text)) != 0)
				say(out, MAV_SEVERITY_WARNING, c->text);  /* said once, tried on */
			else
				c->switch_pending = false;
		} else if (c->switch_pending && !fs) {
			/* The switch's mode, refused for now (LOITER before the GPS),
			 * is taken once it can fly, as the plane's is: a pilot who set
			 * LOITER and armed is not left in STABILIZE unawares. */
			char why[96];
			if (vehicle_set_mode(c->v, c->switch_mode, why, sizeof(why)) == 0)
				c->switch_pending = false;
		}
	}
	failsafes(c, p, in, &m, out);
	fence_step(c, p, in, &m, out);
	s = read_sticks(c, p, in);
	stick_arming(c, p, in, &s, out);
	if (!c->v->armed) {
		c->auto_armed = false;
	} else if (!c->auto_armed && (!throttle_zero(&s) || !in->rc_seen)) {
		/* ArduCopter's auto_armed: AUTO waits for the throttle (without RC: at once) */
		c->auto_armed = true;
	}
	bool mode_changed_now = false;
	if (c->v->mode != c->last_mode) {
		c->last_mode = c->v->mode;
		enter_mode(c, p, in, &m, out);
		c->last_mode = c->v->mode;
		mode_changed_now = true;
	}

	/* what the mode flies */
	/* An overloaded loop defers navigation (the mode's targets and the
	 * position controller) in the modes that navigate: the step flies the
	 * last navigation's demand and output, and the next navigation runs
	 * over the time it missed. */
	struct copter_demand d = { 0 };
	bool defer = in->nav_deferred && c->nav_last_ok && c->psc_running && !mode_changed_now &&
		     copter_mode_navigates(c->v->mode);
	float nav_dt = dt + c->nav_wait_s;
	if (defer) {
		d = c->nav_demand;
		c->nav_wait_s += dt;
	} else if (!c->v->initialising && (vs->valid & VEHICLE_ATTITUDE_VALID)) {
		c->ground_contact = false;
		mode_demand(c, p, in, &m, &s, nav_dt, &d, out);
	}
	bool armed = c->v->armed;
	bool fly = armed && d.fly;
	enum copter_spool spool = c->motors.spool;
	float hover = p->mot.mot_thst_hover;

	/* the position controller runs from the moment the motors may climb */
	if (fly && d.psc && !c->psc_running &&
	    (spool == COPTER_SPOOL_SPOOLING_UP || spool == COPTER_SPOOL_THROTTLE_UNLIMITED)) {
		copter_psc_init(&c->psc, &m, hover, hover);
		c->psc_running = true;
		/* the targets the mode set for this step are taken again next step */
	}
	if (!fly || !d.psc)
		c->psc_running = false;
	/* a navigation to fly again from the next step on: this mode's, running */
	c->nav_last_ok = c->psc_running && !mode_changed_now && c->v->mode == c->last_mode;
	if (!c->psc_running)
		c->nav_wait_s = 0.0f;

	float roll_cd = d.roll_cd, pitch_cd = d.pitch_cd, throttle = d.throttle;
	bool boost = true;
	if (c->psc_running) {
		if (defer) {
			out->psc = c->nav_psc_out;
		} else {
			struct copter_psc_in pin = { .throttle_hover = hover, .limit = c->limit };
			copter_psc_update(&c->psc, &p->psc, &m, &pin, nav_dt, &out->psc);
			c->nav_wait_s = 0.0f;
			c->nav_psc_out = out->psc;
			c->nav_demand = d;
		}
		out->psc_active = true;
		out->psc_xy = c->psc.xy;
		out->psc_z = c->psc.z;
		if (c->v->mode != COPTER_ALT_HOLD) {
			roll_cd = out->psc.roll_rad / DEG_F * 100.0f;
			pitch_cd = out->psc.pitch_rad / DEG_F * 100.0f;
		}
		if (c->v->mode == COPTER_POSHOLD) {
			float ctl[2] = { roll_cd, pitch_cd }, lean[2];
			copter_poshold_angles(&c->poshold, ctl, lean);
			roll_cd = lean[0];
			pitch_cd = lean[1];
		}
		throttle = out->psc.throttle;
		boost = false;   /* the position controller's throttle carries the tilt */
	} else if (d.psc) {
		/* an altitude mode on the ground or spooling: no climb yet */
		throttle = 0.0f;
		if (c->v->mode != COPTER_ALT_HOLD)
			roll_cd = pitch_cd = 0.0f;
	}

	/* the attitude controller */
	/* A landing touching the ground holds the heading it has (ArduCopter's
	 * reset_yaw_target_and_rate, which it leaves until ground idle). Feet
	 * that touch down drifting twist the vehicle; the heading held against
	 * that twist keeps one diagonal of motors spun up by
	 * MOT_YAW_HEADROOM, and their thrust and rotor drag let the wind slide
	 * it over the grass: fulmar-sim's quad, feet 0.2 m under its centre
	 * of gravity and 0.1 m fore and aft of it, goes over when it slides
	 * nose or tail first (draws 4447 and 5821 in 8-9 m/s, turbulence
	 * 7.7: twisted 10 to 33 degrees, the yaw output at 0.16 to 0.29, over
	 * within 1.5 s of touching down; holding the heading it has, all three
	 * stay upright). */
	if (armed && c->ground_contact) {
		copter_atc_reset_yaw_target(&c->atc, vs);
		if (isfinite(vs->yaw_rad))
			c->yaw_cd = vs->yaw_rad / DEG_F * 100.0f;
	}
	/* Landed, the attitude target lets go only at ground idle: while the
	 * motors spool down it stays level, as ArduCopter's
	 * make_safe_ground_handling keeps operating through SPOOLING_DOWN.
	 * Let go at "landed", with the motors still spooling down, fulmar-sim's
	 * quad in 9-10 m/s of wind (turbulence 7.7, held-out draw 8263's f017)
	 * pitched up from 1 to 25 degrees in the 0.4 s before ground idle, the
	 * idling rotors' drag lifting its windward side, and went over. */
	bool on_ground = !armed || spool == COPTER_SPOOL_GROUND_IDLE || spool == COPTER_SPOOL_SHUT_DOWN;
	if (on_ground && c->land.landed) {
		copter_atc_relax(&c->atc, vs);
		c->yaw_cd = vs->yaw_rad / DEG_F * 100.0f;
		roll_cd = pitch_cd = 0.0f;
		d.yaw_rate_cds = 0.0f;
	}
	if (d.yaw_rate || on_ground)
		copter_atc_input_euler_angle_roll_pitch_euler_rate_yaw(&c->atc, &p->atc, vs, roll_cd,
								      pitch_cd, d.yaw_rate_cds, dt);
	else
		copter_atc_input_euler_angle_roll_pitch_yaw(&c->atc, &p->atc, vs, roll_cd, pitch_cd,
							    c->yaw_cd, true, dt);
	copter_atc_set_throttle_out(&c->atc, &p->atc, vs, fly ? throttle : 0.0f, boost);

	struct copter_land_in lin = {
		.armed = armed,
		.spool_unlimited = spool == COPTER_SPOOL_THROTTLE_UNLIMITED,
		.throttle_lower = c->limit.throttle_lower,
		.throttle_mix_min = c->atc.thr_mix <= 1.25f * p->atc.atc_thr_mix_min,
		.throttle = c->throttle_out,
		.throttle_hover = hover,
		.climb_m_s = isfinite(vs->vel_ned_m_s[2]) ? -vs->vel_ned_m_s[2] : 0.0f,
		.speed_m_s = (vs->valid & VEHICLE_POSITION_VALID) ?
				     sqrtf(vs->vel_ned_m_s[0] * vs->vel_ned_m_s[0] +
					   vs->vel_ned_m_s[1] * vs->vel_ned_m_s[1] +
					   vs->vel_ned_m_s[2] * vs->vel_ned_m_s[2]) : NAN,
		.accel_ned_m_s2 = { acc[0], acc[1], acc[2] },
		.roll_rad = vs->roll_rad,
		.pitch_rad = vs->pitch_rad,
		.crash_check_mode = true,
	};
	float tyaw;
	quat_roll_pitch(c->atc.target_q, &lin.target_roll_rad, &lin.target_pitch_rad, &tyaw);
	if (!isfinite(lin.speed_m_s))
		lin.speed_m_s = 0.0f;   /* unknown: the speed criterion passes */

	struct copter_atc_rate_in rin = {
		.armed = armed,
		.landed = c->land.landed,
		.limit = c->limit,
		.thr_mix_ratio = 1.0f,
	};
	if (!fly || c->land.landed)
		rin.thr_mix = COPTER_ATC_THR_MIX_MIN;
	else if (pilot_throttle_mode(c->v->mode))
		rin.thr_mix = COPTER_ATC_THR_MIX_MAN;
	else if (copter_land_want_thr_mix_min(&c->land, &lin, d.climb_target_m_s, d.landing))
		rin.thr_mix = COPTER_ATC_THR_MIX_MIN;
	else
		rin.thr_mix = COPTER_ATC_THR_MIX_MAX;
	copter_atc_rate_controller_run(&c->atc, &p->atc, vs, &rin, dt, &out->atc);

	/* the motors */
	struct copter_motors_in min = {
		.armed = armed,
		.desired = !armed ? COPTER_SPOOL_WANT_SHUT_DOWN :
			   fly ? COPTER_SPOOL_WANT_THROTTLE_UNLIMITED : COPTER_SPOOL_WANT_GROUND_IDLE,
		.roll = out->atc.roll, .pitch = out->atc.pitch, .yaw = out->atc.yaw,
		.throttle = out->atc.throttle, .thr_mix = out->atc.thr_mix,
		.batt_v = isfinite(in->batt_voltage_v) ? in->batt_voltage_v : 0.0f,
	};
	copter_motors_update(&c->motors, &p->mot, &min, dt, &out->motors);
	c->limit = out->motors.limit;
	c->throttle_out = out->atc.throttle;
	out->motor_count = out->motors.count;
	for (int i = 0; i < out->motors.count; i++)
		out->actuator[i] = armed ? out->motors.actuator[i] : 0.0f;
	place_outputs(p, &out->motors, out);

	/* the land and crash detectors */
	lin.spool_unlimited = out->motors.spool == COPTER_SPOOL_THROTTLE_UNLIMITED;
	lin.throttle_lower = c->limit.throttle_lower;
	lin.throttle_mix_min = c->atc.thr_mix <= 1.25f * p->atc.atc_thr_mix_min;
	lin.throttle = c->throttle_out;
	if (dt > 0.0f)
		copter_land_update(&c->land, &p->land, &lin, dt);
	c->v->landed = c->land.landed;
	if (armed && c->land.crashed) {
		disarm(c);
		say(out, MAV_SEVERITY_CRITICAL, "Crash: Disarming");
	}
	/* a landing's end: landed, the motors at ground idle */
	if (c->v->armed && d.landing && c->land.landed &&
	    out->motors.spool == COPTER_SPOOL_GROUND_IDLE) {
		disarm(c);
		out->disarmed_after_landing = true;
		say(out, MAV_SEVERITY_INFO, "Landed: Disarming motors");
		if (c->v->mode == COPTER_AUTO && in->mission && c->item < in->mission->count)
			item_reached(c, out);   /* the NAV_LAND or RETURN_TO_LAUNCH done */
	}
	/* ArduCopter's auto_disarm_check: landed, the throttle down, for DISARM_DELAY */
	bool thr_low = pilot_throttle_mode(c->v->mode) || c->v->mode == COPTER_ALT_HOLD ||
				       c->v->mode == COPTER_LOITER || c->v->mode == COPTER_POSHOLD ?
			       throttle_zero(&s) : true;
	if (c->v->armed && c->land.landed && thr_low && p->disarm_delay > 0.0f) {
		if (!c->zero_thr_since_us)
			c->zero_thr_since_us = in->now_us;
		if ((double)(in->now_us - c->zero_thr_since_us) * 1e-6 >= (double)p->disarm_delay) {
			disarm(c);
			out->disarmed_after_landing = true;
			say(out, MAV_SEVERITY_INFO, "Disarming motors");
		}
	} else {
		c->zero_thr_since_us = 0;
	}
	if (!c->v->armed) {
		copter_land_init(&c->land);
		c->psc_running = false;
	}
	out->landed = c->land.landed;
	out->landed_maybe = c->land.landed_maybe;
	float r, pt, y;
	quat_roll_pitch(c->atc.target_q, &r, &pt, &y);
	out->roll_target_rad = r;
	out->pitch_target_rad = pt;
	out->yaw_target_rad = y;
	for (int i = 0; i < 3; i++)
		out->rate_target_rad_s[i] = c->atc.rate_target_rad_s[i];
}
