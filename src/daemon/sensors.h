/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The sensor hub: where measurements meet the flight code, whichever backend
 * made them (chip drivers on the timer and uart threads, or the HIL link).
 *
 * - IMU samples are a stream: every one matters to the estimator's delta
 *   angles, so they go through an SPSC ring (producer: the thread that reads the
 *   IMU; consumer: main). The producer wakes the IMU-paced main thread at the
 *   main loop's rate, by the samples' time stamps: once each time they cross
 *   a main-loop period, whatever the IMU's rate (a 100 Hz IMU wakes a 400 Hz
 *   main loop with every sample, a 1 kHz one every 2.5 samples).
 * - Everything else is a latest value in a seqlocked topic with a generation,
 *   so main learns whether a baro, compass, GPS, pitot, battery, RC or
 *   rangefinder reading is new.
 *
 * Each publish function checks its sample first: a NaN or infinite value, a
 * pressure of 0 or less, a position outside the earth's ranges is refused,
 * counted per kind and said once per run of rejections (by the producer, with
 * the reason); nothing refused ever reaches the flight code. Each kind has
 * exactly one producer thread at a time, chosen at start-up.
 */
#ifndef FULMAR_DAEMON_SENSORS_H
#define FULMAR_DAEMON_SENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/gps_fix.h"
#include "drivers/sensor_sample.h"
#include "rc/rc.h"
#include "util/ring.h"
#include "util/topic.h"

#define SENSORS_IMU_RING 512           /* samples: a quarter second at 2 kHz, half at 1 kHz */

/*
 * The clock the samples are stamped on, where it is not CLOCK_MONOTONIC
 * itself: real-time HIL stamps them with the simulator's time mapped onto
 * ours (src/daemon/hil.c), and a simulator that runs slow or stalls moves
 * that mapping against CLOCK_MONOTONIC. With each sensor step its producer
 * (the HIL reader) publishes the step's stamp, the simulator's time of it and
 * when it arrived, so that freshness is judged on the samples' own clock.
 */
struct sensor_clock {
	uint64_t t_us;                 /* the step's stamp, on the samples' clock */
	uint64_t source_us;            /* the source's (simulator's) time of the step */
	uint64_t arrival_us;           /* CLOCK_MONOTONIC when it arrived */
	uint64_t paused_us;            /* the stamps' jumps so far over the source's pauses, in
	                                * which none of its time passed (the estimator takes
	                                * them out of its own: estim_source_paused) */
};

/* Counters: each written by the producer of its kind; read by anyone (relaxed). */
struct sensor_counts {
	_Atomic uint64_t accepted;
	_Atomic uint64_t rejected;
};

struct sensor_hub {
	struct ring imu;
	struct imu_sample imu_storage[SENSORS_IMU_RING];
	uint32_t imu_rate_hz;          /* the board's IMU rate as configured (for reports) */
	uint32_t main_rate_hz;
	uint64_t pace_next_us;         /* producer: the next multiple of main's period */
	void (*pace)(void *ctx);       /* wakes main; NULL: main is not paced */
	void *pace_ctx;
	struct topic topic[SENSOR_KIND_COUNT];  /* index SENSOR_BARO.. (IMU unused) */
	_Atomic uint32_t baro_words[TOPIC_WORDS(struct baro_sample)];
	_Atomic uint32_t mag_words[TOPIC_WORDS(struct mag_sample)];
	_Atomic uint32_t airspeed_words[TOPIC_WORDS(struct airspeed_sample)];
	_Atomic uint32_t gps_words[TOPIC_WORDS(struct gps_fix)];
	_Atomic uint32_t battery_words[TOPIC_WORDS(struct battery_sample)];
	_Atomic uint32_t rc_words[TOPIC_WORDS(struct rc_frame)];
	_Atomic uint32_t range_words[TOPIC_WORDS(struct range_sample)];
	struct topic clock;            /* struct sensor_clock; generation 0: CLOCK_MONOTONIC */
	_Atomic uint32_t clock_words[TOPIC_WORDS(struct sensor_clock)];
	struct sensor_counts count[SENSOR_KIND_COUNT];
	bool rejecting[SENSOR_KIND_COUNT];   /* producer: in a run of rejections (said once) */
};

/*
 * 1 <= main_rate_hz <= 1000000. pace (may be NULL) runs on the IMU's producer
 * with each sample whose time stamp has crossed a multiple of the main loop's
 * period since the sample before (1 kHz stamps from 1 ms into 400 Hz: after
 * samples 3, 5, 8, 10, 13, ...; a sample after a stall wakes main once).
 * imu_rate_hz is the board's IMU rate, kept for reports: the pacing goes by
 * the stamps, so samples at any rate pace main at its rate (or with every
 * sample of an IMU slower than main).
 */
void sensors_init(struct sensor_hub *h, uint32_t imu_rate_hz, uint32_t main_rate_hz,
		  void (*pace)(void *ctx), void *pace_ctx);
const char *sensor_kind_name(enum sensor_kind k);

/* Producers. Each returns 0, or -EINVAL when the sample was refused (counted). */
int sensors_push_imu(struct sensor_hub *h, const struct imu_sample *s);
int sensors_publish_baro(struct sensor_hub *h, const struct baro_sample *s);
int sensors_publish_mag(struct sensor_hub *h, const struct mag_sample *s);
int sensors_publish_airspeed(struct sensor_hub *h, const struct airspeed_sample *s);
int sensors_publish_gps(struct sensor_hub *h, const struct gps_fix *s);
int sensors_publish_battery(struct sensor_hub *h, const struct battery_sample *s);
int sensors_publish_rc(struct sensor_hub *h, const struct rc_frame *s);
int sensors_publish_range(struct sensor_hub *h, const struct range_sample *s);

/* The IMU's producer (real-time HIL), with each sensor step: see struct sensor_clock. */
void sensors_publish_clock(struct sensor_hub *h, const struct sensor_clock *c);
/*
 * Any thread: now on the samples' clock (*t_us), for CLOCK_MONOTONIC mono_us:
 * the last published step's stamp plus the time since it arrived, so that
 * time runs on through a stall as it does on a board (a step that arrives
 * late can make this smaller than an earlier answer: callers keep the
 * largest); and the source's time of that step (*source_us), which stands
 * still while the source does. Without a published clock (a board's own
 * sensors, lock-step HIL), mono_us for both.
 */
void sensors_now(const struct sensor_hub *h, uint64_t mono_us, uint64_t *t_us, uint64_t *source_us);
/* Any thread: struct sensor_clock's paused_us as last published; 0 without a clock. */
uint64_t sensors_paused_us(const struct sensor_hub *h);

/* Main thread: up to n IMU samples, oldest first; returns how many. */
size_t sensors_read_imu(struct sensor_hub *h, struct imu_sample *out, size_t n);
/*
 * Any thread: the latest value of a kind (not SENSOR_IMU) into out, which has
 * that kind's type; returns its generation (0: none yet, out untouched).
 */
uint32_t sensors_latest(const struct sensor_hub *h, enum sensor_kind k, void *out);
/* Any thread: the generation sensors_latest would return now, without the copy. */
uint32_t sensors_generation(const struct sensor_hub *h, enum sensor_kind k);
/* Any thread. */
uint64_t sensors_accepted(const struct sensor_hub *h, enum sensor_kind k);
uint64_t sensors_rejected(const struct sensor_hub *h, enum sensor_kind k);
/* IMU samples dropped because main had not taken them (ring full). */
uint64_t sensors_imu_dropped(const struct sensor_hub *h);

#endif
