#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Whole flights in HIL, lock-step (gcs_loss, rc_stall and realtime_overload in real time):
fulmar-sim and fulmard as two real processes over UDP on loopback, scored against the
simulator's ground truth.

  test_hil.py CASE FULMARD FULMAR_SIM [FULMAR_LOG]

Cases: sensors, sensor_health, estimator, demo, demo_100hz, demo_200hz, demo_250hz, demo_400hz_fresh,
demo_200hz_of_1khz, windy, determinism, gps_loss, pitot_block, pitot_off, low_battery, rc_loss, rc_stall, modes, gcs_loss,
log_crash, log_download (the demos and log_crash read the flight log with FULMAR_LOG), and
realtime_overload (8 minutes under stress-ng, overloaded twice: suite 'realtime', which
tools/test runs natively only).
Exit 0 passed, 1 failed (with what and why). Standard library only.
"""
import atexit
import csv
import glob
import importlib.util
import io
import math
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MISSION = os.path.join(ROOT, 'missions', 'cmac-circuit.waypoints')
PARAMS = os.path.join(ROOT, 'missions', 'cmac-circuit.param')
TIMELINE = os.path.join(ROOT, 'missions', 'cmac-circuit.timeline')
COPTER_MISSION = os.path.join(ROOT, 'missions', 'copter-square.waypoints')
COPTER_PARAMS = os.path.join(ROOT, 'missions', 'copter-square.param')
COPTER_TIMELINE = os.path.join(ROOT, 'missions', 'copter-square.timeline')
CUB = {k: os.path.join(ROOT, 'missions', 'cub-runway.' + k) for k in ('waypoints', 'param', 'timeline')}

spec = importlib.util.spec_from_file_location('flight_report', os.path.join(ROOT, 'tools', 'flight_report.py'))
fr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fr)

failures = []
# Each flight's folder (truth, logs, configuration): removed when the case passes, kept
# and named when it fails (or FULMAR_KEEP=1 is in the environment), for a look.
flight_dirs = []

# No verdict may hang on how busy the host is. Lock-step flights end by themselves (the
# simulator's --end-landed after the landing, its --duration, a crash, a dead daemon), so
# their waits are for those events; WAIT_S of wall clock only stops a hung flight, as a failure of its
# own, before meson's timeout (tests/hil/meson.build) would. The longest single flight
# here takes under 20 s of wall clock, on a 2-core host under stress-ng too.
WAIT_S = 200
# fulmar-sim ends a flight this long (simulated) after the aircraft, having flown, is
# disarmed on the ground: the truth, the log and the ground station all see the disarm
# before the processes are stopped, however the test's polling falls.
END_LANDED_S = 2.0
# The flights' date: fulmar-sim's earth field is the World Magnetic Model's at home on it.
# Its default date is fixed (so tools/demo and hil_demo fly the same world); this is that date.
SIM_DATE = '2026-12-04'
# FULMAR_LOCKSTEP_PLAIN=1: lock-step without issue 19's wake-up savings on either side (no
# spinning before a blocking read, no PM QoS hold), as flights ran before them; only for
# tools/bench-suite's "before" figure. The flights are the same, only slower.
PLAIN = os.environ.get('FULMAR_LOCKSTEP_PLAIN') == '1'
PLAIN_SIM = ['--spin-us', '0', '--cpu-dma-latency', '-1'] if PLAIN else []
PLAIN_DAEMON = (['--spin-us', '0'] if PLAIN else [], '[sched]\ncpu_dma_latency_us = -1\n' if PLAIN else '')


def check(ok, what):
    print('%s - %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Gcs(threading.Thread):
    """A ground station on fulmard's UDP link: heartbeats while beating, records what comes."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # In lock-step fulmard's telemetry comes a hundred times faster than in real
        # time: a buffer for the seconds this thread may wait for a CPU on a busy host.
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.sock.settimeout(0.05)
        self.dst = ('127.0.0.1', port)
        self.beating = True
        self.last_beat = None   # when the last heartbeat went (time.time())
        self.quiet = threading.Event()   # set once beating is False and none will go
        self.stop = False
        self.msgs = []          # (msgid, payload)
        self.seq = 0
        self.texts = []

    @staticmethod
    def crc_x25(data, crc=0xFFFF):
        for b in data:
            tmp = (b ^ crc) & 0xFF
            tmp = (tmp ^ (tmp << 4)) & 0xFF
            crc = ((crc >> 8) ^ (tmp << 8) ^ (tmp << 3) ^ (tmp >> 4)) & 0xFFFF
        return crc

    def send(self, msgid, payload, crc_extra):
        hdr = bytes([0xFD, len(payload), 0, 0, self.seq & 0xFF, 255, 190,
                     msgid & 0xFF, (msgid >> 8) & 0xFF, msgid >> 16])
        self.seq += 1
        crc = self.crc_x25(hdr[1:] + payload + bytes([crc_extra]))
        self.sock.sendto(hdr + payload + struct.pack('<H', crc), self.dst)

    def heartbeat(self):
        # HEARTBEAT from a ground station (MAV_TYPE_GCS)
        try:
            self.send(0, struct.pack('<IBBBBB', 0, 6, 8, 0, 0, 3), 50)
        except OSError:
            pass                # fulmard not there (yet, or any more)

    def heartbeats(self):
        """(base_mode, system_status) of each HEARTBEAT received."""
        return [(p[6], p[7]) for mid, p in self.msgs if mid == 0]

    def run(self):
        """Until stop is set and what had come before it is read (set it once fulmard
        has ended, so that a quiet link means all of it)."""
        last = 0
        while True:
            if self.beating and not self.stop and time.time() - last > 0.02:
                self.heartbeat()
                last = self.last_beat = time.time()
            elif not self.beating:
                self.quiet.set()
            try:
                d, _ = self.sock.recvfrom(65536)
            except socket.timeout:
                if self.stop:
                    return
                continue
            except OSError:
                continue
            i = 0
            while i + 12 <= len(d):
                if d[i] != 0xFD:
                    i += 1
                    continue
                n = d[i + 1]
                msgid = d[i + 7] | d[i + 8] << 8 | d[i + 9] << 16
                p = d[i + 10:i + 10 + n] + bytes(255)  # MAVLink 2 cuts trailing zeros
                self.msgs.append((msgid, p))
                if msgid == 253:
                    self.texts.append(p[1:51].split(b'\0')[0].decode(errors='replace'))
                i += 12 + n + (13 if d[i + 2] & 1 else 0)


def sim_in_real_time():
    """In a real-time flight the simulator stands for the world, which does not wait for a
    busy CPU: SCHED_FIFO 1 where it may, below every thread of fulmard's (rate-monotonic
    from 40 down), above every ordinary process. Without it, a host at load 10 starved it
    into 15 stalls of a quarter of a second in the throw's first 3 s (a fresh-debian-check
    run beside the board stage and a loaded suite, 2026-12-05), and fulmard flew on sensors
    that had stopped: a test of the host, not of fulmard. Where it may not (no
    CAP_SYS_NICE), it runs as before, and falls behind and skips ahead."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    except OSError:
        pass


class Flight:
    def __init__(self, fulmard, sim, name, sim_args=(), params=(), realtime=False, gcs=False,
                 timeline_extra=(), duration=900, daemon_args=(), base_params=None,
                 base_timeline=None, mission=MISSION, state_files=None, vehicle='plane'):
        self.dir = tempfile.mkdtemp(prefix='fulmar-hil-%s-' % name)
        flight_dirs.append(self.dir)
        # Files of fulmard's state directory before it starts (the fence and rally lists
        # it keeps there, as a ground station's upload leaves them).
        if state_files:
            os.makedirs(os.path.join(self.dir, 'state'), exist_ok=True)
            for fname, text in state_files.items():
                with open(os.path.join(self.dir, 'state', fname), 'w') as f:
                    f.write(text)
        self.mission = mission
        self.sim_port = free_udp_port()
        self.gcs_port = free_udp_port()
        with open(os.path.join(self.dir, 'fulmard.conf'), 'w') as f:
            f.write('[daemon]\nstate_dir = %s/state\nlog_dir = %s/logs\nvehicle = %s\n'
                    '[mavlink]\nlink0 = udp-server:127.0.0.1:%d\n' % (self.dir, self.dir, vehicle,
                                                                      self.gcs_port)
                    + PLAIN_DAEMON[1])
        self.params = os.path.join(self.dir, 'p.param')
        with open(self.params, 'w') as f:
            f.write(open(PARAMS).read() if base_params is None else base_params)
            for p in params:
                f.write(p + '\n')
        with open(os.path.join(self.dir, 'timeline'), 'w') as f:
            f.write(open(TIMELINE).read() if base_timeline is None else base_timeline)
            for ln in timeline_extra:
                f.write(ln + '\n')
        self.truth = os.path.join(self.dir, 'truth.csv')
        self.log = os.path.join(self.dir, 'fulmard.log')
        self.gcs = Gcs(self.gcs_port) if gcs else None
        sim_cmd = [sim, '--listen', '127.0.0.1:%d' % self.sim_port, '--rc-mode-pwm', '1550',
                   '--faults', os.path.join(self.dir, 'timeline'), '--truth', self.truth,
                   '--status-hz', '0', '--duration', str(duration), '--timeout', '10',
                   '--end-landed', str(END_LANDED_S)] + list(sim_args) + PLAIN_SIM
        d_cmd = [fulmard, '-c', os.path.join(self.dir, 'fulmard.conf'),
                 '--hil', 'udp:127.0.0.1:%d' % self.sim_port, '--load-mission', mission,
                 '--load-params', os.path.join(self.dir, 'p.param')] + list(daemon_args)
        if realtime:
            sim_cmd.append('--realtime')
        else:
            d_cmd += ['--lockstep'] + PLAIN_DAEMON[0]
        self.sim_err = open(os.path.join(self.dir, 'sim.log'), 'w')
        if self.gcs:
            self.gcs.start()
        self.sim = subprocess.Popen(sim_cmd, stdout=subprocess.DEVNULL, stderr=self.sim_err,
                                    preexec_fn=sim_in_real_time if realtime else None)
        self.daemon = subprocess.Popen(d_cmd, stdout=open(self.log, 'w'), stderr=subprocess.STDOUT)
        # Whatever happens to the test, no simulator or daemon outlives it.
        atexit.register(lambda: [p.kill() for p in (self.sim, self.daemon) if p.poll() is None])

    def events(self):
        return fr.load_log(self.log)[0]

    def wait(self, until, wall_s=WAIT_S, what='the flight (hung?)'):
        """Until until(events) is true or the simulator or the daemon ends (True when
        until). Running out of wall_s fails the test with what (unless None)."""
        end = time.time() + wall_s
        while True:
            if until(self.events()):
                return True
            if self.sim.poll() is not None or self.daemon.poll() is not None:
                return until(self.events())
            if time.time() > end:
                if what:
                    check(False, '%s: still waiting after %.0f s of wall clock' % (what, wall_s))
                return False
            time.sleep(0.05)

    def wait_end(self, wall_s=WAIT_S):
        """Until the simulator ends the flight (--end-landed, --duration) or either process
        ends."""
        self.wait(lambda ev: False, wall_s)

    def stop(self):
        for p in (self.sim, self.daemon):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in (self.sim, self.daemon):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        if self.gcs:
            self.gcs.stop = True
        self.sim_err.close()
        return fr.load_truth(self.truth), self.events(), fr.load_log(self.log)[1]

    def report(self, check_name):
        truth, events, timing = self.stop()
        s = fr.score(truth, fr.load_mission(self.mission), events, 15.0,
                     fr.wp_radius_of(self.params))
        print('\n'.join('  ' + ln for ln in fr.summary_text(s, timing).split('\n')))
        bad = fr.check(s, check_name)
        for b in bad:
            check(False, b)
        if not bad:
            check(True, "the %d checks of flight_report.CHECKS['%s'] hold" % (
                len(fr.CHECKS[check_name]), check_name))
        return truth, events, s


def at(truth, t):
    """The truth row at time t."""
    lo, hi = 0, len(truth) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if truth[mid]['t'] < t:
            lo = mid + 1
        else:
            hi = mid
    return truth[lo]


def event_time(events, pattern):
    return next((t for t, txt in events if re.search(pattern, txt)), None)


def case_sensors(fulmard, sim, fulmar_log=None):
    """The daemon's sensors and estimate against the truth over 90 s, and its
    outputs against what the simulator applied."""
    f = Flight(fulmard, sim, 'sensors', gcs=True, duration=90,
               params=('SR0_POSITION,10', 'SR0_EXTRA1,10', 'SR0_RAW_SENS,10', 'SR0_RC_CHAN,10',
                       'SR0_EXTRA3,2', 'SR0_EXTRA2,10'))
    f.wait_end()
    truth, events, _ = f.stop()
    tr = truth
    gpi = [struct.unpack('<Iiiiihhh', p[:26]) for m, p in f.gcs.msgs if m == 33]
    att = [struct.unpack('<Ifff', p[:16]) for m, p in f.gcs.msgs if m == 30]
    imu = [struct.unpack('<Ihhh', p[:10]) for m, p in f.gcs.msgs if m == 26]
    servo = [struct.unpack('<IHHHH', p[:12]) for m, p in f.gcs.msgs if m == 36]
    check(len(gpi) > 300 and len(att) > 300 and len(imu) > 300 and len(servo) > 300,
          'telemetry of 90 s in lock-step: %d positions, %d attitudes, %d IMU, %d servo' %
          (len(gpi), len(att), len(imu), len(servo)))
    home = fr.load_mission(MISSION)[0]
    pos_err, alt_err, att_err = [], [], []
    for t_ms, lat, lon, alt, ralt, vx, vy, vz in gpi:
        r = at(tr, t_ms / 1000.0)
        n, e = fr.ne_of(home['lat'], home['lon'], lat * 1e-7, lon * 1e-7)
        pos_err.append(math.hypot(n - r['n'], e - r['e']))
    for t_ms, roll, pitch, yaw in att:
        r = at(tr, t_ms / 1000.0)
        if r['phase'] == 'air':
            att_err.append(abs(math.degrees(roll) - r['roll']))
    check(fr.rms(pos_err) < 5.0, 'estimated position within the GPS noise of the truth: RMS %.2f m'
          % fr.rms(pos_err))
    check(att_err and max(att_err) < 3.0, 'estimated roll in flight within 3 deg: max %.2f deg'
          % max(att_err or [99]))
    at_rest = [z for t_ms, x, y, z in imu if t_ms < 25000]
    # within the simulated accelerometer's bias (0.2 m/s^2 sigma) and scale error (1 % sigma)
    check(at_rest and abs(sum(at_rest) / len(at_rest) + 1000) < 80,
          'the IMU held in the hand feels 1 g: %.0f mG' % (sum(at_rest) / max(1, len(at_rest))))
    # the estimator's own account: EKF_STATUS_REPORT, ESTIMATOR_STATUS, LOCAL_POSITION_NED
    ekf = [struct.unpack('<fffffH', p[:22]) for m, p in f.gcs.msgs if m == 193]
    est = [m for m, p in f.gcs.msgs if m == 230]
    check(ekf and (ekf[-1][5] & 0x3F) == 0x3F and est,
          'EKF_STATUS_REPORT says attitude, velocity and position are good (flags 0x%x); '
          '%d ESTIMATOR_STATUS' % (ekf[-1][5] if ekf else 0, len(est)))
    local = [struct.unpack('<Iffffff', p[:28]) for m, p in f.gcs.msgs if m == 32]
    lerr = []
    for t_ms, x, y, z, vx, vy, vz in local:
        r = at(tr, t_ms / 1000.0)
        lerr.append(math.hypot(x - r['n'], y - r['e']))
    check(len(local) > 300 and fr.rms(lerr) < 6.0,
          'LOCAL_POSITION_NED from the estimator\'s origin: %d, RMS %.2f m from the truth'
          % (len(local), fr.rms(lerr)))
    # outputs: the throttle the daemon sends is the one the simulator applies
    errs = []
    # (the truth's 50 Hz rows about the time it is sent: a step, as a hand launch's
    # full power at once, falls between two of them)
    for t_us, s1, s2, s3, s4 in servo:
        errs.append(min(abs((s3 - 1000) / 1000.0 - at(tr, t_us / 1e6 + dt)['thr'])
                        for dt in (-0.02, 0.0, 0.01, 0.02)))
    check(max(errs) < 0.05 and any(s3 > 1500 for _, _, _, s3, _ in servo),
          'throttle sent reaches the simulator: worst %.3f over %d outputs' % (max(errs), len(errs)))
    # VFR_HUD's throttle is that pulse's share of SERVO3_MIN..MAX (1000..2000 us), in percent:
    # each against the SERVO_OUTPUT_RAW of the same stream tick (sent after it).
    pairs, hud = [], None
    for mid, p in f.gcs.msgs:
        if mid == 74:
            hud = struct.unpack('<ffffhH', p[:20])[5]
        elif mid == 36 and hud is not None:
            pairs.append((hud, (struct.unpack('<IHHHH', p[:12])[3] - 1000) / 10.0))
            hud = None
    bad = [(h, s) for h, s in pairs if abs(h - s) > 0.51]
    check(len(pairs) > 300 and not bad and max(h for h, s in pairs) > 50,
          'VFR_HUD throttle is the throttle output: %d pairs, %d off (up to %d %%)'
          % (len(pairs), len(bad), max([h for h, s in pairs] or [0])))


# MAV_SYS_STATUS_SENSOR bits (common.xml)
SENSOR_BITS = {'accel': 0x2, 'mag': 0x4, 'baro': 0x8, 'airspeed': 0x10, 'gps': 0x20}
GEOFENCE, PREARM_CHECK = 0x100000, 0x10000000


def sys_status_timed(msgs):
    """(t_s, present, enabled, health, drop_rate_comm) of each SYS_STATUS, timed by the
    SCALED_IMU before it (the IMU never drops out here; one stream tick late at most)."""
    t, out = None, []
    for mid, p in msgs:
        if mid == 26:
            t = struct.unpack('<I', p[:4])[0] / 1000.0
        elif mid == 1 and t is not None:
            present, enabled, health, load, v, c, drop = struct.unpack('<IIIHHhH', p[:20])
            out.append((t, present, enabled, health, drop))
    return out


def case_sensor_health(fulmard, sim, fulmar_log=None):
    """Issue 17: a sensor that fails shows in SYS_STATUS's health (and only that one), and
    comes back when it does; present and enabled stay. fulmar-sim's dropouts stop each
    sensor's samples in turn; the aircraft waits on the ground, lock-step."""
    drops = (('baro', 10, 4), ('mag', 18, 4), ('airspeed', 26, 4), ('gps', 34, 5))
    # How long after its last sample a sensor is unhealthy (src/mavlink/gcs_health.h),
    # and a stream tick of slack each way.
    after = {'gps': 2.0}
    f = Flight(fulmard, sim, 'health', gcs=True, duration=45,
               params=('SR0_EXT_STAT,10', 'SR0_RAW_SENS,10'),
               base_timeline=''.join('%d dropout %s %d\n' % (t, n, d) for n, t, d in drops))
    f.wait_end()
    f.stop()
    st = sys_status_timed(f.gcs.msgs)
    check(len(st) > 300, '%d SYS_STATUS in 45 s at 10 Hz' % len(st))
    for name, t0, dur in drops:
        bit = SENSOR_BITS[name]
        late = after.get(name, 0.5) + 0.2
        during = [h for t, p, e, h, d in st if t0 + late <= t <= t0 + dur - 0.1]
        outside = [h for t, p, e, h, d in st if t >= 5 and not t0 - 0.1 <= t <= t0 + dur + 0.3]
        kept = [(p & e) for t, p, e, h, d in st if t >= 5]
        check(during and all(not h & bit for h in during),
              '%s out from %d s for %d s: its health bit clear in %d SYS_STATUS from %.1f s'
              % (name, t0, dur, len(during), t0 + late))
        check(outside and all(h & bit for h in outside),
              '%s: healthy in the %d others from 5 s' % (name, len(outside)))
        check(all(k & bit for k in kept), '%s: present and enabled throughout' % name)
    others = SENSOR_BITS['accel'] | 0x1
    check(all(h & others == others for t, p, e, h, d in st if t >= 5),
          'the IMU healthy throughout')
    check(all(h & GEOFENCE and not p & GEOFENCE for t, p, e, h, d in st),
          'no fence: not present, and healthy (MAVProxy reads a clear bit as a breach)')
    check(all(p & PREARM_CHECK for t, p, e, h, d in st), 'pre-arm checks present')
    check(all(d == 0 for t, p, e, h, d in st),
          'drop_rate_comm 0 on loopback from the first SYS_STATUS: max %d' % max(d for *_, d in st))


def log_info(fulmar_log, path):
    """fulmar-log info: {type: count} and the last TimeUS (s)."""
    out = subprocess.run([fulmar_log, 'info', path], capture_output=True, text=True)
    counts = {m.group(2): int(m.group(3)) for m in
              re.finditer(r'^(\d+)\s+([A-Z0-9]+)\s+(\d+)\s', out.stdout, re.M)}
    m = re.search(r'last ([\d.]+) s', out.stdout)
    return out.returncode, counts, float(m.group(1)) if m else 0.0, out.stdout


def case_estimator(fulmard, sim, fulmar_log=None):
    """The estimator in closed loop over the demo's climbs, level legs and 35 degree
    turns in a 5 m/s wind, scored from 60 s after the throw: attitude, velocity and
    position against the truth (ATTITUDE, GLOBAL_POSITION_INT at 10 Hz); WIND, AHRS2,
    VIBRATION and POSITION_TARGET_GLOBAL_INT (estimator_telemetry); the flight log's XKF1,
    XKF2 and ARSP (estimator_log, with FULMAR_LOG)."""
    f = Flight(fulmard, sim, 'estim', sim_args=('--wind', '%g,%g' % ESTIM_WIND, '--truth-hz', '500'),
               gcs=True, duration=400,
               params=('SR0_POSITION,10', 'SR0_EXTRA1,10', 'SR0_EXTRA2,0', 'SR0_EXTRA3,2',
                       'SR0_EXT_STAT,10', 'SR0_RC_CHAN,0'))
    f.wait_end()
    tr, events, _ = f.stop()
    t0 = 26 + 60
    wrap = lambda d: (d + 180) % 360 - 180
    roll, pitch, yaw, vel, pos, gps = [], [], [], [], [], []
    home = fr.load_mission(MISSION)[0]
    for m, p in f.gcs.msgs:
        if m == 30:
            t_ms, r_, p_, y_ = struct.unpack('<Ifff', p[:16])
            r = at(tr, t_ms / 1000.0)
            if t_ms / 1000.0 > t0 and r['phase'] == 'air':
                roll.append(math.degrees(r_) - r['roll'])
                pitch.append(math.degrees(p_) - r['pitch'])
                yaw.append(wrap(math.degrees(y_) - r['yaw']))
        elif m == 33:
            t_ms, lat, lon, alt, ralt, vx, vy, vz = struct.unpack('<Iiiiihhh', p[:26])
            r = at(tr, t_ms / 1000.0)
            if t_ms / 1000.0 > t0 and r['phase'] == 'air':
                n, e = fr.ne_of(home['lat'], home['lon'], lat * 1e-7, lon * 1e-7)
                pos.append(math.hypot(n - r['n'], e - r['e']))
                vel.append(math.sqrt((vx / 100 - r['vn']) ** 2 + (vy / 100 - r['ve']) ** 2 +
                                     (vz / 100 - r['vd']) ** 2))
        elif m == 24:
            t_us, lat, lon = struct.unpack('<Qii', p[:16])
            fix = p[28]
            r = at(tr, t_us / 1e6 - 0.15)     # the fix is the GPS latency old
            if t_us / 1e6 > t0 and r['phase'] == 'air' and fix >= 3:
                n, e = fr.ne_of(home['lat'], home['lon'], lat * 1e-7, lon * 1e-7)
                gps.append(math.hypot(n - r['n'], e - r['e']))
    mean_roll = sum(roll) / max(1, len(roll))
    check(len(roll) > 1000 and fr.rms(roll) < 0.5 and max(map(abs, roll)) < 2 and
          fr.rms(pitch) < 0.5 and max(map(abs, pitch)) < 2,
          'roll RMS %.2f (max %.2f, mean %.2f), pitch RMS %.2f (max %.2f) deg over %d samples' % (
              fr.rms(roll), max(map(abs, roll)), mean_roll, fr.rms(pitch), max(map(abs, pitch)),
              len(roll)))
    check(fr.rms(yaw) < 2.0, 'yaw RMS %.2f deg' % fr.rms(yaw))
    check(fr.rms(vel) < 0.3, 'velocity RMS %.2f m/s' % fr.rms(vel))
    check(fr.rms(pos) < 2.0, 'horizontal position RMS %.2f m (the GPS alone: %.2f m)' %
          (fr.rms(pos), fr.rms(gps)))
    estimator_telemetry(f, tr, t0)
    if fulmar_log:
        estimator_log(f, tr, t0, fulmar_log)
    else:
        print('SKIP: the flight log\'s estimator records not checked: no fulmar-log given')


# case_estimator's wind: 5 m/s from the east (speed, the direction it blows from).
ESTIM_WIND = (5.0, 90.0)


def wind_from_ne(wn, we):
    """(speed, direction it blows from, deg 0..360) of the air's velocity north, east."""
    return math.hypot(wn, we), math.degrees(math.atan2(-we, -wn)) % 360


def estimator_telemetry(f, tr, t0):
    """ArduPlane's extra telemetry against the truth (issue 17), over case_estimator's
    flight: WIND (EXTRA3, 2 Hz) the simulator's wind, AHRS2 (EXTRA1) the truth's attitude,
    VIBRATION (EXTRA3) not zero while the motor runs, POSITION_TARGET_GLOBAL_INT (EXT_STAT)
    the waypoint MISSION_CURRENT says is being flown to. WIND and AHRS2 carry no time: each
    is taken at the time of the ATTITUDE before it (10 Hz, the same stream tick or the one
    before)."""
    wrap = lambda d: (d + 180) % 360 - 180
    mission = fr.load_mission(MISSION)
    t = None
    cur = None
    wind, ahrs2, vib_run, vib_idle, tgt = [], [], [], [], []
    for m, p in f.gcs.msgs:
        if m == 30:
            t = struct.unpack('<I', p[:4])[0] / 1000.0
        elif m == 42:
            cur = struct.unpack('<H', p[:2])[0]
        if t is None or t < t0:
            continue
        r = at(tr, t)
        if m == 168:
            d, spd, _ = struct.unpack('<fff', p[:12])
            if r['phase'] == 'air':
                wind.append((spd - ESTIM_WIND[0], wrap(d - ESTIM_WIND[1])))
        elif m == 178:
            ro, pi, ya = (math.degrees(x) for x in struct.unpack('<fff', p[:12]))
            if r['phase'] == 'air':
                ahrs2.append((ro - r['roll'], pi - r['pitch'], wrap(ya - r['yaw'])))
        elif m == 241:
            tv, vx, vy, vz = struct.unpack('<Qfff', p[:20])
            rv = at(tr, tv / 1e6)
            (vib_run if rv['thr'] > 0.3 else vib_idle).append(math.sqrt(vx * vx + vy * vy + vz * vz))
        elif m == 87 and cur is not None and 2 <= cur <= 5:
            _, lat, lon, alt = struct.unpack('<Iiif', p[:16])
            it = mission[cur]
            tgt.append(abs(lat - round(it['lat'] * 1e7)) <= 2 and abs(lon - round(it['lon'] * 1e7)) <= 2
                       and abs(alt - (mission[0]['alt'] + it['alt'])) < 5.0)
    # Measured on this flight (no turbulence): speed RMS 0.10 m/s (max 0.24), direction
    # RMS 1.5 deg (max 3.0) from 60 s after the throw, once the turns have made the wind
    # observable; the bounds leave 4x and 3x for other builds' rounding.
    spd_err = [a for a, _ in wind]
    dir_err = [b for _, b in wind]
    check(len(wind) > 300 and fr.rms(spd_err) < 0.4 and fr.rms(dir_err) < 5,
          'WIND, the simulator\'s %g m/s from %g deg: %d messages, speed RMS error %.2f m/s '
          '(max %.2f), direction RMS %.1f deg (max %.1f)' % (
              ESTIM_WIND[0], ESTIM_WIND[1], len(wind), fr.rms(spd_err),
              max(map(abs, spd_err or [0])), fr.rms(dir_err), max(map(abs, dir_err or [0]))))
    # AHRS2 is the filter's delayed-horizon solution: its attitude is as old as the fusion
    # delay, so it trails the truth in turns: measured roll RMS 0.70, pitch 0.12, yaw 0.89
    # deg (ATTITUDE's: 0.16, 0.10, 0.23).
    ar = [a for a, _, _ in ahrs2]
    ap = [b for _, b, _ in ahrs2]
    ay = [c for _, _, c in ahrs2]
    check(len(ahrs2) > 1000 and fr.rms(ar) < 1.5 and fr.rms(ap) < 1.0 and fr.rms(ay) < 2.0,
          'AHRS2 against the truth: %d, roll RMS %.2f, pitch RMS %.2f, yaw RMS %.2f deg' % (
              len(ahrs2), fr.rms(ar), fr.rms(ap), fr.rms(ay)))
    check(len(vib_run) > 100 and min(vib_run) > 0.0,
          'VIBRATION with the motor running: %d, all above 0 (least %.3f, mean %.3f m/s^2); '
          'motor idle: mean %.3f' % (len(vib_run), min(vib_run or [0]),
                                     sum(vib_run) / max(1, len(vib_run)),
                                     sum(vib_idle) / max(1, len(vib_idle))))
    check(len(tgt) > 300 and sum(tgt) >= 0.97 * len(tgt),
          'POSITION_TARGET_GLOBAL_INT is the waypoint MISSION_CURRENT flies to: %d of %d' % (
              sum(tgt), len(tgt)))


# DataFlash format letters as pymavlink's DFReader reads them: struct code and scale.
def check_log_independently(path, counts, names):
    """df_decode on a log of ours: every byte a record, the same counts as fulmar-log's,
    and for the named types an FMTU whose unit and multiplier ids are in the file's UNIT
    and MULT records, one per column."""
    recs, fmts, skipped = fr.df_decode(path)
    ours = {n: len(v) for n, v in recs.items()}
    same = all(ours.get(n, 0) == c for n, c in counts.items())
    units = {r['Id'] for r in recs.get('UNIT', [])}
    mults = {r['Id'] for r in recs.get('MULT', [])}
    by_name = {v[0]: (t, v[1]) for t, v in fmts.items()}
    fmtu = {r['FmtType']: r for r in recs.get('FMTU', [])}
    bad = []
    for n in names:
        t, fmt = by_name.get(n, (None, ''))
        u = fmtu.get(t)
        if not u or len(u['UnitIds']) != len(fmt) or len(u['MultIds']) != len(fmt) or \
                any(ord(c) not in units for c in u['UnitIds']) or \
                any(ord(c) not in mults for c in u['MultIds']):
            bad.append(n)
    check(skipped == 0 and same and not bad,
          'the log read by a second, independent reader (flight_report.df_decode): %d bytes '
          'skipped, counts %s fulmar-log\'s, FMTU/UNIT/MULT consistent%s' % (
              skipped, 'equal to' if same else 'NOT equal to',
              ' except for ' + ', '.join(bad) if bad else ''))
    return recs


def estimator_log(f, tr, t0, fulmar_log):
    """The flight log's estimator and sensor records against the truth: XKF1's position
    (from ORGN's origin) and velocity, XKF2's wind, ARSP's airspeed."""
    logs = os.path.join(f.dir, 'logs')
    bins = sorted(x for x in os.listdir(logs) if x.endswith('.BIN'))
    check(len(bins) == 1, 'one flight log: %s' % bins)
    if not bins:
        return
    path = os.path.join(logs, bins[0])
    rc, counts, last, _ = log_info(fulmar_log, path)
    want = ('XKF1', 'XKF2', 'ARSP', 'MAG', 'TECS', 'VIBE', 'POWR', 'ORGN')
    check(rc == 0 and all(counts.get(k, 0) > 0 for k in want),
          'the log holds the records of issue 17: %s' %
          ', '.join('%s %d' % (k, counts.get(k, 0)) for k in want))
    recs = check_log_independently(path, counts, want)
    # ... and it decodes the values fulmar-log decodes (its CSV has two decimals for c).
    mine = recs.get('XKF2', [])
    theirs = log_rows(fulmar_log, path, 'XKF2')
    check(len(mine) == len(theirs) and all(
        abs(a['VWE'] - float(b['VWE'])) < 0.006 and a['TimeUS'] == int(b['TimeUS'])
        for a, b in zip(mine, theirs)), 'XKF2 decoded alike by both readers: %d records' % len(mine))
    home = fr.load_mission(MISSION)[0]
    orgn = [o for o in log_rows(fulmar_log, path, 'ORGN') if o['Type'] == '0']
    homes = [o for o in log_rows(fulmar_log, path, 'ORGN') if o['Type'] == '1']
    check(orgn and homes, 'ORGN: the estimator\'s origin (%d) and home (%d)' % (len(orgn), len(homes)))
    if not orgn:
        return
    on, oe = fr.ne_of(home['lat'], home['lon'], float(orgn[-1]['Lat']), float(orgn[-1]['Lng']))
    pos, vel = [], []
    for x in log_rows(fulmar_log, path, 'XKF1'):
        t = int(x['TimeUS']) / 1e6
        r = at(tr, t)
        if t > t0 and r['phase'] == 'air':
            pos.append(math.hypot(float(x['PN']) + on - r['n'], float(x['PE']) + oe - r['e']))
            vel.append(math.sqrt((float(x['VN']) - r['vn']) ** 2 + (float(x['VE']) - r['ve']) ** 2 +
                                 (float(x['VD']) - r['vd']) ** 2))
    # The same estimate as GLOBAL_POSITION_INT's above, at 25 Hz instead of 10 and in the
    # origin's frame: measured 1.85 m and 0.06 m/s (the GPS alone 2.5 m); position's bound
    # is the GPS's noise, velocity's the telemetry's.
    check(len(pos) > 5000 and fr.rms(pos) < 2.5 and fr.rms(vel) < 0.3,
          'XKF1 (25 Hz) against the truth: %d records, position RMS %.2f m, velocity RMS %.2f m/s'
          % (len(pos), fr.rms(pos), fr.rms(vel)))
    wn, we = (-ESTIM_WIND[0] * math.cos(math.radians(ESTIM_WIND[1])),
              -ESTIM_WIND[0] * math.sin(math.radians(ESTIM_WIND[1])))
    werr = []
    for x in log_rows(fulmar_log, path, 'XKF2'):
        t = int(x['TimeUS']) / 1e6
        if t > t0 and at(tr, t)['phase'] == 'air':
            werr.append(math.hypot(float(x['VWN']) - wn, float(x['VWE']) - we))
    # measured 0.16 m/s RMS (max 0.27): the same states as WIND's
    check(len(werr) > 2000 and fr.rms(werr) < 0.5,
          'XKF2 (10 Hz) wind against the simulator\'s (%.1f, %.1f m/s N, E): %d records, '
          'vector error RMS %.2f m/s (max %.2f)' % (wn, we, len(werr), fr.rms(werr), max(werr or [0])))
    ratio, aerr = [], []
    for x in log_rows(fulmar_log, path, 'ARSP'):
        t = int(x['TimeUS']) / 1e6
        r = at(tr, t)
        if t > t0 and r['phase'] == 'air' and r['as'] > 5:
            ratio.append(float(x['Airspeed']) / r['as'])
    k = sum(ratio) / max(1, len(ratio))
    for x in log_rows(fulmar_log, path, 'ARSP'):
        t = int(x['TimeUS']) / 1e6
        r = at(tr, t)
        if t > t0 and r['phase'] == 'air' and r['as'] > 5:
            aerr.append(float(x['Airspeed']) - k * r['as'])
    # ARSP's Airspeed is the indicated (equivalent) airspeed, the truth's the true one: at
    # the field's 584 m their ratio is sqrt(rho/rho0), 0.971 in the ISA; the rest is the
    # simulated sensor's noise and the flow's angle to the pitot: measured 0.970 and
    # 0.09 m/s RMS.
    check(len(ratio) > 2000 and 0.96 < k < 0.98 and fr.rms(aerr) < 0.3,
          'ARSP (10 Hz) against the truth\'s airspeed: %d records, EAS/TAS %.3f, RMS %.2f m/s '
          'about it' % (len(ratio), k, fr.rms(aerr)))


def case_demo(fulmard, sim, fulmar_log=None):
    """The flight tools/demo shows, in its world (flight_report.DEMO_WORLD: 5 m/s from the
    east, turbulence 3, seed 1), scored as tools/demo scores it (--check demo)."""
    f = Flight(fulmard, sim, 'demo', sim_args=fr.demo_sim_args())
    f.wait_end()
    truth, events, s = f.report('demo')
    # ArduPlane's words as the flare begins, once, before the touchdown, with the truth's
    # ground speed then (the estimator's, so within a little of it)
    flares = [(t, m) for t, txt in events
              for m in [re.match(r'Flare (-?[0-9.]+)m sink=(-?[0-9.]+) speed=([0-9.]+) dist=(-?[0-9.]+)$', txt)]
              if m]
    ok = len(flares) == 1 and 'touchdown_t' in s and flares[0][0] < s['touchdown_t']
    if ok:
        t, m = flares[0]
        r = at(truth, t)
        gs = math.hypot(r['vn'], r['ve'])
        ok = 0.0 < float(m.group(1)) < 6.0 and abs(float(m.group(3)) - gs) < 1.0
    check(ok, 'one "Flare" message before the touchdown (%.3f s), its ground speed the truth\'s: %s' % (
        s.get('touchdown_t', float('nan')), ['%.3f s: %s' % (t, m.group(0)) for t, m in flares]))
    if fulmar_log:
        bins = sorted(x for x in os.listdir(os.path.join(f.dir, 'logs')) if x.endswith('.BIN'))
        check(len(bins) == 1, 'one flight log: %s' % bins)
        rc, counts, last, _ = log_info(fulmar_log, os.path.join(f.dir, 'logs', bins[0]))
        want = ('ATT', 'GPS', 'IMU', 'BARO', 'POS', 'CTUN', 'NTUN', 'RCOU', 'BAT', 'CMD',
                'XKF1', 'XKF2', 'XKF3', 'XKF4', 'ARSP', 'MAG', 'TECS', 'VIBE', 'POWR', 'ORGN',
                'PARM', 'MODE', 'EV', 'PM', 'MSG')
        check(rc == 0 and all(counts.get(t, 0) > 0 for t in want),
              'the log opens and holds every kind of record: %s' %
              ', '.join('%s %d' % (t, counts.get(t, 0)) for t in want))
        check(counts.get('ATT', 0) > 25 * 400, 'attitude at 25 Hz for the flight: %d' % counts.get('ATT', 0))


# The estimator's health bits (src/estim/estim.h, enum estim_health), as the log's XKF4.SS has them.
EKF_BARO_USED, EKF_MAG_USED, EKF_AIRSPEED_USED = 1 << 9, 1 << 7, 1 << 12


def log_rows(fulmar_log, path, kind):
    """fulmar-log dump --csv of one record type: [{field: text}]."""
    out = subprocess.run([fulmar_log, 'dump', '--csv', '--type', kind, path], capture_output=True, text=True)
    lines = out.stdout.splitlines()
    if out.returncode or not lines:
        return []
    head = lines[0].split(',')
    return [dict(zip(head, ln.split(','))) for ln in lines[1:]]


def demo_at_rate(fulmard, sim, fulmar_log, hz, frame_hz, all_fresh=False, physics_hz=None):
    """The demo (DEMO_WORLD, scored against CHECKS['demo_rate']) with HIL_SENSOR at hz in lock-step
    frames of frame_hz, optionally with every field marked fresh in every message (as other
    simulators send it). fulmar-sim's physics steps at the same rate, or at physics_hz with
    --sensor-hz hz (each HIL_SENSOR the mean of the IMU's samples since the last, the
    board's way: tests/board/README.md, "The HIL rate"). The estimator takes
    every rate by its time stamps: tilt and heading within 1.5 s of the first sample, no GPS
    glitch, and in the air (from a second after the throw) the barometer, compass and
    airspeed fused (XKF4.SS) and inside their gates (SH, SM, SVT under 1) in every log
    record."""
    args = fr.demo_sim_args() + ['--imu-hz', str(physics_hz or hz), '--frame-hz', str(frame_hz)]
    if physics_hz:
        args += ['--sensor-hz', str(hz)]
    if all_fresh:
        args.append('--all-fresh')
    f = Flight(fulmard, sim, 'demo%d' % hz, sim_args=args)
    f.wait_end()
    truth, events, s = f.report('demo_rate')
    aligned = event_time(events, 'EKF: tilt alignment complete')
    yaw = event_time(events, 'EKF: yaw alignment complete')
    check(aligned is not None and yaw is not None and yaw <= 1.5,
          'HIL_SENSOR at %d Hz%s%s: tilt and heading aligned at %s s' % (
              hz, ', every field fresh' if all_fresh else '',
              ' of %d Hz physics' % physics_hz if physics_hz else '', yaw))
    glitches = [t for t, txt in events if txt == 'EKF: GPS glitch']
    check(not glitches, 'no GPS glitch: %d' % len(glitches))
    if not fulmar_log:
        return
    logs = os.path.join(f.dir, 'logs')
    bins = sorted(x for x in os.listdir(logs) if x.endswith('.BIN')) if os.path.isdir(logs) else []
    rows = log_rows(fulmar_log, os.path.join(logs, bins[0]), 'XKF4') if bins else []
    # from a second after it left the hand (airspeed is fused from 7 m/s, on the way there)
    flying = next((r['t'] for r in truth if r['phase'] == 'air'), 0.0) + 1.0
    air = [r for r in rows if int(r['TimeUS']) / 1e6 > flying and
           at(truth, int(r['TimeUS']) / 1e6)['phase'] == 'air']
    want = EKF_BARO_USED | EKF_MAG_USED | EKF_AIRSPEED_USED
    fused = [r for r in air if int(r['SS']) & want == want]
    gated = [r for r in air if max(float(r['SH']), float(r['SM']), float(r['SVT'])) < 1.0]
    check(len(air) > 3000 and len(fused) == len(air) and len(gated) == len(air),
          'in the air, XKF4: barometer, compass and airspeed fused in %d of %d records, inside their '
          'gates in %d (largest test ratios: height %.2f, compass %.2f, airspeed %.2f)' % (
              len(fused), len(air), len(gated), max((float(r['SH']) for r in air), default=-1),
              max((float(r['SM']) for r in air), default=-1),
              max((float(r['SVT']) for r in air), default=-1)))


def case_log_download(fulmard, sim, fulmar_log=None):
    """A ground station lists the logs and downloads the one being written, over MAVLink,
    while the plane flies: the bytes are the file's.

    The ground station (this script) asks and waits on the wall clock while the lock-step
    flight runs on at its own pace; fulmard answers only while the simulator steps it, so
    the simulator flies on long after (--duration 3600: 15 s of wall clock or more after
    the request, even at lock-step's fastest, 200x), and the waits end on the answer, the
    flight's end, or LINK_WAIT_S."""
    LINK_WAIT_S = 60
    f = Flight(fulmard, sim, 'download', sim_args=('--wind', '5,90'), gcs=True, duration=3600)
    f.wait(lambda ev: event_time(ev, 'reached waypoint #2') is not None)
    g = f.gcs

    def until(done):
        end = time.time() + LINK_WAIT_S
        while not done() and time.time() < end and f.sim.poll() is None and f.daemon.poll() is None:
            time.sleep(0.02)
        if not done():
            print('  (no answer: %s)' % ('the flight ended' if time.time() < end else
                                        '%d s of wall clock passed' % LINK_WAIT_S))

    g.send(117, struct.pack('<HHBB', 0, 0xFFFF, 1, 1), 128)          # LOG_REQUEST_LIST
    entries = []

    def listed():
        entries[:] = [struct.unpack('<IIHHH', p[:14]) for m, p in list(g.msgs) if m == 118]
        return bool(entries)
    until(listed)
    check(len(entries) == 1 and entries[0][2] == 1 and entries[0][3] == 1 and entries[0][1] > 0,
          'LOG_ENTRY: %s' % (entries[:1],))
    want = 20 * 90
    g.send(119, struct.pack('<IIHBB', 0, want, 1, 1, 1), 116)         # LOG_REQUEST_DATA
    data, seen = {}, [0]

    def downloaded():
        new = g.msgs[seen[0]:]
        seen[0] += len(new)
        for m, p in new:
            if m == 120:
                ofs, lid, count = struct.unpack('<IHB', p[:7])
                data[ofs] = p[7:7 + count]
        return sum(len(v) for v in data.values()) >= want
    until(downloaded)
    g.send(122, struct.pack('<BB', 1, 1), 203)                        # LOG_REQUEST_END
    f.stop()
    got = b''.join(data[k] for k in sorted(data))
    with open(os.path.join(f.dir, 'logs', '1.BIN'), 'rb') as fh:
        disk = fh.read(len(got))
    diff = [i for i in range(min(len(got), len(disk))) if got[i] != disk[i]]
    check(len(got) == want and got == disk, 'LOG_DATA: %d bytes, the same as on disk%s' % (
        len(got), '' if not diff else ' (%d differ, first at %d: %s vs %s)' % (
            len(diff), diff[0], got[diff[0]:diff[0] + 16].hex(), disk[diff[0]:diff[0] + 16].hex())))


def case_log_crash(fulmard, sim, fulmar_log):
    """fulmard killed (SIGKILL) mid-flight: its log opens and holds data up to within a
    second of the kill."""
    f = Flight(fulmard, sim, 'crash', sim_args=('--wind', '5,90'))
    f.wait(lambda ev: event_time(ev, 'reached waypoint #3') is not None)
    f.daemon.send_signal(signal.SIGKILL)
    f.daemon.wait()
    killed_at = max(t for t, _ in f.events())
    truth, _, _ = f.stop()
    sim_end = truth[-1]['t']   # lock-step: the simulator stops where the daemon stopped
    path = os.path.join(f.dir, 'logs', '1.BIN')
    rc, counts, last, text = log_info(fulmar_log, path)
    check(rc == 0 and counts.get('ATT', 0) > 0, 'the log of a killed fulmard opens: %d ATT records'
          % counts.get('ATT', 0))
    check(sim_end - last < 1.0, 'and ends %.2f s before the kill (%.2f s; last event %.2f s)'
          % (sim_end - last, sim_end, killed_at))


def case_late_loops(fulmard, sim, fulmar_log):
    """Late-loop forensics in lock-step, a CI-sized soak: the demo's first 100 s (the
    throw, the climb and the first leg) while a test fault (--test-burn 6000,60,62) makes
    the main thread's flight task run 6 ms in every loop from 60 to 62 s, over twice the
    2.5 ms period each time. Every such loop leaves a LATE record in the flight log naming
    the task and its time, the timing report counts them by cause and task, and
    fulmar-log's summary sums them up. Every 10 s each thread's PMT record counts them
    too, with the window's longest run. (In lock-step only run time can be late; a busy
    host may add late loops of its own, which are not judged.)"""
    f = Flight(fulmard, sim, 'late', sim_args=fr.demo_sim_args(), duration=100,
               daemon_args=('--test-burn', '6000,60,62'))
    f.wait_end()
    truth, events, _ = f.stop()
    log = open(f.log, errors='replace').read()
    m = re.search(r'main: (\d+) loops over 2x, where the time went:([^\n]*)', log)
    check(m is not None, 'the timing report says where the main loop\'s late loops went: %s' %
          (m.group(0) if m else None))
    named = re.search(r'a task ran long (\d+) \(longest ([\d.]+) ms[^)]*; flight (\d+)',
                      m.group(2)) if m else None
    n_flight = int(named.group(3)) if named else 0
    # 60-62 s at 400 Hz: 800 loops, give or take the window's edges
    check(named is not None and n_flight >= 790,
          'and names the task that ran long: flight, in %d loops' % n_flight)
    path = os.path.join(f.dir, 'logs', '1.BIN')
    out = subprocess.run([fulmar_log, 'dump', '--csv', '--type', 'LATE', '--from', '60', '--to', '62.1',
                          path], capture_output=True, text=True)
    recs = list(csv.DictReader(io.StringIO(out.stdout)))
    burnt = [r for r in recs if r.get('Thr') == '2' and r.get('Task') == 'flight' and
             r.get('Cause') == '0' and float(r.get('TkT', 0)) >= 6000]
    check(out.returncode == 0 and len(burnt) >= 790,
          'the flight log holds a LATE record for each: %d of main, cause 0 (a task ran long), '
          'task flight, 6 ms or more (%s)' % (len(burnt), out.stderr.strip() or 'fulmar-log ok'))
    summ = subprocess.run([fulmar_log, 'summary', path], capture_output=True, text=True).stdout
    line = next((ln.strip() for ln in summ.splitlines() if ln.strip().startswith('main  a task ran long')), None)
    check(line is not None and '; flight ' in line, 'fulmar-log summary sums them up: %s' % line)
    # PMT, every thread's loops every 10 s (tools/soak's per-minute table): main's records
    # hold the burnt loops as over 2x, and a run of 6 ms or more as the window's worst (the
    # log opens at the arming, 20 s in: 7 or 8 records of main in 100 s).
    out = subprocess.run([fulmar_log, 'dump', '--csv', '--type', 'PMT', path], capture_output=True,
                         text=True)
    pmt = list(csv.DictReader(io.StringIO(out.stdout)))
    main = [r for r in pmt if r.get('Thr') == '2']
    over_2x = sum(int(r['NL2x']) for r in main)
    worst = max((int(r['MaxR']) for r in main), default=0)
    threads = sorted({r.get('Thr') for r in pmt})
    check(out.returncode == 0 and threads == ['1', '2', '3', '4', '5', '6'] and len(main) >= 5 and
          over_2x >= 790 and worst >= 6000,
          'PMT records of every thread (%s), %d of main holding %d loops over 2x, the longest run '
          '%d us' % (','.join(threads), len(main), over_2x, worst))
    row = next((ln.strip() for ln in summ.splitlines() if ln.strip().startswith('main ') and
                'over 1.5x' in ln), None)
    check(row is not None, 'fulmar-log summary gives each thread\'s loops: %s' % row)


def case_determinism(fulmard, sim, fulmar_log=None):
    """The same seed, the same flight: two lock-step runs of the demo, byte for byte from
    the start to the simulator's end (--end-landed after the landing), and the same
    waypoints at the same times."""
    runs = []
    for i in range(2):
        # The second run as over a link that loses frames or answers: the simulator sends a
        # frame again whenever its answer takes over 0.1 ms (in practice about 1 ms, poll's
        # resolution), and fulmard answers it again. Nothing of the flight may change.
        f = Flight(fulmard, sim, 'det%d' % i, sim_args=fr.demo_sim_args() + (['--resend-s', '0.0001'] if i else []))
        f.wait_end()
        f.stop()
        with open(f.truth) as t:
            lines = t.read().split('\n')
        runs.append((lines, [e for e in f.events() if 'reached' in e[1] or 'Landed' in e[1]]))
    with open(f.sim_err.name) as e:
        m = re.search(r'; (\d+) frames sent again', e.read())
    with open(f.log) as e:
        again = 'sent its frame for' in e.read()
    check(m and int(m.group(1)) > 0 and again,
          'the second run had frames sent again (%s) and answered again (%s)' % (m and m.group(1), again))
    end = next((float(t) for t, txt in runs[0][1] if 'Landed' in txt), None)
    same = next((i for i, (a, b) in enumerate(zip(*(r[0] for r in runs))) if a != b),
                min(len(r[0]) for r in runs))
    check(end is not None and runs[0][0] == runs[1][0],
          'ground truth identical: %d of %d and %d rows, landed at %s s' % (
              same, len(runs[0][0]), len(runs[1][0]), end))
    check(runs[0][1] == runs[1][1], 'the same %d events at the same times' % len(runs[0][1]))


def case_windy(fulmard, sim, fulmar_log=None):
    """The demo mission in 10 m/s from the east with light turbulence (7.7), scored from
    the truth against flight_report.CHECKS['windy'], whose bounds were measured over
    seeds 1-10; this flies seed 1."""
    f = Flight(fulmard, sim, 'windy', sim_args=('--seed', '1', '--wind', '10,90', '--turbulence', '7.7'))
    f.wait_end()
    f.report('windy')


def case_cub_crosswind(fulmard, sim, fulmar_log=None):
    """The cub from its north runway in 10 m/s straight across (from the east, above
    its 9.16 m/s stall), turbulence 3, seed 1, with its own mission files: the circuit
    flown, landed near the land point, disarmed after the stop (no brakes: weathervaned
    into the wind it is blown backwards), and issue 16's takeoff figures. Held there
    2026-12-04 after the takeoff work (measured beside each; seeds 1-4 in
    docs/campaign.md); the touchdown since 2026-12-06 (below)."""
    f = Flight(fulmard, sim, 'cub', mission=CUB['waypoints'],
               base_params=open(CUB['param']).read(), base_timeline=open(CUB['timeline']).read(),
               sim_args=('--airframe', 'cub', '--seed', '1', '--wind', '10,90', '--turbulence', '3'))
    f.wait_end()
    truth, events, _ = f.stop()
    s = fr.score(truth, fr.load_mission(CUB['waypoints']), events, 15.0, fr.wp_radius_of(f.params))
    check(s['laps'] >= 3 and not s['crashed'], '3 laps, no crash (%d laps)' % s['laps'])
    check(s['disarmed_at_end'] and s['motor_off_at_end'], 'disarmed, motor off, at the end')
    # Seeds 1-3 of this flight (2026-12-06, with issue 37's ground handling): touchdown
    # -5.8, +7.1, -4.8 m along and +11.9, +14.2, +11.8 m across [seed 1]; the same seeds
    # hours before it: +7.4, -1.4, -6.9 and +16.3, +10.5, +9.0. Bounds as
    # flight_report.CHECKS' (the worst plus 20 %, at least 3 m, rounded out): 7.4 + 3 m
    # along, 16.3 + 3.3 m across. Across is wide: the cub drifts downwind over its flare in
    # a crosswind of more than its stall speed (docs/campaign.md: with GROUND_STEER_ALT 1
    # it landed +3..+4 m across, a setting not in cub-runway.param).
    check(s['landed'] and abs(s.get('touchdown_along_m', 99)) < 11.0 and
          abs(s.get('touchdown_cross_m', 99)) < 20.0,
          'landed %.1f m along (within 11 m) and %.1f m across (within 20 m) the land point' % (
              s.get('touchdown_along_m', float('nan')), s.get('touchdown_cross_m', float('nan'))))
    # the stall of the airframe that flew, as fulmar-sim measures its model (the truth's)
    stall = s['stall_m_s']
    check(stall is not None and s['airframe'] == 'cub',
          'the truth names the cub and its stall: %s, %s m/s' % (s['airframe'], stall))
    if stall is None:
        return
    armed_t = next((r['t'] for r in truth if r['armed']), None)
    lift = next((r for r in truth if armed_t is not None and r['t'] > armed_t and r['h'] > 2.0), None)
    check(lift is not None, 'it took off (%s)' % (lift and '%.1f s' % lift['t']))
    if lift is None:
        return
    roll = [r for r in truth if armed_t < r['t'] < lift['t']]
    off_line = max(abs(r['e']) for r in roll)
    check(off_line < 8.0, 'the roll within 8 m of the centre line: %.1f m' % off_line)   # 2.6 m
    peak = max(r['h'] for r in truth if lift['t'] < r['t'] < lift['t'] + 40)
    check(peak < 40 + 9, 'the climb-out peaks under 49 m (takeoff height 40): %.1f m' % peak)  # 46.3 m
    climb = [r for r in truth if r['t'] > lift['t'] + 3 and r['h'] > 5 and r['phase'] == 'air']
    slowest = min(r['as'] for r in climb)
    check(slowest >= 1.3 * stall, 'airspeed after the takeoff over 1.3 x the stall (%.2f): %.2f m/s'
          % (1.3 * stall, slowest))   # 12.01 m/s
    bank = max(abs(r['roll']) for r in climb)
    check(bank <= 45 + 5, 'bank within LIM_ROLL_CD + 5 (50 deg): %.1f deg' % bank)   # 45.8 deg


def case_gps_loss(fulmard, sim, fulmar_log=None):
    """30 s without GPS in the first lap: dead reckoning, the mission goes on and lands.
    Scored against flight_report.CHECKS['gps_loss'] (bounds measured over seeds 1-10;
    this flies seed 1)."""
    f = Flight(fulmard, sim, 'gps', sim_args=('--seed', '1', '--wind', '5,90'),
               timeline_extra=('100 gps_loss 30',))
    f.wait_end()
    truth, events, s = f.report('gps_loss')
    lost, back = event_time(events, 'GPS lost'), event_time(events, 'using GPS.*|EKF: using GPS')
    check(lost is not None and 100 <= lost <= 106, 'the estimator says GPS is lost (at %s s)' % lost)
    check(any(100 < t < 135 for t, txt in events if txt == 'EKF: using GPS'),
          'and takes it back when it returns')


def pitot_fault(fulmard, sim, name, fault, t0):
    """The demo's world with the pitot failing at t0 (fulmar-sim's time-line `pitot ...`):
    fulmard declares the sensor unhealthy, says so as ArduPlane does, flies on the
    synthetic airspeed (ground velocity less the estimated wind), completes the mission
    and lands within the demo's bounds (flight_report.CHECKS[name]), never near the stall."""
    f = Flight(fulmard, sim, name, sim_args=fr.demo_sim_args(),
               timeline_extra=('%d pitot %s' % (t0, fault),))
    f.wait_end()
    truth, events, s = f.report(name)
    off = event_time(events, r'^Airspeed sensor 1 failure\. Disabling$')
    check(off is not None and t0 < off < t0 + 120,
          'the airspeed sensor is declared unhealthy (at %s s; the fault at %d s)' % (off, t0))
    check(not any(txt.startswith('Airspeed sensor 1 now OK') for t, txt in events),
          'and not used again while it lies')
    return truth, events, s, off


def case_pitot_block(fulmard, sim, fulmar_log=None):
    """The pitot's port blocked in the first lap, leaking with a 60 s time constant (its
    reading creeps to zero, and moves with the height), until the end of the flight."""
    pitot_fault(fulmard, sim, 'pitot_block', 'block 600 60', 120)


def case_pitot_off(fulmard, sim, fulmar_log=None):
    """The pitot's tube off the sensor in the first lap (it reads its noise about zero)
    until the end of the flight."""
    pitot_fault(fulmard, sim, 'pitot_off', 'off 600', 120)


def case_low_battery(fulmard, sim, fulmar_log=None):
    """The battery runs low in the second lap: it lands at the DO_LAND_START sequence."""
    f = Flight(fulmard, sim, 'batt', sim_args=('--wind', '5,90'), params=('FS_BATT_MAH,400',))
    f.wait_end()
    truth, events, s = f.stop()
    s = fr.score(truth, fr.load_mission(MISSION), events, 15.0, fr.wp_radius_of(f.params))
    t = event_time(events, 'Battery failsafe')
    check(t is not None, 'battery failsafe at %s s' % t)
    check(s['laps'] < 3 and s['landed'] and s['disarmed_at_end'],
          'cut the circuit short (%d laps), landed and disarmed' % s['laps'])
    check(abs(s.get('touchdown_along_m', 99)) < 20, 'on the field: %.1f m from the land point'
          % s.get('touchdown_along_m', 99))


def case_failed_launch(fulmard, sim, fulmar_log=None):
    """A throw too weak to fly (6 m/s out of the hand, stall about 10; at full power 0.2 s
    after the throw, missions/cmac-circuit.param's TKOFF_THR_SLEW -1, 7 and 8 m/s fly): the
    plane falls onto the field while the launch detector (more than 4 m/s over the ground)
    has already started the motor. fulmard must see that it is not flying (CRASH_DETECT),
    say so and disarm: the motor off within 3 s of the plane coming to rest on the ground,
    and off from then on. The fall hits at about 5 m/s, the simulator's crash speed, and
    whether it counts as a crash there is beside the point: the simulation goes on after
    one (--on-crash continue), for what fulmard does next."""
    f = Flight(fulmard, sim, 'failed-launch', duration=60, sim_args=('--on-crash', 'continue'),
               base_timeline=open(TIMELINE).read().replace('26 throw', '26 throw 6'))
    f.wait_end()
    truth, events, _ = f.stop()
    crash = event_time(events, 'Crash')
    down = next((r['t'] for r in truth if r['t'] > 26 and r['ground']), None)
    check(down is not None, 'the weak throw ends on the ground (at %s s)' % down)
    if down is None:
        return
    rest = next((r['t'] for r in truth if r['t'] > down and math.hypot(r['vn'], r['ve']) < 0.5),
                None)
    check(rest is not None, 'the plane comes to rest (at %s s)' % rest)
    check(crash is not None and crash > 26, 'fulmard says the crash (at %s s)' % crash)
    late = [r for r in truth if rest is not None and r['t'] > rest + 3.0]
    check(bool(late) and all(not r['armed'] and r['thr'] == 0.0 for r in late),
          'disarmed, motor off, from 3 s after coming to rest (%s s) to the end (%.0f s)' %
          (rest, truth[-1]['t']))
    print('  down %.1f s, at rest %s s, "Crash" said at %s s, peak throttle on the ground %.2f' %
          (down, rest, crash, max((r['thr'] for r in truth if r['t'] > down and r['ground']),
                                  default=0.0)))


def case_rc_loss(fulmard, sim, fulmar_log=None):
    """The pilot flies FBWA; the transmitter goes quiet: CIRCLE at 1.5 s, RTL at 5 s, then back."""
    f = Flight(fulmard, sim, 'rc', sim_args=('--wind', '5,90'),
               timeline_extra=('60 rc 8=1300', '90 rc off', '130 rc on'), duration=160)
    f.wait_end()
    truth, events, _ = f.stop()
    fbwa = event_time(events, 'mode FBWA')
    circle = event_time(events, 'RC short failsafe')
    rtl = event_time(events, 'RC long failsafe: RTL')
    cleared = event_time(events, 'RC failsafe cleared')
    check(fbwa is not None and 60 <= fbwa < 61, 'FBWA from the switch (%s s)' % fbwa)
    # the last frame before 90 s came at most 20 ms before it
    check(circle is not None and 91.3 <= circle <= 91.8, 'short failsafe: CIRCLE 1.5 s after (%s s)'
          % circle)
    check(rtl is not None and 94.8 <= rtl <= 95.3, 'long failsafe: RTL 5 s after (%s s)' % rtl)
    check(cleared is not None and 130 <= cleared < 131, 'cleared when RC returns (%s s)' % cleared)
    r = at(truth, 129)
    check(r['phase'] == 'air' and r['h'] > 20 and math.hypot(r['n'], r['e']) < 250,
          'flying home safely when RC returns: %.0f m up, %.0f m from home' %
          (r['h'], math.hypot(r['n'], r['e'])))


def case_modes(fulmard, sim, fulmar_log=None):
    """A scripted pilot: FBWA holds the bank it is given and levels on centred sticks, LOITER
    circles within 5 m RMS of its radius, MANUAL passes the sticks through."""
    f = Flight(fulmard, sim, 'modes', sim_args=('--wind', '5,90'),
               timeline_extra=('60 rc 8=1300 1=1700', '75 rc 1=1500', '90 rc 8=1400',
                               '170 rc 8=1000 1=1600 3=1500', '172 rc 1=1500'), duration=174)
    f.wait_end()
    truth, events, _ = f.stop()
    bank = [r['roll'] for r in truth if 68 <= r['t'] <= 75]
    want = 0.5 * 45
    check(bank and all(abs(b - want) < 3 for b in bank),
          'FBWA holds %.1f deg of bank for half stick: %.1f..%.1f' % (want, min(bank), max(bank)))
    level = [r['roll'] for r in truth if 82 <= r['t'] <= 90]
    check(level and all(abs(b) < 3 for b in level), 'and levels the wings on centred sticks: max %.1f'
          % max(abs(b) for b in level))
    t0 = event_time(events, 'mode LOITER')
    check(t0 is not None and 90 <= t0 < 91, 'LOITER from the switch at %s s' % t0)
    c = at(truth, t0)
    radius = [math.hypot(r['n'] - c['n'], r['e'] - c['e']) for r in truth if 120 <= r['t'] <= 170]
    err = fr.rms([x - 60 for x in radius])
    # the circle is centred where LOITER began; its centre is where the plane was
    check(err < 5.0, 'LOITER radius error RMS %.2f m (60 m circle)' % err)
    man = [r['ail'] for r in truth if 170.3 <= r['t'] <= 172]
    check(man and all(abs(a - 0.2) < 0.02 for a in man),
          'MANUAL: the aileron follows the stick (1600 us: 0.2 of travel): %.3f..%.3f' %
          (min(man or [0]), max(man or [0])))


# Places with large declinations (WMM2025 at 2026-12-04): name, --home, the declination there.
WMM_PLACES = (('the CMAC field, Australia', '-35.363261,149.165230,584', 12.7),
              ('Whitehorse, Yukon', '60.72,-135.06,700', 17.8),
              ('St. John\'s, Newfoundland', '47.56,-52.71,100', -16.3),
              ('Johannesburg, South Africa', '-26.2,28.0,1700', -20.8),
              ('Rio de Janeiro, Brazil', '-22.9,-43.2,10', -23.0),
              ('Christchurch, New Zealand', '-43.53,172.64,40', 24.7),
              ('Tromso, Norway', '69.65,18.96,10', 11.3))


# fulmar-sim's compass hard iron, body x and y (tools/sim/sensors.c: 0.05, -0.03 gauss), nT.
SIM_HARD_IRON_NT = (5000.0, -3000.0)
SIM_DATE_YEAR = 2026.0 + 337.0 / 365.0   # SIM_DATE as a decimal year
spec = importlib.util.spec_from_file_location('wmm_gen', os.path.join(ROOT, 'tools', 'wmm', 'wmm_gen.py'))
wmm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(wmm)
wmm_epoch, _, wmm_coefs = wmm.read_cof(os.path.join(ROOT, 'tools', 'wmm', 'WMM2025.COF'))


def case_wmm_arming(fulmard, sim, fulmar_log=None):
    """Issue 16: with the default parameters (COMPASS_AUTODEC 1) a plane on the ground takes
    the declination from the world magnetic model at its first 3D fix and arms within 30 s of
    that fix, wherever it is: the pilot holds the rudder-arming stick from 1 s (fulmard tries
    every 3 s held), and fulmard's heading is checked against the truth at arming."""
    # The demonstration's parameters but the declination's (the defaults, as shipped).
    base = ''.join(ln for ln in open(PARAMS) if not ln.startswith('COMPASS_'))
    for name, home, decl in WMM_PLACES:
        f = Flight(fulmard, sim, 'wmm', sim_args=('--home', home, '--heading', '70'),
                   base_params=base, base_timeline='1 rc 3=1000 4=2000\n', duration=32,
                   gcs=name == WMM_PLACES[0][0])
        # 32 simulated seconds: 30 after a fix at the start and the log's time to be written
        f.wait_end()
        truth, events, _ = f.stop()
        said = next(((t, txt) for t, txt in events if txt.startswith('Compass: declination')), None)
        armed = event_time(events, '^armed$')
        refused = [txt for _, txt in events if 'PreArm' in txt or 'Check mag' in txt]
        got = float(re.search(r'declination (-?[\d.]+) deg', said[1]).group(1)) if said else None
        check(got is not None and abs(got - decl) < 0.5,
              '%s: declination %s deg from the model at the first fix (%.1f there)' % (name, got, decl))
        if said is None or armed is None:
            check(False, '%s: armed (%s; refusals: %s)' % (name, armed, refused[-3:]))
            continue
        dt = armed - said[0]
        check(0 <= dt <= 30.0, '%s: armed %.1f s after the first 3D fix (%.1f s)' % (name, dt, said[0]))
        if f.gcs:
            told = [t for t in f.gcs.texts if t.startswith('Compass: declination')]
            check(told == ['Compass: declination %.1f deg from WMM' % got],
                  'the ground station is told (STATUSTEXT): %s' % told)
        conv = event_time(events, 'EKF: converged')
        print('  %s: estimator converged %.1f s after the fix; refused before arming: %s' % (
            name, conv - said[0] if conv is not None else float('nan'), sorted(set(refused))))
        if not fulmar_log:
            continue
        logs = os.path.join(f.dir, 'logs')
        bins = sorted(x for x in os.listdir(logs) if x.endswith('.BIN')) if os.path.isdir(logs) else []
        att = log_rows(fulmar_log, os.path.join(logs, bins[0]), 'ATT') if bins else []
        if not att:
            check(False, '%s: the log holds the attitude at arming' % name)
            continue
        t = int(att[0]['TimeUS']) * 1e-6
        err = (float(att[0]['Yaw']) - at(truth, t)['yaw'] + 180.0) % 360.0 - 180.0
        # On the ground the compass's hard iron (fulmar-sim's default, tools/sim/sensors.c)
        # cannot be told from the earth's field: it turns the heading by what it adds to
        # the horizontal field there, which no declination corrects. The heading is off
        # by that (from the model's field at home), not by the declination as well.
        lat, lon, alt = (float(v) for v in home.split(','))
        X, Y, _ = wmm.field(wmm_coefs, wmm_epoch, lat, lon, alt * 1e-3, SIM_DATE_YEAR)
        yaw = math.radians(at(truth, t)['yaw'])
        bx = X * math.cos(yaw) + Y * math.sin(yaw)
        by = -X * math.sin(yaw) + Y * math.cos(yaw)
        iron = (math.degrees(math.atan2(by, bx) - math.atan2(by + SIM_HARD_IRON_NT[1], bx + SIM_HARD_IRON_NT[0]))
                + 180.0) % 360.0 - 180.0
        check(abs(err - iron) < 4.0, '%s: the heading at arming %.1f deg off the truth, of which '
              'the hard iron %.1f' % (name, err, iron))


AIR_MISSION = os.path.join(ROOT, 'missions', 'cmac-air.waypoints')


def case_air_start(fulmard, sim, fulmar_log=None):
    """Issue 16's in-flight start: the skywalker starts gliding 100 m up at 20 m/s, motor
    off (fulmar-sim --air-start 100,20), in the demo's world (5 m/s from the east,
    turbulence 3, seed 1), with the mode switch in AUTO; the pilot holds the rudder to arm
    (missions/cmac-air.timeline). fulmard must align in the air within 5 s, keep the
    mission's home, go past the takeoff it is above, fly the three laps and land, scored
    from the truth against flight_report.CHECKS['air']."""
    f = Flight(fulmard, sim, 'air', sim_args=['--air-start', '100,20'] + fr.demo_sim_args(),
               base_params=open(os.path.join(ROOT, 'missions', 'cmac-air.param')).read(),
               base_timeline=open(os.path.join(ROOT, 'missions', 'cmac-air.timeline')).read(),
               mission=AIR_MISSION)
    f.wait_end()
    truth, events, s = f.report('air')
    aligned = event_time(events, r'^EKF: tilt alignment complete')
    flying_mode = next((t for t, txt in events if txt.startswith('mode ')), None)
    check(aligned is not None and aligned < 5.0,
          'the estimator aligned in the air %s s after the start (within 5 s)' % aligned)
    check(flying_mode is not None and flying_mode < 5.0,
          'its attitude valid (out of INITIALISING, into %s) %s s after the start' % (
              next((txt[5:] for t, txt in events if txt.startswith('mode ')), None), flying_mode))
    check(truth[0]['phase'] == 'air' and at(truth, aligned or 0.0)['h'] > 80,
          'still gliding when aligned: %.1f m up' % at(truth, aligned or 0.0)['h'])
    kept = event_time(events, r'home kept')
    armed = event_time(events, r'^armed$')
    check(kept is not None and armed is not None and kept < armed,
          "the mission's home kept (at %s s), before the pilot armed (at %s s)" % (kept, armed))
    # by the truth (flight_report.truth_passes): above the takeoff's 40 m from the start,
    # then within WP_RADIUS of the circuit's first corner
    check(s['waypoints_reached'][:2] == [1, 2], 'the takeoff (item 1) passed at once, then the '
          'circuit: %s (fulmard says %s)' % (s['waypoints_reached'][:3],
                                             s['waypoints_reached_log'][:3]))


def case_gcs_loss(fulmard, sim, fulmar_log=None):
    """In real time: a ground station's heartbeats stop; after FS_LONG_TIMEOUT, RTL
    (FS_LONG_ACTN 1: also from AUTO, where 0 would fly the mission on).

    The one flight here on the wall clock: the ground station is this script, whose
    heartbeats go by the wall clock, and in lock-step the daemon's clock would run a
    hundred times faster than they. The delay is timed from the last heartbeat that
    actually went (not from when the script decided to stop), so a busy host cannot make
    it look early; late, it has 3 s of slack for the daemon's log line and this script's
    polling of it to come through."""
    f = Flight(fulmard, sim, 'gcs', realtime=True, gcs=True,
               params=('FS_GCS_ENABL,1', 'FS_LONG_ACTN,1'),
               duration=60)
    f.wait(lambda ev: event_time(ev, 'mode AUTO') is not None, wall_s=30,
           what='mode AUTO')
    time.sleep(2)
    f.gcs.beating = False
    check(f.gcs.quiet.wait(5) and f.gcs.last_beat is not None, 'the heartbeats stop')
    stopped = f.gcs.last_beat or time.time()
    failsafes = lambda ev: [txt for _, txt in ev if txt.startswith('GCS failsafe:')]
    early = len(failsafes(f.events()))
    check(early == 0, 'no failsafe while the heartbeats went (else this script was kept '
          'from the CPU for 5 s): %d' % early)
    f.wait(lambda ev: len(failsafes(ev)) > early, wall_s=15, what=None)
    waited = time.time() - stopped
    truth, events, _ = f.stop()
    check(failsafes(events)[early:early + 1] == ['GCS failsafe: RTL'],
          'GCS failsafe: RTL %.1f s after the last heartbeat (FS_LONG_TIMEOUT 5 s)' % waited)
    check(4.5 <= waited <= 8.0, 'within its timeout')


def case_rc_stall(fulmard, sim, fulmar_log=None):
    """In real time: the simulator stalls (SIGSTOP) for 2.5 s on the ground, in AUTO before
    the pilot arms, as one starved of the CPU does, and then runs at 40 % for 3 s. Its RC
    frames stop with everything else, so the RC short failsafe comes (FS_SHORT_TIMEOUT 1.5 s)
    as it would on a real receiver; when the simulator runs again its time goes on from where
    it stopped, behind the wall clock, fulmard re-anchors its clock to it and the failsafe
    clears, as ArduPlane's does when frames return, and stays cleared while the simulator
    crawls: its frames are judged on its own clock. The estimator keeps its position through
    it all (no "No position estimate"). Every verdict is an event in order, none a
    wall-clock bound: a busier host only makes the stall longer. (Before: the failsafe
    never cleared, and the pilot could never arm.)"""
    f = Flight(fulmard, sim, 'stall', realtime=True, sim_args=fr.demo_sim_args(), duration=60)
    f.wait(lambda ev: event_time(ev, 'mode AUTO') is not None, what='AUTO')
    time.sleep(2)
    f.sim.send_signal(signal.SIGSTOP)
    time.sleep(2.5)
    f.sim.send_signal(signal.SIGCONT)
    # Then starved for 3 s: it runs 20 ms in every 50, falling behind and skipping ahead
    # as on a busy host, while its RC frames keep coming on its own clock.
    for _ in range(60):
        time.sleep(0.02)
        f.sim.send_signal(signal.SIGSTOP)
        time.sleep(0.03)
        f.sim.send_signal(signal.SIGCONT)
    f.wait(lambda ev: event_time(ev, 'RC failsafe cleared') is not None, wall_s=30,
           what='the failsafe to clear')
    truth, events, _ = f.stop()
    log = open(f.log, errors='replace').read()
    texts = [txt for _, txt in events]
    short = next((i for i, t in enumerate(texts) if t.startswith('RC short failsafe')), None)
    cleared = next((i for i, t in enumerate(texts) if t == 'RC failsafe cleared'), None)
    check(short is not None, 'RC short failsafe while the simulator stood still: %s' %
          (texts[short] if short is not None else None))
    check(cleared is not None and short is not None and cleared > short,
          'and cleared once its data flowed again')
    check('re-anchored' in log, 'the samples\' clock re-anchored to the simulator\'s: %s' %
          next((ln.strip() for ln in log.split('\n') if 're-anchored' in ln), None))
    check(texts.count('RC failsafe cleared') == 1 and
          sum(t.startswith('RC short failsafe') for t in texts) == 1,
          'one failsafe and one clearing, no flapping')
    check(not any('No position' in t or 'GPS lost' in t for t in texts),
          'the estimate kept its position throughout: %s' %
          ([t for t in texts if 'No position' in t or 'GPS lost' in t] or 'yes'))
    modes = [t for t in texts if t.startswith('mode ')]
    check(modes == ['mode MANUAL', 'mode AUTO'], 'AUTO throughout, as the switch says: %s' % modes)


# case_realtime_overload's test fault (fulmard --test-burn US,FROM,TO on the simulator's
# clock): in lap 1, a core of 1800 us in the 2500 us loop leaves too little for the
# streams and the log's records, not for navigation; in lap 2, 2150 us leaves too little
# for navigation as well, which then runs every 20 ms (50 Hz), its least.
BURNS = ((1800, 60.0, 150.0), (2150, 200.0, 260.0))


def case_realtime_overload(fulmard, sim, fulmar_log=None):
    """The demo flight in real time (8 minutes) while `stress-ng --cpu 2` keeps both cores of a
    2-core host busy, with the main loop overloaded twice by a test fault (BURNS). fulmard has
    SCHED_FIFO where it may, fulmar-sim too, below it (sim_in_real_time); where the simulator
    still falls behind and skips ahead, fulmard re-anchors its clock to it. The mission is
    completed and landed: three laps, landed, disarmed, motor off, no crash, no RC
    failsafe. Attitude control keeps its rate: the main loop at 95 % of its 400 Hz or
    more with under 5 % of its loops half a period late over the flight, and 90 % in every 10 s PM record inside an overload (its budget
    is then 86 % burnt: with tools/test's own `stress-ng --cpu 2 --io 1` beside the test's,
    one such record held 3784 loops, 94.6 %, on 2026-12-04). The shedding is
    seen: a STATUSTEXT when each overload begins and one when it is over, and the timing
    report's counts of the streams, log records and navigation deferred. The flight is held
    to CHECKS['realtime_overload']: the demo's real-time bounds (CHECKS['demo_realtime'],
    what tools/demo --realtime exits on), which it met under this load (flight_report.py
    has the figures; a bound loosened there would say why). Suite 'realtime' (native only:
    real time under the sanitizers' slowdown would test them, not fulmard)."""
    load = None
    try:
        load = subprocess.Popen(['stress-ng', '--cpu', '2', '--quiet'], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except OSError as e:
        check(False, 'stress-ng --cpu 2 started (%s)' % e)
        return
    atexit.register(lambda: load.poll() is None and load.terminate())
    burn_args = [a for b in BURNS for a in ('--test-burn', '%d,%g,%g' % b)]
    try:
        f = Flight(fulmard, sim, 'overload', realtime=True, sim_args=fr.demo_sim_args(),
                   duration=1200, gcs=True, daemon_args=burn_args)
        f.wait_end(wall_s=900)
        truth, events, timing = f.stop()
    finally:
        load.terminate()
        load.wait()
    s = fr.score(truth, fr.load_mission(MISSION), events, 15.0, fr.wp_radius_of(f.params))
    fr.score_timing(s, timing)
    print('\n'.join('  ' + ln for ln in fr.summary_text(s, timing).split('\n')))
    bad = fr.check(s, 'realtime_overload')
    for b in bad:
        check(False, "CHECKS['realtime_overload']: %s" % b)
    if not bad:
        check(True, "the %d checks of flight_report.CHECKS['realtime_overload'] hold" %
              len(fr.CHECKS['realtime_overload']))
    sim_log = open(os.path.join(f.dir, 'sim.log'), errors='replace').read()
    print('  fulmar-sim fell behind real time %d times; fulmard re-anchored %d times' % (
        sim_log.count('behind real time'), s['reanchors']))
    log_text = open(f.log, errors='replace').read()
    check('SCHED_FIFO' in log_text and 'SCHED_FIFO not' not in log_text,
          'fulmard ran with SCHED_FIFO (what holding the rate under load rests on)')
    check(s['laps'] >= 3 and s['landed'] and s['disarmed_at_end'] and s['motor_off_at_end'] and
          not s['crashed'], 'completed the mission and landed: %d laps, %s, %s' % (
              s['laps'], 'landed' if s['landed'] else 'NOT LANDED',
              'disarmed' if s['disarmed_at_end'] else 'STILL ARMED'))
    check(s['rc_failsafes'] == 0, 'no RC failsafe: %s' % (s['failsafes'] or 'none'))
    check(s['main_loop_hz'] is not None and s['main_loop_hz'] >= 380.0 and
          s['main_late_frac'] is not None and s['main_late_frac'] < 0.05,
          'main loop %s loops a second (400 configured), %s of them over 1.5x their period' % (
              s['main_loop_hz'], '%.1f %%' % (100 * s['main_late_frac'])
              if s['main_late_frac'] is not None else None))
    # Each overload said once, judged over windows of a second: as it began (the first
    # window with 10 loops shed) and when it was over (two whole windows without). The
    # burns and the lines are timed on the simulator's clock (the log's lines), the windows
    # on the samples' clock, which runs on by what the simulator fell behind whenever
    # fulmard re-anchors to it ("fell 0.248 s behind our clock: its time re-anchored at
    # 260.975 s"): two windows after a burn's end are then as much less on the simulator's
    # clock (seen 2026-12-05 under tools/test's load: said at 261.968 s for a burn ending
    # at 260.0 s). Over no later than one PM record (10 s) after the burn: the host's own
    # load can keep the loop shedding a window or two past it (said at 154.216 s for a burn
    # ending at 150.0 s, 2026-12-05, tools/test's load with a fresh-debian-check beside it,
    # load average 13), which is shedding as it should be, not a late word.
    over = [t for t, txt in events if txt.startswith('Main loop overloaded')]
    back = [t for t, txt in events if txt.startswith('Main loop recovered')]
    anchors = [(float(at), float(by)) for by, at in re.findall(
        r'fell ([0-9.]+) s behind our clock: its time re-anchored at ([0-9.]+) s', log_text)]

    def fell_behind(t0, t1):
        return sum(by for at, by in anchors if t0 <= at <= t1)
    said = all(any(a <= t < a + 2.1 for t in over) for _, a, _ in BURNS) and \
        all(any(b + 2.0 - fell_behind(b, t) <= t < b + 10.0 for t in back) for _, _, b in BURNS)
    check(said and len(over) == len(BURNS) and len(back) == len(BURNS),
          'the overloads said as they began (%s s) and as they ended (%s s)' % (over, back))
    texts = f.gcs.texts if f.gcs else []
    check(sum(t.startswith('Main loop overloaded') for t in texts) == len(BURNS) and
          sum(t.startswith('Main loop recovered') for t in texts) == len(BURNS),
          'and so told the ground station: %s' % [t for t in texts if t.startswith('Main loop')])
    shed = timing.get('shed', {})
    print('  shed: %s' % shed)
    check(all(shed.get(w, {}).get('deferred', 0) > 0 and shed[w].get('runs', 0) > 0
              for w in ('ground-station services', 'log records', 'navigation')),
          'the streams, the log records and (in the heavier overload) navigation were deferred, '
          'and ran: %s' % {w: (v.get('deferred'), v.get('runs')) for w, v in shed.items()})
    # PM (every 10 s): NLoop loops, NLon of them over 1.5 periods late. The records whose
    # 10 s lie inside an overload (their times on the log's clock, the MSG records').
    if fulmar_log:
        # (no logs folder at all where the flight never armed: a failure said above, not a crash)
        logs = os.path.join(f.dir, 'logs')
        bins = sorted(x for x in os.listdir(logs) if x.endswith('.BIN')) if os.path.isdir(logs) else []
        path = os.path.join(logs, bins[0]) if bins else ''
        msgs = log_rows(fulmar_log, path, 'MSG') if path else []
        begun = [int(r['TimeUS']) for r in msgs if 'overloaded' in r.get('Message', '')]
        ended = [int(r['TimeUS']) for r in msgs if 'recovered' in r.get('Message', '')]
        pm = log_rows(fulmar_log, path, 'PM') if path else []
        inside = [r for r in pm for a, b in zip(begun, ended)
                  if a + 10e6 <= int(r['TimeUS']) <= b - 2e6]
        check(len(inside) >= 10 and all(int(r['NLoop']) >= 3600 and int(r['NLon']) < 200
                                        for r in inside),
              'in the overloads, %d PM records: loops per 10 s %s, late %s' % (
                  len(inside), sorted({int(r['NLoop']) for r in inside})[:3],
                  max((int(r['NLon']) for r in inside), default=None)))


# The fence and rally cases: lists as the mission protocol stores them (QGC WPL 110 in the
# state directory, fulmar.fence and fulmar.rally), places in metres north and east of home.
HOME_LAT, HOME_LON = -35.363261, 149.165230
EARTH_R = 6378137.0


def ll_of(n, e):
    return (HOME_LAT + math.degrees(n / EARTH_R),
            HOME_LON + math.degrees(e / (EARTH_R * math.cos(math.radians(HOME_LAT)))))


def wpl(items):
    """items: (command, param1, n, e, alt above home) -> QGC WPL 110 text (frame 3)."""
    lines = ['QGC WPL 110']
    for i, (cmd, p1, n, e, alt) in enumerate(items):
        lat, lon = ll_of(n, e)
        lines.append('%d\t0\t3\t%d\t%g\t0\t0\t0\t%.8f\t%.8f\t%.3f\t1' % (i, cmd, p1, lat, lon, alt))
    return '\n'.join(lines) + '\n'


def inside(poly, n, e):
    c = False
    for i in range(len(poly)):
        (an, ae), (bn, be) = poly[i], poly[i - 1]
        if (an > n) != (bn > n) and e < ae + (n - an) * (be - ae) / (bn - an):
            c = not c
    return c


def fence_status(msgs):
    """(breach_status, breach_count, breach_type) of each FENCE_STATUS received."""
    return [(p[6], struct.unpack('<H', p[4:6])[0], p[7]) for mid, p in msgs if mid == 162]


def geofence_health(msgs):
    """(present, enabled, healthy) of SYS_STATUS's geofence bit, per SYS_STATUS."""
    out = []
    for mid, p in msgs:
        if mid == 1:
            pr, en, he = struct.unpack('<III', p[:12])
            out.append((bool(pr & 0x100000), bool(en & 0x100000), bool(he & 0x100000)))
    return out


def case_fence_polygon(fulmard, sim, fulmar_log=None):
    """Issue 17: an inclusion polygon whose north edge (200 m) cuts the circuit's first
    leg (to 300 m north). The breach is seen, said, logged (ERR 9) and the plane is sent
    home (FENCE_ACTION 1, RTL): it turns back within 80 m of the edge and is inside the
    fence again, loitering, 30 s after. A ground station sees FENCE_STATUS count the
    breach and SYS_STATUS's geofence bit go unhealthy and healthy again."""
    poly = [(-600, -250), (200, -250), (200, 450), (-600, 450)]
    fence = wpl([(5001, len(poly), n, e, 0) for n, e in poly])
    f = Flight(fulmard, sim, 'fence', gcs=True, duration=110,
               params=('FENCE_ENABLE,1', 'FENCE_TYPE,4', 'FENCE_ACTION,1', 'ALT_HOLD_RTL,5000'),
               state_files={'fulmar.fence': fence})
    f.wait_end()
    truth, events, _ = f.stop()
    loaded = any('fence of 4 items loaded' in ln for ln in open(f.log))
    check(loaded, 'the saved fence loaded at start')
    t = event_time(events, r'^Fence breached: polygon: RTL$')
    check(t is not None, 'breach said, RTL, at %s s' % t)
    if t is None:
        return
    r = at(truth, t)
    check(195 <= r['n'] <= 215, 'at the edge (200 m north): %.1f m north' % r['n'])
    check(event_time(events, '^mode RTL$') is not None, 'mode RTL')
    far = max(x['n'] for x in truth)
    check(far < 200 + 80, 'turned back within 80 m of the edge: %.0f m north at most' % far)
    after = [x for x in truth if x['t'] >= t + 30]
    out = [x for x in after if not inside(poly, x['n'], x['e'])]
    check(after and not out, 'inside the fence from 30 s after the breach (%d of %d samples out)'
          % (len(out), len(after)))
    cleared = event_time(events, '^Fence breach cleared$')
    check(cleared is not None and cleared > t, 'the breach cleared when back in (%s s)' % cleared)
    check(not any(x['crashed'] for x in truth), 'no crash')
    fs = fence_status(f.gcs.msgs)
    check(fs and fs[0][1] == 0 and any(b == 1 and c == 1 and ty == 3 for b, c, ty in fs) and
          fs[-1][:2] == (0, 1),
          'FENCE_STATUS: no breach, then breached (boundary, count 1), then clear: %s'
          % sorted(set(fs)))
    gh = geofence_health(f.gcs.msgs)
    check(gh and gh[0] == (True, True, True) and (True, True, False) in gh and gh[-1][2],
          'SYS_STATUS geofence: present, enabled, healthy at connect, unhealthy in the breach')
    if fulmar_log:
        bins = sorted(x for x in os.listdir(os.path.join(f.dir, 'logs')) if x.endswith('.BIN'))
        errs = [e for b in bins for e in log_rows(fulmar_log, os.path.join(f.dir, 'logs', b), 'ERR')]
        codes = [(int(e['Subsys']), int(e['ECode'])) for e in errs]
        check((9, 4) in codes and (9, 0) in codes,
              'the log: ERR subsystem 9 (fence) code 4 (polygon), then 0 (cleared): %s' % codes)


def case_fence_altitude(fulmard, sim, fulmar_log=None):
    """Issue 17: a ceiling (FENCE_ALT_MAX 30 m) under the mission's 40 m: breached in the
    climb, RTL, home flown 10 m under the ceiling; the plane is back under it within 20 s
    and stays there."""
    f = Flight(fulmard, sim, 'fence-alt', duration=100,
               params=('FENCE_ENABLE,1', 'FENCE_TYPE,1', 'FENCE_ALT_MAX,30', 'FENCE_ACTION,1'))
    f.wait_end()
    truth, events, _ = f.stop()
    t = event_time(events, r'^Fence breached: max alt: RTL$')
    check(t is not None, 'ceiling breach said, RTL, at %s s' % t)
    if t is None:
        return
    r = at(truth, t)
    check(29 <= r['h'] <= 33, 'at the ceiling: %.1f m' % r['h'])
    top = max(x['h'] for x in truth)
    check(top < 30 + 10, 'at most %.1f m up (ceiling 30 m)' % top)
    later = [x['h'] for x in truth if x['t'] >= t + 20]
    check(later and max(later) < 30, 'under the ceiling from 20 s after: %.1f m at most'
          % max(later or [99]))
    check(later and abs(fr.rms([h - 20 for h in later[len(later) // 2:]])) < 4,
          'holding 20 m (10 m under the ceiling)')
    check(not any(x['crashed'] for x in truth), 'no crash')


def case_rally(fulmard, sim, fulmar_log=None):
    """Issue 17: RTL from the mode switch at 60 s with a rally point nearer than home
    (RALLY_INCL_HOME 1): the plane loiters at the rally point, at its 60 m, on the
    WP_LOITER_RAD circle."""
    rn, re_, ralt = 100, 400, 60
    rally = wpl([(5100, 0, rn, re_, ralt), (5100, 0, -2000, 2000, 80)])
    f = Flight(fulmard, sim, 'rally', duration=140, timeline_extra=('60 rc 8=1700',),
               params=('RALLY_INCL_HOME,1',), state_files={'fulmar.rally': rally})
    f.wait_end()
    truth, events, _ = f.stop()
    t = event_time(events, '^mode RTL$')
    check(t is not None and 60 <= t < 61, 'RTL from the switch (at %s s)' % t)
    if t is None:
        return
    r = at(truth, t)
    d_home, d_rally = math.hypot(r['n'], r['e']), math.hypot(r['n'] - rn, r['e'] - re_)
    check(d_rally < d_home, 'the rally point nearer than home at RTL: %.0f m against %.0f m'
          % (d_rally, d_home))
    late = [x for x in truth if x['t'] >= t + 45]
    radius = [math.hypot(x['n'] - rn, x['e'] - re_) for x in late]
    check(late and max(radius) < 60 + 25 and min(radius) > 60 - 25,
          'loitering about the rally point: %.0f..%.0f m from it (WP_LOITER_RAD 60)'
          % (min(radius or [0]), max(radius or [0])))
    check(late and all(abs(x['h'] - ralt) < 8 for x in late), 'at its altitude: %.1f..%.1f m'
          % (min(x['h'] for x in late), max(x['h'] for x in late)))
    check(not any(x['crashed'] for x in truth), 'no crash')


def copter_flight(fulmard, sim, name, sim_args=(), timeline=None, **kw):
    """fulmar-sim's quad flown by fulmard as a copter: missions/copter-square.* (the pilot's
    time-line another when given)."""
    return Flight(fulmard, sim, name, vehicle='copter', mission=COPTER_MISSION,
                  base_params=open(COPTER_PARAMS).read(),
                  base_timeline=timeline if timeline is not None else open(COPTER_TIMELINE).read(),
                  sim_args=('--airframe', 'quad') + tuple(sim_args), duration=400, **kw)


def case_copter_mission(fulmard, sim, fulmar_log=None):
    """The copter's demonstration in the demo's wind (5 m/s from the east, turbulence 3): armed
    by the sticks in LOITER, AUTO, takeoff to 20 m, the 100 m square at 5 m/s, RTL, landed and
    disarmed at home. Home is where it was armed; in its own frame (the DataFlash log's last
    position against its last home, ORGN 1) it lands within 1 m of it, as the issue asks. In
    the truth's frame the GPS's wander over the flight comes in too (tools/flight_report.py,
    score_copter), bounded here at 8 m: 2.1 m an axis at one sigma gives 6.2 m as a 95 %
    horizontal bound."""
    f = copter_flight(fulmard, sim, 'copter', sim_args=('--seed', '1', '--wind', '5,90',
                                                       '--turbulence', '3'))
    f.wait_end()
    truth, events, _ = f.stop()
    s = fr.score_copter(truth, fr.load_mission(COPTER_MISSION), events)
    print('\n'.join('  ' + ln for ln in fr.copter_summary_text(s).split('\n')))
    check(event_time(events, 'Arming motors') is not None, 'armed from the sticks')
    check(event_time(events, 'mode AUTO') is not None, 'AUTO from the switch')
    check(s['waypoints_reached_log'] == [1, 2, 3, 4, 5, 6],
          'every item reached, the takeoff to the RTL: %s' % s['waypoints_reached_log'])
    check(19.0 <= s['max_height_m'] <= 22.0, 'took off to 20 m (highest %.1f m)' % s['max_height_m'])
    check(s.get('success') and s['disarmed_at_end'], 'landed, upright, disarmed, no crash')
    check(s.get('xtrack_rms_m') is not None and s['xtrack_rms_m'] < 1.0,
          'the legs flown within 1 m RMS of their lines (%.2f m)' % (s.get('xtrack_rms_m') or -1))
    check(s.get('landing_from_home_m', 99) < 8.0,
          'landed %.1f m from where it was armed (truth, GPS wander included)'
          % s.get('landing_from_home_m', 99))
    if fulmar_log:
        path = next(iter(sorted(glob.glob(os.path.join(f.dir, 'logs', '*.BIN')))), None)
        check(path is not None, 'a flight log')
        if path is None:
            return
        pos = log_rows(fulmar_log, path, 'POS')
        homes = [o for o in log_rows(fulmar_log, path, 'ORGN') if o['Type'] == '1']
        check(bool(pos) and bool(homes), 'POS and home (ORGN 1) in the log')
        if pos and homes:
            h, p = homes[-1], pos[-1]
            n, e = fr.ne_of(float(h['Lat']), float(h['Lng']), float(p['Lat']), float(p['Lng']))
            check(math.hypot(n, e) < 1.0, 'in its own frame it lands %.2f m from home' % math.hypot(n, e))
        for kind in ('RATE', 'ATT', 'PSCN', 'PSCE', 'PSCD', 'CTUN', 'MOTB'):
            check(len(log_rows(fulmar_log, path, kind)) > 100, 'the copter\'s %s records in the log' % kind)


def copter_end(truth):
    """Where the copter came to rest: (north, east) of the truth, and whether it is down,
    disarmed, upright and not crashed."""
    last = truth[-1]
    ok = (last['ground'] and not last['armed'] and abs(last['roll']) < 30 and abs(last['pitch']) < 30
          and not any(r['crashed'] for r in truth))
    return (last['n'], last['e']), ok


def case_copter_realtime(fulmard, sim, fulmar_log=None):
    """The copter's demonstration in real time (about 3 minutes of wall clock): the same
    mission flown and landed as in lock-step, its verdicts the flight's (the timing's figures
    printed, not judged: no bound here depends on how busy the host is), no RC failsafe
    (freshness is judged on the simulator's clock)."""
    f = copter_flight(fulmard, sim, 'copter-rt', realtime=True,
                      sim_args=('--seed', '1', '--wind', '5,90', '--turbulence', '3'))
    f.wait_end(wall_s=400)
    truth, events, timing = f.stop()
    s = fr.score_copter(truth, fr.load_mission(COPTER_MISSION), events)
    print('\n'.join('  ' + ln for ln in fr.copter_summary_text(s).split('\n')))
    m = timing.get('main') or {}
    print('  main loop %s loops a second; %s loops over 1.5x their period' %
          (m.get('achieved_hz'), m.get('over_1_5x')))
    check(s['waypoints_reached_log'] == [1, 2, 3, 4, 5, 6],
          'every item reached: %s' % s['waypoints_reached_log'])
    check(s.get('success'), 'landed, upright, disarmed, no crash')
    check(s.get('xtrack_rms_m') is not None and s['xtrack_rms_m'] < 1.5,
          'the legs within 1.5 m RMS of their lines (%.2f m)' % (s.get('xtrack_rms_m') or -1))
    check(event_time(events, 'Radio Failsafe') is None, 'no RC failsafe')


def case_copter_loiter(fulmard, sim, fulmar_log=None):
    """LOITER in the demo's wind (5 m/s from the east, turbulence 3): armed by the sticks, the
    throttle above mid takes it up, at mid it holds; 60 s held, then the throttle down lands it
    and DISARM_DELAY disarms it. The held position's spread in the truth (about its mean over
    the hold, so that the GPS's offset is left out; its wander over a minute is not) must be
    under 1.5 m RMS, as issue 39 asks."""
    tl = ('# LOITER from the start (channel 5 in the middle)\n20 rc 3=1000 4=2000\n23 rc 4=1500\n'
          '25 rc 3=1800\n31 rc 3=1500\n100 rc 3=1000\n')
    f = copter_flight(fulmard, sim, 'copter-loiter', sim_args=('--seed', '1', '--wind', '5,90',
                                                              '--turbulence', '3'), timeline=tl)
    f.wait_end()
    truth, events, _ = f.stop()
    hold = [r for r in truth if 40 <= r['t'] <= 95]
    check(bool(hold) and all(not r['ground'] for r in hold), 'in the air from 40 to 95 s')
    if not hold:
        return
    mn = sum(r['n'] for r in hold) / len(hold)
    me = sum(r['e'] for r in hold) / len(hold)
    err = [math.hypot(r['n'] - mn, r['e'] - me) for r in hold]
    rms_m = math.sqrt(sum(x * x for x in err) / len(err))
    h = [r['h'] for r in hold]
    print('  LOITER 40-95 s: %.2f m RMS about its mean, %.2f m at worst; height %.1f..%.1f m'
          % (rms_m, max(err), min(h), max(h)))
    check(rms_m < 1.5, 'LOITER holds within 1.5 m RMS (%.2f m)' % rms_m)
    check(max(h) - min(h) < 2.0, 'and its height within 2 m (%.1f..%.1f m)' % (min(h), max(h)))
    _, ok = copter_end(truth)
    check(ok, 'landed by the throttle, disarmed, upright')


def case_copter_rc_loss(fulmard, sim, fulmar_log=None):
    """The transmitter goes quiet in AUTO, 70 m out: Radio Failsafe, RTL (FS_THR_ENABLE 1),
    home, landed, disarmed."""
    f = copter_flight(fulmard, sim, 'copter-rc', sim_args=('--seed', '2', '--wind', '5,90'),
                      timeline_extra=('70 rc off',))
    f.wait_end()
    truth, events, _ = f.stop()
    fs = event_time(events, 'Radio Failsafe')
    rtl = event_time(events, 'mode RTL')
    check(fs is not None and 70 <= fs <= 72, 'Radio Failsafe 1 s after the last frame (%s s)' % fs)
    check(rtl is not None and fs is not None and rtl >= fs, 'RTL (%s s)' % rtl)
    (n, e), ok = copter_end(truth)
    check(ok, 'landed, disarmed, upright')
    check(math.hypot(n, e) < 8.0, 'at home: %.1f m from it (truth, GPS wander in it)' % math.hypot(n, e))


def case_copter_battery(fulmard, sim, fulmar_log=None):
    """BATT_LOW_MAH reached in AUTO: the battery failsafe lands where it is (BATT_FS_LOW_ACT 1,
    LAND) and disarms, before the square is done."""
    f = copter_flight(fulmard, sim, 'copter-batt', sim_args=('--seed', '3', '--wind', '5,90'),
                      params=('BATT_LOW_MAH,400', 'BATT_FS_LOW_ACT,1'))
    f.wait_end()
    truth, events, _ = f.stop()
    s = fr.score_copter(truth, fr.load_mission(COPTER_MISSION), events)
    t = event_time(events, '[Bb]attery')
    land = event_time(events, 'mode LAND')
    check(t is not None, 'a battery failsafe said (%s s)' % t)
    check(land is not None and t is not None and land >= t, 'LAND (%s s)' % land)
    check(6 not in s['waypoints_reached_log'], 'the mission cut short: %s' % s['waypoints_reached_log'])
    _, ok = copter_end(truth)
    check(ok, 'landed, disarmed, upright')


def copter_gps_loss(fulmard, sim, action, want_mode):
    f = copter_flight(fulmard, sim, 'copter-gps-%d' % action,
                      sim_args=('--seed', '4', '--wind', '5,90'),
                      params=('FS_EKF_ACTION,%d' % action,), timeline_extra=('70 gps_loss 400',))
    f.wait_end()
    truth, events, _ = f.stop()
    fs = event_time(events, 'EKF Failsafe')
    mode = event_time(events, 'mode %s' % want_mode)
    print('  GPS lost at 70 s: "EKF Failsafe" at %s s, %s at %s s' % (fs, want_mode, mode))
    check(fs is not None and fs > 70, 'the EKF failsafe said (%s s)' % fs)
    check(mode is not None and fs is not None and mode >= fs, '%s (%s s)' % (want_mode, mode))
    return truth, events


def case_copter_gps_loss(fulmard, sim, fulmar_log=None):
    """The GPS lost for good in AUTO: without a position the EKF failsafe lands where it is
    (FS_EKF_ACTION 1, LAND, on the heights alone), down, disarmed, upright."""
    truth, events = copter_gps_loss(fulmard, sim, 1, 'LAND')
    _, ok = copter_end(truth)
    check(ok, 'landed, disarmed, upright')


def case_copter_gps_loss_alt_hold(fulmard, sim, fulmar_log=None):
    """The same with FS_EKF_ACTION 2: ALT_HOLD, the height held (the pilot's to land)."""
    truth, events = copter_gps_loss(fulmard, sim, 2, 'ALT_HOLD')
    t = event_time(events, 'mode ALT_HOLD')
    if t is None:
        return
    late = [r['h'] for r in truth if t + 5 <= r['t'] <= t + 30]
    check(bool(late) and max(late) - min(late) < 3.0 and min(late) > 10.0,
          'ALT_HOLD holds its height: %s' % ('%.1f..%.1f m' % (min(late), max(late)) if late else '-'))


CASES = {'sensors': case_sensors, 'copter_mission': case_copter_mission,
         'copter_loiter': case_copter_loiter, 'copter_realtime': case_copter_realtime, 'copter_rc_loss': case_copter_rc_loss,
         'copter_battery': case_copter_battery, 'copter_gps_loss': case_copter_gps_loss,
         'copter_gps_loss_alt_hold': case_copter_gps_loss_alt_hold, 'sensor_health': case_sensor_health, 'demo': case_demo,
         'windy': case_windy, 'air_start': case_air_start,
         'gps_loss': case_gps_loss, 'pitot_block': case_pitot_block, 'pitot_off': case_pitot_off,
         'low_battery': case_low_battery, 'rc_loss': case_rc_loss,
         'modes': case_modes, 'gcs_loss': case_gcs_loss, 'log_crash': case_log_crash,
         'determinism': case_determinism, 'log_download': case_log_download, 'late_loops': case_late_loops,
         'estimator': case_estimator, 'rc_stall': case_rc_stall,
         'realtime_overload': case_realtime_overload, 'wmm_arming': case_wmm_arming,
         'cub_crosswind': case_cub_crosswind, 'failed_launch': case_failed_launch,
         'fence_polygon': case_fence_polygon, 'fence_altitude': case_fence_altitude,
         'rally': case_rally,
         'demo_100hz': lambda d, s, l=None: demo_at_rate(d, s, l, 100, 100),
         'demo_200hz': lambda d, s, l=None: demo_at_rate(d, s, l, 200, 200),
         'demo_250hz': lambda d, s, l=None: demo_at_rate(d, s, l, 250, 250),
         'demo_400hz_fresh': lambda d, s, l=None: demo_at_rate(d, s, l, 400, 200, all_fresh=True),
         # the board's link (tests/board/fly.sh): 200 Hz HIL_SENSOR of 1 kHz physics, 50 Hz frames
         'demo_200hz_of_1khz': lambda d, s, l=None: demo_at_rate(d, s, l, 200, 50, physics_hz=1000)}


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in CASES:
        sys.exit('usage: test_hil.py {%s} FULMARD FULMAR_SIM [FULMAR_LOG]' % ','.join(CASES))
    CASES[sys.argv[1]](*sys.argv[2:])
    for d in flight_dirs:
        if failures or os.environ.get('FULMAR_KEEP') == '1':
            print('kept for a look: %s' % d)
        else:
            shutil.rmtree(d, ignore_errors=True)
    print('%s: %s' % (sys.argv[1], 'FAILED: ' + '; '.join(failures) if failures else 'passed'))
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
