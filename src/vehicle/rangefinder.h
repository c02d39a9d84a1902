/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The rangefinder's state, as flight code reads it: ArduPilot's status
 * (RangeFinder::Status, whose numbers the log's RFND.Stat carries), whether
 * the reading can be trusted, the distance along the beam and that distance
 * less the ground clearance.
 *
 * - NotConnected: RNGFND1_TYPE is 0.
 * - NoData: no reading yet, or none for RANGEFINDER_DATA_TIMEOUT_US (200 ms,
 *   ArduPilot's serial rangefinders' limit).
 * - OutOfRangeLow / OutOfRangeHigh: the distance under RNGFND1_MIN_CM or over
 *   RNGFND1_MAX_CM, or outside the source's own limits where it gives them
 *   (HIL's DISTANCE_SENSOR min/max); a reading without a return (a sensor's
 *   "nothing came back") is OutOfRangeHigh, as ArduPilot takes it.
 * - Good: in range and recent.
 *
 * Healthy: Good and not stuck. Stuck, fulmar's rule (ArduPilot has none): a
 * sensor that freezes keeps sending the same number, and a real one does not
 * while the height changes (its noise alone moves the last centimetre). So a
 * reading is stuck when its raw value (cm) has not changed for
 * RANGEFINDER_STUCK_US (1 s) while the estimate's altitude has moved by
 * RANGEFINDER_STUCK_ALT_M (1 m) or more since the value last changed. A
 * still aircraft (on the ground, hovering) never counts as stuck; without an
 * altitude estimate (NAN) nothing is judged stuck. It is trusted again at the
 * first new value.
 *
 * The distance is along the beam: correcting it for the attitude (and for
 * RNGFND1_POS_*) is the landing's business, which knows the attitude;
 * height_m is only distance_m - RNGFND1_GNDCLEAR.
 *
 * Pure: no clock, no I/O; time and inputs are arguments. The caller owns the
 * struct (the main thread's flight task).
 */
#ifndef FULMAR_VEHICLE_RANGEFINDER_H
#define FULMAR_VEHICLE_RANGEFINDER_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/sensor_sample.h"

#define RANGEFINDER_DATA_TIMEOUT_US 200000u
#define RANGEFINDER_STUCK_US 1000000u
#define RANGEFINDER_STUCK_ALT_M 1.0f

/* ArduPilot's RangeFinder::Status, numbers included (NotConnected is 0 there too). */
enum rangefinder_status {
	RANGEFINDER_NOT_CONNECTED = 0,
	RANGEFINDER_NO_DATA = 1,
	RANGEFINDER_OUT_OF_RANGE_LOW = 2,
	RANGEFINDER_OUT_OF_RANGE_HIGH = 3,
	RANGEFINDER_GOOD = 4,
};

/* The RNGFND1_* parameters, in SI units. */
struct rangefinder_params {
	int type;                      /* RNGFND1_TYPE; 0 none */
	float min_m, max_m;            /* RNGFND1_MIN_CM, RNGFND1_MAX_CM */
	float gndclear_m;              /* RNGFND1_GNDCLEAR */
	int orient;                    /* RNGFND1_ORIENT: 25 down */
};

/* What flight code is given (struct vehicle_input.rangefinder). */
struct rangefinder_reading {
	enum rangefinder_status status;
	bool healthy;                  /* Good and not stuck */
	bool stuck;
	float distance_m;              /* along the beam, the latest reading's; 0 without one */
	float height_m;                /* distance_m - GNDCLEAR: meaningful when healthy */
	uint64_t t_us;                 /* the latest reading's time; 0: none */
};

struct rangefinder {
	bool have;                     /* a reading has come */
	struct range_sample last;
	uint16_t same_raw;             /* the value being watched for sticking ... */
	uint64_t same_since_us;        /* ... unchanged since ... */
	float same_alt_m;              /* ... when the altitude was (NAN: unknown) */
	float alt_min_m, alt_max_m;    /* the altitude's range since (stuck needs it to move) */
	bool stuck;
	struct rangefinder_reading out;
};

void rangefinder_init(struct rangefinder *r);
/*
 * One step: s a new reading (NULL: none this step), alt_m the estimate's
 * altitude on any datum (NAN: none), now_us on the readings' clock. Then
 * rangefinder_get says the state.
 */
void rangefinder_update(struct rangefinder *r, const struct rangefinder_params *p,
			const struct range_sample *s, float alt_m, uint64_t now_us);
const struct rangefinder_reading *rangefinder_get(const struct rangefinder *r);
/* "NotConnected", "NoData", ... as ArduPilot names them. */
const char *rangefinder_status_name(enum rangefinder_status s);

#endif
