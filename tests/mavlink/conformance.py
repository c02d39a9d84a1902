#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks fulmar's MAVLink table and the C generated from it against the official XML.

    conformance.py TABLE GENERATED_C REFERENCE_ROOT

The XML is read from $FULMAR_REFERENCE/mavlink (REFERENCE_ROOT/mavlink when the
variable is unset).

For every message in the table: the id, the fields (types, names, order, the
place of the extensions) as the XML defines them; and for the generated C,
CRC_EXTRA and the base and full lengths, computed here from the XML alone.
Exits 77 (skipped, with the reason) when that folder is not there.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

SIZES = {'char': 1, 'int8_t': 1, 'uint8_t': 1, 'int16_t': 2, 'uint16_t': 2, 'int32_t': 4,
         'uint32_t': 4, 'float': 4, 'int64_t': 8, 'uint64_t': 8, 'double': 8,
         'uint8_t_mavlink_version': 1}


def x25(data, crc=0xFFFF):
    for b in data:
        t = (b ^ crc) & 0xFF
        t = (t ^ (t << 4)) & 0xFF
        crc = ((crc >> 8) ^ (t << 8) ^ (t << 3) ^ (t >> 4)) & 0xFFFF
    return crc


def split_type(t):
    m = re.fullmatch(r'([a-z0-9_]+)(?:\[(\d+)\])?', t)
    return m.group(1), int(m.group(2) or 0)


def xml_messages(xml_dir):
    out = {}
    for fn in sorted(os.listdir(xml_dir)):
        if fn.endswith('.xml'):
            for m in ET.parse(os.path.join(xml_dir, fn)).getroot().iter('message'):
                fields, ext = [], False
                for c in m:
                    if c.tag == 'extensions':
                        ext = True
                    elif c.tag == 'field':
                        fields.append((c.get('type'), c.get('name'), ext))
                out[m.get('name')] = (int(m.get('id')), fields)
    return out


def table_messages(path):
    out, cur, ext = {}, None, False
    for line in open(path):
        s = line.split('#', 1)[0].strip()
        if not s:
            continue
        if s.startswith('message '):
            _, name, mid = s.split()
            cur = out[name] = (int(mid), [])
            ext = False
        elif s == 'extensions':
            ext = True
        else:
            t, n = s.split()
            cur[1].append((t, n, ext))
    return out


def expected(name, fields):
    """CRC_EXTRA, base length and full length of a message, from its XML fields."""
    base = [f for f in fields if not f[2]]
    wire = sorted(base, key=lambda f: -SIZES[split_type(f[0])[0]])
    crc = x25((name + ' ').encode())
    for t, n, _ in wire:
        bt, arr = split_type(t)
        if bt == 'uint8_t_mavlink_version':
            bt = 'uint8_t'
        crc = x25((bt + ' ' + n + ' ').encode(), crc)
        if arr:
            crc = x25([arr], crc)

    def size(f):
        bt, arr = split_type(f[0])
        return SIZES[bt] * max(arr, 1)
    return (crc & 0xFF) ^ (crc >> 8), sum(size(f) for f in base), sum(size(f) for f in fields)


def main():
    table_path, gen_c, ref_root = sys.argv[1:4]
    xml_dir = os.path.join(os.environ.get('FULMAR_REFERENCE') or ref_root, 'mavlink')
    if not os.path.isdir(xml_dir):
        print(f'SKIP: reference data absent: {xml_dir} (set FULMAR_REFERENCE to the folder '
              'holding dataflash/ and mavlink/)')
        return 77
    ref = xml_messages(xml_dir)
    ours = table_messages(table_path)
    generated = {m.group(2): tuple(int(x) for x in (m.group(1), m.group(3), m.group(4), m.group(5)))
                 for m in re.finditer(r'\{ (\d+), "(\w+)", (\d+), (\d+), (\d+),', open(gen_c).read())}
    bad = 0
    for name, (mid, fields) in ours.items():
        problems = []
        if name not in ref:
            problems.append('not in the XML')
        else:
            rid, rfields = ref[name]
            if rid != mid:
                problems.append(f'id {mid}, XML says {rid}')
            if fields != rfields:
                problems.append(f'fields {fields} differ from the XML\'s {rfields}')
            crc, lo, hi = expected(name, rfields)
            g = generated.get(name)
            if g is None:
                problems.append('missing from the generated C')
            elif g != (rid, crc, lo, hi):
                problems.append(f'generated (id, crc_extra, min, max) {g}, XML gives {(rid, crc, lo, hi)}')
        for p in problems:
            print(f'FAIL {name}: {p}')
        bad += bool(problems)
    if len(generated) != len(ours):
        print(f'FAIL: {len(generated)} messages generated, {len(ours)} in the table')
        bad += 1
    print(f'{len(ours) - bad} passed, {bad} failed')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
