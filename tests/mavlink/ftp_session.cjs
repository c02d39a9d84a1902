// SPDX-License-Identifier: GPL-3.0-or-later
// MAVFTP against a real fulmard over UDP on loopback, with a ground station
// written with node-mavlink: @PARAM/param.pck decoded and compared with the
// PARAM_VALUE list, a log downloaded by burst read and compared with the file,
// both again through a proxy that drops 10 % of the packets each way. Prints
// (never asserts) the times against PARAM_REQUEST_LIST and LOG_REQUEST_DATA.
//   node ftp_session.cjs FULMARD SANITIZED(true|false) [LOG_BYTES]
'use strict';
const { spawn } = require('child_process');
const crypto = require('crypto');
const dgram = require('dgram');
const fs = require('fs');
const os = require('os');
const path = require('path');
const m = require('node-mavlink');

const [fulmard, sanitized, logArg] = process.argv.slice(2);
const LOG_BYTES = Number(logArg || 1 << 20);
const registry = { ...m.minimal.REGISTRY, ...m.common.REGISTRY, ...m.ardupilotmega.REGISTRY };
let passed = 0, failed = 0;
function check(ok, what) {
	if (ok) { passed++; console.log('ok - ' + what); }
	else { failed++; console.log('FAIL - ' + what); }
}
const sleep = ms => new Promise(r => setTimeout(r, ms));
const now = () => Number(process.hrtime.bigint() / 1000n) / 1000;  // ms

const OP = { TERMINATE: 1, RESET: 2, LIST: 3, OPEN_RO: 4, READ: 5, BURST: 15, ACK: 128, NAK: 129 };
const ERR_EOF = 6;
const DATA_MAX = 239;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fulmar-ftp-'));
let daemon = null, log = '';

async function bound() {
	const s = dgram.createSocket('udp4');
	await new Promise(r => s.bind(0, '127.0.0.1', r));
	return s;
}

async function start(port) {
	fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
	fs.writeFileSync(path.join(dir, 'fulmard.conf'),
		`[daemon]\nstate_dir = ${dir}/state\nlog_dir = ${dir}/logs\n[sched]\nlock_memory = ${sanitized === 'true' ? 'false' : 'true'}\n` +
		`[mavlink]\nlink0 = udp-server:127.0.0.1:${port}\n`);
	daemon = spawn(fulmard, ['--config', path.join(dir, 'fulmard.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
	daemon.stdout.on('data', d => { log += d; });
	daemon.stderr.on('data', d => { log += d; });
	for (let i = 0; i < 600 && !log.includes('running: six threads'); i++) await sleep(50);
}

// A proxy between the ground station and fulmard that drops a share of the packets each way.
async function lossyProxy(target, loss) {
	const front = await bound(), back = await bound();
	let gcsAddr = null;
	const stats = { dropped: 0, passed: 0 };
	const pass = () => { if (Math.random() < loss) { stats.dropped++; return false; } stats.passed++; return true; };
	front.on('message', (msg, rinfo) => {
		gcsAddr = rinfo;
		if (pass()) back.send(msg, target, '127.0.0.1');
	});
	back.on('message', msg => { if (gcsAddr && pass()) front.send(msg, gcsAddr.port, gcsAddr.address); });
	return { port: front.address().port, stats, close() { front.close(); back.close(); } };
}

class Gcs {
	constructor(port) {
		this.port = port;
		this.proto = new m.MavLinkProtocolV2(255, 190);
		this.seq = 0;
		this.ftpSeq = 0;
		this.handlers = new Set();
		this.splitter = new m.MavLinkPacketSplitter({}, { onCrcError: () => {} });
		const parser = new m.MavLinkPacketParser();
		this.splitter.pipe(parser);
		parser.on('data', p => {
			const clazz = registry[p.header.msgid];
			if (!clazz) return;
			const msg = { id: p.header.msgid, data: p.protocol.data(p.payload, clazz) };
			for (const h of this.handlers) h(msg);
		});
	}
	async open() {
		this.sock = await bound();
		this.sock.on('message', msg => this.splitter.write(msg));
	}
	send(msg) {
		const buf = this.proto.serialize(msg, this.seq++ & 255);
		return new Promise(r => this.sock.send(buf, this.port, '127.0.0.1', r));
	}
	// Calls fn on every message until it returns true or ms pass without one that it took.
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

// --- the FTP client ---------------------------------------------------------

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

// param.pck into [{name, value}], as ArduPilot's format lays it out.
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

// --- the old paths ----------------------------------------------------------

async function paramList(g) {
	const params = new Map();
	let count = -1;
	const req = new m.common.ParamRequestList();
	req.targetSystem = 1; req.targetComponent = 1;
	const t0 = now();
	const wait = g.until(msg => {
		if (msg.id !== 22) return false;
		count = msg.data.paramCount;
		params.set(msg.data.paramIndex, { name: String(msg.data.paramId).replace(/\0.*$/, ''), value: msg.data.paramValue });
		return params.size === count ? true : 'more';
	}, 2000);
	await g.send(req);
	await wait;
	return { params, count, ms: now() - t0 };
}

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
	const t0 = now();
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
	return { buf, ms: now() - t0 };
}

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

// --- the session ------------------------------------------------------------

function sameParams(list, pck) {
	if (!pck || pck.params.length !== list.count) return `${pck ? pck.params.length : 0} of ${list.count}`;
	for (const [i, p] of list.params) {
		const q = pck.params[i];
		if (!q || q.name !== p.name || Math.fround(q.value) !== p.value)
			return `index ${i}: ${p.name}=${p.value} vs ${q && q.name}=${q && q.value}`;
	}
	return null;
}

async function session(port, label, logFile, logBytes, figures) {
	const g = new Gcs(port);
	await g.open();
	// A ground station says its heartbeat every second; through the lossy
	// proxy one of them (or fulmard's answer) may be lost, so keep saying it.
	const hb = g.until(msg => msg.id === 0, 8000);
	let answered = false;
	hb.then(ok => { answered = ok; });
	for (let i = 0; i < 8 && !answered; i++) {
		await g.send(heartbeat());
		await Promise.race([hb, sleep(1000)]);
	}
	check(await hb, `${label}: fulmard answers`);

	// Parameters: the list, then param.pck.
	let list = null;
	for (let i = 0; i < 5 && !(list && list.params.size === list.count); i++) list = await paramList(g);
	const t0 = now();
	const pckBuf = await ftpDownload(g, '@PARAM/param.pck?withdefaults=1');
	const pckMs = now() - t0;
	const pck = pckBuf && decodePck(pckBuf);
	check(pck && pck.magic === 0x671c && pck.num === pck.total,
		`${label}: @PARAM/param.pck?withdefaults=1 downloaded (${pckBuf && pckBuf.length} bytes, magic 0x${pck && pck.magic.toString(16)})`);
	const diff = sameParams(list, pck);
	check(diff === null, `${label}: every name and value in param.pck equals the PARAM_VALUE list (${list.count} parameters)${diff ? ': ' + diff : ''}`);
	figures.push(`${label}: parameters over MAVFTP ${pckMs.toFixed(0)} ms` +
		(label === 'loopback' ? ` vs PARAM_REQUEST_LIST ${list.ms.toFixed(0)} ms` : ''));

	if (label === 'loopback') {
		const threads = await ftpDownload(g, '@SYS/threads.txt');
		const text = threads ? threads.toString('latin1') : '';
		check(/\bmain\b/.test(text) && /\bio\b/.test(text), `@SYS/threads.txt is the scheduler's report (${text.split('\n').length} lines)`);
	}

	// The log: its listing, then burst read.
	const ls = await ftpOp(g, OP.LIST, 0, 0, 9, '/APM/LOGS');
	const entries = ls && ls.opcode === OP.ACK ? ls.data.toString('latin1').split('\0') : [];
	check(entries.includes(`F${path.basename(logFile)}\t${logBytes.length}`), `${label}: /APM/LOGS lists ${path.basename(logFile)} with its size`);
	const t1 = now();
	const got = await ftpDownload(g, `/APM/LOGS/${path.basename(logFile)}`);
	const ftpMs = now() - t1;
	check(got && got.equals(logBytes), `${label}: the log over MAVFTP burst read is byte-identical to the file (${logBytes.length} bytes)`);
	let line = `${label}: log of ${logBytes.length} bytes over MAVFTP burst ${ftpMs.toFixed(0)} ms ` +
		`(${(logBytes.length / ftpMs).toFixed(0)} kB/s; ${g.retries || 0} requests retried, ${g.refills || 0} blocks re-read)`;
	if (label === 'loopback') {
		const id = await logId(g, logBytes.length);
		check(id > 0, `${label}: LOG_REQUEST_LIST lists the log`);
		const old = await logRequestData(g, id, logBytes.length);
		check(old.buf.equals(logBytes), `${label}: and LOG_REQUEST_DATA gives the same bytes`);
		line += ` vs LOG_REQUEST_DATA ${old.ms.toFixed(0)} ms (${(logBytes.length / old.ms).toFixed(0)} kB/s): ` +
			`${(old.ms / ftpMs).toFixed(1)}x`;
	}
	figures.push(line);
	g.close();
}

(async () => {
	const sock = await bound();
	const port = sock.address().port;
	sock.close();
	// A log as the writer leaves them, of made-up bytes: the transfer is what is tested.
	const logFile = path.join(dir, 'logs', '7.BIN');
	const logBytes = crypto.randomBytes(LOG_BYTES);
	fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
	fs.writeFileSync(logFile, logBytes);
	await start(port);
	check(daemon !== null && log.includes('running: six threads'), 'fulmard starts with a UDP link');
	const figures = [];
	await session(port, 'loopback', logFile, logBytes, figures);
	const proxy = await lossyProxy(port, 0.10);
	await session(proxy.port, '10 % loss', logFile, logBytes, figures);
	// fulmard packs several frames into a datagram: a lost datagram loses them all.
	figures.push(`10 % loss: the proxy dropped ${proxy.stats.dropped} of ${proxy.stats.dropped + proxy.stats.passed} datagrams`);
	proxy.close();
	const done = new Promise(r => daemon.on('exit', (code, sig) => r({ code, sig })));
	daemon.kill('SIGTERM');
	const r = await done;
	check(r.code === 0, 'fulmard stops cleanly');
	for (const f of figures) console.log('# ' + f);
	console.log(`${passed} passed, ${failed} failed`);
	if (failed) console.log(log);
	fs.rmSync(dir, { recursive: true, force: true });
	process.exit(failed ? 1 : 0);
})().catch(e => { console.log('FAIL - ' + e.stack); if (daemon) daemon.kill('SIGKILL'); process.exit(1); });
