/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The flight code's settings are plain structs (struct plane_params and what
 * it holds); the parameter table holds their values under ArduPlane's names.
 * This is the one place that binds the two: a name, the fields it sets (one
 * parameter may feed several modules, as ARSPD_FBW_MIN feeds TECS and the
 * attitude controllers), and a scale for units that differ (ALT_HOLD_RTL is
 * centimetres, the mission executor wants metres). The parameter table's
 * defaults are the structs' defaults; a unit test holds them equal.
 */
#ifndef FULMAR_DAEMON_FLIGHT_PARAMS_H
#define FULMAR_DAEMON_FLIGHT_PARAMS_H

#include <stddef.h>

#include "vehicle/plane.h"

#include "param/param.h"

/* Offsets into struct plane_params (param.h's struct param_bind). */
extern const struct param_bind flight_param_binds[];
extern const unsigned int flight_param_count;

/*
 * Copies every bound parameter into pp (after param_init). Returns how many
 * bound names the parameter table lacks (0; more is a build mistake the unit
 * test catches).
 */
unsigned int flight_params_load(struct plane_params *pp);

#endif
