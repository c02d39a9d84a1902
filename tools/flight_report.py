#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Scores and draws a simulated flight: fulmar-sim's ground truth, the mission
flown and fulmard's log.

  flight_report.py report --truth T.csv --mission M.waypoints --log fulmard.log
                          [--params P.param] [--svg OUT.svg] [--json OUT.json]
                          [--check demo|windy|gps_loss|...|none]
  flight_report.py follow --status SIM_STDOUT --log fulmard.log --mission M --laps N
  flight_report.py demo-world

`report` prints the summary (flight time, distance, laps, touchdown error,
tracking errors, loop timing) and, with --check, compares it with the flight
quality the project holds itself to (exit 1 naming what failed); --json writes
every figure score() gives, those only tools/campaign reads too (the worst
cross-track xtrack_max_m, the touchdown north and east of the land point,
the final approach's bearing). --params (the parameter file fulmard flew with)
gives WP_RADIUS, within which a waypoint counts as passed (else fulmard's
default, 90 m). Laps, the waypoints passed and the stall are the truth's, not
fulmard's word: see truth_passes() and truth_airframe(). `follow`
shows the flight's progress while it flies. `demo-world` prints the
demonstration flight's seed, wind and turbulence (DEMO_WORLD) for tools/demo.
Standard library only.
"""
import argparse
import csv
import json
import math
import os
import re
import struct
import sys
import time

EARTH_R = 6378137.0
NAV_CMDS = {16, 17, 18, 19, 20, 21, 22, 31}
CMD_LAND, CMD_TAKEOFF, CMD_DO_JUMP = 21, 22, 177
# WP_RADIUS when the parameters given do not set it: fulmard's default, ArduPlane's
# (src/param/param_table.c).
WP_RADIUS_DEFAULT_M = 90.0

# The demonstration flight's world, in fulmar-sim's terms: what tools/demo flies unless
# told otherwise (it reads these through `flight_report.py demo-world`) and what the
# suite's hil_demo flies (tests/hil/test_hil.py), so the test scores the flight the demo
# shows. The rest of the simulator's command line (--rc-mode-pwm 1550, the pilot's
# time-line missions/cmac-circuit.timeline, --timeout 10) is the same in both.
DEMO_WORLD = {'seed': '1', 'wind': '5,90', 'turbulence': '3'}


def demo_sim_args():
    return ['--seed', DEMO_WORLD['seed'], '--wind', DEMO_WORLD['wind'],
            '--turbulence', DEMO_WORLD['turbulence']]


def ne_of(lat0, lon0, lat, lon):
    n = math.radians(lat - lat0) * EARTH_R
    e = math.radians(lon - lon0) * EARTH_R * math.cos(math.radians(lat0))
    return n, e


def load_mission(path):
    items = []
    with open(path) as f:
        lines = f.read().split('\n')
    if not lines or not lines[0].startswith('QGC WPL'):
        sys.exit('%s: not a QGC WPL file' % path)
    for ln in lines[1:]:
        if not ln.strip():
            continue
        v = ln.split()
        items.append({'seq': int(v[0]), 'frame': int(v[2]), 'cmd': int(v[3]),
                      'p': [float(x) for x in v[4:8]], 'lat': float(v[8]), 'lon': float(v[9]),
                      'alt': float(v[10])})
    home = items[0]
    for it in items:
        if it['lat'] == 0 and it['lon'] == 0:
            it['ne'] = None
        else:
            it['ne'] = ne_of(home['lat'], home['lon'], it['lat'], it['lon'])
        # heights above home (frame 0: above mean sea level)
        it['rel'] = it['alt'] - home['alt'] if it['frame'] in (0, 5) else it['alt']
    return items


def load_truth(path):
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            rows.append({'t': float(r['t_s']), 'phase': r['phase'],
                         'n': float(r['pos_n_m']), 'e': float(r['pos_e_m']),
                         'h': -float(r['pos_d_m']), 'as': float(r['airspeed_m_s']),
                         'roll': float(r['roll_deg']), 'armed': r['armed'] == '1',
                         'ail': float(r['aileron']), 'pitch': float(r['pitch_deg']),
                         'yaw': float(r['yaw_deg']), 'vn': float(r['vel_n_m_s']),
                         've': float(r['vel_e_m_s']), 'vd': float(r['vel_d_m_s']),
                         'thr': float(r['throttle']), 'ground': r['on_ground'] == '1',
                         'crashed': r['crashed'] == '1', 'events': r.get('events') or ''})
    if not rows:
        sys.exit('%s: no rows' % path)
    return rows


# fulmar-sim names the airframe that flies and its stall speed as the first row's first
# event (tools/sim/program/sim_main.c; docs/simulator.md, "Ground truth file").
TRUTH_AIRFRAME = re.compile(r'(?:^|;)-?[\d.]+ airframe (\S+) stall ([\d.]+) m/s')


def truth_airframe(truth):
    """(name, stall speed in m/s) of the airframe the truth's flight flew: the power-off
    stall at 1 g in the ISA at home's height, as fulmar-sim --figures measures the model
    (tools/sim/perf.h), true airspeed as the truth's airspeed_m_s. (None, None) from a
    fulmar-sim older than that line."""
    m = TRUTH_AIRFRAME.search(truth[0].get('events', '')) if truth else None
    return (m.group(1), float(m.group(2))) if m else (None, None)


def load_params(path):
    """A parameter file (NAME,VALUE or NAME VALUE a line, # comments): {NAME: value}."""
    out = {}
    with open(path) as f:
        for ln in f:
            p = re.split(r'[,\s]+', ln.split('#')[0].strip())
            if len(p) >= 2:
                try:
                    out[p[0]] = float(p[1])
                except ValueError:
                    pass
    return out


def load_param_files(paths):
    """Parameter files as fulmard --load-params takes several, in order: {NAME: value},
    the last file's value where they share a name. paths: one path or a list of them."""
    out = {}
    for path in [paths] if isinstance(paths, str) else paths:
        out.update(load_params(path))
    return out


def wp_radius_of(param_files):
    """WP_RADIUS as the parameter file (or files, in order) sets it (None: not given), else
    fulmard's default."""
    v = load_param_files(param_files).get('WP_RADIUS') if param_files else None
    return v if v is not None and v > 0 else WP_RADIUS_DEFAULT_M


def mission_circuit(mission):
    """The corners of the mission's circuit in the order flown: the waypoints with a place
    (not the takeoff, not the landing) from its first DO_JUMP's target up to the DO_JUMP;
    a mission without one: all of them, once round."""
    places = [it for it in mission if it['seq'] > 0 and it['cmd'] in NAV_CMDS and it['ne']
              and it['cmd'] not in (CMD_LAND, CMD_TAKEOFF)]
    jump = next((it for it in mission if it['cmd'] == CMD_DO_JUMP), None)
    if jump:
        body = [it['seq'] for it in places if int(jump['p'][0]) <= it['seq'] < jump['seq']]
        if body:
            return body
    return [it['seq'] for it in places]


def truth_passes(truth, mission, home_h, wp_radius_m):
    """The mission's items the plane passed, by the truth, in the order it passed them:
    [(t, seq, closest m)]. A waypoint with a place is passed when the plane, flying, comes
    within wp_radius_m of it (WP_RADIUS), at the time of its closest approach then; passed
    again only after another item has been. A takeoff is passed when the plane is first
    above its height over home (ArduPlane's verify_takeoff, as src/vehicle/mission_exec.c).
    The landing is not a place passed: its touchdown is scored as such.

    fulmard (src/nav/nav_geo.c, nav_geo_wp_reached) sequences a waypoint within at most
    WP_RADIUS of its own estimate (less when the turn is anticipated: l1_turn_distance_m),
    or when the plane crosses the line through it that halves the turn there, wherever
    along that line: a plane blown wide still turns. The line counts for fulmard, not here:
    a flight straight from one corner to the one after the next crosses the line at the
    corner between (some 300 m from it on the demo's circuit), and a corner not come within
    WP_RADIUS of is not passed. Nor does the item's own acceptance radius (param2, which
    ArduPlane honours) count: fulmard flies every waypoint to WP_RADIUS
    (src/vehicle/mission_exec.c), and so is it scored. On the demo's circuit, lock-step,
    2026-12-06, fulmard sequenced 13-98 m from the corners (by the truth), and the plane
    then passed them 3-39 m off (the demo, windy seeds 1-10, gps_loss, air_start, the cub)."""
    visits = []                  # [t, seq, closest m]: each time within the radius
    near = {}                    # seq: its visit now, while within the radius
    taken_off = set()
    places = [it for it in mission if it['seq'] > 0 and it['cmd'] in NAV_CMDS and it['ne']
              and it['cmd'] not in (CMD_LAND, CMD_TAKEOFF)]
    takeoffs = [it for it in mission if it['seq'] > 0 and it['cmd'] == CMD_TAKEOFF]
    for r in truth:
        if r['phase'] != 'air':
            near.clear()
            continue
        for it in takeoffs:
            if it['seq'] not in taken_off and r['h'] - home_h > it['rel']:
                taken_off.add(it['seq'])
                visits.append([r['t'], it['seq'], 0.0])
        for it in places:
            d = math.hypot(r['n'] - it['ne'][0], r['e'] - it['ne'][1])
            v = near.get(it['seq'])
            if d > wp_radius_m:
                near.pop(it['seq'], None)
            elif v is None:
                near[it['seq']] = [r['t'], it['seq'], d]
                visits.append(near[it['seq']])
            elif d < v[2]:
                v[0], v[2] = r['t'], d
    visits.sort(key=lambda v: v[0])
    out = []
    for v in visits:
        if out and out[-1][1] == v[1]:
            if v[2] < out[-1][2]:
                out[-1] = tuple(v)
            continue
        out.append(tuple(v))
    return out


def laps_of(seqs, circuit):
    """Whole laps in a sequence of items passed: each corner of the circuit passed in its
    order, the lap counted at the last (a corner skipped: the lap goes on until it is
    passed, and the laps after it are each a corner behind)."""
    laps, k = 0, 0
    for seq in seqs:
        if circuit and seq == circuit[k]:
            k += 1
            if k == len(circuit):
                laps, k = laps + 1, 0
    return laps


LOG_EVENT = re.compile(r'(\d+\.\d+) s: (.*)$')


def load_log(path):
    """fulmard's messages: ([(t, text)], {thread: timing}). The times are the simulator's in
    HIL, real time as well as lock-step (fulmard says its log lines on the simulator's clock),
    so they match the truth's. The timing report's lines are sched_report()'s
    (src/daemon/scheduler.c); timing['lockstep'] says fulmard ran in lock-step, where the
    overrun and wake-up figures are None: they measure nothing there. In real time
    timing['main']['achieved_hz'] is the main loop's loops a second over fulmard's run, and
    timing['reanchors'] how often the simulator fell behind for good; timing['shed'] the
    optional work's counts (overload shedding, src/daemon/scheduler.h) by its name."""
    ev, timing = [], {}
    if not path or not os.path.exists(path):
        return ev, timing
    with open(path, errors='replace') as f:
        for ln in f:
            if 'running: lock-step' in ln:
                timing['lockstep'] = True
            if 'its time re-anchored' in ln:
                timing['reanchors'] = timing.get('reanchors', 0) + 1
            m = re.search(r': optional (.+?) \(shed .*\): ran (\d+) times \((\d+) forced after '
                          r'waiting, (\d+) over budget, longest ([\d.]+) us\), deferred in (\d+) loops', ln)
            if m:
                timing.setdefault('shed', {})[m.group(1)] = {
                    'runs': int(m.group(2)), 'forced': int(m.group(3)),
                    'over_budget': int(m.group(4)), 'longest_us': float(m.group(5)),
                    'deferred': int(m.group(6))}
            m = re.search(r'main loop: ([\d.]+) loops a second over ([\d.]+) s', ln)
            if m:
                timing['achieved'] = (float(m.group(1)), float(m.group(2)))
            m = LOG_EVENT.search(ln)
            if m:
                ev.append((float(m.group(1)), m.group(2).strip()))
            m = re.search(r'fulmard:\s+(timer|main)\s+(\d+)\s+\d+\s+(\d+)\s+\|\s+([\d.]+)\s+([\d.]+)\s+'
                          r'([\d.]+)\s+([\d.]+)\s+\|\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+\|\s+(\d+)\s+(\d+)', ln)
            if m:
                timing[m.group(1)] = {'hz': int(m.group(2)), 'loops': int(m.group(3)),
                                      'wake_p99_us': float(m.group(5)),
                                      'wake_max_us': float(m.group(7)),
                                      'run_p50_us': float(m.group(8)),
                                      'run_p99_us': float(m.group(9)),
                                      'run_max_us': float(m.group(10)),
                                      'over_1_5x': int(m.group(11)), 'over_2x': int(m.group(12))}
    if timing.get('lockstep'):
        # The simulator's time waits for every loop: no loop is ever late
        # (sched_lockstep_run_until counts no overruns) and none wakes late; the run
        # times are still measured.
        for t in timing.values():
            if isinstance(t, dict):
                t.update(over_1_5x=None, over_2x=None, wake_p99_us=None, wake_max_us=None)
    if 'achieved' in timing and 'main' in timing:
        timing['main']['achieved_hz'] = timing['achieved'][0]
    return ev, timing


def score_timing(s, timing):
    """Adds the real-time figures the checks read: the main loop's achieved rate
    (main_loop_hz) and the share of its loops that came over 1.5 of their period late
    (main_late_frac); None in lock-step, where neither means anything."""
    m = timing.get('main', {})
    s['main_loop_hz'] = m.get('achieved_hz')
    late = m.get('over_1_5x')
    s['main_late_frac'] = late / m['loops'] if late is not None and m.get('loops') else None
    s['reanchors'] = timing.get('reanchors', 0)


def rms(xs):
    return math.sqrt(sum(x * x for x in xs) / len(xs)) if xs else float('nan')


# The height (above the ground) a flight must have reached before a ground contact counts
# as its touchdown.
TOUCHDOWN_AFTER_M = 5.0
# A straight leg's height is held to its line from this long after the turn onto it
# (issue 16: "height within +-2 m 10 s after each turn").
TURN_SETTLE_S = 10.0


def score(truth, mission, events, cruise_m_s, wp_radius_m=WP_RADIUS_DEFAULT_M):
    """The flight's figures from the truth (and fulmard's messages, for what it said and
    when it turned onto each leg). wp_radius_m: WP_RADIUS as fulmard flew it
    (wp_radius_of(its parameter file))."""
    s = {}
    air = [r for r in truth if r['phase'] == 'air']
    launch_t = next((r['t'] for r in truth if r['phase'] in ('throw', 'air')), None)
    s['crashed'] = any(r['crashed'] for r in truth)
    armed_rows = [r for r in truth if r['armed']]
    # home is where it was armed; started in the air (the truth's first row flying), it is
    # the mission's, which these missions put at the simulator's home (h = 0)
    air_start = bool(truth) and truth[0]['phase'] == 'air'
    home_h = armed_rows[0]['h'] if armed_rows and not air_start else 0.0
    # touchdown: the first ground contact after flying, and after having climbed above
    # TOUCHDOWN_AFTER_M (a wheeled takeoff may touch again as it lifts off: no touchdown);
    # a flight that never climbed so high: its first contact after flying
    td = None
    contacts = [r for i, r in enumerate(truth)
                if r['phase'] == 'ground' and i > 0 and truth[i - 1]['phase'] == 'air']
    climbed_t = next((r['t'] for r in air if r['h'] > TOUCHDOWN_AFTER_M), None)
    if contacts:
        td = next((r for r in contacts if climbed_t is not None and r['t'] > climbed_t), contacts[0])
    s['flight_time_s'] = (td['t'] if td else truth[-1]['t']) - (launch_t or 0.0)
    dist = 0.0
    for a, b in zip(air, air[1:]):
        dist += math.hypot(b['n'] - a['n'], b['e'] - a['e'])
    s['distance_m'] = dist
    s['max_height_m'] = max((r['h'] for r in air), default=0.0)
    s['max_airspeed_m_s'] = max((r['as'] for r in air), default=0.0)
    # Laps and the items passed, by the truth (truth_passes); fulmard's own word beside
    # them (its "reached waypoint #N", the landing's too), which no check reads.
    passes = truth_passes(truth, mission, home_h, wp_radius_m)
    s['wp_radius_m'] = wp_radius_m
    s['waypoints_reached'] = [seq for _, seq, _ in passes]
    s['circuit'] = mission_circuit(mission)
    s['laps'] = laps_of(s['waypoints_reached'], s['circuit'])
    # the farthest a waypoint was passed from (within wp_radius_m by definition)
    takeoffs = {it['seq'] for it in mission if it['cmd'] == CMD_TAKEOFF}
    s['wp_pass_max_m'] = max((d for _, seq, d in passes if seq not in takeoffs),
                             default=float('nan'))
    reached = [(t, int(m.group(1))) for t, txt in events
               for m in [re.match(r'reached waypoint #(\d+)', txt)] if m]
    s['waypoints_reached_log'] = [seq for _, seq in reached]
    s['laps_log'] = laps_of(s['waypoints_reached_log'], s['circuit'])
    s['modes'] = [txt[5:] for _, txt in events if txt.startswith('mode ')]
    s['failsafes'] = [txt for _, txt in events if 'failsafe' in txt.lower()]
    s['rc_failsafes'] = sum(txt.startswith('RC short failsafe') or txt.startswith('RC long failsafe')
                            for _, txt in events)
    # straight legs between consecutive waypoints reached
    xt, ht, asp, when = [], [], [], []
    # the height error on each straight leg from TURN_SETTLE_S after the turn onto it
    # (the waypoint before it reached) to the turn off it: how well TECS damps a turn
    after_turn = []
    by_seq = {it['seq']: it for it in mission}
    for (t0, a), (t1, b) in zip(reached, reached[1:]):
        wa, wb = by_seq.get(a), by_seq.get(b)
        if not wa or not wb or not wa['ne'] or not wb['ne'] or wb['cmd'] != 16:
            continue
        (an, ae), (bn, be) = wa['ne'], wb['ne']
        length = math.hypot(bn - an, be - ae)
        if length < 250:
            continue
        un, ue = (bn - an) / length, (be - ae) / length
        for r in truth:
            if r['t'] < t0 or r['t'] > t1 or r['phase'] != 'air':
                continue
            along = (r['n'] - an) * un + (r['e'] - ae) * ue
            if r['t'] >= t0 + TURN_SETTLE_S and along <= length - 90:
                target = wa['rel'] + (wb['rel'] - wa['rel']) * max(along, 0.0) / length + home_h
                after_turn.append(abs(r['h'] - target))
            if along < 100 or along > length - 90:   # the turns in and out are not a straight leg
                continue
            xt.append((r['n'] - an) * ue - (r['e'] - ae) * un)
            target = wa['rel'] + (wb['rel'] - wa['rel']) * along / length + home_h
            ht.append(r['h'] - target)
            asp.append(r['as'] - cruise_m_s)
            when.append(r['t'])
    s['xtrack_rms_m'] = rms(xt)
    s['xtrack_max_m'] = max((abs(x) for x in xt), default=float('nan'))
    s['alt_rms_m'] = rms(ht)
    s['alt_after_turn_max_m'] = max(after_turn, default=float('nan'))
    # Dead reckoning: from the estimator's "GPS lost" until it takes GPS back, the worst
    # cross-track and height error on the straight legs (NaN when it kept its GPS).
    out, lost = [], None
    for t, txt in events:
        if txt.startswith('EKF: GPS lost'):
            lost = t if lost is None else lost
        elif txt == 'EKF: using GPS' and lost is not None:
            out.append((lost, t))
            lost = None
    if lost is not None:
        out.append((lost, truth[-1]['t']))
    s['gps_outage_s'] = sum(b - a for a, b in out)
    dr = [i for i, t in enumerate(when) if any(a <= t <= b for a, b in out)]
    s['gps_outage_xtrack_max_m'] = max((abs(xt[i]) for i in dr), default=float('nan'))
    s['gps_outage_alt_max_m'] = max((abs(ht[i]) for i in dr), default=float('nan'))
    s['airspeed_err_max_m_s'] = max((abs(x) for x in asp), default=float('nan'))
    s['airspeed_err_rms_m_s'] = rms(asp)
    # safety margins in the air (past the throw, above 5 m)
    flying = [r for r in air if launch_t is not None and r['t'] > launch_t + 3 and r['h'] > 5]
    s['min_airspeed_m_s'] = min((r['as'] for r in flying), default=float('nan'))
    # against the stall of the airframe that flew, as the truth names it (truth_airframe)
    s['airframe'], s['stall_m_s'] = truth_airframe(truth)
    s['min_airspeed_stall_ratio'] = (s['min_airspeed_m_s'] / s['stall_m_s']
                                     if s['stall_m_s'] else None)
    s['max_bank_deg'] = max((abs(r['roll']) for r in flying), default=float('nan'))
    # touchdown against the land point, along and across the final approach
    land = next((it for it in mission if it['cmd'] == 21), None)
    if land and td:
        prev = None
        for it in mission:
            if it['seq'] < land['seq'] and it['cmd'] in NAV_CMDS and it['ne']:
                prev = it
        ln, le = land['ne']
        if prev:
            pn, pe = prev['ne']
            L = math.hypot(ln - pn, le - pe) or 1.0
            un, ue = (ln - pn) / L, (le - pe) / L
        else:
            un, ue = 1.0, 0.0
        s['touchdown_t'] = td['t']
        s['touchdown_n_m'], s['touchdown_e_m'] = td['n'] - ln, td['e'] - le
        # where the final approach heads (from the last waypoint to the land point)
        s['approach_bearing_deg'] = math.degrees(math.atan2(ue, un)) % 360
        s['touchdown_along_m'] = (td['n'] - ln) * un + (td['e'] - le) * ue
        s['touchdown_cross_m'] = (td['n'] - ln) * ue - (td['e'] - le) * un
    last = truth[-1]
    s['disarmed_at_end'] = not last['armed']
    s['motor_off_at_end'] = last['thr'] < 0.01
    s['landed'] = bool(td) and last['ground'] and not s['crashed']
    return s


CHECKS = {
    # The demo mission in a 5 m/s crosswind with turbulence 3 (DEMO_WORLD; issue: flight
    # quality). Seed 1, the demo's, meets them all (2026-12-06: airspeed error 1.06 m/s,
    # touchdown 3.1 m short); so do seeds 2-10 since then (docs/campaign.md, 2026-12-06:
    # touchdown -3.7..+2.6 m along; before 2026-12-04, airspeed error up to 2.08 m/s and
    # touchdowns up to 25.7 m long). Laps are the truth's (truth_passes: each corner come
    # within WP_RADIUS of, in order), the slowest airspeed (3 s after the launch, above 5 m)
    # against the stall the truth names, the airframe's as fulmar-sim measures its model
    # (truth_airframe): seed 1 13.85 m/s, 1.39 x the skywalker's 9.96 m/s (2026-12-06;
    # this held it to 9.0 m/s until then, so "stall + 20 %" was the true stall + 8 %).
    'demo': [('laps', '>=', 3), ('xtrack_rms_m', '<', 3.0), ('alt_rms_m', '<', 2.0),
             ('airspeed_err_max_m_s', '<=', 1.5), ('touchdown_along_m', 'abs<', 10.0),
             ('touchdown_cross_m', 'abs<', 3.0), ('min_airspeed_stall_ratio', '>=', 1.2),
             ('max_bank_deg', '<=', 50.0), ('disarmed_at_end', '==', True),
             ('motor_off_at_end', '==', True), ('crashed', '==', False)],
    # The bounds of 'windy' and 'gps_loss' are measured, not wished: each figure was flown
    # over seeds 1-10 (fulmar-sim --seed; lock-step gives the same figures for the same
    # seed) and each bound is the worst of them plus a margin of 20 % of it (bank: 10 %),
    # at least 0.5 m of cross-track, 0.15 m of height, 0.3 m/s of airspeed, 3 m of
    # touchdown, rounded out to two figures. The slowest airspeed is held to 1.2 x the
    # stall (the truth's, as in 'demo'), above its worst less 20 %. The comments give the
    # range over seeds 1-10, [seed 1, the one tests/hil flies] and the margin.
    # The demo mission in 10 m/s from the east (crosswind on the legs north and south and
    # on the final approach) with light turbulence (--turbulence 7.7).
    'windy': [('laps', '>=', 3),
              ('xtrack_rms_m', '<', 4.8),            # 2.61..3.94 m [2.96]; +0.79 m
              ('alt_rms_m', '<', 2.6),               # 1.66..2.16 m [1.88]; +0.43 m
              ('airspeed_err_max_m_s', '<=', 2.8),   # 2.03..2.33 m/s [2.19]; +0.47 m/s
              # 1.21..1.31 x the 9.96 m/s stall, 12.03..13.05 m/s [1.31, 13.01 m/s]
              # (2026-12-06, seeds 1-10; seed 6 the slowest, 0.08 m/s over the bound)
              ('min_airspeed_stall_ratio', '>=', 1.2),
              ('max_bank_deg', '<=', 54.0),          # 42.2..48.3 deg [42.9]; +4.8 deg
              # [-12.9] since the flare steers for the point (2026-12-05; before it
              # -62.0..+23.7 m [-15.7], -49.1..+42.2 [-15.1] first): held at the 20 m it
              # was. Where the plane lands should not depend on the seed; that is the
              # landing's work, not a bound to loosen.
              ('touchdown_along_m', 'abs<', 20.0),
              ('touchdown_cross_m', 'abs<', 9.4),    # -2.6..+6.4 m [5.4]; +3 m
              ('disarmed_at_end', '==', True), ('motor_off_at_end', '==', True),
              ('crashed', '==', False)],
    # The demo mission in 5 m/s from the east, no turbulence, without GPS for 30 s from
    # 100 s (tests/hil gps_loss): most of the long leg south flown on dead reckoning.
    'gps_loss': [('laps', '>=', 3),
                 ('xtrack_rms_m', '<', 2.9),            # 1.26..2.38 m [1.66]; +0.5 m
                 ('alt_rms_m', '<', 0.40),              # 0.22..0.25 m [0.23]; +0.15 m
                 ('gps_outage_xtrack_max_m', '<', 3.4),  # 0.38..2.79 m [0.38]; +0.56 m
                 ('gps_outage_alt_max_m', '<', 0.25),   # 0.03..0.10 m [0.05]; +0.15 m
                 ('airspeed_err_max_m_s', '<=', 1.9),   # 1.30..1.58 m/s [1.38]; +0.32 m/s
                 # 13.04..13.14 m/s, 1.31..1.32 x the 9.96 m/s stall, when measured;
                 # [seed 1 2026-12-06: 14.36 m/s, 1.44]
                 ('min_airspeed_stall_ratio', '>=', 1.2),
                 ('max_bank_deg', '<=', 42.0),          # 34.2..37.9 deg [34.5]; +3.8 deg
                 ('touchdown_along_m', 'abs<', 12.0),   # +1.4..+8.6 m [5.4]; +3 m
                 ('touchdown_cross_m', 'abs<', 5.0),    # -1.1..+1.9 m [0.4]; +3 m
                 ('disarmed_at_end', '==', True), ('motor_off_at_end', '==', True),
                 ('crashed', '==', False)],
    # The circuit started in the air (tests/hil air_start; tools/campaign skywalker/air:
    # fulmar-sim --air-start 100,20, missions/cmac-air.*): the plane starts gliding 100 m
    # up at 20 m/s, motor off; fulmard aligns in the air, keeps the mission's home (it
    # never stood on the ground to take one), passes the takeoff it is already above, flies
    # the three laps and lands on the demo's land point. Measured as 'windy' was, over
    # seeds 1-4 x wind 0, 5, 10 m/s from the east, turbulence 3 (12 flights, all landed);
    # the ranges, [seed 1 in 5 m/s, the one tests/hil flies] and the margin.
    # Its touchdown bound is wide, 78 m along against the demo's 10, because its heights
    # are not the other flights': with no arming on the ground there is no height at
    # arming to zero them, so fulmard's height above home rests on the GPS's absolute
    # altitude against the mission's home altitude, and the simulated GPS's slowly
    # wandering vertical error (2.5 m, 1 sigma) is a height error of the whole approach.
    # The final approach comes down 40 m over 500 m, so each metre of it moves the
    # touchdown some 12 m, with the seed (seed 2 lands 58-65 m short, seed 1 25-64 m long;
    # seed 1 in 5 m/s +44..+55 m on 2026-12-06). The bound says the plane came down on
    # the field, not that it landed on the point: a start in the air does not show that
    # (README.md, "What stands").
    'air': [('laps', '>=', 3),
            ('xtrack_rms_m', '<', 3.8),            # 1.13..3.15 m [1.13]; +0.63 m
            ('alt_rms_m', '<', 4.5),               # 1.30..3.71 m [2.15]; +0.74 m
            ('airspeed_err_max_m_s', '<=', 4.9),   # 0.95..4.06 m/s [0.99]; +0.81 m/s
            # 10.22..11.10 m/s [10.32], 1.03..1.11 x the stall at 1 g as fulmar-sim
            # measures it (9.96 m/s), though not by 20 %: the 1.2 s at the trims before the
            # attitude is known pitches the plane up from 20 m/s, and the recovery dips the
            # speed. (Seed 1 in 5 m/s on 2026-12-06: 12.69 m/s, 1.27; the 12 flights not
            # flown again, so the bound stays at the stall.)
            ('min_airspeed_stall_ratio', '>=', 1.0),
            ('max_bank_deg', '<=', 49.0),          # 32.7..44.5 deg [35.3]; +4.5 deg
            ('touchdown_along_m', 'abs<', 78.0),   # -65.0..+63.7 m [+49.5]; +13 m
            ('touchdown_cross_m', 'abs<', 10.4),   # -1.7..+8.6 m [3.2]; +1.7 m
            ('disarmed_at_end', '==', True), ('motor_off_at_end', '==', True),
            ('crashed', '==', False)],
    'none': [],
}
# The demo at other sensor rates (tests/hil demo_100hz .. demo_400hz_fresh: HIL_SENSOR at
# 100, 200, 250 and 400 Hz; demo_200hz_of_1khz: 200 Hz of 1 kHz physics, fulmar-sim
# --sensor-hz, which lands as short: docs/simulator.md). fulmar-sim's turbulence ticks on its own 1 ms clock, so these fly
# the demo's air; what differs is the sensor rate (and with it the control rate below 400 Hz).
# The demo's bounds, but the touchdown along the approach: the same air at 100..1000 Hz
# touched down from 8.0 (1 kHz) to 16.5 m (100 Hz) short, 10.3..11.4 m short at 200..400 Hz.
# Much of that spread was two faults in fulmard, fixed 2026-12-04 (docs/flight-control.md,
# "The landing and the sensor rate"): since, the demo's world of 1 kHz physics lands
# -15.9 m along at HIL_SENSOR 1000, 500, 250 and 200 Hz and -16.2 m at 100 Hz: the flare
# sank under its demand with the motor off. With the flare's pitch integrator on the
# sink-rate error (src/nav/tecs.c, 2026-12-05) the same air lands -3.8..-5.2 m along at
# 100..1000 Hz, so these hold the demo's own 10 m again. Since the flare's pitch floor
# comes in with its height and its demand leads its path (2026-12-06): +0.4 (200 of 1 kHz),
# +0.5 (400 fresh), +0.1 (250), -0.0 (200) and -3.9 m (100 Hz).
CHECKS['demo_rate'] = list(CHECKS['demo'])


# The demo's world with the pitot failing at 120 s, in the first lap, to the end (tests/hil
# pitot_block, pitot_off; issue 40): the demo's bounds, but for the airspeed on the straight
# legs. Off (a reading about 0), the sensor is disabled 4.4 s after and the rest is flown
# as without an airspeed sensor (TECS_SYNAIRSPEED 0): 1.59 m/s (2026-12-07, seed 1; +20
# %). Blocked with a 60 s leak, the reading creeps down by 2-3 m/s in the first 20
# s, within 3 sigmas of the reference wind's airspeed, fused, and the estimate's wind
# follows it: the plane flies up to 2.8 m/s fast until the samples are withheld and the
# wind put back (2026-12-07, seed 1: 2.81 m/s; +20 %). Too fast, not too slow: the
# slowest airspeed is held to the demo's 1.2 x the stall.
def _with_airspeed_err(checks, bound):
    return [('airspeed_err_max_m_s', '<=', bound) if c[0] == 'airspeed_err_max_m_s' else c
            for c in checks]


CHECKS['pitot_off'] = _with_airspeed_err(CHECKS['demo'], 1.9)
CHECKS['pitot_block'] = _with_airspeed_err(CHECKS['demo'], 3.4)

# A real-time flight (tools/demo --realtime): the demo's flight and, because real time on a
# busy host is the point, its timing: the main loop at 95 % of its 400 Hz or more, under 5 %
# of its loops late by half a period, no RC failsafe (the simulator falling behind is not an
# RC loss: freshness is judged on its clock).
CHECKS['demo_realtime'] = CHECKS['demo'] + [
    ('main_loop_hz', '>=', 380.0), ('main_late_frac', '<', 0.05), ('rc_failsafes', '==', 0)]
# The same flight under load (tests/hil realtime_overload: `stress-ng --cpu 2` on both
# cores and the main loop overloaded twice by a test fault, navigation shed to 50 Hz in
# the second), held to all of it: nothing here needs a looser bound. Flown twice
# 2026-12-06 on a 2-core host with other work beside it (load average 6-15), both alike:
# cross-track RMS 1.86 m, height RMS 0.67 m, airspeed error 1.06 m/s, touchdown -1.6 and
# -0.5 m along, 0.6 and 0.8 m across, slowest 1.39 x the stall, bank 33.7 deg; the main
# loop at 397.7 and 398.0 loops a second, 0.6 % of them late; no RC failsafe (the
# demo's lock-step figures, but the touchdown). Until then the test printed these checks
# and passed whatever they said.
CHECKS['realtime_overload'] = list(CHECKS['demo_realtime'])
# The copter's demonstration (tools/demo --vehicle copter, tests/hil copter_mission): landed
# safely, the square's legs within 1 m RMS of their lines, and down within 8 m of where it
# was armed in the truth's frame (the GPS's wander is in that: 2.1 m an axis at one sigma
# between two fixes minutes apart, 6.2 m a 95 % bound; in its own frame it lands 0.38 m from
# home, which tests/hil checks from the log). Seed 1, 2026-12-07: 0.40 m RMS, 4.8 m.
CHECKS['copter_demo'] = [('success', '==', True), ('xtrack_rms_m', '<', 1.0),
                         ('landing_from_home_m', '<', 8.0), ('waypoints_missed', '==', 0)]


DF_LETTERS = {'a': ('32h', None), 'b': ('b', None), 'B': ('B', None), 'h': ('h', None),
              'H': ('H', None), 'i': ('i', None), 'I': ('I', None), 'f': ('f', None),
              'd': ('d', None), 'n': ('4s', None), 'N': ('16s', None), 'Z': ('64s', None),
              'c': ('h', 0.01), 'C': ('H', 0.01), 'e': ('i', 0.01), 'E': ('I', 0.01),
              'L': ('i', 1e-7), 'M': ('B', None), 'q': ('q', None), 'Q': ('Q', None)}


def df_decode(path):
    """A DataFlash reader in Python, independent of fulmar-log's C one (tests/hil reads our
    logs with both; the campaign reads the copter's own frame from them) and written from the
    format's description as pymavlink's DFReader applies it: FMT records (type 128) give
    each type's layout; a record is 0xA3 0x95 TYPE and its payload; unknown bytes are
    skipped, a cut last record dropped. Returns ({name: [dict]}, {type: (name, format,
    columns)}, bytes skipped)."""
    data = open(path, 'rb').read()
    fmts = {128: ('FMT', 'BBnNZ', ['Type', 'Length', 'Name', 'Format', 'Columns'], 89)}
    out, i, skipped = {}, 0, 0
    while i + 3 <= len(data):
        if data[i] != 0xA3 or data[i + 1] != 0x95 or data[i + 2] not in fmts:
            i += 1
            skipped += 1
            continue
        name, fmt, cols, length = fmts[data[i + 2]]
        if i + length > len(data):
            break
        vals = struct.unpack('<' + ''.join(DF_LETTERS[c][0] for c in fmt), data[i + 3:i + length])
        rec = {}
        for col, c, v in zip(cols, fmt, vals):
            scale = DF_LETTERS[c][1]
            rec[col] = v.split(b'\0')[0].decode(errors='replace') if isinstance(v, bytes) else \
                v * scale if scale else v
        if name == 'FMT':
            fmts[rec['Type']] = (rec['Name'], rec['Format'], rec['Columns'].split(','), rec['Length'])
        out.setdefault(name, []).append(rec)
        i += length
    return out, {t: v[:3] for t, v in fmts.items()}, skipped


CMD_WAYPOINT, CMD_TAKEOFF = 16, 22


def leg_errors(track, mission):
    """Signed distances of the track's points (n, e) from the straight legs between
    consecutive NAV_WAYPOINTs with a place, in each leg's middle 80 % (the turns left out)."""
    wps = [it for it in mission[1:] if it['cmd'] == CMD_WAYPOINT and it['ne']]
    errs = []
    for a, b in zip(wps, wps[1:]):
        dn, de = b['ne'][0] - a['ne'][0], b['ne'][1] - a['ne'][1]
        ln = math.hypot(dn, de)
        if ln < 1.0:
            continue
        for n, e in track:
            al = ((n - a['ne'][0]) * dn + (e - a['ne'][1]) * de) / ln
            if 0.1 * ln <= al <= 0.9 * ln:
                xt = ((n - a['ne'][0]) * de - (e - a['ne'][1]) * dn) / ln
                if abs(xt) < 0.25 * ln:
                    errs.append(xt)
    return errs


def copter_own_frame(log_path, mission):
    """The copter's figures in its own frame, from its DataFlash log: the legs flown by its
    position estimate (POS, 10 Hz, in the air) against the mission's, and where it came to
    rest (the last POS) from its home (the last ORGN Type 1). What the controller achieved,
    without the GPS's wander that the truth's frame has."""
    recs, _, _ = df_decode(log_path)
    pos, homes = recs.get('POS', []), [o for o in recs.get('ORGN', []) if o['Type'] == 1]
    out = {}
    if not pos or not homes:
        return out
    lat0, lon0 = mission[0]['lat'], mission[0]['lon']
    track = [ne_of(lat0, lon0, p['Lat'], p['Lng']) for p in pos if p['RelHomeAlt'] > 2.0]
    errs = leg_errors(track, mission)
    if errs:
        out['own_xtrack_rms_m'] = rms(errs)
    h, p = homes[-1], pos[-1]
    out['own_landing_from_home_m'] = math.hypot(*ne_of(h['Lat'], h['Lng'], p['Lat'], p['Lng']))
    return out


def score_copter(truth, mission, events):
    """A multicopter's flight from the truth: the waypoints reached (fulmard's messages), the
    legs' tracking (the true track's distance from each straight leg between two NAV_WAYPOINTs,
    its middle 80 %, in the truth's frame: the simulator's home, the mission's item 0), the
    takeoff's height, and the landing: how far from where it was armed (home, as ArduCopter
    sets it at arming) it came to rest, on the ground, disarmed, upright, not crashed. The
    truth's frame carries the GPS's error, which the autopilot's own frame does not: fulmar-sim's
    receiver wanders 1.5 m (one sigma an axis, 30 s correlation), so two fixes minutes apart
    differ by 2.1 m an axis at one sigma, and that is in every figure here."""
    s = {'vehicle': 'copter'}
    s['crashed'] = any(r['crashed'] for r in truth)
    s['flight_time_s'] = truth[-1]['t'] - truth[0]['t']
    s['max_height_m'] = max(r['h'] for r in truth)
    reached = sorted({int(m.group(1)) for _, txt in events
                      for m in [re.match(r'reached waypoint #(\d+)', txt)] if m})
    s['waypoints_reached_log'] = reached
    s['waypoints_missed'] = len([it for it in mission[1:] if it['cmd'] in NAV_CMDS
                                 and it['seq'] not in reached])
    armed = next((r for r in truth if r['armed']), None)
    s['armed'] = armed is not None
    if armed is None:
        return s
    s['home_n_m'], s['home_e_m'] = armed['n'], armed['e']
    # the legs: consecutive NAV_WAYPOINTs with a place
    errs = leg_errors([(r['n'], r['e']) for r in truth if not r['ground'] and r['armed']], mission)
    s['xtrack_rms_m'] = rms(errs) if errs else None
    s['xtrack_max_m'] = max((abs(x) for x in errs), default=None)
    last = truth[-1]
    s['landed'] = last['ground'] and not last['armed']
    s['upright'] = abs(last['roll']) < 30 and abs(last['pitch']) < 30
    s['disarmed_at_end'] = not last['armed']
    s['landing_from_home_m'] = math.hypot(last['n'] - armed['n'], last['e'] - armed['e'])
    s['success'] = s['landed'] and s['upright'] and not s['crashed']
    return s


def copter_summary_text(s):
    L = ['copter: %s; flight %.0f s, highest %.1f m; waypoints reached %s' % (
        'landed, upright and disarmed' if s.get('success') else 'NOT landed safely',
        s['flight_time_s'], s['max_height_m'], s['waypoints_reached_log'])]
    if s.get('xtrack_rms_m') is not None:
        L.append('legs: off the line %.2f m RMS, %.2f m at worst (the true track: GPS error in it)'
                 % (s['xtrack_rms_m'], s['xtrack_max_m']))
    if 'landing_from_home_m' in s:
        L.append('landing: %.2f m from where it was armed (the truth)' % s['landing_from_home_m'])
    if 'own_landing_from_home_m' in s:
        L.append('in its own frame (its flight log): landed %.2f m from home; legs %s RMS' % (
            s['own_landing_from_home_m'], '%.2f m' % s['own_xtrack_rms_m']
            if 'own_xtrack_rms_m' in s else 'not flown'))
    return '\n'.join(L)


def check(s, which):
    bad = []
    for key, op, want in CHECKS[which]:
        v = s.get(key)
        ok = v is not None and not (isinstance(v, float) and math.isnan(v))
        if ok:
            ok = {'>=': lambda: v >= want, '<': lambda: v < want, '<=': lambda: v <= want,
                  '==': lambda: v == want, 'abs<': lambda: abs(v) < want}[op]()
        if not ok:
            bad.append('%s = %s, wanted %s %s' % (key, v, op, want))
    return bad


def summary_text(s, timing):
    f = lambda k, fmt='%.1f': (fmt % s[k]) if isinstance(s.get(k), (int, float)) else '-'
    lines = [
        'flight time %s s, %s m flown, highest %s m, fastest %s m/s' % (
            f('flight_time_s'), f('distance_m', '%.0f'), f('max_height_m'), f('max_airspeed_m_s')),
        'laps %d (fulmard says %d); waypoints passed %s (within WP_RADIUS %.0f m; fulmard '
        'says %s)' % (s['laps'], s['laps_log'], ' '.join(str(x) for x in s['waypoints_reached']),
                      s['wp_radius_m'], ' '.join(str(x) for x in s['waypoints_reached_log'])),
        'straight legs: cross-track RMS %s m, height RMS %s m (worst %s m from %.0f s after '
        'a turn), airspeed error max %s m/s' % (
            f('xtrack_rms_m', '%.2f'), f('alt_rms_m', '%.2f'), f('alt_after_turn_max_m', '%.2f'),
            TURN_SETTLE_S, f('airspeed_err_max_m_s', '%.2f')),
        'slowest %s m/s (%s x the %s\'s stall, %s m/s), steepest bank %s deg' % (
            f('min_airspeed_m_s'), f('min_airspeed_stall_ratio', '%.2f'),
            s['airframe'] or 'unnamed airframe', f('stall_m_s', '%.2f'), f('max_bank_deg')),
        'touchdown %s m along, %s m across the land point; %s, %s' % (
            f('touchdown_along_m'), f('touchdown_cross_m'),
            'disarmed' if s['disarmed_at_end'] else 'STILL ARMED',
            'motor off' if s['motor_off_at_end'] else 'MOTOR RUNNING'),
        'modes: %s' % (' -> '.join(s['modes']) or '-'),
    ]
    if s['failsafes']:
        lines.append('failsafes: %s' % '; '.join(s['failsafes']))
    if timing.get('reanchors'):
        lines.append('the simulator fell behind real time for good %d times: fulmard re-anchored '
                     'its clock each time' % timing['reanchors'])
    if s.get('gps_outage_s'):
        lines.append('without GPS for %.1f s: cross-track at most %s m, height error at most %s m' % (
            s['gps_outage_s'], f('gps_outage_xtrack_max_m', '%.2f'), f('gps_outage_alt_max_m', '%.2f')))
    for th in ('timer', 'main'):
        if th in timing:
            t = timing[th]
            if t['over_1_5x'] is None:
                late = 'loops over 1.5x their period: n/a in lock-step'
            else:
                late = '%d loops over 1.5x their period (%.1f %%)' % (
                    t['over_1_5x'], 100.0 * t['over_1_5x'] / max(1, t['loops']))
            if t.get('achieved_hz') is not None:
                late += '; %.1f loops a second achieved' % t['achieved_hz']
            lines.append('%s loop %d Hz: run time p50 %.1f us, p99 %.1f us, max %.1f us; %s' % (
                th, t['hz'], t['run_p50_us'], t['run_p99_us'], t['run_max_us'], late))
    return '\n'.join(lines)


def svg(truth, mission, s, path, title):
    W, H = 1100, 560
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="20" y="24" font-size="16">%s</text>' % title]
    # ground track, north up, equal scales
    pts = [(r['n'], r['e']) for r in truth if r['phase'] != 'held']
    wps = [it for it in mission if it['ne']]
    ns = [p[0] for p in pts] + [w['ne'][0] for w in wps]
    es = [p[1] for p in pts] + [w['ne'][1] for w in wps]
    n0, n1, e0, e1 = min(ns) - 30, max(ns) + 30, min(es) - 30, max(es) + 30
    box = (20, 56, 500, 480)
    k = min(box[2] / (e1 - e0), box[3] / (n1 - n0))
    X = lambda e: box[0] + (e - e0) * k
    Y = lambda n: box[1] + box[3] - (n - n0) * k
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="#f4f8ee" stroke="#999"/>' % box)
    out.append('<text x="%d" y="%d">ground track (north up, 100 m grid): planned dashed, flown red</text>'
               % (box[0], box[1] - 6))
    g = math.floor(e0 / 100) * 100
    while g < e1:
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#dde"/>' % (X(g), box[1], X(g), box[1] + box[3]))
        g += 100
    g = math.floor(n0 / 100) * 100
    while g < n1:
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#dde"/>' % (box[0], Y(g), box[0] + box[2], Y(g)))
        g += 100
    legs = [w for w in wps if w['cmd'] in NAV_CMDS and w['seq'] > 0]
    out.append('<polyline fill="none" stroke="#88a" stroke-dasharray="6,4" points="%s"/>' %
               ' '.join('%.1f,%.1f' % (X(w['ne'][1]), Y(w['ne'][0])) for w in legs))
    out.append('<polyline fill="none" stroke="#c22" stroke-width="1.2" points="%s"/>' %
               ' '.join('%.1f,%.1f' % (X(e), Y(n)) for n, e in pts[::10]))
    for w in wps:
        x, y = X(w['ne'][1]), Y(w['ne'][0])
        col = '#070' if w['cmd'] == 21 else '#225'
        name = {0: 'home', 21: 'land', 22: 'takeoff'}.get(w['cmd'] if w['seq'] else 0, '')
        out.append('<circle cx="%.1f" cy="%.1f" r="4" fill="%s"/><text x="%.1f" y="%.1f">%d %s</text>' %
                   (x, y, col, x + 6, y + (14 if w['seq'] == 0 else -6), w['seq'], name))
    # time series
    end_t = s.get('touchdown_t', truth[-1]['t']) + 15

    def series(key, label, unit, y0, color):
        bx = (560, y0, 520, 220)
        rows = [r for r in truth if r['phase'] != 'held' and r['t'] <= end_t]
        if not rows:
            return
        t0, t1 = rows[0]['t'], rows[-1]['t']
        vs = [r[key] for r in rows]
        v0, v1 = min(vs + [0]), max(vs) * 1.1 + 1
        xs = lambda t: bx[0] + (t - t0) / max(t1 - t0, 1) * bx[2]
        ys = lambda v: bx[1] + bx[3] - (v - v0) / (v1 - v0) * bx[3]
        out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>' % bx)
        out.append('<text x="%d" y="%d">%s (%s), %.0f..%.0f over %.0f s</text>' %
                   (bx[0] + 4, bx[1] + 14, label, unit, v0, v1, t1 - t0))
        out.append('<polyline fill="none" stroke="%s" points="%s"/>' % (
            color, ' '.join('%.1f,%.1f' % (xs(r['t']), ys(r[key])) for r in rows[::10])))
    series('h', 'height above the field', 'm', 56, '#15a')
    series('as', 'airspeed', 'm/s', 300, '#a51')
    if s.get('vehicle') == 'copter':
        out.append('<text x="560" y="545">legs %.2f m RMS off their lines; landed %.1f m from '
                   'where it was armed</text>' % (s.get('xtrack_rms_m') or float('nan'),
                                                  s.get('landing_from_home_m', float('nan'))))
    else:
        out.append('<text x="560" y="545">laps %d, touchdown %.1f m along / %.1f m across, '
                   'cross-track RMS %.2f m</text>' % (s['laps'], s.get('touchdown_along_m', float('nan')),
                                                       s.get('touchdown_cross_m', float('nan')),
                                                       s['xtrack_rms_m']))
    out.append('</svg>')
    with open(path, 'w') as f:
        f.write('\n'.join(out) + '\n')


def cmd_report(a):
    mission = load_mission(a.mission)
    truth = load_truth(a.truth)
    events, timing = load_log(a.log)
    if a.vehicle == 'copter':
        s = score_copter(truth, mission, events)
        if a.dataflash:
            s.update(copter_own_frame(a.dataflash, mission))
        print(copter_summary_text(s))
    else:
        s = score(truth, mission, events, a.cruise, wp_radius_of(a.params))
        score_timing(s, timing)
        s['timing'] = timing
        print(summary_text(s, timing))
    if a.svg:
        svg(truth, mission, s, a.svg, a.title)
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(s, f, indent=1, default=str)
    bad = check(s, a.check)
    for b in bad:
        print('FAILED: %s' % b)
    return 1 if bad else 0


STATUS = re.compile(r't=([\d.]+) (\w+) lat=([-\d.]+) lon=([-\d.]+) alt=([-\d.]+)m agl=([-\d.]+)m '
                    r'as=([-\d.]+)m/s')


def cmd_follow(a):
    """Progress while it flies: phase, lap, height, airspeed, distance to the next waypoint."""
    mission = load_mission(a.mission)
    by_seq = {it['seq']: it for it in mission}
    home = mission[0]
    seen_status = 0
    lap = 0
    start = time.time()
    tty, said = sys.stdout.isatty(), 0.0
    while True:
        status = None
        try:
            with open(a.status, errors='replace') as f:
                for ln in f.readlines()[seen_status:]:
                    m = STATUS.search(ln)
                    if m:
                        status = m
        except OSError:
            pass
        events, _ = load_log(a.log)
        reached = [int(m.group(1)) for _, txt in events
                   for m in [re.match(r'reached waypoint #(\d+)', txt)] if m]
        counts = {}
        for seq in reached:
            counts[seq] = counts.get(seq, 0) + 1
        lap = max(counts.values()) if counts else 0
        nxt = None
        if reached:
            last_seq = reached[-1]
            for it in mission:
                if it['seq'] <= last_seq:
                    continue
                if it['cmd'] == 177 and lap < a.laps:      # DO_JUMP with laps to go
                    nxt = by_seq.get(int(it['p'][0]))
                    break
                if it['cmd'] in NAV_CMDS and it['ne']:
                    nxt = it
                    break
        modes = [txt[5:] for _, txt in events if txt.startswith('mode ')]
        landed = any('Landed' in txt for _, txt in events)
        if status:
            t, phase = float(status.group(1)), status.group(2)
            lat, lon = float(status.group(3)), float(status.group(4))
            agl, asp = float(status.group(6)), float(status.group(7))
            n, e = ne_of(home['lat'], home['lon'], lat, lon)
            if nxt:
                d = math.hypot(nxt['ne'][0] - n, nxt['ne'][1] - e)
                to = 'next #%d in %4.0f m' % (nxt['seq'], d)
            else:
                to = 'landed' if landed else ''
            what = phase if not modes else '%s/%s' % (phase, modes[-1])
            frac = min(1.0, lap / a.laps) if a.laps else 0
            bar = '#' * int(frac * 20) + '.' * (20 - int(frac * 20))
            line = '  %6.1f s  %-12s lap %d of %d [%s]  %5.1f m  %4.1f m/s  %s' % (
                t, what, min(lap, a.laps), a.laps, bar, agl, asp, to)
            if tty:
                sys.stdout.write('\r' + line.ljust(100))
                sys.stdout.flush()
            elif time.time() - said >= 1.0:
                print(line, flush=True)
                said = time.time()
        if os.path.exists(a.done) or time.time() - start > a.timeout:
            if tty:
                sys.stdout.write('\n')
            return 0
        time.sleep(0.2)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('report')
    r.add_argument('--truth', required=True)
    r.add_argument('--mission', required=True)
    r.add_argument('--log')
    r.add_argument('--params', help="the parameter file fulmard flew with (its WP_RADIUS)")
    r.add_argument('--svg')
    r.add_argument('--json')
    r.add_argument('--title', default='fulmar: the demonstration flight')
    r.add_argument('--cruise', type=float, default=15.0, help='TRIM_ARSPD_CM / 100')
    r.add_argument('--check', choices=sorted(CHECKS), default='none')
    r.add_argument('--vehicle', choices=['plane', 'copter'], default='plane')
    r.add_argument('--dataflash', help="a copter's flight log (.BIN): its own frame's figures too")
    f = sub.add_parser('follow')
    f.add_argument('--status', required=True)
    f.add_argument('--log', required=True)
    f.add_argument('--mission', required=True)
    f.add_argument('--laps', type=int, default=3)
    f.add_argument('--done', required=True, help='stop when this file exists')
    f.add_argument('--timeout', type=float, default=3600)
    sub.add_parser('demo-world', help='SEED WIND TURBULENCE of the demonstration flight')
    a = ap.parse_args()
    if a.cmd == 'demo-world':
        print(DEMO_WORLD['seed'], DEMO_WORLD['wind'], DEMO_WORLD['turbulence'])
        sys.exit(0)
    sys.exit(cmd_report(a) if a.cmd == 'report' else cmd_follow(a))


if __name__ == '__main__':
    main()
