// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 17's scripted ground-station session over a live flight: fulmar-sim in
// REAL TIME (not lock-step) and fulmard in HIL, flying the demo (missions/cmac-circuit.*:
// armed by rudder at 20 s, thrown at 26 s), with a node-mavlink ground station on
// fulmard's UDP link from the start. It sees, as a pilot's ground station would:
//  1. no fence breach at connect (SYS_STATUS's geofence bit healthy), SYS_STATUS's
//     present, enabled and health masks matching the simulated sensors, and the
//     airspeed sensor that fulmar-sim's time-line drops out for 5 s unhealthy
//     within its time and healthy again after;
//  2. the rates of the streams as sent by default (docs/mavlink.md's table,
//     printed), then REQUEST_DATA_STREAM honoured within 10 %;
//  3. @PARAM/param.pck over MAVFTP equal to the PARAM_VALUE list;
//  4. a fence (an inclusion polygon the circuit's first leg crosses) and rally
//     points uploaded and read back equal, FENCE_ENABLE 1 and FENCE_ACTION 1
//     (RTL) set; the breach flown: FENCE_STATUS, RTL (HEARTBEAT custom_mode 11),
//     the STATUSTEXT, the plane turning back to the nearest rally point;
//  5. fulmard stopped cleanly and started again, the flight's log over MAVFTP
//     burst read byte-identical to the file.
// Verdicts on time are judged on fulmard's own clock, never on when this process
// got to read a packet: each message is stamped with the latest time_boot_ms that
// fulmard sent before or with it (the samples' clock: in real-time HIL, the
// simulator's time plus its start on CLOCK_MONOTONIC, which is this process's
// nowMs() too), so a busy host cannot make a rate look wrong.
//   node gcs_live.cjs FULMARD FULMAR_SIM MISSIONS_DIR SANITIZED(true|false)
'use strict';
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { m, result, check, sleep, nowMs, freePort, Gcs, heartbeat, text, paramSet, paramList, logId,
	logRequestData, uploadItems, downloadItems, sameItems, ftpDownload, ftpList, decodePck, sameParams } = require('./gcs_lib.cjs');

const [fulmard, fulmarSim, missions, sanitized] = process.argv.slice(2);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fulmar-gcslive-'));
const HOME = { lat: -35.363261, lon: 149.165230 };
const EARTH_R = 6378137.0;
const DROPOUT = { sensor: 'airspeed', bit: 0x10, at: 10, dur: 5 };  // fulmar-sim's time-line
const THROW_S = 26;                                                   // the demo's time-line
// MAV_SYS_STATUS_SENSOR: what fulmar-sim simulates (gyro, accel, mag, baro, airspeed,
// GPS, RC receiver, battery), and what fulmard derives from them (AHRS, logging).
const SIM_SENSORS = 0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x20 | 0x10000 | 0x2000000;
const DERIVED = 0x200000 | 0x1000000;
const GEOFENCE = 0x100000;
// And what else fulmard may say it has: the controllers and motor outputs, the
// pre-arm checks, the fence. Nothing it has not (optical flow, a laser, terrain...).
const MAY_HAVE = SIM_SENSORS | DERIVED | 0xfc00 | 0x10000000 | GEOFENCE;
// An inclusion polygon whose north edge (200 m) cuts the first leg (to 300 m north),
// and two rally points inside it, the nearer one to the breach 200 m east of home.
const FENCE = [[-600, -250], [200, -250], [200, 450], [-600, 450]];
const RALLY = [[0, 200, 60], [-400, 100, 70]];
const EDGE_N = 200;
// The whole session, a hang check: a live flight to the breach takes about 70 s.
const WALL_LIMIT_MS = 240000;

let daemon = null, sim = null, dlog = '', slog = '', simT0 = null;
// Where fulmar-sim, starved of the CPU, fell behind real time and skipped ahead: its
// time then runs that much behind CLOCK_MONOTONIC (and fulmard re-anchors to it).
const skips = [];

function llOf(n, e) {
	return [HOME.lat + n / EARTH_R * 180 / Math.PI,
		HOME.lon + e / (EARTH_R * Math.cos(HOME.lat * Math.PI / 180)) * 180 / Math.PI];
}
function neOf(lat, lon) {
	return [(lat - HOME.lat) * Math.PI / 180 * EARTH_R,
		(lon - HOME.lon) * Math.PI / 180 * EARTH_R * Math.cos(HOME.lat * Math.PI / 180)];
}

function item(seq, type, command, p1, n, e, alt) {
	const it = new m.common.MissionItemInt();
	const [lat, lon] = llOf(n, e);
	it.targetSystem = 1; it.targetComponent = 1; it.seq = seq; it.frame = 3;
	it.current = 0; it.autocontinue = 1; it.param1 = p1; it.param2 = 0; it.param3 = 0; it.param4 = 0;
	it.command = command; it.x = Math.round(lat * 1e7); it.y = Math.round(lon * 1e7); it.z = alt;
	it.missionType = type;
	return it;
}
const fenceItems = FENCE.map(([n, e], i) => item(i, 1, 5001, FENCE.length, n, e, 0));
const rallyItems = RALLY.map(([n, e, a], i) => item(i, 2, 5100, 0, n, e, a));

function startDaemon(conf, args) {
	const p = spawn(fulmard, ['-c', conf, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
	p.stdout.on('data', d => { dlog += d; });
	p.stderr.on('data', d => { dlog += d; });
	p.exited = new Promise(r => p.on('exit', (code, sig) => r({ code, sig })));
	return p;
}

async function stopProc(p, ms = 20000) {
	if (!p || p.exitCode !== null || p.signalCode !== null) return p ? p.exited : null;
	p.kill('SIGTERM');
	const r = await Promise.race([p.exited, sleep(ms).then(() => null)]);
	if (r) return r;
	p.kill('SIGKILL');
	return { code: null, sig: 'SIGKILL (hung)' };
}

// --- fulmard's clock --------------------------------------------------------------

// A time on CLOCK_MONOTONIC since the simulator's start (s) in the simulator's time.
function toSim(x) {
	let y = x;
	for (const k of skips) if (k.at <= x) y -= k.s;
	return y;
}

// The messages that carry a time_boot_ms on the samples' clock.
const STAMPED = new Set([2, 26, 29, 30, 32, 33, 65, 87]);

// Each message of `got` (arrival order) with t: the latest time_boot_ms (s) sent
// with or before it, in the simulator's time (null before the first).
function stamp(got) {
	let t = null;
	for (const p of got) {
		if (STAMPED.has(p.id) && p.data.timeBootMs) {
			const s = toSim(((p.data.timeBootMs - simT0) >>> 0) / 1000);   // uint32 ms, wraps
			if (s < 1e6 && (t === null || s > t)) t = s;
		}
		p.t = t;
	}
	return got;
}

// Per message id, its rate over [a, b) of fulmard's clock: (n - 1) / (last - first)
// of its stamps, and the same by arrival here, for comparison.
function rates(got, a, b) {
	const by = new Map();
	for (const p of got) {
		if (p.t === null || p.t < a || p.t >= b) continue;
		if (!by.has(p.id)) by.set(p.id, []);
		by.get(p.id).push(p);
	}
	const out = new Map();
	for (const [id, ps] of by) {
		const n = ps.length;
		const span = ps[n - 1].t - ps[0].t, arr = (ps[n - 1].at - ps[0].at) / 1000;
		out.set(id, { n, hz: n > 1 && span > 0 ? (n - 1) / span : 0, arrivalHz: n > 1 && arr > 0 ? (n - 1) / arr : 0 });
	}
	return out;
}

const NAMES = { 1: 'SYS_STATUS', 2: 'SYSTEM_TIME', 24: 'GPS_RAW_INT', 26: 'SCALED_IMU', 27: 'RAW_IMU',
	29: 'SCALED_PRESSURE', 30: 'ATTITUDE', 32: 'LOCAL_POSITION_NED', 33: 'GLOBAL_POSITION_INT',
	36: 'SERVO_OUTPUT_RAW', 42: 'MISSION_CURRENT', 62: 'NAV_CONTROLLER_OUTPUT', 65: 'RC_CHANNELS',
	74: 'VFR_HUD', 87: 'POSITION_TARGET_GLOBAL_INT', 125: 'POWER_STATUS', 147: 'BATTERY_STATUS',
	152: 'MEMINFO', 162: 'FENCE_STATUS', 163: 'AHRS', 168: 'WIND', 178: 'AHRS2', 193: 'EKF_STATUS_REPORT',
	230: 'ESTIMATOR_STATUS', 241: 'VIBRATION', 242: 'HOME_POSITION', 0: 'HEARTBEAT', 253: 'STATUSTEXT',
	148: 'AUTOPILOT_VERSION', 22: 'PARAM_VALUE', 110: 'FILE_TRANSFER_PROTOCOL' };
// docs/mavlink.md's table: every stream at 1 Hz by default; in flight in AUTO with a
// fence enabled, a battery and a home, all of them are sent (HEARTBEAT is not a stream).
const DEFAULT_STREAMS = [30, 33, 74, 1, 24, 42, 162, 242, 62, 87, 147, 193, 65, 36, 168, 2, 125, 178, 163,
	241, 32, 230, 152, 29, 27, 26];

// --- the session ------------------------------------------------------------------

async function waitFor(pred, ms) {
	const end = nowMs() + ms;
	while (nowMs() < end) {
		const v = pred();
		if (v) return v;
		if (daemon && daemon.exitCode !== null) return pred();
		await sleep(50);
	}
	return pred();
}

// The simulator's time now (s), by this process's clock (its skips not taken out).
const simNow = () => simT0 === null ? 0 : (nowMs() - simT0) / 1000;

async function untilSim(s) {
	while (simNow() < s) await sleep(50);
}

async function session() {
	const gcsPort = await freePort(), simPort = await freePort();
	fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
	const conf = path.join(dir, 'fulmard.conf');
	fs.writeFileSync(conf, `[daemon]\nstate_dir = ${dir}/state\nlog_dir = ${dir}/logs\n` +
		`[sched]\nlock_memory = ${sanitized === 'true' ? 'false' : 'true'}\n` +
		`[mavlink]\nlink0 = udp-server:127.0.0.1:${gcsPort}\n`);
	fs.writeFileSync(path.join(dir, 'p.param'), fs.readFileSync(path.join(missions, 'cmac-circuit.param')));
	fs.writeFileSync(path.join(dir, 'timeline'), fs.readFileSync(path.join(missions, 'cmac-circuit.timeline')) +
		`${DROPOUT.at} dropout ${DROPOUT.sensor} ${DROPOUT.dur}\n`);

	// The ground station first, beating at 1 Hz as one does, from before fulmard is up.
	const g = new Gcs(gcsPort);
	await g.open();
	const beat = setInterval(() => g.send(heartbeat()).catch(() => {}), 1000);
	g.send(heartbeat());

	// tools/demo's world (flight_report.DEMO_WORLD), in real time.
	// The simulator stands for the world, which does not wait for a busy CPU: SCHED_FIFO 1
	// where it may (chrt), below every thread of fulmard's, as test_hil.py's real-time
	// flights. Without it, under AddressSanitizer beside stress-ng at load 11, fulmar-sim
	// fell behind over 40 times in 200 s and the rudder's arming never came within 60 s.
	const simArgs = ['--listen', `127.0.0.1:${simPort}`, '--rc-mode-pwm', '1550',
		'--faults', path.join(dir, 'timeline'), '--status-hz', '0', '--duration', '300', '--timeout', '10',
		'--seed', '1', '--wind', '5,90', '--turbulence', '3', '--realtime'];
	const fifo = spawnSync('chrt', ['-f', '1', 'true']).status === 0;
	console.log(`# fulmar-sim ${fifo ? 'at SCHED_FIFO 1' : 'with normal scheduling (chrt -f 1 not allowed here)'}`);
	const [cmd, ...pre] = fifo ? ['chrt', '-f', '1', fulmarSim] : [fulmarSim];
	sim = spawn(cmd, [...pre, ...simArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
	sim.exited = new Promise(r => sim.on('exit', (code, sig) => r({ code, sig })));
	// Its time starts as it first hears the autopilot (it says so): this process's
	// CLOCK_MONOTONIC then is its time 0 on fulmard's samples' clock.
	sim.stderr.on('data', d => {
		slog += d;
		if (simT0 === null && /autopilot at/.test(slog)) simT0 = nowMs();
		for (const x of String(d).matchAll(/fell ([0-9.]+) s behind real time/g))
			skips.push({ at: simNow(), s: Number(x[1]) });
	});
	const spawned = nowMs();
	daemon = startDaemon(conf, ['--hil', `udp:127.0.0.1:${simPort}`,
		'--load-mission', path.join(missions, 'cmac-circuit.waypoints'), '--load-params', path.join(dir, 'p.param')]);
	await waitFor(() => simT0 !== null, 30000);
	check(simT0 !== null, `fulmar-sim in real time hears fulmard (${simT0 === null ? '-' : (simT0 - spawned).toFixed(0)} ms after the start)`);
	if (simT0 === null) simT0 = spawned;

	// 1. At connect: no breach.
	// (What came stays in g.got, in order, for the verdicts on fulmard's clock at the end:
	// found here, never taken out.)
	const seen = (pred, from = 0) => g.got.slice(from).find(pred);
	const first = await waitFor(() => seen(p => p.id === 1), 5000);
	const P0 = first ? first.data.onboardControlSensorsPresent : 0, H0 = first ? first.data.onboardControlSensorsHealth : 0;
	check(first && (H0 & GEOFENCE) && !(P0 & GEOFENCE),
		`at connect no fence breach: SYS_STATUS geofence bit healthy, not present (present 0x${P0.toString(16)}, health 0x${H0.toString(16)})`);
	check(!g.got.some(p => p.id === 162), 'and no FENCE_STATUS without a fence');

	// 4a. The fence and rally points, on the ground, as a pilot plans them.
	check(await uploadItems(g, fenceItems, 1) === 'accepted', `an inclusion polygon of ${FENCE.length} vertices uploaded (north edge ${EDGE_N} m)`);
	check(await uploadItems(g, rallyItems, 2) === 'accepted', `${RALLY.length} rally points uploaded`);
	check(sameItems(await downloadItems(g, 1), fenceItems), 'the fence read back: what was sent');
	check(sameItems(await downloadItems(g, 2), rallyItems), 'the rally points read back: what was sent');
	const act = await paramSet(g, 'FENCE_ACTION', 1, 2);
	const ena = await paramSet(g, 'FENCE_ENABLE', 1, 2);
	check(act === 1 && ena === 1, `FENCE_ACTION 1 (RTL) and FENCE_ENABLE 1 set (${act}, ${ena})`);
	const mark = g.got.length;
	const fs0 = await waitFor(() => seen(p => p.id === 162, mark), 3000);
	check(fs0 && fs0.data.breachStatus === 0 && fs0.data.breachCount === 0,
		`FENCE_STATUS with the fence enabled on the ground: no breach (${fs0 && [fs0.data.breachStatus, fs0.data.breachCount]})`);
	const ss = await waitFor(() => seen(p => p.id === 1, mark), 3000);
	const Pf = ss ? ss.data.onboardControlSensorsPresent : 0, Ef = ss ? ss.data.onboardControlSensorsEnabled : 0,
		Hf = ss ? ss.data.onboardControlSensorsHealth : 0;
	check((Pf & Ef & Hf & GEOFENCE) !== 0, 'SYS_STATUS geofence bit present, enabled and healthy');

	// 3. The parameters over MAVFTP against the PARAM_VALUE list (again once should a
	// parameter change between the two).
	let diff = 'not read', list = null, pck = null, pckMs = 0;
	for (let i = 0; i < 2 && diff !== null; i++) {
		list = await paramList(g);
		const t0 = nowMs();
		const buf = await ftpDownload(g, '@PARAM/param.pck');
		pckMs = nowMs() - t0;
		pck = buf && decodePck(buf);
		diff = pck && pck.magic === 0x671b ? sameParams(list, pck) : 'no param.pck';
		if (diff) console.log(`# param.pck against the list, try ${i + 1}: ${diff}`);
	}
	check(diff === null, `@PARAM/param.pck over MAVFTP equals the PARAM_VALUE list in flight's run-up: ` +
		`${list.count} parameters (${pckMs.toFixed(0)} ms, the list ${list.ms.toFixed(0)} ms)`);

	// Waiting for the flight: armed by the pilot's rudder (20 s), thrown (26 s); the
	// breach, said, flown, and the plane turning back.
	const armed = await waitFor(() => g.got.find(p => p.id === 0 && (p.data.baseMode & 128)), 60000);
	check(armed, `armed by the pilot's rudder, as HEARTBEAT says, at ${armed ? simNow().toFixed(1) : '-'} s`);
	const gpi = () => g.got.filter(p => p.id === 33);
	const said = await waitFor(() => g.got.find(p => p.id === 253 && /^Fence breached/.test(text(p.data))), 120000);
	const breachAt = said ? simNow() : null;
	check(said && text(said.data) === 'Fence breached: polygon: RTL',
		`STATUSTEXT "${said ? text(said.data) : '(none)'}" at ${breachAt ? breachAt.toFixed(1) : '-'} s`);
	const rtl = await waitFor(() => g.got.find(p => p.id === 0 && p.data.customMode === 11), 5000);
	check(rtl, 'HEARTBEAT custom_mode 11: RTL');
	const fsb = await waitFor(() => g.got.find(p => p.id === 162 && p.data.breachStatus === 1), 5000);
	check(fsb && fsb.data.breachCount === 1 && fsb.data.breachType === 3,
		`FENCE_STATUS breached (boundary, count ${fsb && fsb.data.breachCount}, type ${fsb && fsb.data.breachType})`);
	const unhealthy = g.got.find(p => p.id === 1 && !(p.data.onboardControlSensorsHealth & GEOFENCE));
	check(unhealthy, 'SYS_STATUS geofence bit unhealthy in the breach');
	// Turning back: north of home at most 80 m past the edge, and heading south.
	let back = null;
	if (said) back = await waitFor(() => {
		const ns = gpi().map(p => neOf(p.data.lat / 1e7, p.data.lon / 1e7)[0]);
		const top = Math.max(...ns);
		return ns.length && ns[ns.length - 1] < top - 60 ? { top, now: ns[ns.length - 1] } : null;
	}, 40000);
	check(back && back.top < EDGE_N + 80, `the plane turned back: ${back ? back.top.toFixed(0) : '-'} m north at most ` +
		`(the edge ${EDGE_N} m), then ${back ? back.now.toFixed(0) : '-'} m`);
	const target = g.got.filter(p => p.id === 87).pop();
	const tgt = target ? neOf(target.data.latInt / 1e7, target.data.lonInt / 1e7) : [NaN, NaN];
	check(target && Math.hypot(tgt[0] - RALLY[0][0], tgt[1] - RALLY[0][1]) < 2,
		`flying to the nearest rally point (${RALLY[0][0]} m N, ${RALLY[0][1]} m E): POSITION_TARGET_GLOBAL_INT ` +
		`${tgt[0].toFixed(0)} m N, ${tgt[1].toFixed(0)} m E`);
	const defaultsEnd = simNow();

	// 2. REQUEST_DATA_STREAM, as MAVProxy sends it, while the plane flies home.
	const asked = { 2: 4, 10: 10, 6: 10 };
	const groups = { 2: [1, 24, 42, 62, 87, 125, 152, 162], 10: [30, 178], 6: [33, 32] };
	for (const [id, hz] of Object.entries(asked)) {
		const r = new m.common.RequestDataStream();
		r.targetSystem = 1; r.targetComponent = 1; r.reqStreamId = Number(id); r.reqMessageRate = hz; r.startStop = 1;
		await g.send(r);
	}
	const reqAt = simNow();
	await untilSim(reqAt + 7.5);
	const streamsEnd = simNow();

	// 5. fulmard stopped cleanly (the log closed), the simulator after it.
	clearInterval(beat);
	const dstop = await stopProc(daemon);
	check(dstop && dstop.code === 0, `fulmard stops cleanly on SIGTERM (${dstop && (dstop.code ?? dstop.sig)})`);
	await stopProc(sim);

	// The verdicts on what came, on fulmard's clock.
	stamp(g.got);
	const st = g.got.filter(p => p.id === 1 && p.t !== null);
	// Each SYS_STATUS's time is at most a stream tick after its stamp: judged where
	// that cannot straddle the dropout's edges (the bit goes 0.5 s after the last sample).
	const { at: d0, dur, bit } = DROPOUT;
	const during = st.filter(p => p.t >= d0 + 0.6 && p.t + 1.0 <= d0 + dur);
	// Where the simulator stood still (starved: it says so), its sensors really went
	// stale for fulmard too: those SYS_STATUS are not judged healthy or not.
	const stalls = skips.map(k => toSim(k.at - k.s));
	const stalled = p => stalls.some(T => p.t >= T - 1.0 && p.t <= T + 1.5);
	const around = st.filter(p => ((p.t >= 5 && p.t + 1.0 < d0) || (p.t >= d0 + dur + 0.3 && p.t < THROW_S - 2)) &&
		!stalled(p));
	if (skips.length)
		console.log(`# fulmar-sim stood still at ${stalls.map(t => t.toFixed(1)).join(', ')} s of its time: ` +
			`${st.filter(stalled).length} SYS_STATUS about then not judged`);
	const mask = p => [p.data.onboardControlSensorsPresent, p.data.onboardControlSensorsEnabled, p.data.onboardControlSensorsHealth];
	const hex = v => '0x' + v.toString(16);
	const want = SIM_SENSORS | DERIVED;
	const badAround = around.filter(p => { const [P, E, H] = mask(p); return (P & E & H & want) !== want || (P & ~MAY_HAVE); });
	check(around.length >= 6 && !badAround.length,
		`SYS_STATUS: the simulated sensors (${hex(SIM_SENSORS)}), AHRS and logging present, enabled and healthy, ` +
		`nothing present that is not there (${hex(MAY_HAVE)} at most), in ` +
		`${around.length} before and after the dropout (e.g. present ${hex(mask(around[0] || first)[0])}, health ${hex(mask(around[0] || first)[2])})` +
		(badAround.length ? `: not in ${badAround.map(p => `${p.t.toFixed(1)} s ${mask(p).map(hex)}`).join(', ')}` : ''));
	const badDuring = during.filter(p => { const [P, E, H] = mask(p); return (H & bit) || (P & E & bit) !== bit || (H & want & ~bit) !== (want & ~bit); });
	check(during.length >= 2 && !badDuring.length,
		`${DROPOUT.sensor} dropped out by fulmar-sim from ${d0} s for ${dur} s: its health bit clear (present and ` +
		`enabled, the others healthy) in the ${during.length} SYS_STATUS from ${d0 + 0.6} s` +
		(badDuring.length ? `: not in ${badDuring.map(p => `${p.t.toFixed(1)} s ${mask(p).map(hex)}`).join(', ')}` : ''));
	const healthyAgain = st.find(p => p.t >= d0 + dur && (mask(p)[2] & bit));
	check(healthyAgain && healthyAgain.t < d0 + dur + 1.6,
		`and healthy again at ${healthyAgain ? healthyAgain.t.toFixed(1) : '-'} s (back at ${d0 + dur} s)`);

	// The rates sent by default: from 3 s after the throw until REQUEST_DATA_STREAM.
	// (Ended a stamp period before the requests: a message sent after them is stamped up to
	// a period late, by the 1 Hz ATTITUDE before it.)
	const a = THROW_S + 3, b = toSim(Math.min(defaultsEnd, reqAt)) - 1.5;
	const def = rates(g.got, a, b);
	console.log(`# rates as sent by default, ${(b - a).toFixed(1)} s in flight (fulmard's clock; by arrival here):`);
	for (const id of DEFAULT_STREAMS.concat([...def.keys()].filter(i => !DEFAULT_STREAMS.includes(i)).sort((x, y) => x - y))) {
		const r = def.get(id);
		console.log(`#   ${(NAMES[id] || 'msg ' + id).padEnd(28)} ${String(id).padStart(3)}  ` +
			(r ? `${r.hz.toFixed(2)} Hz (${r.arrivalHz.toFixed(2)}), ${r.n} messages` : 'not sent'));
	}
	const offDefault = DEFAULT_STREAMS.filter(id => !def.has(id) || Math.abs(def.get(id).hz - 1) > 0.1);
	check(b - a >= 8 && !offDefault.length, `every stream of docs/mavlink.md's table at its default 1 Hz within 10 % over ` +
		`${(b - a).toFixed(1)} s` + (offDefault.length ? `: not ${offDefault.map(i => `${NAMES[i]} ${def.has(i) ? def.get(i).hz.toFixed(2) : 'absent'}`).join(', ')}` : ''));

	// REQUEST_DATA_STREAM: from 1.5 s after the requests (they are taken within a tick).
	const req = rates(g.got, toSim(reqAt) + 1.5, toSim(streamsEnd));
	for (const [id, hz] of Object.entries(asked))
		for (const msg of groups[id]) {
			const r = req.get(msg);
			check(r && r.n >= 4 * hz && Math.abs(r.hz - hz) <= 0.1 * hz,
				`REQUEST_DATA_STREAM ${id} at ${hz} Hz: ${NAMES[msg]} at ${r ? r.hz.toFixed(2) : 0} Hz ` +
				`(${r ? r.n : 0} messages; ${r ? r.arrivalHz.toFixed(2) : 0} Hz by arrival)`);
		}
	g.close();

	// 5. The flight's log over MAVFTP, from fulmard started again (idle): byte-identical.
	const bins = fs.readdirSync(path.join(dir, 'logs')).filter(f => /\.BIN$/.test(f));
	const flightLog = bins.map(f => ({ f, size: fs.statSync(path.join(dir, 'logs', f)).size })).sort((x, y) => y.size - x.size)[0];
	check(flightLog && flightLog.size > 0, `the flight's log on disk: ${flightLog ? `${flightLog.f}, ${flightLog.size} bytes` : 'none'}`);
	const port2 = await freePort();
	fs.writeFileSync(conf, fs.readFileSync(conf, 'utf8').replace(/udp-server:127\.0\.0\.1:\d+/, `udp-server:127.0.0.1:${port2}`));
	const from = dlog.length;
	daemon = startDaemon(conf, []);
	await waitFor(() => dlog.slice(from).includes('running: six threads'), 30000);
	const g2 = new Gcs(port2, { keep: false });
	await g2.open();
	await g2.send(heartbeat());
	await g2.until(p => p.id === 0, 3000);
	if (flightLog) {
		const bytes = fs.readFileSync(path.join(dir, 'logs', flightLog.f));
		const entries = await ftpList(g2, '/APM/LOGS');
		check(entries && entries.includes(`F${flightLog.f}\t${bytes.length}`), `/APM/LOGS lists ${flightLog.f} with its size`);
		const t0 = nowMs();
		const got = await ftpDownload(g2, `/APM/LOGS/${flightLog.f}`);
		const ms = nowMs() - t0;
		check(got && got.equals(bytes), `the flight's log over MAVFTP burst read is byte-identical to the file ` +
			`(${bytes.length} bytes in ${(ms / 1000).toFixed(2)} s, ${(bytes.length / ms).toFixed(0)} kB/s; ` +
			`${g2.retries || 0} requests retried, ${g2.refills || 0} blocks read again)`);
		// The old path, for the figures (docs/mavlink.md): the same log by LOG_REQUEST_DATA.
		const id = await logId(g2, bytes.length);
		const old = id > 0 ? await logRequestData(g2, id, bytes.length) : null;
		check(old && old.buf.equals(bytes), `and by LOG_REQUEST_DATA (id ${id}) the same bytes, in ` +
			`${old ? (old.ms / 1000).toFixed(2) : '-'} s: MAVFTP ${old ? (old.ms / ms).toFixed(1) : '-'}x as fast`);
	}
	g2.close();
	const r2 = await stopProc(daemon);
	check(r2 && r2.code === 0, 'fulmard (idle) stops cleanly');
	daemon = null;
	const behind = (slog.match(/behind real time/g) || []).length;
	console.log(`# fulmar-sim fell behind real time ${behind} times; the session took ${((nowMs() - spawned) / 1000).toFixed(0)} s`);
}

const limit = setTimeout(() => {
	console.log(`FAIL - the session still running after ${WALL_LIMIT_MS / 1000} s (hung?)`);
	for (const p of [daemon, sim]) if (p && p.exitCode === null) p.kill('SIGKILL');
	console.log(dlog);
	process.exit(1);
}, WALL_LIMIT_MS);

session().then(() => {
	clearTimeout(limit);
	console.log(`${result.passed} passed, ${result.failed} failed`);
	if (result.failed) { console.log('--- fulmard:\n' + dlog); console.log('--- fulmar-sim:\n' + slog); }
	fs.rmSync(dir, { recursive: true, force: true });
	process.exit(result.failed ? 1 : 0);
}).catch(e => {
	console.log('FAIL - ' + e.stack);
	for (const p of [daemon, sim]) if (p && p.exitCode === null) p.kill('SIGKILL');
	process.exit(1);
});
