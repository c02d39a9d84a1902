#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ground on a castering tail wheel (issue 37): fulmar-sim's cub-caster, steered on the
ground by the rudder's air alone, from the runway in calm air and in a 5 m/s crosswind, with
the tail-dragger's file (missions/cub-runway.param) and with fulmard's defaults
(missions/cub-defaults.param), through tools/campaign, lock-step. Scored from the
simulator's truth:

- every flight lands and ends right side up (no crash: the truth counts the propeller, a
  wing tip or the top of the wing or fin on the ground as one), disarmed;
- with the tail-dragger's file, every lift-off within 5 m of the runway's centre line (the
  east offset when 1.5 m up: the runway runs north from home) and every touchdown within
  15 m along.

  test_ground.py CAMPAIGN BUILD_DIR OUT_DIR

Exit 0 passed, 1 failed, 77 skipped (no GNU parallel). Standard library only.
"""
import csv
import json
import os
import shutil
import subprocess
import sys

failures = []


def check(ok, what):
    print('%s - %s' % ('ok' if ok else 'FAIL', what), flush=True)
    if not ok:
        failures.append(what)


def ground_figures(truth):
    """East offset of the lift-off (when first 1.5 m above the start), and the last row's
    roll and pitch."""
    lift_e, e0, z0, last = None, None, None, None
    with open(truth) as f:
        for r in csv.DictReader(f):
            if e0 is None:
                e0, z0 = float(r['pos_e_m']), float(r['pos_d_m'])
            if lift_e is None and float(r['pos_d_m']) < z0 - 1.5:
                lift_e = float(r['pos_e_m']) - e0
            last = r
    return lift_e, float(last['roll_deg']), float(last['pitch_deg']), last['crashed'] == '1'


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    campaign, build, out = sys.argv[1:4]
    if not shutil.which('parallel'):
        print('SKIP: GNU parallel is not installed (apt-get install parallel; tools/test installs it)')
        sys.exit(77)
    if os.path.isdir(out):
        shutil.rmtree(out)
    r = subprocess.run([sys.executable, campaign, '--build', build, '--seeds', '1-3', '--winds', '0,5',
                        '--dirs', '90', '--turbulence', '0', '--hang-s', '200',
                        '--styles', 'cub-caster/runway,cub-caster/defaults', '--out', out],
                       capture_output=True, text=True)
    print(r.stdout, r.stderr)
    check(r.returncode == 0, 'the campaign: status %d (0: every flight landed safely)' % r.returncode)
    names = sorted(os.listdir(os.path.join(out, 'flights')))
    check(len(names) == 12, '12 flights: %d' % len(names))
    for n in names:
        d = os.path.join(out, 'flights', n)
        try:
            lift_e, roll, pitch, crashed = ground_figures(os.path.join(d, 'truth.csv'))
            with open(os.path.join(d, 'scores.json')) as f:
                sc = json.load(f)
        except (OSError, ValueError, KeyError, TypeError) as e:
            check(False, '%s: %s' % (n, e))
            continue
        up = not crashed and abs(roll) < 30.0 and -20.0 < pitch < 30.0
        check(up, '%s: ends right side up (roll %.1f, pitch %.1f deg, crashed %s)' % (n, roll, pitch, crashed))
        if 'defaults' in n:
            continue
        check(lift_e is not None and abs(lift_e) < 5.0,
              '%s: lifts off within 5 m of the centre line (%s m)' % (n, lift_e))
        along = sc.get('touchdown_along_m')
        check(along is not None and abs(along) < 15.0, '%s: touches down within 15 m along (%s m)' % (n, along))
    print('%d failed' % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
