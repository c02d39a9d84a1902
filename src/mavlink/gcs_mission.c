// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The MAVLink mission protocol for its three lists: the flight plan
 * (mission_type 0), the geofence (1) and the rally points (2). Upload with
 * MISSION_COUNT / MISSION_REQUEST_INT / MISSION_ITEM_INT (MISSION_ITEM and
 * MISSION_REQUEST too, for older ground stations), download, clear; partial
 * writes and set current for the flight plan. Fence and rally items are
 * checked as they come (vehicle/fence.h) and the fence list whole at its last
 * item: a bad one ends the upload with its MISSION_RESULT, the old list kept.
 */
#include <math.h>
#include <string.h>

#include "mavlink/gcs_internal.h"
#include "mavlink/mavlink_msgs.h"
#include "param/param.h"
#include "vehicle/fence.h"

/* MAV_MISSION_RESULT */
enum {
	MAV_MISSION_ACCEPTED = 0,
	MAV_MISSION_ERROR = 1,
	MAV_MISSION_UNSUPPORTED = 3,
	MAV_MISSION_NO_SPACE = 4,
	MAV_MISSION_INVALID = 5,
	MAV_MISSION_INVALID_SEQUENCE = 13,
	MAV_MISSION_DENIED = 14,
	MAV_MISSION_OPERATION_CANCELLED = 15,
};

#define MAV_MISSION_TYPE_MISSION 0
#define MAV_MISSION_TYPE_FENCE 1
#define MAV_MISSION_TYPE_RALLY 2
#define MAV_MISSION_TYPE_ALL 255
#define MISSION_ITEM_TIMEOUT_US 1500000u  /* ask again after this */
#define MISSION_RETRIES 5                 /* then give the upload up */

static void ack(struct gcs *g, int link, uint8_t sys, uint8_t comp, uint8_t result, uint8_t type)
{
	struct mavlink_mission_ack m = { .target_system = sys, .target_component = comp,
					 .type = result, .mission_type = type };
	uint8_t p[MAVLINK_MSG_MISSION_ACK_MAX_LEN];
	mavlink_mission_ack_pack(&m, p);
	g->tx.send(g->tx.ctx, link, MAVLINK_MSG_ID_MISSION_ACK, p);
	if (result != MAV_MISSION_ACCEPTED)
		g->stats.mission_refused++;
}

/* The list of a mission_type, or NULL for one fulmar does not keep. */
static struct mission *list_of(struct gcs *g, uint8_t type)
{
	switch (type) {
	case MAV_MISSION_TYPE_MISSION:
		return g->mission;
	case MAV_MISSION_TYPE_FENCE:
		return g->fence;
	case MAV_MISSION_TYPE_RALLY:
		return g->rally;
	default:
		return NULL;
	}
}

static unsigned int capacity(uint8_t type)
{
	return type == MAV_MISSION_TYPE_FENCE ? FENCE_MAX_ITEMS :
	       type == MAV_MISSION_TYPE_RALLY ? RALLY_MAX_ITEMS : MISSION_MAX_ITEMS;
}

static const char *list_name(uint8_t type)
{
	return type == MAV_MISSION_TYPE_FENCE ? "Fence" :
	       type == MAV_MISSION_TYPE_RALLY ? "Rally" : "Mission";
}

static void request(struct gcs *g)
{
	struct gcs_mission_xfer *x = &g->xfer;
	struct mavlink_mission_request_int m = {
		.seq = x->expected, .target_system = x->peer_sys, .target_component = x->peer_comp,
		.mission_type = x->type,
	};
	uint8_t p[MAVLINK_MSG_MISSION_REQUEST_INT_MAX_LEN];
	mavlink_mission_request_int_pack(&m, p);
	g->tx.send(g->tx.ctx, x->link, MAVLINK_MSG_ID_MISSION_REQUEST_INT, p);
}

static void send_current(struct gcs *g, int link)
{
	struct mavlink_mission_current m = { .seq = g->mission->current,
					     .total = g->mission->count };
	uint8_t p[MAVLINK_MSG_MISSION_CURRENT_MAX_LEN];
	mavlink_mission_current_pack(&m, p);
	g->tx.send(g->tx.ctx, link, MAVLINK_MSG_ID_MISSION_CURRENT, p);
}

static void changed(struct gcs *g)
{
	g->mission_generation++;
}

/* A list replaced or cleared: saved by its owner; RALLY_TOTAL counts the rally points. */
static void list_changed(struct gcs *g, uint8_t type)
{
	if (type == MAV_MISSION_TYPE_FENCE) {
		g->fence_generation++;
	} else if (type == MAV_MISSION_TYPE_RALLY) {
		g->rally_generation++;
		int idx = param_find("RALLY_TOTAL");
		if (idx >= 0)
			param_set(idx, g->rally->count);
	} else {
		changed(g);
	}
}

/* Global frames carry degrees * 1e7 in MISSION_ITEM_INT; local ones metres * 1e4. */
static double xy_scale(uint8_t frame)
{
	switch (frame) {
	case 1: /* LOCAL_NED */
	case 4: /* LOCAL_ENU */
	case 7: /* LOCAL_OFFSET_NED */
	case 8: /* BODY_NED */
	case 9: /* BODY_OFFSET_NED */
		return 1e4;
	default:
		return 1e7;
	}
}

static void begin_upload(struct gcs *g, int link, const struct mavlink_frame *f, uint16_t start,
			 uint16_t end)
{
	struct gcs_mission_xfer *x = &g->xfer;
	x->state = GCS_XFER_UPLOAD;
	x->link = link;
	x->peer_sys = f->sysid;
	x->peer_comp = f->compid;
	x->expected = start;
	x->end = end;
	x->retries = 0;
	x->last_us = 0;
	request(g);
}

static void mission_count(struct gcs *g, int link, const struct mavlink_frame *f, uint64_t now_us)
{
	struct mavlink_mission_count m;
	mavlink_mission_count_unpack(mavlink_payload(f), f->len, &m);
	if (!gcs_for_us(g, m.target_system, m.target_component))
		return;
	struct mission *l = list_of(g, m.mission_type);
	if (!l) {
		ack(g, link, f->sysid, f->compid, MAV_MISSION_UNSUPPORTED, m.mission_type);
		return;
	}
	if (m.count > capacity(m.mission_type)) {
		ack(g, link, f->sysid, f->compid, MAV_MISSION_NO_SPACE, m.mission_type);
		gcs_text(g, GCS_SEV_WARNING, "%s of %u items: room for %u", list_name(m.mission_type),
			 m.count, capacity(m.mission_type));
		return;
	}
	if (m.count == 0) {
		mission_clear(l);
		list_changed(g, m.mission_type);
		g->xfer.state = GCS_XFER_IDLE;
		ack(g, link, f->sysid, f->compid, MAV_MISSION_ACCEPTED, m.mission_type);
		return;
	}
	/* A new count replaces an upload in progress: the GCS started over. */
	g->xfer.staging.count = m.count;
	g->xfer.staging.current = 0;
	g->xfer.type = m.mission_type;
	begin_upload(g, link, f, 0, m.count);
	g->xfer.last_us = now_us;
}

static void partial_list(struct gcs *g, int link, const struct mavlink_frame *f, uint64_t now_us)
{
	struct mavlink_mission_write_partial_list m;
	mavlink_mission_write_partial_list_unpack(mavlink_payload(f), f->len, &m);
	if (!gcs_for_us(g, m.target_system, m.target_component))
		return;
	int end = m.end_index < 0 ? g->mission->count - 1 : m.end_index;
	if (m.mission_type != MAV_MISSION_TYPE_MISSION || m.start_index < 0 ||
	    m.start_index > end || end >= g->mission->count) {
		ack(g, link, f->sysid, f->compid, MAV_MISSION_ERROR, m.mission_type);
		return;
	}
	g->xfer.staging = *g->mission;
	g->xfer.type = MAV_MISSION_TYPE_MISSION;
	begin_upload(g, link, f, (uint16_t)m.start_index, (uint16_t)(end + 1));
	g->xfer.last_us = now_us;
}

static bool store_item(struct gcs *g, int link, const struct mavlink_frame *f, uint16_t seq,
		       const struct mission_item *it, uint8_t type, uint64_t now_us)
{
	struct gcs_mission_xfer *x = &g->xfer;
	struct mission *l = list_of(g, type);
	if (!l) {
		ack(g, link, f->sysid, f->compid, MAV_MISSION_UNSUPPORTED, type);
		return true;
	}
	if (x->state != GCS_XFER_UPLOAD || link != x->link || f->sysid != x->peer_sys ||
	    type != x->type) {
		/* An item nobody asked for: say so, as the protocol asks. */
		ack(g, link, f->sysid, f->compid, MAV_MISSION_DENIED, type);
		return true;
	}
	if (seq != x->expected) {
		/* A late duplicate of a retried item, or one skipped: ask for ours again. */
		request(g);
		return true;
	}
	int bad = type == MAV_MISSION_TYPE_FENCE ? fence_check_item(it) :
		  type == MAV_MISSION_TYPE_RALLY ? rally_check_item(it) : MAV_MISSION_ACCEPTED;
	if (bad != MAV_MISSION_ACCEPTED) {
		/* The upload ends here, the list in force kept, as ArduPilot does. */
		x->state = GCS_XFER_IDLE;
		g->stats.fence_rejected++;
		ack(g, link, x->peer_sys, x->peer_comp, (uint8_t)bad, type);
		gcs_text(g, GCS_SEV_WARNING, "%s item %u (command %u) refused: result %d",
			 list_name(type), seq, it->command, bad);
		return true;
	}
	x->staging.items[seq] = *it;
	x->expected++;
	x->last_us = now_us;
	x->retries = 0;
	if (x->expected < x->end) {
		request(g);
		return true;
	}
	x->state = GCS_XFER_IDLE;
	uint16_t at;
	if (type == MAV_MISSION_TYPE_FENCE && fence_validate(&x->staging, &at) != FENCE_RESULT_OK) {
		g->stats.fence_rejected++;
		ack(g, link, x->peer_sys, x->peer_comp, MAV_MISSION_INVALID, type);
		gcs_text(g, GCS_SEV_WARNING, "Fence refused: polygon at item %u inconsistent", at);
		return true;
	}
	*l = x->staging;
	if (l->current >= l->count)
		l->current = 0;
	list_changed(g, type);
	ack(g, link, x->peer_sys, x->peer_comp, MAV_MISSION_ACCEPTED, type);
	return true;
}

static void item_int(struct gcs *g, int link, const struct mavlink_frame *f, uint64_t now_us)
{
	struct mavlink_mission_item_int m;
	mavlink_mission_item_int_unpack(mavlink_payload(f), f->len, &m);
	if (!gcs_for_us(g, m.target_system, m.target_component))
		return;
	struct mission_item it = {
		.command = m.command, .frame = m.frame, .autocontinue = m.autocontinue,
		.param1 = m.param1, .param2 = m.param2, .param3 = m.param3, .param4 = m.param4,
		.x = m.x, .y = m.y, .z = m.z,
	};
	store_item(g, link, f, m.seq, &it, m.mission_type, now_us);
}

static int32_t to_int(float v, double scale)
{
	double d = (double)v * scale;
	if (!isfinite(d) || fabs(d) > 2147483647.0)
		return 0;
	return (int32_t)lround(d);
}

static void item_float(struct gcs *g, int link, const struct mavlink_frame *f, uint64_t now_us)
{
	struct mavlink_mission_item m;
	mavlink_mission_item_unpack(mavlink_payload(f), f->len, &m);
	if (!gcs_for_us(g, m.target_system, m.target_component))
		return;
	double scale = xy_scale(m.frame);
	struct mission_item it = {
		.command = m.command, .frame = m.frame, .autocontinue = m.autocontinue,
		.param1 = m.param1, .param2 = m.param2, .param3 = m.param3, .param4 = m.param4,
		.x = to_int(m.x, scale), .y = to_int(m.y, scale), .z = m.z,
	};
	store_item(g, link, f, m.seq, &it, m.mission_type, now_us);
}

static void request_list(struct gcs *g, int link, const struct mavlink_frame *f)
{
	struct mavlink_mission_request_list m;
	mavlink_mission_request_list_unpack(mavlink_payload(f), f->len, &m);
	if (!gcs_for_us(g, m.target_system, m.target_component))
		return;
	/* A list fulmar does not keep is an empty one. */
	const struct mission *l = list_of(g, m.mission_type);
	struct mavlink_mission_count c = { .count = l ? l->count : 0, .target_system = f->sysid,
					   .target_component = f->compid,
					   .mission_type = m.mission_type };
	uint8_t p[MAVLINK_MSG_MISSION_COUNT_MAX_LEN];
	mavlink_mission_count_pack(&c, p);
	g->tx.send(g->tx.ctx, link, MAVLINK_MSG_ID_MISSION_COUNT, p);
}

static void send_item(struct gcs *g, int link, const struct mavlink_frame *f, uint16_t seq,
		      uint8_t type, bool as_int)
{
	const struct mission *l = list_of(g, type);
	if (!l || seq >= l->count) {
		ack(g, link, f->sysid, f->compid, MAV_MISSION_INVALID_SEQUENCE, type);
		return;
	}
	const struct mission_item *it = &l->items[seq];
	bool current = type == MAV_MISSION_TYPE_MISSION && seq == l->current;
	uint8_t p[255];
	if (as_int) {
		struct mavlink_mission_item_int m = {
			.param1 = it->param1, .param2 = it->param2, .param3 = it->param3,
			.param4 = it->param4, .x = it->x, .y = it->y, .z = it->z, .seq = seq,
			.command = it->command, .target_system = f->sysid, .target_component = f->compid,
			.frame = it->frame, .current = current,
			.autocontinue = it->autocontinue, .mission_type = type,
		};
		mavlink_mission_item_int_pack(&m, p);
		g->tx.send(g->tx.ctx, link, MAVLINK_MSG_ID_MISSION_ITEM_INT, p);
	} else {
		double scale = xy_scale(it->frame);
		struct mavlink_mission_item m = {
			.param1 = it->param1, .param2 = it->param2, .param3 = it->param3,
			.param4 = it->param4, .x = (float)(it->x / scale), .y = (float)(it->y / scale),
			.z = it->z, .seq = seq, .command = it->command, .target_system = f->sysid,
			.target_component = f->compid, .frame = it->frame,
			.current = current, .autocontinue = it->autocontinue, .mission_type = type,
		};
		mavlink_mission_item_pack(&m, p);
		g->tx.send(g->tx.ctx, link, MAVLINK_MSG_ID_MISSION_ITEM, p);
	}
}

bool gcs_mission_handle(struct gcs *g, int link, const struct mavlink_frame *f, uint64_t now_us)
{
	if (!g->mission)
		return false;
	switch (f->msgid) {
	case MAVLINK_MSG_ID_MISSION_COUNT:
		mission_count(g, link, f, now_us);
		return true;
	case MAVLINK_MSG_ID_MISSION_WRITE_PARTIAL_LIST:
		partial_list(g, link, f, now_us);
		return true;
	case MAVLINK_MSG_ID_MISSION_ITEM_INT:
		item_int(g, link, f, now_us);
		return true;
	case MAVLINK_MSG_ID_MISSION_ITEM:
		item_float(g, link, f, now_us);
		return true;
	case MAVLINK_MSG_ID_MISSION_REQUEST_LIST:
		request_list(g, link, f);
		return true;
	case MAVLINK_MSG_ID_MISSION_REQUEST_INT: {
		struct mavlink_mission_request_int m;
		mavlink_mission_request_int_unpack(mavlink_payload(f), f->len, &m);
		if (gcs_for_us(g, m.target_system, m.target_component))
			send_item(g, link, f, m.seq, m.mission_type, true);
		return true;
	}
	case MAVLINK_MSG_ID_MISSION_REQUEST: {
		struct mavlink_mission_request m;
		mavlink_mission_request_unpack(mavlink_payload(f), f->len, &m);
		if (gcs_for_us(g, m.target_system, m.target_component))
			send_item(g, link, f, m.seq, m.mission_type, false);
		return true;
	}
	case MAVLINK_MSG_ID_MISSION_CLEAR_ALL: {
		struct mavlink_mission_clear_all m;
		mavlink_mission_clear_all_unpack(mavlink_payload(f), f->len, &m);
		if (!gcs_for_us(g, m.target_system, m.target_component))
			return true;
		/* MAV_MISSION_TYPE_ALL clears the three lists. */
		bool all = m.mission_type == MAV_MISSION_TYPE_ALL;
		if (!all && !list_of(g, m.mission_type)) {
			ack(g, link, f->sysid, f->compid, MAV_MISSION_UNSUPPORTED, m.mission_type);
			return true;
		}
		for (uint8_t t = MAV_MISSION_TYPE_MISSION; t <= MAV_MISSION_TYPE_RALLY; t++) {
			struct mission *l = list_of(g, t);
			if (l && (all || t == m.mission_type)) {
				mission_clear(l);
				list_changed(g, t);
			}
		}
		g->xfer.state = GCS_XFER_IDLE;
		ack(g, link, f->sysid, f->compid, MAV_MISSION_ACCEPTED, m.mission_type);
		return true;
	}
	case MAVLINK_MSG_ID_MISSION_SET_CURRENT: {
		struct mavlink_mission_set_current m;
		mavlink_mission_set_current_unpack(mavlink_payload(f), f->len, &m);
		if (!gcs_for_us(g, m.target_system, m.target_component))
			return true;
		if (m.seq >= g->mission->count) {
			gcs_text(g, GCS_SEV_WARNING, "Mission has no item %u", m.seq);
			g->stats.mission_refused++;
		} else {
			g->mission->current = m.seq;
			changed(g);
		}
		send_current(g, GCS_LINK_ALL);
		return true;
	}
	case MAVLINK_MSG_ID_MISSION_ACK:
		/* The end of a download, or a GCS giving up on our upload request. */
		return true;
	}
	return false;
}

void gcs_mission_tick(struct gcs *g, uint64_t now_us)
{
	struct gcs_mission_xfer *x = &g->xfer;
	if (x->state != GCS_XFER_UPLOAD || now_us - x->last_us < MISSION_ITEM_TIMEOUT_US)
		return;
	if (x->retries++ == MISSION_RETRIES) {
		ack(g, x->link, x->peer_sys, x->peer_comp, MAV_MISSION_OPERATION_CANCELLED, x->type);
		gcs_text(g, GCS_SEV_WARNING, "%s upload timed out at item %u", list_name(x->type),
			 x->expected);
		x->state = GCS_XFER_IDLE;
		return;
	}
	g->stats.mission_retries++;
	x->last_us = now_us;
	request(g);
}

void gcs_mission_reached(struct gcs *g, uint16_t seq)
{
	struct mavlink_mission_item_reached m = { .seq = seq };
	uint8_t p[MAVLINK_MSG_MISSION_ITEM_REACHED_MAX_LEN];
	mavlink_mission_item_reached_pack(&m, p);
	g->tx.send(g->tx.ctx, GCS_LINK_ALL, MAVLINK_MSG_ID_MISSION_ITEM_REACHED, p);
}
