// SPDX-License-Identifier: GPL-3.0-or-later
/* The ground's height under the aircraft: flat at home's ground, or a field
 * whose ground is higher or lower than home's, and may slope. Pure.
 *
 * Heights are metres above home's ground (up positive; the NED origin is on
 * home's ground, so the ground's z is minus the height). The field is a disc
 * of radius_m around (field_n_m, field_e_m) at field_alt_m, tilted by
 * slope_deg, rising towards slope_towards_deg (true), about its centre;
 * around it a bank of bank_m falls (or rises) linearly back to home's ground,
 * which is everywhere else. docs/simulator.md, "Terrain". */
#ifndef FULMAR_SIM_TERRAIN_H
#define FULMAR_SIM_TERRAIN_H

#include <stdbool.h>

struct sim_terrain {
	double field_alt_m;
	double field_n_m, field_e_m;
	double radius_m, bank_m;
	double slope_deg, slope_towards_deg;
};

void sim_terrain_default(struct sim_terrain *t);

/* Height of the ground above home's ground at north n_m, east e_m of home.
 * NULL is flat: 0 everywhere. */
double sim_terrain_height_m(const struct sim_terrain *t, double n_m, double e_m);

/* The ground's slope there: d height / d north and d height / d east (0 for NULL). */
void sim_terrain_gradient(const struct sim_terrain *t, double n_m, double e_m, double *dh_dn,
			  double *dh_de);

#endif
