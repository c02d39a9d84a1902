// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Telemetry streams: each streamed message belongs to one of ArduPlane's
 * stream groups, whose rate on link n is parameter SRn_<GROUP> (Hz; links past
 * 2 use SR2), unless SET_MESSAGE_INTERVAL set it for that link.
 * REQUEST_DATA_STREAM sets the SRn_ parameters as ArduPilot does. A message is
 * sent only when there is something true to say: no position before the
 * estimator has one, and health bits that say what is known, nothing more.
 * On a link of limited bandwidth (a serial radio) the streams that do not fit
 * are shed, lowest priority first.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mavlink/gcs_internal.h"
#include "mavlink/mavlink_msgs.h"
#include "param/param.h"

#define FULMAR_SW_VERSION 0x00010000u  /* 0.1.0, MAVLink's major.minor.patch.type layout */
/* A message due within this of now goes now: the services tick at 50 Hz with
 * the main loop's jitter, and a 50 Hz stream must go on every tick. */
#define GCS_STREAM_SLACK_US 10000u
/* Of a limited link's bytes, the share streams may take; the rest is for the
 * heartbeat, STATUSTEXT, command and mission replies and parameter lists. */
#define GCS_STREAM_SHARE 0.8f
#define GCS_SHED_TELL_US 5000000u
/* A parameter list may burst this long's worth of a limited link's spare bytes. */
#define GCS_PARAM_BURST_S 0.1f

/*
 * In priority order, highest first: on a link too slow for all of them, the
 * last are shed first. What a pilot flies by (attitude, position, speeds,
 * health, the mission) comes before what only a tuner or a log reader wants.
 * The groups are ArduPlane's (GCS_Mavlink.cpp's stream lists).
 */
static const struct stream {
	uint32_t msgid;
	const char *group;         /* SRn_<group> */
} streams[GCS_STREAM_COUNT] = {
	{ MAVLINK_MSG_ID_ATTITUDE, "EXTRA1" },
	{ MAVLINK_MSG_ID_GLOBAL_POSITION_INT, "POSITION" },
	{ MAVLINK_MSG_ID_VFR_HUD, "EXTRA2" },
	{ MAVLINK_MSG_ID_SYS_STATUS, "EXT_STAT" },
	{ MAVLINK_MSG_ID_GPS_RAW_INT, "EXT_STAT" },
	{ MAVLINK_MSG_ID_MISSION_CURRENT, "EXT_STAT" },
	{ MAVLINK_MSG_ID_FENCE_STATUS, "EXT_STAT" },  /* while FENCE_ENABLE, as ArduPlane */
	{ MAVLINK_MSG_ID_HOME_POSITION, "EXTRA3" },
	{ MAVLINK_MSG_ID_NAV_CONTROLLER_OUTPUT, "EXT_STAT" },
	{ MAVLINK_MSG_ID_POSITION_TARGET_GLOBAL_INT, "EXT_STAT" },
	{ MAVLINK_MSG_ID_BATTERY_STATUS, "EXTRA3" },
	{ MAVLINK_MSG_ID_EKF_STATUS_REPORT, "EXTRA3" },
	{ MAVLINK_MSG_ID_RC_CHANNELS, "RC_CHAN" },
	{ MAVLINK_MSG_ID_SERVO_OUTPUT_RAW, "RC_CHAN" },
	{ MAVLINK_MSG_ID_WIND, "EXTRA3" },
	{ MAVLINK_MSG_ID_SYSTEM_TIME, "EXTRA3" },
	{ MAVLINK_MSG_ID_POWER_STATUS, "EXT_STAT" },
	{ MAVLINK_MSG_ID_AHRS2, "EXTRA1" },
	{ MAVLINK_MSG_ID_AHRS, "EXTRA3" },
	{ MAVLINK_MSG_ID_VIBRATION, "EXTRA3" },
	{ MAVLINK_MSG_ID_LOCAL_POSITION_NED, "POSITION" },
	{ MAVLINK_MSG_ID_ESTIMATOR_STATUS, "EXTRA3" },
	{ MAVLINK_MSG_ID_MEMINFO, "EXT_STAT" },
	{ MAVLINK_MSG_ID_SCALED_PRESSURE, "RAW_SENS" },
	{ MAVLINK_MSG_ID_RAW_IMU, "RAW_SENS" },
	{ MAVLINK_MSG_ID_SCALED_IMU, "RAW_SENS" },
	{ MAVLINK_MSG_ID_RANGEFINDER, "EXTRA3" },       /* with a rangefinder, as ArduPlane */
	{ MAVLINK_MSG_ID_DISTANCE_SENSOR, "EXTRA3" },
	{ MAVLINK_MSG_ID_AUTOPILOT_VERSION, NULL },   /* on request only */
};

/* MAV_DATA_STREAM ids and ArduPilot's groups (ALL, 0, is every one of these). */
static const struct data_stream {
	uint8_t id;
	const char *group;
} data_streams[] = {
	{ 1, "RAW_SENS" }, { 2, "EXT_STAT" }, { 3, "RC_CHAN" }, { 4, "RAW_CTRL" },
	{ 6, "POSITION" }, { 10, "EXTRA1" }, { 11, "EXTRA2" }, { 12, "EXTRA3" },
};

/* A frame of the payload's largest length, before MAVLink 2 trims its zeros. */
static uint16_t max_frame_len(uint32_t msgid)
{
	const struct mavlink_msg_info *info = mavlink_msg_info(msgid);
	return (uint16_t)(MAVLINK_V2_HEADER_LEN + (info ? info->max_len : 255) + 2);
}

void gcs_streams_init(struct gcs *g)
{
	for (int l = 0; l < GCS_MAX_LINKS; l++)
		for (int i = 0; i < GCS_STREAM_COUNT; i++)
			g->link[l].frame_len[i] = max_frame_len(streams[i].msgid);
	for (int n = 0; n < 3; n++)
		for (int i = 0; i < GCS_STREAM_COUNT; i++) {
			char name[PARAM_NAME_LEN + 1];
			g->sr_param[n][i] = -1;
			if (!streams[i].group)
				continue;
			snprintf(name, sizeof(name), "SR%d_%s", n, streams[i].group);
			g->sr_param[n][i] = param_find(name);
		}
}

static int slot(uint32_t msgid)
{
	for (int i = 0; i < GCS_STREAM_COUNT; i++)
		if (streams[i].msgid == msgid)
			return i;
	return -1;
}

/* The interval in force for slot i on link l, or 0 when off. */
static uint64_t interval(const struct gcs *g, int l, int i)
{
	int32_t o = g->link[l].interval_us[i];
	if (o < 0)
		return 0;
	if (o > 0)
		return (uint64_t)o;
	int p = g->sr_param[l < 3 ? l : 2][i];
	if (p < 0)
		return 0;
	float hz = param_get(p);
	return hz > 0 ? (uint64_t)(1e6f / hz) : 0;
}

int gcs_set_interval(struct gcs *g, int link, uint32_t msgid, int32_t interval_us)
{
	int i = slot(msgid);
	if (i < 0 || link < 0 || link >= GCS_MAX_LINKS || interval_us < -1 ||
	    interval_us > 1000000000)
		return -EINVAL;
	g->link[link].interval_us[i] = interval_us;
	g->link[link].next_us[i] = 0;
	return 0;
}

static const uint32_t att = VEHICLE_ATTITUDE_VALID, alt = VEHICLE_ALTITUDE_VALID,
		      pos = VEHICLE_POSITION_VALID;

static bool has(const struct gcs *g, uint32_t bits)
{
	return (g->in.state.valid & bits) == bits;
}

/* A float to int16, saturating (NaN to 0). */
static int16_t sat16(float v)
{
	if (!(v == v))
		return 0;
	return (int16_t)(v > 32767.0f ? 32767 : v < -32768.0f ? -32768 : lroundf(v));
}

/* The battery's remaining charge: the monitor's own figure, or from BATT_CAPACITY. */
static int8_t remaining(const struct gcs *g)
{
	if (g->in.battery.remaining_pct >= 0)
		return g->in.battery.remaining_pct;
	float cap = g->batt_capacity_idx >= 0 ? param_get(g->batt_capacity_idx) : 0.0f;
	return gcs_battery_remaining(cap, g->in.battery.consumed_mah);
}

/* Packs msgid into p when there is something true to send; false when not. */
/* A stream that has nothing to say on this vehicle at all (no rangefinder)
 * takes no link's bandwidth either. */
static bool unused(const struct gcs *g, uint32_t msgid)
{
	return (msgid == MAVLINK_MSG_ID_RANGEFINDER || msgid == MAVLINK_MSG_ID_DISTANCE_SENSOR) &&
	       !g->in.rangefinder.present;
}

static uint16_t cm16(float m)
{
	float cm = roundf(m * 100.0f);
	return cm <= 0.0f ? 0 : cm >= 65535.0f ? 65535 : (uint16_t)cm;
}

static bool build(struct gcs *g, uint32_t msgid, uint8_t *p)
{
	const struct vehicle_state *s = &g->in.state;
	switch (msgid) {
	case MAVLINK_MSG_ID_SYS_STATUS: {
		struct mavlink_sys_status m = {
			.onboard_control_sensors_present = g->in.sensors_present,
			.onboard_control_sensors_enabled = g->in.sensors_enabled,
			.onboard_control_sensors_health = g->in.sensors_health,
			.load = g->in.load_permille,
			/* Without a battery monitor: "unknown", as MAVLink spells it. */
			.voltage_battery = g->in.battery.present && isfinite(g->in.battery.voltage_v) ?
				(uint16_t)lroundf(g->in.battery.voltage_v * 1000) : UINT16_MAX,
			.current_battery = g->in.battery.present && isfinite(g->in.battery.current_a) ?
				(int16_t)lroundf(g->in.battery.current_a * 100) : -1,
			.battery_remaining = g->in.battery.present ? remaining(g) : -1,
			.drop_rate_comm = g->in.drop_rate_permyriad,
			.errors_comm = g->in.errors_comm,
		};
		mavlink_sys_status_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_FENCE_STATUS: {
		if (!g->in.fence.enabled)
			return false;
		struct mavlink_fence_status m = {
			.breach_status = g->in.fence.breaches != 0,
			.breach_count = g->in.fence.breach_count,
			.breach_type = g->in.fence.breach_type,
			.breach_time = g->in.fence.breach_time_ms,
			.breach_mitigation = g->in.fence.mitigation,
		};
		mavlink_fence_status_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_MISSION_CURRENT: {
		if (!g->mission)
			return false;
		struct mavlink_mission_current m = { .seq = g->mission->current,
						     .total = g->mission->count };
		mavlink_mission_current_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_EKF_STATUS_REPORT: {
		if (g->in.estimator.present) {
			/* The filter's own flags and innovation test ratios. */
			const struct gcs_estimator *e = &g->in.estimator;
			struct mavlink_ekf_status_report m = {
				.flags = e->ekf_flags, .velocity_variance = e->velocity_variance,
				.pos_horiz_variance = e->pos_horiz_variance,
				.pos_vert_variance = e->pos_vert_variance,
				.compass_variance = e->compass_variance,
				.terrain_alt_variance = e->terrain_alt_variance,
				.airspeed_variance = e->airspeed_variance,
			};
			mavlink_ekf_status_report_pack(&m, p);
			return true;
		}
		/* EKF_STATUS_FLAGS from what the estimator says is valid. */
		uint16_t flags = 0;
		if (has(g, att))
			flags |= 1;
		if (has(g, pos))
			flags |= 2 | 8 | 16 | 256 | 512;
		if (has(g, alt))
			flags |= 4 | 32;
		if (!flags)
			flags = 1024;  /* EKF_UNINITIALIZED */
		struct mavlink_ekf_status_report m = { .flags = flags };
		mavlink_ekf_status_report_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_SYSTEM_TIME: {
		struct mavlink_system_time m = { .time_unix_usec = g->in.unix_us,
						 .time_boot_ms = (uint32_t)((s->t_us ? s->t_us : g->boot_us) / 1000) };
		mavlink_system_time_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_ATTITUDE: {
		if (!has(g, att))
			return false;
		struct mavlink_attitude m = {
			.time_boot_ms = (uint32_t)(s->t_us / 1000), .roll = s->roll_rad,
			.pitch = s->pitch_rad, .yaw = s->yaw_rad, .rollspeed = s->rate_rad_s[0],
			.pitchspeed = s->rate_rad_s[1], .yawspeed = s->rate_rad_s[2],
		};
		mavlink_attitude_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_GLOBAL_POSITION_INT: {
		if (!has(g, pos | alt))
			return false;
		float hdg = atan2f(s->vel_ned_m_s[1], s->vel_ned_m_s[0]) * 57.29578f;
		struct mavlink_global_position_int m = {
			.time_boot_ms = (uint32_t)(s->t_us / 1000),
			.lat = (int32_t)lround(s->lat_deg * 1e7), .lon = (int32_t)lround(s->lon_deg * 1e7),
			.alt = (int32_t)lroundf(s->alt_msl_m * 1000), .relative_alt = (int32_t)lroundf(s->alt_rel_m * 1000),
			.vx = (int16_t)lroundf(s->vel_ned_m_s[0] * 100), .vy = (int16_t)lroundf(s->vel_ned_m_s[1] * 100),
			.vz = (int16_t)lroundf(s->vel_ned_m_s[2] * 100),
			.hdg = (uint16_t)lroundf(fmodf(hdg + 360.0f, 360.0f) * 100),
		};
		mavlink_global_position_int_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_LOCAL_POSITION_NED: {
		/* The estimator's local frame: from its origin, the first good GPS fix. */
		if (!g->in.estimator.local_valid || !has(g, pos | alt))
			return false;
		const float *x = g->in.estimator.local_ned_m;
		struct mavlink_local_position_ned m = {
			.time_boot_ms = (uint32_t)(s->t_us / 1000), .x = x[0], .y = x[1], .z = x[2],
			.vx = s->vel_ned_m_s[0], .vy = s->vel_ned_m_s[1], .vz = s->vel_ned_m_s[2],
		};
		mavlink_local_position_ned_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_ESTIMATOR_STATUS: {
		if (!g->in.estimator.present)
			return false;
		/* ESTIMATOR_STATUS_FLAGS share EKF_STATUS_FLAGS' first bits. */
		const struct gcs_estimator *e = &g->in.estimator;
		struct mavlink_estimator_status m = {
			.time_usec = s->t_us, .flags = e->ekf_flags, .vel_ratio = e->velocity_variance,
			.pos_horiz_ratio = e->pos_horiz_variance, .pos_vert_ratio = e->pos_vert_variance,
			.mag_ratio = e->compass_variance, .hagl_ratio = e->terrain_alt_variance,
			.tas_ratio = e->airspeed_variance, .pos_horiz_accuracy = e->pos_horiz_accuracy_m,
			.pos_vert_accuracy = e->pos_vert_accuracy_m,
		};
		mavlink_estimator_status_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_VFR_HUD: {
		if (!has(g, att | alt))
			return false;
		float gs = hypotf(s->vel_ned_m_s[0], s->vel_ned_m_s[1]);
		/* Percent of the throttle channel's travel, as the motor is driven. */
		float thr = isfinite(g->in.throttle) ? g->in.throttle * 100.0f : 0.0f;
		struct mavlink_vfr_hud m = {
			.throttle = (uint16_t)(thr <= 0.0f ? 0 : thr >= 100.0f ? 100 : lroundf(thr)),
			.airspeed = (s->valid & VEHICLE_AIRSPEED_VALID) ? s->airspeed_m_s : gs,
			.groundspeed = has(g, pos) ? gs : 0, .alt = s->alt_msl_m,
			.climb = -s->vel_ned_m_s[2],
			.heading = (int16_t)lroundf(fmodf(s->yaw_rad * 57.29578f + 360.0f, 360.0f)),
		};
		mavlink_vfr_hud_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_HOME_POSITION: {
		/* Home is mission item 0, as ArduPilot keeps it. */
		if (!g->mission || g->mission->count == 0)
			return false;
		const struct mission_item *h = &g->mission->items[0];
		struct mavlink_home_position m = { .latitude = h->x, .longitude = h->y,
						   .altitude = (int32_t)lroundf(h->z * 1000),
						   .q = { 1, 0, 0, 0 } };
		mavlink_home_position_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_GPS_RAW_INT: {
		if (!g->in.gps.present)
			return false;
		struct mavlink_gps_raw_int m = {
			.time_usec = s->t_us, .fix_type = g->in.gps.fix_type, .lat = g->in.gps.lat_e7,
			.lon = g->in.gps.lon_e7, .alt = g->in.gps.alt_mm, .eph = g->in.gps.eph_cm,
			.epv = g->in.gps.epv_cm, .vel = g->in.gps.vel_cm_s, .cog = g->in.gps.cog_cdeg,
			.satellites_visible = g->in.gps.satellites,
		};
		mavlink_gps_raw_int_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_NAV_CONTROLLER_OUTPUT: {
		if (!g->in.nav.active)
			return false;
		struct mavlink_nav_controller_output m = {
			.nav_roll = g->in.nav.nav_roll_deg, .nav_pitch = g->in.nav.nav_pitch_deg,
			.nav_bearing = g->in.nav.nav_bearing_deg,
			.target_bearing = g->in.nav.target_bearing_deg, .wp_dist = g->in.nav.wp_dist_m,
			.alt_error = g->in.nav.alt_error_m, .aspd_error = g->in.nav.aspd_error_m_s,
			.xtrack_error = g->in.nav.xtrack_error_m,
		};
		mavlink_nav_controller_output_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_RC_CHANNELS: {
		if (g->in.rc.count == 0)
			return false;
		const uint16_t *c = g->in.rc.us;
		struct mavlink_rc_channels m = {
			.time_boot_ms = (uint32_t)(s->t_us / 1000), .chancount = g->in.rc.count,
			.chan1_raw = c[0], .chan2_raw = c[1], .chan3_raw = c[2], .chan4_raw = c[3],
			.chan5_raw = c[4], .chan6_raw = c[5], .chan7_raw = c[6], .chan8_raw = c[7],
			.chan9_raw = c[8], .chan10_raw = c[9], .chan11_raw = c[10], .chan12_raw = c[11],
			.chan13_raw = c[12], .chan14_raw = c[13], .chan15_raw = c[14], .chan16_raw = c[15],
			.chan17_raw = c[16], .chan18_raw = c[17], .rssi = g->in.rc.rssi,
		};
		mavlink_rc_channels_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_SERVO_OUTPUT_RAW: {
		if (g->in.servo.count == 0)
			return false;
		const uint16_t *o = g->in.servo.us;
		struct mavlink_servo_output_raw m = {
			.time_usec = (uint32_t)s->t_us,
			.servo1_raw = o[0], .servo2_raw = o[1], .servo3_raw = o[2], .servo4_raw = o[3],
			.servo5_raw = o[4], .servo6_raw = o[5], .servo7_raw = o[6], .servo8_raw = o[7],
			.servo9_raw = o[8], .servo10_raw = o[9], .servo11_raw = o[10],
			.servo12_raw = o[11], .servo13_raw = o[12], .servo14_raw = o[13],
			.servo15_raw = o[14], .servo16_raw = o[15],
		};
		mavlink_servo_output_raw_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_SCALED_IMU: {
		if (g->in.imu.t_us == 0)
			return false;
		/* mG, mrad/s, mgauss (1 uT = 10 mgauss), cdegC */
		const float *a = g->in.imu.accel_m_s2, *w = g->in.imu.gyro_rad_s, *b = g->in.imu.mag_ut;
		const float mg = 1000.0f / 9.80665f;
		bool mag = isfinite(b[0]);
		struct mavlink_scaled_imu m = {
			.time_boot_ms = (uint32_t)(g->in.imu.t_us / 1000),
			.xacc = sat16(a[0] * mg), .yacc = sat16(a[1] * mg), .zacc = sat16(a[2] * mg),
			.xgyro = sat16(w[0] * 1000.0f), .ygyro = sat16(w[1] * 1000.0f),
			.zgyro = sat16(w[2] * 1000.0f),
			.xmag = mag ? sat16(b[0] * 10.0f) : 0, .ymag = mag ? sat16(b[1] * 10.0f) : 0,
			.zmag = mag ? sat16(b[2] * 10.0f) : 0,
			.temperature = sat16(g->in.imu.temp_c * 100.0f),
		};
		mavlink_scaled_imu_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_SCALED_PRESSURE: {
		if (g->in.baro.t_us == 0)
			return false;
		float diff = g->in.baro.diff_pressure_pa;
		struct mavlink_scaled_pressure m = {
			.time_boot_ms = (uint32_t)(g->in.baro.t_us / 1000),
			.press_abs = g->in.baro.pressure_pa * 0.01f,
			.press_diff = isfinite(diff) ? diff * 0.01f : 0.0f,
			.temperature = sat16(g->in.baro.temp_c * 100.0f),
		};
		mavlink_scaled_pressure_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_RANGEFINDER: {
		/* ArduPlane's: the downward rangefinder's distance (m) and voltage (an analog one's) */
		if (!g->in.rangefinder.present || g->in.rangefinder.orientation != 25)
			return false;
		struct mavlink_rangefinder m = { .distance = g->in.rangefinder.distance_m,
						 .voltage = 0.0f };
		mavlink_rangefinder_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_DISTANCE_SENSOR: {
		/* As ArduPilot: each rangefinder with data, its limits, cm, laser */
		if (!g->in.rangefinder.present || !g->in.rangefinder.has_data)
			return false;
		int q = g->in.rangefinder.quality_pct;
		struct mavlink_distance_sensor m = {
			.time_boot_ms = (uint32_t)(g->in.state.t_us / 1000),
			.min_distance = cm16(g->in.rangefinder.min_m),
			.max_distance = cm16(g->in.rangefinder.max_m),
			.current_distance = cm16(g->in.rangefinder.distance_m),
			.type = 0,           /* MAV_DISTANCE_SENSOR_LASER */
			.id = 0,
			.orientation = g->in.rangefinder.orientation,
			.covariance = 0,
			/* MAVLink: 0 unknown, 1 invalid, 100 perfect */
			.signal_quality = (uint8_t)(q < 1 ? 0 : q > 100 ? 100 : q),
		};
		mavlink_distance_sensor_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_BATTERY_STATUS: {
		if (!g->in.battery.present)
			return false;
		struct mavlink_battery_status m = {
			.id = 0, .battery_function = 0, .type = 0, .temperature = INT16_MAX,
			.current_battery = isfinite(g->in.battery.current_a) ?
				(int16_t)lroundf(g->in.battery.current_a * 100) : -1,
			.current_consumed = isfinite(g->in.battery.consumed_mah) ?
				(int32_t)lroundf(g->in.battery.consumed_mah) : -1,
			.energy_consumed = -1, .battery_remaining = remaining(g),
		};
		/* The pack voltage as one cell, the rest "not present" (MAVLink's UINT16_MAX). */
		for (int i = 0; i < 10; i++)
			m.voltages[i] = UINT16_MAX;
		if (isfinite(g->in.battery.voltage_v))
			m.voltages[0] = (uint16_t)lroundf(g->in.battery.voltage_v * 1000);
		mavlink_battery_status_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_RAW_IMU: {
		if (g->in.imu.t_us == 0)
			return false;
		/* As ArduPilot sends it: the first IMU in SCALED_IMU's units (mG, mrad/s, mgauss). */
		const float *a = g->in.imu.accel_m_s2, *w = g->in.imu.gyro_rad_s, *b = g->in.imu.mag_ut;
		const float mg = 1000.0f / 9.80665f;
		bool mag = isfinite(b[0]);
		struct mavlink_raw_imu m = {
			.time_usec = g->in.imu.t_us,
			.xacc = sat16(a[0] * mg), .yacc = sat16(a[1] * mg), .zacc = sat16(a[2] * mg),
			.xgyro = sat16(w[0] * 1000.0f), .ygyro = sat16(w[1] * 1000.0f),
			.zgyro = sat16(w[2] * 1000.0f),
			.xmag = mag ? sat16(b[0] * 10.0f) : 0, .ymag = mag ? sat16(b[1] * 10.0f) : 0,
			.zmag = mag ? sat16(b[2] * 10.0f) : 0,
			.id = 0, .temperature = sat16(g->in.imu.temp_c * 100.0f),
		};
		/* MAVLink's "temperature not known" is 0; a true 0 degC goes as 1 cdegC. */
		if (m.temperature == 0)
			m.temperature = 1;
		mavlink_raw_imu_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_POSITION_TARGET_GLOBAL_INT: {
		if (!g->in.target.valid)
			return false;
		/* As ArduPlane: the position only (velocity, acceleration and yaw
		 * ignored, bits 3-8 and 10-11, and the top nibble), above sea level. */
		struct mavlink_position_target_global_int m = {
			.time_boot_ms = (uint32_t)(s->t_us / 1000), .coordinate_frame = 0,
			.type_mask = 0xFDF8, .lat_int = g->in.target.lat_e7,
			.lon_int = g->in.target.lon_e7, .alt = g->in.target.alt_msl_m,
		};
		mavlink_position_target_global_int_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_POWER_STATUS: {
		struct mavlink_power_status m = {
			.Vcc = (uint16_t)lroundf(fminf(fmaxf(g->in.power.vcc_v, 0.0f), 65.0f) * 1000),
			.Vservo = (uint16_t)lroundf(fminf(fmaxf(g->in.power.vservo_v, 0.0f), 65.0f) * 1000),
			.flags = g->in.power.flags,
		};
		mavlink_power_status_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_MEMINFO: {
		if (g->in.mem_avail_bytes == 0)
			return false;
		/* brkval has no meaning for a 64-bit Linux process: 0. */
		uint64_t b = g->in.mem_avail_bytes;
		struct mavlink_meminfo m = {
			.brkval = 0, .freemem = (uint16_t)(b > UINT16_MAX ? UINT16_MAX : b),
			.freemem32 = (uint32_t)(b > UINT32_MAX ? UINT32_MAX : b),
		};
		mavlink_meminfo_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_AHRS: {
		if (!has(g, att))
			return false;
		/* omegaI is the drift correction: minus the estimated gyro bias, as
		 * ArduPilot gives its EKF's. The errors: the filter's 1-sigma tilt and
		 * heading uncertainty (rad), which is what its DCM's figures meant. */
		const struct gcs_estimator *e = &g->in.estimator;
		struct mavlink_ahrs m = {
			.omegaIx = -e->gyro_bias_rad_s[0], .omegaIy = -e->gyro_bias_rad_s[1],
			.omegaIz = -e->gyro_bias_rad_s[2], .accel_weight = 0, .renorm_val = 0,
			.error_rp = e->tilt_sigma_rad, .error_yaw = e->yaw_sigma_rad,
		};
		mavlink_ahrs_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_WIND: {
		if (!(s->valid & VEHICLE_WIND_VALID))
			return false;
		/* The direction the wind blows FROM, degrees 0..360; the estimate is
		 * the air's velocity over the ground (towards), and horizontal only. */
		float wn = s->wind_ne_m_s[0], we = s->wind_ne_m_s[1];
		float from = atan2f(-we, -wn) * 57.29578f;
		struct mavlink_wind m = { .direction = fmodf(from + 360.0f, 360.0f),
					  .speed = hypotf(wn, we), .speed_z = 0 };
		mavlink_wind_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_AHRS2: {
		const struct gcs_estimator *e = &g->in.estimator;
		if (!e->delayed_valid)
			return false;
		struct mavlink_ahrs2 m = {
			.roll = e->delayed_rpy_rad[0], .pitch = e->delayed_rpy_rad[1],
			.yaw = e->delayed_rpy_rad[2],
		};
		if (e->delayed_pos_valid) {
			m.altitude = e->delayed_alt_msl_m;
			m.lat = e->delayed_lat_e7;
			m.lng = e->delayed_lon_e7;
		}
		mavlink_ahrs2_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_VIBRATION: {
		if (!g->in.vibe.valid)
			return false;
		/* One accelerometer: its clipping count in clipping_0. */
		struct mavlink_vibration m = {
			.time_usec = g->in.imu.t_us, .vibration_x = g->in.vibe.level_m_s2[0],
			.vibration_y = g->in.vibe.level_m_s2[1], .vibration_z = g->in.vibe.level_m_s2[2],
			.clipping_0 = g->in.vibe.clipped,
		};
		mavlink_vibration_pack(&m, p);
		return true;
	}
	case MAVLINK_MSG_ID_AUTOPILOT_VERSION: {
		struct mavlink_autopilot_version m = {
			/* MISSION_FLOAT, PARAM_FLOAT, MISSION_INT, COMMAND_INT, MAVLINK2 */
			.capabilities = 1 | 2 | 4 | 8 | 8192,
			.flight_sw_version = FULMAR_SW_VERSION,
		};
		/* MISSION_FENCE, MISSION_RALLY: where the owner keeps the lists. */
		if (g->fence)
			m.capabilities |= 16384;
		if (g->rally)
			m.capabilities |= 32768;
		memcpy(m.flight_custom_version, "fulmar\0", 8);
		mavlink_autopilot_version_pack(&m, p);
		return true;
	}
	}
	return false;
}

int gcs_set_home(int32_t lat_e7, int32_t lon_e7, float alt_msl_m, struct gcs *g)
{
	if (!g->mission || lat_e7 < -900000000 || lat_e7 > 900000000 || lon_e7 < -1800000000 ||
	    lon_e7 > 1800000000 || !isfinite(alt_msl_m))
		return -EINVAL;
	struct mission *m = g->mission;
	if (m->count == 0)
		m->count = 1;
	/* MAV_CMD_NAV_WAYPOINT in MAV_FRAME_GLOBAL: ArduPilot's home item. */
	m->items[0] = (struct mission_item){ .command = 16, .frame = 0, .autocontinue = 1,
					     .x = lat_e7, .y = lon_e7, .z = alt_msl_m };
	g->mission_generation++;
	gcs_send_message(g, GCS_LINK_ALL, MAVLINK_MSG_ID_HOME_POSITION);
	return 0;
}

int gcs_send_message(struct gcs *g, int link, uint32_t msgid)
{
	uint8_t p[255];
	if (msgid == MAVLINK_MSG_ID_HEARTBEAT) {
		gcs_heartbeat(g, link);
		return 0;
	}
	if (slot(msgid) < 0)
		return -ENOENT;
	if (!build(g, msgid, p))
		return -EAGAIN;
	g->tx.send(g->tx.ctx, link, msgid, p);
	return 0;
}

/* The SRn_ parameter of group on link l (links past 2 share SR2), or -1. */
static int group_param(const struct gcs *g, int l, const char *group)
{
	char name[PARAM_NAME_LEN + 1];
	snprintf(name, sizeof(name), "SR%d_%s", l < 3 ? l : 2, group);
	(void)g;
	return param_find(name);
}

static void set_group(struct gcs *g, int link, const char *group, float hz)
{
	int p = group_param(g, link, group);
	/* Set only when it changes: each change is a parameter save. */
	if (p >= 0 && param_get(p) != hz)
		param_set(p, hz);
	/* ArduPilot's stream request replaces the messages' own intervals. */
	for (int i = 0; i < GCS_STREAM_COUNT; i++)
		if (streams[i].group && strcmp(streams[i].group, group) == 0) {
			g->link[link].interval_us[i] = 0;
			g->link[link].next_us[i] = 0;
		}
}

int gcs_request_data_stream(struct gcs *g, int link, uint8_t stream_id, uint16_t rate_hz,
			    uint8_t start_stop)
{
	if (link < 0 || link >= GCS_MAX_LINKS || start_stop > 1)
		return -EINVAL;
	int p0 = group_param(g, 0, "EXTRA1");
	float max = p0 >= 0 ? param_defs[p0].max : 50.0f;
	float hz = start_stop == 0 ? 0.0f : rate_hz > max ? max : (float)rate_hz;
	bool found = false;
	for (size_t i = 0; i < sizeof(data_streams) / sizeof(data_streams[0]); i++)
		if (stream_id == 0 || stream_id == data_streams[i].id) {
			set_group(g, link, data_streams[i].group, hz);
			found = true;
		}
	return found ? 0 : -EINVAL;
}

bool gcs_streams_handle(struct gcs *g, int link, const struct mavlink_frame *f)
{
	if (f->msgid != MAVLINK_MSG_ID_REQUEST_DATA_STREAM)
		return false;
	struct mavlink_request_data_stream m;
	mavlink_request_data_stream_unpack(mavlink_payload(f), f->len, &m);
	if (!gcs_for_us(g, m.target_system, m.target_component)) {
		g->stats.not_for_us++;
		return true;
	}
	if (gcs_request_data_stream(g, link, m.req_stream_id, m.req_message_rate, m.start_stop))
		g->stats.stream_refused++;
	return true;
}

void gcs_set_link_bandwidth(struct gcs *g, int link, uint32_t bytes_per_s)
{
	if (link >= 0 && link < GCS_MAX_LINKS)
		g->link[link].bytes_per_s = bytes_per_s;
}

/* The bytes a packed payload takes on the wire: MAVLink 2 drops its trailing zeros. */
static uint16_t wire_len(const struct gcs *g, uint32_t msgid, const uint8_t *p)
{
	static const uint8_t zero[32];
	const struct mavlink_msg_info *info = mavlink_msg_info(msgid);
	int n = info ? info->max_len : 1;
	while (n > 1 && p[n - 1] == 0)
		n--;
	bool signing = memcmp(g->signing_key, zero, sizeof(zero)) != 0;
	return (uint16_t)(MAVLINK_V2_HEADER_LEN + n + 2 + (signing ? MAVLINK_SIGNATURE_LEN : 0));
}

/*
 * A limited link: the streams it can carry, highest priority first, within
 * its stream share; the rest are shed whole (a stream sent at half its rate
 * helps nobody as much as the one above it sent at its full rate). What the
 * streams leave is the parameter lists' to use. A change is told.
 */
static void admit(struct gcs *g, int l, uint64_t now_us, uint64_t dt_us)
{
	struct gcs_link_state *ls = &g->link[l];
	float budget = ls->bytes_per_s * GCS_STREAM_SHARE, used = 0.0f;
	uint32_t mask = 0;
	for (int i = 0; i < GCS_STREAM_COUNT; i++) {
		uint64_t iv = interval(g, l, i);
		if (iv == 0 || unused(g, streams[i].msgid))
			continue;
		float cost = ls->frame_len[i] * 1e6f / (float)iv;
		if (used + cost > budget)
			mask |= UINT32_C(1) << i;
		else
			used += cost;
	}
	ls->shed_mask = mask;
	float spare = ls->bytes_per_s * 0.95f - used;
	ls->param_credit += spare * (float)dt_us * 1e-6f;
	if (ls->param_credit > spare * GCS_PARAM_BURST_S)
		ls->param_credit = spare * GCS_PARAM_BURST_S;
	/* Told at most every GCS_SHED_TELL_US: the mask moves as frame lengths do. */
	if (mask != ls->shed_said && (ls->shed_told_us == 0 ||
				      now_us - ls->shed_told_us >= GCS_SHED_TELL_US)) {
		ls->shed_said = mask;
		ls->shed_told_us = now_us ? now_us : 1;
		int n = __builtin_popcount(mask);
		if (n)
			gcs_text(g, GCS_SEV_WARNING, "Link %d: %d streams shed, %u B/s too few", l,
				 n, (unsigned int)ls->bytes_per_s);
		else
			gcs_text(g, GCS_SEV_INFO, "Link %d: all streams sent", l);
	}
}

bool gcs_link_param_room(struct gcs *g, int link, unsigned int bytes)
{
	struct gcs_link_state *ls = &g->link[link];
	if (ls->bytes_per_s == 0)
		return true;
	if (ls->param_credit < (float)bytes)
		return false;
	ls->param_credit -= (float)bytes;
	return true;
}

void gcs_streams_tick(struct gcs *g, uint64_t now_us)
{
	uint64_t dt_us = g->streams_last_us && now_us > g->streams_last_us ?
			 now_us - g->streams_last_us : 0;
	g->streams_last_us = now_us;
	for (int l = 0; l < GCS_MAX_LINKS; l++) {
		struct gcs_link_state *ls = &g->link[l];
		if (ls->bytes_per_s)
			admit(g, l, now_us, dt_us);
		for (int i = 0; i < GCS_STREAM_COUNT; i++) {
			uint64_t iv = interval(g, l, i);
			if (iv == 0 || now_us + GCS_STREAM_SLACK_US < ls->next_us[i])
				continue;
			/* Drift-free; a whole period missed (a stall) starts again from now. */
			ls->next_us[i] = now_us >= ls->next_us[i] + iv ? now_us + iv : ls->next_us[i] + iv;
			if (ls->shed_mask & (UINT32_C(1) << i)) {
				ls->shed_msgs++;
				continue;
			}
			uint8_t p[255];
			if (build(g, streams[i].msgid, p)) {
				ls->frame_len[i] = wire_len(g, streams[i].msgid, p);
				g->tx.send(g->tx.ctx, l, streams[i].msgid, p);
			}
		}
	}
}
