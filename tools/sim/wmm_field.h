/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The World Magnetic Model (WMM2025) evaluated in full: degree-12 spherical
 * harmonics of the Gauss coefficients (tools/sim/wmm_coef.c, generated from
 * tools/wmm/WMM2025.COF) with their secular variation, at a geodetic place on
 * WGS-84. fulmar-sim's earth field comes from here, an evaluation of its own,
 * independent of fulmard's interpolated table (src/nav/wmm_table.c). Pure.
 */
#ifndef FULMAR_SIM_WMM_FIELD_H
#define FULMAR_SIM_WMM_FIELD_H

#define SIM_WMM_NMAX 12
#define SIM_WMM_NCOEF 90
/* The model's life: its epoch and five years on. */
#define SIM_WMM_FIRST_YEAR 2025.0
#define SIM_WMM_LAST_YEAR 2030.0

struct sim_wmm_coef {
	int n, m;
	double g, h;            /* nT at the epoch */
	double g_dot, h_dot;    /* nT/year */
};

extern const double sim_wmm_epoch_year;
extern const struct sim_wmm_coef sim_wmm_coefs[SIM_WMM_NCOEF];

struct sim_wmm {
	double x_nt, y_nt, z_nt;        /* north, east, down (geodetic frame) */
	double decl_deg, incl_deg;      /* declination east, inclination down positive */
	double h_nt, f_nt;              /* horizontal and total intensity */
};

/* The field at a geodetic latitude and longitude (deg), height above the
 * ellipsoid (m) and decimal year (e.g. 2026.5). Returns 0, or -EINVAL for a
 * non-finite or out-of-range argument (|lat| > 90, a year outside the model's
 * life [2025, 2030], a height outside -1 km .. 1000 km). The poles themselves
 * are evaluated a hair off them. */
int sim_wmm_field(double lat_deg, double lon_deg, double alt_m, double year, struct sim_wmm *out);

/* A calendar date (UTC) as a decimal year, as the model counts it:
 * year + (day of the year - 1) / days in that year. -1 for a bad date. */
double sim_wmm_decimal_year(int year, int month, int day);

#endif
