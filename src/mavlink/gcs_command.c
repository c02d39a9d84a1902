// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Commands: COMMAND_LONG and COMMAND_INT answered with COMMAND_ACK, and the
 * older SET_MODE. A retried command (same command again, confirmation
 * counting up) does the same again: every command here sets a state, so
 * doing it twice is doing it once.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mavlink/gcs_internal.h"
#include "mavlink/mavlink_msgs.h"

/* MAV_CMD */
enum {
	MAV_CMD_NAV_RETURN_TO_LAUNCH = 20,
	MAV_CMD_NAV_TAKEOFF = 22,
	MAV_CMD_DO_SET_MODE = 176,
	MAV_CMD_DO_SET_HOME = 179,
	MAV_CMD_DO_REPOSITION = 192,
	MAV_CMD_PREFLIGHT_CALIBRATION = 241,
	MAV_CMD_PREFLIGHT_REBOOT_SHUTDOWN = 246,
	MAV_CMD_MISSION_START = 300,
	MAV_CMD_COMPONENT_ARM_DISARM = 400,
	MAV_CMD_GET_HOME_POSITION = 410,
	MAV_CMD_SET_MESSAGE_INTERVAL = 511,
	MAV_CMD_REQUEST_MESSAGE = 512,
	MAV_CMD_REQUEST_AUTOPILOT_CAPABILITIES = 520,
};

/* MAV_RESULT */
enum {
	MAV_RESULT_ACCEPTED = 0,
	MAV_RESULT_TEMPORARILY_REJECTED = 1,
	MAV_RESULT_DENIED = 2,
	MAV_RESULT_UNSUPPORTED = 3,
	MAV_RESULT_FAILED = 4,
};

#define ARM_FORCE_MAGIC 21196.0f   /* param2 of COMPONENT_ARM_DISARM: skip the checks */
#define MAV_MODE_FLAG_CUSTOM_MODE_ENABLED 1

struct command {
	uint16_t command;
	float param[7];            /* param5/6 as floats for COMMAND_LONG */
	int32_t x, y;              /* COMMAND_INT's lat/lon (1e-7 degrees) */
	uint8_t frame;             /* COMMAND_INT's MAV_FRAME (of x, y and param7) */
	bool is_int;
	uint8_t from_sys, from_comp;
	int link;
};

/*
 * A float parameter that must be a whole number in 0..max: NaN, infinities,
 * fractions and anything out of range give max + 1, which no table holds.
 * (Casting such a float to an integer type is undefined behaviour in C.)
 */
static uint32_t whole(float f, uint32_t max)
{
	if (!(f >= 0.0f && f <= (float)max) || f != rintf(f))
		return max + 1;
	return (uint32_t)f;
}

static void ack(struct gcs *g, int link, const struct command *c, uint8_t result)
{
	struct mavlink_command_ack m = { .command = c->command, .result = result,
					 .target_system = c->from_sys,
					 .target_component = c->from_comp };
	uint8_t p[MAVLINK_MSG_COMMAND_ACK_MAX_LEN];
	mavlink_command_ack_pack(&m, p);
	g->tx.send(g->tx.ctx, link, MAVLINK_MSG_ID_COMMAND_ACK, p);
	if (result != MAV_RESULT_ACCEPTED)
		g->stats.commands_refused++;
}

/* A refusal the pilot should read: the reason as STATUSTEXT, then the result. */
static uint8_t refuse(struct gcs *g, uint8_t result, const char *why)
{
	gcs_text(g, GCS_SEV_WARNING, "%s", why);
	return result;
}

static uint8_t set_mode(struct gcs *g, uint32_t mode)
{
	char why[64];
	int rc = vehicle_set_mode(g->vehicle, mode, why, sizeof(why));
	if (rc == -EINVAL)
		return refuse(g, MAV_RESULT_UNSUPPORTED, why);
	if (rc)
		return refuse(g, MAV_RESULT_DENIED, why);
	return MAV_RESULT_ACCEPTED;
}

static uint8_t run(struct gcs *g, const struct command *c)
{
	const float *p = c->param;
	char why[64];
	switch (c->command) {
	case MAV_CMD_COMPONENT_ARM_DISARM: {
		if (p[0] != 0.0f && p[0] != 1.0f)
			return MAV_RESULT_DENIED;
		int rc = vehicle_arm(g->vehicle, p[0] == 1.0f, p[1] == ARM_FORCE_MAGIC,
				     g->arming_check, why, sizeof(why));
		return rc ? refuse(g, MAV_RESULT_FAILED, why) : MAV_RESULT_ACCEPTED;
	}
	case MAV_CMD_DO_SET_MODE:
		if (!(whole(p[0], 255) & MAV_MODE_FLAG_CUSTOM_MODE_ENABLED) || whole(p[0], 255) > 255)
			return MAV_RESULT_UNSUPPORTED;
		return set_mode(g, whole(p[1], 255));
	case MAV_CMD_MISSION_START:
		return set_mode(g, vehicle_role_mode(g->vehicle->kind, VEHICLE_ROLE_AUTO));
	case MAV_CMD_NAV_RETURN_TO_LAUNCH:
		return set_mode(g, vehicle_role_mode(g->vehicle->kind, VEHICLE_ROLE_RTL));
	case MAV_CMD_NAV_TAKEOFF: {
		/* param7: the height above home, as ArduCopter's GUIDED takes it */
		int rc = vehicle_set_takeoff(g->vehicle, p[6], why, sizeof(why));
		if (rc == -EINVAL && g->vehicle->kind != VEHICLE_COPTER)
			return MAV_RESULT_UNSUPPORTED;
		return rc ? refuse(g, rc == -EINVAL ? MAV_RESULT_DENIED : MAV_RESULT_FAILED, why) :
			    MAV_RESULT_ACCEPTED;
	}
	case MAV_CMD_DO_SET_HOME: {
		if (p[0] == 1.0f) {
			if (!(g->in.state.valid & VEHICLE_POSITION_VALID))
				return refuse(g, MAV_RESULT_TEMPORARILY_REJECTED,
					      "Home: no position estimate yet");
			return gcs_set_home((int32_t)lround(g->in.state.lat_deg * 1e7),
					    (int32_t)lround(g->in.state.lon_deg * 1e7),
					    g->in.state.alt_msl_m, g) ? MAV_RESULT_FAILED : MAV_RESULT_ACCEPTED;
		}
		/* COMMAND_INT carries 1e-7 degrees in x/y; COMMAND_LONG degrees in param5/6. */
		if (!c->is_int && !(fabsf(p[4]) <= 90.0f && fabsf(p[5]) <= 180.0f))
			return refuse(g, MAV_RESULT_DENIED, "Home: not a position");
		int32_t lat = c->is_int ? c->x : (int32_t)lround((double)p[4] * 1e7);
		int32_t lon = c->is_int ? c->y : (int32_t)lround((double)p[5] * 1e7);
		return gcs_set_home(lat, lon, p[6], g) ? refuse(g, MAV_RESULT_DENIED, "Home: not a position")
						      : MAV_RESULT_ACCEPTED;
	}
	case MAV_CMD_DO_REPOSITION: {
		/* Fly there and loiter (GUIDED); bit 0 of param2 switches to GUIDED, else
		 * the plane must be in GUIDED already (as ArduPlane asks). Height above home. */
		bool change = whole(p[1], 255) <= 255 && (whole(p[1], 255) & 1);
		uint32_t guided = vehicle_role_mode(g->vehicle->kind, VEHICLE_ROLE_GUIDED);
		if (!change && g->vehicle->mode != guided)
			return refuse(g, MAV_RESULT_DENIED, "Reposition: not in GUIDED");
		double lat = c->is_int ? c->x * 1e-7 : (double)p[4];
		double lon = c->is_int ? c->y * 1e-7 : (double)p[5];
		float alt = isfinite(p[6]) ? p[6] : g->in.state.alt_rel_m;
		/* COMMAND_INT's frame says what param7 is, as ArduPilot reads it:
		 * MAV_FRAME_GLOBAL(_INT) above sea level (QGroundControl's "go to
		 * location"), the relative and terrain frames above home. A COMMAND_LONG
		 * has no frame: above home. */
		if (c->is_int && isfinite(p[6])) {
			if (c->frame == 0 || c->frame == 5) {
				alt -= g->in.state.alt_msl_m - g->in.state.alt_rel_m;
			} else if (c->frame != 3 && c->frame != 6 && c->frame != 10 && c->frame != 11) {
				snprintf(why, sizeof(why), "Reposition: frame %u not supported", c->frame);
				return refuse(g, MAV_RESULT_DENIED, why);
			}
		}
		if (vehicle_set_guided(g->vehicle, lat, lon, alt, why, sizeof(why)))
			return refuse(g, MAV_RESULT_DENIED, why);
		return change && g->vehicle->mode != guided ? set_mode(g, guided) :
								    MAV_RESULT_ACCEPTED;
	}
	case MAV_CMD_PREFLIGHT_CALIBRATION:
		return refuse(g, MAV_RESULT_FAILED, "Calibration: no sensors to calibrate");
	case MAV_CMD_REQUEST_MESSAGE: {
		int rc = gcs_send_message(g, c->link, whole(p[0], 0xFFFFFF));
		return rc == 0 ? MAV_RESULT_ACCEPTED :
		       rc == -EAGAIN ? MAV_RESULT_TEMPORARILY_REJECTED : MAV_RESULT_UNSUPPORTED;
	}
	case MAV_CMD_REQUEST_AUTOPILOT_CAPABILITIES:
		gcs_send_message(g, c->link, MAVLINK_MSG_ID_AUTOPILOT_VERSION);
		return MAV_RESULT_ACCEPTED;
	case MAV_CMD_GET_HOME_POSITION:
		/* HOME_POSITION on this link, as ArduPilot answers it; no home yet: failed. */
		return gcs_send_message(g, c->link, MAVLINK_MSG_ID_HOME_POSITION) == 0 ?
		       MAV_RESULT_ACCEPTED : MAV_RESULT_FAILED;
	case MAV_CMD_SET_MESSAGE_INTERVAL: {
		/* param2: microseconds, 0 the default rate, -1 off. */
		int32_t iv = p[1] == -1.0f ? -1 : (int32_t)whole(p[1], 1000000000);
		return gcs_set_interval(g, c->link, whole(p[0], 0xFFFFFF), iv) ? MAV_RESULT_DENIED
										  : MAV_RESULT_ACCEPTED;
	}
	case MAV_CMD_PREFLIGHT_REBOOT_SHUTDOWN:
		if (p[0] != 1.0f && p[0] != 2.0f)
			return MAV_RESULT_UNSUPPORTED;
		if (g->vehicle->armed)
			return refuse(g, MAV_RESULT_DENIED, "Reboot refused: armed");
		g->exit_request = p[0] == 1.0f ? GCS_EXIT_REBOOT : GCS_EXIT_SHUTDOWN;
		return MAV_RESULT_ACCEPTED;
	}
	return MAV_RESULT_UNSUPPORTED;
}

/* Commands about the link itself, answered with or without a vehicle. */
static bool link_command(uint16_t cmd)
{
	return cmd == MAV_CMD_REQUEST_MESSAGE || cmd == MAV_CMD_SET_MESSAGE_INTERVAL ||
	       cmd == MAV_CMD_REQUEST_AUTOPILOT_CAPABILITIES || cmd == MAV_CMD_GET_HOME_POSITION;
}

static void command(struct gcs *g, int link, const struct command *c)
{
	g->stats.commands++;
	if (!g->vehicle && !link_command(c->command)) {
		ack(g, link, c, MAV_RESULT_UNSUPPORTED);
		return;
	}
	ack(g, link, c, run(g, c));
}

bool gcs_command_handle(struct gcs *g, int link, const struct mavlink_frame *f, uint64_t now_us)
{
	struct command c = { .from_sys = f->sysid, .from_comp = f->compid, .link = link };
	switch (f->msgid) {
	case MAVLINK_MSG_ID_COMMAND_LONG: {
		struct mavlink_command_long m;
		mavlink_command_long_unpack(mavlink_payload(f), f->len, &m);
		if (!gcs_for_us(g, m.target_system, m.target_component))
			return true;
		c.command = m.command;
		const float pl[7] = { m.param1, m.param2, m.param3, m.param4, m.param5, m.param6,
				      m.param7 };
		memcpy(c.param, pl, sizeof(pl));
		command(g, link, &c);
		return true;
	}
	case MAVLINK_MSG_ID_COMMAND_INT: {
		struct mavlink_command_int m;
		mavlink_command_int_unpack(mavlink_payload(f), f->len, &m);
		if (!gcs_for_us(g, m.target_system, m.target_component))
			return true;
		c.command = m.command;
		c.is_int = true;
		c.frame = m.frame;
		const float pl[7] = { m.param1, m.param2, m.param3, m.param4, 0, 0, m.z };
		memcpy(c.param, pl, sizeof(pl));
		c.x = m.x;
		c.y = m.y;
		command(g, link, &c);
		return true;
	}
	case MAVLINK_MSG_ID_SET_HOME_POSITION: {
		struct mavlink_set_home_position m;
		mavlink_set_home_position_unpack(mavlink_payload(f), f->len, &m);
		if (m.target_system == g->sysid || m.target_system == 0)
			gcs_set_home(m.latitude, m.longitude, (float)m.altitude / 1000.0f, g);
		return true;
	}
	case MAVLINK_MSG_ID_SET_MODE: {
		struct mavlink_set_mode m;
		mavlink_set_mode_unpack(mavlink_payload(f), f->len, &m);
		if (m.target_system != g->sysid)
			return true;
		/* Answered as ArduPilot does: a COMMAND_ACK for "command" SET_MODE (11). */
		c.command = MAVLINK_MSG_ID_SET_MODE;
		uint8_t r = MAV_RESULT_UNSUPPORTED;
		if (g->vehicle && (m.base_mode & MAV_MODE_FLAG_CUSTOM_MODE_ENABLED))
			r = set_mode(g, m.custom_mode);
		ack(g, link, &c, r);
		return true;
	}
	}
	(void)now_us;
	return false;
}
