// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The flight task (flight.h): the samples into the estimator, home, the plane's
 * step and what it says, the outputs, an overload said. Its log records are in
 * flight_records.c, what the ground station is told in flight_gcs.c.
 */
#define LOG_TAG "flight"
#include "daemon/flight_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "daemon/copter_params.h"
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

FLIGHT_SHARED struct flight flight;

static bool copter(void)
{
	return flight.vehicle->kind == VEHICLE_COPTER;
}

/* The outputs' parameters as the pulses were mixed: a copter's motor channels
 * span MOT_PWM_MIN..MAX (ArduCopter's ESC range, whatever SERVOn_MIN/MAX
 * say), so that the HIL link normalises a motor's pulse over that. */
static void motor_ranges(struct servo_params *s, const struct copter_motors_params *m)
{
	bool set = m->mot_pwm_min > 0.0f && m->mot_pwm_min < m->mot_pwm_max;
	float lo = set ? m->mot_pwm_min : 1000.0f, hi = set ? m->mot_pwm_max : 2000.0f;
	for (unsigned int ch = 0; ch < SERVO_CHANNELS; ch++)
		if (copter_motor_of_servo_function((int)s->ch[ch].servo_function) >= 0) {
			s->ch[ch].servo_min = s->ch[ch].servo_trim = lo;
			s->ch[ch].servo_max = hi;
		}
}

/*
 * ArduCopter's RC_SPEED: the motors' outputs' pulse rate, set while disarmed
 * (at start, and after a change), whatever board backs the outputs; one
 * that cannot says so, once for each value asked.
 */
static void motor_rate(void)
{
	if (!copter() || !flight.out || flight.vehicle->armed)
		return;
	float want = flight.cp.rc_speed;
	uint16_t hz = want >= 50.0f && want <= 490.0f ? (uint16_t)lroundf(want) : 490;
	if (hz == flight.motor_rate_hz)
		return;
	flight.motor_rate_hz = hz;
	uint32_t mask = 0;
	for (unsigned int ch = 0; ch < SERVO_CHANNELS && ch < rcout_channels(flight.out); ch++)
		if (copter_motor_of_servo_function((int)flight.out_servo.ch[ch].servo_function) >= 0)
			mask |= 1u << ch;
	if (!mask)
		return;
	int rc = rcout_set_rate(flight.out, mask, hz);
	if (rc) {
		log_err("RC_SPEED %u Hz: the servo outputs refused it (%s): the motors keep their rate",
			hz, strerror(-rc));
		gcs_text(flight.gcs, GCS_SEV_WARNING, "RC_SPEED %u Hz refused: %s", hz, strerror(-rc));
	} else {
		log_info("motor outputs (mask 0x%x) at RC_SPEED %u Hz", mask, hz);
	}
}

/* The flying vehicle's parameters from the table (at start and on every change). */
static void load_params(void)
{
	unsigned int missing;
	if (copter()) {
		copter_params_default(&flight.cp);
		missing = copter_params_load(&flight.cp);
		flight.out_servo = flight.cp.servo;
		motor_ranges(&flight.out_servo, &flight.cp.mot);
	} else {
		plane_params_default(&flight.pp);
		missing = flight_params_load(&flight.pp);
		flight.out_servo = flight.pp.servo;
	}
	if (missing)
		log_err("parameters missing from the table: the flight code's defaults stand");
	flight.rng_p = (struct rangefinder_params){
		.type = (int)param_get_by_name("RNGFND1_TYPE"),
		.min_m = param_get_by_name("RNGFND1_MIN_CM") * 0.01f,
		.max_m = param_get_by_name("RNGFND1_MAX_CM") * 0.01f,
		.gndclear_m = param_get_by_name("RNGFND1_GNDCLEAR") * 0.01f,
		.orient = (int)param_get_by_name("RNGFND1_ORIENT"),
	};
}

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
	/* The airspeed sensor's health check (ArduPlane's ARSPD_*; a copter has no pitot to check). */
	if (!copter()) {
		flight.est_cfg.arsp_options = (uint32_t)param_get_by_name("ARSPD_OPTIONS");
		flight.est_cfg.arsp_wind_gate = param_get_by_name("ARSPD_WIND_GATE");
		flight.est_cfg.arsp_wind_max_m_s = param_get_by_name("ARSPD_WIND_MAX");
		flight.est_cfg.arsp_wind_warn_m_s = param_get_by_name("ARSPD_WIND_WARN");
	} else {
		flight.est_cfg.arsp_options = 0;
	}
	estim_init(&flight.est, &flight.est_cfg);
	vibe_init(&flight.vibe);
	rangefinder_init(&flight.rng);
	load_params();
	flight.param_gen = param_generation();
	if (copter())
		copter_init(&flight.copter, flight.vehicle);
	else
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
	return &flight.out_servo;
}

const struct estim *flight_estimator(void)
{
	return &flight.est;
}

const struct plane *flight_plane(void)
{
	return &flight.plane;
}

bool flight_rc_bad(void)
{
	return copter() ? flight.copter.rc_bad_since_us != 0 : flight.plane.rc_bad_since_us != 0;
}

bool flight_battery_failsafe(void)
{
	return copter() ? flight.copter.batt_fs : flight.plane.batt_fs;
}

float flight_copter_throttle(void)
{
	return copter() ? flight.copter.throttle_out : NAN;
}

/* The latest value of a kind if it is new since the last call (the copy is
 * made only then: most kinds are new in few of the 400 loops a second). */
static bool take(enum sensor_kind k, void *out)
{
	if (sensors_generation(flight.hub, k) == flight.gen[k])
		return false;
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

/* The compass for the pre-arm checks (vehicle_input's mag_*), milligauss. */
static void compass_for_prearm(struct vehicle_input *in)
{
	in->mag_seen = flight.mag_seen && !flight.vehicle->armed;
	if (in->mag_seen) {
		struct estim_status st;
		estim_get_status(&flight.est, &st);
		float b[3];
		for (int k = 0; k < 3; k++)
			b[k] = flight.mag.field_ut[k] * 10.0f - st.mag_body_gauss[k] * 1000.0f;
		/* body to NED by the attitude quaternion (w x y z) */
		float R[3][3];
		em_quat_to_dcm(flight.vs.q, R);
		memcpy(in->mag_body_mgauss, b, sizeof(b));
		em_mat_vec(R, b, in->mag_ned_mgauss);
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

/* The rangefinder's state from its latest reading and the estimate's
 * altitude (its stuck rule), said when it fails and when it is good again. */
static void update_rangefinder(uint64_t now_us)
{
	bool fresh = take(SENSOR_RANGE, &flight.rng_sample);
	float alt = (flight.vs.valid & VEHICLE_ALTITUDE_VALID) ? flight.vs.alt_msl_m : NAN;
	rangefinder_update(&flight.rng, &flight.rng_p, fresh ? &flight.rng_sample : NULL, alt,
			   now_us);
	const struct rangefinder_reading *r = rangefinder_get(&flight.rng);
	if (fresh)
		flight_records_rfnd(now_us);
	if (flight.rng_p.type == 0 || !flight.rng.have)
		return;
	bool bad = r->status == RANGEFINDER_NO_DATA || r->stuck;
	if (bad == flight.rng_said_bad)
		return;
	flight.rng_said_bad = bad;
	char text[50];   /* a STATUSTEXT holds 50 */
	snprintf(text, sizeof(text), "Rangefinder 1: %s", !bad ? "data again" :
		 r->stuck ? "stuck, not used" : "no data");
	gcs_text(flight.gcs, bad ? GCS_SEV_WARNING : GCS_SEV_INFO, "%s", text);
	if (flightlog_main())
		flight_records_text(flightlog_main(), now_us, text);
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
static void tell_estimator_changes(uint64_t now_us)
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
		{ ESTIM_H_BARO_FAULT, "EKF: baro rejected", "EKF: baro good again" },
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
					     said[i].bit != ESTIM_H_BARO_FAULT &&
					     said[i].bit != ESTIM_H_IMU_BAD && said[i].bit != ESTIM_H_IMU_FROZEN ?
				     GCS_SEV_INFO : GCS_SEV_WARNING, "%s", text);
		log_info("%.3f s: %s", (double)flight.say_us * 1e-6, text);
		if (flightlog_main())
			flight_records_text(flightlog_main(), now_us, text);
	}
}

/* The airspeed sensor's health check's verdicts (src/estim/estim_airspeed.c),
 * said as ArduPlane says them, to the ground station and the log (MSG). */
static void say_airspeed(uint64_t now_us, enum gcs_severity sev, const char *text)
{
	gcs_text(flight.gcs, sev, "%s", text);
	log_info("%.3f s: %s", (double)flight.say_us * 1e-6, text);
	if (flightlog_main())
		flight_records_text(flightlog_main(), now_us, text);
}

static void tell_airspeed_health(uint64_t now_us)
{
	struct estim_arsp_health a;
	estim_get_arsp(&flight.est, &a);
	char text[50];   /* a STATUSTEXT holds 50 */
	if (a.disables != flight.arsp_disables_said) {
		flight.arsp_disables_said = a.disables;
		say_airspeed(now_us, GCS_SEV_ERROR, "Airspeed sensor 1 failure. Disabling");
		log_info("%.3f s: airspeed check: health %.3f, test ratio %.1f, synthetic airspeed %.1f m/s, "
			 "ground speed difference %.1f m/s: flying on the synthetic airspeed",
			 (double)flight.say_us * 1e-6, (double)a.prob, (double)a.test_ratio,
			 (double)a.synthetic_m_s, (double)a.speed_diff_m_s);
	}
	if (a.enables != flight.arsp_enables_said) {
		flight.arsp_enables_said = a.enables;
		bool fallback = a.gps_fallbacks != flight.arsp_fallbacks_said;
		flight.arsp_fallbacks_said = a.gps_fallbacks;
		say_airspeed(now_us, GCS_SEV_NOTICE, fallback ? "Airspeed sensor 1, Re-enabled as GPS fall-back" :
							       "Airspeed sensor 1 now OK. Re-enabled");
	}
	if (a.warnings != flight.arsp_warnings_said) {
		flight.arsp_warnings_said = a.warnings;
		snprintf(text, sizeof(text), "Airspeed 1 warning %.1fm/s air to gnd speed diff",
			 (double)a.speed_diff_m_s);
		say_airspeed(now_us, GCS_SEV_WARNING, text);
	}
}

/* ArduPilot's EV ids for what we say. */
#define LOG_EV_ARMED 10
#define LOG_EV_DISARMED 11
#define LOG_EV_LAND_COMPLETE 18
/* ArduPilot's ERR subsystem for the fence (code: the types breached, 0 cleared). */
#define LOG_ERR_FAILSAFE_FENCE 9

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

/* What either vehicle's step said, field for field as its output names it. */
struct step_said {
	const uint16_t *pwm_us;
	bool mode_changed;
	const char *text;
	int text_severity;
	bool reached;
	uint16_t reached_seq;
	bool disarmed_after_landing;
	bool fence_event;
	uint8_t fence_code;
};
#define STEP_SAID(o)                                                                         \
	{ (o).pwm_us, (o).mode_changed, (o).text, (o).text_severity, (o).reached,            \
	  (o).reached_seq, (o).disarmed_after_landing, (o).fence_event, (o).fence_code }

/* DO_SET_HOME from the mission: home (mission item 0) moves there, its
 * height too (the heights flown after it are above the new home). */
static void move_home(struct nav_wp h, float alt_msl_m)
{
	struct mission *m = flight.mission;
	if (m->count == 0)
		m->count = 1;
	m->items[0].x = (int32_t)lround(h.lat_deg * 1e7);
	m->items[0].y = (int32_t)lround(h.lon_deg * 1e7);
	if (isfinite(alt_msl_m))
		m->items[0].z = alt_msl_m;
	gcs_text(flight.gcs, GCS_SEV_INFO, "Home set: %.6f %.6f %.0f m", h.lat_deg, h.lon_deg,
		 (double)m->items[0].z);
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
		load_params();
	}
	motor_rate();
	feed_estimator();
	take_declination(now_us);
	estim_get_state(&flight.est, &flight.vs);
	tell_estimator_changes(now_us);
	tell_airspeed_health(now_us);
	update_rangefinder(now_us);
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
	struct vehicle_input in = {
		.now_us = now_us, .dt_s = dt, .vs = flight.vs, .estimator_converged = converged,
		.imu_stuck = (flight.health & ESTIM_H_IMU_FROZEN) != 0,
		.rc = flight.rc, .rc_seen = flight.rc_seen, .gcs_heartbeat_us = gcs_hb_us,
		.gps_fix = flight.gps.fix == GPS_FIX_3D,
		.batt_voltage_v = flight.batt.voltage_v, .batt_used_mah = flight.batt.consumed_mah,
		.mission = flight.mission, .fence = flight.gcs->fence, .rally = flight.gcs->rally,
		.home_set = flight.home_set,
		.home = { flight.mission->items[0].x * 1e-7, flight.mission->items[0].y * 1e-7, 0.0f },
		.home_alt_msl_m = flight.mission->items[0].z,
		.rangefinder = *rangefinder_get(&flight.rng),
	};
	memcpy(in.accel_body_m_s2, flight.imu.accel_m_s2, sizeof(in.accel_body_m_s2));
	estim_get_accel_bias(&flight.est, in.accel_bias_body_m_s2);
	compass_for_prearm(&in);
	if (copter()) {
		if (now_us - flight.ekf_rep_us >= 100000u) {
			flight.ekf_rep_us = now_us;
			estim_get_ekf_report(&flight.est, &flight.ekf_rep);
		}
		in.ekf_vel_var = flight.ekf_rep.velocity_variance;
		in.ekf_pos_var = flight.ekf_rep.pos_horiz_variance;
		in.ekf_mag_var = flight.ekf_rep.compass_variance;
	}
	bool nav = copter() ? copter_mode_navigates(flight.vehicle->mode) :
			      plane_mode_navigates(flight.vehicle->mode);
	in.nav_deferred = nav && !sched_work_begin(flight.sched, &flight.nav_work);
	struct step_said ev;
	if (copter()) {
		copter_step(&flight.copter, &flight.cp, &in, &flight.co);
		ev = (struct step_said)STEP_SAID(flight.co);
		if (flight.co.home_changed)
			move_home(flight.co.home, flight.co.home_alt_msl_m);
	} else {
		plane_step(&flight.plane, &flight.pp, &in, &flight.po);
		ev = (struct step_said)STEP_SAID(flight.po);
	}
	if (nav && !in.nav_deferred)
		sched_work_end(flight.sched, &flight.nav_work);
	if (ev.text) {
		gcs_text(flight.gcs, ev.text_severity <= 2 ? GCS_SEV_CRITICAL :
				     ev.text_severity <= 4 ? GCS_SEV_WARNING : GCS_SEV_INFO,
			 "%s", ev.text);
		log_info("%.3f s: %s", (double)flight.say_us * 1e-6, ev.text);
		if (flightlog_main())
			flight_records_text(flightlog_main(), now_us, ev.text);
	}
	if (ev.fence_event && flightlog_main()) {
		/* ArduPilot's ERR: subsystem FAILSAFE_FENCE, the types breached (0: cleared). */
		struct df_err e = { .t_us = now_us, .subsys = LOG_ERR_FAILSAFE_FENCE,
				    .code = ev.fence_code };
		log_write_err(flightlog_main(), &e);
	}
	if (ev.mode_changed || flight.vehicle->mode != flight.mode_said) {
		flight.mode_said = flight.vehicle->mode;
		log_info("%.3f s: mode %s", (double)flight.say_us * 1e-6, vehicle_mode_name(flight.vehicle->kind, flight.vehicle->mode));
		struct df_mode m = { .t_us = now_us, .mode = (uint8_t)flight.vehicle->mode,
				     .mode_num = (uint8_t)flight.vehicle->mode };
		if (flightlog_main())
			log_write_mode(flightlog_main(), &m);
	}
	if (flight.vehicle->armed != flight.armed_said) {
		flight.armed_said = flight.vehicle->armed;
		log_info("%.3f s: %s", (double)flight.say_us * 1e-6, flight.armed_said ? "armed" : "disarmed");
		flightlog_set_armed(flight.armed_said);
		struct df_ev e = { .t_us = now_us, .id = flight.armed_said ? LOG_EV_ARMED : LOG_EV_DISARMED };
		if (flightlog_main()) {
			log_write_ev(flightlog_main(), &e);
			if (flight.armed_said) {
				/* Each file shows the mode flown from its start, and the mission. */
				struct df_mode m = { .t_us = now_us, .mode = (uint8_t)flight.vehicle->mode,
						     .mode_num = (uint8_t)flight.vehicle->mode };
				log_write_mode(flightlog_main(), &m);
				flight_records_mission(now_us);
			}
		}
	}
	if (ev.disarmed_after_landing && flightlog_main()) {
		struct df_ev e = { .t_us = now_us, .id = LOG_EV_LAND_COMPLETE };
		log_write_ev(flightlog_main(), &e);
	}
	if (ev.reached) {
		gcs_mission_reached(flight.gcs, ev.reached_seq);
		gcs_text(flight.gcs, GCS_SEV_INFO, "Reached waypoint #%u", ev.reached_seq);
		log_info("%.3f s: reached waypoint #%u", (double)flight.say_us * 1e-6, ev.reached_seq);
	}
	if (copter() ? flight.vehicle->mode == COPTER_AUTO && flight.copter.item > 0 :
		       flight.vehicle->mode == PLANE_AUTO && flight.plane.mexec.phase == MEXEC_FLYING)
		flight.mission->current = copter() ? flight.copter.item : flight.plane.mexec.current;
	atomic_store_explicit(&flight.armed, flight.vehicle->armed, memory_order_relaxed);
	flight_records_write(now_us);
	flight_records_pm(now_us);
	say_shedding(now_us);
	if (!flight.out)
		return;
	for (unsigned int ch = 0; ch < SERVO_CHANNELS && ch < rcout_channels(flight.out); ch++) {
		int rc = rcout_write(flight.out, ch, ev.pwm_us[ch]);
		if (rc && flight.out_errors++ == 0)
			log_err("servo output %u: %d (counting from now on)", ch + 1, rc);
	}
}
