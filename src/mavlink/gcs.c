// SPDX-License-Identifier: GPL-3.0-or-later
#include "mavlink/gcs.h"
#include "mavlink/gcs_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mavlink/mavlink_msgs.h"
#include "param/param.h"

#define GCS_HEARTBEAT_PERIOD_US 1000000u
/* A ground station heard again after this long has connected anew. */
#define GCS_RECONNECT_US 5000000u
#define MAV_TYPE_GCS 6
#define MAV_COMP_ID_ALL 0
/* A PARAM_VALUE on the wire at its longest, unsigned. */
#define PARAM_VALUE_FRAME_LEN (MAVLINK_V2_HEADER_LEN + MAVLINK_MSG_PARAM_VALUE_MAX_LEN + 2)

void gcs_init(struct gcs *g, uint8_t sysid, uint8_t compid, const struct gcs_tx *tx,
	      struct mission *mission)
{
	memset(g, 0, sizeof(*g));
	g->sysid = sysid;
	g->compid = compid;
	g->tx = *tx;
	g->mission = mission;
	g->xfer.state = GCS_XFER_IDLE;
	g->exit_request = GCS_EXIT_NONE;
	g->arming_check = 1;
	gcs_streams_init(g);
	g->batt_capacity_idx = param_find("BATT_CAPACITY");
	g->params_per_tick = 10;
	for (int i = 0; i < GCS_MAX_LINKS; i++)
		g->link[i].param_next = -1;
}

/* Whether a message addressed to (sys, comp) is ours to act on. */
bool gcs_for_us(const struct gcs *g, uint8_t sys, uint8_t comp)
{
	return (sys == g->sysid || sys == 0) && (comp == g->compid || comp == MAV_COMP_ID_ALL);
}

void gcs_text(struct gcs *g, enum gcs_severity sev, const char *fmt, ...)
{
	struct mavlink_statustext m = { .severity = (uint8_t)sev };
	char text[sizeof(m.text) + 1];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* A console ground station prints these: no control byte ever reaches it. */
	for (char *c = text; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	/* 50 bytes, NUL-terminated only when shorter: strncpy's very contract. */
	memcpy(m.text, text, strnlen(text, sizeof(m.text)));
	uint8_t p[MAVLINK_MSG_STATUSTEXT_MAX_LEN];
	mavlink_statustext_pack(&m, p);
	g->tx.send(g->tx.ctx, GCS_LINK_ALL, MAVLINK_MSG_ID_STATUSTEXT, p);
}

size_t gcs_escape(const char *in, size_t in_len, char *out, size_t out_len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	for (size_t i = 0; i < in_len && in[i]; i++) {
		unsigned char c = (unsigned char)in[i];
		char e[4] = { (char)c };
		size_t n = 1;
		if (c == '\\') {
			e[1] = '\\';
			n = 2;
		} else if (c < 0x20 || c > 0x7e) {
			e[0] = '\\';
			e[1] = 'x';
			e[2] = hex[c >> 4];
			e[3] = hex[c & 15];
			n = 4;
		}
		if (o + n >= out_len)
			break;
		memcpy(out + o, e, n);
		o += n;
	}
	out[o] = '\0';
	return o;
}

int8_t gcs_battery_remaining(float capacity_mah, float consumed_mah)
{
	if (!(capacity_mah > 0.0f) || !isfinite(consumed_mah))
		return -1;
	float pct = 100.0f * (capacity_mah - consumed_mah) / capacity_mah;
	return (int8_t)(pct <= 0.0f ? 0 : pct >= 100.0f ? 100 : lroundf(pct));
}

/* --- parameters ------------------------------------------------------------ */

static void send_param(struct gcs *g, int link, int idx)
{
	struct mavlink_param_value m = {
		.param_value = param_get(idx),
		.param_type = (uint8_t)param_defs[idx].type,
		.param_count = (uint16_t)param_count,
		.param_index = (uint16_t)idx,
	};
	memcpy(m.param_id, param_defs[idx].name, strnlen(param_defs[idx].name, sizeof(m.param_id)));
	uint8_t p[MAVLINK_MSG_PARAM_VALUE_MAX_LEN];
	mavlink_param_value_pack(&m, p);
	g->tx.send(g->tx.ctx, link, MAVLINK_MSG_ID_PARAM_VALUE, p);
}

/* param_id is 16 bytes, NUL-terminated only when shorter. */
static void param_name(const char id[16], char out[PARAM_NAME_LEN + 1])
{
	memcpy(out, id, PARAM_NAME_LEN);
	out[PARAM_NAME_LEN] = '\0';
}

static void param_request_read(struct gcs *g, int link, const struct mavlink_frame *f)
{
	struct mavlink_param_request_read m;
	mavlink_param_request_read_unpack(mavlink_payload(f), f->len, &m);
	if (!gcs_for_us(g, m.target_system, m.target_component)) {
		g->stats.not_for_us++;
		return;
	}
	int idx;
	if (m.param_index >= 0) {
		idx = m.param_index < (int)param_count ? m.param_index : -1;
	} else {
		char name[PARAM_NAME_LEN + 1];
		param_name(m.param_id, name);
		idx = param_find(name);
	}
	if (idx < 0) {
		g->stats.param_unknown++;
		return;
	}
	send_param(g, link, idx);
}

static void param_set_msg(struct gcs *g, int link, const struct mavlink_frame *f)
{
	struct mavlink_param_set m;
	mavlink_param_set_unpack(mavlink_payload(f), f->len, &m);
	if (!gcs_for_us(g, m.target_system, m.target_component)) {
		g->stats.not_for_us++;
		return;
	}
	char name[PARAM_NAME_LEN + 1];
	param_name(m.param_id, name);
	int idx = param_find(name);
	if (idx < 0) {
		/* The name is the wire's: said escaped (16 bytes become at most 64). */
		char said[4 * PARAM_NAME_LEN + 1];
		gcs_escape(m.param_id, sizeof(m.param_id), said, sizeof(said));
		g->stats.param_unknown++;
		gcs_text(g, GCS_SEV_WARNING, "PARAM_SET: no parameter %s", said);
		return;
	}
	int rc = param_set(idx, m.param_value);
	if (rc) {
		const struct param_def *d = &param_defs[idx];
		g->stats.param_refused++;
		if (rc == -ERANGE)
			gcs_text(g, GCS_SEV_WARNING, "%s: %g outside %g..%g", name,
				 (double)m.param_value, (double)d->min, (double)d->max);
		else
			gcs_text(g, GCS_SEV_WARNING, "%s: %g is not a whole number", name,
				 (double)m.param_value);
	}
	/* Success or not, every link learns the value now in force. */
	send_param(g, GCS_LINK_ALL, idx);
}

static void param_request_list(struct gcs *g, int link, const struct mavlink_frame *f)
{
	struct mavlink_param_request_list m;
	mavlink_param_request_list_unpack(mavlink_payload(f), f->len, &m);
	if (!gcs_for_us(g, m.target_system, m.target_component)) {
		g->stats.not_for_us++;
		return;
	}
	g->link[link].param_next = 0;
}

/* --- dispatch --------------------------------------------------------------- */

void gcs_handle(struct gcs *g, int link, const struct mavlink_frame *f, uint64_t now_us)
{
	if (link < 0 || link >= GCS_MAX_LINKS)
		return;
	g->stats.frames_in++;
	g->link[link].active = true;
	switch (f->msgid) {
	case MAVLINK_MSG_ID_PARAM_REQUEST_LIST:
		param_request_list(g, link, f);
		break;
	case MAVLINK_MSG_ID_PARAM_REQUEST_READ:
		param_request_read(g, link, f);
		break;
	case MAVLINK_MSG_ID_PARAM_SET:
		param_set_msg(g, link, f);
		break;
	case MAVLINK_MSG_ID_HEARTBEAT: {
		struct mavlink_heartbeat m;
		mavlink_heartbeat_unpack(mavlink_payload(f), f->len, &m);
		if (m.type != MAV_TYPE_GCS)
			break;
		/* The ground-station failsafe watches these. */
		g->gcs_heartbeat_us = now_us;
		/* A ground station connecting learns at once what it talks to, as
		 * ArduPilot tells it (MAVProxy and QGroundControl read the version). */
		struct gcs_link_state *ls = &g->link[link];
		bool anew = ls->gcs_heard_us == 0 || now_us - ls->gcs_heard_us > GCS_RECONNECT_US;
		ls->gcs_heard_us = now_us ? now_us : 1;
		if (anew)
			gcs_send_message(g, link, MAVLINK_MSG_ID_AUTOPILOT_VERSION);
		break;
	}
	case MAVLINK_MSG_ID_SET_POSITION_TARGET_GLOBAL_INT: {
		/* GUIDED's "fly to": a position (type_mask bits 0-2 clear) in GUIDED only. */
		struct mavlink_set_position_target_global_int m;
		mavlink_set_position_target_global_int_unpack(mavlink_payload(f), f->len, &m);
		if (!gcs_for_us(g, m.target_system, m.target_component) || !g->vehicle ||
		    g->vehicle->mode != vehicle_role_mode(g->vehicle->kind, VEHICLE_ROLE_GUIDED) || (m.type_mask & 0x7))
			break;
		/* MAV_FRAME_GLOBAL(_INT) is above sea level; the relative and terrain frames above home. */
		float alt = m.alt;
		if (m.coordinate_frame == 0 || m.coordinate_frame == 5)
			alt -= g->in.state.alt_msl_m - g->in.state.alt_rel_m;
		char why[64];
		if (vehicle_set_guided(g->vehicle, m.lat_int * 1e-7, m.lon_int * 1e-7, alt, why,
				       sizeof(why)))
			gcs_text(g, GCS_SEV_WARNING, "%s", why);
		break;
	}
	case MAVLINK_MSG_ID_REQUEST_DATA_STREAM:
		gcs_streams_handle(g, link, f);
		break;
	case MAVLINK_MSG_ID_SETUP_SIGNING: {
		struct mavlink_setup_signing m;
		mavlink_setup_signing_unpack(mavlink_payload(f), f->len, &m);
		if (!gcs_for_us(g, m.target_system, m.target_component))
			break;
		/* With signing on, this arrived signed (the links refuse it otherwise). */
		memcpy(g->signing_key, m.secret_key, sizeof(g->signing_key));
		g->signing_timestamp = m.initial_timestamp;
		g->signing_generation++;
		static const uint8_t zero[32];
		gcs_text(g, GCS_SEV_NOTICE, "%s", memcmp(m.secret_key, zero, 32) ?
			 "Signing key installed" : "Signing off");
		break;
	}
	case MAVLINK_MSG_ID_TIMESYNC: {
		struct mavlink_timesync t;
		mavlink_timesync_unpack(mavlink_payload(f), f->len, &t);
		/* A request (tc1 0): answered with our time, in nanoseconds. */
		if (t.tc1 == 0) {
			t.tc1 = (int64_t)now_us * 1000;
			t.target_system = f->sysid;
			t.target_component = f->compid;
			uint8_t p[MAVLINK_MSG_TIMESYNC_MAX_LEN];
			mavlink_timesync_pack(&t, p);
			g->tx.send(g->tx.ctx, link, MAVLINK_MSG_ID_TIMESYNC, p);
		}
		break;
	}
	default:
		if (!gcs_mission_handle(g, link, f, now_us) &&
		    !gcs_command_handle(g, link, f, now_us))
			g->stats.unhandled++;
		break;
	}
}

void gcs_heartbeat(struct gcs *g, int link)
{
	if (g->vehicle) {
		g->id.custom_mode = g->vehicle->mode;
		/* MAV_MODE_FLAG_CUSTOM_MODE_ENABLED, and SAFETY_ARMED when armed. */
		g->id.base_mode = (uint8_t)(1 | (g->vehicle->armed ? 0x80 : 0));
		/* MAV_STATE: BOOT while initialising, STANDBY on the ground, ACTIVE armed. */
		g->id.system_status = g->vehicle->initialising ? 1 :
				      g->vehicle->armed ? 4 : 3;
	}
	struct mavlink_heartbeat m = {
		.type = g->id.mav_type,
		.autopilot = g->id.autopilot,
		.base_mode = g->id.base_mode,
		.custom_mode = g->id.custom_mode,
		.system_status = g->id.system_status,
		.mavlink_version = 3,
	};
	uint8_t p[MAVLINK_MSG_HEARTBEAT_MAX_LEN];
	mavlink_heartbeat_pack(&m, p);
	g->tx.send(g->tx.ctx, link, MAVLINK_MSG_ID_HEARTBEAT, p);
}

void gcs_tick(struct gcs *g, uint64_t now_us)
{
	if (g->last_heartbeat_us == 0 || now_us - g->last_heartbeat_us >= GCS_HEARTBEAT_PERIOD_US) {
		gcs_heartbeat(g, GCS_LINK_ALL);
		g->last_heartbeat_us = now_us ? now_us : 1;
	}
	if (g->boot_us == 0)
		g->boot_us = now_us ? now_us : 1;
	gcs_mission_tick(g, now_us);
	gcs_streams_tick(g, now_us);
	for (int l = 0; l < GCS_MAX_LINKS; l++) {
		struct gcs_link_state *ls = &g->link[l];
		for (unsigned int n = 0; ls->param_next >= 0 && n < g->params_per_tick &&
		     gcs_link_param_room(g, l, PARAM_VALUE_FRAME_LEN); n++) {
			send_param(g, l, ls->param_next);
			if (++ls->param_next >= (int)param_count)
				ls->param_next = -1;
		}
	}
}
