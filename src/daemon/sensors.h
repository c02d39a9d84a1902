/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The sensor hub: where measurements meet the flight code, whichever backend
 * made them (chip drivers on the timer and uart threads, or the HIL link).
 *
 * - IMU samples are a stream: every one matters to the estimator's delta
 *   angles, so they go through an SPSC ring (producer: the thread that reads the
 *   IMU; consumer: main). The producer wakes the IMU-paced main thread at the
 *   main loop's rate.
 * - Everything else is a latest value in a seqlocked topic with a generation,
 *   so main learns whether a baro, compass, GPS, pitot, battery or RC reading
 *   is new.
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

#define SENSORS_IMU_RING 256           /* samples: a quarter second at 1 kHz */

struct battery_sample {
	uint64_t t_us;
	float voltage_v;
	float current_a;               /* NAN when the monitor has no current sense */
	float consumed_mah;            /* NAN when unknown */
};

enum sensor_kind {
	SENSOR_IMU = 1,
	SENSOR_BARO,
	SENSOR_MAG,
	SENSOR_AIRSPEED,
	SENSOR_GPS,
	SENSOR_BATTERY,
	SENSOR_RC,
	SENSOR_KIND_COUNT,
};

/* Counters: each written by the producer of its kind; read by anyone (relaxed). */
struct sensor_counts {
	_Atomic uint64_t accepted;
	_Atomic uint64_t rejected;
};

struct sensor_hub {
	struct ring imu;
	struct imu_sample imu_storage[SENSORS_IMU_RING];
	uint32_t imu_rate_hz, main_rate_hz;  /* main wakes main_rate_hz / imu_rate_hz per sample */
	uint32_t pace_acc;             /* producer: Bresenham accumulator of that ratio */
	void (*pace)(void *ctx);       /* wakes main; NULL: main is not paced */
	void *pace_ctx;
	struct topic topic[SENSOR_KIND_COUNT];  /* index SENSOR_BARO.. (IMU unused) */
	_Atomic uint32_t baro_words[TOPIC_WORDS(struct baro_sample)];
	_Atomic uint32_t mag_words[TOPIC_WORDS(struct mag_sample)];
	_Atomic uint32_t airspeed_words[TOPIC_WORDS(struct airspeed_sample)];
	_Atomic uint32_t gps_words[TOPIC_WORDS(struct gps_fix)];
	_Atomic uint32_t battery_words[TOPIC_WORDS(struct battery_sample)];
	_Atomic uint32_t rc_words[TOPIC_WORDS(struct rc_frame)];
	struct sensor_counts count[SENSOR_KIND_COUNT];
	bool rejecting[SENSOR_KIND_COUNT];   /* producer: in a run of rejections (said once) */
};

/*
 * 1 <= main_rate_hz <= imu_rate_hz. pace (may be NULL) runs on the IMU's
 * producer main_rate_hz times per imu_rate_hz samples, evenly spread (1 kHz
 * into 400 Hz: after samples 3, 5, 8, 10, ...).
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

/* Main thread: up to n IMU samples, oldest first; returns how many. */
size_t sensors_read_imu(struct sensor_hub *h, struct imu_sample *out, size_t n);
/*
 * Any thread: the latest value of a kind (not SENSOR_IMU) into out, which has
 * that kind's type; returns its generation (0: none yet, out untouched).
 */
uint32_t sensors_latest(const struct sensor_hub *h, enum sensor_kind k, void *out);
/* Any thread. */
uint64_t sensors_accepted(const struct sensor_hub *h, enum sensor_kind k);
uint64_t sensors_rejected(const struct sensor_hub *h, enum sensor_kind k);
/* IMU samples dropped because main had not taken them (ring full). */
uint64_t sensors_imu_dropped(const struct sensor_hub *h);

#endif
