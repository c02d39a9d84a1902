// SPDX-License-Identifier: GPL-3.0-or-later
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "log_flight.h"

#define HOME_LAT -35.3632621
#define HOME_LNG 149.1652374
#define HOME_ALT_M 584.0
#define ARM_S 5.0
#define CIRCUIT_S 100.0          /* one lap of the ellipse */
#define DEG (180.0 / M_PI)

struct state {
	bool armed;
	int mode;
	double north_m, east_m, alt_rel_m, vel_n, vel_e, vel_d;
	double yaw_deg, roll_dem_deg, roll_deg, pitch_dem_deg, pitch_deg, airspeed;
};

/* The aircraft at time t (s): armed at 5 s, climbs on an 800 m x 400 m ellipse,
 * comes home for the last two minutes. A pure function of t, so every thread's
 * messages agree. */
static void state_at(double t, double dur, struct state *s)
{
	memset(s, 0, sizeof *s);
	s->armed = t >= ARM_S && t < dur - 5.0;
	s->mode = t < ARM_S ? 0 : t < 30.0 ? 13 : t < dur - 120.0 ? 10 : 11;
	if (!s->armed)
		return;
	double tau = t - ARM_S, w = 2 * M_PI / CIRCUIT_S;
	s->east_m = 400.0 * sin(w * tau);
	s->north_m = 200.0 * (1.0 - cos(w * tau));
	s->vel_e = 400.0 * w * cos(w * tau);
	s->vel_n = 200.0 * w * sin(w * tau);
	double climb = fmin(100.0, 4.0 * tau);
	double descend = t > dur - 120.0 ? fmin(1.0, (t - (dur - 120.0)) / 110.0) : 0.0;
	s->alt_rel_m = climb * (1.0 - descend);
	s->vel_d = tau < 25.0 ? -4.0 : 0.0;
	s->yaw_deg = fmod(atan2(s->vel_e, s->vel_n) * DEG + 360.0, 360.0);
	/* Coordinated turn: bank from speed and curvature. */
	double ax = -400.0 * w * w * sin(w * tau), ay = 200.0 * w * w * cos(w * tau);
	double v = hypot(s->vel_e, s->vel_n);
	double lat_acc = (s->vel_e * ay - s->vel_n * ax) / fmax(v, 1.0);
	s->roll_dem_deg = atan(lat_acc / 9.81) * DEG + 3.0 * sin(t * 1.3);
	s->roll_deg = s->roll_dem_deg * 0.92 + 1.5 * sin(t * 7.0);
	s->pitch_dem_deg = s->vel_d < 0 ? 8.0 : 1.5 + 1.0 * sin(t * 0.7);
	s->pitch_deg = s->pitch_dem_deg - 0.6 + 0.8 * sin(t * 5.0);
	s->airspeed = 18.0 + 2.0 * sin(t * 0.2);
}

static int32_t lat_e7(const struct state *s)
{
	return (int32_t)lround((HOME_LAT + s->north_m / 110540.0) * 1e7);
}

static int32_t lng_e7(const struct state *s)
{
	return (int32_t)lround((HOME_LNG + s->east_m / (111320.0 * cos(HOME_LAT / DEG))) * 1e7);
}

/* Whether a message at hz is due in the caller's period ending at t_us. */
static bool due(uint64_t t_us, uint64_t period_us, unsigned hz)
{
	if (t_us < period_us)
		return true;
	return (t_us * hz) / 1000000u != ((t_us - period_us) * hz) / 1000000u;
}

static unsigned offer(struct log_producer *p, uint8_t type, const void *m, unsigned *refused)
{
	if (log_write(p, type, m) != 0)
		(*refused)++;
	return 1;
}

unsigned flight_emit_start(struct log_producer *p, uint64_t t_us, unsigned *refused)
{
	unsigned n = 0;
	struct df_mode mode = { .t_us = t_us, .mode = 0, .mode_num = 0, .reason = 0 };
	n += offer(p, DF_ID_MODE, &mode, refused);
	static const struct { double n_m, e_m; uint16_t cmd; } wps[] = {
		{ 0, 0, 16 }, { 0, 0, 22 }, { 200, 400, 16 }, { 400, 0, 16 }, { 200, -400, 16 },
		{ 0, 0, 16 }, { 0, 0, 20 },
	};
	const unsigned nwp = sizeof wps / sizeof wps[0];
	for (unsigned k = 0; k < nwp; k++) {
		struct state s = { .north_m = wps[k].n_m, .east_m = wps[k].e_m };
		struct df_cmd c = { .t_us = t_us, .total = (uint16_t)nwp, .seq = (uint16_t)k,
			.command = wps[k].cmd, .lat_1e7 = lat_e7(&s), .lng_1e7 = lng_e7(&s),
			.alt_m = k ? 100.0f : 0.0f, .frame = 3 };
		if (wps[k].cmd == 20)
			c.lat_1e7 = c.lng_1e7 = 0;
		n += offer(p, DF_ID_CMD, &c, refused);
	}
	for (unsigned k = 0; k < 40; k++) {
		struct df_parm prm = { .t_us = t_us, .value = (float)k * 1.5f };
		snprintf(prm.name, sizeof prm.name, "BENCH_P%02u", k);
		n += offer(p, DF_ID_PARM, &prm, refused);
	}
	return n;
}

static unsigned emit_timer(struct log_producer *p, uint64_t t_us, uint64_t period_us,
			   const struct state *s, unsigned *refused)
{
	unsigned n = 0;
	double t = (double)t_us / 1e6;
	for (uint8_t i = 0; i < 2; i++) {
		struct df_imu m = { .t_us = t_us, .instance = i,
			.gyr_x_rad_s = (float)(0.01 * sin(t * 9.0 + i)), .gyr_y_rad_s = 0.002f,
			.gyr_z_rad_s = (float)(0.05 * cos(t * 0.3)),
			.acc_x_m_s2 = (float)(0.3 * sin(t)), .acc_y_m_s2 = 0.1f,
			.acc_z_m_s2 = (float)(-9.81 - 0.2 * sin(t * 3.0)), .temp_degc = 41.5f,
			.gyro_healthy = 1, .accel_healthy = 1, .gyro_rate_hz = 1000, .accel_rate_hz = 1000 };
		n += offer(p, DF_ID_IMU, &m, refused);
	}
	if (due(t_us, period_us, 50)) {
		struct df_baro b = { .t_us = t_us, .alt_m = (float)s->alt_rel_m,
			.alt_amsl_m = (float)(HOME_ALT_M + s->alt_rel_m),
			.press_pa = (float)(95000.0 - 11.5 * s->alt_rel_m), .temp_cdegc = 2850,
			.climb_m_s = (float)-s->vel_d, .sample_ms = (uint32_t)(t_us / 1000u),
			.gnd_temp_degc = 25.0f, .healthy = 1 };
		n += offer(p, DF_ID_BARO, &b, refused);
	}
	if (due(t_us, period_us, 100)) {
		struct df_mag m = { .t_us = t_us, .mag_x_mga = (int16_t)(200 * cos(s->yaw_deg / DEG)),
			.mag_y_mga = (int16_t)(-200 * sin(s->yaw_deg / DEG)), .mag_z_mga = -450,
			.ofs_x_mga = 12, .ofs_y_mga = -30, .ofs_z_mga = 5, .healthy = 1,
			.sample_us = (uint32_t)t_us };
		n += offer(p, DF_ID_MAG, &m, refused);
	}
	return n;
}

static unsigned emit_main(struct log_producer *p, uint64_t t_us, uint64_t period_us,
			  const struct state *s, const struct flight_rates *rates, unsigned *refused)
{
	unsigned n = 0;
	double t = (double)t_us / 1e6, dur = rates->duration_s;
	struct state prev;
	state_at(t - (double)period_us / 1e6, dur, &prev);

	if (prev.mode != s->mode) {
		struct df_mode m = { .t_us = t_us, .mode = (uint8_t)s->mode,
			.mode_num = (uint8_t)s->mode, .reason = 2 };
		n += offer(p, DF_ID_MODE, &m, refused);
	}
	if (prev.armed != s->armed) {
		struct df_ev e = { .t_us = t_us, .id = s->armed ? 10 : 11 };
		n += offer(p, DF_ID_EV, &e, refused);
	}
	struct df_att a = { .t_us = t_us,
		.des_roll_cdeg = (int16_t)lround(s->roll_dem_deg * 100), .roll_cdeg = (int16_t)lround(s->roll_deg * 100),
		.des_pitch_cdeg = (int16_t)lround(s->pitch_dem_deg * 100), .pitch_cdeg = (int16_t)lround(s->pitch_deg * 100),
		.des_yaw_cdeg = (uint16_t)lround(s->yaw_deg * 100) % 36000, .yaw_cdeg = (uint16_t)lround(s->yaw_deg * 100) % 36000,
		.err_rp_x100 = 3, .err_yaw_x100 = 5 };
	n += offer(p, DF_ID_ATT, &a, refused);
	struct df_ctun c = { .t_us = t_us, .nav_roll_cdeg = a.des_roll_cdeg, .roll_cdeg = a.roll_cdeg,
		.nav_pitch_cdeg = a.des_pitch_cdeg, .pitch_cdeg = a.pitch_cdeg,
		.throttle_out_pct = s->armed ? 55 : 0, .throttle_dem_pct = s->armed ? 55 : 0,
		.airspeed_m_s = (float)s->airspeed, .sensor_airspeed_m_s = (float)s->airspeed,
		.eas2tas = 1.03f };
	n += offer(p, DF_ID_CTUN, &c, refused);
	struct df_ntun nt = { .t_us = t_us, .wp_dist_m = (float)(150.0 + 100.0 * sin(t * 0.05)),
		.target_bearing_cdeg = (int16_t)(a.des_yaw_cdeg / 2), .nav_bearing_cdeg = (int16_t)(a.yaw_cdeg / 2),
		.alt_err_cm = (int16_t)(50 * sin(t)), .xtrack_m = (float)(2.0 * sin(t * 0.4)),
		.airspeed_err_m_s = (float)(s->airspeed - 18.0), .target_lat_1e7 = lat_e7(s),
		.target_lng_1e7 = lng_e7(s), .target_alt_cm = 10000 };
	n += offer(p, DF_ID_NTUN, &nt, refused);
	struct df_tecs tc = { .t_us = t_us, .h_m = (float)s->alt_rel_m, .dh_m_s = (float)-s->vel_d,
		.h_dem_m = (float)s->alt_rel_m, .spd_dem_m_s = 18.0f, .spd_m_s = (float)s->airspeed,
		.thr = 0.55f, .pitch_dem_rad = (float)(s->pitch_dem_deg / DEG), .spd_weight = 1.0f };
	n += offer(p, DF_ID_TECS, &tc, refused);
	struct df_rc ro = { .t_us = t_us };
	for (unsigned k = 0; k < DF_RC_CHANNELS; k++)
		ro.ch_us[k] = (uint16_t)(1500 + (k < 4 ? 200 * sin(t + k) : 0));
	n += offer(p, DF_ID_RCOU, &ro, refused);
	struct df_pos po = { .t_us = t_us, .lat_1e7 = lat_e7(s), .lng_1e7 = lng_e7(s),
		.alt_msl_m = (float)(HOME_ALT_M + s->alt_rel_m), .rel_home_alt_m = (float)s->alt_rel_m,
		.rel_origin_alt_m = (float)s->alt_rel_m };
	n += offer(p, DF_ID_POS, &po, refused);
	struct df_xkf1 k1 = { .t_us = t_us, .roll_cdeg = a.roll_cdeg, .pitch_cdeg = a.pitch_cdeg,
		.yaw_cdeg = a.yaw_cdeg, .vel_n_m_s = (float)s->vel_n, .vel_e_m_s = (float)s->vel_e,
		.vel_d_m_s = (float)s->vel_d, .pos_n_m = (float)s->north_m, .pos_e_m = (float)s->east_m,
		.pos_d_m = (float)-s->alt_rel_m, .origin_hgt_cm = (int32_t)(HOME_ALT_M * 100) };
	n += offer(p, DF_ID_XKF1, &k1, refused);
	struct df_xkf3 k3 = { .t_us = t_us, .ivn_cm_s = (int16_t)(10 * sin(t * 2)),
		.ive_cm_s = (int16_t)(10 * cos(t * 2)), .ipd_cm = (int16_t)(30 * sin(t)) };
	n += offer(p, DF_ID_XKF3, &k3, refused);
	struct df_xkf4 k4 = { .t_us = t_us, .sv_x100 = 12, .sp_x100 = 20, .sh_x100 = 8, .sm_x100 = 15,
		.err_rp = 0.01f, .solution = 0x3ff };
	n += offer(p, DF_ID_XKF4, &k4, refused);
	struct df_xkf2 k2 = { .t_us = t_us, .ax_cm_s2 = 3, .ay_cm_s2 = -2, .az_cm_s2 = 10,
		.vwn_cm_s = (int16_t)(300 + 20 * sin(t * 0.1)), .vwe_cm_s = -150, .mn_mga = 230,
		.me_mga = 52, .md_mga = -531, .mx_mga = 12, .my_mga = -30, .mz_mga = 5 };
	n += offer(p, DF_ID_XKF2, &k2, refused);
	double dp = 0.5 * 1.225 * s->airspeed * s->airspeed;
	struct df_arsp as = { .t_us = t_us, .airspeed_m_s = (float)s->airspeed, .diff_press_pa = (float)dp,
		.temp_cdegc = 2500, .raw_press_pa = (float)dp, .use = 1, .healthy = 1, .health_prob = 1.0f,
		.test_ratio = 0.05f };
	n += offer(p, DF_ID_ARSP, &as, refused);
	struct df_vibe vb = { .t_us = t_us, .vibe_x_m_s2 = (float)(0.3 + 0.1 * sin(t * 3)),
		.vibe_y_m_s2 = 0.25f, .vibe_z_m_s2 = 0.6f };
	n += offer(p, DF_ID_VIBE, &vb, refused);
	if (prev.armed != s->armed && s->armed) {
		struct df_orgn o = { .t_us = t_us, .type = 0, .lat_1e7 = (int32_t)lround(HOME_LAT * 1e7),
			.lng_1e7 = (int32_t)lround(HOME_LNG * 1e7), .alt_cm = (int32_t)(HOME_ALT_M * 100) };
		n += offer(p, DF_ID_ORGN, &o, refused);
		o.type = 1;
		n += offer(p, DF_ID_ORGN, &o, refused);
	}
	if (due(t_us, period_us, 1)) {
		/* A loop-time distribution with a tail: mostly near 60 % of the period. */
		uint32_t per = 1000000u / rates->main_hz;
		struct df_pm pm = { .t_us = t_us, .loop_rate_hz = (uint16_t)rates->main_hz,
			.n_long = (uint16_t)((t_us / 1000000u) % 7 == 0 ? 3 : 0),
			.n_loop = (uint16_t)rates->main_hz,
			.max_t_us = per * 7 / 10 + (uint32_t)(per / 2 * fabs(sin(t * 0.37))),
			.min_t_us = per / 2, .avg_t_us = per * 6 / 10 + (uint32_t)(per / 20 * sin(t)),
			.load_permille = 600 };
		n += offer(p, DF_ID_PM, &pm, refused);
		struct df_powr pw = { .t_us = t_us, .vcc_v = NAN, .vservo_v = NAN };
		n += offer(p, DF_ID_POWR, &pw, refused);
	}
	return n;
}

unsigned flight_emit(struct log_producer *p, enum flight_group g, uint64_t t_us,
		     uint64_t period_us, const struct flight_rates *rates, unsigned *refused)
{
	struct state s;
	double t = (double)t_us / 1e6;
	state_at(t, rates->duration_s, &s);

	switch (g) {
	case FLIGHT_TIMER:
		return emit_timer(p, t_us, period_us, &s, refused);
	case FLIGHT_MAIN:
		return emit_main(p, t_us, period_us, &s, rates, refused);
	case FLIGHT_RCIN: {
		struct df_rc r = { .t_us = t_us };
		for (unsigned k = 0; k < DF_RC_CHANNELS; k++)
			r.ch_us[k] = (uint16_t)(k < 8 ? 1500 + 100 * sin(t + k) : 0);
		return offer(p, DF_ID_RCIN, &r, refused);
	}
	case FLIGHT_UART: {
		unsigned n = 0;
		/* GPS week 2382 (2025), time of week from the log time. */
		struct df_gps gps = { .t_us = t_us, .status = 3, .week = 2382,
			.week_ms = (uint32_t)(200000000u + t_us / 1000u), .num_sats = 14,
			.hdop_x100 = 80, .lat_1e7 = lat_e7(&s), .lng_1e7 = lng_e7(&s),
			.alt_msl_cm = (int32_t)lround((HOME_ALT_M + s.alt_rel_m) * 100),
			.ground_speed_m_s = (float)hypot(s.vel_n, s.vel_e), .course_deg = (float)s.yaw_deg,
			.vel_down_m_s = (float)s.vel_d, .used = 1 };
		n += offer(p, DF_ID_GPS, &gps, refused);
		struct df_bat b = { .t_us = t_us, .volt_v = (float)(12.6 - 1.5 * t / fmax(rates->duration_s, 1)),
			.volt_rest_v = 12.5f, .curr_a = s.armed ? 12.0f : 0.5f,
			.used_mah = (float)(t * 3.3), .used_wh = (float)(t * 0.04), .temp_cdegc = 3000,
			.remaining_pct = (uint8_t)fmax(0, 100 - 90 * t / fmax(rates->duration_s, 1)),
			.healthy = 1, .health_pct = 100 };
		n += offer(p, DF_ID_BAT, &b, refused);
		return n;
	}
	}
	return 0;
}
