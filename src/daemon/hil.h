/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The HIL backend: the aircraft's sensors from a simulator and its servo
 * outputs back to it, over MAVLink (docs/hil.md is the contract). It stands
 * where the board's chip drivers and servo backend stand: measurements go into
 * the sensor hub, outputs come from the same struct rcout the flight code
 * writes on a real board. It lives in src/daemon, not hal/, because it speaks
 * MAVLink, which is above the HAL.
 *
 * Threads: one reader (hil_receive: the timer thread in real time, the leader
 * in lock-step) and one writer (hil_send_outputs: main in real time, the
 * leader in lock-step). The rcout is written by main.
 */
#ifndef FULMAR_DAEMON_HIL_H
#define FULMAR_DAEMON_HIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control/servo.h"
#include "daemon/links.h"
#include "daemon/sensors.h"
#include "fulmar/rcout.h"
#include "fulmar/uart.h"
#include "fulmar/udp.h"
#include "mavlink/frame.h"

#define HIL_CHANNELS 16
#define HIL_SYSID 1
#define HIL_COMPID 1

/*
 * HIL_ACTUATOR_CONTROLS.controls[] by what drives them, whichever output
 * channel carries it (docs/hil.md, "Autopilot to simulator"): the order of
 * MAVLink's HIL_CONTROLS and of PX4's fixed-wing HIL (roll, pitch, yaw,
 * throttle), then the mixed surfaces. Indices on the wire, so the first is 0.
 */
enum hil_control {
	HIL_CTL_AILERON = 0,       /* -1..1, +1 rolls right */
	HIL_CTL_ELEVATOR,          /* -1..1, +1 pitches the nose up */
	HIL_CTL_RUDDER,            /* -1..1, +1 yaws the nose right */
	HIL_CTL_THROTTLE,          /* 0..1 of SERVOn_MIN..MAX; exactly 0 at MIN and disarmed */
	HIL_CTL_ELEVON_LEFT,       /* -1..1, as control/servo.h mixes them */
	HIL_CTL_ELEVON_RIGHT,
	HIL_CTL_VTAIL_LEFT,
	HIL_CTL_VTAIL_RIGHT,
	HIL_CTL_COUNT
};

#define HIL_CONTROLS 16                      /* the message's controls[] */
#define HIL_FLAG_LOCKSTEP 1ull                /* HIL_ACTUATOR_CONTROLS_FLAGS_LOCKSTEP */
#define HIL_FLAG_NO_PULSES(i) (1ull << (32 + (i)))

/* What goes out for a set of pulse widths (hil_controls_from_outputs). */
struct hil_controls {
	float controls[HIL_CONTROLS];
	uint64_t flags;            /* HIL_FLAG_NO_PULSES(i) for each control nothing drives */
	unsigned int refused;      /* outputs whose pulse could not be normalised */
	unsigned int refused_ch;   /* the first of them, 1-based (0: none) */
	uint16_t refused_us;       /* and its pulse */
};

struct hil_rcout {
	struct rcout base;
	_Atomic uint16_t pulse_us[HIL_CHANNELS];  /* main writes, the HIL writer reads */
};

/* Counters, written by the reader thread. */
struct hil_stats {
	uint64_t frames;               /* MAVLink frames in */
	uint64_t sensor_msgs;          /* HIL_SENSOR taken */
	uint64_t gps_msgs, rc_msgs, battery_msgs, truth_msgs;
	uint64_t distance_msgs;        /* DISTANCE_SENSOR taken as the rangefinder */
	uint64_t distance_ignored;     /* ... not: no MAVLink rangefinder (RNGFND1_TYPE not 10), or
					* not looking down (orientation not 25) */
	uint64_t ignored;              /* good frames of other messages */
	uint64_t rejected;             /* HIL messages with values that cannot be (NaN, ranges) */
	uint64_t time_backwards;       /* HIL_SENSOR older than the last */
	uint64_t repeated;             /* lock-step: messages of a frame the simulator sent again */
	uint64_t answered_again;       /* lock-step: ... and the answers sent again for them */
	uint64_t reanchors;            /* real time: the simulator fell behind for good (see hil.c) */
	uint64_t reanchored_us;        /* by this much in all */
	uint64_t tx_errors;            /* writer thread */
	uint64_t outputs_refused;      /* writer thread: outputs sent as "no pulses" instead (see
					* hil_controls_from_outputs), one per output per message */
};

enum hil_event {
	HIL_EVENT_NONE = 0,
	HIL_EVENT_RESTART,             /* the simulator's time went back, or it said it reset */
};

struct hil {
	struct link_spec spec;
	uint8_t mav_type;              /* our HEARTBEAT's type (hil_open: MAV_TYPE_FIXED_WING) */
	/* DISTANCE_SENSOR is the rangefinder (RNGFND1_TYPE 10, MAVLink); false
	 * after hil_open: the caller sets it before the reader runs. */
	bool rangefinder;
	struct udp_sock *sock;
	struct udp_addr peer;
	struct uart *uart;
	struct uart_config uart_cfg;
	struct sensor_hub *hub;
	bool lockstep;                 /* sample times are the simulator's */
	struct mavlink_parser parser;
	uint64_t sim_time_us;          /* the last HIL_SENSOR's time */
	_Atomic uint64_t answer_us;    /* the same, for the writer's answer (reader publishes) */
	/* Lock-step: the simulator sends a frame again when no answer came
	 * (lost on the way, or slow). Its messages lie from its first step to
	 * its last (sim_time_us): frame_first_us.. while it is not answered,
	 * answered_first_us.. once it is (and then its last step is answered
	 * again). */
	uint64_t frame_first_us, answered_first_us;
	bool frame_open;               /* steps taken since the last answer */
	/* Real time: the simulator's time mapped onto CLOCK_MONOTONIC, stamp =
	 * sim time + offset, the stamps strictly increasing. The offset is the
	 * least (arrival - sim) seen over the first second, so samples that
	 * arrive together keep their spacing; it moves up when the simulator
	 * falls behind our clock for good (stamp_step in hil.c). Each
	 * HIL_SENSOR's stamp, time and arrival go to the hub's clock
	 * (sensors_publish_clock). */
	int64_t mono_offset_us;
	bool offset_set;
	uint64_t last_stamp_us;
	uint64_t first_step_us;        /* arrival of the first HIL_SENSOR */
	uint64_t late_since_us;        /* arrival of the first of a run of late steps; 0: none */
	int64_t late_min_us;           /* the least lateness in that run */
	bool heard;                    /* the simulator has talked */
	uint64_t heard_ns;             /* CLOCK_MONOTONIC of the last frame from it */
	uint64_t hb_sent_ns;
	uint8_t tx_seq;                /* writer thread */
	struct hil_rcout out;
	struct hil_stats stats;
	enum hil_event event;
};

/* "udp:HOST:PORT" (the simulator's address) or "serial:PATH:BAUD". Returns 0 or -EINVAL. */
int hil_spec_parse(const char *text, struct link_spec *out);

/*
 * Opens the link. lockstep: samples are stamped with the simulator's time (the
 * scheduler's virtual clock); else with CLOCK_MONOTONIC on arrival. Returns 0
 * or -errno with one line in err.
 */
int hil_open(struct hil *h, const struct link_spec *spec, struct sensor_hub *hub, bool lockstep,
	     char *err, size_t err_len);
void hil_close(struct hil *h);
/* The servo outputs the flight code writes (main thread). */
struct rcout *hil_rcout(struct hil *h);

/*
 * Reader: takes in what has arrived, waiting up to timeout_ms for the first
 * bytes (0: not at all). Each HIL_SENSOR's samples go to the hub and then, if
 * on_time is not NULL, on_time(ctx, t_us) runs with its time, so the caller
 * can advance the clock through every sensor step in order. In lock-step
 * over UDP it stops after a datagram that ends with a HIL_SENSOR (the
 * simulator waits for the answer then), without a read that would find
 * nothing. Returns the number of HIL_SENSOR messages taken, or -errno (the
 * link failed). A simulator restart stops the reading with h->event =
 * HIL_EVENT_RESTART.
 */
int hil_receive(struct hil *h, int timeout_ms, int (*on_time)(void *ctx, uint64_t t_us),
		void *ctx);
/*
 * The controls for the output channels' pulse widths (0 = no pulses), as
 * docs/hil.md says: each control from the first channel whose SERVOn_FUNCTION
 * is its function and which sends a pulse that its SERVOn_MIN/TRIM/MAX/
 * REVERSED can normalise (servo_surface_of_pwm, servo_throttle_of_pwm); the
 * throttle 0 whenever !armed; HIL_FLAG_NO_PULSES for a control no channel
 * drives. When any channel is a motor (SERVOn_FUNCTION 33..40) the layout is
 * a multirotor's: control i is motor i + 1, 0..1 of its channel's MIN..MAX
 * (a copter's outputs carry MOT_PWM_MIN..MAX there), 0 whenever !armed. A pulse that cannot be normalised (outside MIN..MAX, or MIN, TRIM,
 * MAX that cannot describe the channel) is refused: counted in out->refused,
 * never passed on. Pure.
 */
void hil_controls_from_outputs(const struct servo_params *servo,
			       const uint16_t pulse_us[HIL_CHANNELS], bool armed,
			       struct hil_controls *out);

/*
 * Writer: HIL_ACTUATOR_CONTROLS with the outputs as they stand, normalised
 * with servo (the parameters the flight code mixed them with), stamped with
 * the simulator's time of the last sensor step taken in (docs/hil.md); before
 * the simulator has talked, a HEARTBEAT once a second instead (so a UDP
 * simulator learns where we are). Returns 0 or -errno (counted).
 */
int hil_send_outputs(struct hil *h, bool armed, const struct servo_params *servo);

#endif
