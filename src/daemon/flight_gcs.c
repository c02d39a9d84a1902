// SPDX-License-Identifier: GPL-3.0-or-later
/* What the ground station is told of the sensors, the estimate and the outputs. */
#include "daemon/flight_internal.h"

#include <math.h>
#include <string.h>

#include "estim/estim_math.h"
#include "estim/vibe.h"

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
	bool copter = flight.vehicle->kind == VEHICLE_COPTER;
	in->target.valid = (flight.vs.valid & VEHICLE_ALTITUDE_VALID) &&
			   (copter ? copter_target(&flight.copter, &tgt) :
				     flight.po.nav_active && nav_target(&flight.plane.nav, &tgt));
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
	const struct rangefinder_reading *rng = rangefinder_get(&flight.rng);
	in->rangefinder.present = flight.rng_p.type != 0;
	in->rangefinder.has_data = rng->status != RANGEFINDER_NOT_CONNECTED &&
				   rng->status != RANGEFINDER_NO_DATA;
	in->rangefinder.healthy = rng->healthy;
	in->rangefinder.distance_m = rng->distance_m;
	in->rangefinder.min_m = flight.rng_p.min_m;
	in->rangefinder.max_m = flight.rng_p.max_m;
	in->rangefinder.orientation = (uint8_t)flight.rng_p.orient;
	in->rangefinder.quality_pct = flight.rng.have ? flight.rng_sample.quality_pct : -1;
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
	if (copter) {
		/* ArduCopter's: sent in every mode; the attitude target, and the
		 * distance and bearing to the point flown to when there is one */
		const struct copter_output *co = &flight.co;
		memset(&in->nav, 0, sizeof(in->nav));
		in->nav.active = (flight.vs.valid & VEHICLE_ATTITUDE_VALID) != 0;
		in->nav.nav_roll_deg = co->roll_target_rad * 57.29578f;
		in->nav.nav_pitch_deg = co->pitch_target_rad * 57.29578f;
		in->nav.nav_bearing_deg = (int16_t)lroundf(co->yaw_target_rad * 57.29578f);
		if (in->target.valid && (flight.vs.valid & VEHICLE_POSITION_VALID)) {
			float b = nav_geo_bearing_ll_rad(flight.vs.lat_deg, flight.vs.lon_deg,
							 tgt.lat_deg, tgt.lon_deg) * 57.29578f;
			in->nav.target_bearing_deg = (int16_t)(lroundf(b) % 360);
			in->nav.wp_dist_m = (uint16_t)fminf(nav_geo_distance_ll_m(flight.vs.lat_deg,
						flight.vs.lon_deg, tgt.lat_deg, tgt.lon_deg), 65535.0f);
			in->nav.alt_error_m = tgt.alt_rel_m - flight.vs.alt_rel_m;
		}
	} else {
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
	}
	if (copter) {
		const struct copter *c = &flight.copter;
		in->fence.enabled = flight.cp.fence.fence_enable != 0.0f;
		in->fence.breaches = c->fence_breaches;
		in->fence.breach_type = c->fence_breach_type;
		in->fence.breach_count = c->fence_breach_count;
		in->fence.breach_time_ms = (uint32_t)(c->fence_breach_us / 1000u);
	} else {
		const struct plane_fence *f = &flight.plane.fence;
		in->fence.enabled = flight.pp.fence.fence_enable != 0.0f;
		in->fence.breaches = f->breaches;
		in->fence.breach_type = f->breach_type;
		in->fence.breach_count = f->breach_count;
		in->fence.breach_time_ms = (uint32_t)(f->breach_us / 1000u);
	}
}
