#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A MAVLink link over a serial line: fulmard on one side of a pty (as on a
telemetry radio), this script on the other sending a HEARTBEAT and a
PARAM_REQUEST_READ and reading the answers.

    test_serial_link.py FULMARD LOCK_MEMORY(true|false)
"""
import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
import time
import tty


def x25(data, crc=0xFFFF):
    for b in data:
        t = (b ^ crc) & 0xFF
        t = (t ^ (t << 4)) & 0xFF
        crc = ((crc >> 8) ^ (t << 8) ^ (t << 3) ^ (t >> 4)) & 0xFFFF
    return crc


def frame(seq, msgid, payload, crc_extra):
    """A MAVLink 2 frame from system 255, component 190."""
    hdr = bytes([0xFD, len(payload), 0, 0, seq, 255, 190, msgid & 0xFF, (msgid >> 8) & 0xFF, msgid >> 16])
    crc = x25(bytes([crc_extra]), x25(hdr[1:] + payload))
    return hdr + payload + bytes([crc & 0xFF, crc >> 8])


def frames(buf):
    """(msgid, sysid, payload) of every well-formed v2 frame in buf (CRC not checked here)."""
    out, i = [], 0
    while i + 12 <= len(buf):
        if buf[i] != 0xFD:
            i += 1
            continue
        n = buf[i + 1]
        end = i + 10 + n + 2 + (13 if buf[i + 2] & 1 else 0)
        if end > len(buf):
            break
        out.append((buf[i + 7] | buf[i + 8] << 8 | buf[i + 9] << 16, buf[i + 5], buf[i + 10:i + 10 + n]))
        i = end
    return out


def main():
    fulmard, lock = sys.argv[1], sys.argv[2]
    master, slave = pty.openpty()
    tty.setraw(master)
    tmp = tempfile.mkdtemp(prefix='fulmar-serial-')
    conf = os.path.join(tmp, 'fulmard.conf')
    with open(conf, 'w') as f:
        f.write(f'[daemon]\nstate_dir = {tmp}/state\nlog_dir = {tmp}/logs\n[sched]\nlock_memory = {lock}\n'
                f'[mavlink]\nlink0 = serial:{os.ttyname(slave)}:57600\n')
    p = subprocess.Popen([fulmard, '--config', conf], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print(('ok - ' if ok else 'FAIL - ') + what)
        if ok:
            passed += 1
        else:
            failed += 1

    def read_until(want, seconds):
        """Frames until want(frames) holds; the deadline is a hang check, generous
        for a busy host, never the verdict of a healthy run."""
        buf, end = b'', time.monotonic() + seconds
        while time.monotonic() < end and not want(frames(buf)):
            r, _, _ = select.select([master], [], [], 0.05)
            if r:
                buf += os.read(master, 4096)
        return frames(buf)

    def heartbeats(got):
        return [f for f in got if f[0] == 0 and f[1] == 1]

    got = read_until(lambda g: len(heartbeats(g)) >= 2, 30)
    hb = heartbeats(got)
    check(len(hb) >= 2, f'HEARTBEATs from system 1 arrive over the serial line ({len(hb)})')
    # PARAM_REQUEST_READ (20, CRC_EXTRA 214): index -1, target 1/1, "SYSID_THISMAV".
    req = (-1).to_bytes(2, 'little', signed=True) + bytes([1, 1]) + b'SYSID_THISMAV'.ljust(16, b'\0')
    os.write(master, frame(0, 20, req.rstrip(b'\0') or b'\0', 214))
    got = read_until(lambda g: any(f[0] == 22 for f in g), 30)
    pv = [f for f in got if f[0] == 22]
    check(len(pv) == 1 and pv[0][2][8:21] == b'SYSID_THISMAV', 'PARAM_REQUEST_READ over serial is answered')
    p.terminate()
    _, err = p.communicate(timeout=60)
    check(p.returncode == 0, f'fulmard stops cleanly (status {p.returncode})')
    check(b'serial ' + os.ttyname(slave).encode() in err, 'and logged its serial link')
    if failed:
        print(f'kept for a look: {tmp}')
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
