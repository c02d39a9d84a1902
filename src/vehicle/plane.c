// SPDX-License-Identifier: GPL-3.0-or-later
#include "vehicle/plane.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEG_F 0.017453293f
#define PLANE_RC_STALE_US 200000u             /* no frame for this long: no RC */
#define BATT_LOW_US 10000000u           /* under FS_BATT_VOLTAGE this long */
#define MAV_SEVERITY_CRITICAL 2
#define MAV_SEVERITY_WARNING 4
#define MAV_SEVERITY_INFO 6

void plane_params_default(struct plane_params *p)
{
	memset(p, 0, sizeof(*p));
	nav_params_default(&p->nav);
	ctl_params_default(&p->ctl);
	servo_params_default(&p->servo);
	mexec_params_default(&p->mexec);
	fence_params_default(&p->fence);
	p->fltmode_ch = 8;
	/* ArduPlane's defaults: RTL, RTL, RTL, RTL, RTL, MANUAL. Ours put the
	 * modes a pilot flies by switch first. */
	static const float modes[6] = { PLANE_MANUAL, PLANE_FBWA, PLANE_LOITER, PLANE_AUTO,
					PLANE_RTL, PLANE_FBWB };
	memcpy(p->fltmode, modes, sizeof(modes));
	p->thr_failsafe = 1;
	p->thr_fs_value = 950;
	p->fs_short_actn = 0;
	p->fs_short_timeout = 1.5f;
	p->fs_long_actn = 0;
	p->fs_long_timeout = 5.0f;
	p->fs_gcs_enabl = 0;
	/* One parameter feeds these in several modules: one value. */
	p->ctl.arspd_fbw_min = p->nav.tecs.arspd_fbw_min;
	p->mexec.arspd_fbw_min = p->nav.tecs.arspd_fbw_min;
	p->ctl.trim_throttle = p->nav.tecs.trim_throttle;
	p->lim_pitch_max = p->nav.tecs.lim_pitch_max;
	p->lim_pitch_min = p->nav.tecs.lim_pitch_min;
	p->tkoff_alt = 50;
	p->rngfnd_max_cm = 700;
	p->rtl_autoland = 0;
	p->arming_require = 1;
	p->arming_check = 1;
	p->arming_magthresh = 100;
	p->arming_rudder = 1;
	p->crash_detect = 1;  /* ArduPlane: 0; a failed launch must not leave the motor running */
}

void plane_init(struct plane *p, struct vehicle *v)
{
	memset(p, 0, sizeof(*p));
	p->v = v;
	p->last_mode = v->mode;
	p->switch_pos = -1;
	p->rally_index = -1;
	ctl_init(&p->ctl);
	servo_init(&p->servo);
	nav_init(&p->nav, 0, 0);
}

int plane_switch_position(uint16_t pwm_us)
{
	static const uint16_t top[5] = { 1230, 1360, 1490, 1620, 1749 };
	for (int i = 0; i < 5; i++)
		if (pwm_us <= top[i])
			return i;
	return 5;
}

static float clampf(float v, float lo, float hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void say(struct plane_output *out, int severity, const char *text)
{
	out->text = text;
	out->text_severity = severity;
}

/* What the landing's rangefinder did this step, as ArduPlane says it (and,
 * fulmar's words, when it went quiet and the landing fell back). */
static void say_rangefinder(struct plane *p, struct plane_output *out)
{
	switch (out->nav.rf_event) {
	case RF_LAND_ENGAGED:
		snprintf(p->text, sizeof(p->text), "Rangefinder engaged at %.2fm", (double)p->nav.rf.height_m);
		say(out, MAV_SEVERITY_INFO, p->text);
		break;
	case RF_LAND_DISENGAGED:
		snprintf(p->text, sizeof(p->text), "Rangefinder disengaged at %.2fm", (double)p->nav.rf.height_m);
		say(out, MAV_SEVERITY_WARNING, p->text);
		break;
	case RF_LAND_LOST:
		say(out, MAV_SEVERITY_WARNING, "Rangefinder lost for 5 s: landing on baro/GPS height");
		break;
	case RF_LAND_NONE:
	default:
		break;
	}
}

/* A mode change the plane makes itself (failsafes, end of mission). */
static void force_mode(struct plane *p, enum plane_mode mode, struct plane_output *out,
		       const char *text)
{
	char why[96];
	if (vehicle_set_mode(p->v, mode, why, sizeof(why)) != 0) {
		/* The mode cannot fly now (no position): CIRCLE holds what can be held. */
		p->v->mode = (p->v->valid & VEHICLE_ATTITUDE_VALID) ? PLANE_CIRCLE : PLANE_MANUAL;
	}
	say(out, MAV_SEVERITY_WARNING, text);
}

static bool navigating(enum plane_mode m)
{
	return m == PLANE_AUTO || m == PLANE_RTL || m == PLANE_LOITER || m == PLANE_TAKEOFF ||
	       m == PLANE_GUIDED;
}

bool plane_mode_navigates(enum plane_mode m)
{
	return navigating(m) || m == PLANE_CIRCLE || m == PLANE_FBWB || m == PLANE_CRUISE;
}

static bool pilot_mode(enum plane_mode m)
{
	return m == PLANE_MANUAL || m == PLANE_STABILIZE || m == PLANE_FBWA || m == PLANE_FBWB ||
	       m == PLANE_CRUISE || m == PLANE_TRAINING || m == PLANE_ACRO;
}

static struct nav_wp here(const struct vehicle_state *vs)
{
	return (struct nav_wp){ vs->lat_deg, vs->lon_deg, vs->alt_rel_m };
}

/* AUTO from the mission's DO_LAND_START on (by way of its planned approach where the
 * sequence is the LAND alone: mexec_land_approach), if it has one and there is a home
 * and a position to fly it by. Returns whether it did. */
static bool land_at_land_start(struct plane *p, const struct plane_params *pp,
			       const struct vehicle_input *in)
{
	int ls = in->mission ? mexec_find_land_start(in->mission) : -1;
	if (ls <= 0 || !in->home_set || !(in->vs.valid & VEHICLE_POSITION_VALID))
		return false;
	p->v->mode = PLANE_AUTO;
	p->last_mode = PLANE_AUTO;
	mexec_start(&p->mexec, in->mission, &p->nav, &pp->mexec, &in->home, in->home_alt_msl_m,
		    &in->vs, in->now_us);
	int via = mexec_land_approach(in->mission, ls);
	if (via > 0)
		mexec_goto_via(&p->mexec, in->mission, &p->nav, (uint16_t)via, (uint16_t)ls, &in->vs,
			       in->now_us);
	else
		mexec_goto(&p->mexec, in->mission, &p->nav, (uint16_t)ls, &in->vs, in->now_us);
	return true;
}

/*
 * RTL: to the landing sequence when RTL_AUTOLAND asks and there is one, else
 * loiter at the rally point ArduPlane's rules pick (at its altitude), or at
 * home at ALT_HOLD_RTL.
 */
static void start_rtl(struct plane *p, const struct plane_params *pp, const struct vehicle_input *in)
{
	if (pp->rtl_autoland != 0.0f && land_at_land_start(p, pp, in))
		return;
	struct nav_wp h = in->home, r;
	h.alt_rel_m = pp->mexec.rtl_alt_m;
	/* Under the fence's ceiling: RTL after a ceiling breach must not climb through it again. */
	const struct fence_params *fp = &pp->fence;
	if (fp->fence_enable != 0.0f && ((uint8_t)fp->fence_type & FENCE_TYPE_ALT_MAX) &&
	    h.alt_rel_m > fp->fence_alt_max - FENCE_RTL_BELOW_CEILING_M)
		h.alt_rel_m = fp->fence_alt_max - FENCE_RTL_BELOW_CEILING_M;
	uint16_t idx;
	struct nav_wp pos = here(&in->vs);
	p->rally_index = -1;
	if (in->home_set && (in->vs.valid & VEHICLE_POSITION_VALID) &&
	    rally_select(&pp->fence, in->rally, &in->home, in->home_alt_msl_m, &pos, &r, &idx)) {
		h = r;
		p->rally_index = idx;
	}
	nav_set_loiter(&p->nav, &h, pp->mexec.wp_loiter_rad_m, 1);
}

/* What a mode sets up as it is entered. */
static void enter_mode(struct plane *p, const struct plane_params *pp, const struct vehicle_input *in,
		       struct plane_output *out)
{
	enum plane_mode m = p->v->mode;
	struct nav_wp h = here(&in->vs);
	switch (m) {
	case PLANE_AUTO:
		if (!in->mission || !in->home_set) {
			force_mode(p, PLANE_CIRCLE, out, "AUTO: no mission or no home: CIRCLE");
			return;
		}
		mexec_start(&p->mexec, in->mission, &p->nav, &pp->mexec, &in->home,
			    in->home_alt_msl_m, &in->vs, in->now_us);
		if (p->mexec.phase == MEXEC_FAILED) {
			force_mode(p, PLANE_CIRCLE, out, p->mexec.why);
			return;
		}
		break;
	case PLANE_RTL:
		start_rtl(p, pp, in);
		break;
	case PLANE_LOITER:
		nav_set_loiter(&p->nav, &h, pp->mexec.wp_loiter_rad_m, 1);
		break;
	case PLANE_GUIDED:
		/* To the target already given (DO_REPOSITION with its mode change), else here. */
		if (p->v->guided.generation && p->v->guided.generation != p->guided_gen) {
			p->guided_gen = p->v->guided.generation;
			struct nav_wp t = { p->v->guided.lat_deg, p->v->guided.lon_deg,
					    p->v->guided.alt_rel_m };
			nav_set_loiter(&p->nav, &t, pp->mexec.wp_loiter_rad_m, 1);
		} else {
			p->guided_gen = p->v->guided.generation;
			nav_set_loiter(&p->nav, &h, pp->mexec.wp_loiter_rad_m, 1);
		}
		break;
	case PLANE_TAKEOFF:
		nav_set_takeoff(&p->nav, 15.0f, pp->tkoff_alt);
		break;
	case PLANE_CIRCLE:
	case PLANE_FBWB:
	case PLANE_CRUISE:
		/* Navigation's idle task holds height and speed; the roll is ours. */
		nav_set_airspeed(&p->nav, 0.0f);
		nav_set_idle(&p->nav);
		break;
	default:
		break;
	}
	out->mode_changed = true;
}

/* A frame within PLANE_RC_STALE_US (one stamped a moment ahead of now counts as fresh). */
static bool rc_fresh(const struct vehicle_input *in)
{
	return in->rc.timestamp_us + PLANE_RC_STALE_US > in->now_us;
}

static void rc_failsafe(struct plane *p, const struct plane_params *pp, const struct vehicle_input *in,
			struct plane_output *out)
{
	const struct rc_frame *rc = &in->rc;
	bool stale = !rc_fresh(in);
	bool good = in->rc_seen && !stale && !rc->failsafe &&
		    !(pp->thr_failsafe != 0.0f && rc->channel_count >= 3 &&
		      rc->channels_us[2] < pp->thr_fs_value);
	if (!in->rc_seen || p->v->mode == PLANE_INITIALISING)
		return;                 /* a plane flown without RC has no RC to lose */
	if (good) {
		p->rc_bad_since_us = 0;
		if (p->fs == PLANE_FS_SHORT || p->fs == PLANE_FS_LONG) {
			p->fs = PLANE_FS_NONE;
			say(out, MAV_SEVERITY_INFO, "RC failsafe cleared");
			/* Back to what the pilot's switch says, where the failsafe took over. */
			if (p->v->mode == PLANE_CIRCLE || p->v->mode == PLANE_RTL ||
			    (pp->fs_short_actn == 2.0f && p->v->mode == PLANE_FBWA)) {
				char why[96];
				vehicle_set_mode(p->v, p->switch_mode, why, sizeof(why));
			}
		}
		return;
	}
	/* Timed from the last frame when frames stopped, else from now. */
	if (!p->rc_bad_since_us)
		p->rc_bad_since_us = stale ? rc->timestamp_us : in->now_us;
	double bad_s = (double)(in->now_us - p->rc_bad_since_us) * 1e-6;
	enum plane_mode m = p->v->mode;
	if (p->fs == PLANE_FS_NONE && bad_s >= (double)pp->fs_short_timeout) {
		p->fs = PLANE_FS_SHORT;
		if (pilot_mode(m) || m == PLANE_CIRCLE)
			force_mode(p, pp->fs_short_actn == 2.0f ? PLANE_FBWA : PLANE_CIRCLE, out,
				   "RC short failsafe: CIRCLE");
		else
			say(out, MAV_SEVERITY_WARNING, "RC short failsafe: mode kept");
	}
	if (p->fs == PLANE_FS_SHORT && bad_s >= (double)pp->fs_long_timeout) {
		p->fs = PLANE_FS_LONG;
		if (pp->fs_long_actn == 2.0f)
			force_mode(p, PLANE_FBWA, out, "RC long failsafe: gliding (FBWA)");
		else if (pp->fs_long_actn == 1.0f || m != PLANE_AUTO)
			force_mode(p, PLANE_RTL, out, "RC long failsafe: RTL");
		else
			say(out, MAV_SEVERITY_WARNING, "RC long failsafe: AUTO goes on");
	}
}

static void other_failsafes(struct plane *p, const struct plane_params *pp,
			    const struct vehicle_input *in, struct plane_output *out)
{
	enum plane_mode m = p->v->mode;
	/* Ground station: heartbeats stopped after there were some. */
	if (pp->fs_gcs_enabl != 0.0f && in->gcs_heartbeat_us && !p->gcs_fs &&
	    (double)(in->now_us - in->gcs_heartbeat_us) * 1e-6 >= (double)pp->fs_long_timeout) {
		p->gcs_fs = true;
		if (m != PLANE_AUTO || pp->fs_long_actn == 1.0f)
			force_mode(p, PLANE_RTL, out, "GCS failsafe: RTL");
		else
			say(out, MAV_SEVERITY_WARNING, "GCS failsafe: AUTO goes on");
	} else if (p->gcs_fs && in->gcs_heartbeat_us &&
		   (double)(in->now_us - in->gcs_heartbeat_us) * 1e-6 < 1.0) {
		p->gcs_fs = false;
		say(out, MAV_SEVERITY_INFO, "GCS failsafe cleared");
	}
	/* Battery: low for ten seconds, or the capacity used. Once; it does not clear. */
	bool low = pp->fs_batt_voltage > 0.0f && isfinite(in->batt_voltage_v) &&
		   in->batt_voltage_v < pp->fs_batt_voltage;
	p->batt_low_since_us = low ? (p->batt_low_since_us ? p->batt_low_since_us : in->now_us) : 0;
	bool empty = pp->fs_batt_mah > 0.0f && isfinite(in->batt_used_mah) &&
		     in->batt_used_mah >= pp->fs_batt_mah;
	if (!p->batt_fs && p->v->armed &&
	    (empty || (p->batt_low_since_us && in->now_us - p->batt_low_since_us >= BATT_LOW_US))) {
		p->batt_fs = true;
		if (land_at_land_start(p, pp, in))
			say(out, MAV_SEVERITY_CRITICAL, "Battery failsafe: landing");
		else
			force_mode(p, PLANE_RTL, out, "Battery failsafe: RTL");
	}
	/* The IMU stuck in flight: one IMU has nothing to take over from it, so
	 * the flight ends, as the battery's does: to the landing sequence, or
	 * RTL, once the IMU moves again and there is an attitude and a position
	 * to fly them by. While it is stuck there is no attitude and the plane
	 * is MANUAL (below): the pilot's sticks, or with them left alone a glide
	 * at trim. Once; it does not clear. A landing already flown goes on. */
	if (in->imu_stuck && p->v->armed && p->has_flown && !p->imu_fs) {
		p->imu_fs = true;
		p->imu_fs_pending = true;
	}
	if (p->imu_fs_pending && !in->imu_stuck && (in->vs.valid & VEHICLE_POSITION_VALID)) {
		p->imu_fs_pending = false;
		int ls = in->mission ? mexec_find_land_start(in->mission) : -1;
		if (p->v->mode == PLANE_AUTO && ls > 0 && p->mexec.current >= ls)
			say(out, MAV_SEVERITY_CRITICAL, "IMU failsafe: landing goes on");
		else if (land_at_land_start(p, pp, in))
			say(out, MAV_SEVERITY_CRITICAL, "IMU failsafe: landing");
		else
			force_mode(p, PLANE_RTL, out, "IMU failsafe: RTL");
	}
	/* No position to navigate by: hold what can be held. */
	if (navigating(p->v->mode) && !(in->vs.valid & VEHICLE_POSITION_VALID))
		force_mode(p, PLANE_CIRCLE, out, "No position estimate: CIRCLE");
}

/* ArduPilot's compass field length limits (AP_Arming), milligauss: outside
 * them the compass reads something else than the earth's field. */
#define PREARM_MAGFIELD_MIN_MGAUSS 185
#define PREARM_MAGFIELD_MAX_MGAUSS 875
#define ARMING_CHECK_ALL 1u
#define ARMING_CHECK_COMPASS (1u << 2)

/* ArduPilot's pre-arm compass checks: the field's length within limits, and
 * once the estimate is good and the place known, the field in NED within
 * ARMING_MAGTHRESH of the world magnetic model's (north and east; down
 * twice that). NULL, or the problem formatted into p->prearm_text. */
static const char *compass_problem(struct plane *p, const struct plane_params *pp,
				   const struct vehicle_input *in)
{
	uint32_t checks = (uint32_t)pp->arming_check;
	if (!(checks & (ARMING_CHECK_ALL | ARMING_CHECK_COMPASS)))
		return NULL;
	if (!in->mag_seen)
		return NULL;
	const float *b = in->mag_body_mgauss;
	float len = sqrtf(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
	if (!(len >= PREARM_MAGFIELD_MIN_MGAUSS && len <= PREARM_MAGFIELD_MAX_MGAUSS)) {
		snprintf(p->prearm_text, sizeof(p->prearm_text), "Check mag field: %.0f, max %d, min %d",
			 (double)len, PREARM_MAGFIELD_MAX_MGAUSS, PREARM_MAGFIELD_MIN_MGAUSS);
		return p->prearm_text;
	}
	float thresh = pp->arming_magthresh;
	if (!in->estimator_converged || !in->mag_expected_known || !(thresh > 0.0f))
		return NULL;
	float d[3];
	for (int i = 0; i < 3; i++)
		d[i] = fabsf(in->mag_ned_mgauss[i] - in->mag_expected_ned_mgauss[i]);
	float xy = fmaxf(d[0], d[1]);
	if (xy > thresh) {
		snprintf(p->prearm_text, sizeof(p->prearm_text), "Check mag field (xy diff:%.0f>%.0f)",
			 (double)xy, (double)thresh);
		return p->prearm_text;
	}
	if (d[2] > 2.0f * thresh) {
		snprintf(p->prearm_text, sizeof(p->prearm_text), "Check mag field (z diff:%.0f>%.0f)",
			 (double)d[2], (double)(2.0f * thresh));
		return p->prearm_text;
	}
	return NULL;
}

static void prearm(struct plane *p, const struct plane_params *pp, const struct vehicle_input *in)
{
	/* The compass's first: a wrong field also keeps the estimate from converging. */
	const char *why = compass_problem(p, pp, in);
	if (!why)
		why = !in->estimator_converged ? "estimator not converged" :
		      !in->gps_fix ? "GPS: no 3D fix" :
		      !in->home_set ? "home not set" :
		      !in->rc_seen ? "RC not found" : NULL;
	p->v->prearm_problem = why;
}

/* Whether the plane is on its final approach or landed in AUTO: the floor is not judged. */
static bool landing(const struct plane *p, const struct vehicle_input *in)
{
	return p->v->mode == PLANE_AUTO && in->mission && p->mexec.current < in->mission->count &&
	       in->mission->items[p->mexec.current].command == MAV_CMD_NAV_LAND;
}

static const char *fence_names(uint8_t b)
{
	if (b & FENCE_TYPE_POLYGON)
		return "polygon";
	if (b & FENCE_TYPE_CIRCLE)
		return "circle";
	if (b & FENCE_TYPE_ALT_MAX)
		return "max alt";
	return "min alt";
}

/* A new breach: FENCE_ACTION. Guided to the return point (home without one). */
static void fence_act(struct plane *p, const struct plane_params *pp, const struct vehicle_input *in,
		      uint8_t fresh, struct plane_output *out)
{
	int action = (int)pp->fence.fence_action;
	const char *what = fence_names(fresh);
	enum plane_mode m = p->v->mode;
	if (action == FENCE_ACTION_REPORT || landing(p, in)) {
		snprintf(p->text, sizeof(p->text), "Fence breached: %s", what);
		say(out, MAV_SEVERITY_CRITICAL, p->text);
		return;
	}
	if (action == FENCE_ACTION_GUIDED || action == FENCE_ACTION_GUIDED_THR_PASS) {
		struct nav_wp t = in->home;
		t.alt_rel_m = pp->mexec.rtl_alt_m;
		if (fence_return_point(in->fence, in->home_alt_msl_m, &t) && t.alt_rel_m <= 0.0f)
			t.alt_rel_m = pp->mexec.rtl_alt_m;
		/* Between ceiling and floor when both are set, as ArduPlane returns. */
		uint8_t types = (uint8_t)pp->fence.fence_type;
		if ((types & FENCE_TYPE_ALT_MAX) && t.alt_rel_m > pp->fence.fence_alt_max)
			t.alt_rel_m = (types & FENCE_TYPE_ALT_MIN) ?
				      0.5f * (pp->fence.fence_alt_max + pp->fence.fence_alt_min) :
				      pp->fence.fence_alt_max - FENCE_RTL_BELOW_CEILING_M;
		char why[64];
		if (vehicle_set_guided(p->v, t.lat_deg, t.lon_deg, t.alt_rel_m, why, sizeof(why)) == 0) {
			snprintf(p->text, sizeof(p->text), "Fence breached: %s: GUIDED to return point",
				 what);
			if (m == PLANE_GUIDED)
				say(out, MAV_SEVERITY_CRITICAL, p->text);
			else
				force_mode(p, PLANE_GUIDED, out, p->text);
			return;
		}
	}
	if (action == FENCE_ACTION_AUTOLAND_OR_RTL && land_at_land_start(p, pp, in)) {
		snprintf(p->text, sizeof(p->text), "Fence breached: %s: landing", what);
		say(out, MAV_SEVERITY_CRITICAL, p->text);
		return;
	}
	snprintf(p->text, sizeof(p->text), "Fence breached: %s: RTL", what);
	if (m == PLANE_RTL)
		say(out, MAV_SEVERITY_CRITICAL, p->text);
	else
		force_mode(p, PLANE_RTL, out, p->text);
}

/*
 * The geofence: judged while FENCE_ENABLE, armed, with a home and a position,
 * once the plane has been FENCE_SAFE_HEIGHT_M above home since arming (the
 * takeoff is not fenced); the floor not while landing. A type newly breached
 * takes FENCE_ACTION once; the breach ends when no type is breached.
 */
static void fence_step(struct plane *p, const struct plane_params *pp,
		       const struct vehicle_input *in, struct plane_output *out)
{
	struct plane_fence *f = &p->fence;
	bool on = pp->fence.fence_enable != 0.0f && p->v->armed && in->home_set &&
		  (in->vs.valid & VEHICLE_POSITION_VALID);
	if (!p->v->armed)
		f->aloft = false;
	if (on && !f->aloft && in->vs.alt_rel_m >= FENCE_SAFE_HEIGHT_M)
		f->aloft = true;
	uint8_t b = 0, margin = 0;
	if (on && f->aloft) {
		struct nav_wp pos = here(&in->vs);
		b = fence_breaches(&pp->fence, in->fence, &in->home, &pos, &margin);
		if (landing(p, in)) {
			b &= (uint8_t)~FENCE_TYPE_ALT_MIN;
			margin &= (uint8_t)~FENCE_TYPE_ALT_MIN;
		}
	}
	uint8_t fresh = b & (uint8_t)~f->breaches;
	uint8_t was = f->breaches;
	f->breaches = b;
	f->margins = margin;
	if (fresh) {
		if (!was) {
			f->breach_count++;
			f->breach_us = in->now_us;
		}
		f->breach_type = fence_breach_type(fresh);
		out->fence_event = true;
		out->fence_code = b;
		fence_act(p, pp, in, fresh, out);
	} else if (was && !b) {
		out->fence_event = true;
		out->fence_code = 0;
		say(out, MAV_SEVERITY_INFO, "Fence breach cleared");
	}
}

#define RUDDER_ARM_US 3000000u

static void rudder_arming(struct plane *p, const struct plane_params *pp,
			  const struct vehicle_input *in, bool rc_live, struct plane_output *out)
{
	const struct rc_frame *rc = &in->rc;
	bool low = rc_live && rc->channel_count >= 4 && rc->channels_us[2] < 1150;
	bool right = low && rc->channels_us[3] > 1850 && !p->v->armed;
	bool left = low && rc->channels_us[3] < 1150 && p->v->armed && pp->arming_rudder == 2.0f &&
		    !navigating(p->v->mode);
	if (pp->arming_rudder == 0.0f || (!right && !left)) {
		p->rudder_since_us = 0;
		return;
	}
	if (!p->rudder_since_us)
		p->rudder_since_us = in->now_us;
	if (in->now_us - p->rudder_since_us < RUDDER_ARM_US)
		return;
	p->rudder_since_us = 0;
	if (right && vehicle_arm(p->v, true, false, (uint32_t)pp->arming_check, p->text,
				 sizeof(p->text)) != 0) {
		say(out, MAV_SEVERITY_WARNING, p->text);
		return;
	}
	if (left)
		vehicle_arm(p->v, false, false, 0, p->text, sizeof(p->text));
	say(out, MAV_SEVERITY_INFO, right ? "Armed by rudder" : "Disarmed by rudder");
}

/* The rollout moves the elevator to its held value at most this much of its
 * travel a second (the whole travel in a second). */
#define PLANE_ROLLOUT_ELEV_RATE 1.0f
#define CRASH_FLOWN_M_S 5.0f     /* ground speed that says it has flown (a throw, a roll) */
#define CRASH_STILL_M_S 1.5f     /* ArduPlane's ground speed of a plane that is flying */
#define CRASH_DETECT_S 1.5       /* not flying for this long: crashed */

/* Crash detection (the header says what it does): after navigation's step. */
static void crash_check(struct plane *p, const struct plane_params *pp,
			const struct vehicle_input *in, struct plane_output *out)
{
	const struct vehicle_state *vs = &in->vs;
	enum plane_mode m = p->v->mode;
	float gs = hypotf(vs->vel_ned_m_s[0], vs->vel_ned_m_s[1]);
	bool pos = vs->valid & VEHICLE_POSITION_VALID;
	if (!p->v->armed || pp->crash_detect == 0.0f || !plane_mode_navigates(m) || !pos ||
	    out->nav.throttle_suppressed || p->nav.task == NAV_TASK_LAND ||
	    p->mexec.phase == MEXEC_LANDED) {
		p->not_flying_since_us = 0;
		p->has_flown = p->v->armed && p->has_flown;
		return;
	}
	if (gs >= CRASH_FLOWN_M_S)
		p->has_flown = true;
	bool slow_air = !(vs->valid & VEHICLE_AIRSPEED_VALID) ||
			vs->airspeed_m_s < 0.75f * pp->ctl.arspd_fbw_min;
	bool on_field = p->nav.task == NAV_TASK_TAKEOFF && (vs->valid & VEHICLE_ALTITUDE_VALID) &&
			vs->alt_rel_m < 1.0f;
	bool flying = gs >= CRASH_STILL_M_S || (!slow_air && !on_field);
	if (flying || !p->has_flown) {
		p->not_flying_since_us = 0;
		return;
	}
	if (!p->not_flying_since_us)
		p->not_flying_since_us = in->now_us;
	if ((double)(in->now_us - p->not_flying_since_us) * 1e-6 < CRASH_DETECT_S)
		return;
	char why[8];
	vehicle_arm(p->v, false, false, 0, why, sizeof(why));
	p->has_flown = false;
	p->not_flying_since_us = 0;
	say(out, MAV_SEVERITY_CRITICAL, "Crash: Disarming");
}

void plane_step(struct plane *p, const struct plane_params *pp, const struct vehicle_input *in,
		struct plane_output *out)
{
	memset(out, 0, sizeof(*out));
	const struct vehicle_state *vs = &in->vs;
	bool rc_live = in->rc_seen && rc_fresh(in);
	prearm(p, pp, in);
	if (in->home_set && !p->nav_origin_set) {
		/* Navigation flies on a plane around home: a mode entered before is set up again. */
		nav_init(&p->nav, in->home.lat_deg, in->home.lon_deg);
		p->nav_origin_set = true;
		p->last_mode = PLANE_INITIALISING;
	}

	/* The pilot's mode switch: a new position asks for its mode. */
	if (rc_live && pp->fltmode_ch >= 1.0f && (unsigned int)pp->fltmode_ch <= in->rc.channel_count) {
		int pos = plane_switch_position(in->rc.channels_us[(unsigned int)pp->fltmode_ch - 1]);
		if (pos != p->switch_pos && p->v->mode != PLANE_INITIALISING) {
			p->switch_pos = pos;
			p->switch_mode = (enum plane_mode)(int)pp->fltmode[pos];
			p->switch_pending = p->fs == PLANE_FS_NONE;
			if (p->switch_pending &&
			    vehicle_set_mode(p->v, p->switch_mode, p->text, sizeof(p->text)) != 0)
				say(out, MAV_SEVERITY_WARNING, p->text);  /* said once, tried on */
			else
				p->switch_pending = false;
		} else if (p->switch_pending && p->fs == PLANE_FS_NONE) {
			/* The switch's mode, refused for now, is taken once it can fly. */
			char why[96];
			if (vehicle_set_mode(p->v, p->switch_mode, why, sizeof(why)) == 0)
				p->switch_pending = false;
		}
	}
	rc_failsafe(p, pp, in, out);
	other_failsafes(p, pp, in, out);
	fence_step(p, pp, in, out);
	rudder_arming(p, pp, in, rc_live, out);
	if (p->v->mode != p->last_mode && p->v->mode != PLANE_INITIALISING) {
		p->last_mode = p->v->mode;
		enter_mode(p, pp, in, out);
		p->last_mode = p->v->mode;
		p->nav_last_ok = false;   /* a new mode navigates from its first step */
	}

	/* GUIDED: a new target from the ground station. */
	if (p->v->mode == PLANE_GUIDED && p->v->guided.generation != p->guided_gen) {
		p->guided_gen = p->v->guided.generation;
		struct nav_wp t = { p->v->guided.lat_deg, p->v->guided.lon_deg, p->v->guided.alt_rel_m };
		nav_set_loiter(&p->nav, &t, pp->mexec.wp_loiter_rad_m, 1);
		p->nav_last_ok = false;
	}
	enum plane_mode m = p->v->mode;
	bool att = vs->valid & VEHICLE_ATTITUDE_VALID;
	struct ctl_surfaces u = { 0 };
	float throttle = 0.0f;
	bool manual = m == PLANE_MANUAL || m == PLANE_INITIALISING || !att;
	if (manual) {
		if (rc_live && m != PLANE_INITIALISING) {
			u = (struct ctl_surfaces){ rc_stick(&in->rc, 0), rc_stick(&in->rc, 1), rc_stick(&in->rc, 3) };
			throttle = rc_throttle_stick(&in->rc);
		}
		ctl_init(&p->ctl);
		p->nav_last_ok = false;
	} else {
		float roll_lim = pp->nav.lim_roll_cd * 0.01f * DEG_F;
		float roll = 0.0f, pitch = 0.0f;
		if (plane_mode_navigates(m)) {
			if (m == PLANE_FBWB || m == PLANE_CRUISE) {
				/* Pitch stick moves the held height, throttle stick the speed. */
				float climb = rc_live ? rc_stick(&in->rc, 1) * 2.0f : 0.0f;
				if (p->nav.idle_alt_set)
					p->nav.idle_alt_m += climb * in->dt_s;
				float lo = pp->ctl.arspd_fbw_min, hi = lo + 10.0f;
				if (rc_live)
					nav_set_airspeed(&p->nav, lo + rc_throttle_stick(&in->rc) * (hi - lo));
			}
			bool nav_now = !in->nav_deferred || !p->nav_last_ok;
			if (nav_now) {
				/* the rangefinder's latest reading (none: t_us 0) */
				const struct rangefinder_reading *rf = &in->rangefinder;
				struct rf_reading rd = { .t_us = rf->t_us, .good = rf->healthy,
							 .range_m = rf->height_m,
							 .max_m = pp->rngfnd_max_cm * 0.01f };
				nav_set_range(&p->nav, &rd);
				p->nav.throttle_applied = p->servo.throttle;
				nav_update(&p->nav, &pp->nav, vs, in->accel_body_m_s2,
					   in->dt_s + p->nav_wait_s, &out->nav);
				p->nav_wait_s = 0.0f;
			} else {
				out->nav = p->nav_last;
				p->nav_wait_s += in->dt_s;
			}
			out->nav_active = true;
			roll = out->nav.nav_roll_rad;
			pitch = out->nav.nav_pitch_rad;
			throttle = out->nav.throttle;
			if (m == PLANE_CIRCLE)
				roll = roll_lim / 3.0f;
			else if (m == PLANE_FBWB || m == PLANE_CRUISE)
				roll = rc_live ? rc_stick(&in->rc, 0) * roll_lim : 0.0f;
			if (m == PLANE_AUTO && nav_now) {
				mexec_update(&p->mexec, in->mission, &p->nav, &out->nav, vs, in->now_us);
				out->reached = mexec_take_reached(&p->mexec, &out->reached_seq);
				if (p->mexec.phase == MEXEC_DONE)
					force_mode(p, PLANE_RTL, out, "Mission complete: RTL");
			}
			p->nav_last = out->nav;
			p->nav_last.rf_event = RF_LAND_NONE;
			p->nav_last_ok = p->v->mode == m;
			say_rangefinder(p, out);
			/* ArduPlane's words as the flare begins: height above the
			 * land point, sink, ground speed, distance to the point */
			if (out->nav.flaring && !p->flare_said) {
				snprintf(p->text, sizeof(p->text), "Flare %.1fm sink=%.2f speed=%.1f dist=%.1f%s",
					 (double)p->nav.flare_h_m, (double)p->nav.flare_sink_m_s,
					 (double)p->nav.flare_gs_m_s, (double)p->nav.flare_d_m,
					 pp->nav.rngfnd_landing > 0.0f && !p->nav.rf.in_use ?
						 " (no rangefinder: baro height)" : "");
				say(out, MAV_SEVERITY_INFO, p->text);
			}
			p->flare_said = out->nav.flaring;
			if (out->nav.rollout && !p->rollout_said) {
				snprintf(p->text, sizeof(p->text), "Touchdown: rolling out at %.1f m/s",
					 (double)hypotf(vs->vel_ned_m_s[0], vs->vel_ned_m_s[1]));
				say(out, MAV_SEVERITY_INFO, p->text);
			}
			p->rollout_said = out->nav.rollout;
			if (m == PLANE_AUTO) {
				if (p->mexec.phase == MEXEC_LANDED) {
					throttle = 0.0f;
					if (!p->landed_us)
						p->landed_us = in->now_us;
					if (p->v->armed && (double)(in->now_us - p->landed_us) * 1e-6 >=
								   (double)pp->mexec.land_disarm_s) {
						char why[8];
						vehicle_arm(p->v, false, false, 0, why, sizeof(why));
						out->disarmed_after_landing = true;
						say(out, MAV_SEVERITY_INFO, "Landed: disarmed");
					}
				}
			}
			if (m == PLANE_TAKEOFF && out->nav.takeoff_complete)
				force_mode(p, PLANE_LOITER, out, "Takeoff complete: LOITER");
		} else {
			p->nav_last_ok = false;
			/* FBWA, STABILIZE and the rest of the pilot's modes: sticks demand attitude. */
			float ps = rc_live ? rc_stick(&in->rc, 1) : 0.0f;
			roll = (rc_live ? rc_stick(&in->rc, 0) : 0.0f) * roll_lim;
			pitch = ps >= 0.0f ? ps * pp->lim_pitch_max * 0.01f * DEG_F :
					     -ps * pp->lim_pitch_min * 0.01f * DEG_F;
			throttle = rc_live ? rc_throttle_stick(&in->rc) : 0.0f;
		}
		struct ctl_demand d = {
			.roll_rad = roll, .pitch_rad = pitch, .throttle = throttle,
			.accel_y_m_s2 = in->accel_body_m_s2[1],
			.integrators_off = !p->v->armed || out->nav.throttle_suppressed ||
					   out->nav.rollout || p->mexec.phase == MEXEC_LANDED,
		};
		ctl_update(&p->ctl, &pp->ctl, vs, &d, in->dt_s, &u);
		if (m == PLANE_STABILIZE && rc_live) {
			u.aileron = clampf(u.aileron + rc_stick(&in->rc, 0), -1.0f, 1.0f);
			u.elevator = clampf(u.elevator + rc_stick(&in->rc, 1), -1.0f, 1.0f);
		}
		crash_check(p, pp, in, out);
		if (plane_mode_navigates(m) && out->nav.ground_steering)
			u.rudder = out->nav.steer_rudder;   /* on the runway: steering, not the damper */
		if (plane_mode_navigates(m) && out->nav.elevator_hold && out->nav.rollout) {
			/* the rollout's held elevator, reached at PLANE_ROLLOUT_ELEV_RATE
			 * from where the flare left it: no step at the touchdown */
			float step = PLANE_ROLLOUT_ELEV_RATE * in->dt_s;
			u.elevator = clampf(out->nav.elevator, p->elevator_last - step, p->elevator_last + step);
		} else if (plane_mode_navigates(m) && out->nav.elevator_hold) {
			u.elevator = out->nav.elevator;     /* the takeoff roll's tail hold */
		}
		if (rc_live && m != PLANE_AUTO)
			u.rudder = clampf(u.rudder + rc_stick(&in->rc, 3), -1.0f, 1.0f);
		out->roll_dem_rad = roll;
		out->pitch_dem_rad = pitch;
	}
	p->elevator_last = u.elevator;
	if (!p->v->armed) {
		throttle = 0.0f;
		p->servo.throttle = 0.0f;  /* disarmed: the motor stops now, not at the slew rate */
	}
	out->throttle = throttle;
	if (!manual && plane_mode_navigates(m) && out->nav.throttle_slew != 0.0f) {
		/* the takeoff's own slew (TKOFF_THR_SLEW; -1: none) */
		struct servo_params sp = pp->servo;
		sp.thr_slewrate = out->nav.throttle_slew > 0.0f ? out->nav.throttle_slew : 0.0f;
		servo_output(&p->servo, &sp, &u, throttle, in->dt_s, out->pwm_us);
	} else {
		servo_output(&p->servo, &pp->servo, &u, throttle, in->dt_s, out->pwm_us);
	}
}
