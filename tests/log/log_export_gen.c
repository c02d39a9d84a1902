// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * log-export-gen: a short flight log for the export test (test_log_export.py),
 * written through the real writer into DIR/N.BIN; prints that path.
 *
 *   log-export-gen DIR home      home set (ORGN Type 1, mission item 0 above sea level)
 *   log-export-gen DIR nohome    home never set: no ORGN Type 1, item 0 unplaced
 *
 * The mission is the demonstration's (missions/cmac-circuit.waypoints: home above sea
 * level, waypoints 40 m above home, the land point 1.7 m below it) with one waypoint
 * in each other frame an export has to handle. The track takes off from home, flies
 * a lap at 40 m above home and lands on the land point.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "log/log_writer.h"

#define HOME_LAT -35.363261
#define HOME_LNG 149.16523
#define HOME_ALT_M 583.7          /* the demonstration's home, set at arming */
#define FIRST_HOME_ALT_M 583.9    /* home at the first fix, moved at arming */
#define ORIGIN_ALT_M 584.6        /* the estimator's origin: not home */
#define LAND_REL_M -1.7
#define ARM_S 5.0
#define LAP_S 80.0
#define END_S 100.0
#define DEG (180.0 / M_PI)

/* MAV_FRAME */
enum {
	FRAME_GLOBAL = 0, FRAME_LOCAL_NED = 1, FRAME_GLOBAL_RELATIVE_ALT = 3,
	FRAME_GLOBAL_INT = 5, FRAME_GLOBAL_RELATIVE_ALT_INT = 6, FRAME_GLOBAL_TERRAIN_ALT = 10,
};

static int32_t lat_e7(double north_m)
{
	return (int32_t)lround((HOME_LAT + north_m / 110540.0) * 1e7);
}

static int32_t lng_e7(double east_m)
{
	return (int32_t)lround((HOME_LNG + east_m / (111320.0 * cos(HOME_LAT / DEG))) * 1e7);
}

/* Where the aircraft is at t (s): on the ground at home until ARM_S, a climbing lap of
 * a 300 m circle, the last quarter descending onto the land point (home's position,
 * 1.7 m lower), then on the ground there. */
static void track_at(double t, double *north_m, double *east_m, double *rel_m)
{
	double tau = fmin(fmax(t - ARM_S, 0.0), LAP_S), w = 2 * M_PI / LAP_S;
	*north_m = 300.0 * (1.0 - cos(w * tau));
	*east_m = 300.0 * sin(w * tau);
	double descent = 0.75 * LAP_S;
	if (t < ARM_S)
		*rel_m = 0.0;
	else if (tau < descent)
		*rel_m = fmin(40.0, 4.0 * tau);
	else
		*rel_m = 40.0 + (LAND_REL_M - 40.0) * (tau - descent) / (LAP_S - descent);
}

static unsigned refused;

static void put(struct log_producer *p, uint8_t type, const void *m)
{
	if (log_write(p, type, m) != 0)
		refused++;
}

static void put_orgn(struct log_producer *p, uint64_t t_us, uint8_t type, double alt_m)
{
	struct df_orgn o = { .t_us = t_us, .type = type, .lat_1e7 = lat_e7(0), .lng_1e7 = lng_e7(0),
			     .alt_cm = (int32_t)lround(alt_m * 100.0) };
	put(p, DF_ID_ORGN, &o);
}

/* The mission as fulmard logs it at arming. */
static void put_mission(struct log_producer *p, uint64_t t_us, bool home)
{
	static const struct { uint16_t cmd; uint8_t frame; double n_m, e_m, alt_m; } items[] = {
		{ 16, FRAME_GLOBAL, 0, 0, HOME_ALT_M },                  /* home */
		{ 22, FRAME_GLOBAL_RELATIVE_ALT, NAN, NAN, 40.0 },       /* takeoff: no position */
		{ 16, FRAME_GLOBAL_RELATIVE_ALT, 300, 300, 40.0 },
		{ 16, FRAME_GLOBAL_RELATIVE_ALT_INT, 600, 0, 45.0 },
		{ 16, FRAME_GLOBAL_INT, 300, -300, HOME_ALT_M + 50.0 },
		{ 16, FRAME_GLOBAL_TERRAIN_ALT, 150, -260, 35.0 },
		{ 16, FRAME_LOCAL_NED, NAN, NAN, 30.0 },                 /* metres, not degrees */
		{ 177, FRAME_GLOBAL, NAN, NAN, 0.0 },                    /* DO_JUMP */
		{ 189, FRAME_GLOBAL, NAN, NAN, 0.0 },                    /* DO_LAND_START */
		{ 21, FRAME_GLOBAL_RELATIVE_ALT, 0, 0, LAND_REL_M },     /* land */
	};
	const unsigned n = sizeof items / sizeof items[0];
	for (unsigned k = 0; k < n; k++) {
		struct df_cmd c = { .t_us = t_us, .total = (uint16_t)n, .seq = (uint16_t)k,
				    .command = items[k].cmd, .alt_m = (float)items[k].alt_m,
				    .frame = items[k].frame };
		if (isfinite(items[k].n_m)) {
			c.lat_1e7 = lat_e7(items[k].n_m);
			c.lng_1e7 = lng_e7(items[k].e_m);
		}
		if (items[k].frame == FRAME_LOCAL_NED) {
			c.lat_1e7 = 200;     /* x, y in metres as a local frame has them */
			c.lng_1e7 = 100;
		}
		if (k == 0 && !home) {
			/* Item 0 before home is set: no place. */
			c.lat_1e7 = c.lng_1e7 = 0;
			c.alt_m = 0.0f;
		}
		put(p, DF_ID_CMD, &c);
	}
}

static void on_status(void *ctx, enum log_writer_event ev, int err, const char *text)
{
	(void)ctx;
	(void)ev;
	(void)err;
	fprintf(stderr, "log-export-gen: %s\n", text);
}

int main(int argc, char **argv)
{
	static uint8_t buf[64 * 1024], ring[256 * 1024];
	static struct log_writer w;
	static struct log_producer p;

	if (argc != 3 || (strcmp(argv[2], "home") && strcmp(argv[2], "nohome"))) {
		fputs("usage: log-export-gen DIR home|nohome\n", stderr);
		return 2;
	}
	bool home = strcmp(argv[2], "home") == 0;
	struct log_writer_config cfg = { .dir = argv[1], .log_disarmed = true, .buf = buf,
					 .buf_len = sizeof buf, .on_status = on_status };
	if (log_writer_init(&w, &cfg) < 0 || log_writer_add_producer(&w, &p, ring, sizeof ring, "gen") < 0)
		return 1;

	const uint64_t t0_us = 1000000u, step_us = 200000u;   /* GPS and POS at 5 Hz */
	bool armed = false;
	for (uint64_t t_us = t0_us; t_us <= t0_us + (uint64_t)(END_S * 1e6); t_us += step_us) {
		double t = (double)(t_us - t0_us) / 1e6, north, east, rel;
		track_at(t, &north, &east, &rel);
		if (t_us == t0_us) {
			put_orgn(&p, t_us, 0, ORIGIN_ALT_M);
			if (home)
				put_orgn(&p, t_us, 1, FIRST_HOME_ALT_M);
		}
		if (!armed && t >= ARM_S) {
			/* Arming: home set again where the aircraft is, the mission logged. */
			armed = true;
			put_orgn(&p, t_us, 0, ORIGIN_ALT_M);
			if (home)
				put_orgn(&p, t_us, 1, HOME_ALT_M);
			put_mission(&p, t_us, home);
		}
		double gms = 3.6e8 + t * 1000.0;
		struct df_gps g = { .t_us = t_us, .status = 3, .week = 2382, .week_ms = (uint32_t)gms,
				    .num_sats = 12, .hdop_x100 = 80, .lat_1e7 = lat_e7(north),
				    .lng_1e7 = lng_e7(east),
				    .alt_msl_cm = (int32_t)lround((HOME_ALT_M + rel) * 100.0),
				    .ground_speed_m_s = armed ? 23.5f : 0.0f, .used = 1 };
		put(&p, DF_ID_GPS, &g);
		struct df_pos pos = { .t_us = t_us + 1000u, .lat_1e7 = g.lat_1e7, .lng_1e7 = g.lng_1e7,
				      .alt_msl_m = (float)(HOME_ALT_M + rel), .rel_home_alt_m = (float)rel,
				      .rel_origin_alt_m = (float)(HOME_ALT_M + rel - ORIGIN_ALT_M) };
		put(&p, DF_ID_POS, &pos);
		log_writer_service(&w, t_us);
	}
	uint64_t end_us = t0_us + (uint64_t)(END_S * 1e6) + step_us;
	if (log_writer_fini(&w, end_us) < 0)
		return 1;
	struct log_writer_stats st;
	log_writer_get_stats(&w, &st);
	if (refused) {
		fprintf(stderr, "log-export-gen: %u records refused\n", refused);
		return 1;
	}
	printf("%s/%u.BIN\n", argv[1], st.file_num);
	return 0;
}
