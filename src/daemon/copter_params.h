/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The copter's counterpart of flight_params.h: the one place that binds the
 * parameter table's rows (PARAM_COPTER, and the shared rows the copter
 * reads: ARMING_CHECK, SERVOn_*) to the fields of struct copter_params, by
 * name (param.h's struct param_bind, as the plane's are). The fields carry
 * ArduCopter's units, so every row's scale is 1; one row may
 * feed several fields (ANGLE_MAX: the attitude and the position
 * controllers). The table's defaults are the struct's; a unit test holds
 * them equal, and holds every PARAM_COPTER row bound.
 */
#ifndef FULMAR_DAEMON_COPTER_PARAMS_H
#define FULMAR_DAEMON_COPTER_PARAMS_H

#include <stddef.h>

#include "copter/copter.h"

#include "param/param.h"

/* Sorted by name; offsets into struct copter_params (param.h's struct param_bind). */
extern const struct param_bind copter_param_binds[];
extern const unsigned int copter_param_count;

/*
 * Copies every bound parameter into cp (after param_init(PARAM_COPTER)).
 * Returns how many bound names the parameter table lacks (0; more is a
 * build mistake the unit test catches). Main thread, at start-up and after
 * a parameter changes.
 */
unsigned int copter_params_load(struct copter_params *cp);

#endif
