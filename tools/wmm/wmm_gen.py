#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The World Magnetic Model (WMM2025) evaluated in full, and the C tables made from it.

Reads the Gauss coefficients (tools/wmm/WMM2025.COF, NOAA NCEI / NGA, public domain) and
  - checks the evaluation against NOAA's published test values (tools/wmm/test_values.txt);
  - writes src/nav/wmm_table.c: declination, inclination and total intensity on a regular
    latitude/longitude grid at one epoch (fulmard's wmm_lookup interpolates in it);
  - writes tools/sim/wmm_coef.c: the coefficients themselves, which fulmar-sim evaluates
    in full at run time (an independent path from the table);
  - writes tests/unit/wmm_points.h: full-model values at scattered places, the unit test's
    reference for wmm_lookup;
  - measures the table's interpolation error against the full model over the globe.

Standard library only. Usage:
  wmm_gen.py write  ROOT          regenerate the three files under the tree ROOT
  wmm_gen.py check  ROOT          regenerate in memory: fail if a committed file differs,
                                  or the model misses a test value, or the table's
                                  accuracy is worse than docs/estimator.md says
  wmm_gen.py accuracy ROOT        print the table's interpolation error figures
  wmm_gen.py field LAT LON [ALT_KM [YEAR]]   print the model's D, I, H, X, Y, Z, F
"""
import math
import os
import random
import sys

# WGS-84 and the model's reference radius (WMM2025 technical report).
WGS84_A_KM = 6378.137
WGS84_F = 1.0 / 298.257223563
WGS84_E2 = WGS84_F * (2.0 - WGS84_F)
WMM_RE_KM = 6371.2

# The table: grid step and the epoch it is evaluated for (docs/estimator.md says why).
TABLE_STEP_DEG = 5
TABLE_EPOCH = 2028.0
# Places nearer a magnetic pole than this horizontal intensity are left out of the
# accuracy figures: NOAA's "caution zone" (H < 6000 nT), where the compass itself is
# unreliable and ArduPilot's table is no better.
CAUTION_H_NT = 6000.0
# What docs/estimator.md promises (the check fails if the measured figures exceed them).
PROMISE_DECL_MAX_DEG = 3.5
PROMISE_DECL_P95_DEG = 0.3
PROMISE_INCL_MAX_DEG = 0.5
PROMISE_F_MAX_REL = 0.01

HERE = os.path.dirname(os.path.abspath(__file__))


def read_cof(path):
    """Returns (epoch, name, [(n, m, g, h, gdot, hdot)])."""
    with open(path) as f:
        lines = f.read().splitlines()
    head = lines[0].split()
    epoch, name = float(head[0]), head[1]
    rows = []
    for line in lines[1:]:
        if line.startswith('9999'):
            break
        p = line.split()
        if len(p) != 6:
            raise ValueError('%s: bad line %r' % (path, line))
        n, m = int(p[0]), int(p[1])
        if not (1 <= n <= 12 and 0 <= m <= n):
            raise ValueError('%s: bad degree/order in %r' % (path, line))
        rows.append((n, m, float(p[2]), float(p[3]), float(p[4]), float(p[5])))
    if len(rows) != 90:
        raise ValueError('%s: %d coefficients, 90 expected (degree 12)' % (path, len(rows)))
    return epoch, name, rows


def geodetic_to_geocentric(lat_deg, alt_km):
    """Geodetic latitude and height above the WGS-84 ellipsoid to the geocentric
    latitude (rad) and radius (km)."""
    phi = math.radians(lat_deg)
    s, c = math.sin(phi), math.cos(phi)
    rc = WGS84_A_KM / math.sqrt(1.0 - WGS84_E2 * s * s)
    p = (rc + alt_km) * c
    z = (rc * (1.0 - WGS84_E2) + alt_km) * s
    r = math.hypot(p, z)
    return math.asin(z / r), r


def schmidt_legendre(nmax, x):
    """Schmidt semi-normalised associated Legendre functions P[n][m](x) and their
    derivatives with respect to the latitude (x = sin(latitude)), |x| < 1."""
    c = math.sqrt(1.0 - x * x)
    # unnormalised Ferrers functions, no Condon-Shortley phase
    P = [[0.0] * (nmax + 2) for _ in range(nmax + 2)]
    for m in range(nmax + 1):
        pmm = 1.0
        for k in range(1, m + 1):
            pmm *= (2 * k - 1) * c
        P[m][m] = pmm
        if m + 1 <= nmax:
            P[m + 1][m] = x * (2 * m + 1) * pmm
        for n in range(m + 2, nmax + 1):
            P[n][m] = (x * (2 * n - 1) * P[n - 1][m] - (n + m - 1) * P[n - 2][m]) / (n - m)
    S = [[0.0] * (nmax + 1) for _ in range(nmax + 1)]
    dS = [[0.0] * (nmax + 1) for _ in range(nmax + 1)]
    for n in range(nmax + 1):
        for m in range(n + 1):
            k = math.sqrt((1.0 if m == 0 else 2.0) * math.factorial(n - m) / math.factorial(n + m))
            prev = P[n - 1][m] if n - 1 >= m else 0.0
            # (1 - x^2) dP/dx = (n + m) P[n-1][m] - n x P[n][m]; d/dlat = c d/dx
            d = ((n + m) * prev - n * x * P[n][m]) / c
            S[n][m] = k * P[n][m]
            dS[n][m] = k * d
    return S, dS


def field(coefs, epoch, lat_deg, lon_deg, alt_km, year):
    """The main field (nT) at a place and time: X north, Y east, Z down, geodetic frame."""
    # the poles themselves: a hair off them, where each meridian still has its north
    lat_deg = max(-89.99999, min(89.99999, lat_deg))
    lat_c, r = geodetic_to_geocentric(lat_deg, alt_km)
    S, dS = schmidt_legendre(12, math.sin(lat_c))
    lam = math.radians(lon_deg)
    dt = year - epoch
    xs = ys = zs = 0.0
    for n, m, g, h, gd, hd in coefs:
        g += dt * gd
        h += dt * hd
        ar = (WMM_RE_KM / r) ** (n + 2)
        cm, sm = math.cos(m * lam), math.sin(m * lam)
        t = g * cm + h * sm
        xs -= ar * t * dS[n][m]
        ys += ar * m * (g * sm - h * cm) * S[n][m]
        zs -= ar * (n + 1) * t * S[n][m]
    ys /= math.cos(lat_c)
    # the spherical frame's north and down to the ellipsoid's
    psi = lat_c - math.radians(lat_deg)
    X = xs * math.cos(psi) - zs * math.sin(psi)
    Z = xs * math.sin(psi) + zs * math.cos(psi)
    return X, ys, Z


def elements(X, Y, Z):
    """(D deg, I deg, H nT, F nT)."""
    H = math.hypot(X, Y)
    return (math.degrees(math.atan2(Y, X)), math.degrees(math.atan2(Z, H)), H,
            math.sqrt(H * H + Z * Z))


def check_test_values(coefs, epoch):
    """Returns a list of failures against NOAA's published rows."""
    bad = []
    n = 0
    with open(os.path.join(HERE, 'test_values.txt')) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            p = line.split()
            year, alt, lat, lon = (float(v) for v in p[:4])
            X, Y, Z = field(coefs, epoch, lat, lon, alt, year)
            D, I, H, F = elements(X, Y, Z)
            got = [D, I, H, X, Y, Z, F]
            # D and I published to 0.01 deg; the intensities to 1e-6 nT (a tenth of
            # a nT allows for the coefficients' own rounding in other evaluations)
            tol = [0.0051, 0.0051, 0.1, 0.1, 0.1, 0.1, 0.1]
            for k, v in enumerate(p[4:11]):
                if v == '-':
                    continue
                want = float(v)
                err = got[k] - want
                if k == 0:
                    err = (err + 180.0) % 360.0 - 180.0
                n += 1
                if abs(err) > tol[k]:
                    bad.append('%s: %s %.6f, published %s' % (' '.join(p[:4]), 'DIHXYZF'[k], got[k], v))
    return n, bad


def grid(coefs, epoch):
    lats = list(range(-90, 91, TABLE_STEP_DEG))
    lons = list(range(-180, 181, TABLE_STEP_DEG))
    rows = []
    for lat in lats:
        row = []
        for lon in lons:
            D, I, H, F = elements(*field(coefs, epoch, lat, lon, 0.0, TABLE_EPOCH))
            row.append((round(D * 100), round(I * 100), round(F / 10.0)))
        rows.append(row)
    return lats, lons, rows


def lookup(lats, lons, rows, lat, lon):
    """The table's bilinear interpolation, as src/nav/wmm.c does it (declination
    unwrapped about the cell's first corner)."""
    step = TABLE_STEP_DEG
    lat = max(-90.0, min(90.0, lat))
    lon = (lon + 180.0) % 360.0 - 180.0
    fi = (lat + 90.0) / step
    fj = (lon + 180.0) / step
    i = min(int(fi), len(lats) - 2)
    j = min(int(fj), len(lons) - 2)
    u, v = fi - i, fj - j
    c = [rows[i][j], rows[i][j + 1], rows[i + 1][j], rows[i + 1][j + 1]]
    w = [(1 - u) * (1 - v), (1 - u) * v, u * (1 - v), u * v]
    d0 = c[0][0] / 100.0
    D = I = F = 0.0
    for k in range(4):
        d = c[k][0] / 100.0 - d0
        d = (d + 180.0) % 360.0 - 180.0
        D += w[k] * (d0 + d)
        I += w[k] * c[k][1] / 100.0
        F += w[k] * c[k][2] * 10.0
    D = (D + 180.0) % 360.0 - 180.0
    return D, I, F


def accuracy(coefs, epoch, table, samples=20000, seed=2025):
    """Interpolation error against the full model at random places, uniform over
    the sphere, outside the caution zone. Returns a dict of figures."""
    lats, lons, rows = table
    rnd = random.Random(seed)
    ed, ei, ef = [], [], []
    kept = 0
    while kept < samples:
        lat = math.degrees(math.asin(rnd.uniform(-1.0, 1.0)))
        lon = rnd.uniform(-180.0, 180.0)
        D, I, H, F = elements(*field(coefs, epoch, lat, lon, 0.0, TABLE_EPOCH))
        if H < CAUTION_H_NT:
            continue
        kept += 1
        d, i, f = lookup(lats, lons, rows, lat, lon)
        ed.append(abs((d - D + 180.0) % 360.0 - 180.0))
        ei.append(abs(i - I))
        ef.append(abs(f - F) / F)
    def p95(v):
        s = sorted(v)
        return s[int(0.95 * (len(s) - 1))]
    return {'n': kept, 'decl_max': max(ed), 'decl_p95': p95(ed), 'incl_max': max(ei),
            'incl_p95': p95(ei), 'f_max': max(ef), 'f_p95': p95(ef)}


def drift(coefs, epoch):
    """The largest declination change per year outside the caution zone, on the grid."""
    worst = 0.0
    for lat in range(-85, 86, 5):
        for lon in range(-180, 180, 5):
            D0, _, H, _ = elements(*field(coefs, epoch, lat, lon, 0.0, 2025.0))
            if H < CAUTION_H_NT:
                continue
            D1, _, _, _ = elements(*field(coefs, epoch, lat, lon, 0.0, 2030.0))
            worst = max(worst, abs((D1 - D0 + 180.0) % 360.0 - 180.0) / 5.0)
    return worst


GEN_NOTE = ('Generated by tools/wmm/wmm_gen.py from tools/wmm/WMM2025.COF: do not edit;\n'
            ' * run "python3 tools/wmm/wmm_gen.py write ." instead (meson test wmm_table checks it).')


def table_c(name, table):
    lats, lons, rows = table
    out = ['// SPDX-License-Identifier: GPL-3.0-or-later',
           '/*',
           ' * The World Magnetic Model (%s) on a %d degree grid at epoch %.1f, sea level.' %
           (name, TABLE_STEP_DEG, TABLE_EPOCH),
           ' * ' + GEN_NOTE,
           ' * Each entry: declination and inclination in centidegrees, total intensity in 10 nT.',
           ' */',
           '#include "nav/wmm.h"',
           '',
           'const float wmm_table_epoch_year = %.1ff;' % TABLE_EPOCH,
           '',
           'const int16_t wmm_table[WMM_TABLE_LATS][WMM_TABLE_LONS][3] = {']
    for lat, row in zip(lats, rows):
        out.append('\t/* latitude %d */' % lat)
        out.append('\t{')
        for k in range(0, len(row), 4):
            out.append('\t\t' + ' '.join('{ %d, %d, %d },' % e for e in row[k:k + 4]))
        out.append('\t},')
    out.append('};')
    return '\n'.join(out) + '\n'


def coef_c(epoch, name, coefs):
    out = ['// SPDX-License-Identifier: GPL-3.0-or-later',
           '/*',
           ' * The %s Gauss coefficients (NOAA NCEI / NGA, public domain): main field' % name,
           ' * g, h (nT) at the epoch and their secular variation (nT/year).',
           ' * ' + GEN_NOTE,
           ' */',
           '#include "wmm_field.h"',
           '',
           'const double sim_wmm_epoch_year = %.1f;' % epoch,
           '',
           'const struct sim_wmm_coef sim_wmm_coefs[SIM_WMM_NCOEF] = {']
    for n, m, g, h, gd, hd in coefs:
        out.append('\t{ %d, %d, %.1f, %.1f, %.1f, %.1f },' % (n, m, g, h, gd, hd))
    out.append('};')
    return '\n'.join(out) + '\n'


def points_h(coefs, epoch):
    """Reference points for the unit test: full-model D, I, F at the table's epoch."""
    rnd = random.Random(16)
    pts = [(-35.363261, 149.165230), (61.2, -149.9), (-26.2, 28.0), (-45.0, 169.0),
           (-54.8, -68.3), (69.65, 18.96), (64.8, -147.7), (0.0, 179.99), (0.0, -179.99),
           (-33.9, 18.4), (51.5, -0.1), (40.0, -105.3)]
    while len(pts) < 200:
        lat = math.degrees(math.asin(rnd.uniform(-1.0, 1.0)))
        pts.append((round(lat, 4), round(rnd.uniform(-180.0, 180.0), 4)))
    out = ['/* SPDX-License-Identifier: GPL-3.0-or-later */',
           '/*',
           ' * The full World Magnetic Model at scattered places, sea level, epoch %.1f:' % TABLE_EPOCH,
           ' * latitude, longitude (deg), declination, inclination (deg), total intensity',
           ' * (gauss), horizontal intensity (nT; the caution zone is under 6000).',
           ' * ' + GEN_NOTE,
           ' */',
           'static const double wmm_points[][6] = {']
    for lat, lon in pts:
        D, I, H, F = elements(*field(coefs, epoch, lat, lon, 0.0, TABLE_EPOCH))
        out.append('\t{ %.4f, %.4f, %.4f, %.4f, %.6f, %.1f },' % (lat, lon, D, I, F * 1e-5, H))
    out.append('};')
    return '\n'.join(out) + '\n'


OUTPUTS = {'table': 'src/nav/wmm_table.c', 'coef': 'tools/sim/wmm_coef.c',
           'points': 'tests/unit/wmm_points.h'}


def generate(root):
    epoch, name, coefs = read_cof(os.path.join(HERE, 'WMM2025.COF'))
    table = grid(coefs, epoch)
    return epoch, name, coefs, table, {
        'table': table_c(name, table),
        'coef': coef_c(epoch, name, coefs),
        'points': points_h(coefs, epoch),
    }


def main(argv):
    if len(argv) >= 2 and argv[1] == 'field' and 4 <= len(argv) <= 6:
        epoch, _, coefs = read_cof(os.path.join(HERE, 'WMM2025.COF'))
        lat, lon = float(argv[2]), float(argv[3])
        alt = float(argv[4]) if len(argv) > 4 else 0.0
        year = float(argv[5]) if len(argv) > 5 else TABLE_EPOCH
        if not (-90.0 <= lat <= 90.0 and -1.0 <= alt <= 1000.0 and epoch <= year <= epoch + 5.0):
            raise ValueError('latitude -90..90, height -1..1000 km, year %.1f..%.1f' % (epoch, epoch + 5.0))
        X, Y, Z = field(coefs, epoch, lat, lon, alt, year)
        D, I, H, F = elements(X, Y, Z)
        print('D %.3f deg  I %.3f deg  H %.1f  X %.1f  Y %.1f  Z %.1f  F %.1f nT' % (D, I, H, X, Y, Z, F))
        return 0
    if len(argv) != 3 or argv[1] not in ('write', 'check', 'accuracy'):
        sys.stderr.write(__doc__)
        return 2
    root = argv[2]
    epoch, name, coefs, table, files = generate(root)
    n, bad = check_test_values(coefs, epoch)
    for b in bad:
        print('test value missed: ' + b)
    print('%d published test values: %d missed' % (n, len(bad)))
    if argv[1] == 'write':
        if bad:
            return 1
        for k, rel in OUTPUTS.items():
            with open(os.path.join(root, rel), 'w') as f:
                f.write(files[k])
            print('wrote ' + rel)
        return 0
    a = accuracy(coefs, epoch, table)
    print('table %d deg at %.1f, %d places outside the caution zone (H < %.0f nT):' %
          (TABLE_STEP_DEG, TABLE_EPOCH, a['n'], CAUTION_H_NT))
    print('  declination error max %.3f deg, 95th percentile %.3f deg' % (a['decl_max'], a['decl_p95']))
    print('  inclination error max %.3f deg, 95th percentile %.3f deg' % (a['incl_max'], a['incl_p95']))
    print('  intensity error max %.2f %%, 95th percentile %.2f %%' % (100 * a['f_max'], 100 * a['f_p95']))
    if argv[1] == 'accuracy':
        print('  declination drift 2025-2030 at most %.2f deg/year outside the caution zone' % drift(coefs, epoch))
        return 0
    fail = bool(bad)
    for k, rel in OUTPUTS.items():
        try:
            with open(os.path.join(root, rel)) as f:
                same = f.read() == files[k]
        except OSError as e:
            print('%s: %s' % (rel, e))
            same = False
        if not same:
            print('%s differs from what the coefficients and the generator make: '
                  'run "python3 tools/wmm/wmm_gen.py write ."' % rel)
            fail = True
    if a['decl_max'] > PROMISE_DECL_MAX_DEG or a['decl_p95'] > PROMISE_DECL_P95_DEG or \
       a['incl_max'] > PROMISE_INCL_MAX_DEG or a['f_max'] > PROMISE_F_MAX_REL:
        print('the table is less accurate than docs/estimator.md says')
        fail = True
    print('FAIL' if fail else 'OK')
    return 1 if fail else 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv))
    except (OSError, ValueError) as e:
        sys.exit('wmm_gen.py: %s' % e)
