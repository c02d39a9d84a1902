// SPDX-License-Identifier: GPL-3.0-or-later
#include "vehicle/mission_exec.h"

#include <math.h>
#include <string.h>

#define MAV_FRAME_GLOBAL 0
#define MAV_FRAME_GLOBAL_INT 5
#define TWO_PI_F 6.2831853f
#define LAND_STILL_M_S 1.0f        /* ground speed under which a landed plane is stopped */
/* Not flying (ArduPlane's test of its GPS and airspeed): slower over the
 * ground than 5 m/s and through the air than 3/4 of ARSPD_FBW_MIN. */
#define LAND_GROUNDED_GS_M_S 5.0f
#define LAND_GROUNDED_AIRSPEED_FRAC 0.75f
#define LAND_GROUNDED_US 3000000u
#define LAND_GROUNDED_HGT_M 3.0f
#define CIRCLE_CAPTURE_FRAC 0.25f  /* on the circle within this part of the radius (min 5 m) */
#define LOITER_ALT_TOL_M 5.0f      /* NAV_LOITER_TO_ALT: close enough */

void mexec_params_default(struct mexec_params *p)
{
	*p = (struct mexec_params){ .wp_loiter_rad_m = 60.0f, .rtl_alt_m = 100.0f,
				    .land_disarm_s = 20.0f, .arspd_fbw_min = 9.0f };
}

static bool is_nav(uint16_t cmd)
{
	return cmd == MAV_CMD_NAV_WAYPOINT || cmd == MAV_CMD_NAV_LOITER_UNLIM ||
	       cmd == MAV_CMD_NAV_LOITER_TURNS || cmd == MAV_CMD_NAV_LOITER_TIME ||
	       cmd == MAV_CMD_NAV_RETURN_TO_LAUNCH || cmd == MAV_CMD_NAV_LAND ||
	       cmd == MAV_CMD_NAV_TAKEOFF || cmd == MAV_CMD_NAV_LOITER_TO_ALT;
}

static struct nav_wp here(const struct vehicle_state *vs)
{
	return (struct nav_wp){ .lat_deg = vs->lat_deg, .lon_deg = vs->lon_deg,
				.alt_rel_m = vs->alt_rel_m };
}

/* Where an item is: its position, or here for 0/0; its height above home. */
static struct nav_wp item_wp(const struct mexec *e, const struct mission_item *it,
			     const struct vehicle_state *vs)
{
	struct nav_wp w = here(vs);
	if (it->x != 0 || it->y != 0) {
		w.lat_deg = it->x * 1e-7;
		w.lon_deg = it->y * 1e-7;
	}
	bool absolute = it->frame == MAV_FRAME_GLOBAL || it->frame == MAV_FRAME_GLOBAL_INT;
	w.alt_rel_m = absolute ? it->z - e->home_alt_msl_m : it->z;
	return w;
}

int mexec_find_land_start(const struct mission *m)
{
	for (uint16_t i = 1; i < m->count; i++)
		if (m->items[i].command == MAV_CMD_DO_LAND_START)
			return i;
	return -1;
}

/* A loiter radius from an item's parameter (negative: anticlockwise; 0: WP_LOITER_RAD). */
static float loiter_radius(float param_r, const struct mexec_params *p, int *dir)
{
	float r = param_r != 0.0f && isfinite(param_r) ? param_r : p->wp_loiter_rad_m;
	*dir = r < 0.0f ? -1 : 1;
	return fabsf(r);
}

/* The next NAV item after seq that has a place, following DO_JUMPs with jumps left; -1 none. */
static int next_nav(const struct mexec *e, const struct mission *m, uint16_t seq)
{
	unsigned int guard = 0;
	for (int i = seq + 1; i < m->count && guard < MISSION_MAX_ITEMS; guard++) {
		const struct mission_item *it = &m->items[i];
		if (it->command == MAV_CMD_DO_JUMP) {
			int16_t left = e->jumps_left[i];
			bool jumps = left == INT16_MIN ? it->param2 != 0.0f : left != 0;
			int target = (int)it->param1;
			i = jumps && target >= 1 && target < m->count ? target : i + 1;
			continue;
		}
		if (is_nav(it->command))
			return i;
		i++;
	}
	return -1;
}

/* Sets navigation's task for NAV item seq. */
static void fly_item(struct mexec *e, const struct mission *m, struct nav *nav, uint16_t seq,
		     const struct vehicle_state *vs, const struct mexec_params *p, uint64_t now_us)
{
	const struct mission_item *it = &m->items[seq];
	struct nav_wp w = item_wp(e, it, vs);
	int dir = 1;
	e->current = seq;
	e->phase = MEXEC_FLYING;
	e->on_circle = false;
	e->turned_rad = 0.0f;
	e->circle_t0_us = now_us;
	e->still_since_us = 0;
	e->grounded_since_us = 0;
	switch (it->command) {
	case MAV_CMD_NAV_TAKEOFF:
		nav_set_takeoff(nav, it->param1 > 0.0f ? it->param1 : 10.0f, w.alt_rel_m);
		break;
	case MAV_CMD_NAV_WAYPOINT: {
		int nx = next_nav(e, m, seq);
		struct nav_wp next;
		bool has_next = nx > 0 && m->items[nx].command != MAV_CMD_NAV_LOITER_UNLIM &&
				m->items[nx].command != MAV_CMD_NAV_RETURN_TO_LAUNCH;
		if (has_next)
			next = item_wp(e, &m->items[nx], vs);
		nav_set_leg(nav, &e->prev, &w, has_next ? &next : NULL);
		break;
	}
	case MAV_CMD_NAV_LOITER_UNLIM:
	case MAV_CMD_NAV_LOITER_TIME:
	case MAV_CMD_NAV_LOITER_TURNS:
	case MAV_CMD_NAV_LOITER_TO_ALT: {
		float r = loiter_radius(it->command == MAV_CMD_NAV_LOITER_TO_ALT ? it->param2 :
					it->param3, p, &dir);
		nav_set_loiter(nav, &w, r, dir);
		break;
	}
	case MAV_CMD_NAV_RETURN_TO_LAUNCH: {
		struct nav_wp h = e->home;
		h.alt_rel_m = p->rtl_alt_m;
		nav_set_loiter(nav, &h, p->wp_loiter_rad_m, 1);
		break;
	}
	case MAV_CMD_NAV_LAND:
		nav_set_land(nav, &e->prev, &w);
		break;
	default:
		break;
	}
}

/* Runs DO items from seq on and starts the first NAV item found; past the end: done. */
static void advance(struct mexec *e, const struct mission *m, struct nav *nav, uint16_t seq,
		    const struct vehicle_state *vs, const struct mexec_params *p, uint64_t now_us)
{
	for (unsigned int guard = 0; guard < 4u * MISSION_MAX_ITEMS; guard++) {
		if (seq == 0)
			seq = 1;
		if (seq >= m->count) {
			e->phase = MEXEC_DONE;
			return;
		}
		const struct mission_item *it = &m->items[seq];
		switch (it->command) {
		case MAV_CMD_DO_JUMP: {
			int target = (int)it->param1;
			if (e->jumps_left[seq] == INT16_MIN)
				e->jumps_left[seq] = it->param2 < 0.0f ? -1 :
						     (int16_t)fminf(it->param2, 32767.0f);
			if (e->jumps_left[seq] != 0 && target >= 1 && target < m->count) {
				if (e->jumps_left[seq] > 0)
					e->jumps_left[seq]--;
				seq = (uint16_t)target;
			} else {
				seq++;
			}
			continue;
		}
		case MAV_CMD_DO_CHANGE_SPEED:
			if (it->param2 > 0.0f && isfinite(it->param2)) {
				e->speed_m_s = it->param2;
				nav_set_airspeed(nav, it->param2);
			}
			seq++;
			continue;
		case MAV_CMD_DO_SET_HOME:
			e->home = it->param1 == 1.0f ? here(vs) : item_wp(e, it, vs);
			if (it->param1 != 1.0f && (it->frame == MAV_FRAME_GLOBAL ||
						   it->frame == MAV_FRAME_GLOBAL_INT))
				e->home_alt_msl_m = it->z;
			e->home.alt_rel_m = 0.0f;
			e->home_changed = true;
			seq++;
			continue;
		default:
			if (is_nav(it->command)) {
				fly_item(e, m, nav, seq, vs, p, now_us);
				return;
			}
			seq++;  /* DO_LAND_START and what fulmar does not do: stepped over */
			continue;
		}
	}
	e->phase = MEXEC_FAILED;
	e->why = "DO_JUMPs loop without a NAV item";
}

void mexec_start(struct mexec *e, const struct mission *m, struct nav *nav,
		 const struct mexec_params *p, const struct nav_wp *home, float home_alt_msl_m,
		 const struct vehicle_state *vs, uint64_t now_us)
{
	memset(e, 0, sizeof(*e));
	e->p = *p;
	for (unsigned int i = 0; i < MISSION_MAX_ITEMS; i++)
		e->jumps_left[i] = INT16_MIN;
	e->home = *home;
	e->home_alt_msl_m = home_alt_msl_m;
	e->phase = MEXEC_IDLE;
	mexec_goto(e, m, nav, m->current, vs, now_us);
}

void mexec_goto_via(struct mexec *e, const struct mission *m, struct nav *nav, uint16_t via,
		    uint16_t then, const struct vehicle_state *vs, uint64_t now_us)
{
	mexec_goto(e, m, nav, via, vs, now_us);
	if (e->phase == MEXEC_FLYING && e->current == via)
		e->then_seq = (int16_t)then;
}

int mexec_land_approach(const struct mission *m, int ls)
{
	if (ls <= 0 || ls >= m->count)
		return -1;
	int first = -1;
	for (int i = ls + 1; i < m->count && first < 0; i++)
		if (is_nav(m->items[i].command))
			first = i;
	if (first < 0 || m->items[first].command != MAV_CMD_NAV_LAND)
		return -1;
	/* the NAV item before it, if a waypoint with a place (a loiter would hold it there) */
	for (int i = ls - 1; i >= 1; i--) {
		const struct mission_item *it = &m->items[i];
		if (!is_nav(it->command))
			continue;
		return it->command == MAV_CMD_NAV_WAYPOINT && (it->x != 0 || it->y != 0) ? i : -1;
	}
	return -1;
}

void mexec_goto(struct mexec *e, const struct mission *m, struct nav *nav, uint16_t seq,
		const struct vehicle_state *vs, uint64_t now_us)
{
	e->then_seq = -1;
	e->prev = here(vs);
	if (m->count <= 1) {
		e->phase = MEXEC_FAILED;
		e->why = "no mission";
		return;
	}
	advance(e, m, nav, seq, vs, &e->p, now_us);
}

/* Loiter progress: on the circle yet, and how far round since. */
static void track_circle(struct mexec *e, const struct nav *nav, const struct nav_output *out,
			 const struct vehicle_state *vs, uint64_t now_us)
{
	float tol = fmaxf(5.0f, CIRCLE_CAPTURE_FRAC * nav->radius_m);
	struct nav_ne p = nav_geo_ne_from_ll(nav->home_lat_deg, nav->home_lon_deg, vs->lat_deg,
					     vs->lon_deg);
	float b = nav_geo_bearing_rad(nav->centre, p);
	if (!e->on_circle) {
		if (fabsf(out->xtrack_m) < tol) {
			e->on_circle = true;
			e->circle_t0_us = now_us;
			e->last_bearing_rad = b;
		}
		return;
	}
	float d = b - e->last_bearing_rad;
	d -= TWO_PI_F * floorf((d + TWO_PI_F / 2.0f) / TWO_PI_F);
	e->turned_rad += fabsf(d);
	e->last_bearing_rad = b;
}

void mexec_update(struct mexec *e, const struct mission *m, struct nav *nav,
		  const struct nav_output *out, const struct vehicle_state *vs, uint64_t now_us)
{
	const struct mexec_params *p = &e->p;
	if (e->phase != MEXEC_FLYING || e->current >= m->count)
		return;
	const struct mission_item *it = &m->items[e->current];
	bool done = false, from_here = false;
	switch (it->command) {
	case MAV_CMD_NAV_TAKEOFF:
		/* ArduPlane's verify_takeoff: complete once above the item's
		 * height over home, launched or not, so a mission started in
		 * the air (above it) goes straight on to the next item. */
		done = out->takeoff_complete ||
		       (isfinite(vs->alt_rel_m) && vs->alt_rel_m > item_wp(e, it, vs).alt_rel_m);
		from_here = true;
		break;
	case MAV_CMD_NAV_WAYPOINT:
		done = out->wp_reached;
		break;
	case MAV_CMD_NAV_LOITER_TURNS:
		track_circle(e, nav, out, vs, now_us);
		done = e->on_circle && e->turned_rad >= TWO_PI_F * fmaxf(it->param1, 0.0f);
		from_here = true;
		break;
	case MAV_CMD_NAV_LOITER_TIME:
		track_circle(e, nav, out, vs, now_us);
		done = e->on_circle &&
		       (double)(now_us - e->circle_t0_us) * 1e-6 >= (double)fmaxf(it->param1, 0.0f);
		from_here = true;
		break;
	case MAV_CMD_NAV_LOITER_TO_ALT:
		track_circle(e, nav, out, vs, now_us);
		done = fabsf(vs->alt_rel_m - nav->loiter_alt_m) < LOITER_ALT_TOL_M;
		from_here = true;
		break;
	case MAV_CMD_NAV_LAND: {
		float gs = hypotf(vs->vel_ned_m_s[0], vs->vel_ned_m_s[1]);
		if (out->flaring && gs < LAND_STILL_M_S) {
			if (!e->still_since_us)
				e->still_since_us = now_us;
		} else {
			e->still_since_us = 0;
		}
		/* A plane without brakes in a wind may never stop: weathervaned
		 * into it, it is blown backwards at a few m/s. Too slow to fly,
		 * through the air and over the ground, within a few metres of the
		 * land point's height, for 3 s after the flare is on the ground as
		 * well. The estimator stops using a pitot that reads under 7 m/s
		 * (src/estim): without an airspeed, the ground speed alone. */
		bool eas_ok = (vs->valid & VEHICLE_AIRSPEED_VALID) != 0;
		bool slow_air = !eas_ok ||
				vs->airspeed_m_s < LAND_GROUNDED_AIRSPEED_FRAC * e->p.arspd_fbw_min;
		if (out->flaring && gs < LAND_GROUNDED_GS_M_S && slow_air &&
		    vs->alt_rel_m < nav->land_wp.alt_rel_m + LAND_GROUNDED_HGT_M) {
			if (!e->grounded_since_us)
				e->grounded_since_us = now_us;
		} else {
			e->grounded_since_us = 0;
		}
		/* Stopped for a second after the flare: on the ground. */
		if ((e->still_since_us && now_us - e->still_since_us >= 1000000u) ||
		    (e->grounded_since_us && now_us - e->grounded_since_us >= LAND_GROUNDED_US)) {
			e->phase = MEXEC_LANDED;
			e->reached_seq = e->current;
			e->reached_pending = true;
		}
		return;
	}
	default:                   /* LOITER_UNLIM, RETURN_TO_LAUNCH: until told otherwise */
		return;
	}
	if (!done)
		return;
	e->reached_seq = e->current;
	e->reached_pending = true;
	e->prev = from_here ? here(vs) : item_wp(e, it, vs);
	uint16_t next = e->then_seq >= 0 ? (uint16_t)e->then_seq : (uint16_t)(e->current + 1);
	e->then_seq = -1;
	advance(e, m, nav, next, vs, p, now_us);
}

bool mexec_take_reached(struct mexec *e, uint16_t *seq)
{
	if (!e->reached_pending)
		return false;
	e->reached_pending = false;
	*seq = e->reached_seq;
	return true;
}
