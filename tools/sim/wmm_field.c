// SPDX-License-Identifier: GPL-3.0-or-later
#include "wmm_field.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>

#define DEG (M_PI / 180.0)
#define WGS84_A_KM 6378.137
#define WGS84_F (1.0 / 298.257223563)
#define WMM_RE_KM 6371.2   /* the model's reference radius */

/* Schmidt semi-normalised associated Legendre functions of x = sin(geocentric
 * latitude), and their derivatives with respect to that latitude. Built from
 * the unnormalised Ferrers functions (no Condon-Shortley phase) by the
 * standard three-term recurrence in n; the normalisation
 * sqrt((2 - delta_m0) (n-m)! / (n+m)!) is a product kept as it goes. */
static void legendre(double x, double P[SIM_WMM_NMAX + 1][SIM_WMM_NMAX + 1],
		     double dP[SIM_WMM_NMAX + 1][SIM_WMM_NMAX + 1])
{
	double c = sqrt(1.0 - x * x);
	double F[SIM_WMM_NMAX + 2][SIM_WMM_NMAX + 2] = { { 0 } };
	for (int m = 0; m <= SIM_WMM_NMAX; m++) {
		double pmm = 1.0;
		for (int k = 1; k <= m; k++)
			pmm *= (2 * k - 1) * c;
		F[m][m] = pmm;
		if (m + 1 <= SIM_WMM_NMAX)
			F[m + 1][m] = x * (2 * m + 1) * pmm;
		for (int n = m + 2; n <= SIM_WMM_NMAX; n++)
			F[n][m] = (x * (2 * n - 1) * F[n - 1][m] - (n + m - 1) * F[n - 2][m]) / (n - m);
	}
	for (int n = 0; n <= SIM_WMM_NMAX; n++) {
		for (int m = 0; m <= n; m++) {
			/* (n-m)! / (n+m)! as the product of 1/k for k in (n-m, n+m] */
			double r = m == 0 ? 1.0 : 2.0;
			for (int k = n - m + 1; k <= n + m; k++)
				r /= k;
			double norm = sqrt(r);
			double prev = n - 1 >= m ? F[n - 1][m] : 0.0;
			/* (1 - x^2) dF/dx = (n + m) F[n-1][m] - n x F[n][m]; d/dlat = c d/dx */
			P[n][m] = norm * F[n][m];
			dP[n][m] = norm * ((n + m) * prev - n * x * F[n][m]) / c;
		}
	}
}

int sim_wmm_field(double lat_deg, double lon_deg, double alt_m, double year, struct sim_wmm *out)
{
	if (!isfinite(lat_deg) || !isfinite(lon_deg) || !isfinite(alt_m) || !isfinite(year) ||
	    fabs(lat_deg) > 90.0 || year < SIM_WMM_FIRST_YEAR || year > SIM_WMM_LAST_YEAR ||
	    alt_m < -1000.0 || alt_m > 1e6)
		return -EINVAL;
	if (lat_deg > 89.99999)
		lat_deg = 89.99999;
	if (lat_deg < -89.99999)
		lat_deg = -89.99999;
	/* geodetic to geocentric on WGS-84 */
	double e2 = WGS84_F * (2.0 - WGS84_F), h_km = alt_m * 1e-3;
	double phi = lat_deg * DEG, sp = sin(phi), cp = cos(phi);
	double rc = WGS84_A_KM / sqrt(1.0 - e2 * sp * sp);
	double p = (rc + h_km) * cp, z = (rc * (1.0 - e2) + h_km) * sp;
	double r = hypot(p, z), lat_c = asin(z / r);
	double P[SIM_WMM_NMAX + 1][SIM_WMM_NMAX + 1], dP[SIM_WMM_NMAX + 1][SIM_WMM_NMAX + 1];
	legendre(sin(lat_c), P, dP);
	double lam = lon_deg * DEG, dt = year - sim_wmm_epoch_year;
	double xs = 0.0, ys = 0.0, zs = 0.0;
	for (int k = 0; k < SIM_WMM_NCOEF; k++) {
		const struct sim_wmm_coef *q = &sim_wmm_coefs[k];
		double g = q->g + dt * q->g_dot, h = q->h + dt * q->h_dot;
		double ar = pow(WMM_RE_KM / r, q->n + 2);
		double cm = cos(q->m * lam), sm = sin(q->m * lam);
		double t = g * cm + h * sm;
		xs -= ar * t * dP[q->n][q->m];
		ys += ar * q->m * (g * sm - h * cm) * P[q->n][q->m];
		zs -= ar * (q->n + 1) * t * P[q->n][q->m];
	}
	ys /= cos(lat_c);
	/* the sphere's north and down turned to the ellipsoid's */
	double psi = lat_c - phi;
	out->x_nt = xs * cos(psi) - zs * sin(psi);
	out->y_nt = ys;
	out->z_nt = xs * sin(psi) + zs * cos(psi);
	out->h_nt = hypot(out->x_nt, out->y_nt);
	out->f_nt = hypot(out->h_nt, out->z_nt);
	out->decl_deg = atan2(out->y_nt, out->x_nt) / DEG;
	out->incl_deg = atan2(out->z_nt, out->h_nt) / DEG;
	return 0;
}

static bool leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

double sim_wmm_decimal_year(int year, int month, int day)
{
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (year < 1900 || year > 2200 || month < 1 || month > 12 || day < 1)
		return -1.0;
	int len = mdays[month - 1] + (month == 2 && leap(year));
	if (day > len)
		return -1.0;
	int doy = day - 1;
	for (int k = 0; k < month - 1; k++)
		doy += mdays[k] + (k == 1 && leap(year));
	return year + doy / (leap(year) ? 366.0 : 365.0);
}
