// SPDX-License-Identifier: GPL-3.0-or-later
// MAVLink interoperability: fulmar's framing against node-mavlink, an
// independent implementation with its own CRC_EXTRA table, so a wrong
// CRC_EXTRA or field order cannot hide behind a symmetric bug.
//   node interop.cjs INTEROP_TOOL      (NODE_PATH must find node-mavlink)
'use strict';
const { execFileSync } = require('child_process');
const m = require('node-mavlink');

const tool = process.argv[2];
const registry = { ...m.minimal.REGISTRY, ...m.standard.REGISTRY, ...m.common.REGISTRY,
	...m.ardupilotmega.REGISTRY };
const ours = execFileSync(tool, ['list']).toString().trim().split('\n').map(Number);
let passed = 0, failed = 0;
function check(ok, what) {
	if (ok) passed++;
	else { failed++; console.log('FAIL - ' + what); }
}

// 1. fulmar encodes every message; node-mavlink must accept each frame and,
//    decoding and encoding it again, produce the same bytes.
function splitFrames(buf) {
	const frames = [];
	for (let i = 0; i < buf.length;) {
		const v2 = buf[i] === 0xfd;
		if (buf[i] !== 0xfd && buf[i] !== 0xfe) throw new Error('lost sync at ' + i);
		const len = (v2 ? 10 : 6) + buf[i + 1] + 2 + (v2 && (buf[i + 2] & 1) ? 13 : 0);
		frames.push(buf.subarray(i, i + len));
		i += len;
	}
	return frames;
}

async function fulmarToNode() {
	const out = execFileSync(tool, ['encode'], { maxBuffer: 1 << 24 });
	const expected = splitFrames(out);
	const splitter = new m.MavLinkPacketSplitter({}, { onCrcError: () => {} });
	const parser = new m.MavLinkPacketParser();
	const packets = [];
	splitter.pipe(parser);
	parser.on('data', p => packets.push(p));
	const done = new Promise(resolve => parser.on('end', resolve));
	splitter.end(out);
	await done;
	check(packets.length === expected.length,
		`node-mavlink took ${packets.length} of fulmar's ${expected.length} frames ` +
		`(invalid ${splitter.invalidPackages}, unknown ${splitter.unknownPackagesCount})`);
	for (let i = 0; i < packets.length; i++) {
		const p = packets[i];
		const clazz = registry[p.header.msgid];
		if (!clazz) { check(false, `node-mavlink does not know message ${p.header.msgid}`); continue; }
		const data = p.protocol.data(p.payload, clazz);
		const proto = p.header.magic === 0xfd
			? new m.MavLinkProtocolV2(p.header.sysid, p.header.compid)
			: new m.MavLinkProtocolV1(p.header.sysid, p.header.compid);
		const again = proto.serialize(data, p.header.seq);
		if (p.header.magic !== 0xfd) {
			// node-mavlink writes MAVLink 1 frames with the extension fields too
			// (zeros), which MAVLink 1 does not carry: compare the base fields.
			const ours = expected[i].subarray(6, 6 + expected[i][1]);
			check(Buffer.compare(again.subarray(6, 6 + ours.length), ours) === 0,
				`${clazz.MSG_NAME} v1: fulmar ${ours.toString('hex')} node-mavlink ${again.toString('hex')}`);
			continue;
		}
		check(Buffer.compare(again, expected[i]) === 0,
			`${clazz.MSG_NAME} v${p.header.magic === 0xfd ? 2 : 1}: fulmar ${expected[i].toString('hex')} ` +
			`node-mavlink ${again.toString('hex')}`);
	}
}

// 2. node-mavlink encodes every message fulmar knows (some signed); fulmar must
//    parse each with the same payload and verify the signatures.
function value(type, i, k) {
	const base = type.replace('[]', '');
	const n = (i * 31 + k * 7 + 3) % 100 + 1;
	switch (base) {
	case 'char': return 'fulmar-interop-test-string-1234567890'.repeat(3);
	case 'float': case 'double': return n + 0.25;
	case 'int64_t': return BigInt(-n) * 1000000007n;
	case 'uint64_t': return BigInt(n) * 1000000007n;
	case 'int8_t': case 'int16_t': case 'int32_t': return -n;
	default: return n;
	}
}

function nodeToFulmar() {
	const key = Buffer.alloc(32);
	for (let i = 0; i < 32; i++) key[i] = i * 7 + 1;
	const frames = [], want = [];
	ours.forEach((id, i) => {
		const clazz = registry[id];
		if (!clazz) { check(false, `node-mavlink has no message ${id}`); return; }
		const data = new clazz();
		for (const f of clazz.FIELDS) {
			if (f.type.startsWith('char')) data[f.name] = value(f.type, i, 0).slice(0, f.length);
			else if (f.length) data[f.name] = Array.from({ length: f.length }, (_, k) => value(f.type, i, k));
			else data[f.name] = value(f.type, i, 0);
		}
		const signed = i % 3 === 0;
		// A signed frame carries the signed flag in its header, under the CRC.
		const proto = new m.MavLinkProtocolV2(7, 9, signed ? 0x01 : 0x00);
		let buf = proto.serialize(data, i % 256);
		if (signed) buf = proto.sign(buf, 1, key, Date.UTC(2026, 0, 1) + i);
		frames.push(buf);
		want.push({ id, seq: i % 256, payload: buf.subarray(10, 10 + buf[1]).toString('hex'),
			// With a key set, fulmar refuses unsigned frames but telemetry radios' RADIO_STATUS.
			verdict: signed || id === 109 ? 'accept' : 'unsigned', name: clazz.MSG_NAME });
	});
	// One signed frame with a broken signature, one unsigned command: both refused.
	const bad = Buffer.from(frames[0]);
	bad[bad.length - 1] ^= 0x55;
	frames.push(bad);
	want.push({ ...want[0], verdict: 'bad-signature' });
	const unsigned = new m.MavLinkProtocolV2(7, 9).serialize(new m.common.CommandLong(), 5);
	frames.push(unsigned);
	want.push({ id: 76, seq: 5, payload: unsigned.subarray(10, 10 + unsigned[1]).toString('hex'),
		verdict: 'unsigned', name: 'COMMAND_LONG' });

	const lines = execFileSync(tool, ['decode', key.toString('hex')], { input: Buffer.concat(frames) })
		.toString().trim().split('\n');
	check(lines.length === want.length, `fulmar parsed ${lines.length} of node-mavlink's ${want.length} frames`);
	lines.forEach((line, i) => {
		const [id, seq, sysid, compid, verdict, hex = ''] = line.split(' ');
		const w = want[i];
		if (!w) return;
		check(Number(id) === w.id && Number(seq) === w.seq && sysid === '7' && compid === '9',
			`${w.name}: header ${line}`);
		check(hex === w.payload, `${w.name}: fulmar read ${hex}, node-mavlink wrote ${w.payload}`);
		check(verdict === w.verdict, `${w.name}: verdict ${verdict}, want ${w.verdict}`);
	});
}

(async () => {
	await fulmarToNode();
	nodeToFulmar();
	console.log(`${passed} passed, ${failed} failed`);
	process.exit(failed ? 1 : 0);
})().catch(e => { console.log('FAIL - ' + e.stack); process.exit(1); });
