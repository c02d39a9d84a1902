#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Two tools/demo flights at once on one machine, both in lock-step, each watched
by a ground station of its own.

  test_demo_side_by_side.py TOOLS_DEMO BUILD_DIR

The ground-station port both are asked for (--gcs-port) is held by this script, as
a ground station's own server would hold 14550: each demo must say so and take a
free port, the two different. Both are given one output directory: the second
must write beside it. Each flies the whole demonstration and passes its checks
(flight_report.py --check demo); the two flights are the same flight (same seed,
byte for byte to the landing: neither disturbed the other); and each ground
station's last HEARTBEAT says DISARMED (fulmard ran on until one went out).

Lock-step: nothing here waits on the wall clock but the guard that stops a hung
run (WAIT_S). Exit 0 passed, 1 failed. Standard library only.
"""
import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

# The ground station of the HIL flights (tests/hil/test_hil.py).
_spec = importlib.util.spec_from_file_location(
    'test_hil', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'hil', 'test_hil.py'))
test_hil = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(test_hil)

WAIT_S = 400          # a hung run; two flights take well under a minute on a busy 2-core host
MAV_MODE_FLAG_SAFETY_ARMED = 128

failures = []


def check(ok, what):
    print('%s - %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)


class Demo:
    def __init__(self, name, demo, build, out, gcs_port):
        self.name = name
        self.lines = []
        self.gcs = None
        self.gcs_port = self.sim_port = None
        self.proc = subprocess.Popen([demo, '--build', build, '--out', out, '--gcs-port', str(gcs_port)],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        for ln in self.proc.stdout:
            self.lines.append(ln.rstrip('\n'))
            m = re.search(r'simulator link: UDP 127\.0\.0\.1:(\d+); ground station link: UDP (\d+)', ln)
            if m:
                self.sim_port, self.gcs_port = int(m.group(1)), int(m.group(2))
                self.gcs = test_hil.Gcs(self.gcs_port)
                self.gcs.start()

    def wait(self, end):
        try:
            rc = self.proc.wait(timeout=max(1.0, end - time.time()))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
            check(False, '%s: still flying after %d s of wall clock (hung?)' % (self.name, WAIT_S))
        self.reader.join(10)
        if self.gcs:
            self.gcs.stop = True
            self.gcs.join(10)
        return rc

    def said(self, pattern):
        return next((m for ln in self.lines for m in [re.search(pattern, ln)] if m), None)


def truth_to_landing(out):
    """The truth's rows up to fulmard's 'Landed: disarmed', and that time."""
    with open(os.path.join(out, 'fulmard.log'), errors='replace') as f:
        m = re.search(r'(\d+\.\d+) s: Landed: disarmed', f.read())
    if not m:
        return None, None
    end = float(m.group(1))
    rows = []
    with open(os.path.join(out, 'truth.csv')) as f:
        for ln in f:
            if rows and float(ln.split(',')[0]) > end:
                break
            rows.append(ln)
    return rows, end


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: test_demo_side_by_side.py TOOLS_DEMO BUILD_DIR')
    demo, build = sys.argv[1], os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix='fulmar-demos-')
    base = os.path.join(tmp, 'demo')
    # The port both ask for, taken as a ground station's server would take 14550.
    held = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    held.bind(('0.0.0.0', 0))
    taken = held.getsockname()[1]
    start = time.time()
    demos = [Demo('first', demo, build, base, taken), Demo('second', demo, build, base, taken)]
    end = start + WAIT_S
    rcs = [d.wait(end) for d in demos]
    wall = time.time() - start
    held.close()
    for d in demos:
        print('--- %s demo (exit %d):' % (d.name, d.proc.returncode))
        print('\n'.join('  ' + ln for ln in d.lines))

    check(rcs == [0, 0], 'both demos flew and passed their checks: exit %s, %.1f s of wall clock for both'
          % (rcs, wall))
    moved = [d for d in demos if d.said(r'writing to .*demo-2$')]
    check(len(moved) == 1 and os.path.exists(os.path.join(base + '-2', 'truth.csv'))
          and os.path.exists(os.path.join(base, 'truth.csv')),
          'one wrote to %s, the other beside it (%s-2)' % (base, base))
    gcs = [d.gcs_port for d in demos]
    sims = [d.sim_port for d in demos]
    check(None not in gcs and gcs[0] != gcs[1] and taken not in gcs and
          all(d.said(r'UDP %d is taken' % taken) for d in demos),
          'ground station links: UDP %s, each saying that %d was taken' % (gcs, taken))
    check(None not in sims and sims[0] != sims[1], 'simulator links: UDP %s' % (sims,))
    for d in demos:
        hb = d.gcs.heartbeats() if d.gcs else []
        armed = [i for i, (mode, _) in enumerate(hb) if mode & MAV_MODE_FLAG_SAFETY_ARMED]
        check(armed and hb[-1][0] & MAV_MODE_FLAG_SAFETY_ARMED == 0 and len(hb) > armed[-1] + 1,
              '%s: its ground station saw %d HEARTBEATs, armed ones, and DISARMED last (base_mode %s)'
              % (d.name, len(hb), hb[-1][0] if hb else None))
    a, t_a = truth_to_landing(base)
    b, t_b = truth_to_landing(base + '-2')
    check(a is not None and a == b and t_a == t_b,
          'the same flight, byte for byte: %s truth rows each to the landing at %s s' %
          (len(a) if a else None, t_a))
    if failures:
        print('kept for a look: %s' % tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    print('demo_side_by_side: %s' % ('FAILED: ' + '; '.join(failures) if failures else 'passed'))
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
