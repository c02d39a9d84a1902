// SPDX-License-Identifier: GPL-3.0-or-later
// What the node-mavlink ground stations of tests/mavlink share: the verdicts, a
// UDP ground station, the mission protocol's upload and download, and a MAVFTP
// client (burst read, @PARAM/param.pck decoded as ArduPilot lays it out).
// Used by gcs_session.cjs, ftp_session.cjs and gcs_live.cjs.
'use strict';
const dgram = require('dgram');
const m = require('node-mavlink');

const registry = { ...m.minimal.REGISTRY, ...m.standard.REGISTRY, ...m.common.REGISTRY,
	...m.ardupilotmega.REGISTRY };

const result = { passed: 0, failed: 0 };
function check(ok, what) {
	if (ok) { result.passed++; console.log('ok - ' + what); }
	else { result.failed++; console.log('FAIL - ' + what); }
	return ok;
}
const sleep = ms => new Promise(r => setTimeout(r, ms));
const nowMs = () => Number(process.hrtime.bigint() / 1000n) / 1000;  // CLOCK_MONOTONIC, ms

async function bound() {
	const s = dgram.createSocket('udp4');
	await new Promise(r => s.bind(0, '127.0.0.1', r));
	return s;
}

async function freePort() {
	const s = await bound();
	const port = s.address().port;
	s.close();
	return port;
}

// A ground station on a UDP port of fulmard's. Each message received goes to the
// handlers (until()) and, unless keep is false, into `got` (waitFor()). Each has
// its id, sender, decoded fields, signature and `at`, its arrival (nowMs()).
class Gcs {
	constructor(port, { keep = true } = {}) {
		this.port = port;
		this.keep = keep;
		this.proto = new m.MavLinkProtocolV2(255, 190);
		this.seq = 0;
		this.ftpSeq = 0;
		this.got = [];
		this.handlers = new Set();
		this.splitter = new m.MavLinkPacketSplitter({}, { onCrcError: () => {} });
		const parser = new m.MavLinkPacketParser();
		this.splitter.pipe(parser);
		parser.on('data', p => {
			const clazz = registry[p.header.msgid];
			if (!clazz) return;
			const msg = { id: p.header.msgid, sysid: p.header.sysid, data: p.protocol.data(p.payload, clazz),
				signature: p.signature, at: nowMs() };
			if (this.keep) this.got.push(msg);
			for (const h of this.handlers) h(msg);
		});
	}
	async open() {
		this.sock = dgram.createSocket({ type: 'udp4', recvBufferSize: 4 << 20 });
		await new Promise(r => this.sock.bind(0, '127.0.0.1', r));
		this.sock.on('message', msg => this.splitter.write(msg));
	}
	sendRaw(buf) { return new Promise(r => this.sock.send(buf, this.port, '127.0.0.1', r)); }
	send(msg, key) {
		let buf;
		if (key) {
			const proto = new m.MavLinkProtocolV2(255, 190, 0x01);
			buf = proto.sign(proto.serialize(msg, this.seq++ & 255), 0, key, Date.now());
		} else {
			buf = this.proto.serialize(msg, this.seq++ & 255);
		}
		return this.sendRaw(buf);
	}
	// The first kept message pred takes, taken out of `got`; null after ms.
	async waitFor(pred, ms) {
		for (let t = 0; t < ms; t += 20) {
			const i = this.got.findIndex(pred);
			if (i >= 0) return this.got.splice(i, 1)[0];
			await sleep(20);
		}
		return null;
	}
	// Calls fn on every message until it returns true or ms pass without one that
	// it took ('more' takes one and waits on).
	until(fn, ms) {
		return new Promise(resolve => {
			let timer;
			const arm = () => { clearTimeout(timer); timer = setTimeout(() => { this.handlers.delete(h); resolve(false); }, ms); };
			const h = msg => {
				const r = fn(msg);
				if (r === true) { clearTimeout(timer); this.handlers.delete(h); resolve(true); }
				else if (r === 'more') arm();
			};
			this.handlers.add(h);
			arm();
		});
	}
	close() { this.sock.close(); }
}

function heartbeat() {
	const hb = new m.minimal.Heartbeat();
	hb.type = 6; hb.autopilot = 8; hb.baseMode = 0; hb.customMode = 0; hb.systemStatus = 4; hb.mavlinkVersion = 3;
	return hb;
}

const paramName = d => String(d.paramId).replace(/\0.*$/, '');
const text = d => String(d.text).replace(/\0.*$/, '');

// --- parameters ---------------------------------------------------------------

async function paramSet(g, name, value, type = 9) {
	const set = new m.common.ParamSet();
	set.targetSystem = 1; set.targetComponent = 1; set.paramId = name; set.paramValue = value; set.paramType = type;
	for (let i = 0; i < 5; i++) {
		let echo = null;
		const wait = g.until(msg => {
			if (msg.id !== 22 || paramName(msg.data) !== name) return false;
			echo = msg.data.paramValue;
			return true;
		}, 1000);
		await g.send(set);
		if (await wait) return echo;
	}
	return null;
}

// The PARAM_VALUE list: {params: Map(index -> {name, value}), count, ms}.
async function paramList(g) {
	const params = new Map();
	let count = -1;
	const req = new m.common.ParamRequestList();
	req.targetSystem = 1; req.targetComponent = 1;
	const t0 = nowMs();
	const wait = g.until(msg => {
		if (msg.id !== 22) return false;
		count = msg.data.paramCount;
		params.set(msg.data.paramIndex, { name: paramName(msg.data), value: msg.data.paramValue });
		return params.size === count ? true : 'more';
	}, 2000);
	await g.send(req);
	await wait;
	return { params, count, ms: nowMs() - t0 };
}

// --- the logs (the old path: LOG_REQUEST_LIST, LOG_REQUEST_DATA) ---------------

// A log by LOG_REQUEST_DATA, all of it asked for at once, then what was lost asked
// for again: {buf, ms}.
async function logRequestData(g, id, size) {
	const buf = Buffer.alloc(size);
	const have = new Set();
	const ask = async (ofs, count) => {
		const r = new m.common.LogRequestData();
		r.targetSystem = 1; r.targetComponent = 1; r.id = id; r.ofs = ofs; r.count = count;
		await g.send(r);
	};
	const take = msg => {
		if (msg.id !== 120 || msg.data.id !== id) return false;
		if (msg.data.count > 0) {
			Buffer.from(msg.data.data).copy(buf, msg.data.ofs, 0, msg.data.count);
			have.add(msg.data.ofs);
		}
		return have.size * 90 >= size ? true : 'more';
	};
	const t0 = nowMs();
	let wait = g.until(take, 1500);
	await ask(0, 0xffffffff);
	await wait;
	for (let pass = 0; pass < 5; pass++) {
		const missing = [];
		for (let ofs = 0; ofs < size; ofs += 90) if (!have.has(ofs)) missing.push(ofs);
		if (!missing.length) break;
		for (const ofs of missing) {
			wait = g.until(msg => take(msg) && msg.data.ofs === ofs, 500);
			await ask(ofs, 90);
			await wait;
		}
	}
	const end = new m.common.LogRequestEnd();
	end.targetSystem = 1; end.targetComponent = 1;
	await g.send(end);
	return { buf, ms: nowMs() - t0 };
}

// The id LOG_REQUEST_LIST gives the log of size bytes (-1: none).
async function logId(g, size) {
	let id = -1;
	const wait = g.until(msg => {
		if (msg.id !== 118) return false;
		if (msg.data.size === size) id = msg.data.id;
		return msg.data.id === msg.data.lastLogNum || msg.data.numLogs === 0 ? true : 'more';
	}, 2000);
	const r = new m.common.LogRequestList();
	r.targetSystem = 1; r.targetComponent = 1; r.start = 0; r.end = 0xffff;
	await g.send(r);
	await wait;
	return id;
}

// --- the mission protocol (any mission_type) -----------------------------------

// Uploads items (MISSION_ITEM_INT, seq from 0) as the list of mission_type type:
// 'accepted', or what went wrong.
async function uploadItems(g, items, type = 0) {
	const count = new m.common.MissionCount();
	count.targetSystem = 1; count.targetComponent = 1; count.count = items.length; count.missionType = type;
	await g.send(count);
	for (let done = 0; ;) {
		const p = await g.waitFor(x => x.id === 51 || x.id === 47, 3000);
		if (!p) return 'timeout';
		if (p.id === 47) return p.data.type === 0 && done === items.length ? 'accepted' : 'ack ' + p.data.type;
		if (p.data.missionType !== type) return 'asked for mission_type ' + p.data.missionType;
		await g.send(items[p.data.seq]);
		done = Math.max(done, p.data.seq + 1);
	}
}

// The list of mission_type type, as MISSION_ITEM_INT fields; null on a timeout.
async function downloadItems(g, type = 0) {
	const req = new m.common.MissionRequestList();
	req.targetSystem = 1; req.targetComponent = 1; req.missionType = type;
	await g.send(req);
	const c = await g.waitFor(x => x.id === 44 && x.data.missionType === type, 3000);
	if (!c) return null;
	const items = [];
	for (let s = 0; s < c.data.count; s++) {
		const r = new m.common.MissionRequestInt();
		r.targetSystem = 1; r.targetComponent = 1; r.seq = s; r.missionType = type;
		await g.send(r);
		const it = await g.waitFor(x => x.id === 73 && x.data.seq === s, 3000);
		if (!it) return null;
		items.push(it.data);
	}
	const ack = new m.common.MissionAck();
	ack.targetSystem = 1; ack.targetComponent = 1; ack.type = 0; ack.missionType = type;
	await g.send(ack);
	return items;
}

// Whether what came back is what was sent.
function sameItems(got, sent) {
	if (!got || got.length !== sent.length) return false;
	return got.every((it, s) => {
		const w = sent[s];
		return it.x === w.x && it.y === w.y && it.z === w.z && it.command === w.command &&
			it.frame === w.frame && it.param1 === w.param1 && it.autocontinue === 1 &&
			it.missionType === w.missionType;
	});
}

// --- MAVFTP ---------------------------------------------------------------------

const OP = { TERMINATE: 1, RESET: 2, LIST: 3, OPEN_RO: 4, READ: 5, BURST: 15, ACK: 128, NAK: 129 };
const ERR_EOF = 6;
const DATA_MAX = 239;

function ftpPacket(seq, op, session, offset, size, data) {
	const b = Buffer.alloc(251);
	b.writeUInt16LE(seq & 0xffff, 0);
	b[2] = session; b[3] = op; b[4] = size;
	b.writeUInt32LE(offset >>> 0, 8);
	if (data) Buffer.from(data).copy(b, 12);
	const msg = new m.common.FileTransferProtocol();
	msg.targetNetwork = 0; msg.targetSystem = 1; msg.targetComponent = 1;
	msg.payload = [...b];
	return msg;
}

function ftpParse(msg) {
	if (msg.id !== 110) return null;
	const b = Buffer.alloc(251);
	Buffer.from(msg.data.payload).copy(b);
	return { seq: b.readUInt16LE(0), session: b[2], opcode: b[3], size: b[4], reqOpcode: b[5],
		burstComplete: b[6], offset: b.readUInt32LE(8), data: b.subarray(12, 12 + b[4]) };
}

// One request, retried with the same sequence number until its reply comes.
async function ftpOp(g, op, session, offset, size, data, tries = 40) {
	const seq = g.ftpSeq;
	g.ftpSeq = (g.ftpSeq + 1) & 0xffff;
	const pkt = ftpPacket(seq, op, session, offset, size, data);
	for (let t = 0; t < tries; t++) {
		let reply = null;
		const wait = g.until(msg => {
			const r = ftpParse(msg);
			if (r && r.seq === ((seq + 1) & 0xffff) && r.reqOpcode === op) { reply = r; return true; }
			return false;
		}, 300);
		await g.send(pkt);
		if (await wait) return reply;
		g.retries = (g.retries || 0) + 1;
	}
	return null;
}

// A file by burst read: bursts from the end of what came, then the gaps with ReadFile.
async function ftpDownload(g, file) {
	await ftpOp(g, OP.RESET, 0, 0, 0);
	const open = await ftpOp(g, OP.OPEN_RO, 0, 0, file.length, file);
	if (!open || open.opcode !== OP.ACK) return null;
	const session = open.session, size = open.data.readUInt32LE(0);
	const buf = Buffer.alloc(size);
	const have = new Set();           // offsets of 239-byte blocks received
	let end = 0, eof = false;
	for (let stalls = 0; !eof && end < size && stalls < 40;) {
		const seq = g.ftpSeq;
		g.ftpSeq = (g.ftpSeq + 1) & 0xffff;
		const before = end;
		const wait = g.until(msg => {
			const r = ftpParse(msg);
			if (!r || r.reqOpcode !== OP.BURST || r.session !== session) return false;
			if (r.opcode === OP.NAK) { if (r.data[0] === ERR_EOF) eof = true; return true; }
			r.data.copy(buf, r.offset);
			have.add(r.offset);
			end = Math.max(end, r.offset + r.size);
			return r.burstComplete ? true : 'more';
		}, 300);
		await g.send(ftpPacket(seq, OP.BURST, session, end, 0));
		await wait;
		stalls = end > before ? 0 : stalls + 1;
	}
	// The gaps, eight reads in flight (each with its own sequence number).
	const gaps = [];
	for (let ofs = 0; ofs < size; ofs += DATA_MAX) if (!have.has(ofs)) gaps.push(ofs);
	let bad = false;
	const worker = async () => {
		for (let ofs; (ofs = gaps.shift()) !== undefined && !bad;) {
			const r = await ftpOp(g, OP.READ, session, ofs, Math.min(DATA_MAX, size - ofs));
			if (!r || r.opcode !== OP.ACK) { bad = true; return; }
			r.data.copy(buf, ofs);
			g.refills = (g.refills || 0) + 1;
		}
	};
	await Promise.all(Array.from({ length: 8 }, worker));
	if (bad) return null;
	await ftpOp(g, OP.TERMINATE, session, 0, 0);
	return buf;
}

// A directory's entries ("Fname\tsize", "Dname", "S"), all of them.
async function ftpList(g, dir) {
	const out = [];
	for (;;) {
		const r = await ftpOp(g, OP.LIST, 0, out.length, dir.length, dir);
		if (!r || r.opcode !== OP.ACK) return r && r.opcode === OP.NAK && r.data[0] === ERR_EOF ? out : null;
		const got = r.data.toString('latin1').split('\0').filter(e => e !== '');
		if (!got.length) return out;
		out.push(...got);
	}
}

// param.pck into {magic, num, total, params: [{name, value, def}]}, as ArduPilot lays it out.
function decodePck(b) {
	const magic = b.readUInt16LE(0), num = b.readUInt16LE(2), total = b.readUInt16LE(4);
	const out = [];
	let pos = 6, last = '';
	while (pos < b.length) {
		if (b[pos] === 0) { pos++; continue; }
		const type = b[pos] & 15, flags = b[pos] >> 4;
		const common = b[pos + 1] & 15, len = (b[pos + 1] >> 4) + 1;
		const name = last.slice(0, common) + b.subarray(pos + 2, pos + 2 + len).toString('latin1');
		let v = pos + 2 + len, value, size;
		if (type === 1) { value = b.readInt8(v); size = 1; }
		else if (type === 2) { value = b.readInt16LE(v); size = 2; }
		else if (type === 3) { value = b.readInt32LE(v); size = 4; }
		else if (type === 4) { value = b.readFloatLE(v); size = 4; }
		else return null;
		let def = value;
		if (flags & 1) def = type === 4 ? b.readFloatLE(v + size) : type === 3 ? b.readInt32LE(v + size) :
			type === 2 ? b.readInt16LE(v + size) : b.readInt8(v + size);
		out.push({ name, value, def });
		pos = v + size + (flags & 1 ? size : 0);
		last = name;
	}
	return { magic, num, total, params: out };
}

// null when param.pck holds the PARAM_VALUE list's names and values in its order, else the first difference.
function sameParams(list, pck) {
	if (!pck || pck.params.length !== list.count) return `${pck ? pck.params.length : 0} of ${list.count}`;
	for (const [i, p] of list.params) {
		const q = pck.params[i];
		if (!q || q.name !== p.name || Math.fround(q.value) !== p.value)
			return `index ${i}: ${p.name}=${p.value} vs ${q && q.name}=${q && q.value}`;
	}
	return null;
}

module.exports = { m, registry, result, check, sleep, nowMs, bound, freePort, Gcs, heartbeat, paramName, text,
	paramSet, paramList, logId, logRequestData, uploadItems, downloadItems, sameItems,
	OP, ERR_EOF, DATA_MAX, ftpPacket, ftpParse, ftpOp, ftpDownload, ftpList, decodePck, sameParams };
