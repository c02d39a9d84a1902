// SPDX-License-Identifier: GPL-3.0-or-later
/* The flight's log records: what the main loop writes to the flight log (flightlog.h). */
#include "daemon/flight_internal.h"

#include <math.h>
#include <string.h>

#include "daemon/flightlog.h"
#include "daemon/scheduler.h"
#include "estim/estim_math.h"
#include "estim/vibe.h"

void flight_records_text(struct log_producer *lp, uint64_t now_us, const char *text)
{
	struct df_msg m = { .t_us = now_us };
	strncpy(m.text, text, sizeof(m.text) - 1);  /* a copy, no formatting on the main loop */
	log_write_msg(lp, &m);
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
				     .use = flight.est_cfg.use_airspeed && !st->arsp.disabled,
				     .healthy = fresh && !st->arsp.disabled,
				     .health_prob = st->arsp.prob,
				     /* ArduPilot's ARSP.TR: the health check's ratio */
				     .test_ratio = st->arsp.test_ratio };
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

#define R2D 57.29578f

/* The kinematic acceleration, NED (m/s/s): the latest specific force turned
 * by the attitude, gravity added back. */
static void accel_ned(float out[3])
{
	float R[3][3];
	em_quat_to_dcm(flight.vs.q, R);
	em_mat_vec(R, flight.imu.accel_m_s2, out);
	out[2] += 9.80665f;
}

/* The copter's attitude and rates (25 Hz, as the plane's ATT). */
static void copter_records_25(struct log_producer *lp, uint64_t now_us)
{
	const struct vehicle_state *vs = &flight.vs;
	const struct copter_output *co = &flight.co;
	float acc[3];
	accel_ned(acc);
	float yaw = vs->yaw_rad * R2D, des_yaw = co->yaw_target_rad * R2D;
	struct df_catt a = { .t_us = now_us, .des_roll = co->roll_target_rad * R2D,
			     .roll = vs->roll_rad * R2D, .des_pitch = co->pitch_target_rad * R2D,
			     .pitch = vs->pitch_rad * R2D,
			     .des_yaw = des_yaw < 0.0f ? des_yaw + 360.0f : des_yaw,
			     .yaw = yaw < 0.0f ? yaw + 360.0f : yaw, .aekf = 3 };
	log_write(lp, DF_ID_CATT, &a);
	struct df_rate r = {
		.t_us = now_us,
		.roll_des = co->rate_target_rad_s[0] * R2D, .roll = vs->rate_rad_s[0] * R2D,
		.roll_out = co->atc.roll,
		.pitch_des = co->rate_target_rad_s[1] * R2D, .pitch = vs->rate_rad_s[1] * R2D,
		.pitch_out = co->atc.pitch,
		.yaw_des = co->rate_target_rad_s[2] * R2D, .yaw = vs->rate_rad_s[2] * R2D,
		.yaw_out = co->atc.yaw,
		/* up, m/s/s: what the position controller asked, what the aircraft did */
		.accel_des = co->psc_active ? co->psc.accel_up_m_s2 : NAN,
		.accel = -acc[2],
		.accel_out = co->atc.throttle, .accel_out_slew = 0.0f,
	};
	log_write(lp, DF_ID_RATE, &r);
}

/* The copter's position controller, throttle and heights and motors (10 Hz, ArduCopter's). */
static void copter_records_10(struct log_producer *lp, uint64_t now_us)
{
	const struct vehicle_state *vs = &flight.vs;
	const struct copter_output *co = &flight.co;
	const struct copter *c = &flight.copter;
	float acc[3];
	accel_ned(acc);
	if (co->psc_active && c->origin_set) {
		struct nav_ne ne = nav_geo_ne_from_ll(c->origin_lat_deg, c->origin_lon_deg, vs->lat_deg,
						      vs->lon_deg);
		const float pos[2] = { ne.n_m, ne.e_m };
		static const uint8_t ids[2] = { DF_ID_PSCN, DF_ID_PSCE };
		for (int k = 0; k < 2; k++) {
			struct df_psc p = { .t_us = now_us, .pos_des = co->psc_xy.pos_ne_m[k],
					    .pos_tgt = co->psc_xy.pos_ne_m[k], .pos = pos[k],
					    .vel_des = co->psc_xy.vel_ne_m_s[k], .vel_tgt = co->psc.vel_ne_m_s[k],
					    .vel = vs->vel_ned_m_s[k], .acc_des = co->psc_xy.accel_ne_m_s2[k],
					    .acc_tgt = co->psc.accel_ne_m_s2[k],
					    .acc = acc[k] };
			log_write(lp, ids[k], &p);
		}
		/* down, as ArduCopter's PSCD */
		struct df_psc d = { .t_us = now_us, .pos_des = -co->psc_z.alt_m, .pos_tgt = -co->psc_z.alt_m,
				    .pos = -vs->alt_rel_m, .vel_des = -co->psc_z.climb_m_s,
				    .vel_tgt = -co->psc.climb_m_s, .vel = vs->vel_ned_m_s[2],
				    .acc_des = -co->psc_z.accel_m_s2, .acc_tgt = -co->psc.accel_up_m_s2,
				    .acc = acc[2] };
		log_write(lp, DF_ID_PSCD, &d);
	}
	struct df_cctun t = {
		.t_us = now_us, .thr_in = co->atc.throttle, .angle_boost = 0.0f,
		.thr_out = c->throttle_out, .thr_hover = flight.cp.mot.mot_thst_hover,
		.des_alt_m = co->psc_active ? co->psc_z.alt_m : NAN, .alt_m = vs->alt_rel_m,
		.baro_alt_cm = (int32_t)lroundf(vs->alt_rel_m * 100.0f),
		.des_sonar_alt_m = NAN, .sonar_alt_m = NAN, .terrain_alt_m = NAN,
		.des_climb_cm_s = co->psc_active ? sat16f(co->psc.climb_m_s * 100.0f) : 0,
		.climb_cm_s = sat16f(-vs->vel_ned_m_s[2] * 100.0f),
	};
	log_write(lp, DF_ID_CCTUN, &t);
	struct df_motb m = { .t_us = now_us, .lift_max = 1.0f, .bat_volt = flight.batt.voltage_v,
			     .th_limit = 1.0f, .thr_av_max = 1.0f, .thr_out = c->throttle_out };
	log_write(lp, DF_ID_MOTB, &m);
}

void flight_records_rfnd(uint64_t now_us)
{
	(void)now_us;   /* stamped with the reading's own time */
	struct log_producer *lp = flightlog_main();
	if (!lp)
		return;
	const struct range_sample *r = &flight.rng_sample;
	float cm = r->reading == RANGE_READING_OK ? roundf(r->distance_m * 100.0f) : 0.0f;
	struct df_rfnd m = { .t_us = r->t_us, .instance = 0,
			     .dist_cm = (uint16_t)(cm > 65535.0f ? 65535.0f : cm),
			     .status = (uint8_t)rangefinder_get(&flight.rng)->status,
			     .orient = (uint8_t)flight.rng_p.orient };
	log_write_rfnd(lp, &m);
}

/* The main loop's records, at ArduPlane's usual rates (25 Hz attitude and tuning, 10 Hz position). */
void flight_records_write(uint64_t now_us)
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
	bool copter = flight.vehicle->kind == VEHICLE_COPTER;
	if (at25 && copter)
		copter_records_25(lp, now_us);
	if (at10 && copter)
		copter_records_10(lp, now_us);
	if (at25 && !copter) {
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
	}
	if (at25) {
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
		struct df_xkf1 x1 = { .t_us = now_us, .roll_cdeg = cdeg(vs->roll_rad),
				      .pitch_cdeg = cdeg(vs->pitch_rad),
				      .yaw_cdeg = cdeg360(vs->yaw_rad), .vel_n_m_s = vs->vel_ned_m_s[0],
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
			rcou.ch_us[i] = copter ? flight.co.pwm_us[i] : po->pwm_us[i];
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
void flight_records_pm(uint64_t now_us)
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

/* The mission as it is armed with: CMD records, so the log shows what was flown. */
void flight_records_mission(uint64_t now_us)
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
