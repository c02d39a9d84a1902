// SPDX-License-Identifier: GPL-3.0-or-later
#include "hil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mavlink/mavlink_msgs.h"

#define DEG (180.0 / M_PI)

void sim_hil_init(struct sim_hil *h, struct sim_world *w, uint8_t sysid, uint8_t compid)
{
	memset(h, 0, sizeof(*h));
	h->world = w;
	h->sysid = sysid;
	h->compid = compid;
	h->link_up = true;
	mavlink_parser_init(&h->parser);
}

size_t sim_hil_encode(struct sim_hil *h, uint32_t msgid, const uint8_t *payload, uint8_t *out)
{
	struct mavlink_header hd = { 2, h->seq++, h->sysid, h->compid, msgid };
	return mavlink_encode(&hd, payload, out);
}

static void emit(struct sim_hil *h, struct sim_hil_tx *tx, uint32_t msgid, const uint8_t *payload)
{
	/* Sized for SIM_HIL_MAX_STEPS of every message: cannot overflow. */
	if (tx->n_msgs == SIM_HIL_TX_MSGS || tx->len + MAVLINK_MAX_FRAME_LEN > sizeof(tx->buf))
		return;
	tx->len += sim_hil_encode(h, msgid, payload, tx->buf + tx->len);
	tx->ends[tx->n_msgs++] = tx->len;
	h->st.msgs_sent++;
}

double sim_hil_pressure_alt_m(double pressure_pa)
{
	/* ISA troposphere: h = T0/L (1 - (p/p0)^(R L / g)) */
	return 44330.77 * (1.0 - pow(pressure_pa / 101325.0, 0.190263));
}

static int32_t sat_i32(double x)
{
	return x > 2147483647.0 ? INT32_MAX : (x < -2147483648.0 ? INT32_MIN : (int32_t)llround(x));
}

static int16_t sat_i16(double x)
{
	return x > 32767.0 ? INT16_MAX : (x < -32768.0 ? INT16_MIN : (int16_t)lround(x));
}

static uint16_t sat_u16(double x, uint16_t max)
{
	return x > max ? max : (x < 0.0 ? 0 : (uint16_t)lround(x));
}

static void send_gps(struct sim_hil *h, struct sim_hil_tx *tx, uint64_t t_us)
{
	const struct sim_gps_sample *g = &h->world->pub.gps;
	struct mavlink_hil_gps m;
	uint8_t p[MAVLINK_MSG_HIL_GPS_MAX_LEN];
	memset(&m, 0, sizeof(m));
	m.time_usec = t_us;
	m.fix_type = (uint8_t)g->fix_type;
	m.lat = sat_i32(g->lat_deg * 1e7);
	m.lon = sat_i32(g->lon_deg * 1e7);
	m.alt = sat_i32(g->alt_m * 1e3);
	m.eph = sat_u16(g->eph_m * 100.0, UINT16_MAX - 1);
	m.epv = sat_u16(g->epv_m * 100.0, UINT16_MAX - 1);
	double vn = g->vel_ned_m_s.x, ve = g->vel_ned_m_s.y;
	m.vel = sat_u16(hypot(vn, ve) * 100.0, UINT16_MAX - 1);
	m.vn = sat_i16(vn * 100.0);
	m.ve = sat_i16(ve * 100.0);
	m.vd = sat_i16(g->vel_ned_m_s.z * 100.0);
	double cog = atan2(ve, vn) * DEG;
	if (cog < 0.0)
		cog += 360.0;
	m.cog = (uint16_t)(lround(cog * 100.0) % 36000);
	m.satellites_visible = (uint8_t)g->sats;
	mavlink_hil_gps_pack(&m, p);
	emit(h, tx, MAVLINK_MSG_ID_HIL_GPS, p);
}

static void send_rc(struct sim_hil *h, struct sim_hil_tx *tx, uint64_t t_us)
{
	const uint16_t *c = h->world->rc_pwm_us;
	struct mavlink_hil_rc_inputs_raw m = {
		.time_usec = t_us,
		.chan1_raw = c[0], .chan2_raw = c[1], .chan3_raw = c[2], .chan4_raw = c[3],
		.chan5_raw = c[4], .chan6_raw = c[5], .chan7_raw = c[6], .chan8_raw = c[7],
		.chan9_raw = c[8], .chan10_raw = c[9], .chan11_raw = c[10], .chan12_raw = c[11],
		.rssi = 255,
	};
	uint8_t p[MAVLINK_MSG_HIL_RC_INPUTS_RAW_MAX_LEN];
	mavlink_hil_rc_inputs_raw_pack(&m, p);
	emit(h, tx, MAVLINK_MSG_ID_HIL_RC_INPUTS_RAW, p);
}

static void send_battery(struct sim_hil *h, struct sim_hil_tx *tx)
{
	const struct sim_batt_sample *b = &h->world->pub.batt;
	const struct sim_airframe *af = &h->world->cfg.airframe;
	struct mavlink_battery_status m;
	uint8_t p[MAVLINK_MSG_BATTERY_STATUS_MAX_LEN];
	memset(&m, 0, sizeof(m));
	m.id = 0;
	m.battery_function = 1;   /* MAV_BATTERY_FUNCTION_ALL */
	m.type = 1;               /* MAV_BATTERY_TYPE_LIPO */
	m.temperature = INT16_MAX;
	m.voltages[0] = sat_u16(b->voltage_v * 1000.0, UINT16_MAX - 1);
	for (int i = 1; i < 10; i++)
		m.voltages[i] = UINT16_MAX;
	m.current_battery = sat_i16(b->current_a * 100.0);
	m.current_consumed = sat_i32(b->used_mah);
	m.energy_consumed = -1;
	double rem = 100.0 * (1.0 - b->used_mah / (af->batt_capacity_ah * 1000.0));
	m.battery_remaining = (int8_t)(rem < 0.0 ? 0 : (rem > 100.0 ? 100 : lround(rem)));
	mavlink_battery_status_pack(&m, p);
	emit(h, tx, MAVLINK_MSG_ID_BATTERY_STATUS, p);
}

static void send_state(struct sim_hil *h, struct sim_hil_tx *tx, uint64_t t_us)
{
	const struct sim_world *w = h->world;
	const struct sim_state *s = &w->st;
	struct sim_lla lla = sim_world_lla(w);
	struct mavlink_hil_state_quaternion m;
	uint8_t p[MAVLINK_MSG_HIL_STATE_QUATERNION_MAX_LEN];
	memset(&m, 0, sizeof(m));
	m.time_usec = t_us;
	m.attitude_quaternion[0] = (float)s->att.w;
	m.attitude_quaternion[1] = (float)s->att.x;
	m.attitude_quaternion[2] = (float)s->att.y;
	m.attitude_quaternion[3] = (float)s->att.z;
	m.rollspeed = (float)s->rate_body_rad_s.x;
	m.pitchspeed = (float)s->rate_body_rad_s.y;
	m.yawspeed = (float)s->rate_body_rad_s.z;
	m.lat = sat_i32(lla.lat_deg * 1e7);
	m.lon = sat_i32(lla.lon_deg * 1e7);
	m.alt = sat_i32(lla.alt_m * 1e3);
	m.vx = sat_i16(s->vel_ned_m_s.x * 100.0);
	m.vy = sat_i16(s->vel_ned_m_s.y * 100.0);
	m.vz = sat_i16(s->vel_ned_m_s.z * 100.0);
	m.true_airspeed = sat_u16(s->airspeed_m_s * 100.0, UINT16_MAX);
	m.ind_airspeed = sat_u16(s->airspeed_m_s * sqrt(w->atm.density_kg_m3 / SIM_RHO0_KG_M3) * 100.0,
				 UINT16_MAX);
	m.xacc = sat_i16(s->accel_body_m_s2.x / SIM_G0_M_S2 * 1000.0);
	m.yacc = sat_i16(s->accel_body_m_s2.y / SIM_G0_M_S2 * 1000.0);
	m.zacc = sat_i16(s->accel_body_m_s2.z / SIM_G0_M_S2 * 1000.0);
	mavlink_hil_state_quaternion_pack(&m, p);
	emit(h, tx, MAVLINK_MSG_ID_HIL_STATE_QUATERNION, p);
}

/* The rangefinder's reading (docs/hil.md, "DISTANCE_SENSOR"): no return
 * reads one centimetre past max_distance. */
static void send_distance(struct sim_hil *h, struct sim_hil_tx *tx, uint64_t t_us)
{
	const struct sim_rangefinder_reading *r = &h->world->rangefinder_pub;
	const struct sim_rangefinder_config *c = &h->world->cfg.rangefinder;
	struct mavlink_distance_sensor m;
	uint8_t p[MAVLINK_MSG_DISTANCE_SENSOR_MAX_LEN];
	memset(&m, 0, sizeof(m));
	m.time_boot_ms = (uint32_t)(t_us / 1000u);
	m.min_distance = sat_u16(c->min_m * 100.0, UINT16_MAX - 1);
	m.max_distance = sat_u16(c->max_m * 100.0, UINT16_MAX - 1);
	m.current_distance = r->valid ? sat_u16(r->distance_m * 100.0, m.max_distance)
				      : (uint16_t)(m.max_distance + 1u);
	m.type = 0;                /* MAV_DISTANCE_SENSOR_LASER */
	m.id = 0;
	m.orientation = 25;        /* MAV_SENSOR_ROTATION_PITCH_270: downward */
	m.covariance = UINT8_MAX;  /* unknown */
	m.horizontal_fov = m.vertical_fov = (float)(c->fov_deg / DEG);
	m.signal_quality = r->valid ? r->signal_quality : 1;   /* 1: invalid */
	mavlink_distance_sensor_pack(&m, p);
	emit(h, tx, MAVLINK_MSG_ID_DISTANCE_SENSOR, p);
}

static void send_sensor(struct sim_hil *h, struct sim_hil_tx *tx, const struct sim_step_out *o)
{
	const struct sim_sensor_out *s = &h->world->pub;
	struct mavlink_hil_sensor m;
	uint8_t p[MAVLINK_MSG_HIL_SENSOR_MAX_LEN];
	memset(&m, 0, sizeof(m));
	m.time_usec = o->t_us;
	m.xacc = (float)s->imu.accel_m_s2.x;
	m.yacc = (float)s->imu.accel_m_s2.y;
	m.zacc = (float)s->imu.accel_m_s2.z;
	m.xgyro = (float)s->imu.gyro_rad_s.x;
	m.ygyro = (float)s->imu.gyro_rad_s.y;
	m.zgyro = (float)s->imu.gyro_rad_s.z;
	m.xmag = (float)s->mag.field_gauss.x;
	m.ymag = (float)s->mag.field_gauss.y;
	m.zmag = (float)s->mag.field_gauss.z;
	m.abs_pressure = (float)(s->baro.pressure_pa * 0.01);
	m.diff_pressure = (float)(s->airspeed.diff_pressure_pa * 0.01);
	m.pressure_alt = (float)sim_hil_pressure_alt_m(s->baro.pressure_pa);
	m.temperature = (float)s->baro.temp_c;
	unsigned int fresh = o->fresh;
	if (h->all_fresh) {
		/* Every field, whether its sensor measured anything new or not: its
		 * last value again. A sensor the time-line has dropped out stays
		 * clear, as docs/hil.md has it. */
		const uint64_t *gone = h->world->f.dropout_until_us;
		if (!(o->t_us < gone[SIM_FS_MAG]))
			fresh |= SIM_OUT_MAG;
		if (!(o->t_us < gone[SIM_FS_BARO]))
			fresh |= SIM_OUT_BARO;
		if (!(o->t_us < gone[SIM_FS_AIRSPEED]))
			fresh |= SIM_OUT_AIRSPEED;
	}
	uint32_t bits = 0;
	if (fresh & SIM_OUT_ACCEL)
		bits |= SIM_HIL_ACCEL_BITS;
	if (fresh & SIM_OUT_GYRO)
		bits |= SIM_HIL_GYRO_BITS;
	if (fresh & SIM_OUT_MAG)
		bits |= SIM_HIL_MAG_BITS;
	if (fresh & SIM_OUT_BARO)
		bits |= SIM_HIL_ABS_PRESSURE_BIT | SIM_HIL_PRESSURE_ALT_BIT | SIM_HIL_TEMPERATURE_BIT;
	if (fresh & SIM_OUT_AIRSPEED)
		bits |= SIM_HIL_DIFF_PRESSURE_BIT;
	if (o->first)
		bits |= SIM_HIL_RESET_BIT;
	m.fields_updated = bits;
	mavlink_hil_sensor_pack(&m, p);
	emit(h, tx, MAVLINK_MSG_ID_HIL_SENSOR, p);
	tx->n_sensor++;
	h->last_sensor_us = o->t_us;
}

unsigned int sim_hil_frame(struct sim_hil *h, unsigned int steps, struct sim_hil_tx *tx,
			   sim_hil_step_fn *on_step, void *ctx)
{
	tx->len = 0;
	tx->n_msgs = 0;
	tx->n_sensor = 0;
	if (steps > SIM_HIL_MAX_STEPS)
		steps = SIM_HIL_MAX_STEPS;
	for (unsigned int i = 0; i < steps; i++) {
		struct sim_step_out o;
		sim_world_step(h->world, &o);
		h->link_up = o.link_up;
		if (on_step)
			on_step(ctx, h->world, &o);
		if (!o.link_up || !o.report)
			continue;
		if (o.fresh & SIM_OUT_GPS)
			send_gps(h, tx, o.t_us);
		if (o.fresh & SIM_OUT_RC)
			send_rc(h, tx, o.t_us);
		if (o.fresh & SIM_OUT_BATT)
			send_battery(h, tx);
		if (o.fresh & SIM_OUT_STATE)
			send_state(h, tx, o.t_us);
		if (o.fresh & SIM_OUT_RANGE)
			send_distance(h, tx, o.t_us);
		send_sensor(h, tx, &o);
	}
	h->st.frames++;
	h->st.bytes_sent += tx->len;
	if (tx->n_sensor)
		h->answered = false;
	return tx->n_sensor;
}

static void problem(struct sim_hil *h, enum sim_hil_problem p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void problem(struct sim_hil *h, enum sim_hil_problem p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(h->problem_text[p], sizeof(h->problem_text[p]), fmt, ap);
	va_end(ap);
	h->st.problems[p]++;
	h->fresh_problems |= 1u << p;
}

static void controls(struct sim_hil *h, const struct mavlink_frame *f)
{
	struct mavlink_hil_actuator_controls m;
	mavlink_hil_actuator_controls_unpack(mavlink_payload(f), f->len, &m);
	for (int i = 0; i < 16; i++) {
		if (!isfinite(m.controls[i])) {
			problem(h, SIM_HIL_NONFINITE,
				"HIL_ACTUATOR_CONTROLS at %.6f s has a non-finite controls[%d]: dropped",
				(double)m.time_usec * 1e-6, i);
			return;
		}
	}
	if (h->have_controls && m.time_usec < h->last_controls_us) {
		problem(h, SIM_HIL_BACKWARDS,
			"HIL_ACTUATOR_CONTROLS time went backwards (%.6f s after %.6f s; autopilot restarted?): dropped",
			(double)m.time_usec * 1e-6, (double)h->last_controls_us * 1e-6);
		return;
	}
	if (m.time_usec > h->last_sensor_us) {
		problem(h, SIM_HIL_FUTURE,
			"HIL_ACTUATOR_CONTROLS from the future (%.6f s, last HIL_SENSOR %.6f s): dropped",
			(double)m.time_usec * 1e-6, (double)h->last_sensor_us * 1e-6);
		return;
	}
	float c[SIM_ACTUATORS];
	memcpy(c, m.controls, sizeof(c));
	/* flags bit 32 + i: nothing drives control i (docs/hil.md), whatever it
	 * says. A servo without a signal holds where it is; an ESC stops the motor
	 * (a plane's throttle, a multirotor's motors). */
	for (int i = 0; i < SIM_ACTUATORS; i++)
		if (m.flags & (1ull << (32 + i)))
			c[i] = sim_world_ctl_is_motor(h->world, i) ? 0.0f : h->world->actuators[i];
	bool rotors = h->world->cfg.airframe.n_rotors > 0;
	for (int i = 0; i < SIM_ACTUATORS; i++) {
		bool motor = sim_world_ctl_is_motor(h->world, i);
		float lo = motor ? 0.0f : -1.0f;
		if (c[i] < lo || c[i] > 1.0f) {
			problem(h, SIM_HIL_RANGE,
				"HIL_ACTUATOR_CONTROLS at %.6f s has controls[%d] = %g, outside %s: dropped",
				(double)m.time_usec * 1e-6, i, (double)c[i],
				!motor ? "-1..1" : rotors ? "0..1 (a motor)" : "0..1 (the throttle)");
			return;
		}
	}
	if (sim_world_set_actuators(h->world, c, m.mode, m.time_usec) != 0)
		return;   /* checked above: cannot happen */
	h->have_controls = true;
	h->last_controls_us = m.time_usec;
	h->st.controls++;
	if (m.time_usec >= h->last_sensor_us)
		h->answered = true;
}

static uint64_t rejected(const struct mavlink_parse_stats *s)
{
	return s->bad_crc + s->bad_len + s->unknown_id + s->bad_flags + s->skipped_bytes;
}

unsigned int sim_hil_input(struct sim_hil *h, const uint8_t *data, size_t len)
{
	if (!h->link_up) {
		h->st.link_down_bytes += len;
		return 0;
	}
	struct mavlink_parse_stats before = h->parser.stats;
	unsigned int good = 0;
	size_t off = 0;
	bool got;
	struct mavlink_frame f;
	do {
		off += mavlink_parse(&h->parser, data + off, len - off, &f, &got);
		if (!got)
			continue;
		good++;
		switch (f.msgid) {
		case MAVLINK_MSG_ID_HIL_ACTUATOR_CONTROLS: controls(h, &f); break;
		case MAVLINK_MSG_ID_HEARTBEAT: h->st.heartbeats++; break;
		default: h->st.other_msgs++; break;
		}
	} while (got || off < len);
	const struct mavlink_parse_stats *now = &h->parser.stats;
	if (rejected(now) != rejected(&before))
		problem(h, SIM_HIL_MALFORMED,
			"malformed input: %llu bad CRC, %llu bad length, %llu unknown id, %llu bad flags, "
			"%llu garbage bytes so far",
			(unsigned long long)now->bad_crc, (unsigned long long)now->bad_len,
			(unsigned long long)now->unknown_id, (unsigned long long)now->bad_flags,
			(unsigned long long)now->skipped_bytes);
	return good;
}
