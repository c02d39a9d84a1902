// SPDX-License-Identifier: GPL-3.0-or-later
#define LOG_TAG "flight"
#include "daemon/flight.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "daemon/flight_params.h"
#include "daemon/services.h"
#include "param/param.h"
#include "util/log.h"

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
	uint32_t gen[SENSOR_KIND_COUNT];  /* topic generations taken */
	struct rc_frame rc;
	bool rc_seen;
	struct gps_fix gps;
	struct battery_sample batt;
	bool home_set;
	bool was_armed;
	enum plane_mode mode_said;      /* for the log: what was last said */
	bool armed_said;
	uint32_t health;                /* the estimator's, as last said */
	uint64_t last_us;
	uint32_t param_gen;             /* the parameters' generation last loaded */
	_Atomic bool armed;
	uint64_t out_errors;
} fl;

void flight_init(struct sensor_hub *hub, struct rcout *out)
{
	memset(&fl, 0, sizeof(fl));
	fl.hub = hub;
	fl.out = out;
	services_flight_refs(&fl.gcs, &fl.vehicle, &fl.mission);
	estim_config_default(&fl.est_cfg);
	/* Height from the barometer, as ArduPilot's EKF does by default (EK2_ALT_SOURCE 0):
	 * GPS height wanders by metres over minutes; a landing needs the baro's steadiness. */
	fl.est_cfg.use_gps_hgt = false;
	/* The filter runs at the main loop's rate (50..400 Hz). */
	float rate = param_get_by_name("SCHED_LOOP_RATE");
	fl.est_cfg.filter_rate_hz = rate < 50.0f ? 50.0f : rate > 400.0f ? 400.0f : rate;
	/* Declination: the field's, or learnt in flight (no world magnetic model here). */
	fl.est_cfg.mag_declination_deg = param_get_by_name("COMPASS_AUTODEC") != 0.0f ?
					 NAN : param_get_by_name("COMPASS_DEC") * 57.29578f;
	estim_init(&fl.est, &fl.est_cfg);
	plane_params_default(&fl.pp);
	if (flight_params_load(&fl.pp))
		log_err("parameters missing from the table: the flight code's defaults stand");
	fl.param_gen = param_generation();
	plane_init(&fl.plane, fl.vehicle);
	fl.mode_said = fl.vehicle->mode;
	fl.batt.voltage_v = NAN;
	fl.batt.consumed_mah = NAN;
	atomic_init(&fl.armed, false);
}

bool flight_armed(void)
{
	return atomic_load_explicit(&fl.armed, memory_order_relaxed);
}

const struct estim *flight_estimator(void)
{
	return &fl.est;
}

const struct plane *flight_plane(void)
{
	return &fl.plane;
}

/* The latest value of a kind if it is new since the last call. */
static bool take(enum sensor_kind k, void *out)
{
	uint32_t g = sensors_latest(fl.hub, k, out);
	if (g == fl.gen[k])
		return false;
	fl.gen[k] = g;
	return true;
}

static void feed_estimator(void)
{
	struct imu_sample batch[FLIGHT_IMU_BATCH];
	size_t n;
	while ((n = sensors_read_imu(fl.hub, batch, FLIGHT_IMU_BATCH)) > 0) {
		for (size_t i = 0; i < n; i++)
			estim_push_imu(&fl.est, &batch[i]);
		fl.imu = batch[n - 1];
		fl.imu_taken += n;
	}
	struct baro_sample baro;
	if (take(SENSOR_BARO, &baro))
		estim_push_baro(&fl.est, &baro);
	struct mag_sample mag;
	if (take(SENSOR_MAG, &mag))
		estim_push_mag(&fl.est, &mag);
	struct airspeed_sample as;
	if (take(SENSOR_AIRSPEED, &as))
		estim_push_airspeed(&fl.est, &as);
	if (take(SENSOR_GPS, &fl.gps))
		estim_push_gps(&fl.est, &fl.gps);
	if (take(SENSOR_RC, &fl.rc))
		fl.rc_seen = true;
	take(SENSOR_BATTERY, &fl.batt);
}

/* Home is mission item 0: set where the aircraft is (first good position, and at arming). */
static void set_home_here(void)
{
	struct mission *m = fl.mission;
	if (m->count == 0)
		m->count = 1;
	m->items[0].x = (int32_t)lround(fl.vs.lat_deg * 1e7);
	m->items[0].y = (int32_t)lround(fl.vs.lon_deg * 1e7);
	m->items[0].z = fl.vs.alt_msl_m;
	if (!fl.home_set)
		gcs_text(fl.gcs, GCS_SEV_INFO, "Home set: %.6f %.6f %.0f m", fl.vs.lat_deg,
			 fl.vs.lon_deg, (double)fl.vs.alt_msl_m);
	fl.home_set = true;
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
	uint32_t h = estim_health(&fl.est), changed = h ^ fl.health;
	fl.health = h;
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
		if (!(changed & said[i].bit))
			continue;
		const char *text = (h & said[i].bit) ? said[i].on : said[i].off;
		if (!text)
			continue;
		gcs_text(fl.gcs, (h & said[i].bit) && said[i].bit != ESTIM_H_GPS_GLITCH &&
					 said[i].bit != ESTIM_H_MAG_REJECTING &&
					 said[i].bit != ESTIM_H_IMU_BAD && said[i].bit != ESTIM_H_IMU_FROZEN ?
				 GCS_SEV_INFO : GCS_SEV_WARNING, "%s", text);
		log_info("%.3f s: %s", (double)fl.last_us * 1e-6, text);
	}
}

void flight_task(void *ctx, uint64_t now_us)
{
	(void)ctx;
	float dt = fl.last_us ? (float)(now_us - fl.last_us) * 1e-6f : 0.0f;
	fl.last_us = now_us;
	if (dt <= 0.0f || dt > 0.1f)
		dt = 0.0025f;
	/* A parameter changed (a ground station's PARAM_SET): the new values from the next step. */
	if (param_generation() != fl.param_gen) {
		fl.param_gen = param_generation();
		flight_params_load(&fl.pp);
	}
	feed_estimator();
	estim_get_state(&fl.est, &fl.vs);
	tell_estimator_changes();
	bool converged = estim_is_converged(&fl.est);
	/* The home altitude is the estimate's; its alt_rel is then ours to fill. */
	if (!fl.home_set && converged && (fl.vs.valid & VEHICLE_POSITION_VALID))
		set_home_here();
	if (fl.vehicle->armed && !fl.was_armed && (fl.vs.valid & VEHICLE_POSITION_VALID))
		set_home_here();
	fl.was_armed = fl.vehicle->armed;
	if (fl.home_set)
		fl.vs.alt_rel_m = fl.vs.alt_msl_m - fl.mission->items[0].z;

	fl.vehicle->home_set = fl.home_set;
	vehicle_update(fl.vehicle, fl.vs.valid, fl.mission->count);
	struct plane_input in = {
		.now_us = now_us, .dt_s = dt, .vs = fl.vs, .estimator_converged = converged,
		.rc = fl.rc, .rc_seen = fl.rc_seen, .gcs_heartbeat_us = fl.gcs->gcs_heartbeat_us,
		.gps_fix = fl.gps.fix == GPS_FIX_3D,
		.batt_voltage_v = fl.batt.voltage_v, .batt_used_mah = fl.batt.consumed_mah,
		.mission = fl.mission, .home_set = fl.home_set,
		.home = { fl.mission->items[0].x * 1e-7, fl.mission->items[0].y * 1e-7, 0.0f },
		.home_alt_msl_m = fl.mission->items[0].z,
	};
	memcpy(in.accel_body_m_s2, fl.imu.accel_m_s2, sizeof(in.accel_body_m_s2));
	plane_step(&fl.plane, &fl.pp, &in, &fl.po);
	if (fl.po.text) {
		gcs_text(fl.gcs, fl.po.text_severity <= 2 ? GCS_SEV_CRITICAL :
				 fl.po.text_severity <= 4 ? GCS_SEV_WARNING : GCS_SEV_INFO,
			 "%s", fl.po.text);
		log_info("%.3f s: %s", (double)now_us * 1e-6, fl.po.text);
	}
	if (fl.po.mode_changed || fl.vehicle->mode != fl.mode_said) {
		fl.mode_said = fl.vehicle->mode;
		log_info("%.3f s: mode %s", (double)now_us * 1e-6, vehicle_mode_name(fl.vehicle->mode));
	}
	if (fl.vehicle->armed != fl.armed_said) {
		fl.armed_said = fl.vehicle->armed;
		log_info("%.3f s: %s", (double)now_us * 1e-6, fl.armed_said ? "armed" : "disarmed");
	}
	if (fl.po.reached) {
		gcs_mission_reached(fl.gcs, fl.po.reached_seq);
		gcs_text(fl.gcs, GCS_SEV_INFO, "Reached waypoint #%u", fl.po.reached_seq);
		log_info("%.3f s: reached waypoint #%u", (double)now_us * 1e-6, fl.po.reached_seq);
	}
	if (fl.vehicle->mode == PLANE_AUTO && fl.plane.mexec.phase == MEXEC_FLYING)
		fl.mission->current = fl.plane.mexec.current;
	atomic_store_explicit(&fl.armed, fl.vehicle->armed, memory_order_relaxed);
	if (!fl.out)
		return;
	for (unsigned int ch = 0; ch < SERVO_CHANNELS && ch < rcout_channels(fl.out); ch++) {
		int rc = rcout_write(fl.out, ch, fl.po.pwm_us[ch]);
		if (rc && fl.out_errors++ == 0)
			log_err("servo output %u: %d (counting from now on)", ch + 1, rc);
	}
}

void flight_fill_gcs(struct gcs_inputs *in)
{
	in->state = fl.vs;
	if (fl.imu_taken) {
		in->imu.t_us = fl.imu.t_us;
		memcpy(in->imu.accel_m_s2, fl.imu.accel_m_s2, sizeof(in->imu.accel_m_s2));
		memcpy(in->imu.gyro_rad_s, fl.imu.gyro_rad_s, sizeof(in->imu.gyro_rad_s));
		in->imu.temp_c = fl.imu.temp_c;
	}
	struct mag_sample mag;
	in->imu.mag_ut[0] = in->imu.mag_ut[1] = in->imu.mag_ut[2] = NAN;
	if (sensors_latest(fl.hub, SENSOR_MAG, &mag))
		memcpy(in->imu.mag_ut, mag.field_ut, sizeof(in->imu.mag_ut));
	struct baro_sample baro;
	if (sensors_latest(fl.hub, SENSOR_BARO, &baro)) {
		in->baro.t_us = baro.t_us;
		in->baro.pressure_pa = baro.pressure_pa;
		in->baro.temp_c = baro.temp_c;
	}
	struct airspeed_sample as;
	in->baro.diff_pressure_pa = sensors_latest(fl.hub, SENSOR_AIRSPEED, &as) ?
				    as.diff_pressure_pa : NAN;
	const struct gps_fix *g = &fl.gps;
	if (fl.gen[SENSOR_GPS]) {
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
	if (fl.gen[SENSOR_BATTERY]) {
		in->battery.present = true;
		in->battery.voltage_v = fl.batt.voltage_v;
		in->battery.current_a = fl.batt.current_a;
		in->battery.consumed_mah = fl.batt.consumed_mah;
		in->battery.remaining_pct = -1;
	}
	if (fl.rc_seen) {
		in->rc.count = fl.rc.channel_count;
		memcpy(in->rc.us, fl.rc.channels_us, sizeof(in->rc.us));
		in->rc.rssi = 255;
	}
	if (fl.out) {
		unsigned int n = rcout_channels(fl.out);
		in->servo.count = (uint8_t)(n > 16 ? 16 : n);
		for (unsigned int ch = 0; ch < in->servo.count; ch++)
			rcout_read(fl.out, ch, &in->servo.us[ch]);
	}
	const struct nav_output *n = &fl.po.nav;
	in->nav.active = fl.po.nav_active;
	in->nav.nav_roll_deg = fl.po.roll_dem_rad * 57.29578f;
	in->nav.nav_pitch_deg = fl.po.pitch_dem_rad * 57.29578f;
	in->nav.nav_bearing_deg = (int16_t)lroundf(n->nav_bearing_rad * 57.29578f);
	in->nav.target_bearing_deg = (int16_t)lroundf(n->target_bearing_rad * 57.29578f);
	in->nav.wp_dist_m = (uint16_t)fminf(fmaxf(n->wp_dist_m, 0.0f), 65535.0f);
	in->nav.alt_error_m = n->alt_error_m;
	in->nav.aspd_error_m_s = n->aspd_error_m_s;
	in->nav.xtrack_error_m = n->xtrack_m;
}
