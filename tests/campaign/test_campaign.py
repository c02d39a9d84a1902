#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A short flight campaign (tools/campaign), lock-step, fixed seeds and winds: every flight
lands safely and within the bounds measured for today's autopilot; a style whose simulator
will not start is reported as not flown (exit 2), never hidden; bad options are refused.

  test_campaign.py CAMPAIGN BUILD_DIR OUT_DIR [farm]

With 'farm', also two flights through --sshloginfile (a stand-in ssh, GNU parallel's
rsync): meson test campaign_farm, suite 'farm', which tools/test runs only with --long.

Exit 0 passed, 1 failed, 77 skipped (no GNU parallel: tools/test installs it).
Standard library only.
"""
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


# The short campaign: seeds 1-4 x calm and 10 m/s from the east (a crosswind on the final
# approach), turbulence 3: 8 flights of the demonstration mission. The bounds are what these
# flights measured (2026-12-04) with the margins of flight_report.CHECKS: the worst of the
# 8 plus 20 % (touchdown: plus 3 m; bank: 10 % of the bank), the slowest airspeed held to the
# stall + 20 % as everywhere. They hold today's autopilot to what it does, no tighter; the
# figures are lock-step, the same on every host. The measured range is beside each.
SHORT = ['--seeds', '1-4', '--winds', '0,10', '--dirs', '90', '--turbulence', '3',
         '--hang-s', '200']   # a hung flight (none should) is stopped before meson's timeout
LIMITS = [
    # -8.9..-3.4 m since the flare steers for the point (2026-12-05); -12.5..-0.3 m after
    # 2026-12-04's flare (ArduPlane's 3 m / 2 s, a 0.5 m/s touchdown), -8.5..+4.7 before it
    'touchdown_along_m abs<12',
    'touchdown_cross_m abs<7.5',     # -2.1..+4.4 m
    'xtrack_rms_m<4.3',              # 1.17..3.56 m
    'alt_rms_m<1.1',                 # up to 0.91 m
    'airspeed_err_max_m_s<2.9',      # up to 2.38 m/s
    'bank_over_limit_deg<5',         # up to +0.34 deg beyond LIM_ROLL_CD (45 deg): 50 deg at most
    # at least 2.52 m/s over the stall the truth names, the skywalker's 9.96 m/s (+20 %: 1.99)
    'stall_margin_m_s>2',
]


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[4:] not in ([], ['farm']):
        sys.exit(__doc__)
    campaign, build, out = sys.argv[1:4]
    farm_too = sys.argv[4:] == ['farm']
    if not shutil.which('parallel'):
        print('SKIP: GNU parallel is not installed (apt-get install parallel; tools/test installs it)')
        sys.exit(77)
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    run = lambda args: subprocess.run([sys.executable, campaign, '--build', build] + args,
                                      capture_output=True, text=True)

    # Bad options: refused with a message and status 64, nothing flown.
    for bad in (['--seeds', 'x'], ['--winds', '5,nan'], ['--styles', 'no/such'], ['--limit', 'xtrack<'],
                ['--jobs', '0']):
        r = run(bad + ['--out', os.path.join(out, 'bad')])
        check(r.returncode == 64 and 'campaign:' in r.stderr and not os.path.exists(os.path.join(out, 'bad')),
              'refuses %s: status %d, %s' % (' '.join(bad), r.returncode, r.stderr.strip()[:80]))

    # A style fulmar-sim cannot fly (an option it does not know): not flown, said, status 2.
    sf = os.path.join(out, 'styles.json')
    with open(sf, 'w') as f:
        json.dump({'bad/start': {'sim_args': ['--no-such-option'], 'mission': 'missions/cmac-circuit.waypoints',
                                 'params': 'missions/cmac-circuit.param',
                                 'timeline': 'missions/cmac-circuit.timeline',
                                 'laps': 3, 'stall_m_s': 9.0, 'cruise_m_s': 15.0}}, f)
    r = run(['--styles-file', sf, '--styles', 'bad/start', '--seeds', '1', '--winds', '0',
             '--out', os.path.join(out, 'unstartable')])
    print(r.stdout)
    check(r.returncode == 2 and 'NOT FLOWN' in r.stdout and 'did not start' in r.stdout
          and 'no-such-option' in r.stdout,
          'a flight whose simulator will not start: reported not flown, status %d' % r.returncode)

    # Parameter files as a list: loaded in order (fulmard --load-params once a file).
    listed = dict(json.load(open(sf))['bad/start'],
                  params=['missions/cmac-circuit.param', 'missions/rangefinder-sf11.param'])
    for name, params, want in (('two/files', listed['params'], 0), ('no/files', [], 64),
                               ('not/paths', ['missions/cmac-circuit.param', 3], 64),
                               ('outside/repo', ['missions/cmac-circuit.param', '../x.param'], 64)):
        lf = os.path.join(out, 'styles-%s.json' % name.replace('/', '-'))
        with open(lf, 'w') as f:
            json.dump({name: dict(listed, params=params)}, f)
        r = subprocess.run([sys.executable, campaign, 'styles', '--styles-file', lf],
                           capture_output=True, text=True)
        ok = r.returncode == want and (want != 0 or any(
            ln.startswith(name) and 'cmac-circuit.param + missions/rangefinder-sf11.param' in ln
            for ln in r.stdout.splitlines()))
        check(ok, 'a style with params %s: status %d (want %d) %s' % (params, r.returncode, want,
                                                                    r.stderr.strip()[:80]))

    # The short campaign.
    co = os.path.join(out, 'short')
    args = SHORT + ['--out', co]
    for lim in LIMITS:
        args += ['--limit', lim]
    r = run(args)
    print(r.stdout, r.stderr)
    check(r.returncode == 0, 'the campaign: status %d (0: every flight landed safely within the limits)'
          % r.returncode)
    try:
        with open(os.path.join(co, 'summary.json')) as f:
            sm = json.load(f)
    except (OSError, ValueError) as e:
        check(False, 'summary.json: %s' % e)
        sys.exit(1)
    check(sm['flights'] == 8 and sm['flown'] == 8 and sm['success'] == 8 and not sm['unsafe'],
          '8 flights, %d flown, %d successful (mission, landed, no crash, disarmed)' % (sm['flown'], sm['success']))
    check(not sm['limits_broken'], 'every limit held: %s' % '; '.join(sm['limits_broken']))
    flights = sorted(os.listdir(os.path.join(co, 'flights')))
    each = all(os.path.getsize(os.path.join(co, 'flights', n, k)) > 0 for n in flights
               for k in ('truth.csv', 'fulmard.log', 'scores.json'))
    check(len(flights) == 8 and each, "each flight's truth, fulmard's messages and scores in a directory of its own")
    with open(os.path.join(co, 'touchdowns.svg')) as f:
        svg = f.read()
    check(svg.count('<title>f0') == 8 and 'land point' in svg and 'landing heading' in svg,
          'the touchdown picture: 8 touchdowns, the land point, the runway')
    # The statistics again from what is on disk: the same text.
    with open(os.path.join(co, 'summary.txt')) as f:
        first = f.read()
    r2 = subprocess.run([sys.executable, campaign, 'summary', co], capture_output=True, text=True)
    check(r2.returncode == 0 and r2.stdout == first and first.strip() in r.stdout,
          'tools/campaign summary gives the same statistics from the files')

    if farm_too:
        # The build farm's way (--sshloginfile): this machine (':') and one worker reached
        # through a stand-in for ssh that runs what it is given in a home directory of its own,
        # so the kit goes there and the flight comes back by GNU parallel's rsync as from
        # another machine. Two flights of the same world, cut short after 60 s (a style of the
        # styles file: never landed, so status 1): one flies here, one there, and lock-step,
        # their truths are the same to the byte.
        farm = os.path.join(out, 'farm')
        here, there = os.path.join(farm, 'here'), os.path.join(farm, 'there')
        os.makedirs(here)
        os.makedirs(there)
        ssh = os.path.join(farm, 'ssh')
        with open(ssh, 'w') as f:
            f.write('#!/bin/bash\n# ssh [OPTIONS] HOST [--] COMMAND: COMMAND run in the worker\'s home\n'
                    'while [[ $1 == -* ]]; do case $1 in -o|-l|-p|-i) shift ;; esac; shift; done\n'
                    'shift; [ "${1:-}" = -- ] && shift\n'
                    'cd %s && HOME=%s exec bash -c "$*"\n' % (there, there))
        os.chmod(ssh, 0o755)
        with open(os.path.join(farm, 'workers'), 'w') as f:
            f.write('1/:\n1/worker1\n')
        with open(sf) as f:
            st = json.load(f)
        st['short/60s'] = dict(st['bad/start'], sim_args=['--duration', '60'])
        with open(sf, 'w') as f:
            json.dump(st, f)
        r3 = subprocess.run([sys.executable, campaign, '--build', build, '--styles-file', sf, '--styles', 'short/60s',
                             '--seeds', '7,7', '--winds', '5', '--dirs', '90', '--turbulence', '3',
                             '--hang-s', '100', '--out', os.path.join(here, 'c'),
                             '--sshloginfile', os.path.join(farm, 'workers'), '--ssh', ssh],
                            capture_output=True, text=True, env=dict(os.environ, HOME=here))
        print(r3.stdout, r3.stderr)
        truths = []
        for n in ('f001-short_60s-s7-w5d90-t3', 'f002-short_60s-s7-w5d90-t3'):
            try:
                with open(os.path.join(here, 'c', 'flights', n, 'truth.csv'), 'rb') as f:
                    truths.append(f.read())
            except OSError as e:
                truths.append(str(e).encode())
        try:
            with open(os.path.join(here, 'c', 'joblog.txt')) as f:
                hosts = sorted(ln.split('\t')[1] for ln in f.read().strip().split('\n')[1:])
        except (OSError, IndexError):
            hosts = []
        check(r3.returncode == 1 and 'never landed' in r3.stdout and hosts == [':', 'worker1']
              and os.path.isdir(os.path.join(there, 'c', 'kit', 'bin'))
              and len(truths[0]) > 100000 and truths[0] == truths[1],
              'through --sshloginfile: flown on %s, the kit sent, the flights back, their truths the same '
              '(%d and %d bytes), status %d' % (hosts, len(truths[0]), len(truths[1]), r3.returncode))
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
