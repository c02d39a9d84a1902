// SPDX-License-Identifier: GPL-3.0-or-later
#include "nav/wmm.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>

/* An angle difference into [-180, 180). */
static double wrap180(double d)
{
	d = fmod(d + 180.0, 360.0);
	if (d < 0.0)
		d += 360.0;
	return d - 180.0;
}

int wmm_lookup(double lat_deg, double lon_deg, float *decl_deg, float *incl_deg,
	       float *intensity_gauss)
{
	if (!isfinite(lat_deg) || !isfinite(lon_deg) || lat_deg < -90.0 || lat_deg > 90.0)
		return -EINVAL;
	/* The grid's last column is 180 = -180 again, so a cell never wraps: only
	 * the longitude does, into [-180, 180). */
	double lon = wrap180(lon_deg);
	double fi = (lat_deg + 90.0) / WMM_TABLE_STEP_DEG;
	double fj = (lon + 180.0) / WMM_TABLE_STEP_DEG;
	int i = (int)fi, j = (int)fj;
	if (i > WMM_TABLE_LATS - 2)
		i = WMM_TABLE_LATS - 2;   /* latitude 90: the top cell's upper edge */
	if (j > WMM_TABLE_LONS - 2)
		j = WMM_TABLE_LONS - 2;
	double u = fi - i, v = fj - j;
	const int16_t *c[4] = { wmm_table[i][j], wmm_table[i][j + 1], wmm_table[i + 1][j],
				wmm_table[i + 1][j + 1] };
	double w[4] = { (1 - u) * (1 - v), (1 - u) * v, u * (1 - v), u * v };
	/* Declination jumps by 360 degrees across a cell near a magnetic pole (or
	 * where it passes 180): each corner is taken the short way round from the
	 * first, so the weights mix angles, not their wrapped numbers. */
	double d0 = c[0][0] * 0.01, d = 0.0, incl = 0.0, f = 0.0;
	for (int k = 0; k < 4; k++) {
		d += w[k] * (d0 + wrap180(c[k][0] * 0.01 - d0));
		incl += w[k] * c[k][1] * 0.01;
		f += w[k] * c[k][2] * 10.0;
	}
	if (decl_deg)
		*decl_deg = (float)wrap180(d);
	if (incl_deg)
		*incl_deg = (float)incl;
	if (intensity_gauss)
		*intensity_gauss = (float)(f * 1e-5);
	return 0;
}
