// SPDX-License-Identifier: GPL-3.0-or-later
#define LOG_TAG "services"
#include "daemon/services.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/board_io.h"
#include "daemon/flight.h"
#include "daemon/flightlog.h"
#include "daemon/ftp_service.h"
#include "daemon/links.h"
#include "fulmar/storage.h"
#include "mavlink/gcs.h"
#include "mavlink/gcs_health.h"
#include "mission/mission.h"
#include "vehicle/fence.h"
#include "vehicle/vehicle.h"
#include "param/param.h"
#include "util/log.h"

#define MAV_COMP_ID_AUTOPILOT1 1
#define MAV_AUTOPILOT_ARDUPILOTMEGA 3
#define MAV_MODE_FLAG_CUSTOM_MODE_ENABLED 1
#define MAV_STATE_BOOT 1
#define GCS_PERIOD_US 20000u            /* the GCS services run at 50 Hz */
#define PARAM_FILE_MAX (96 * 1024)
#define MISSION_FILE_MAX (MISSION_MAX_ITEMS * 160 + 64)

/* Mission hand-over from main to io: main copies when idle, io saves. */
enum save_state {
	SAVE_IDLE = 1,
	SAVE_PENDING,    /* main wrote the copy */
	SAVE_BUSY,       /* io is writing it */
};

/*
 * The fence and rally lists (mission types 1 and 2): kept, handed to the io
 * thread and saved as the mission is, each in its own QGC WPL file.
 */
struct saved_list {
	const char *what;               /* "fence", "rally" */
	char path[PATH_MAX + 32];       /* empty: not saved */
	struct mission live;            /* main thread */
	const uint32_t *generation;     /* the gcs's counter of its changes */
	uint32_t handed;                /* main: the generation last handed to io */
	struct mission copy;            /* written by main while idle, read by io while busy */
	_Atomic int save;               /* enum save_state */
	uint64_t errors;                /* io thread */
};

enum { LIST_FENCE, LIST_RALLY, LIST_COUNT };

static struct services {
	struct links links;
	struct gcs gcs;
	struct vehicle vehicle;         /* main thread */
	const struct sensor_hub *hub;   /* for SYS_STATUS's health; NULL: none */
	const struct board_io *bio;     /* the board's drivers; NULL: HIL */
	int arming_check_idx;
	int log_backend_idx;            /* LOG_BACKEND_TYPE */
	_Atomic int exit_request;       /* enum gcs_exit_request: main writes, leader reads */
	struct sched *sched;            /* the main loop's load; shedding */
	struct sched_work gcs_work;     /* the ground-station services: shed first */
	struct sched_figures load_from; /* the main loop's figures at the load window's start */
	uint64_t load_from_us;
	uint16_t load_permille;         /* over the last whole second */
	char key_path[PATH_MAX + 32];   /* the MAVLink signing key, mode 0600 */
	uint32_t signing_seen;          /* main: the gcs generation applied */
	uint8_t key_copy[MAVLINK_KEY_LEN];  /* main -> io, like the mission */
	_Atomic int key_save;           /* enum save_state */
	uint64_t gcs_last_us;
	_Atomic uint64_t mem_avail;     /* io -> main: MemAvailable, bytes (0 unknown) */
	uint64_t mem_read_us;           /* io thread */
	char param_path[PATH_MAX + 32]; /* empty: no state directory, nothing saved */
	uint32_t saved_generation;      /* io thread */
	uint64_t save_errors;           /* io thread */
	char mission_path[PATH_MAX + 32];
	struct mission mission;         /* the live mission: main thread */
	uint32_t mission_handed;        /* main: the generation last handed to io */
	struct mission mission_copy;    /* written by main while idle, read by io while busy */
	_Atomic int mission_save;       /* enum save_state */
	uint64_t mission_save_errors;   /* io thread */
	struct saved_list lists[LIST_COUNT];
} sv;

/* io thread (and the leader before and after): the table into its file. */
static int save_params(void)
{
	static char text[PARAM_FILE_MAX];
	uint32_t gen = param_generation();
	long n = param_save_text(text, sizeof(text));
	if (n < 0)
		return (int)n;
	int rc = storage_write_atomic(sv.param_path, text, (size_t)n, 0644);
	if (rc == 0)
		sv.saved_generation = gen;
	return rc;
}

static int load_file(const char *path, bool missing_ok, char *err, size_t err_len)
{
	static char text[PARAM_FILE_MAX + 1];
	long n = storage_read(path, text, PARAM_FILE_MAX);
	if (n == -ENOENT && missing_ok)
		return 0;
	if (n < 0) {
		snprintf(err, err_len, "%s: %s", path, strerror((int)-n));
		return (int)n;
	}
	text[n] = '\0';
	if (memchr(text, '\0', (size_t)n)) {
		snprintf(err, err_len, "%s: not a text file", path);
		return -EINVAL;
	}
	unsigned int unknown;
	int rc = param_load_text(text, path, &unknown, err, err_len);
	if (rc == 0 && unknown)
		log_warn("%s: %u parameters fulmar does not have were skipped", path, unknown);
	return rc;
}

int services_params(const struct config *cfg, const char *const *load_params, int n_load,
		    char *err, size_t err_len)
{
	memset(&sv, 0, sizeof(sv));
	param_init(cfg->vehicle == VEHICLE_COPTER ? PARAM_COPTER : PARAM_PLANE);
	if (mkdir(cfg->state_dir, 0750) == 0 || errno == EEXIST) {
		/* One file a vehicle: the tables share names (SERVOn_FUNCTION, FLTMODE_CH)
		 * whose values differ, so a board switched from plane to copter must not
		 * fly the plane's outputs on its motors. */
		snprintf(sv.param_path, sizeof(sv.param_path), "%s/%s", cfg->state_dir,
			 cfg->vehicle == VEHICLE_COPTER ? "fulmar-copter.param" : "fulmar.param");
	} else {
		log_warn("state directory %s: %s: parameters will not be saved", cfg->state_dir,
			 strerror(errno));
	}
	if (sv.param_path[0]) {
		/* A damaged file of our own is refused whole; the flight goes on with defaults. */
		char why[sizeof(sv.param_path) + 256];   /* the path, and what was wrong */
		if (load_file(sv.param_path, true, why, sizeof(why)))
			log_err("saved parameters not loaded, defaults in force: %s", why);
	}
	for (int i = 0; i < n_load; i++) {
		int rc = load_file(load_params[i], false, err, err_len);
		if (rc)
			return rc;
		log_info("parameters loaded from %s", load_params[i]);
	}
	if (n_load > 0 && sv.param_path[0] && save_params())
		log_warn("%s: loaded but not saved", load_params[n_load - 1]);
	sv.saved_generation = param_generation();
	return 0;
}

static int save_mission(const struct mission *m)
{
	static char text[MISSION_FILE_MAX];
	long n = mission_save_wpl(m, text, sizeof(text));
	if (n < 0)
		return (int)n;
	return storage_write_atomic(sv.mission_path, text, (size_t)n, 0644);
}

static int load_list_file(struct mission *m, const char *path, bool missing_ok, char *err,
			  size_t err_len)
{
	static char text[MISSION_FILE_MAX + 1];
	long n = storage_read(path, text, MISSION_FILE_MAX);
	if (n == -ENOENT && missing_ok)
		return 0;
	if (n < 0) {
		snprintf(err, err_len, "%s: %s", path,
			 n == -EFBIG ? "larger than a mission can be" : strerror((int)-n));
		return (int)n;
	}
	text[n] = '\0';
	if (memchr(text, '\0', (size_t)n)) {
		snprintf(err, err_len, "%s: not a text file", path);
		return -EINVAL;
	}
	int rc = mission_load_wpl(m, text, path, err, err_len);
	return rc == -ENOSPC ? -EINVAL : rc;
}

static int load_mission_file(const char *path, bool missing_ok, char *err, size_t err_len)
{
	return load_list_file(&sv.mission, path, missing_ok, err, err_len);
}

/* A saved fence or rally list is checked as an upload is: a bad one is not flown by. */
static int check_list(int which, const struct mission *m, char *err, size_t err_len)
{
	unsigned int cap = which == LIST_FENCE ? FENCE_MAX_ITEMS : RALLY_MAX_ITEMS;
	if (m->count > cap) {
		snprintf(err, err_len, "%u items: room for %u", m->count, cap);
		return -EINVAL;
	}
	for (uint16_t i = 0; i < m->count; i++) {
		int r = which == LIST_FENCE ? fence_check_item(&m->items[i]) :
					      rally_check_item(&m->items[i]);
		if (r != FENCE_RESULT_OK) {
			snprintf(err, err_len, "item %u refused (MAV_MISSION_RESULT %d)", i, r);
			return -EINVAL;
		}
	}
	uint16_t bad;
	if (which == LIST_FENCE && fence_validate(m, &bad) != FENCE_RESULT_OK) {
		snprintf(err, err_len, "polygon at item %u inconsistent", bad);
		return -EINVAL;
	}
	return 0;
}

/* The saved fence and rally lists, from the state directory (none: empty). */
static void load_lists(const struct config *cfg)
{
	static const char *const what[LIST_COUNT] = { "fence", "rally" };
	for (int i = 0; i < LIST_COUNT; i++) {
		struct saved_list *l = &sv.lists[i];
		l->what = what[i];
		mission_clear(&l->live);
		atomic_init(&l->save, SAVE_IDLE);
		if (!sv.param_path[0])
			continue;
		snprintf(l->path, sizeof(l->path), "%s/fulmar.%s", cfg->state_dir, l->what);
		char why[512];
		if (load_list_file(&l->live, l->path, true, why, sizeof(why)) ||
		    check_list(i, &l->live, why, sizeof(why))) {
			log_err("saved %s not loaded, it is empty: %s: %s", l->what, l->path, why);
			mission_clear(&l->live);
		} else if (l->live.count) {
			log_info("%s of %u items loaded from %s", l->what, l->live.count, l->path);
		}
	}
	int idx = param_find("RALLY_TOTAL");
	if (idx >= 0)
		param_set(idx, sv.lists[LIST_RALLY].live.count);
}

int services_mission(const struct config *cfg, const char *load_mission, char *err,
		     size_t err_len)
{
	mission_clear(&sv.mission);
	atomic_init(&sv.mission_save, SAVE_IDLE);
	load_lists(cfg);
	if (sv.param_path[0]) {
		snprintf(sv.mission_path, sizeof(sv.mission_path), "%s/fulmar.waypoints",
			 cfg->state_dir);
		char why[512];
		if (load_mission_file(sv.mission_path, true, why, sizeof(why))) {
			log_err("saved mission not loaded, the mission is empty: %s", why);
			mission_clear(&sv.mission);
		}
	}
	if (load_mission) {
		int rc = load_mission_file(load_mission, false, err, err_len);
		if (rc)
			return rc;
		if (sv.mission_path[0] && save_mission(&sv.mission))
			log_warn("%s: loaded but not saved", load_mission);
		log_info("mission of %u items loaded from %s", sv.mission.count, load_mission);
	}
	return 0;
}

static uint64_t unix_us_now(void)
{
	struct timespec rt;
	if (clock_gettime(CLOCK_REALTIME, &rt) != 0)
		return 0;
	return (uint64_t)rt.tv_sec * 1000000u + (uint64_t)rt.tv_nsec / 1000u;
}

/* Writes (or, for the all-zero key, removes) the key file. io thread or start-up. */
static int save_key(const uint8_t key[MAVLINK_KEY_LEN])
{
	static const uint8_t zero[MAVLINK_KEY_LEN];
	if (memcmp(key, zero, MAVLINK_KEY_LEN) == 0)
		return unlink(sv.key_path) == 0 || errno == ENOENT ? 0 : -errno;
	return storage_write_atomic(sv.key_path, key, MAVLINK_KEY_LEN, 0600);
}

/*
 * A key saved by SETUP_SIGNING turns signing on at start. A key file that is
 * not 32 bytes is refused, not ignored: flying unsigned because a file went
 * bad would open the aircraft to anyone.
 */
static int load_key(char *err, size_t err_len)
{
	uint8_t key[MAVLINK_KEY_LEN + 1];
	long n = storage_read(sv.key_path, key, sizeof(key));
	if (n == -ENOENT)
		return 0;
	if (n != MAVLINK_KEY_LEN) {
		snprintf(err, err_len, "%s: %s (remove it to turn MAVLink signing off)", sv.key_path,
			 n < 0 ? strerror((int)-n) : "not a 32-byte signing key");
		return -EINVAL;
	}
	links_set_key(&sv.links, key, mavlink_signing_timestamp(unix_us_now()));
	log_info("MAVLink signing on (key from %s)", sv.key_path);
	return 0;
}

int services_save_params(const char *path, char *err, size_t err_len)
{
	static char text[PARAM_FILE_MAX];
	long n = param_save_text(text, sizeof(text));
	int rc = n < 0 ? (int)n : storage_write_atomic(path, text, (size_t)n, 0644);
	if (rc)
		snprintf(err, err_len, "%s: %s", path, strerror(-rc));
	return rc;
}

int services_save_mission(const char *path, char *err, size_t err_len)
{
	static char text[MISSION_FILE_MAX];
	long n = mission_save_wpl(&sv.mission, text, sizeof(text));
	int rc = n < 0 ? (int)n : storage_write_atomic(path, text, (size_t)n, 0644);
	if (rc)
		snprintf(err, err_len, "%s: %s", path, strerror(-rc));
	return rc;
}

int services_links(const struct config *cfg, char *err, size_t err_len)
{
	struct link_spec specs[LINKS_MAX];
	unsigned int n = config_links(cfg, specs);
	uint8_t sysid = (uint8_t)param_get_by_name("SYSID_THISMAV");
	int rc = links_open(&sv.links, specs, n, sysid, MAV_COMP_ID_AUTOPILOT1, err, err_len);
	if (rc)
		return rc;
	for (unsigned int i = 0; i < n; i++) {
		char what[256];
		link_spec_format(&specs[i], what, sizeof(what));
		log_info("MAVLink link %u: %s", i, what);
	}
	atomic_init(&sv.key_save, SAVE_IDLE);
	if (sv.param_path[0]) {
		snprintf(sv.key_path, sizeof(sv.key_path), "%s/mavlink-signing.key", cfg->state_dir);
		rc = load_key(err, err_len);
		if (rc) {
			links_close(&sv.links);
			return rc;
		}
	}
	ftp_service_open(cfg, sysid, MAV_COMP_ID_AUTOPILOT1);
	struct gcs_tx tx = { links_send, &sv.links };
	gcs_init(&sv.gcs, sysid, MAV_COMP_ID_AUTOPILOT1, &tx, &sv.mission);
	sv.gcs.fence = &sv.lists[LIST_FENCE].live;
	sv.gcs.rally = &sv.lists[LIST_RALLY].live;
	sv.lists[LIST_FENCE].generation = &sv.gcs.fence_generation;
	sv.lists[LIST_RALLY].generation = &sv.gcs.rally_generation;
	vehicle_init(&sv.vehicle, cfg->vehicle);
	sv.gcs.vehicle = &sv.vehicle;
	/* A serial link carries baud / 10 bytes a second (8N1): its streams fit in that. */
	for (unsigned int i = 0; i < n; i++)
		if (specs[i].kind == LINK_SERIAL)
			gcs_set_link_bandwidth(&sv.gcs, (int)i, specs[i].baud / 10);
	sv.arming_check_idx = param_find("ARMING_CHECK");
	sv.log_backend_idx = param_find("LOG_BACKEND_TYPE");
	atomic_init(&sv.exit_request, GCS_EXIT_NONE);
	/* Until the plane's modes exist, it says honestly that it is not ready to fly. */
	sv.gcs.id = (struct gcs_identity){
		.mav_type = vehicle_mav_type(cfg->vehicle, cfg->vehicle == VEHICLE_COPTER ?
							   (int)param_get_by_name("FRAME_CLASS") : 0),
		.autopilot = MAV_AUTOPILOT_ARDUPILOTMEGA,
		.base_mode = MAV_MODE_FLAG_CUSTOM_MODE_ENABLED,
		.custom_mode = sv.vehicle.mode,
		.system_status = MAV_STATE_BOOT,
	};
	return 0;
}

/* The time of a kind's latest sample (0: none yet). */
static uint64_t latest_us(enum sensor_kind k)
{
	union {
		struct mag_sample mag;
		struct airspeed_sample aspd;
		struct gps_fix gps;
		struct battery_sample batt;
		struct rc_frame rc;
	} u;
	if (!sv.hub || !sensors_latest(sv.hub, k, &u))
		return 0;
	switch (k) {
	case SENSOR_MAG: return u.mag.t_us;
	case SENSOR_AIRSPEED: return u.aspd.t_us;
	case SENSOR_GPS: return u.gps.t_us;
	case SENSOR_BATTERY: return u.batt.t_us;
	case SENSOR_RC: return u.rc.timestamp_us;
	default: return 0;
	}
}

/*
 * What the flight's own account leaves to us: the throttle as its channel's
 * pulse drives the motor, and SYS_STATUS's sensor masks from the samples'
 * freshness, the estimate, the failsafes and the pre-arm checks.
 */
static void fill_health(struct gcs_inputs *in, uint64_t now_us)
{
	const struct servo_params *sp = flight_servo_params();
	in->throttle = NAN;
	for (unsigned int ch = 0; ch < in->servo.count && ch < SERVO_CHANNELS; ch++) {
		float t;
		if (sp->ch[ch].servo_function == SERVO_FUNC_THROTTLE &&
		    servo_throttle_of_pwm(&sp->ch[ch], in->servo.us[ch], &t) == 0) {
			in->throttle = t;
			break;
		}
	}
	if (isnan(in->throttle))
		in->throttle = flight_copter_throttle();
	const struct vehicle *v = &sv.vehicle;
	const uint32_t need = VEHICLE_ATTITUDE_VALID | VEHICLE_ALTITUDE_VALID;
	struct gcs_health_in h = {
		.now_us = now_us,
		.imu_us = in->imu.t_us, .baro_us = in->baro.t_us,
		.mag_us = latest_us(SENSOR_MAG), .airspeed_us = latest_us(SENSOR_AIRSPEED),
		.gps_us = latest_us(SENSOR_GPS), .battery_us = latest_us(SENSOR_BATTERY),
		.rc_us = latest_us(SENSOR_RC),
		.gps_fix_type = in->gps.present ? in->gps.fix_type : 0,
		.airspeed_disabled = (estim_health(flight_estimator()) & ESTIM_H_AIRSPEED_UNHEALTHY) != 0,
		.rc_bad = flight_rc_bad(),
		.attitude_valid = (in->state.valid & VEHICLE_ATTITUDE_VALID) != 0,
		.servo_outputs = in->servo.count > 0,
		.log_wanted = sv.log_backend_idx >= 0 && param_get(sv.log_backend_idx) != 0.0f,
		.log_ok = flightlog_main() != NULL,
		.battery_failsafe = flight_battery_failsafe(),
		.rangefinder = in->rangefinder.present,
		.rangefinder_data = in->rangefinder.has_data,
		/* As vehicle_arm judges them (the mode's own needs apart). */
		.prearm_ok = !v->initialising &&
			     (sv.gcs.arming_check == 0 ||
			      ((v->valid & need) == need && v->prearm_problem == NULL)),
		.armed = v->armed,
		.kind = v->kind,
		.mode = v->mode,
		.fence_present = sv.gcs.fence && sv.gcs.fence->count > 0,
		.fence_enabled = in->fence.enabled,
		.fence_breached = in->fence.breaches != 0,
	};
	if (sv.bio)
		board_io_sensor_bits(sv.bio, now_us, &h.board_present, &h.board_enabled,
				     &h.board_health);
	/* Freshness on the samples' own clock (the simulator's, in real-time HIL). */
	if (sv.hub) {
		uint64_t src;
		sensors_now(sv.hub, now_us, &h.now_us, &src);
	}
	struct gcs_health o;
	gcs_health_bits(&h, &o);
	in->sensors_present = o.present;
	in->sensors_enabled = o.enabled;
	in->sensors_health = o.health;
}

/* main thread, every wake: the GCS services at 50 Hz. */
static void gcs_task(void *ctx, uint64_t now_us)
{
	if (sv.gcs_last_us && now_us - sv.gcs_last_us < GCS_PERIOD_US)
		return;
	/* Overloaded, the streams wait for a loop with the time (at most a second). */
	if (!sched_work_begin(sv.sched, &sv.gcs_work))
		return;
	/* Drift-free: ticks at 50 Hz on average whatever the loop's phase, so a
	 * 50 Hz stream is sent at 50 Hz; after a stall, from now. */
	sv.gcs_last_us = sv.gcs_last_us && now_us - sv.gcs_last_us < 2 * GCS_PERIOD_US ?
			 sv.gcs_last_us + GCS_PERIOD_US : now_us;
	sv.gcs.in.mem_avail_bytes = atomic_load_explicit(&sv.mem_avail, memory_order_relaxed);
	sv.gcs.arming_check = (uint32_t)param_get(sv.arming_check_idx);
	/*
	 * SYS_STATUS load: the main loop's mean run time against its period over
	 * the last whole second, as the timing report's load (over the run) and
	 * the log's PM (over 10 s) compute it; MAVLink's range ends at 1000.
	 */
	if (sv.sched && now_us - sv.load_from_us >= 1000000u) {
		struct sched_figures f;
		sched_figures_read(sv.sched, SCHED_MAIN, &f);
		uint32_t load = sched_load_permille(sv.sched, SCHED_MAIN,
						    sv.load_from_us ? &sv.load_from : NULL, &f);
		sv.load_permille = (uint16_t)(load > 1000 ? 1000 : load);
		sv.load_from = f;
		sv.load_from_us = now_us;
	}
	sv.gcs.in.load_permille = sv.load_permille;
	sv.gcs.in.unix_us = unix_us_now();
	flight_fill_gcs(&sv.gcs.in);
	fill_health(&sv.gcs.in, now_us);
	struct links_summary ls;
	links_read_summary(&sv.links, &ls);
	sv.gcs.in.errors_comm = (uint16_t)(ls.errors > UINT16_MAX ? UINT16_MAX : ls.errors);
	sv.gcs.in.drop_rate_permyriad = ls.frames + ls.gaps ?
		(uint16_t)(ls.gaps * 10000 / (ls.frames + ls.gaps)) : 0;
	links_signing_clock(&sv.links, mavlink_signing_timestamp(sv.gcs.in.unix_us));
	static struct links_rx rx;  /* main thread only */
	/* Bounded, so a flood of frames cannot take the loop's time. */
	for (int i = 0; i < LINKS_RX_FRAMES && links_receive(&sv.links, &rx); i++)
		if (!flightlog_request(rx.link, rx.frame.msgid, mavlink_payload(&rx.frame), rx.frame.len) &&
		    !ftp_service_request(rx.link, &rx.frame))
			gcs_handle(&sv.gcs, rx.link, &rx.frame, now_us);
	/* Log download's replies, read from the files by the io thread. */
	static struct flightlog_msg reply;
	for (unsigned int i = 0; i < 20 && flightlog_reply(&reply); i++)
		links_send(&sv.links, reply.link, reply.msgid, reply.payload);
	gcs_tick(&sv.gcs, now_us);
	if (sv.gcs.exit_request != GCS_EXIT_NONE)
		atomic_store(&sv.exit_request, sv.gcs.exit_request);

	/* A new signing key: in force at once, saved by the io thread. */
	if (sv.gcs.signing_generation != sv.signing_seen &&
	    atomic_load_explicit(&sv.key_save, memory_order_acquire) == SAVE_IDLE) {
		sv.signing_seen = sv.gcs.signing_generation;
		uint64_t ts = mavlink_signing_timestamp(sv.gcs.in.unix_us);
		links_set_key(&sv.links, sv.gcs.signing_key,
			      sv.gcs.signing_timestamp > ts ? sv.gcs.signing_timestamp : ts);
		if (sv.key_path[0]) {
			memcpy(sv.key_copy, sv.gcs.signing_key, MAVLINK_KEY_LEN);
			atomic_store_explicit(&sv.key_save, SAVE_PENDING, memory_order_release);
		}
	}

	/* A changed mission goes to the io thread when it is free: copying is all main does. */
	if (sv.mission_path[0] && sv.gcs.mission_generation != sv.mission_handed &&
	    atomic_load_explicit(&sv.mission_save, memory_order_acquire) == SAVE_IDLE) {
		sv.mission_copy = sv.mission;
		sv.mission_handed = sv.gcs.mission_generation;
		atomic_store_explicit(&sv.mission_save, SAVE_PENDING, memory_order_release);
	}
	for (int i = 0; i < LIST_COUNT; i++) {
		struct saved_list *l = &sv.lists[i];
		if (l->path[0] && *l->generation != l->handed &&
		    atomic_load_explicit(&l->save, memory_order_acquire) == SAVE_IDLE) {
			l->copy = l->live;
			l->handed = *l->generation;
			atomic_store_explicit(&l->save, SAVE_PENDING, memory_order_release);
		}
	}
	sched_work_end(sv.sched, &sv.gcs_work);
	(void)ctx;
}

/* io thread: saves the mission handed over by the main thread. */
static void save_mission_task(void)
{
	if (atomic_load_explicit(&sv.mission_save, memory_order_acquire) != SAVE_PENDING)
		return;
	atomic_store_explicit(&sv.mission_save, SAVE_BUSY, memory_order_relaxed);
	int rc = save_mission(&sv.mission_copy);
	if (rc && sv.mission_save_errors++ == 0)
		log_err("saving the mission to %s: %s", sv.mission_path, strerror(-rc));
	if (!rc)
		sv.mission_save_errors = 0;
	atomic_store_explicit(&sv.mission_save, SAVE_IDLE, memory_order_release);
}

static int save_list(const struct saved_list *l, const struct mission *m)
{
	static char text[MISSION_FILE_MAX];
	long n = mission_save_wpl(m, text, sizeof(text));
	if (n < 0)
		return (int)n;
	return storage_write_atomic(l->path, text, (size_t)n, 0644);
}

/* io thread: saves the fence and rally lists handed over by the main thread. */
static void save_lists_task(void)
{
	for (int i = 0; i < LIST_COUNT; i++) {
		struct saved_list *l = &sv.lists[i];
		if (atomic_load_explicit(&l->save, memory_order_acquire) != SAVE_PENDING)
			continue;
		atomic_store_explicit(&l->save, SAVE_BUSY, memory_order_relaxed);
		int rc = save_list(l, &l->copy);
		if (rc && l->errors++ == 0)
			log_err("saving the %s to %s: %s", l->what, l->path, strerror(-rc));
		if (!rc)
			l->errors = 0;
		atomic_store_explicit(&l->save, SAVE_IDLE, memory_order_release);
	}
}

/* io thread: saves a new signing key handed over by the main thread. */
static void save_key_task(void)
{
	if (atomic_load_explicit(&sv.key_save, memory_order_acquire) != SAVE_PENDING)
		return;
	atomic_store_explicit(&sv.key_save, SAVE_BUSY, memory_order_relaxed);
	int rc = save_key(sv.key_copy);
	if (rc)
		log_err("saving the signing key to %s: %s", sv.key_path, strerror(-rc));
	atomic_store_explicit(&sv.key_save, SAVE_IDLE, memory_order_release);
}

/*
 * io thread, once a second: the memory the process can still have, for
 * MEMINFO: the kernel's MemAvailable (free memory plus what it can reclaim
 * without swapping), as `free` reports it. fulmard allocates nothing after
 * start, so the system's headroom is what it has.
 */
static void meminfo_task(void *ctx, uint64_t now_us)
{
	(void)ctx;
	if (sv.mem_read_us && now_us - sv.mem_read_us < 1000000u)
		return;
	sv.mem_read_us = now_us ? now_us : 1;
	char text[4096];
	long n = storage_read("/proc/meminfo", text, sizeof(text) - 1);
	uint64_t bytes = 0;
	if (n > 0) {
		text[n] = '\0';
		const char *m = strstr(text, "MemAvailable:");
		unsigned long long kb;
		if (m && sscanf(m + 13, "%llu", &kb) == 1)
			bytes = (uint64_t)kb * 1024u;
	}
	atomic_store_explicit(&sv.mem_avail, bytes, memory_order_relaxed);
}

/* io thread: saves the parameters, the mission and the key when they changed. */
static void save_task(void *ctx, uint64_t now_us)
{
	save_mission_task();
	save_lists_task();
	save_key_task();
	if (!sv.param_path[0] || param_generation() == sv.saved_generation)
		return;
	int rc = save_params();
	if (rc) {
		/* Said once per run of failures, retried on every change. */
		if (sv.save_errors++ == 0)
			log_err("saving parameters to %s: %s", sv.param_path, strerror(-rc));
		sv.saved_generation = param_generation();
	} else if (sv.save_errors) {
		log_info("parameters saved again after %llu failures",
			 (unsigned long long)sv.save_errors);
		sv.save_errors = 0;
	}
	(void)ctx;
	(void)now_us;
}

void services_flight_refs(struct gcs **gcs, struct vehicle **vehicle, struct mission **mission)
{
	*gcs = &sv.gcs;
	*vehicle = &sv.vehicle;
	*mission = &sv.mission;
}

int services_exit_request(void)
{
	return atomic_load(&sv.exit_request);
}

int services_add_tasks(struct sched *s, const struct sensor_hub *hub, const struct board_io *bio)
{
	sv.sched = s;
	sv.hub = hub;
	sv.bio = bio;
	/* Budget: its longest runs in real-time HIL with a ground station, with room. */
	sv.gcs_work = (struct sched_work){ .name = "ground-station services", .thread = SCHED_MAIN,
					   .shed = SCHED_SHED_FIRST, .budget_us = 300,
					   .max_defer_us = 1000000 };
	int err = sched_add_work(s, &sv.gcs_work);
	if (err)
		return err;
	const struct sched_task tasks[] = {
		{ "links", SCHED_UART, 0, links_poll, &sv.links },
		{ "gcs", SCHED_MAIN, 0, gcs_task, NULL },
		{ "param-save", SCHED_IO, 0, save_task, NULL },
		{ "meminfo", SCHED_IO, 0, meminfo_task, NULL },
	};
	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		int rc = sched_add_task(s, &tasks[i]);
		if (rc)
			return rc;
	}
	return ftp_service_add_tasks(s, &sv.links);
}

void services_close(void)
{
	if (sv.param_path[0] && param_generation() != sv.saved_generation) {
		int rc = save_params();
		if (rc)
			log_err("saving parameters to %s: %s", sv.param_path, strerror(-rc));
	}
	if (sv.mission_path[0] && sv.gcs.mission_generation != sv.mission_handed) {
		int rc = save_mission(&sv.mission);
		if (rc)
			log_err("saving the mission to %s: %s", sv.mission_path, strerror(-rc));
	}
	for (int i = 0; i < LIST_COUNT; i++) {
		const struct saved_list *l = &sv.lists[i];
		if (l->path[0] && l->generation && *l->generation != l->handed) {
			int rc = save_list(l, &l->live);
			if (rc)
				log_err("saving the %s to %s: %s", l->what, l->path, strerror(-rc));
		}
	}
	ftp_service_close();
	links_close(&sv.links);
}
