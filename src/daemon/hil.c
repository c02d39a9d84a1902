// SPDX-License-Identifier: GPL-3.0-or-later
#define LOG_TAG "hil"
#include "daemon/hil.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "fulmar/clock.h"
#include "linux/hal_linux.h"
#include "mavlink_msgs.h"
#include "util/log.h"

/* HIL_SENSOR fields_updated bits (MAVLink HIL_SENSOR_UPDATED_FLAGS) */
#define HIL_ACCEL 0x0007u
#define HIL_GYRO 0x0038u
#define HIL_MAG 0x01C0u
#define HIL_ABS_PRESSURE 0x0200u
#define HIL_DIFF_PRESSURE 0x0400u
#define HIL_TEMPERATURE 0x1000u
#define HIL_RESET 0x80000000u
#define MAV_MODE_FLAG_SAFETY_ARMED 128u
#define MAV_TYPE_FIXED_WING 1
#define MAV_AUTOPILOT_ARDUPILOTMEGA 3
#define HIL_RESTART_BACK_US 1000000u    /* time back by more than this: a new flight */
/* Real time: steps this much later than the mapping, for this long, move it (stamp_step). */
#define HIL_CLOCK_LATE_US 100000
#define HIL_CLOCK_HOLD_US 250000u
#define HIL_CLOCK_SETTLE_US 1000000u      /* the mapping's least offset is found over this */

int hil_spec_parse(const char *text, struct link_spec *out)
{
	char buf[256];
	if (strncmp(text, "udp:", 4) == 0) {
		if (snprintf(buf, sizeof(buf), "udp-client:%s", text + 4) >= (int)sizeof(buf))
			return -EINVAL;
		return link_spec_parse(buf, out);
	}
	if (strncmp(text, "serial:", 7) == 0)
		return link_spec_parse(text, out);
	return -EINVAL;
}

/* rcout ops: the pulse widths stand until hil_send_outputs takes them. */
static struct hil_rcout *to_hil(struct rcout *out)
{
	return (struct hil_rcout *)out;
}

static int hil_set_rate(struct rcout *out, uint32_t mask, uint16_t rate_hz)
{
	(void)out;
	(void)mask;
	return rate_hz >= 1 && rate_hz <= 490 ? 0 : -EINVAL;
}

static int hil_write(struct rcout *out, unsigned int ch, uint16_t pulse_us)
{
	if (ch >= HIL_CHANNELS || (pulse_us != 0 && (pulse_us < 500 || pulse_us > 2500)))
		return -EINVAL;
	atomic_store_explicit(&to_hil(out)->pulse_us[ch], pulse_us, memory_order_relaxed);
	return 0;
}

static int hil_read(struct rcout *out, unsigned int ch, uint16_t *pulse_us)
{
	if (ch >= HIL_CHANNELS)
		return -EINVAL;
	*pulse_us = atomic_load_explicit(&to_hil(out)->pulse_us[ch], memory_order_relaxed);
	return 0;
}

static void hil_rcout_close(struct rcout *out)
{
	(void)out;  /* storage is the struct hil's */
}

static const struct rcout_ops hil_rcout_ops = {
	.set_rate = hil_set_rate,
	.write = hil_write,
	.read = hil_read,
	.close = hil_rcout_close,
};

int hil_open(struct hil *h, const struct link_spec *spec, struct sensor_hub *hub, bool lockstep,
	     char *err, size_t err_len)
{
	memset(h, 0, sizeof(*h));
	h->spec = *spec;
	h->mav_type = MAV_TYPE_FIXED_WING;
	h->hub = hub;
	h->lockstep = lockstep;
	mavlink_parser_init(&h->parser);
	h->out.base = (struct rcout){ .ops = &hil_rcout_ops, .channels = HIL_CHANNELS };
	for (int i = 0; i < HIL_CHANNELS; i++)
		atomic_init(&h->out.pulse_us[i], 0);
	atomic_init(&h->answer_us, 0);
	char what[256];
	link_spec_format(&h->spec, what, sizeof(what));
	int rc = -EINVAL;
	if (spec->kind == LINK_UDP_CLIENT) {
		struct udp_addr local;
		rc = udp_addr_parse(h->spec.host, h->spec.port, &h->peer);
		if (!rc)
			rc = udp_addr_parse(strchr(h->spec.host, ':') ? "::" : "0.0.0.0", 0, &local);
		if (!rc)
			rc = udp_open(&local, &h->sock);
	} else if (spec->kind == LINK_SERIAL) {
		h->uart_cfg = (struct uart_config){ .path = h->spec.path, .baud = h->spec.baud,
						    .rtscts = h->spec.rtscts };
		rc = uart_linux_open(&h->uart_cfg, &h->uart);
	}
	if (rc) {
		snprintf(err, err_len, "HIL link %s: %s", what, strerror(-rc));
		return rc;
	}
	log_info("HIL: simulator at %s, %s", what, lockstep ? "lock-step" : "real time");
	return 0;
}

void hil_close(struct hil *h)
{
	udp_close(h->sock);
	uart_close(h->uart);
	h->sock = NULL;
	h->uart = NULL;
}

struct rcout *hil_rcout(struct hil *h)
{
	return &h->out.base;
}

/* A sample's time: the simulator's in lock-step; in real time, the simulator's
 * mapped onto our clock as the sensor steps last left the mapping (the first
 * message sets it from its arrival). */
static uint64_t stamp(struct hil *h, uint64_t sim_us)
{
	if (h->lockstep)
		return sim_us;
	if (!h->offset_set) {
		h->mono_offset_us = (int64_t)(clock_mono_ns() / 1000u) - (int64_t)sim_us;
		h->offset_set = true;
	}
	int64_t t = (int64_t)sim_us + h->mono_offset_us;
	return t > 0 ? (uint64_t)t : 1;
}

/*
 * A sensor step's time (HIL_SENSOR is the clock, docs/hil.md). In real time
 * the mapping moves here, and only here:
 * - down, over the link's first HIL_CLOCK_SETTLE_US, to the least (arrival -
 *   simulator time) seen, so that the steps of a frame, which arrive
 *   together, keep their spacing (the first frame's collapse onto its
 *   arrival, its stamps 1 us apart). Never afterwards: a simulator that
 *   catches up after the mapping moved up would otherwise have its catching
 *   up collapsed the same way, time the estimator would lose. Its stamps run
 *   ahead of their arrival instead, by less than it skips at;
 * - up when every step for HIL_CLOCK_HOLD_US of our time has arrived more
 *   than HIL_CLOCK_LATE_US after the time the mapping gives it: the
 *   simulator has fallen behind the wall clock for good (it stalled, or
 *   skipped ahead of a backlog) and its time will not catch up. The mapping
 *   moves up by the least lateness of those steps, so stamps are again
 *   arrivals, and the samples' clock jumps that much. The jump is a pause of
 *   the source: the hub's clock says so, and the estimator takes it out of
 *   its own time, as none of the simulator's passed. RC and sensors are
 *   judged on the samples' clock, so a stall's failsafe clears once data
 *   flows. A late burst that catches up (our reader held up, or a simulator
 *   less than its skip behind) moves nothing.
 * Stamps never go back: a step at or before the last is put 1 us after it.
 */
static uint64_t stamp_step(struct hil *h, uint64_t sim_us)
{
	if (h->lockstep)
		return sim_us;
	uint64_t arrival = clock_mono_ns() / 1000u;
	int64_t off = (int64_t)arrival - (int64_t)sim_us;
	if (!h->first_step_us)
		h->first_step_us = arrival;
	if (!h->offset_set || (off < h->mono_offset_us && arrival - h->first_step_us < HIL_CLOCK_SETTLE_US)) {
		h->mono_offset_us = off;
		h->offset_set = true;
	}
	int64_t late = off - h->mono_offset_us;
	if (late <= HIL_CLOCK_LATE_US) {
		h->late_since_us = 0;
	} else if (!h->late_since_us) {
		h->late_since_us = arrival;
		h->late_min_us = late;
	} else {
		if (late < h->late_min_us)
			h->late_min_us = late;
		if (arrival - h->late_since_us >= HIL_CLOCK_HOLD_US) {
			h->mono_offset_us += h->late_min_us;
			h->late_since_us = 0;
			h->stats.reanchors++;
			h->stats.reanchored_us += (uint64_t)h->late_min_us;
			/* Rare (a quarter of a second apart at the least), and worth a line. */
			log_info("HIL: the simulator fell %.3f s behind our clock: its time re-anchored "
				 "at %.3f s (%llu so far)", (double)h->late_min_us * 1e-6,
				 (double)sim_us * 1e-6, (unsigned long long)h->stats.reanchors);
		}
	}
	uint64_t t = (uint64_t)((int64_t)sim_us + h->mono_offset_us);
	if (t <= h->last_stamp_us)
		t = h->last_stamp_us + 1;
	h->last_stamp_us = t;
	sensors_publish_clock(h->hub, &(struct sensor_clock){ .t_us = t, .source_us = sim_us,
							     .arrival_us = arrival,
							     .paused_us = h->stats.reanchored_us });
	return t;
}

/* A value the simulator cannot have meant: counted, and the message dropped. */
static bool refuse(struct hil *h, const char *what)
{
	if (h->stats.rejected++ == 0)
		log_warn("HIL: %s refused (not finite or out of range); counting from now on", what);
	return false;
}

static bool finite_all(const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return false;
	return true;
}

/*
 * Lock-step: whether a message stamped time_us belongs to the simulator's
 * last frame, sent again because it heard no answer (lost, or only slow):
 * from that frame's first step to its last (sim_time_us). The frame's first
 * copy may not be answered yet (a slow first answer, or both copies read at
 * once from a serial line). Counted; nothing in it is new, not even the
 * first frame's reset bit.
 */
static bool repeated(struct hil *h, uint64_t time_us)
{
	if (!h->lockstep || !h->stats.sensor_msgs)
		return false;
	uint64_t from = h->frame_open ? h->frame_first_us : h->answered_first_us;
	if (time_us < from || time_us > h->sim_time_us)
		return false;
	if (h->stats.repeated++ == 0)
		log_warn("HIL: the simulator sent its frame for %.6f s again (our answer lost or "
			 "slow): answered again; counting", (double)h->sim_time_us * 1e-6);
	return true;
}

/*
 * Returns 1 when the message was a HIL_SENSOR that set the time, 2 when it
 * ends a frame sent again (to be answered again), 0 otherwise, -1 to stop.
 */
static int take_sensor(struct hil *h, const struct mavlink_frame *f)
{
	struct mavlink_hil_sensor m;
	mavlink_hil_sensor_unpack(mavlink_payload(f), f->len, &m);
	const float v[] = { m.xacc, m.yacc, m.zacc, m.xgyro, m.ygyro, m.zgyro, m.xmag, m.ymag,
			    m.zmag, m.abs_pressure, m.diff_pressure, m.temperature };
	if (!finite_all(v, sizeof(v) / sizeof(v[0])))
		return refuse(h, "HIL_SENSOR");
	if (repeated(h, m.time_usec))   /* answered again once answered (not yet: it will be) */
		return !h->frame_open && m.time_usec == h->sim_time_us ? 2 : 0;
	if (h->stats.sensor_msgs && (m.time_usec <= h->sim_time_us || (m.fields_updated & HIL_RESET))) {
		if (m.time_usec + HIL_RESTART_BACK_US < h->sim_time_us || (m.fields_updated & HIL_RESET)) {
			log_warn("HIL: the simulator restarted (its time went from %.3f s to %.3f s)",
				 (double)h->sim_time_us * 1e-6, (double)m.time_usec * 1e-6);
			h->event = HIL_EVENT_RESTART;
			return -1;
		}
		if (h->stats.time_backwards++ == 0)
			log_warn("HIL: HIL_SENSOR out of order (%.6f s after %.6f s) dropped; counting",
				 (double)m.time_usec * 1e-6, (double)h->sim_time_us * 1e-6);
		return 0;
	}
	h->sim_time_us = m.time_usec;
	if (!h->frame_open) {
		h->frame_open = true;
		h->frame_first_us = m.time_usec;
	}
	atomic_store_explicit(&h->answer_us, m.time_usec, memory_order_relaxed);
	h->stats.sensor_msgs++;
	uint64_t t = stamp_step(h, m.time_usec);
	uint32_t up = m.fields_updated;
	float temp_c = (up & HIL_TEMPERATURE) ? m.temperature : 20.0f;
	if ((up & (HIL_ACCEL | HIL_GYRO)) == (HIL_ACCEL | HIL_GYRO)) {
		struct imu_sample s = {
			.t_us = t,
			.accel_m_s2 = { m.xacc, m.yacc, m.zacc },
			.gyro_rad_s = { m.xgyro, m.ygyro, m.zgyro },
			.temp_c = temp_c,
		};
		sensors_push_imu(h->hub, &s);
	}
	if ((up & HIL_MAG) == HIL_MAG) {
		struct mag_sample s = { .t_us = t, .field_ut = { m.xmag * 100.0f, m.ymag * 100.0f,
								 m.zmag * 100.0f } };
		sensors_publish_mag(h->hub, &s);
	}
	if (up & HIL_ABS_PRESSURE) {
		struct baro_sample s = { .t_us = t, .pressure_pa = m.abs_pressure * 100.0f,
					 .temp_c = temp_c };
		sensors_publish_baro(h->hub, &s);
	}
	if (up & HIL_DIFF_PRESSURE) {
		struct airspeed_sample s = { .t_us = t, .diff_pressure_pa = m.diff_pressure * 100.0f,
					     .temp_c = temp_c };
		sensors_publish_airspeed(h->hub, &s);
	}
	return 1;
}

static void take_gps(struct hil *h, const struct mavlink_frame *f)
{
	struct mavlink_hil_gps m;
	mavlink_hil_gps_unpack(mavlink_payload(f), f->len, &m);
	if (repeated(h, m.time_usec))
		return;
	struct gps_fix g = {
		.t_us = stamp(h, m.time_usec),
		.fix = m.fix_type >= 3 ? GPS_FIX_3D : m.fix_type == 2 ? GPS_FIX_2D : GPS_FIX_NONE,
		.num_sv = m.satellites_visible == 255 ? 0 : m.satellites_visible,
		.lat_deg = m.lat * 1e-7,
		.lon_deg = m.lon * 1e-7,
		.alt_msl_m = (float)m.alt * 1e-3f,
		.alt_ellipsoid_m = NAN,
		.vel_ned_m_s = { m.vn * 0.01f, m.ve * 0.01f, m.vd * 0.01f },
		.vel_down_valid = true,
		.ground_speed_m_s = m.vel == UINT16_MAX ? hypotf(m.vn * 0.01f, m.ve * 0.01f) :
							   m.vel * 0.01f,
		.course_deg = m.cog == UINT16_MAX ? NAN : m.cog * 0.01f,
		.h_acc_m = m.eph == UINT16_MAX ? NAN : m.eph * 0.01f,
		.v_acc_m = m.epv == UINT16_MAX ? NAN : m.epv * 0.01f,
		.s_acc_m_s = NAN,
		.dop = NAN,
	};
	h->stats.gps_msgs++;
	if (sensors_publish_gps(h->hub, &g))
		h->stats.rejected++;
}

static void take_rc(struct hil *h, const struct mavlink_frame *f)
{
	struct mavlink_hil_rc_inputs_raw m;
	mavlink_hil_rc_inputs_raw_unpack(mavlink_payload(f), f->len, &m);
	if (repeated(h, m.time_usec))
		return;
	const uint16_t ch[12] = { m.chan1_raw, m.chan2_raw, m.chan3_raw, m.chan4_raw,
				  m.chan5_raw, m.chan6_raw, m.chan7_raw, m.chan8_raw,
				  m.chan9_raw, m.chan10_raw, m.chan11_raw, m.chan12_raw };
	struct rc_frame r = { .timestamp_us = stamp(h, m.time_usec), .protocol = RC_PROTOCOL_HIL };
	/* The channels up to the last one carried (0 = not sent). */
	for (unsigned int i = 0; i < 12; i++)
		if (ch[i])
			r.channel_count = (uint8_t)(i + 1);
	memcpy(r.channels_us, ch, sizeof(ch));
	h->stats.rc_msgs++;
	if (sensors_publish_rc(h->hub, &r))
		h->stats.rejected++;
}

static void take_battery(struct hil *h, const struct mavlink_frame *f)
{
	struct mavlink_battery_status m;
	mavlink_battery_status_unpack(mavlink_payload(f), f->len, &m);
	struct battery_sample b = {
		.t_us = stamp(h, h->sim_time_us),
		.voltage_v = m.voltages[0] == UINT16_MAX ? NAN : m.voltages[0] * 1e-3f,
		.current_a = m.current_battery == -1 ? NAN : m.current_battery * 0.01f,
		.consumed_mah = m.current_consumed == -1 ? NAN : (float)m.current_consumed,
	};
	h->stats.battery_msgs++;
	if (sensors_publish_battery(h->hub, &b))
		h->stats.rejected++;
}

/*
 * DISTANCE_SENSOR: the rangefinder when RNGFND1_TYPE is 10, and only one that
 * looks down (MAV_SENSOR_ROTATION_PITCH_270, 25); others are counted. Its
 * distances are in cm; one outside [min_distance, max_distance] is out of
 * range, which the flight code's state says (the limits travel with it);
 * signal_quality 1 (MAVLink: "invalid signal") is a reading without a
 * distance. Stamped as the last HIL_SENSOR, as BATTERY_STATUS is: its
 * time_boot_ms is the simulator's, in ms.
 */
#define MAV_SENSOR_ROTATION_PITCH_270 25

static void take_distance(struct hil *h, const struct mavlink_frame *f)
{
	struct mavlink_distance_sensor m;
	mavlink_distance_sensor_unpack(mavlink_payload(f), f->len, &m);
	if (!h->rangefinder) {
		h->stats.distance_ignored++;
		return;
	}
	if (m.orientation != MAV_SENSOR_ROTATION_PITCH_270) {
		if (h->stats.distance_ignored++ == 0)
			log_warn("HIL: DISTANCE_SENSOR with orientation %u, not 25 (down), ignored; "
				 "counting", m.orientation);
		return;
	}
	struct range_sample r = {
		.t_us = stamp(h, h->sim_time_us),
		.min_m = m.min_distance * 0.01f,
		.max_m = m.max_distance * 0.01f,
		.quality_pct = m.signal_quality == 0 ? -1 : m.signal_quality > 100 ? 100 :
			       (int8_t)m.signal_quality,
		.raw = m.current_distance,
	};
	if (m.signal_quality == 1) {
		r.reading = RANGE_READING_NO_RETURN;
	} else {
		r.reading = RANGE_READING_OK;
		r.distance_m = m.current_distance * 0.01f;
	}
	h->stats.distance_msgs++;
	if (sensors_publish_range(h->hub, &r))
		h->stats.rejected++;
}

/* One frame; returns what take_sensor returns (0 for other messages). */
static int take_frame(struct hil *h, const struct mavlink_frame *f)
{
	h->stats.frames++;
	switch (f->msgid) {
	case MAVLINK_MSG_ID_HIL_SENSOR: return take_sensor(h, f);
	case MAVLINK_MSG_ID_HIL_GPS: take_gps(h, f); return 0;
	case MAVLINK_MSG_ID_HIL_RC_INPUTS_RAW: take_rc(h, f); return 0;
	case MAVLINK_MSG_ID_BATTERY_STATUS: take_battery(h, f); return 0;
	case MAVLINK_MSG_ID_DISTANCE_SENSOR: take_distance(h, f); return 0;
	case MAVLINK_MSG_ID_HIL_STATE_QUATERNION: h->stats.truth_msgs++; return 0;
	default: h->stats.ignored++; return 0;
	}
}

static int wait_readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n;
}

int hil_receive(struct hil *h, int timeout_ms, int (*on_time)(void *ctx, uint64_t t_us),
		void *ctx)
{
	int fd = h->sock ? udp_fd(h->sock) : uart_fd(h->uart);
	if (fd < 0)
		return fd;
	if (timeout_ms > 0) {
		int rc = wait_readable(fd, timeout_ms);
		if (rc <= 0)
			return rc;
	}
	uint8_t buf[4096];
	int taken = 0;
	for (;;) {
		int n;
		if (h->sock) {
			struct udp_addr from;
			n = udp_recvfrom(h->sock, buf, sizeof(buf), &from);
			if (n == -EMSGSIZE)
				continue;  /* cut datagram: the parser throws the pieces away */
		} else {
			n = uart_read(h->uart, buf, sizeof(buf));
		}
		if (n < 0)
			return n;
		if (n == 0)
			return taken;
		if (!h->heard)
			log_info("HIL: the simulator is talking");
		h->heard = true;
		h->heard_ns = clock_mono_ns();
		size_t off = 0;
		bool got, step_last = false;
		struct mavlink_frame f;
		do {
			off += mavlink_parse(&h->parser, buf + off, (size_t)n - off, &f, &got);
			if (!got)
				continue;
			int r = take_frame(h, &f);
			if (r < 0)
				return -ECONNRESET;
			step_last = r >= 1;
			if (r == 2)
				taken++;   /* answered again, with no time passing */
			if (r == 1) {
				taken++;
				if (on_time) {
					int rc = on_time(ctx, h->lockstep ? h->sim_time_us :
								h->last_stamp_us);
					if (rc < 0)
						return rc;
				}
			}
		} while (got || off < (size_t)n);
		/*
		 * In lock-step a datagram that ends with a sensor step ends the
		 * simulator's frame (or its part of one): nothing more comes
		 * until we answer, and a read that finds nothing is a system
		 * call, dear on a virtual machine.
		 */
		if (h->lockstep && h->sock && step_last)
			return taken;
	}
}

static int send_frame(struct hil *h, uint32_t msgid, const uint8_t *payload)
{
	struct mavlink_header hdr = { .version = 2, .seq = h->tx_seq++, .sysid = HIL_SYSID,
				      .compid = HIL_COMPID, .msgid = msgid };
	uint8_t frame[MAVLINK_MAX_FRAME_LEN];
	size_t len = mavlink_encode(&hdr, payload, frame);
	int rc;
	if (h->sock) {
		rc = udp_sendto(h->sock, &h->peer, frame, len);
	} else {
		rc = uart_write(h->uart, frame, len);
		if (rc >= 0 && (size_t)rc != len)
			rc = -EAGAIN;
	}
	if (rc < 0) {
		if (h->stats.tx_errors++ == 0)
			log_warn("HIL: sending to the simulator: %s (counting from now on)",
				 strerror(-rc));
		return rc;
	}
	return 0;
}

/* The function behind each control (enum hil_control). */
static const enum servo_function hil_control_function[HIL_CTL_COUNT] = {
	[HIL_CTL_AILERON] = SERVO_FUNC_AILERON,
	[HIL_CTL_ELEVATOR] = SERVO_FUNC_ELEVATOR,
	[HIL_CTL_RUDDER] = SERVO_FUNC_RUDDER,
	[HIL_CTL_THROTTLE] = SERVO_FUNC_THROTTLE,
	[HIL_CTL_ELEVON_LEFT] = SERVO_FUNC_ELEVON_LEFT,
	[HIL_CTL_ELEVON_RIGHT] = SERVO_FUNC_ELEVON_RIGHT,
	[HIL_CTL_VTAIL_LEFT] = SERVO_FUNC_VTAIL_LEFT,
	[HIL_CTL_VTAIL_RIGHT] = SERVO_FUNC_VTAIL_RIGHT,
};

/* ArduCopter's SERVOn_FUNCTION for motor 1; motors 2..HIL_MOTORS_MAX follow. */
#define HIL_FUNC_MOTOR1 33
#define HIL_MOTORS_MAX 8

/* The function control k carries in the layout: a multirotor's (any channel
 * is a motor) or a fixed wing's. */
static int control_function(bool motors, int k)
{
	if (motors)
		return k < HIL_MOTORS_MAX ? HIL_FUNC_MOTOR1 + k : -1;
	return k < HIL_CTL_COUNT ? (int)hil_control_function[k] : -1;
}

void hil_controls_from_outputs(const struct servo_params *servo,
			       const uint16_t pulse_us[HIL_CHANNELS], bool armed,
			       struct hil_controls *out)
{
	memset(out, 0, sizeof(*out));
	bool motors = false;
	for (unsigned int ch = 0; ch < SERVO_CHANNELS && ch < HIL_CHANNELS; ch++) {
		float f = servo->ch[ch].servo_function;
		motors |= isfinite(f) && f >= HIL_FUNC_MOTOR1 && f < HIL_FUNC_MOTOR1 + HIL_MOTORS_MAX;
	}
	for (int k = 0; k < HIL_CONTROLS; k++) {
		int func = control_function(motors, k);
		if (func < 0) {
			out->flags |= HIL_FLAG_NO_PULSES(k);
			continue;
		}
		/* a motor, like the throttle, is 0..1 of its range and 0 disarmed */
		bool thrust = motors || k == HIL_CTL_THROTTLE;
		bool driven = false;
		/* Every channel with the function is checked, so that a bad one is
		 * counted even when another carries the same command. */
		for (unsigned int ch = 0; ch < SERVO_CHANNELS && ch < HIL_CHANNELS; ch++) {
			const struct servo_channel_params *c = &servo->ch[ch];
			if (!isfinite(c->servo_function) || (int)c->servo_function != func || !pulse_us[ch])
				continue;
			float v;
			int rc = thrust ? servo_throttle_of_pwm(c, pulse_us[ch], &v)
					: servo_surface_of_pwm(c, pulse_us[ch], &v);
			if (rc) {
				if (out->refused++ == 0) {
					out->refused_ch = ch + 1;
					out->refused_us = pulse_us[ch];
				}
				continue;
			}
			if (!driven)
				out->controls[k] = v;
			driven = true;
		}
		if (!driven)
			out->flags |= HIL_FLAG_NO_PULSES(k);
		/* A disarmed autopilot commands every motor off, whatever the pulse. */
		if (thrust && !armed)
			out->controls[k] = 0.0f;
	}
}

int hil_send_outputs(struct hil *h, bool armed, const struct servo_params *servo)
{
	uint8_t payload[255];
	if (!h->heard) {
		uint64_t now = clock_mono_ns();
		if (h->hb_sent_ns && now - h->hb_sent_ns < 1000000000ull)
			return 0;
		h->hb_sent_ns = now;
		struct mavlink_heartbeat hb = { .type = h->mav_type,
						.autopilot = MAV_AUTOPILOT_ARDUPILOTMEGA,
						.mavlink_version = 3 };
		mavlink_heartbeat_pack(&hb, payload);
		return send_frame(h, MAVLINK_MSG_ID_HEARTBEAT, payload);
	}
	uint16_t us[HIL_CHANNELS];
	for (int i = 0; i < HIL_CHANNELS; i++)
		us[i] = atomic_load_explicit(&h->out.pulse_us[i], memory_order_relaxed);
	struct hil_controls c;
	hil_controls_from_outputs(servo, us, armed, &c);
	if (c.refused && h->stats.outputs_refused == 0)
		log_warn("HIL: output %u's pulse of %u us is outside SERVO%u_MIN..MAX, or those "
			 "cannot describe it: sent as no pulses (docs/hil.md); counting from now on",
			 c.refused_ch, c.refused_us, c.refused_ch);
	h->stats.outputs_refused += c.refused;
	uint64_t t = atomic_load_explicit(&h->answer_us, memory_order_relaxed);
	if (h->lockstep && h->frame_open) {
		h->frame_open = false;
		h->answered_first_us = h->frame_first_us;
	} else if (h->lockstep && t) {
		h->stats.answered_again++;
	}
	struct mavlink_hil_actuator_controls m = {
		.time_usec = t,
		.mode = armed ? MAV_MODE_FLAG_SAFETY_ARMED : 0,
		.flags = c.flags | (h->lockstep ? HIL_FLAG_LOCKSTEP : 0),
	};
	memcpy(m.controls, c.controls, sizeof(m.controls));
	mavlink_hil_actuator_controls_pack(&m, payload);
	return send_frame(h, MAVLINK_MSG_ID_HIL_ACTUATOR_CONTROLS, payload);
}
