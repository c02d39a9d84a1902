#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""tools/campaign --faults-random without flying: one fault a flight, drawn from its own
stream (the flights are those drawn without the option), started within the window of
docs/campaign.md, as fulmar-sim time-line lines that fulmar-sim takes; and the outcome a
flight is counted under.

    test_faults_plan.py CAMPAIGN FULMAR_SIM
"""
import argparse
import importlib.machinery
import importlib.util
import os
import subprocess
import sys


def check(ok, what):
    if not ok:
        print('FAIL: %s' % what)
        sys.exit(1)


def main():
    campaign, sim = sys.argv[1:3]
    loader = importlib.machinery.SourceFileLoader('campaign', campaign)
    spec = importlib.util.spec_from_loader('campaign', loader)
    c = importlib.util.module_from_spec(spec)
    loader.exec_module(c)

    def plan(faults, n=40, styles='skywalker/hand,cub/runway,copter/square'):
        a = argparse.Namespace(turbulence='3,7.7', styles=styles, random=n, wind_range='0,10',
                               draw_seed=3, seeds='1', winds='0', dirs='90', faults_random=faults)
        return c.plan(a, c.STYLES)

    plain, faulted = plan(None), plan('all')
    key = lambda f: (f['style'], f['seed'], f['wind'], f['dir'], f['turb'])
    check([key(f) for f in plain] == [key(f) for f in faulted], 'the faults changed the flights drawn')
    check(all('fault' not in f for f in plain), 'a fault without --faults-random')
    check([f['fault'] for f in faulted] == [f['fault'] for f in plan('all')], 'not the same draw twice')
    kinds = set()
    for f in faulted:
        ft = f['fault']
        kinds.add(ft['kind'])
        st = c.STYLES[f['style']]
        launch = c.launch_time(os.path.join(c.ROOT, st['timeline']))
        flight_s = c.FLIGHT_S_DEFAULT[st.get('vehicle', 'plane')]
        check(launch + 20 <= ft['start_s'] <= launch + flight_s - 20, '%s: starts at %s, outside %g..%g' % (
            f['name'], ft['start_s'], launch + 20, launch + flight_s - 20))
        lo, hi = c.FAULT_KINDS[ft['kind']]
        check(lo <= ft['dur_s'] <= hi, '%s: lasts %s s' % (f['name'], ft['dur_s']))
        check(f['name'].endswith('-F' + ft['kind']), f['name'])
    check(len(kinds) >= 10, 'only %d kinds in 40 draws of 14' % len(kinds))
    only = plan('pitot_block,rc_loss', n=10)
    check({f['fault']['kind'] for f in only} <= {'pitot_block', 'rc_loss'}, 'a kind not asked for')
    try:
        plan('pitot_block,volcano')
        check(False, 'an unknown kind taken')
    except c.Usage as e:
        check('volcano' in str(e), str(e))
    # Every kind's lines are a time-line fulmar-sim takes: with no autopilot it gives up
    # waiting (status 1), never refuses them (status 2).
    import random
    rng = random.Random(1)
    for kind in c.FAULT_KINDS:
        args = [sim, '--listen', '127.0.0.1:0', '--start-timeout', '0.1', '--status-hz', '0']
        for ln in c.fault_lines(kind, 100.0, 10.0, rng):
            args += ['--fault', ln]
        r = subprocess.run(args, capture_output=True, text=True, timeout=30)
        check(r.returncode == 1, '%s: fulmar-sim exited %d: %s' % (kind, r.returncode, r.stderr[-300:]))
    # The outcome each flight is counted under.
    o = c.outcome
    down = {'landed': True, 'upright': True, 'disarmed_at_end': True, 'crashed': False}
    check(o(down, 3.0) == 'at the point', 'at the point')
    check(o(down, 15.0) == 'at the point', 'at 15 m')
    check(o(down, 40.0) == 'elsewhere, safely', 'elsewhere')
    check(o(down, None) == 'elsewhere, safely', 'no touchdown point')
    check(o(dict(down, crashed=True), 3.0) == 'crashed', 'crashed')
    check(o(dict(down, disarmed_at_end=False), 3.0) == 'not down safely', 'armed')
    check(o(dict(down, upright=False), 3.0) == 'not down safely', 'on its back')
    check(o(dict(down, landed=False), None) == 'not down safely', 'in the air')
    check(o(down, 3.0, 300.0, 31.0) == 'before the fault', 'down at 31 s, the fault at 300 s')
    check(o(dict(down, crashed=True), 3.0, 300.0, 31.0) == 'before the fault', 'a failed launch')
    check(o(down, 3.0, 300.0, 450.0) == 'at the point', 'down after the fault')
    res = [{'name': 'a', 'status': 'flown', 'outcome': 'at the point', '_plan': {'fault': {'kind': 'gps_loss'}}},
           {'name': 'b', 'status': 'flown', 'outcome': 'crashed', '_plan': {'fault': {'kind': 'gps_loss'}}},
           {'name': 'c', 'status': 'hung', '_plan': {'fault': {'kind': 'pitot_off'}}}]
    sm = {}
    lines = c.fault_table(res, sm)
    check(sm['faults']['gps_loss']['at the point'] == ['a'] and sm['faults']['gps_loss']['crashed'] == ['b']
          and sm['faults']['pitot_off']['not flown'] == ['c'], str(sm))
    check(any(ln.split()[:2] == ['gps_loss', '2'] for ln in lines), '\n'.join(lines))
    print('ok: %d flights, %d kinds drawn' % (len(faulted), len(kinds)))


if __name__ == '__main__':
    main()
