// SPDX-License-Identifier: GPL-3.0-or-later
#define LOG_TAG "flight"
#include "daemon/flight.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "daemon/flight_params.h"
#include "fulmar/clock.h"
#include "daemon/flightlog.h"
#include "daemon/scheduler.h"
#include "daemon/services.h"
#include "estim/estim_math.h"
#include "estim/vibe.h"
#include "nav/wmm.h"
#include "param/param.h"
#include "util/log.h"

struct orgn_said {
	bool said;
	int32_t lat, lng, alt_cm;
};

static struct flight {
	struct sensor_hub *hub;
	struct rcout *out;
	struct gcs *gcs;
	struct vehicle *vehicle;
	struct mission *mission;
	struct estim est;
	struct estim_config est_cfg;
	struct plane plane;
	struct plane_params pp;
	struct plane_output po;
	struct vehicle_state vs;
	struct imu_sample imu;          /* latest taken */
	uint64_t imu_taken;
	struct vibe vibe;               /* VIBRATION: from every IMU sample */
	uint32_t gen[SENSOR_KIND_COUNT];  /* topic generations taken */
	struct rc_frame rc;
	bool rc_seen;
	struct gps_fix gps;
	bool gps_new;                   /* a fix taken this step */
	struct mag_sample mag;          /* the latest compass sample ... */
	bool mag_seen;                  /* ... if any came */
	bool autodec;                   /* COMPASS_AUTODEC at start-up */
	bool decl_said;                 /* the model's declination given to the estimator */
	bool wmm_known;                 /* the model's field at the latest 3D fix: */
	float wmm_decl_deg, wmm_incl_deg, wmm_gauss;
	struct battery_sample batt;
	bool home_set;
	bool was_armed;
	enum plane_mode mode_said;      /* for the log: what was last said */
	bool armed_said;
	uint32_t health;                /* the estimator's, as last said */
	uint64_t last_us;               /* now, on the samples' clock (see flight_task) */
	uint64_t paused_us;             /* the samples' source's pauses passed to the estimator */
	uint64_t say_us;                /* the same on their source's clock: the time said in the log's lines */
	uint32_t param_gen;             /* the parameters' generation last loaded */
	uint64_t log_next25_us, log_next10_us;  /* the log's next 25 Hz and 10 Hz ticks */
	uint64_t log_next1_us;          /* and 1 Hz (POWR) */
	uint32_t log_gps_gen, log_baro_gen;
	uint32_t log_mag_gen, log_as_gen;  /* MAG's and ARSP's health: a sample since the last record */
	struct orgn_said log_orgn[2];   /* ORGN types 0 and 1 as logged */
	bool log_orgn_armed;            /* the arming the origins were last logged at */
	struct sched *sched;            /* loop timing (PM) and shedding; may be NULL */
	struct sched_work nav_work;     /* navigation: shed last */
	struct sched_work log_work;     /* the log's periodic records: shed first */
	uint64_t shed_seen;             /* the main thread's shed loops at the window's start */
	uint64_t shed_window_us;        /* when this second's window began */
	uint64_t shed_from;             /* its shed loops when this overload began */
	bool overloaded;                /* as said */
	unsigned int shed_quiet;        /* whole windows without shedding since */
	struct { uint32_t us; uint64_t from_us, to_us; } burn[FLIGHT_TEST_BURNS];  /* flight_test_burn */
	unsigned int n_burn;
	uint64_t pm_last_us;
	struct sched_figures pm_prev;   /* the main loop's figures at the last PM */
	_Atomic bool armed;
	uint64_t out_errors;
} flight;

void flight_init(struct sensor_hub *hub, struct rcout *out)
{
	memset(&flight, 0, sizeof(flight));
	flight.hub = hub;
	flight.out = out;
	services_flight_refs(&flight.gcs, &flight.vehicle, &flight.mission);
	estim_config_default(&flight.est_cfg);
	/* Height from the barometer, as ArduPilot's EKF does by default (EK2_ALT_SOURCE 0):
	 * GPS height wanders by metres over minutes; a landing needs the baro's steadiness. */
	flight.est_cfg.use_gps_hgt = false;
	/* The filter runs at the main loop's rate (50..400 Hz). */
	float rate = param_get_by_name("SCHED_LOOP_RATE");
	flight.est_cfg.filter_rate_hz = rate < 50.0f ? 50.0f : rate > 400.0f ? 400.0f : rate;
	/* ArduPilot's GPS_DELAY_MS: how old a fix is when it arrives; 0 keeps the estimator's default. */
	float gps_delay_ms = param_get_by_name("GPS_DELAY_MS");
	if (gps_delay_ms > 0.0f)
		flight.est_cfg.gps_delay_ms = gps_delay_ms;
	/* Declination: COMPASS_DEC, or (COMPASS_AUTODEC) the world magnetic
	 * model's at the first 3D fix (take_declination); unknown until then. */
	flight.autodec = param_get_by_name("COMPASS_AUTODEC") != 0.0f;
	flight.est_cfg.mag_declination_deg = flight.autodec ? NAN : param_get_by_name("COMPASS_DEC") * 57.29578f;
	estim_init(&flight.est, &flight.est_cfg);
	vibe_init(&flight.vibe);
	plane_params_default(&flight.pp);
	if (flight_params_load(&flight.pp))
		log_err("parameters missing from the table: the flight code's defaults stand");
	flight.param_gen = param_generation();
	plane_init(&flight.plane, flight.vehicle);
	flight.mode_said = flight.vehicle->mode;
	flight.batt.voltage_v = NAN;
	flight.batt.consumed_mah = NAN;
	atomic_init(&flight.armed, false);
}

bool flight_armed(void)
{
	return atomic_load_explicit(&flight.armed, memory_order_relaxed);
}

const struct servo_params *flight_servo_params(void)
{
	return &flight.pp.servo;
}

const struct estim *flight_estimator(void)
{
	return &flight.est;
}

const struct plane *flight_plane(void)
{
	return &flight.plane;
}

/* The latest value of a kind if it is new since the last call. */
static bool take(enum sensor_kind k, void *out)
{
	uint32_t g = sensors_latest(flight.hub, k, out);
	if (g == flight.gen[k])
		return false;
	flight.gen[k] = g;
	return true;
}

static void feed_estimator(void)
{
	struct imu_sample batch[FLIGHT_IMU_BATCH];
	size_t n;
	/* A real-time simulator's stall: no time of the aircraft's passed in it. */
	uint64_t paused = sensors_paused_us(flight.hub);
	if (paused > flight.paused_us) {
		estim_source_paused(&flight.est, paused - flight.paused_us);
		flight.paused_us = paused;
	}
	while ((n = sensors_read_imu(flight.hub, batch, FLIGHT_IMU_BATCH)) > 0) {
		for (size_t i = 0; i < n; i++) {
			estim_push_imu(&flight.est, &batch[i]);
			vibe_push(&flight.vibe, batch[i].t_us, batch[i].accel_m_s2);
		}
		flight.imu = batch[n - 1];
		flight.imu_taken += n;
	}
	struct baro_sample baro;
	if (take(SENSOR_BARO, &baro))
		estim_push_baro(&flight.est, &baro);
	if (take(SENSOR_MAG, &flight.mag)) {
		estim_push_mag(&flight.est, &flight.mag);
		flight.mag_seen = true;
	}
	struct airspeed_sample as;
	if (take(SENSOR_AIRSPEED, &as))
		estim_push_airspeed(&flight.est, &as);
	flight.gps_new = take(SENSOR_GPS, &flight.gps);
	if (flight.gps_new)
		estim_push_gps(&flight.est, &flight.gps);
	if (take(SENSOR_RC, &flight.rc))
		flight.rc_seen = true;
	take(SENSOR_BATTERY, &flight.batt);
}

static void flight_records_text(struct log_producer *lp, uint64_t now_us, const char *text)
{
	struct df_msg m = { .t_us = now_us };
	strncpy(m.text, text, sizeof(m.text) - 1);  /* a copy, no formatting on the main loop */
	log_write_msg(lp, &m);
}

/* The world magnetic model where each 3D fix puts the aircraft (the compass
 * check's expected field), and at the first, with COMPASS_AUTODEC, the
 * declination the estimator takes from then on, said as ArduPilot's ground
 * stations show it. */
static void take_declination(uint64_t now_us)
{
	const struct gps_fix *g = &flight.gps;
	if (!flight.gps_new || g->fix != GPS_FIX_3D || (g->lat_deg == 0.0 && g->lon_deg == 0.0))
		return;
	float d, i, f;
	if (wmm_lookup(g->lat_deg, g->lon_deg, &d, &i, &f) != 0)
		return;   /* not a place on earth: the estimator counts the fix as invalid */
	flight.wmm_decl_deg = d;
	flight.wmm_incl_deg = i;
	flight.wmm_gauss = f;
	flight.wmm_known = true;
	if (!flight.autodec || flight.decl_said)
		return;
	flight.decl_said = true;
	int rc = estim_set_declination(&flight.est, d, WMM_DECL_SIGMA_DEG);
	if (rc) {
		log_err("the estimator refused the declination %.2f deg: %d", (double)d, rc);
		return;
	}
	char text[50];   /* a STATUSTEXT holds 50 */
	snprintf(text, sizeof(text), "Compass: declination %.1f deg from WMM", (double)d);
	gcs_text(flight.gcs, GCS_SEV_INFO, "%s", text);
	if (flightlog_main())
		flight_records_text(flightlog_main(), now_us, text);
	log_info("%.3f s: Compass: declination %.2f deg (inclination %.1f deg, %.3f gauss) from the "
		 "world magnetic model (WMM2025 table, epoch %.1f) at %.6f %.6f", (double)flight.say_us * 1e-6,
		 (double)d, (double)i, (double)f, (double)wmm_table_epoch_year, g->lat_deg, g->lon_deg);
}

/* The compass for the pre-arm checks (plane_input's mag_*), milligauss. */
static void compass_for_prearm(struct plane_input *in)
{
	in->mag_seen = flight.mag_seen && !flight.vehicle->armed;
	if (in->mag_seen) {
		struct estim_status st;
		estim_get_status(&flight.est, &st);
		float b[3];
		for (int k = 0; k < 3; k++)
			b[k] = flight.mag.field_ut[k] * 10.0f - st.mag_body_gauss[k] * 1000.0f;
		/* body to NED by the attitude quaternion (w x y z) */
		const float *q = flight.vs.q;
		float w = q[0], x = q[1], y = q[2], z = q[3];
		float R[3][3] = {
			{ 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y) },
			{ 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x) },
			{ 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) },
		};
		for (int r = 0; r < 3; r++) {
			in->mag_body_mgauss[r] = b[r];
			in->mag_ned_mgauss[r] = R[r][0] * b[0] + R[r][1] * b[1] + R[r][2] * b[2];
		}
	}
	in->mag_expected_known = flight.wmm_known;
	if (flight.wmm_known) {
		float d = flight.wmm_decl_deg * 0.01745329f, i = flight.wmm_incl_deg * 0.01745329f;
		float f = flight.wmm_gauss * 1000.0f;
		in->mag_expected_ned_mgauss[0] = f * cosf(i) * cosf(d);
		in->mag_expected_ned_mgauss[1] = f * cosf(i) * sinf(d);
		in->mag_expected_ned_mgauss[2] = f * sinf(i);
	}
}

/* Faster over the ground than anyone walks with a plane in hand. */
#define ALOFT_GROUND_SPEED_M_S 5.0f

/* Flying, as far as home is concerned: moving over the ground faster than
 * walking. */
static bool aloft(void)
{
	const struct vehicle_state *vs = &flight.vs;
	/* the ground speed: a plane on the ground in a wind above ARSPD_FBW_MIN
	 * reads a flying airspeed */
	return (vs->valid & VEHICLE_POSITION_VALID) &&
	       hypotf(vs->vel_ned_m_s[0], vs->vel_ned_m_s[1]) > ALOFT_GROUND_SPEED_M_S;
}

/* A mission loaded with a home (item 0 at a place). */
static bool mission_has_home(void)
{
	const struct mission *m = flight.mission;
	return m->count >= 1 && (m->items[0].x != 0 || m->items[0].y != 0);
}

/* In the air home is not where the aircraft is: the mission's is kept, as
 * ArduPlane sets home at arming only on the ground. */
static void keep_mission_home(void)
{
	const struct mission_item *h = &flight.mission->items[0];
	if (!flight.home_set) {
		gcs_text(flight.gcs, GCS_SEV_INFO, "Home kept: the mission's, %.6f %.6f %.0f m (started in the air)",
			 h->x * 1e-7, h->y * 1e-7, (double)h->z);
		log_info("%.3f s: home kept: the mission's (started in the air)", (double)flight.say_us * 1e-6);
	}
	flight.home_set = true;
}

/* Home is mission item 0: set where the aircraft is (first good position, and at arming). */
static void set_home_here(void)
{
	struct mission *m = flight.mission;
	if (m->count == 0)
		m->count = 1;
	m->items[0].x = (int32_t)lround(flight.vs.lat_deg * 1e7);
	m->items[0].y = (int32_t)lround(flight.vs.lon_deg * 1e7);
	m->items[0].z = flight.vs.alt_msl_m;
	if (!flight.home_set)
		gcs_text(flight.gcs, GCS_SEV_INFO, "Home set: %.6f %.6f %.0f m", flight.vs.lat_deg,
			 flight.vs.lon_deg, (double)flight.vs.alt_msl_m);
	flight.home_set = true;
}

/* What the estimator starts or stops doing, told as ArduPilot's EKF tells it. */
static void tell_estimator_changes(void)
{
	static const struct {
		uint32_t bit;
		const char *on, *off;
	} said[] = {
		{ ESTIM_H_ALIGNED, "EKF: tilt alignment complete", "EKF: stopped" },
		{ ESTIM_H_YAW_ALIGNED, "EKF: yaw alignment complete", NULL },
		{ ESTIM_H_GPS_USED, "EKF: using GPS", "EKF: GPS lost, dead reckoning" },
		{ ESTIM_H_GPS_GLITCH, "EKF: GPS glitch", "EKF: GPS glitch cleared" },
		{ ESTIM_H_MAG_REJECTING, "EKF: compass rejected", "EKF: compass good again" },
		{ ESTIM_H_IMU_BAD, "EKF: IMU samples bad", "EKF: IMU good again" },
		{ ESTIM_H_IMU_FROZEN, "EKF: IMU frozen", "EKF: IMU moving again" },
		{ ESTIM_H_CONVERGED, "EKF: converged", "EKF: not converged" },
	};
	uint32_t h = estim_health(&flight.est), changed = h ^ flight.health;
	flight.health = h;
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
		if (!(changed & said[i].bit))
			continue;
		const char *text = (h & said[i].bit) ? said[i].on : said[i].off;
		if (!text)
			continue;
		gcs_text(flight.gcs, (h & said[i].bit) && said[i].bit != ESTIM_H_GPS_GLITCH &&
					     said[i].bit != ESTIM_H_MAG_REJECTING &&
					     said[i].bit != ESTIM_H_IMU_BAD && said[i].bit != ESTIM_H_IMU_FROZEN ?
				     GCS_SEV_INFO : GCS_SEV_WARNING, "%s", text);
		log_info("%.3f s: %s", (double)flight.say_us * 1e-6, text);
	}
}

static int16_t cdeg(float rad)
{
	float d = rad * 5729.578f;
	return (int16_t)(d > 32767.0f ? 32767 : d < -32768.0f ? -32768 : lroundf(d));
}

static uint16_t cdeg360(float rad)
{
	float d = fmodf(rad * 5729.578f + 36000.0f, 36000.0f);
	return (uint16_t)(d >= 0.0f && d < 36000.0f ? d : 0.0f);
}

/* ArduPilot's EV ids for what we say. */
#define LOG_EV_ARMED 10
#define LOG_EV_DISARMED 11
#define LOG_EV_LAND_COMPLETE 18
/* ArduPilot's ERR subsystem for the fence (code: the types breached, 0 cleared). */
#define LOG_ERR_FAILSAFE_FENCE 9

/* Equivalent airspeed from a pitot's differential pressure (sea-level density),
 * as the estimator reads it (estim_push_airspeed) before its EAS to TAS. */
static float pitot_eas(float diff_pa)
{
	return diff_pa > 0.0f ? sqrtf(2.0f * diff_pa / 1.225f) : 0.0f;
}

static int16_t sat16f(float v)
{
	return (int16_t)(!(v == v) ? 0 : v > 32767.0f ? 32767 : v < -32768.0f ? -32768 : lroundf(v));
}

/*
 * ORGN when an origin is set or moves: type 0 the estimator's origin, 1 home
 * (mission item 0); both again at each arming, which opens a new file
 * (LOG_FILE_DSRMROT), so every file says where its positions are from.
 */
static void log_origins(struct log_producer *lp, uint64_t now_us)
{
	bool again = flight.vehicle->armed && !flight.log_orgn_armed;
	flight.log_orgn_armed = flight.vehicle->armed;
	for (int type = 0; type < 2; type++) {
		struct df_orgn o = { .t_us = now_us, .type = (uint8_t)type };
		if (type == 0) {
			if (!flight.est.origin_set)
				continue;
			o.lat_1e7 = (int32_t)lround(flight.est.origin_lat_deg * 1e7);
			o.lng_1e7 = (int32_t)lround(flight.est.origin_lon_deg * 1e7);
			o.alt_cm = (int32_t)lround(flight.est.origin_alt_m * 100.0);
		} else {
			if (!flight.home_set)
				continue;
			o.lat_1e7 = flight.mission->items[0].x;
			o.lng_1e7 = flight.mission->items[0].y;
			o.alt_cm = (int32_t)lroundf(flight.mission->items[0].z * 100.0f);
		}
		struct orgn_said *l = &flight.log_orgn[type];
		if (!again && l->said && l->lat == o.lat_1e7 && l->lng == o.lng_1e7 && l->alt_cm == o.alt_cm)
			continue;
		if (log_write_orgn(lp, &o) == 0) {
			l->said = true;
			l->lat = o.lat_1e7;
			l->lng = o.lng_1e7;
			l->alt_cm = o.alt_cm;
		}
	}
}

/* ArduPlane's TECS flags (f). */
#define TECS_F_UNDERSPEED 1u
#define TECS_F_AUTO_LANDING 4u

/* The 10 Hz records of the estimator's second part, the sensors it fuses,
 * TECS and vibration. */
static void write_log_10hz(struct log_producer *lp, uint64_t now_us, const struct estim_status *st)
{
	const struct estim_innov *iv = st->innov;
	struct df_xkf2 x2 = {
		.t_us = now_us,
		.ax_cm_s2 = sat16f(st->accel_bias_m_s2[0] * 100.0f),
		.ay_cm_s2 = sat16f(st->accel_bias_m_s2[1] * 100.0f),
		.az_cm_s2 = sat16f(st->accel_bias_m_s2[2] * 100.0f),
		.vwn_cm_s = sat16f(st->wind_ne_m_s[0] * 100.0f),
		.vwe_cm_s = sat16f(st->wind_ne_m_s[1] * 100.0f),
		.mn_mga = sat16f(st->mag_earth_gauss[0] * 1000.0f),
		.me_mga = sat16f(st->mag_earth_gauss[1] * 1000.0f),
		.md_mga = sat16f(st->mag_earth_gauss[2] * 1000.0f),
		.mx_mga = sat16f(st->mag_body_gauss[0] * 1000.0f),
		.my_mga = sat16f(st->mag_body_gauss[1] * 1000.0f),
		.mz_mga = sat16f(st->mag_body_gauss[2] * 1000.0f),
		/* no drag fusion: 0, as ArduPilot's EKF3 logs them without it */
		.is_rad = iv[ESTIM_BETA].innov[0],
	};
	log_write_xkf2(lp, &x2);
	struct airspeed_sample as;
	if (sensors_latest(flight.hub, SENSOR_AIRSPEED, &as)) {
		bool fresh = flight.gen[SENSOR_AIRSPEED] != flight.log_as_gen;
		flight.log_as_gen = flight.gen[SENSOR_AIRSPEED];
		struct df_arsp a = { .t_us = as.t_us, .airspeed_m_s = pitot_eas(as.diff_pressure_pa),
				     .diff_press_pa = as.diff_pressure_pa,
				     .temp_cdegc = sat16f(as.temp_c * 100.0f),
				     .raw_press_pa = as.diff_pressure_pa,
				     .use = flight.est_cfg.use_airspeed, .healthy = fresh,
				     .health_prob = fresh ? 1.0f : 0.0f,
				     .test_ratio = iv[ESTIM_TAS].test_ratio };
		log_write_arsp(lp, &a);
	}
	if (flight.mag_seen) {
		bool fresh = flight.gen[SENSOR_MAG] != flight.log_mag_gen;
		flight.log_mag_gen = flight.gen[SENSOR_MAG];
		struct df_mag m = { .t_us = flight.mag.t_us, .mag_x_mga = sat16f(flight.mag.field_ut[0] * 10.0f),
				    .mag_y_mga = sat16f(flight.mag.field_ut[1] * 10.0f),
				    .mag_z_mga = sat16f(flight.mag.field_ut[2] * 10.0f),
				    .healthy = fresh, .sample_us = (uint32_t)flight.mag.t_us };
		log_write_mag(lp, &m);
	}
	if (flight.po.nav_active) {
		const struct tecs *t = &flight.plane.nav.tecs;
		struct df_tecs tc = { .t_us = now_us, .h_m = flight.vs.alt_rel_m, .dh_m_s = -flight.vs.vel_ned_m_s[2],
				      .h_dem_m = t->hgt_dem_adj, .dh_dem_m_s = t->hgt_rate_dem,
				      .spd_dem_m_s = t->tas_dem_adj, .spd_m_s = t->tas_state,
				      .dspd_m_s2 = t->vel_dot, .integ_thr = t->integ_thr,
				      .integ_pitch = t->integ_seb, .thr = t->throttle_dem,
				      .pitch_dem_rad = t->pitch_dem_rad, .dspd_dem_m_s2 = t->tas_rate_dem,
				      .spd_weight = t->last_stage == TECS_STAGE_TAKEOFF ? 2.0f :
						    flight.pp.nav.tecs.tecs_spdweight,
				      .flags = (uint8_t)((t->underspeed ? TECS_F_UNDERSPEED : 0u) |
							 (t->last_stage == TECS_STAGE_LAND_APPROACH ||
							  t->last_stage == TECS_STAGE_LAND_FLARE ?
							  TECS_F_AUTO_LANDING : 0u)) };
		log_write_tecs(lp, &tc);
	}
	struct df_vibe v = { .t_us = now_us, .clip = flight.vibe.clipped };
	float lv[3];
	if (vibe_get(&flight.vibe, lv)) {
		v.vibe_x_m_s2 = lv[0];
		v.vibe_y_m_s2 = lv[1];
		v.vibe_z_m_s2 = lv[2];
		log_write_vibe(lp, &v);
	}
	if (now_us >= flight.log_next1_us) {
		flight.log_next1_us = now_us - now_us % 1000000u + 1000000u;
		/* No fulmar board wires its 5 V or servo rail to an ADC: not measured,
		 * NaN (not a 0 V that reads as a brown-out); no flags, no safety switch. */
		struct df_powr pw = { .t_us = now_us, .vcc_v = NAN, .vservo_v = NAN };
		log_write_powr(lp, &pw);
	}
}

/* The main loop's records, at ArduPlane's usual rates (25 Hz attitude and tuning, 10 Hz position). */
static void flight_records_write(uint64_t now_us)
{
	struct log_producer *lp = flightlog_main();
	if (!lp)
		return;
	/* Rates by the clock, whatever the loop's rate: the first loop at or past each tick. */
	bool at25 = now_us >= flight.log_next25_us, at10 = now_us >= flight.log_next10_us;
	/* Overloaded: the periodic records wait for a loop with the time. */
	bool timed = (at25 || at10) && sched_work_begin(flight.sched, &flight.log_work);
	at25 = at25 && timed;
	at10 = at10 && timed;
	if (at25)
		flight.log_next25_us = now_us - now_us % 40000u + 40000u;
	if (at10)
		flight.log_next10_us = now_us - now_us % 100000u + 100000u;
	const struct vehicle_state *vs = &flight.vs;
	const struct plane_output *po = &flight.po;
	if (at25) {
		struct df_att a = { .t_us = now_us, .des_roll_cdeg = cdeg(po->roll_dem_rad),
				    .roll_cdeg = cdeg(vs->roll_rad), .des_pitch_cdeg = cdeg(po->pitch_dem_rad),
				    .pitch_cdeg = cdeg(vs->pitch_rad), .yaw_cdeg = cdeg360(vs->yaw_rad),
				    .des_yaw_cdeg = cdeg360(po->nav.nav_bearing_rad) };
		log_write_att(lp, &a);
		struct df_ctun c = { .t_us = now_us, .nav_roll_cdeg = cdeg(po->roll_dem_rad),
				     .roll_cdeg = cdeg(vs->roll_rad), .nav_pitch_cdeg = cdeg(po->pitch_dem_rad),
				     .pitch_cdeg = cdeg(vs->pitch_rad),
				     .throttle_out_pct = (int16_t)lroundf(po->throttle * 100.0f),
				     .throttle_dem_pct = (int16_t)lroundf(po->nav.throttle * 100.0f),
				     .airspeed_m_s = vs->airspeed_m_s, .sensor_airspeed_m_s = NAN,
				     .eas2tas = 1.0f };
		log_write_ctun(lp, &c);
		if (po->nav_active) {
			struct df_ntun t = { .t_us = now_us, .wp_dist_m = po->nav.wp_dist_m,
					     .target_bearing_cdeg = cdeg(po->nav.target_bearing_rad),
					     .nav_bearing_cdeg = cdeg(po->nav.nav_bearing_rad),
					     .alt_err_cm = (int16_t)lroundf(po->nav.alt_error_m * 100.0f),
					     .xtrack_m = po->nav.xtrack_m,
					     .airspeed_err_m_s = po->nav.aspd_error_m_s };
			log_write_ntun(lp, &t);
		}
		struct df_imu im = { .t_us = flight.imu.t_us, .gyr_x_rad_s = flight.imu.gyro_rad_s[0],
				     .gyr_y_rad_s = flight.imu.gyro_rad_s[1], .gyr_z_rad_s = flight.imu.gyro_rad_s[2],
				     .acc_x_m_s2 = flight.imu.accel_m_s2[0], .acc_y_m_s2 = flight.imu.accel_m_s2[1],
				     .acc_z_m_s2 = flight.imu.accel_m_s2[2], .temp_degc = flight.imu.temp_c,
				     .gyro_healthy = 1, .accel_healthy = 1 };
		log_write_imu(lp, &im);
		struct estim_status st;
		estim_get_status(&flight.est, &st);
		float ned[3] = { NAN, NAN, NAN };
		if (vs->valid & VEHICLE_POSITION_VALID)
			estim_wgs84_to_ned(&flight.est, vs->lat_deg, vs->lon_deg, vs->alt_msl_m, ned);
		const float cds = 5729.578f;    /* rad/s to cdeg/s */
		struct df_xkf1 x1 = { .t_us = now_us, .roll_cdeg = a.roll_cdeg, .pitch_cdeg = a.pitch_cdeg,
				      .yaw_cdeg = a.yaw_cdeg, .vel_n_m_s = vs->vel_ned_m_s[0],
				      .vel_e_m_s = vs->vel_ned_m_s[1], .vel_d_m_s = vs->vel_ned_m_s[2],
				      .dpos_d_m_s = vs->vel_ned_m_s[2], .pos_n_m = ned[0],
				      .pos_e_m = ned[1], .pos_d_m = ned[2],
				      .gyro_bias_x_cdeg_s = sat16f(st.gyro_bias_rad_s[0] * cds),
				      .gyro_bias_y_cdeg_s = sat16f(st.gyro_bias_rad_s[1] * cds),
				      .gyro_bias_z_cdeg_s = sat16f(st.gyro_bias_rad_s[2] * cds),
				      .origin_hgt_cm = flight.est.origin_set ?
						       (int32_t)lround(flight.est.origin_alt_m * 100.0) : 0 };
		log_write_xkf1(lp, &x1);
	}
	if (at10) {
		struct df_pos ps = { .t_us = now_us, .lat_1e7 = (int32_t)lround(vs->lat_deg * 1e7),
				     .lng_1e7 = (int32_t)lround(vs->lon_deg * 1e7),
				     .alt_msl_m = vs->alt_msl_m, .rel_home_alt_m = vs->alt_rel_m,
				     .rel_origin_alt_m = vs->alt_rel_m };
		log_write_pos(lp, &ps);
		struct df_rc rcou = { .t_us = now_us }, rcin = { .t_us = now_us };
		for (unsigned int i = 0; i < DF_RC_CHANNELS && i < SERVO_CHANNELS; i++)
			rcou.ch_us[i] = po->pwm_us[i];
		for (unsigned int i = 0; i < DF_RC_CHANNELS && i < flight.rc.channel_count; i++)
			rcin.ch_us[i] = flight.rc.channels_us[i];
		log_write_rcou(lp, &rcou);
		if (flight.rc_seen)
			log_write_rcin(lp, &rcin);
		if (flight.gen[SENSOR_BATTERY]) {
			struct df_bat b = { .t_us = now_us, .volt_v = flight.batt.voltage_v,
					    .curr_a = flight.batt.current_a, .used_mah = flight.batt.consumed_mah,
					    .healthy = 1 };
			log_write_bat(lp, &b);
		}
		struct estim_status st;
		estim_get_status(&flight.est, &st);
		const struct estim_innov *iv = st.innov;
		struct df_xkf3 x3 = {
			.t_us = now_us,
			.ivn_cm_s = (int16_t)lroundf(iv[ESTIM_GPS_VEL].innov[0] * 100.0f),
			.ive_cm_s = (int16_t)lroundf(iv[ESTIM_GPS_VEL].innov[1] * 100.0f),
			.ivd_cm_s = (int16_t)lroundf(iv[ESTIM_GPS_VEL].innov[2] * 100.0f),
			.ipn_cm = (int16_t)lroundf(iv[ESTIM_GPS_POS].innov[0] * 100.0f),
			.ipe_cm = (int16_t)lroundf(iv[ESTIM_GPS_POS].innov[1] * 100.0f),
			.ipd_cm = (int16_t)lroundf(iv[ESTIM_BARO].innov[0] * 100.0f),
			.imx_mga = (int16_t)lroundf(iv[ESTIM_MAG].innov[0] * 1000.0f),
			.imy_mga = (int16_t)lroundf(iv[ESTIM_MAG].innov[1] * 1000.0f),
			.imz_mga = (int16_t)lroundf(iv[ESTIM_MAG].innov[2] * 1000.0f),
			.ivt_cm_s = (int16_t)lroundf(iv[ESTIM_TAS].innov[0] * 100.0f),
			.rerr = NAN,
		};
		log_write_xkf3(lp, &x3);
		struct df_xkf4 x4 = {
			.t_us = now_us,
			.sv_x100 = (int16_t)lroundf(fminf(iv[ESTIM_GPS_VEL].test_ratio, 300.0f) * 100.0f),
			.sp_x100 = (int16_t)lroundf(fminf(iv[ESTIM_GPS_POS].test_ratio, 300.0f) * 100.0f),
			.sh_x100 = (int16_t)lroundf(fminf(iv[ESTIM_BARO].test_ratio, 300.0f) * 100.0f),
			.sm_x100 = (int16_t)lroundf(fminf(iv[ESTIM_MAG].test_ratio, 300.0f) * 100.0f),
			.svt_x100 = (int16_t)lroundf(fminf(iv[ESTIM_TAS].test_ratio, 300.0f) * 100.0f),
			.err_rp = st.tilt_sigma_rad, .solution = st.health, .primary = 0,
		};
		log_write_xkf4(lp, &x4);
		write_log_10hz(lp, now_us, &st);
	}
	if (timed)
		sched_work_end(flight.sched, &flight.log_work);
	uint32_t g = flight.gen[SENSOR_GPS];
	if (g != flight.log_gps_gen) {
		flight.log_gps_gen = g;
		const struct gps_fix *f = &flight.gps;
		struct df_gps r = { .t_us = f->t_us, .status = f->fix == GPS_FIX_3D ? 3 :
							     f->fix == GPS_FIX_2D ? 2 : 1,
				    .num_sats = f->num_sv, .lat_1e7 = (int32_t)lround(f->lat_deg * 1e7),
				    .lng_1e7 = (int32_t)lround(f->lon_deg * 1e7),
				    .alt_msl_cm = (int32_t)lroundf(f->alt_msl_m * 100.0f),
				    .ground_speed_m_s = f->ground_speed_m_s, .course_deg = f->course_deg,
				    .vel_down_m_s = f->vel_ned_m_s[2], .yaw_deg = NAN };
		log_write_gps(lp, &r);
	}
	if (at10 && flight.gen[SENSOR_BARO] != flight.log_baro_gen) {
		flight.log_baro_gen = flight.gen[SENSOR_BARO];
		struct baro_sample b;
		if (sensors_latest(flight.hub, SENSOR_BARO, &b)) {
			struct df_baro r = { .t_us = b.t_us, .alt_m = flight.vs.alt_rel_m,
					     .alt_amsl_m = flight.vs.alt_msl_m, .press_pa = b.pressure_pa,
					     .temp_cdegc = (int16_t)lroundf(b.temp_c * 100.0f),
					     .sample_ms = (uint32_t)(b.t_us / 1000), .healthy = 1 };
			log_write_baro(lp, &r);
		}
	}
	log_origins(lp, now_us);
}

static uint16_t u16_sat(uint64_t v)
{
	return v > UINT16_MAX ? UINT16_MAX : (uint16_t)v;
}

/*
 * PM every 10 s: the main loop's timing since the last PM, as ArduPilot's
 * performance records, from the figures the timing report gives
 * (scheduler.h): NLon is the report's >1.5x count, Load its load; MaxT is the
 * longest loop so far, the report's max, as the scheduler keeps no
 * per-period maximum.
 */
static void flight_records_pm(uint64_t now_us)
{
	struct log_producer *lp = flightlog_main();
	if (!lp || !flight.sched || now_us - flight.pm_last_us < 10000000u)
		return;
	struct sched_figures f;
	sched_figures_read(flight.sched, SCHED_MAIN, &f);
	uint64_t period_ns = flight.sched->th[SCHED_MAIN].period_ns;
	uint64_t n = f.loops - flight.pm_prev.loops;
	struct df_pm pm = {
		.t_us = now_us,
		.loop_rate_hz = (uint16_t)(period_ns ? 1000000000u / period_ns : 0),
		.n_long = u16_sat(f.overruns_1_5x - flight.pm_prev.overruns_1_5x),
		.n_loop = u16_sat(n),
		.max_t_us = (uint32_t)(f.run_max_ns / 1000u),
		.avg_t_us = (uint32_t)(n ? (f.run_sum_ns - flight.pm_prev.run_sum_ns) / n / 1000u : 0),
		.log_drop = (uint32_t)lp->drops_reported,
		.load_permille = u16_sat(sched_load_permille(flight.sched, SCHED_MAIN, &flight.pm_prev, &f)),
	};
	log_write_pm(lp, &pm);
	flight.pm_last_us = now_us;
	flight.pm_prev = f;
}

int flight_add_work(struct sched *s)
{
	flight.sched = s;
	/*
	 * Budgets from the demo flight in real-time HIL on a 2-core VM (the timing
	 * report's "optional" lines): navigation's runs take some 10-40 us, a
	 * tick's records 10-40 us. Navigation runs at 50 Hz at the least, as
	 * ArduPlane's speed and height control; the records at 10 Hz.
	 */
	flight.nav_work = (struct sched_work){ .name = "navigation", .thread = SCHED_MAIN,
					       .shed = SCHED_SHED_LAST, .budget_us = 100,
					       .max_defer_us = 20000 };
	flight.log_work = (struct sched_work){ .name = "log records", .thread = SCHED_MAIN,
					       .shed = SCHED_SHED_FIRST, .budget_us = 150,
					       .max_defer_us = 100000 };
	int rc = sched_add_work(s, &flight.nav_work);
	return rc ? rc : sched_add_work(s, &flight.log_work);
}

void flight_test_burn(uint32_t us, uint64_t from_us, uint64_t to_us)
{
	if (flight.n_burn == FLIGHT_TEST_BURNS)
		return;
	flight.burn[flight.n_burn].us = us;
	flight.burn[flight.n_burn].from_us = from_us;
	flight.burn[flight.n_burn].to_us = to_us;
	flight.n_burn++;
}

/* The test fault: us of CPU in the flight core, as a slow sensor driver would take. */
static void burn(uint32_t us)
{
	uint64_t end = clock_mono_ns() + (uint64_t)us * 1000u;
	while (clock_mono_ns() < end)
		;
}

/*
 * An overload said once, to the pilot and the log, judged over windows of a
 * second: it begins in a window in which the main thread shed work in 10
 * loops or more (a lone slow loop is counted, not announced) and is over
 * after two whole windows without shedding. The counts are in the timing
 * report.
 */
#define SHED_WINDOW_US 1000000u
#define SHED_LOOPS_SAID 10u
static void say_shedding(uint64_t now_us)
{
	if (!flight.sched)
		return;
	if (!flight.shed_window_us)
		flight.shed_window_us = now_us;
	if (now_us - flight.shed_window_us < SHED_WINDOW_US)
		return;
	struct sched_figures f;
	sched_figures_read(flight.sched, SCHED_MAIN, &f);
	uint64_t n = f.shed_loops - flight.shed_seen;
	flight.shed_seen = f.shed_loops;
	flight.shed_window_us = now_us;
	char text[48];   /* a STATUSTEXT holds 50 */
	if (!flight.overloaded && n >= SHED_LOOPS_SAID) {
		flight.overloaded = true;
		flight.shed_from = f.shed_loops - n;
		flight.shed_quiet = 0;
		snprintf(text, sizeof(text), "Main loop overloaded: shedding logs, streams");
	} else if (flight.overloaded && n == 0 && ++flight.shed_quiet == 2) {
		flight.overloaded = false;
		snprintf(text, sizeof(text), "Main loop recovered: shed in %llu loops",
			 (unsigned long long)(f.shed_loops - flight.shed_from));
	} else {
		if (n)
			flight.shed_quiet = 0;
		return;
	}
	gcs_text(flight.gcs, GCS_SEV_WARNING, "%s", text);
	log_info("%.3f s: %s", (double)flight.say_us * 1e-6, text);
	if (flightlog_main())
		flight_records_text(flightlog_main(), now_us, text);
}

/* The mission as it is armed with: CMD records, so the log shows what was flown. */
static void flight_records_mission(uint64_t now_us)
{
	struct log_producer *lp = flightlog_main();
	for (uint16_t i = 0; lp && i < flight.mission->count; i++) {
		const struct mission_item *it = &flight.mission->items[i];
		struct df_cmd c = { .t_us = now_us, .total = flight.mission->count, .seq = i,
				    .command = it->command, .param1 = it->param1, .param2 = it->param2,
				    .param3 = it->param3, .param4 = it->param4, .lat_1e7 = it->x,
				    .lng_1e7 = it->y, .alt_m = it->z, .frame = it->frame };
		log_write_cmd(lp, &c);
	}
}

void flight_task(void *ctx, uint64_t now_us)
{
	(void)ctx;
	/* Time is the samples' clock: CLOCK_MONOTONIC on a board, the simulator's
	 * in lock-step, and in real-time HIL the simulator's mapped onto ours
	 * (sensors_now), so that the RC's and the sensors' freshness is judged on
	 * the clock they are stamped on, whatever the simulator's pace. The lines
	 * the log says carry the source's time (the simulator's last step, in HIL). */
	uint64_t mono_us = now_us;
	sensors_now(flight.hub, mono_us, &now_us, &flight.say_us);
	if (now_us < flight.last_us)
		now_us = flight.last_us;
	/* A ground station's heartbeats are wall-clock events, stamped on the
	 * scheduler's clock (CLOCK_MONOTONIC in real time): moved onto the
	 * samples' clock, so that their age is the wall clock's whatever the
	 * simulator's pace. */
	uint64_t gcs_hb_us = flight.gcs->gcs_heartbeat_us;
	if (gcs_hb_us) {
		int64_t hb = (int64_t)gcs_hb_us + ((int64_t)now_us - (int64_t)mono_us);
		gcs_hb_us = hb < 1 ? 1 : hb > (int64_t)now_us ? now_us : (uint64_t)hb;
	}
	float dt = flight.last_us ? (float)(now_us - flight.last_us) * 1e-6f : 0.0f;
	flight.last_us = now_us;
	if (dt <= 0.0f || dt > 0.1f)
		dt = 0.0025f;
	for (unsigned int i = 0; i < flight.n_burn; i++)
		if (flight.say_us >= flight.burn[i].from_us && flight.say_us < flight.burn[i].to_us)
			burn(flight.burn[i].us);
	/* A parameter changed (a ground station's PARAM_SET): the new values from the next step. */
	if (param_generation() != flight.param_gen) {
		flight.param_gen = param_generation();
		flight_params_load(&flight.pp);
	}
	feed_estimator();
	take_declination(now_us);
	estim_get_state(&flight.est, &flight.vs);
	tell_estimator_changes();
	bool converged = estim_is_converged(&flight.est);
	/* The home altitude is the estimate's; its alt_rel is then ours to fill. */
	bool pos = flight.vs.valid & VEHICLE_POSITION_VALID;
	if (!flight.home_set && pos && aloft() && mission_has_home())
		keep_mission_home();
	if (!flight.home_set && converged && pos)
		set_home_here();
	if (flight.vehicle->armed && !flight.was_armed && pos && !aloft())
		set_home_here();
	flight.was_armed = flight.vehicle->armed;
	if (flight.home_set)
		flight.vs.alt_rel_m = flight.vs.alt_msl_m - flight.mission->items[0].z;

	flight.vehicle->home_set = flight.home_set;
	vehicle_update(flight.vehicle, flight.vs.valid, flight.mission->count);
	struct plane_input in = {
		.now_us = now_us, .dt_s = dt, .vs = flight.vs, .estimator_converged = converged,
		.rc = flight.rc, .rc_seen = flight.rc_seen, .gcs_heartbeat_us = gcs_hb_us,
		.gps_fix = flight.gps.fix == GPS_FIX_3D,
		.batt_voltage_v = flight.batt.voltage_v, .batt_used_mah = flight.batt.consumed_mah,
		.mission = flight.mission, .fence = flight.gcs->fence, .rally = flight.gcs->rally,
		.home_set = flight.home_set,
		.home = { flight.mission->items[0].x * 1e-7, flight.mission->items[0].y * 1e-7, 0.0f },
		.home_alt_msl_m = flight.mission->items[0].z,
	};
	memcpy(in.accel_body_m_s2, flight.imu.accel_m_s2, sizeof(in.accel_body_m_s2));
	compass_for_prearm(&in);
	bool nav = plane_mode_navigates(flight.vehicle->mode);
	in.nav_deferred = nav && !sched_work_begin(flight.sched, &flight.nav_work);
	plane_step(&flight.plane, &flight.pp, &in, &flight.po);
	if (nav && !in.nav_deferred)
		sched_work_end(flight.sched, &flight.nav_work);
	if (flight.po.text) {
		gcs_text(flight.gcs, flight.po.text_severity <= 2 ? GCS_SEV_CRITICAL :
				     flight.po.text_severity <= 4 ? GCS_SEV_WARNING : GCS_SEV_INFO,
			 "%s", flight.po.text);
		log_info("%.3f s: %s", (double)flight.say_us * 1e-6, flight.po.text);
		if (flightlog_main())
			flight_records_text(flightlog_main(), now_us, flight.po.text);
	}
	if (flight.po.fence_event && flightlog_main()) {
		/* ArduPilot's ERR: subsystem FAILSAFE_FENCE, the types breached (0: cleared). */
		struct df_err e = { .t_us = now_us, .subsys = LOG_ERR_FAILSAFE_FENCE,
				    .code = flight.po.fence_code };
		log_write_err(flightlog_main(), &e);
	}
	if (flight.po.mode_changed || flight.vehicle->mode != flight.mode_said) {
		flight.mode_said = flight.vehicle->mode;
		log_info("%.3f s: mode %s", (double)flight.say_us * 1e-6, vehicle_mode_name(flight.vehicle->mode));
		struct df_mode m = { .t_us = now_us, .mode = (uint8_t)flight.vehicle->mode,
				     .mode_num = (uint8_t)flight.vehicle->mode };
		if (flightlog_main())
			log_write_mode(flightlog_main(), &m);
	}
	if (flight.vehicle->armed != flight.armed_said) {
		flight.armed_said = flight.vehicle->armed;
		log_info("%.3f s: %s", (double)flight.say_us * 1e-6, flight.armed_said ? "armed" : "disarmed");
		flightlog_set_armed(flight.armed_said);
		struct df_ev ev = { .t_us = now_us, .id = flight.armed_said ? LOG_EV_ARMED : LOG_EV_DISARMED };
		if (flightlog_main()) {
			log_write_ev(flightlog_main(), &ev);
			if (flight.armed_said) {
				/* Each file shows the mode flown from its start, and the mission. */
				struct df_mode m = { .t_us = now_us, .mode = (uint8_t)flight.vehicle->mode,
						     .mode_num = (uint8_t)flight.vehicle->mode };
				log_write_mode(flightlog_main(), &m);
				flight_records_mission(now_us);
			}
		}
	}
	if (flight.po.disarmed_after_landing && flightlog_main()) {
		struct df_ev ev = { .t_us = now_us, .id = LOG_EV_LAND_COMPLETE };
		log_write_ev(flightlog_main(), &ev);
	}
	if (flight.po.reached) {
		gcs_mission_reached(flight.gcs, flight.po.reached_seq);
		gcs_text(flight.gcs, GCS_SEV_INFO, "Reached waypoint #%u", flight.po.reached_seq);
		log_info("%.3f s: reached waypoint #%u", (double)flight.say_us * 1e-6, flight.po.reached_seq);
	}
	if (flight.vehicle->mode == PLANE_AUTO && flight.plane.mexec.phase == MEXEC_FLYING)
		flight.mission->current = flight.plane.mexec.current;
	atomic_store_explicit(&flight.armed, flight.vehicle->armed, memory_order_relaxed);
	flight_records_write(now_us);
	flight_records_pm(now_us);
	say_shedding(now_us);
	if (!flight.out)
		return;
	for (unsigned int ch = 0; ch < SERVO_CHANNELS && ch < rcout_channels(flight.out); ch++) {
		int rc = rcout_write(flight.out, ch, flight.po.pwm_us[ch]);
		if (rc && flight.out_errors++ == 0)
			log_err("servo output %u: %d (counting from now on)", ch + 1, rc);
	}
}

void flight_fill_gcs(struct gcs_inputs *in)
{
	in->state = flight.vs;
	struct estim_ekf_report rep;
	estim_get_ekf_report(&flight.est, &rep);
	struct estim_status st;
	estim_get_status(&flight.est, &st);
	in->estimator.present = true;
	in->estimator.ekf_flags = rep.flags;
	in->estimator.velocity_variance = rep.velocity_variance;
	in->estimator.pos_horiz_variance = rep.pos_horiz_variance;
	in->estimator.pos_vert_variance = rep.pos_vert_variance;
	in->estimator.compass_variance = rep.compass_variance;
	in->estimator.terrain_alt_variance = rep.terrain_alt_variance;
	in->estimator.airspeed_variance = rep.airspeed_variance;
	in->estimator.pos_horiz_accuracy_m = st.pos_sigma_m;
	in->estimator.pos_vert_accuracy_m = st.hgt_sigma_m;
	in->estimator.local_valid = estim_wgs84_to_ned(&flight.est, flight.vs.lat_deg, flight.vs.lon_deg,
						       flight.vs.alt_msl_m, in->estimator.local_ned_m) == 0;
	memcpy(in->estimator.gyro_bias_rad_s, st.gyro_bias_rad_s, sizeof(st.gyro_bias_rad_s));
	in->estimator.tilt_sigma_rad = st.tilt_sigma_rad;
	in->estimator.yaw_sigma_rad = st.yaw_sigma_rad;
	float q[4], pos[3];
	uint64_t t_delayed;
	in->estimator.delayed_valid = estim_get_delayed(&flight.est, q, pos, &t_delayed);
	in->estimator.delayed_pos_valid = false;
	if (in->estimator.delayed_valid) {
		float *e = in->estimator.delayed_rpy_rad;
		em_quat_to_euler(q, &e[0], &e[1], &e[2]);
		double lat, lon;
		float alt;
		if ((flight.vs.valid & VEHICLE_POSITION_VALID) &&
		    estim_ned_to_wgs84(&flight.est, pos, &lat, &lon, &alt) == 0) {
			in->estimator.delayed_pos_valid = true;
			in->estimator.delayed_lat_e7 = (int32_t)lround(lat * 1e7);
			in->estimator.delayed_lon_e7 = (int32_t)lround(lon * 1e7);
			in->estimator.delayed_alt_msl_m = alt;
		}
	}
	in->vibe.valid = vibe_get(&flight.vibe, in->vibe.level_m_s2);
	in->vibe.clipped = flight.vibe.clipped;
	/* Where navigation flies, above sea level (home's altitude under the height above it). */
	struct nav_wp tgt;
	in->target.valid = flight.po.nav_active && (flight.vs.valid & VEHICLE_ALTITUDE_VALID) &&
			   nav_target(&flight.plane.nav, &tgt);
	if (in->target.valid) {
		in->target.lat_e7 = (int32_t)lround(tgt.lat_deg * 1e7);
		in->target.lon_e7 = (int32_t)lround(tgt.lon_deg * 1e7);
		in->target.alt_msl_m = tgt.alt_rel_m + (flight.vs.alt_msl_m - flight.vs.alt_rel_m);
	}
	if (flight.imu_taken) {
		in->imu.t_us = flight.imu.t_us;
		memcpy(in->imu.accel_m_s2, flight.imu.accel_m_s2, sizeof(in->imu.accel_m_s2));
		memcpy(in->imu.gyro_rad_s, flight.imu.gyro_rad_s, sizeof(in->imu.gyro_rad_s));
		in->imu.temp_c = flight.imu.temp_c;
	}
	struct mag_sample mag;
	in->imu.mag_ut[0] = in->imu.mag_ut[1] = in->imu.mag_ut[2] = NAN;
	if (sensors_latest(flight.hub, SENSOR_MAG, &mag))
		memcpy(in->imu.mag_ut, mag.field_ut, sizeof(in->imu.mag_ut));
	struct baro_sample baro;
	if (sensors_latest(flight.hub, SENSOR_BARO, &baro)) {
		in->baro.t_us = baro.t_us;
		in->baro.pressure_pa = baro.pressure_pa;
		in->baro.temp_c = baro.temp_c;
	}
	struct airspeed_sample as;
	in->baro.diff_pressure_pa = sensors_latest(flight.hub, SENSOR_AIRSPEED, &as) ?
				    as.diff_pressure_pa : NAN;
	const struct gps_fix *g = &flight.gps;
	if (flight.gen[SENSOR_GPS]) {
		in->gps.present = true;
		in->gps.fix_type = g->fix == GPS_FIX_3D ? 3 : g->fix == GPS_FIX_2D ? 2 : 1;
		in->gps.lat_e7 = (int32_t)lround(g->lat_deg * 1e7);
		in->gps.lon_e7 = (int32_t)lround(g->lon_deg * 1e7);
		in->gps.alt_mm = (int32_t)lroundf(g->alt_msl_m * 1000.0f);
		in->gps.eph_cm = isfinite(g->h_acc_m) ? (uint16_t)fminf(g->h_acc_m * 100.0f, 65534.0f) :
							UINT16_MAX;
		in->gps.epv_cm = isfinite(g->v_acc_m) ? (uint16_t)fminf(g->v_acc_m * 100.0f, 65534.0f) :
							UINT16_MAX;
		in->gps.vel_cm_s = (uint16_t)fminf(g->ground_speed_m_s * 100.0f, 65534.0f);
		in->gps.cog_cdeg = isfinite(g->course_deg) ? (uint16_t)(g->course_deg * 100.0f) :
							     UINT16_MAX;
		in->gps.satellites = g->num_sv;
	}
	if (flight.gen[SENSOR_BATTERY]) {
		in->battery.present = true;
		in->battery.voltage_v = flight.batt.voltage_v;
		in->battery.current_a = flight.batt.current_a;
		in->battery.consumed_mah = flight.batt.consumed_mah;
		in->battery.remaining_pct = -1;
	}
	if (flight.rc_seen) {
		in->rc.count = flight.rc.channel_count;
		memcpy(in->rc.us, flight.rc.channels_us, sizeof(in->rc.us));
		in->rc.rssi = 255;
	}
	if (flight.out) {
		unsigned int n = rcout_channels(flight.out);
		in->servo.count = (uint8_t)(n > 16 ? 16 : n);
		for (unsigned int ch = 0; ch < in->servo.count; ch++)
			rcout_read(flight.out, ch, &in->servo.us[ch]);
	}
	const struct nav_output *n = &flight.po.nav;
	in->nav.active = flight.po.nav_active;
	in->nav.nav_roll_deg = flight.po.roll_dem_rad * 57.29578f;
	in->nav.nav_pitch_deg = flight.po.pitch_dem_rad * 57.29578f;
	in->nav.nav_bearing_deg = (int16_t)lroundf(n->nav_bearing_rad * 57.29578f);
	in->nav.target_bearing_deg = (int16_t)lroundf(n->target_bearing_rad * 57.29578f);
	in->nav.wp_dist_m = (uint16_t)fminf(fmaxf(n->wp_dist_m, 0.0f), 65535.0f);
	in->nav.alt_error_m = n->alt_error_m;
	in->nav.aspd_error_m_s = n->aspd_error_m_s;
	in->nav.xtrack_error_m = n->xtrack_m;
	const struct plane_fence *f = &flight.plane.fence;
	in->fence.enabled = flight.pp.fence.fence_enable != 0.0f;
	in->fence.breaches = f->breaches;
	in->fence.breach_type = f->breach_type;
	in->fence.breach_count = f->breach_count;
	in->fence.breach_time_ms = (uint32_t)(f->breach_us / 1000u);
}
