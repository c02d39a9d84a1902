/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The ground-station services: what a GCS sees and drives over MAVLink —
 * heartbeat, parameters, and (as they arrive) missions, commands and streams.
 * Pure: frames and time in, messages out through gcs_tx; no sockets. Runs on
 * the main thread (it changes parameters and modes). The one string work it
 * does there is a bounded snprintf of a 50-character STATUSTEXT when it
 * refuses something: no I/O, no allocation, and rare.
 */
#ifndef FULMAR_MAVLINK_GCS_H
#define FULMAR_MAVLINK_GCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mavlink/frame.h"
#include "mission/mission.h"
#include "fulmar/vehicle_state.h"
#include "vehicle/vehicle.h"

#define GCS_MAX_LINKS 8
#define GCS_LINK_ALL (-1)

/* MAV_SEVERITY */
enum gcs_severity {
	GCS_SEV_EMERGENCY = 0,
	GCS_SEV_ALERT,
	GCS_SEV_CRITICAL,
	GCS_SEV_ERROR,
	GCS_SEV_WARNING,
	GCS_SEV_NOTICE,
	GCS_SEV_INFO,
	GCS_SEV_DEBUG,
};

/* Where messages go: packed payload (max length) of msgid to one link or all. */
struct gcs_tx {
	void (*send)(void *ctx, int link, uint32_t msgid, const uint8_t *payload);
	void *ctx;
};

/* What the vehicle says about itself in HEARTBEAT; filled in by the vehicle. */
struct gcs_identity {
	uint8_t mav_type;         /* MAV_TYPE_FIXED_WING */
	uint8_t autopilot;        /* MAV_AUTOPILOT_ARDUPILOTMEGA */
	uint8_t base_mode;        /* MAV_MODE_FLAG_* */
	uint32_t custom_mode;     /* ArduPlane mode number */
	uint8_t system_status;    /* MAV_STATE */
};

enum gcs_xfer_state {
	GCS_XFER_IDLE = 1,
	GCS_XFER_UPLOAD,          /* items coming in from a ground station */
};

/* A mission upload under way (downloads need no state: each request is answered). */
struct gcs_mission_xfer {
	enum gcs_xfer_state state;
	int link;
	uint8_t peer_sys, peer_comp;
	uint16_t expected;        /* the next item to ask for */
	uint16_t end;             /* one past the last item of this upload */
	uint64_t last_us;         /* when we last asked */
	unsigned int retries;
	uint8_t type;             /* MAV_MISSION_TYPE: 0 mission, 1 fence, 2 rally */
	struct mission staging;   /* the new list, taken whole at the last item */
};

struct gcs_stats {
	uint64_t frames_in;
	uint64_t not_for_us;      /* addressed to another system or component */
	uint64_t unhandled;       /* messages fulmar does not act on */
	uint64_t param_unknown;   /* read or set of a name or index we do not have */
	uint64_t param_refused;   /* a set outside the range or of the wrong kind */
	uint64_t mission_refused; /* an upload or request refused (with its MISSION_ACK) */
	uint64_t fence_rejected;  /* fence or rally items or lists refused as invalid */
	uint64_t mission_retries; /* items asked for again after a time-out */
	uint64_t commands;        /* COMMAND_LONG/INT for us */
	uint64_t commands_refused;  /* answered with anything but ACCEPTED */
	uint64_t stream_refused;  /* REQUEST_DATA_STREAM of a group or start_stop we do not have */
};

/* What a ground station asked the daemon itself to do. */
enum gcs_exit_request {
	GCS_EXIT_NONE = 1,
	GCS_EXIT_REBOOT,          /* PREFLIGHT_REBOOT_SHUTDOWN 1: restart fulmard */
	GCS_EXIT_SHUTDOWN,        /* ... 2: stop it */
};

/* The messages sent as streams (ArduPilot's SRn_* groups), one slot each per link. */
#define GCS_STREAM_COUNT 29

struct gcs_link_state {
	bool active;
	int param_next;           /* next index of a running PARAM_REQUEST_LIST, -1 idle */
	int32_t interval_us[GCS_STREAM_COUNT];  /* SET_MESSAGE_INTERVAL: 0 the SRn rate, -1 off */
	uint64_t next_us[GCS_STREAM_COUNT];
	uint64_t gcs_heard_us;    /* the last ground-station HEARTBEAT on this link; 0 never */
	/* A link of limited bandwidth (a serial radio): bytes/s, 0 unlimited. */
	uint32_t bytes_per_s;
	uint16_t frame_len[GCS_STREAM_COUNT];   /* each stream's last frame on the wire, bytes */
	uint32_t shed_mask;       /* streams not sent for want of bandwidth (bit = slot) */
	uint64_t shed_msgs;       /* messages of those streams not sent, since start */
	uint32_t shed_said;       /* shed_mask as last told in a STATUSTEXT */
	uint64_t shed_told_us;    /* when */
	float param_credit;       /* bytes a parameter list may still send now */
};

/* What the telemetry tells; the owner fills it in before each gcs_tick. */
struct gcs_inputs {
	struct vehicle_state state;    /* .valid 0: the estimator knows nothing */
	uint64_t unix_us;              /* wall-clock time, 0 when unknown */
	uint16_t load_permille;        /* main loop: run time over period, 0..1000 */
	uint32_t sensors_present;      /* MAV_SYS_STATUS_SENSOR bits */
	uint32_t sensors_enabled;
	uint32_t sensors_health;
	uint16_t drop_rate_permyriad;  /* frames lost on the links, 1/100 % */
	uint16_t errors_comm;          /* frames refused (CRC, length, signature) */
	struct {                       /* the RC receiver; count 0: none heard */
		uint8_t count;
		uint16_t us[18];
		uint8_t rssi;          /* 0..254, 255 unknown */
	} rc;
	struct {                       /* servo outputs; count 0: none */
		uint8_t count;
		uint16_t us[16];
	} servo;
	float throttle;                /* 0..1 as the throttle channel drives the motor */
	struct {                       /* the GPS receiver */
		bool present;
		uint8_t fix_type;      /* GPS_FIX_TYPE: 0 no GPS, 1 no fix, 2 2D, 3 3D */
		int32_t lat_e7, lon_e7, alt_mm;
		uint16_t eph_cm, epv_cm, vel_cm_s, cog_cdeg;
		uint8_t satellites;
	} gps;
	struct {                       /* the IMU and compass, latest sample; t_us 0: none */
		uint64_t t_us;
		float accel_m_s2[3], gyro_rad_s[3];
		float mag_ut[3];       /* NAN: no compass */
		float temp_c;
	} imu;
	struct {                       /* the barometer and pitot; t_us 0: none */
		uint64_t t_us;
		float pressure_pa, diff_pressure_pa;  /* diff NAN: no airspeed sensor */
		float temp_c;
	} baro;
	struct gcs_estimator {         /* the estimator's own account; present false: none */
		bool present;
		uint16_t ekf_flags;    /* EKF_STATUS_FLAGS */
		float velocity_variance, pos_horiz_variance, pos_vert_variance;  /* test ratios */
		float compass_variance, terrain_alt_variance, airspeed_variance;
		float pos_horiz_accuracy_m, pos_vert_accuracy_m;
		float local_ned_m[3];  /* position from the estimator's origin */
		bool local_valid;
		float gyro_bias_rad_s[3];          /* AHRS: the gyro drift estimated */
		float tilt_sigma_rad, yaw_sigma_rad;
		bool delayed_valid;    /* AHRS2: the filter's solution at its delayed horizon */
		float delayed_rpy_rad[3];
		int32_t delayed_lat_e7, delayed_lon_e7;
		float delayed_alt_msl_m;
		bool delayed_pos_valid;
	} estimator;
	struct {                       /* VIBRATION; valid false: no IMU sample yet */
		bool valid;
		float level_m_s2[3];
		uint32_t clipped;
	} vibe;
	struct {                       /* POSITION_TARGET_GLOBAL_INT: where navigation flies */
		bool valid;
		int32_t lat_e7, lon_e7;
		float alt_msl_m;
	} target;
	struct {                       /* POWER_STATUS: the board's rails, 0 not measured */
		float vcc_v, vservo_v;
		uint16_t flags;        /* MAV_POWER_STATUS */
	} power;
	uint64_t mem_avail_bytes;      /* MEMINFO: memory available to the process; 0 unknown */
	struct {                       /* the battery monitor */
		bool present;
		float voltage_v, current_a, consumed_mah;  /* NAN: unknown */
		int8_t remaining_pct;  /* -1 unknown: from BATT_CAPACITY and consumed_mah */
	} battery;
	struct {                       /* the geofence (FENCE_STATUS, SYS_STATUS) */
		bool enabled;          /* FENCE_ENABLE */
		uint8_t breaches;      /* FENCE_TYPE bits breached now */
		uint8_t breach_type;   /* FENCE_BREACH of the last breach */
		uint16_t breach_count;
		uint32_t breach_time_ms;  /* since boot; 0 never */
		uint8_t mitigation;    /* FENCE_MITIGATE: 0 unknown, 1 none, 2 acting */
	} fence;
	struct {                       /* navigation, while a mode navigates */
		bool active;
		float nav_roll_deg, nav_pitch_deg;
		int16_t nav_bearing_deg, target_bearing_deg;
		uint16_t wp_dist_m;
		float alt_error_m, aspd_error_m_s, xtrack_error_m;
	} nav;
	struct {                       /* the rangefinder (RNGFND1_*): DISTANCE_SENSOR, RANGEFINDER */
		bool present;          /* RNGFND1_TYPE is not 0: the streams carry it */
		bool has_data;         /* a reading within its time-out (status neither
		                        * NotConnected nor NoData) */
		bool healthy;          /* Good and not stuck */
		float distance_m;      /* the latest reading along the beam; 0 without one */
		float min_m, max_m;    /* RNGFND1_MIN_CM, RNGFND1_MAX_CM */
		uint8_t orientation;   /* RNGFND1_ORIENT (MAV_SENSOR_ORIENTATION: 25 down) */
		int8_t quality_pct;    /* -1 unknown */
	} rangefinder;
};

struct gcs {
	uint8_t sysid, compid;
	struct gcs_tx tx;
	struct gcs_identity id;
	struct gcs_link_state link[GCS_MAX_LINKS];
	unsigned int params_per_tick;  /* PARAM_VALUEs per link per gcs_tick of a list */
	uint64_t last_heartbeat_us;
	uint64_t gcs_heartbeat_us; /* the last HEARTBEAT from a ground station (MAV_TYPE_GCS); 0 never */
	struct mission *mission;  /* the live mission (main thread's), NULL: none */
	struct mission *fence, *rally;  /* the fence and rally lists (mission_type 1, 2), NULL: none */
	struct vehicle *vehicle;  /* modes and arming (main thread's), NULL: none */
	uint32_t arming_check;    /* ARMING_CHECK, read by the owner */
	enum gcs_exit_request exit_request;
	struct gcs_inputs in;
	/* SETUP_SIGNING: the key a ground station installed (all zero: off), for the owner. */
	uint8_t signing_key[32];
	uint64_t signing_timestamp;
	uint32_t signing_generation;  /* bumped by each SETUP_SIGNING */
	int batt_capacity_idx;              /* BATT_CAPACITY, -1 none */
	int sr_param[3][GCS_STREAM_COUNT];  /* SRn_* parameter of each stream's group, -1 none */
	uint64_t boot_us;                   /* time of the first tick */
	uint64_t streams_last_us;           /* the streams' last tick */
	uint32_t mission_generation;  /* bumped on every change, for saving */
	uint32_t fence_generation, rally_generation;
	struct gcs_mission_xfer xfer;
	struct gcs_stats stats;
};

/* mission: the live mission the services read and replace (may be NULL: none). */
void gcs_init(struct gcs *g, uint8_t sysid, uint8_t compid, const struct gcs_tx *tx,
	      struct mission *mission);
/* A frame that arrived (already checked for signing) on link. */
void gcs_handle(struct gcs *g, int link, const struct mavlink_frame *f, uint64_t now_us);
/* Periodic work (heartbeat, parameter lists): call at 50 Hz or more. */
void gcs_tick(struct gcs *g, uint64_t now_us);
/*
 * One message now, as REQUEST_MESSAGE asks. Returns 0, -ENOENT for a message
 * fulmar does not send, -EAGAIN when it has nothing true to say yet (a
 * position before the estimator has one).
 */
int gcs_send_message(struct gcs *g, int link, uint32_t msgid);
/*
 * SET_MESSAGE_INTERVAL for a streamed message on a link: interval_us > 0, or 0
 * for the SRn default, or -1 to stop it. Returns 0 or -EINVAL (not a stream).
 */
int gcs_set_interval(struct gcs *g, int link, uint32_t msgid, int32_t interval_us);
/*
 * REQUEST_DATA_STREAM as ArduPilot takes it: stream group id (MAV_DATA_STREAM,
 * 0 all) at rate_hz on link (0 or start_stop 0: stop), by its SRn_ parameters
 * (links past 2 share SR2), which also drops SET_MESSAGE_INTERVAL overrides of
 * the group's messages on that link. Returns 0, or -EINVAL for a group fulmar
 * does not have.
 */
int gcs_request_data_stream(struct gcs *g, int link, uint8_t stream_id, uint16_t rate_hz,
			    uint8_t start_stop);
/*
 * A link that can carry only bytes_per_s (a serial link: baud / 10; 0 for
 * unlimited): streams beyond what it carries are shed by priority.
 */
void gcs_set_link_bandwidth(struct gcs *g, int link, uint32_t bytes_per_s);
/* MISSION_ITEM_REACHED to every link. */
void gcs_mission_reached(struct gcs *g, uint16_t seq);
/*
 * STATUSTEXT to every link (cut to 50 characters). It carries printable ASCII
 * only: any other byte that reaches it goes as '?'. Text from the wire is
 * escaped first with gcs_escape, so that it says what came.
 */
void gcs_text(struct gcs *g, enum gcs_severity sev, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Up to in_len bytes of in (ending at a NUL) as printable ASCII into out
 * (out_len >= 1, always NUL-terminated, cut at a whole escape): a backslash
 * as \\, any byte outside 0x20..0x7e as \xNN. Returns the length written.
 */
size_t gcs_escape(const char *in, size_t in_len, char *out, size_t out_len);
/*
 * Battery remaining in percent (0..100) from BATT_CAPACITY (mAh) and the
 * charge used, as ArduPilot's monitor says it; -1 when either is unknown
 * (a capacity of 0, a consumption that is not a number).
 */
int8_t gcs_battery_remaining(float capacity_mah, float consumed_mah);

#endif
