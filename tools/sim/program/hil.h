// SPDX-License-Identifier: GPL-3.0-or-later
/* The simulator's side of the HIL wire (docs/hil.md), without the wire: a
 * frame of world steps becomes a buffer of MAVLink 2 messages to send, and
 * bytes received become controls applied to the world. Pure: no sockets, no
 * clocks; the program (sim_main.c) moves the bytes and keeps the time. */
#ifndef FULMAR_SIM_HIL_H
#define FULMAR_SIM_HIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mavlink/frame.h"
#include "world.h"

#define SIM_HIL_MAX_STEPS 50             /* steps per frame */
#define SIM_HIL_TX_MSGS (6 * SIM_HIL_MAX_STEPS)
#define SIM_HIL_TX_BYTES 24576

/* fields_updated (MAVLink HIL_SENSOR_UPDATED_FLAGS) */
#define SIM_HIL_ACCEL_BITS 0x7u
#define SIM_HIL_GYRO_BITS 0x38u
#define SIM_HIL_MAG_BITS 0x1c0u
#define SIM_HIL_ABS_PRESSURE_BIT 0x200u
#define SIM_HIL_DIFF_PRESSURE_BIT 0x400u
#define SIM_HIL_PRESSURE_ALT_BIT 0x800u
#define SIM_HIL_TEMPERATURE_BIT 0x1000u
#define SIM_HIL_RESET_BIT 0x80000000u

/* The messages of one frame, whole, in order; ends[i] is where message i ends. */
struct sim_hil_tx {
	uint8_t buf[SIM_HIL_TX_BYTES];
	size_t len;
	size_t ends[SIM_HIL_TX_MSGS];
	unsigned int n_msgs;
	unsigned int n_sensor;               /* HIL_SENSOR messages among them */
};

/* What was wrong with what the autopilot sent. */
enum sim_hil_problem {
	SIM_HIL_NONFINITE = 1,   /* HIL_ACTUATOR_CONTROLS with a NaN or infinite control: dropped */
	SIM_HIL_RANGE,           /* one with a control outside its range (docs/hil.md): dropped */
	SIM_HIL_BACKWARDS,       /* its time_usec went backwards: dropped */
	SIM_HIL_FUTURE,          /* its time_usec is past the last HIL_SENSOR sent: dropped */
	SIM_HIL_MALFORMED,       /* bytes the MAVLink parser rejected (garbage, bad CRC or length, unknown id) */
	SIM_HIL_PROBLEM_COUNT
};

struct sim_hil_stats {
	uint64_t frames, msgs_sent, bytes_sent;
	uint64_t controls;                   /* HIL_ACTUATOR_CONTROLS applied */
	uint64_t heartbeats, other_msgs;     /* other: good frames we have no use for */
	uint64_t link_down_bytes;            /* received during a link_loss and dropped */
	uint64_t problems[SIM_HIL_PROBLEM_COUNT];
};

struct sim_hil {
	struct sim_world *world;
	struct mavlink_parser parser;
	uint8_t seq, sysid, compid;
	bool link_up;                        /* as of the last step */
	uint64_t last_sensor_us;             /* time_usec of the last HIL_SENSOR framed */
	uint64_t last_controls_us;
	bool have_controls;
	bool answered;                       /* controls for last_sensor_us have come */
	bool all_fresh;                      /* every HIL_SENSOR field marked fresh (but dropped-out
					      * sensors'), as many simulators do; set after init */
	struct sim_hil_stats st;
	/* Problems since the caller last looked: a bit per enum sim_hil_problem and
	 * the last one's description. */
	unsigned int fresh_problems;
	char problem_text[SIM_HIL_PROBLEM_COUNT][120];
};

/* Called after each step of a frame, before its messages are framed. */
typedef void sim_hil_step_fn(void *ctx, const struct sim_world *w, const struct sim_step_out *out);

void sim_hil_init(struct sim_hil *h, struct sim_world *w, uint8_t sysid, uint8_t compid);

/* Steps the world steps times (1..SIM_HIL_MAX_STEPS) and frames what each
 * sensor report (every step at the world's default sensor_hz) has to send
 * into tx (emptied first): HIL_GPS, HIL_RC_INPUTS_RAW, BATTERY_STATUS,
 * HIL_STATE_QUATERNION, DISTANCE_SENSOR (with a rangefinder) when due, HIL_SENSOR always, nothing while the link is
 * down. A lock-step frame should end with a report: steps a multiple of
 * the world's report_every. on_step may be NULL. Returns the number of
 * HIL_SENSOR messages framed: when it is not 0 the frame wants an answer. */
unsigned int sim_hil_frame(struct sim_hil *h, unsigned int steps, struct sim_hil_tx *tx,
			   sim_hil_step_fn *on_step, void *ctx);

/* Feeds bytes received from the autopilot (any split). Valid controls apply
 * to the world at once; returns the number of good MAVLink frames found. */
unsigned int sim_hil_input(struct sim_hil *h, const uint8_t *data, size_t len);

/* Encodes one message (payload packed by mavlink_<msg>_pack) into out
 * (MAVLINK_MAX_FRAME_LEN bytes). Returns its length. */
size_t sim_hil_encode(struct sim_hil *h, uint32_t msgid, const uint8_t *payload, uint8_t *out);

/* ISA pressure altitude for a static pressure. */
double sim_hil_pressure_alt_m(double pressure_pa);

#endif
