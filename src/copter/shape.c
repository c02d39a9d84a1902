// SPDX-License-Identifier: GPL-3.0-or-later
#include "copter/shape.h"

#include <math.h>

static float sqrt_controller(float error, float p, float accel)
{
	if (accel <= 0.0f)
		return error * p;
	if (p <= 0.0f)
		return error > 0.0f ? sqrtf(2.0f * accel * error) : -sqrtf(-2.0f * accel * error);
	/* linear up to where the line meets the parabola with the same slope */
	float lin = accel / (p * p);
	if (error > lin)
		return sqrtf(2.0f * accel * (error - 0.5f * lin));
	if (error < -lin)
		return -sqrtf(2.0f * accel * (-error - 0.5f * lin));
	return error * p;
}

float copter_sqrt_controller(float error, float p, float accel, float dt_s)
{
	if (!isfinite(error) || !isfinite(p) || !isfinite(accel))
		return 0.0f;
	float out = sqrt_controller(error, p, accel);
	if (dt_s > 0.0f) {
		/* no more than closes the error within the step */
		float most = fabsf(error) / dt_s;
		out = out > most ? most : out < -most ? -most : out;
	}
	return out;
}

float copter_sqrt_controller_inv(float out, float p, float accel)
{
	out = fabsf(out);
	if (accel <= 0.0f)
		return p > 0.0f ? out / p : 0.0f;
	if (p <= 0.0f)
		return out * out / (2.0f * accel);
	if (out <= accel / p)
		return out / p;
	return accel / (2.0f * p * p) + out * out / (2.0f * accel);
}
