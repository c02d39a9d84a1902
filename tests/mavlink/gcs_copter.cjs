// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 39's ground-station session with a COPTER: fulmar-sim's quad (--airframe quad)
// in REAL TIME and fulmard in HIL with [daemon] vehicle = copter, a node-mavlink ground
// station on fulmard's UDP link from the start. It checks what MAVProxy and
// QGroundControl rely on for ArduCopter:
//  1. HEARTBEAT: MAV_TYPE_QUADROTOR (2), MAV_AUTOPILOT_ARDUPILOTMEGA (3), custom_mode
//     STABILIZE (0) at the start, MAV_MODE_FLAG_CUSTOM_MODE_ENABLED in base_mode, the
//     armed flag following arming and the landing's disarm;
//  2. PARAM_REQUEST_LIST: the copter's rows and none of the plane's, param_count the
//     same in every PARAM_VALUE, every index from 0 to param_count - 1; PARAM_SET echoed;
//     FENCE_ENABLE 1: FENCE_STATUS without a breach, SYS_STATUS's geofence bit healthy;
//  3. modes by number as MAVProxy sends them (SET_MODE and COMMAND_LONG DO_SET_MODE):
//     GUIDED (4) and STABILIZE (0) taken, an unknown number refused with its reason;
//  4. MAVProxy's "mode guided; arm throttle; takeoff 10": COMPONENT_ARM_DISARM, NAV_TAKEOFF
//     (param7 10 m) accepted, relative_alt at 10 m and held; a second takeoff refused
//     ("Takeoff: flying already"); DO_REPOSITION as QGroundControl sends it (COMMAND_INT,
//     MAV_FRAME_GLOBAL, above sea level) and SET_POSITION_TARGET_GLOBAL_INT (relative)
//     each to a point 30 m away, reached, NAV_CONTROLLER_OUTPUT and
//     POSITION_TARGET_GLOBAL_INT saying so; RETURN_TO_LAUNCH: RTL (6), landed near home
//     and disarmed;
//  5. missions/copter-square.waypoints (QGC WPL 110) uploaded on the ground with
//     MISSION_ITEM_INT and read back equal; MISSION_START in the air: AUTO (3), its
//     takeoff item flown (before 4's RTL); on the ground again MISSION_START: AUTO, and
//     arming in AUTO refused with its reason.
// Verdicts on time are judged on fulmard's own clock (the time_boot_ms of its
// GLOBAL_POSITION_INT), never on when this process got to read a packet; the wall clock
// only bounds the waits, generously, so a busy host cannot fail the session.
//   node gcs_copter.cjs FULMARD FULMAR_SIM MISSIONS_DIR SANITIZED(true|false)
'use strict';
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { m, result, check, sleep, nowMs, freePort, Gcs, heartbeat, text, paramSet, paramList,
	uploadItems, downloadItems } = require('./gcs_lib.cjs');

const [fulmard, fulmarSim, missions, sanitized] = process.argv.slice(2);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fulmar-gcscopter-'));
const EARTH_R = 6378137.0;
const COPTER_ROWS = ['ATC_RAT_RLL_P', 'PSC_POSXY_P', 'WPNAV_SPEED', 'MOT_SPIN_MIN', 'FRAME_CLASS',
	'PHLD_BRAKE_RATE', 'FS_EKF_THRESH', 'RTL_ALT', 'LAND_SPEED', 'LOIT_SPEED', 'MOT_THST_HOVER'];
const PLANE_ROWS = ['TECS_CLMB_MAX', 'NAVL1_PERIOD', 'TKOFF_THR_SLEW', 'ARSPD_USE', 'TRIM_ARSPD_CM',
	'STAB_PITCH_DOWN', 'RLL2SRV_P'];
const MODE = { STABILIZE: 0, AUTO: 3, GUIDED: 4, RTL: 6 };
const ACK = { ACCEPTED: 0, DENIED: 2, UNSUPPORTED: 3, FAILED: 4 };
const ARMED = 128, CUSTOM_MODE_ENABLED = 1;
// Waits on the wall clock: hang checks only, far beyond what each step takes.
const READY_WAIT_MS = 90000, STEP_WAIT_MS = 60000;
const WALL_LIMIT_MS = 240000;   // under meson's 300 s, so that a hang says where it was

let daemon = null, sim = null, dlog = '', slog = '';

async function stopProc(p, ms = 20000) {
	if (!p || p.exitCode !== null || p.signalCode !== null) return p ? p.exited : null;
	p.kill('SIGTERM');
	const r = await Promise.race([p.exited, sleep(ms).then(() => null)]);
	if (r) return r;
	p.kill('SIGKILL');
	return { code: null, sig: 'SIGKILL (hung)' };
}

// Polls pred every 50 ms until it gives something, ms pass, or fulmard has gone.
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

// QGC WPL 110: "seq current frame command p1 p2 p3 p4 lat lon alt autocontinue".
function readWaypoints(file) {
	const lines = fs.readFileSync(file, 'utf8').split('\n').map(l => l.trim()).filter(l => l);
	if (!/^QGC WPL 110/.test(lines[0])) throw new Error(`${file}: not QGC WPL 110`);
	return lines.slice(1).map(l => {
		const f = l.split(/\s+/).map(Number);
		const it = new m.common.MissionItemInt();
		it.targetSystem = 1; it.targetComponent = 1; it.seq = f[0]; it.current = f[1]; it.frame = f[2];
		it.command = f[3]; it.param1 = f[4]; it.param2 = f[5]; it.param3 = f[6]; it.param4 = f[7];
		it.x = Math.round(f[8] * 1e7); it.y = Math.round(f[9] * 1e7); it.z = f[10]; it.autocontinue = f[11];
		it.missionType = 0;
		return it;
	});
}

async function session() {
	const gcsPort = await freePort(), simPort = await freePort();
	fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
	const conf = path.join(dir, 'fulmard.conf');
	fs.writeFileSync(conf, `[daemon]\nstate_dir = ${dir}/state\nlog_dir = ${dir}/logs\nvehicle = copter\n` +
		`[sched]\nlock_memory = ${sanitized === 'true' ? 'false' : 'true'}\n` +
		`[mavlink]\nlink0 = udp-server:127.0.0.1:${gcsPort}\n`);
	// The demo's frame and the quad's hover throttle (missions/copter-square.param), not its
	// mode switch: every FLTMODEn is ArduCopter's default, STABILIZE.
	const params = fs.readFileSync(path.join(missions, 'copter-square.param'), 'utf8').split('\n')
		.filter(l => /^(FRAME_CLASS|FRAME_TYPE|MOT_THST_HOVER),/.test(l));
	fs.writeFileSync(path.join(dir, 'p.param'), params.join('\n') + '\n');

	// The ground station first, beating at 1 Hz as one does, from before fulmard is up.
	const g = new Gcs(gcsPort);
	await g.open();
	const beat = setInterval(() => g.send(heartbeat()).catch(() => {}), 1000);
	g.send(heartbeat());

	// The simulator stands for the world, which does not wait for a busy CPU: SCHED_FIFO 1
	// where it may, as gcs_live.cjs runs it.
	const simArgs = ['--listen', `127.0.0.1:${simPort}`, '--airframe', 'quad', '--status-hz', '0',
		'--duration', '400', '--timeout', '10', '--seed', '1', '--wind', '3,90', '--realtime'];
	const fifo = spawnSync('chrt', ['-f', '1', 'true']).status === 0;
	console.log(`# fulmar-sim ${fifo ? 'at SCHED_FIFO 1' : 'with normal scheduling (chrt -f 1 not allowed here)'}`);
	const [cmd, ...pre] = fifo ? ['chrt', '-f', '1', fulmarSim] : [fulmarSim];
	sim = spawn(cmd, [...pre, ...simArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
	sim.exited = new Promise(r => sim.on('exit', (code, sig) => r({ code, sig })));
	sim.stderr.on('data', d => { slog += d; });
	const spawned = nowMs();
	daemon = spawn(fulmard, ['-c', conf, '--hil', `udp:127.0.0.1:${simPort}`, '--load-params',
		path.join(dir, 'p.param')], { stdio: ['ignore', 'pipe', 'pipe'] });
	daemon.stdout.on('data', d => { dlog += d; });
	daemon.stderr.on('data', d => { dlog += d; });
	daemon.exited = new Promise(r => daemon.on('exit', (code, sig) => r({ code, sig })));

	const seen = (pred, from = 0) => g.got.slice(from).find(pred);
	// The last message id in got[from, to).
	const lastOf = (id, from = 0, to = g.got.length) => {
		for (let i = to - 1; i >= from; i--) if (g.got[i].id === id) return g.got[i];
		return null;
	};
	const texts = from => g.got.slice(from).filter(p => p.id === 253).map(p => text(p.data));
	// The answer to a command sent now: its COMMAND_ACK and the STATUSTEXTs before it.
	async function command(id, params, { int = null } = {}) {
		const from = g.got.length;
		const msg = int ? new m.common.CommandInt() : new m.common.CommandLong();
		msg.targetSystem = 1; msg.targetComponent = 1; msg.command = id;
		msg._param1 = params[0]; msg._param2 = params[1]; msg._param3 = params[2]; msg._param4 = params[3];
		msg._param7 = params[6];
		if (int) {
			// COMMAND_INT: x and y (param5, param6) in 1e-7 degrees, in int.frame.
			msg.frame = int.frame; msg._param5 = int.x; msg._param6 = int.y; msg.current = 0; msg.autocontinue = 0;
		} else {
			msg.confirmation = 0; msg._param5 = params[4]; msg._param6 = params[5];
		}
		await g.send(msg);
		const ack = await waitFor(() => seen(p => p.id === 77 && p.data.command === id, from), 15000);
		return { result: ack ? ack.data.result : null, texts: texts(from), at: from };
	}
	const hbFrom = from => waitFor(() => seen(p => p.id === 0, from), 15000);
	const hbWith = (pred, from, ms = 15000) => waitFor(() => seen(p => p.id === 0 && pred(p.data), from), ms);

	// 1. The first HEARTBEAT: what it is, and STABILIZE.
	const hb = await waitFor(() => seen(p => p.id === 0), 30000);
	check(hb, `fulmard's HEARTBEAT on the ground station's link (${hb ? (hb.at - spawned).toFixed(0) : '-'} ms after the start)`);
	if (!hb) return;
	check(hb.data.type === 2 && hb.data.autopilot === 3,
		`HEARTBEAT type MAV_TYPE_QUADROTOR (2), autopilot MAV_AUTOPILOT_ARDUPILOTMEGA (3): ${hb.data.type}, ${hb.data.autopilot}`);
	check(hb.data.customMode === MODE.STABILIZE && (hb.data.baseMode & CUSTOM_MODE_ENABLED) && !(hb.data.baseMode & ARMED) &&
		(hb.data.systemStatus === 1 || hb.data.systemStatus === 3),
		`at the start custom_mode STABILIZE (0), base_mode with CUSTOM_MODE_ENABLED, disarmed, system_status BOOT or STANDBY ` +
		`(custom_mode ${hb.data.customMode}, base_mode 0x${hb.data.baseMode.toString(16)}, system_status ${hb.data.systemStatus})`);

	// Telemetry as MAVProxy asks for it (it sets SR0_* to 4 Hz and more): positions at 10 Hz.
	for (const [id, hz] of [[6, 10], [2, 2], [10, 4]]) {
		const r = new m.common.RequestDataStream();
		r.targetSystem = 1; r.targetComponent = 1; r.reqStreamId = id; r.reqMessageRate = hz; r.startStop = 1;
		await g.send(r);
	}

	// 2. The parameter list.
	let list = await paramList(g);
	if (list.params.size !== list.count) list = await paramList(g);   // once more, should a UDP packet drop
	const names = new Set([...list.params.values()].map(p => p.name));
	const idxOk = list.count > 0 && [...Array(list.count).keys()].every(i => list.params.has(i));
	check(idxOk && names.size === list.count,
		`PARAM_REQUEST_LIST: ${list.count} parameters, every index 0..${list.count - 1} once, each name once ` +
		`(${list.params.size} indices, ${names.size} names, ${list.ms.toFixed(0)} ms)`);
	const missing = COPTER_ROWS.filter(n => !names.has(n)), plane = PLANE_ROWS.filter(n => names.has(n));
	check(!missing.length, `the copter's rows listed (${COPTER_ROWS.join(', ')})` + (missing.length ? `: not ${missing.join(', ')}` : ''));
	check(!plane.length, `none of the plane's (${PLANE_ROWS.join(', ')})` + (plane.length ? `: but ${plane.join(', ')}` : ''));
	const counts = new Set(g.got.filter(p => p.id === 22).map(p => p.data.paramCount));
	check(counts.size === 1, `param_count the same in every PARAM_VALUE (${[...counts].join(', ')})`);
	// RTL at the takeoff's height, straight down over home and a shorter slow part of the
	// landing: the same flight, sooner.
	const rtlAlt = await paramSet(g, 'RTL_ALT', 1000, 6), loit = await paramSet(g, 'RTL_LOIT_TIME', 0, 6),
		landLow = await paramSet(g, 'LAND_ALT_LOW', 300, 4);
	check(rtlAlt === 1000 && loit === 0 && landLow === 300,
		`PARAM_SET RTL_ALT 1000 cm, RTL_LOIT_TIME 0 ms and LAND_ALT_LOW 300 cm echoed (${rtlAlt}, ${loit}, ${landLow})`);
	// The ground station flies this flight, not the transmitter: the radio failsafe off
	// (FS_THR_ENABLE 0, as MAVProxy pilots without a radio set it). A simulator starved of
	// the CPU for a second stops its RC frames too, and the copter then rightly LANDs
	// (tried: SIGSTOP of fulmar-sim for 0.8 s, four times), which is hil_copter_rc_loss's
	// subject, not this session's.
	const thr = await paramSet(g, 'FS_THR_ENABLE', 0, 2);
	check(thr === 0, `PARAM_SET FS_THR_ENABLE 0 echoed (${thr})`);

	// The geofence on (ArduCopter's FENCE_TYPE 7, a 300 m circle and 100 m ceiling, that
	// this flight stays well inside): FENCE_STATUS goes, no breach, SYS_STATUS's bit healthy.
	const fenceOn = await paramSet(g, 'FENCE_ENABLE', 1, 2);
	const fsMark = g.got.length;
	const fst = await waitFor(() => seen(p => p.id === 162, fsMark), 15000);
	check(fenceOn === 1 && fst && fst.data.breachStatus === 0 && fst.data.breachCount === 0,
		`FENCE_ENABLE 1: FENCE_STATUS with no breach (${fst ? [fst.data.breachStatus, fst.data.breachCount] : 'none'})`);
	const ssf = await waitFor(() => seen(p => p.id === 1, fsMark), 15000);
	const GEOFENCE = 0x100000;
	check(ssf && (ssf.data.onboardControlSensorsPresent & ssf.data.onboardControlSensorsEnabled &
		ssf.data.onboardControlSensorsHealth & GEOFENCE), 'SYS_STATUS geofence bit present, enabled and healthy');

	// 5a. The demo's mission, uploaded before the flight as QGroundControl uploads a plan file's.
	const wps = readWaypoints(path.join(missions, 'copter-square.waypoints'));
	check(await uploadItems(g, wps, 0) === 'accepted', `missions/copter-square.waypoints: ${wps.length} items uploaded (MISSION_COUNT, MISSION_ITEM_INT)`);
	const back = await downloadItems(g, 0);
	// Item 0 is home, which ArduPilot answers with its own; every other is what was sent.
	const diff = !back ? 'no answer' : back.length !== wps.length ? `${back.length} items` :
		wps.map((w, s) => {
			const b = back[s];
			const same = ['command', 'frame', 'param1', 'param2', 'param3', 'param4', 'autocontinue']
				.every(k => b[k] === w[k]) && b.x === w.x && b.y === w.y && Math.fround(b.z) === Math.fround(w.z);
			return s === 0 && b.command === 16 || same ? null : `item ${s}: ${b.command} ${b.x} ${b.y} ${b.z}`;
		}).filter(x => x).join('; ');
	check(!diff, `read back equal (MISSION_REQUEST_LIST, MISSION_REQUEST_INT)${diff ? ': ' + diff : ''}`);

	// 3. Modes by number. GUIDED needs a position: asked by SET_MODE (MAVProxy's older way)
	// until the estimator has one, each refusal with its reason.
	const refusals = [];
	let guided = null;
	const readyEnd = nowMs() + READY_WAIT_MS;
	while (nowMs() < readyEnd && daemon.exitCode === null) {
		const from = g.got.length;
		const sm = new m.common.SetMode();
		sm.targetSystem = 1; sm.baseMode = CUSTOM_MODE_ENABLED; sm.customMode = MODE.GUIDED;
		await g.send(sm);
		const ack = await waitFor(() => seen(p => p.id === 77 && p.data.command === 11, from), 15000);
		if (ack && ack.data.result === ACK.ACCEPTED) { guided = ack; break; }
		refusals.push({ result: ack ? ack.data.result : null, texts: texts(from) });
		await sleep(1000);
	}
	const refusedSaid = refusals.filter(r => r.result !== null).every(r => r.texts.length > 0);
	console.log(`# GUIDED refused ${refusals.length} times before a position` +
		(refusals.length ? `, first: ${refusals[0].result} "${refusals[0].texts.join('; ')}"` : ''));
	check(guided && refusedSaid, `SET_MODE GUIDED (4): COMMAND_ACK (command 11) ACCEPTED once a position is had` +
		`, ${(nowMs() - spawned) / 1000 | 0} s after the start; every refusal before said why`);
	if (!guided) return;
	check(await hbWith(d => d.customMode === MODE.GUIDED, guided ? g.got.indexOf(guided) : 0), 'HEARTBEAT custom_mode 4: GUIDED');
	const toStab = await command(176, [CUSTOM_MODE_ENABLED, MODE.STABILIZE, 0, 0, 0, 0, 0]);
	check(toStab.result === ACK.ACCEPTED && await hbWith(d => d.customMode === MODE.STABILIZE, toStab.at),
		`COMMAND_LONG DO_SET_MODE STABILIZE (0): ACCEPTED (${toStab.result}), HEARTBEAT custom_mode 0`);
	const bad = await command(176, [CUSTOM_MODE_ENABLED, 99, 0, 0, 0, 0, 0]);
	check(bad.result === ACK.UNSUPPORTED || bad.result === ACK.DENIED,
		`DO_SET_MODE 99 (no such mode): COMMAND_ACK ${bad.result} (UNSUPPORTED 3 or DENIED 2)`);
	check(bad.texts.some(t => /99/.test(t)), `and the STATUSTEXT saying why: "${bad.texts.join('; ')}"`);
	const after = await hbFrom(g.got.length);
	check(after && after.data.customMode === MODE.STABILIZE, `the mode unchanged (custom_mode ${after && after.data.customMode})`);
	const toGuided = await command(176, [CUSTOM_MODE_ENABLED, MODE.GUIDED, 0, 0, 0, 0, 0]);
	check(toGuided.result === ACK.ACCEPTED && await hbWith(d => d.customMode === MODE.GUIDED, toGuided.at),
		`DO_SET_MODE GUIDED (4): ACCEPTED (${toGuided.result}), HEARTBEAT custom_mode 4`);

	// 4. "arm throttle" (until the pre-arm checks pass, each refusal said), "takeoff 10".
	let arm = null;
	const armRefusals = [];
	const armEnd = nowMs() + READY_WAIT_MS;
	while (nowMs() < armEnd && daemon.exitCode === null) {
		arm = await command(400, [1, 0, 0, 0, 0, 0, 0]);
		if (arm.result === ACK.ACCEPTED) break;
		armRefusals.push(arm);
		await sleep(1000);
	}
	console.log(`# arming refused ${armRefusals.length} times first` +
		(armRefusals.length ? `: ${armRefusals[0].result} "${armRefusals[0].texts.join('; ')}"` : ''));
	check(arm && arm.result === ACK.ACCEPTED && armRefusals.every(r => r.texts.some(t => /^(PreArm|Arm)/.test(t))),
		`COMPONENT_ARM_DISARM (400) arm: ACCEPTED; each refusal before with its "PreArm:" reason`);
	if (!arm || arm.result !== ACK.ACCEPTED) return;
	const armedHb = await hbWith(d => d.baseMode & ARMED, arm.at);
	check(armedHb && armedHb.data.customMode === MODE.GUIDED && armedHb.data.systemStatus === 4,
		`HEARTBEAT base_mode armed (128), still GUIDED, system_status MAV_STATE_ACTIVE (${armedHb && armedHb.data.systemStatus})`);
	const home = await waitFor(() => lastOf(242), 15000);
	check(home, `HOME_POSITION (${home ? [home.data.latitude / 1e7, home.data.longitude / 1e7].join(', ') : '-'})`);
	if (!home) return;
	const H = { lat: home.data.latitude / 1e7, lon: home.data.longitude / 1e7 };
	const llOf = (n, e) => [H.lat + n / EARTH_R * 180 / Math.PI,
		H.lon + e / (EARTH_R * Math.cos(H.lat * Math.PI / 180)) * 180 / Math.PI];
	const neOf = d => [(d.lat / 1e7 - H.lat) * Math.PI / 180 * EARTH_R,
		(d.lon / 1e7 - H.lon) * Math.PI / 180 * EARTH_R * Math.cos(H.lat * Math.PI / 180)];
	const gpi = (from = 0) => g.got.slice(from).filter(p => p.id === 33);
	const relAlt = p => p.data.relativeAlt / 1000;

	const tk = await command(22, [0, 0, 0, 0, 0, 0, 10]);
	check(tk.result === ACK.ACCEPTED, `NAV_TAKEOFF (22) param7 10 m: ACCEPTED (${tk.result}${tk.texts.length ? ', "' + tk.texts.join('; ') + '"' : ''})`);
	const t0 = (lastOf(33, 0, tk.at) || { data: { timeBootMs: 0 } }).data.timeBootMs;
	const up = await waitFor(() => gpi(tk.at).find(p => relAlt(p) >= 9.5), STEP_WAIT_MS);
	check(up && (up.data.timeBootMs - t0) / 1000 < 20,
		`relative_alt reaches 9.5 m ${up ? ((up.data.timeBootMs - t0) / 1000).toFixed(1) : '-'} s after the takeoff on fulmard's clock`);
	// Held: 4 s of fulmard's clock from 2 s after reaching it.
	const holdFrom = up ? up.data.timeBootMs + 2000 : 0, holdTo = holdFrom + 4000;
	await waitFor(() => gpi(tk.at).some(p => p.data.timeBootMs >= holdTo), STEP_WAIT_MS);
	const held = gpi(tk.at).filter(p => p.data.timeBootMs >= holdFrom && p.data.timeBootMs < holdTo);
	const alts = held.map(relAlt), drift = held.map(p => Math.hypot(...neOf(p.data)));
	check(held.length >= 4 && alts.every(a => Math.abs(a - 10) < 1) && Math.max(...drift) < 3,
		`and holds: ${held.length} GLOBAL_POSITION_INT over 4 s at ${Math.min(...alts).toFixed(2)}..${Math.max(...alts).toFixed(2)} m, ` +
		`within ${Math.max(...drift).toFixed(2)} m of home`);
	const tk2 = await command(22, [0, 0, 0, 0, 0, 0, 10]);
	check(tk2.result === ACK.FAILED && tk2.texts.includes('Takeoff: flying already'),
		`a second NAV_TAKEOFF refused: ${tk2.result} (FAILED 4), "${tk2.texts.join('; ')}"`);

	// A point reached: within 2 m horizontally and 1 m of 10 m, on fulmard's clock.
	async function flyTo(n, e, from) {
		const at = p => Math.hypot(neOf(p.data)[0] - n, neOf(p.data)[1] - e) < 2 && Math.abs(relAlt(p) - 10) < 1;
		const start = lastOf(33, 0, from);   // the last position before the command
		const got = await waitFor(() => gpi(from).find(at), STEP_WAIT_MS);
		const where = got || gpi(from).pop();
		return { got, s: got && start ? (got.data.timeBootMs - start.data.timeBootMs) / 1000 : null,
			where: where ? neOf(where.data).map(x => x.toFixed(1)).join(' N, ') + ' E' : '-' };
	}
	// QGroundControl's "go to location": DO_REPOSITION as COMMAND_INT in MAV_FRAME_GLOBAL,
	// the height above sea level (home's and 10 m), mode change asked (param2 bit 0).
	const [lat1, lon1] = llOf(30, 0);
	const amsl = home.data.altitude / 1000 + 10;
	const rp = await command(192, [-1, 1, 0, NaN, 0, 0, amsl], { int: { frame: 0, x: Math.round(lat1 * 1e7), y: Math.round(lon1 * 1e7) } });
	check(rp.result === ACK.ACCEPTED, `DO_REPOSITION (192, COMMAND_INT, MAV_FRAME_GLOBAL, ${amsl.toFixed(1)} m above sea level) 30 m north: ACCEPTED (${rp.result})`);
	const r1 = await flyTo(30, 0, rp.at);
	check(r1.got && r1.s < 30, `reached (within 2 m, at 10 m), ${r1.s === null ? '-' : r1.s.toFixed(1)} s on fulmard's clock at ${r1.where}`);
	// NAV_CONTROLLER_OUTPUT on the way (ArduCopter sends it in every mode): the distance to
	// the point, falling, and its bearing, north.
	const nco = g.got.slice(rp.at).filter(p => p.id === 62 && (!r1.got || p.at <= r1.got.at));
	const far = nco.find(p => p.data.wpDist >= 10);
	check(nco.length >= 3 && far && (far.data.targetBearing <= 5 || far.data.targetBearing >= 355) &&
		nco[nco.length - 1].data.wpDist <= 3,
		`NAV_CONTROLLER_OUTPUT on the way: wp_dist ${nco.length ? nco[0].data.wpDist : '-'} m down to ` +
		`${nco.length ? nco[nco.length - 1].data.wpDist : '-'} m, target_bearing ${far ? far.data.targetBearing : '-'} deg`);
	// MAVProxy's "guided LAT LON ALT": SET_POSITION_TARGET_GLOBAL_INT, position only.
	const [lat2, lon2] = llOf(30, 30);
	const sp = new m.common.SetPositionTargetGlobalInt();
	sp.timeBootMs = 0; sp.targetSystem = 1; sp.targetComponent = 1; sp.coordinateFrame = 6;
	sp.typeMask = 0xdf8; sp.latInt = Math.round(lat2 * 1e7); sp.lonInt = Math.round(lon2 * 1e7); sp.alt = 10;
	sp.vx = 0; sp.vy = 0; sp.vz = 0; sp.afx = 0; sp.afy = 0; sp.afz = 0; sp.yaw = 0; sp.yawRate = 0;
	const spAt = g.got.length;
	await g.send(sp);
	const tgt = await waitFor(() => seen(p => p.id === 87 && Math.abs(p.data.latInt - sp.latInt) < 10 &&
		Math.abs(p.data.lonInt - sp.lonInt) < 10, spAt), 15000);
	check(tgt && Math.abs(tgt.data.alt - amsl) < 0.5, 'SET_POSITION_TARGET_GLOBAL_INT (GLOBAL_RELATIVE_ALT_INT, 10 m) 30 m east of there: ' +
		`POSITION_TARGET_GLOBAL_INT says the point, ${tgt ? tgt.data.alt.toFixed(1) : '-'} m above sea level`);
	const r2 = await flyTo(30, 30, spAt);
	check(r2.got && r2.s < 30, `reached (within 2 m, at 10 m), ${r2.s === null ? '-' : r2.s.toFixed(1)} s on fulmard's clock at ${r2.where}`);

	const breached = g.got.filter(p => p.id === 162 && p.data.breachStatus !== 0).length;
	const fsFlight = g.got.filter(p => p.id === 162).length;
	check(fsFlight > 5 && !breached, `inside the fence all along: ${fsFlight} FENCE_STATUS, ${breached} breached`);

	// 5b. MAVProxy's "auto" in the air: MISSION_START, AUTO, the mission from its takeoff
	// (item 1, to 20 m) on: MISSION_CURRENT 1, climbing. Then RTL cuts it short.
	const ms1 = await command(300, [0, 0, 0, 0, 0, 0, 0]);
	const auto = await hbWith(d => d.customMode === MODE.AUTO, ms1.at);
	check(ms1.result === ACK.ACCEPTED && auto, `MISSION_START (300) in the air: ACCEPTED (${ms1.result}), HEARTBEAT custom_mode 3: AUTO`);
	const cur = await waitFor(() => seen(p => p.id === 42 && p.data.seq === 1, ms1.at), 15000);
	const climb = await waitFor(() => gpi(ms1.at).find(p => relAlt(p) > 12), STEP_WAIT_MS);
	const up20 = await waitFor(() => seen(p => p.id === 87 && Math.abs(p.data.alt - (amsl + 10)) < 0.5, ms1.at), 15000);
	check(cur && climb && up20, `MISSION_CURRENT 1 (the takeoff to 20 m), POSITION_TARGET_GLOBAL_INT ` +
		`${up20 ? (up20.data.alt - amsl + 10).toFixed(1) : '-'} m above home, climbing: ${climb ? relAlt(climb).toFixed(1) : '-'} m`);

	// RTL: home, down, disarmed.
	const rtl = await command(20, [0, 0, 0, 0, 0, 0, 0]);
	check(rtl.result === ACK.ACCEPTED, `NAV_RETURN_TO_LAUNCH (20): ACCEPTED (${rtl.result})`);
	check(await hbWith(d => d.customMode === MODE.RTL, rtl.at), 'HEARTBEAT custom_mode 6: RTL');
	const rtlStart = lastOf(33, 0, rtl.at);
	const down = await hbWith(d => !(d.baseMode & ARMED), rtl.at, 120000);
	check(down && down.data.systemStatus === 3, `disarmed: system_status MAV_STATE_STANDBY (${down && down.data.systemStatus})`);
	const landed = gpi(rtl.at).pop();
	const off = landed ? Math.hypot(...neOf(landed.data)) : NaN;
	const rtlS = landed && rtlStart ? (landed.data.timeBootMs - rtlStart.data.timeBootMs) / 1000 : NaN;
	check(down && landed && off < 3 && relAlt(landed) < 1,
		`landed and disarmed (armed flag clear): ${off.toFixed(2)} m from home, relative_alt ` +
		`${landed ? relAlt(landed).toFixed(2) : '-'} m, ${rtlS.toFixed(1)} s after RTL on fulmard's clock`);
	const said = texts(rtl.at);
	console.log(`# STATUSTEXT in RTL: ${said.map(t => `"${t}"`).join(', ')}`);

	// 5c. On the ground, disarmed: AUTO may be chosen but not armed in, as ArduCopter.
	const ms = await command(300, [0, 0, 0, 0, 0, 0, 0]);
	check(ms.result === ACK.ACCEPTED && await hbWith(d => d.customMode === MODE.AUTO, ms.at),
		`MISSION_START (300) on the ground: ACCEPTED (${ms.result}), HEARTBEAT custom_mode 3: AUTO${ms.texts.length ? ' ("' + ms.texts.join('; ') + '")' : ''}`);
	const armAuto = await command(400, [1, 0, 0, 0, 0, 0, 0]);
	check(armAuto.result === ACK.FAILED && armAuto.texts.length > 0,
		`arming in AUTO refused as ArduCopter does: ${armAuto.result} (FAILED 4), "${armAuto.texts.join('; ')}"`);

	clearInterval(beat);
	g.close();
	const dstop = await stopProc(daemon);
	check(dstop && dstop.code === 0, `fulmard stops cleanly on SIGTERM (${dstop && (dstop.code ?? dstop.sig)})`);
	const sanitizer = dlog.match(/.*(runtime error|AddressSanitizer|LeakSanitizer).*/);
	check(!sanitizer, `no sanitizer report from fulmard${sanitizer ? ': ' + sanitizer[0] : ''}`);
	daemon = null;
	await stopProc(sim);
	const behind = (slog.match(/behind real time/g) || []).length;
	console.log(`# fulmar-sim fell behind real time ${behind} times; the session took ${((nowMs() - spawned) / 1000).toFixed(0)} s`);
}

const limit = setTimeout(() => {
	console.log(`FAIL - the session still running after ${WALL_LIMIT_MS / 1000} s (hung?)`);
	for (const p of [daemon, sim]) if (p && p.exitCode === null) p.kill('SIGKILL');
	console.log(dlog);
	process.exit(1);
}, WALL_LIMIT_MS);

session().then(async () => {
	clearTimeout(limit);
	for (const p of [daemon, sim]) await stopProc(p);
	console.log(`${result.passed} passed, ${result.failed} failed`);
	if (result.failed || !result.passed) { console.log('--- fulmard:\n' + dlog); console.log('--- fulmar-sim:\n' + slog); }
	fs.rmSync(dir, { recursive: true, force: true });
	process.exit(result.failed || !result.passed ? 1 : 0);
}).catch(e => {
	console.log('FAIL - ' + e.stack);
	for (const p of [daemon, sim]) if (p && p.exitCode === null) p.kill('SIGKILL');
	process.exit(1);
});
