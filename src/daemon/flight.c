// SPDX-License-Identifier: GPL-3.0-or-later
#define LOG_TAG "flight"
#include "daemon/flight.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "util/log.h"

/* ArduPlane's default channel map and safe pulses (SERVOn_TRIM, throttle SERVO3_MIN). */
#define FLIGHT_OUTPUTS 4
static const uint16_t safe_us[FLIGHT_OUTPUTS] = { 1500, 1500, 1000, 1500 };

static struct flight {
	struct sensor_hub *hub;
	struct rcout *out;
	struct imu_sample imu;          /* latest taken */
	uint64_t imu_taken;
	_Atomic bool armed;
	uint64_t out_errors;
} fl;

void flight_init(struct sensor_hub *hub, struct rcout *out)
{
	memset(&fl, 0, sizeof(fl));
	fl.hub = hub;
	fl.out = out;
	atomic_init(&fl.armed, false);
}

bool flight_armed(void)
{
	return atomic_load_explicit(&fl.armed, memory_order_relaxed);
}

void flight_task(void *ctx, uint64_t now_us)
{
	(void)ctx;
	(void)now_us;
	struct imu_sample batch[FLIGHT_IMU_BATCH];
	size_t n;
	while ((n = sensors_read_imu(fl.hub, batch, FLIGHT_IMU_BATCH)) > 0) {
		fl.imu = batch[n - 1];
		fl.imu_taken += n;
	}
	if (!fl.out)
		return;
	for (unsigned int ch = 0; ch < FLIGHT_OUTPUTS && ch < rcout_channels(fl.out); ch++) {
		int rc = rcout_write(fl.out, ch, safe_us[ch]);
		if (rc && fl.out_errors++ == 0)
			log_err("servo output %u: %d (counting from now on)", ch + 1, rc);
	}
}

void flight_fill_gcs(struct gcs_inputs *in)
{
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
	struct gps_fix g;
	if (sensors_latest(fl.hub, SENSOR_GPS, &g)) {
		in->gps.present = true;
		in->gps.fix_type = g.fix == GPS_FIX_3D ? 3 : g.fix == GPS_FIX_2D ? 2 : 1;
		in->gps.lat_e7 = (int32_t)lround(g.lat_deg * 1e7);
		in->gps.lon_e7 = (int32_t)lround(g.lon_deg * 1e7);
		in->gps.alt_mm = (int32_t)lroundf(g.alt_msl_m * 1000.0f);
		in->gps.eph_cm = isfinite(g.h_acc_m) ? (uint16_t)fminf(g.h_acc_m * 100.0f, 65534.0f) :
						       UINT16_MAX;
		in->gps.epv_cm = isfinite(g.v_acc_m) ? (uint16_t)fminf(g.v_acc_m * 100.0f, 65534.0f) :
						       UINT16_MAX;
		in->gps.vel_cm_s = (uint16_t)fminf(g.ground_speed_m_s * 100.0f, 65534.0f);
		in->gps.cog_cdeg = isfinite(g.course_deg) ? (uint16_t)(g.course_deg * 100.0f) :
							    UINT16_MAX;
		in->gps.satellites = g.num_sv;
	}
	struct battery_sample b;
	if (sensors_latest(fl.hub, SENSOR_BATTERY, &b)) {
		in->battery.present = true;
		in->battery.voltage_v = b.voltage_v;
		in->battery.current_a = b.current_a;
		in->battery.consumed_mah = b.consumed_mah;
		in->battery.remaining_pct = -1;
	}
	struct rc_frame rc;
	if (sensors_latest(fl.hub, SENSOR_RC, &rc)) {
		in->rc.count = rc.channel_count;
		memcpy(in->rc.us, rc.channels_us, sizeof(in->rc.us));
		in->rc.rssi = 255;
	}
	if (fl.out) {
		unsigned int n = rcout_channels(fl.out);
		in->servo.count = (uint8_t)(n > 16 ? 16 : n);
		for (unsigned int ch = 0; ch < in->servo.count; ch++)
			rcout_read(fl.out, ch, &in->servo.us[ch]);
	}
}
