// SPDX-License-Identifier: GPL-3.0-or-later
#include "terrain.h"

#include <math.h>
#include <string.h>

#define DEG (M_PI / 180.0)

void sim_terrain_default(struct sim_terrain *t)
{
	memset(t, 0, sizeof(*t));
	/* A field of 100 m across, about a small club's strip with its
	 * overruns, and a bank of 40 m: 3 m over 40 m is a 4 degree rise,
	 * a gentle hillside rather than a step. */
	t->radius_m = 50.0;
	t->bank_m = 40.0;
}

double sim_terrain_height_m(const struct sim_terrain *t, double n_m, double e_m)
{
	if (!t)
		return 0.0;
	double dn = n_m - t->field_n_m, de = e_m - t->field_e_m;
	double d = sqrt(dn * dn + de * de);
	double w = 1.0;
	if (d > t->radius_m)
		w = t->bank_m > 0.0 ? 1.0 - (d - t->radius_m) / t->bank_m : 0.0;
	if (w <= 0.0)
		return 0.0;
	double a = t->slope_towards_deg * DEG;
	double plane = t->field_alt_m + tan(t->slope_deg * DEG) * (dn * cos(a) + de * sin(a));
	return w * plane;
}

void sim_terrain_gradient(const struct sim_terrain *t, double n_m, double e_m, double *dh_dn,
			  double *dh_de)
{
	if (!t) {
		*dh_dn = *dh_de = 0.0;
		return;
	}
	/* Central differences over 5 cm: the surface is piecewise smooth. */
	const double h = 0.05;
	*dh_dn = (sim_terrain_height_m(t, n_m + h, e_m) - sim_terrain_height_m(t, n_m - h, e_m)) / (2.0 * h);
	*dh_de = (sim_terrain_height_m(t, n_m, e_m + h) - sim_terrain_height_m(t, n_m, e_m - h)) / (2.0 * h);
}
