// SPDX-License-Identifier: GPL-3.0-or-later
#include "vehicle/fence.h"

#include <math.h>
#include <string.h>

void fence_params_default(struct fence_params *fp)
{
	/* ArduPlane's defaults: off; a polygon fence; RTL; 100 m; 300 m; 2 m. */
	*fp = (struct fence_params){
		.fence_enable = 0, .fence_type = FENCE_TYPE_POLYGON, .fence_action = FENCE_ACTION_RTL,
		.fence_alt_max = 100, .fence_alt_min = -10, .fence_radius = 300, .fence_margin = 2,
		.rally_limit_km = 5, .rally_incl_home = 0,
	};
}

uint8_t fence_breach_type(uint8_t types)
{
	if (types & (FENCE_TYPE_CIRCLE | FENCE_TYPE_POLYGON))
		return 3;
	if (types & FENCE_TYPE_ALT_MAX)
		return 2;
	if (types & FENCE_TYPE_ALT_MIN)
		return 1;
	return 0;
}

/* Global frames only: a fence is a place on earth, not an offset from the aircraft. */
static bool global_frame(uint8_t frame, bool *msl)
{
	*msl = frame == 0 || frame == 5;   /* GLOBAL, GLOBAL_INT: altitude above sea level */
	return frame == 0 || frame == 3 || frame == 5 || frame == 6;
}

static int check_place(const struct mission_item *it)
{
	bool msl;
	if (!global_frame(it->frame, &msl))
		return FENCE_RESULT_UNSUPPORTED_FRAME;
	if (it->x < -900000000 || it->x > 900000000)
		return FENCE_RESULT_INVALID_X;
	if (it->y < -1800000000 || it->y > 1800000000)
		return FENCE_RESULT_INVALID_Y;
	return FENCE_RESULT_OK;
}

int fence_check_item(const struct mission_item *it)
{
	switch (it->command) {
	case FENCE_CMD_POLYGON_INCLUSION:
	case FENCE_CMD_POLYGON_EXCLUSION:
		if (!(it->param1 >= FENCE_MIN_VERTICES && it->param1 <= FENCE_MAX_ITEMS) ||
		    it->param1 != floorf(it->param1))
			return FENCE_RESULT_INVALID_PARAM1;
		break;
	case FENCE_CMD_CIRCLE_INCLUSION:
	case FENCE_CMD_CIRCLE_EXCLUSION:
		if (!(it->param1 > 0.0f && it->param1 < 1e6f))
			return FENCE_RESULT_INVALID_PARAM1;
		break;
	case FENCE_CMD_RETURN_POINT:
		break;
	default:
		return FENCE_RESULT_UNSUPPORTED;
	}
	return check_place(it);
}

int rally_check_item(const struct mission_item *it)
{
	if (it->command != RALLY_CMD_POINT)
		return FENCE_RESULT_UNSUPPORTED;
	return check_place(it);
}

static bool is_vertex(uint16_t cmd)
{
	return cmd == FENCE_CMD_POLYGON_INCLUSION || cmd == FENCE_CMD_POLYGON_EXCLUSION;
}

int fence_validate(const struct mission *fence, uint16_t *bad)
{
	bool have_return = false;
	for (uint16_t i = 0; i < fence->count;) {
		const struct mission_item *it = &fence->items[i];
		*bad = i;
		if (fence_check_item(it) != FENCE_RESULT_OK)
			return FENCE_RESULT_INVALID;
		if (it->command == FENCE_CMD_RETURN_POINT) {
			if (have_return)
				return FENCE_RESULT_INVALID;
			have_return = true;
		}
		if (!is_vertex(it->command)) {
			i++;
			continue;
		}
		/* A polygon: n consecutive vertices of one kind, each saying n. */
		uint16_t n = (uint16_t)it->param1;
		if (n > fence->count - i)
			return FENCE_RESULT_INVALID;
		for (uint16_t k = 1; k < n; k++) {
			const struct mission_item *v = &fence->items[i + k];
			*bad = (uint16_t)(i + k);
			if (v->command != it->command || v->param1 != it->param1 ||
			    check_place(v) != FENCE_RESULT_OK)
				return FENCE_RESULT_INVALID;
		}
		i = (uint16_t)(i + n);
	}
	return FENCE_RESULT_OK;
}

bool fence_point_in_polygon(const struct nav_ne *v, unsigned int n, struct nav_ne p)
{
	/* Even-odd: count the edges a ray from p to the east crosses. */
	bool in = false;
	for (unsigned int i = 0, j = n - 1; i < n; j = i++) {
		const struct nav_ne *a = &v[i], *b = &v[j];
		if ((a->n_m > p.n_m) == (b->n_m > p.n_m))
			continue;
		float e = a->e_m + (p.n_m - a->n_m) * (b->e_m - a->e_m) / (b->n_m - a->n_m);
		if (p.e_m < e)
			in = !in;
	}
	return in;
}

static float segment_distance(struct nav_ne a, struct nav_ne b, struct nav_ne p)
{
	float dn = b.n_m - a.n_m, de = b.e_m - a.e_m;
	float len2 = dn * dn + de * de;
	float t = len2 > 0.0f ? ((p.n_m - a.n_m) * dn + (p.e_m - a.e_m) * de) / len2 : 0.0f;
	t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
	return hypotf(p.n_m - (a.n_m + t * dn), p.e_m - (a.e_m + t * de));
}

float fence_polygon_distance_m(const struct nav_ne *v, unsigned int n, struct nav_ne p)
{
	float d = INFINITY;
	for (unsigned int i = 0, j = n - 1; i < n; j = i++) {
		float s = segment_distance(v[j], v[i], p);
		if (s < d)
			d = s;
	}
	return d;
}

static struct nav_ne ne_of(const struct nav_wp *home, const struct mission_item *it)
{
	return nav_geo_ne_from_ll(home->lat_deg, home->lon_deg, it->x * 1e-7, it->y * 1e-7);
}

/* Breach and margin of the fence list's polygons and circles at p. */
static void list_breaches(const struct mission *fence, const struct nav_wp *home, float margin_m,
			  struct nav_ne p, bool *breach, bool *margin)
{
	struct nav_ne v[FENCE_MAX_ITEMS];
	for (uint16_t i = 0; i < fence->count;) {
		const struct mission_item *it = &fence->items[i];
		uint16_t cmd = it->command;
		if (is_vertex(cmd)) {
			unsigned int n = (unsigned int)it->param1;
			if (n < FENCE_MIN_VERTICES || n > FENCE_MAX_ITEMS || n > (unsigned int)(fence->count - i))
				return;     /* not a validated list: judged no further */
			for (unsigned int k = 0; k < n; k++)
				v[k] = ne_of(home, &fence->items[i + k]);
			bool in = fence_point_in_polygon(v, n, p);
			bool near = fence_polygon_distance_m(v, n, p) < margin_m;
			bool incl = cmd == FENCE_CMD_POLYGON_INCLUSION;
			*breach |= incl ? !in : in;
			*margin |= (incl ? in : !in) && near;
			i = (uint16_t)(i + n);
			continue;
		}
		if (cmd == FENCE_CMD_CIRCLE_INCLUSION || cmd == FENCE_CMD_CIRCLE_EXCLUSION) {
			float d = nav_geo_distance_m(ne_of(home, it), p), r = it->param1;
			if (cmd == FENCE_CMD_CIRCLE_INCLUSION) {
				*breach |= d > r;
				*margin |= d <= r && d > r - margin_m;
			} else {
				*breach |= d < r;
				*margin |= d >= r && d < r + margin_m;
			}
		}
		i++;
	}
}

uint8_t fence_breaches(const struct fence_params *fp, const struct mission *fence,
		       const struct nav_wp *home, const struct nav_wp *pos, uint8_t *margin)
{
	uint8_t types = (uint8_t)fp->fence_type, b = 0, m = 0;
	float mg = fp->fence_margin > 0.0f ? fp->fence_margin : 0.0f;
	float alt = pos->alt_rel_m;
	if (types & FENCE_TYPE_ALT_MAX) {
		if (alt > fp->fence_alt_max)
			b |= FENCE_TYPE_ALT_MAX;
		else if (alt > fp->fence_alt_max - mg)
			m |= FENCE_TYPE_ALT_MAX;
	}
	if (types & FENCE_TYPE_ALT_MIN) {
		if (alt < fp->fence_alt_min)
			b |= FENCE_TYPE_ALT_MIN;
		else if (alt < fp->fence_alt_min + mg)
			m |= FENCE_TYPE_ALT_MIN;
	}
	struct nav_ne p = nav_geo_ne_from_ll(home->lat_deg, home->lon_deg, pos->lat_deg,
					     pos->lon_deg);
	if ((types & FENCE_TYPE_CIRCLE) && fp->fence_radius > 0.0f) {
		float d = hypotf(p.n_m, p.e_m);
		if (d > fp->fence_radius)
			b |= FENCE_TYPE_CIRCLE;
		else if (d > fp->fence_radius - mg)
			m |= FENCE_TYPE_CIRCLE;
	}
	if ((types & FENCE_TYPE_POLYGON) && fence) {
		bool br = false, mr = false;
		list_breaches(fence, home, mg, p, &br, &mr);
		if (br)
			b |= FENCE_TYPE_POLYGON;
		else if (mr)
			m |= FENCE_TYPE_POLYGON;
	}
	if (margin)
		*margin = m;
	return b;
}

static float alt_rel(const struct mission_item *it, float home_alt_msl_m)
{
	bool msl;
	global_frame(it->frame, &msl);
	return msl ? it->z - home_alt_msl_m : it->z;
}

bool fence_return_point(const struct mission *fence, float home_alt_msl_m, struct nav_wp *out)
{
	for (uint16_t i = 0; fence && i < fence->count; i++) {
		const struct mission_item *it = &fence->items[i];
		if (it->command == FENCE_CMD_RETURN_POINT) {
			*out = (struct nav_wp){ it->x * 1e-7, it->y * 1e-7, alt_rel(it, home_alt_msl_m) };
			return true;
		}
	}
	return false;
}

bool rally_select(const struct fence_params *fp, const struct mission *rally,
		  const struct nav_wp *home, float home_alt_msl_m, const struct nav_wp *pos,
		  struct nav_wp *out, uint16_t *index)
{
	float best = INFINITY;
	uint16_t bi = 0;
	for (uint16_t i = 0; rally && i < rally->count; i++) {
		const struct mission_item *it = &rally->items[i];
		if (rally_check_item(it) != FENCE_RESULT_OK)
			continue;
		float d = nav_geo_distance_ll_m(pos->lat_deg, pos->lon_deg, it->x * 1e-7, it->y * 1e-7);
		if (d < best) {
			best = d;
			bi = i;
		}
	}
	if (!isfinite(best))
		return false;
	float home_d = nav_geo_distance_ll_m(pos->lat_deg, pos->lon_deg, home->lat_deg,
					     home->lon_deg);
	if (fp->rally_limit_km > 0.0f && best > fp->rally_limit_km * 1000.0f && home_d < best)
		return false;
	if (fp->rally_incl_home != 0.0f && home_d < best)
		return false;
	const struct mission_item *it = &rally->items[bi];
	*out = (struct nav_wp){ it->x * 1e-7, it->y * 1e-7, alt_rel(it, home_alt_msl_m) };
	if (index)
		*index = bi;
	return true;
}
