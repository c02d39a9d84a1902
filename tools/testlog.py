#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What one `meson test` run gave, from its meson-logs/testlog.json, for tools/test.

    testlog.py STAGE TESTLOG_JSON

Prints one line of counts, then one line per test that did not pass and per
skip, tab-separated:

    counts <passed> <failed> <skipped>
    fail   STAGE:TEST  RESULT (duration s)
    skip   STAGE:TEST  REASON

A test is skipped when it exits 77 (meson's SKIP); its reason is the last
line of its output holding "SKIP:". A cmocka case inside a passing test that
calls skip() is a skip too (cmocka prints "[  SKIPPED ] case"), named
STAGE:TEST/CASE, with the reason the case printed ("SKIP: ...") before it.
Meson reports such a test as OK, so without this the skip would be invisible.
"""
import json
import re
import sys

FAILED = ('FAIL', 'TIMEOUT', 'ERROR', 'UNEXPECTEDPASS', 'INTERRUPT')
CASE_SKIPPED = re.compile(r'^\[\s+SKIPPED\s+\]\s+(\S+)\s*$')


def reason_of(lines):
    for ln in reversed(lines):
        if 'SKIP:' in ln:
            return ln[ln.index('SKIP:') + 5:].strip()
    return '(the test gave no reason)'


def main():
    stage, path = sys.argv[1:3]
    ok = failed = skipped = 0
    out = []
    with open(path) as f:
        for line in f:
            t = json.loads(line)
            name = t['name'].split(' / ')[-1]
            text = (t.get('stdout') or '') + '\n' + (t.get('stderr') or '')
            lines = text.splitlines()
            res = t['result']
            if res == 'SKIP':
                skipped += 1
                out.append('skip\t%s:%s\t%s' % (stage, name, reason_of(lines)))
                continue
            if res in FAILED:
                failed += 1
                out.append('fail\t%s:%s\t%s (%.1f s)' % (stage, name, res, t.get('duration') or 0))
                continue
            ok += 1
            # cmocka: the "[  SKIPPED ]" lines of the cases list (not the summary's count line)
            seen = set()
            for i, ln in enumerate(lines):
                m = CASE_SKIPPED.match(ln)
                if m and m.group(1) not in seen and not m.group(1).isdigit():
                    seen.add(m.group(1))
                    skipped += 1
                    run = max((j for j in range(i) if lines[j].startswith('[ RUN') and
                               lines[j].split()[-1] == m.group(1)), default=i)
                    out.append('skip\t%s:%s/%s\t%s' % (stage, name, m.group(1),
                                                       reason_of(lines[run:i])))
    print('counts\t%d\t%d\t%d' % (ok, failed, skipped))
    print('\n'.join(out))


if __name__ == '__main__':
    main()
