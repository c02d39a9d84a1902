// SPDX-License-Identifier: GPL-3.0-or-later
#include "drivers/rotation.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

/* Quarter turns about x, then y, then z. */
static const uint8_t rotation_turns[ROTATION_COUNT][3] = {
	[ROTATION_NONE] = { 0, 0, 0 },
	[ROTATION_YAW_90] = { 0, 0, 1 },
	[ROTATION_YAW_180] = { 0, 0, 2 },
	[ROTATION_YAW_270] = { 0, 0, 3 },
	[ROTATION_ROLL_90] = { 1, 0, 0 },
	[ROTATION_ROLL_90_YAW_90] = { 1, 0, 1 },
	[ROTATION_ROLL_90_YAW_180] = { 1, 0, 2 },
	[ROTATION_ROLL_90_YAW_270] = { 1, 0, 3 },
	[ROTATION_ROLL_180] = { 2, 0, 0 },
	[ROTATION_ROLL_180_YAW_90] = { 2, 0, 1 },
	[ROTATION_ROLL_180_YAW_180] = { 2, 0, 2 },
	[ROTATION_ROLL_180_YAW_270] = { 2, 0, 3 },
	[ROTATION_ROLL_270] = { 3, 0, 0 },
	[ROTATION_ROLL_270_YAW_90] = { 3, 0, 1 },
	[ROTATION_ROLL_270_YAW_180] = { 3, 0, 2 },
	[ROTATION_ROLL_270_YAW_270] = { 3, 0, 3 },
	[ROTATION_PITCH_90] = { 0, 1, 0 },
	[ROTATION_ROLL_90_PITCH_90] = { 1, 1, 0 },
	[ROTATION_ROLL_180_PITCH_90] = { 2, 1, 0 },
	[ROTATION_ROLL_270_PITCH_90] = { 3, 1, 0 },
	[ROTATION_PITCH_270] = { 0, 3, 0 },
	[ROTATION_ROLL_90_PITCH_270] = { 1, 3, 0 },
	[ROTATION_ROLL_180_PITCH_270] = { 2, 3, 0 },
	[ROTATION_ROLL_270_PITCH_270] = { 3, 3, 0 },
};

/* cos and sin of a quarter-turn count. */
static const int8_t quarter_cos[4] = { 1, 0, -1, 0 };
static const int8_t quarter_sin[4] = { 0, 1, 0, -1 };

bool rotation_is_valid(enum rotation r)
{
	return r >= ROTATION_NONE && r < ROTATION_COUNT;
}

static struct rotation_matrix rotation_mul(const struct rotation_matrix *a,
					   const struct rotation_matrix *b)
{
	struct rotation_matrix out;

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			int s = 0;
			for (int k = 0; k < 3; k++)
				s += a->m[i][k] * b->m[k][j];
			out.m[i][j] = (int8_t)s;
		}
	return out;
}

struct rotation_matrix rotation_matrix_of(enum rotation r)
{
	assert(rotation_is_valid(r));
	const uint8_t *t = rotation_turns[r];
	int8_t cr = quarter_cos[t[0]], sr = quarter_sin[t[0]];
	int8_t cp = quarter_cos[t[1]], sp = quarter_sin[t[1]];
	int8_t cy = quarter_cos[t[2]], sy = quarter_sin[t[2]];
	const struct rotation_matrix rx = { { { 1, 0, 0 }, { 0, cr, (int8_t)-sr }, { 0, sr, cr } } };
	const struct rotation_matrix ry = { { { cp, 0, sp }, { 0, 1, 0 }, { (int8_t)-sp, 0, cp } } };
	const struct rotation_matrix rz = { { { cy, (int8_t)-sy, 0 }, { sy, cy, 0 }, { 0, 0, 1 } } };
	struct rotation_matrix pr = rotation_mul(&ry, &rx);

	return rotation_mul(&rz, &pr);
}

enum rotation rotation_compose(enum rotation first, enum rotation second)
{
	struct rotation_matrix a = rotation_matrix_of(first);
	struct rotation_matrix b = rotation_matrix_of(second);
	struct rotation_matrix ba = rotation_mul(&b, &a);

	for (int r = ROTATION_NONE; r < ROTATION_COUNT; r++) {
		struct rotation_matrix m = rotation_matrix_of((enum rotation)r);
		if (memcmp(&m, &ba, sizeof(m)) == 0)
			return (enum rotation)r;
	}
	/* The 24 entries are the whole rotation group of the cube: unreachable. */
	assert(false);
	return ROTATION_NONE;
}

void rotation_apply(const struct rotation_matrix *rm, const float in[3], float out[3])
{
	float v[3] = { in[0], in[1], in[2] };

	for (int i = 0; i < 3; i++)
		out[i] = (float)rm->m[i][0] * v[0] + (float)rm->m[i][1] * v[1] +
			 (float)rm->m[i][2] * v[2];
}
