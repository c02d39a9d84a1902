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
const fs = require('fs');
const os = require('os');
const path = require('path');
const { result, check, sleep, nowMs: now, bound, Gcs: GcsBase, heartbeat, paramList, logId, logRequestData, OP,
	ftpOp, ftpDownload, decodePck, sameParams } = require('./gcs_lib.cjs');

const [fulmard, sanitized, logArg] = process.argv.slice(2);
const LOG_BYTES = Number(logArg || 1 << 20);
// Only the handlers see what comes: a log's worth of replies is not kept.
class Gcs extends GcsBase { constructor(port) { super(port, { keep: false }); } }

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fulmar-ftp-'));
let daemon = null, log = '';

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

// --- the session ------------------------------------------------------------

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

	// Parameters: the list, then param.pck. Through the lossy proxy no one
	// PARAM_REQUEST_LIST brings all 184 (0.9^184), and the request itself can
	// be lost: a ground station keeps what each attempt brought and asks again
	// (keeping only the last attempt failed the test whenever its request was
	// the one lost).
	let list = null;
	for (let i = 0; i < 8 && !(list && list.params.size === list.count); i++) {
		const l = await paramList(g);
		if (!list) list = l;
		if (l.count > 0) list.count = l.count;
		for (const [k, v] of l.params) list.params.set(k, v);
	}
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
	console.log(`${result.passed} passed, ${result.failed} failed`);
	if (result.failed) console.log(log);
	fs.rmSync(dir, { recursive: true, force: true });
	process.exit(result.failed ? 1 : 0);
})().catch(e => { console.log('FAIL - ' + e.stack); if (daemon) daemon.kill('SIGKILL'); process.exit(1); });
