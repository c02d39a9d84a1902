// SPDX-License-Identifier: GPL-3.0-or-later
#include "mavlink/gcs_health.h"

/* Whether a sample at t_us is no older than max_us at now_us (t_us 0: none ever). */
static bool fresh(uint64_t t_us, uint64_t now_us, uint64_t max_us)
{
	return t_us != 0 && (t_us >= now_us || now_us - t_us <= max_us);
}

/* What ArduCopter's modes fly by (its update_vehicle_sensor_status_flags):
 * rates, attitude and yaw always; height in ALT_HOLD; position too in the
 * modes that navigate. */
static uint32_t copter_mode_controls(uint32_t m)
{
	const uint32_t stab = GCS_SENSOR_RATE_CONTROL | GCS_SENSOR_ATTITUDE_STAB | GCS_SENSOR_YAW_POSITION;
	switch (m) {
	case COPTER_ALT_HOLD:
		return stab | GCS_SENSOR_Z_ALTITUDE;
	case COPTER_AUTO:
	case COPTER_GUIDED:
	case COPTER_LOITER:
	case COPTER_RTL:
	case COPTER_LAND:
	case COPTER_POSHOLD:
	case COPTER_BRAKE:
		return stab | GCS_SENSOR_Z_ALTITUDE | GCS_SENSOR_XY_POSITION;
	default:
		return stab;
	}
}

/* What ArduPlane's modes fly by (its update_vehicle_sensor_status_flags). */
static uint32_t mode_controls(enum vehicle_kind kind, uint32_t mode)
{
	if (kind == VEHICLE_COPTER)
		return copter_mode_controls(mode);
	enum plane_mode m = (enum plane_mode)mode;
	const uint32_t stab = GCS_SENSOR_RATE_CONTROL | GCS_SENSOR_ATTITUDE_STAB;
	const uint32_t nav = stab | GCS_SENSOR_YAW_POSITION | GCS_SENSOR_Z_ALTITUDE |
			     GCS_SENSOR_XY_POSITION;
	switch (m) {
	case PLANE_ACRO:
		return GCS_SENSOR_RATE_CONTROL;
	case PLANE_STABILIZE:
	case PLANE_TRAINING:
	case PLANE_FBWA:
	case PLANE_AUTOTUNE:
		return stab;
	case PLANE_FBWB:
	case PLANE_CRUISE:
		return stab | GCS_SENSOR_Z_ALTITUDE;
	case PLANE_CIRCLE:
	case PLANE_AUTO:
	case PLANE_RTL:
	case PLANE_LOITER:
	case PLANE_TAKEOFF:
	case PLANE_GUIDED:
		return nav;
	case PLANE_MANUAL:
	case PLANE_INITIALISING:
		break;
	}
	return 0;
}

/* One sensor or subsystem into the three masks. */
static void put(struct gcs_health *o, uint32_t bit, bool present, bool enabled, bool healthy)
{
	if (present)
		o->present |= bit;
	if (enabled)
		o->enabled |= bit;
	if (healthy)
		o->health |= bit;
}

void gcs_health_bits(const struct gcs_health_in *in, struct gcs_health *out)
{
	struct gcs_health o = { 0 };
	uint64_t now = in->now_us;
	bool imu = fresh(in->imu_us, now, GCS_HEALTH_FAST_US);
	put(&o, GCS_SENSOR_GYRO, true, true, imu);
	put(&o, GCS_SENSOR_ACCEL, true, true, imu);
	put(&o, GCS_SENSOR_BARO, true, true, fresh(in->baro_us, now, GCS_HEALTH_FAST_US));
	bool mag = in->mag_us != 0, aspd = in->airspeed_us != 0;
	put(&o, GCS_SENSOR_MAG, mag, mag, fresh(in->mag_us, now, GCS_HEALTH_FAST_US));
	put(&o, GCS_SENSOR_AIRSPEED, aspd, aspd && !in->airspeed_disabled,
	    fresh(in->airspeed_us, now, GCS_HEALTH_FAST_US) && !in->airspeed_disabled);
	bool gps = in->gps_us != 0;
	put(&o, GCS_SENSOR_GPS, gps, gps,
	    fresh(in->gps_us, now, GCS_HEALTH_GPS_US) && in->gps_fix_type >= 3);
	bool rc = in->rc_us != 0;
	put(&o, GCS_SENSOR_RC_RECEIVER, rc, rc, rc && !in->rc_bad);
	put(&o, GCS_SENSOR_AHRS, true, true, in->attitude_valid);
	uint32_t ctl = GCS_SENSOR_RATE_CONTROL | GCS_SENSOR_ATTITUDE_STAB | GCS_SENSOR_YAW_POSITION |
		       GCS_SENSOR_Z_ALTITUDE | GCS_SENSOR_XY_POSITION;
	o.present |= ctl;
	o.enabled |= mode_controls(in->kind, in->mode);
	o.health |= ctl;
	put(&o, GCS_SENSOR_MOTOR_OUTPUTS, in->servo_outputs, in->servo_outputs && in->armed,
	    in->servo_outputs);
	put(&o, GCS_SENSOR_LOGGING, in->log_wanted, in->log_wanted, !in->log_wanted || in->log_ok);
	bool batt = in->battery_us != 0;
	put(&o, GCS_SENSOR_BATTERY, batt, batt,
	    fresh(in->battery_us, now, GCS_HEALTH_BATTERY_US) && !in->battery_failsafe);
	put(&o, GCS_SENSOR_LASER_POSITION, in->rangefinder, in->rangefinder,
	    in->rangefinder && in->rangefinder_data);
	put(&o, GCS_SENSOR_PREARM_CHECK, true, true, in->prearm_ok || in->armed);
	put(&o, GCS_SENSOR_GEOFENCE, in->fence_present || in->fence_enabled, in->fence_enabled,
	    !in->fence_breached);
	uint32_t b = in->board_present;
	uint32_t mine = o.health | ~o.present;   /* what we judged and found well, or did not judge */
	o.present |= b;
	o.enabled = (o.enabled & ~b) | (in->board_enabled & b);
	o.health = (o.health & ~b) | (in->board_health & mine & b);
	*out = o;
}
