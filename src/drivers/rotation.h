/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * How a sensor is mounted relative to the aircraft's body axes (x forward,
 * y right, z down), in right-angle steps: all 24 orientations a chip can have
 * on a board. A name reads as the rotation that takes the sensor's axes onto
 * the body's: first roll about x, then pitch about y, then yaw about z, so a
 * vector is corrected as v_body = Rz(yaw) * Ry(pitch) * Rx(roll) * v_sensor
 * (the convention of ArduPilot's ROTATION_* names, so board notes carry over).
 * Where two names are the same orientation only one is listed
 * (ROLL_180_YAW_180 is also "PITCH_180").
 *
 * Pure functions on any thread.
 */
#ifndef FULMAR_DRIVERS_ROTATION_H
#define FULMAR_DRIVERS_ROTATION_H

#include <stdbool.h>
#include <stdint.h>

enum rotation {
	ROTATION_NONE = 1,
	ROTATION_YAW_90,
	ROTATION_YAW_180,
	ROTATION_YAW_270,
	ROTATION_ROLL_90,
	ROTATION_ROLL_90_YAW_90,
	ROTATION_ROLL_90_YAW_180,
	ROTATION_ROLL_90_YAW_270,
	ROTATION_ROLL_180,
	ROTATION_ROLL_180_YAW_90,
	ROTATION_ROLL_180_YAW_180,
	ROTATION_ROLL_180_YAW_270,
	ROTATION_ROLL_270,
	ROTATION_ROLL_270_YAW_90,
	ROTATION_ROLL_270_YAW_180,
	ROTATION_ROLL_270_YAW_270,
	ROTATION_PITCH_90,
	ROTATION_ROLL_90_PITCH_90,
	ROTATION_ROLL_180_PITCH_90,
	ROTATION_ROLL_270_PITCH_90,
	ROTATION_PITCH_270,
	ROTATION_ROLL_90_PITCH_270,
	ROTATION_ROLL_180_PITCH_270,
	ROTATION_ROLL_270_PITCH_270,
	ROTATION_COUNT,
};

/* The rotation as a matrix of -1/0/+1 (row-major, m[row][col]). */
struct rotation_matrix {
	int8_t m[3][3];
};

/* False for 0 and anything not in the enum. */
bool rotation_is_valid(enum rotation r);
/* r must be valid (asserted). */
struct rotation_matrix rotation_matrix_of(enum rotation r);
/*
 * The one rotation equal to applying first, then second (e.g. a board's
 * mounting after the chip's own axes inside a package). Both must be valid.
 */
enum rotation rotation_compose(enum rotation first, enum rotation second);
/* out = R * in; in and out may be the same array. */
void rotation_apply(const struct rotation_matrix *rm, const float in[3], float out[3]);

#endif
