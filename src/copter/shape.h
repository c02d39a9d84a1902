/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ArduPilot's square-root controller, the building block of the copter's
 * attitude loops (atc.c), position controller and input shaper (psc.c) and
 * waypoint braking (wpnav.c): error x gain p near zero, growing as the square
 * root beyond error = accel / p^2, so that an output chosen this way can be
 * brought to zero at `accel` (its rate of change, the second-order limit).
 * accel <= 0: linear; p <= 0: the square root alone. With dt_s > 0 never
 * more than |error| / dt_s (no overshoot within a step). Not a number in: 0.
 */
#ifndef FULMAR_COPTER_SHAPE_H
#define FULMAR_COPTER_SHAPE_H

float copter_sqrt_controller(float error, float p, float accel, float dt_s);

/* Its inverse: the error at which the controller outputs `out` (the leash:
 * the largest position error the correction is allowed). */
float copter_sqrt_controller_inv(float out, float p, float accel);

#endif
