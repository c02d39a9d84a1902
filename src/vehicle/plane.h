/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The plane, one main-loop step at a time: the flight mode (from the RC mode
 * switch, the ground station, the mission and the failsafes), what each mode
 * flies (pilot's sticks, navigation tasks, the mission), attitude control and
 * the servo pulses. Pure: inputs and time are arguments, state is this
 * struct; owned by the main thread.
 *
 * RC channels (ArduPlane's default map): 1 roll, 2 pitch, 3 throttle, 4 yaw,
 * FLTMODE_CH the 6-position mode switch. Sticks are read about 1500 us over
 * +-400 us (throttle 1100..1900 us); a higher pulse is roll right, nose up,
 * more throttle, nose right.
 *
 * Failsafes (ArduPlane's): RC frames stop or the throttle channel drops below
 * THR_FS_VALUE -> after FS_SHORT_TIMEOUT CIRCLE (FS_SHORT_ACTN 0/1; 2 FBWA
 * glide) from the manual and stabilised modes; after FS_LONG_TIMEOUT RTL
 * (FS_LONG_ACTN 0: RTL unless in AUTO; 1 RTL; 2 FBWA glide). Ground-station
 * heartbeats lost for FS_LONG_TIMEOUT with FS_GCS_ENABL -> RTL. Battery under
 * FS_BATT_VOLTAGE (for 10 s) or past FS_BATT_MAH used -> RTL, or land at the
 * DO_LAND_START sequence when there is one. No position estimate in a
 * navigating mode -> CIRCLE (wings level with a gentle bank, holding
 * height); no attitude estimate -> MANUAL pass-through of the sticks, or
 * neutral surfaces and the motor off without RC.
 *
 * Crash detection (CRASH_DETECT, ArduPlane's meaning; our default is on): in
 * the modes where the autopilot flies the throttle, outside a landing, armed
 * and after a ground speed of CRASH_FLOWN_M_S (a throw, a takeoff roll, a
 * flight), a plane that is not flying for CRASH_DETECT_S is disarmed and
 * "Crash: Disarming" said. Not flying is ArduPlane's test, under 1.5 m/s over
 * the ground with the airspeed under 0.75 ARSPD_FBW_MIN (or no airspeed),
 * and also, while taking off, under 1.5 m/s within 1 m of home's height,
 * whatever the airspeed (a plane sitting in the grass, its pitot in the
 * wind). A failed hand launch otherwise leaves the motor at full power on
 * the ground.
 *
 * Arming from the sticks (ARMING_RUDDER): throttle low and full right rudder
 * held for 3 s arms (the pre-arm checks still apply); with 2, full left
 * rudder disarms, on the ground only (throttle low, not in an auto mode).
 */
#ifndef FULMAR_VEHICLE_PLANE_H
#define FULMAR_VEHICLE_PLANE_H

#include <stdbool.h>
#include <stdint.h>

#include "control/attitude.h"
#include "control/servo.h"
#include "mission/mission.h"
#include "nav/nav.h"
#include "rc/rc.h"
#include "vehicle/fence.h"
#include "vehicle/mission_exec.h"
#include "vehicle/vehicle.h"

/* Field names are ArduPlane's parameter names in lower case. */
struct plane_params {
	struct nav_params nav;
	float rngfnd_max_cm;               /* RNGFND1_MAX_CM: the landing's in-range rules scale with it */
	struct ctl_params ctl;
	struct servo_params servo;
	struct mexec_params mexec;
	struct fence_params fence;          /* FENCE_* and RALLY_* */
	float fltmode_ch;                   /* 5..8 */
	float fltmode[6];                   /* FLTMODE1..6 */
	float thr_failsafe, thr_fs_value;   /* 0/1, us */
	float fs_short_actn, fs_short_timeout, fs_long_actn, fs_long_timeout;
	float fs_gcs_enabl;
	float fs_batt_voltage, fs_batt_mah; /* 0: off */
	float lim_pitch_max, lim_pitch_min; /* centidegrees */
	float tkoff_alt;                    /* m: TAKEOFF mode's height */
	float rtl_autoland;                 /* 1, 2: land at DO_LAND_START */
	float arming_require;               /* 0: the motor may run disarmed (never here) */
	float arming_check;                 /* 0: no pre-arm checks */
	float arming_magthresh;             /* mGauss: compass against the world magnetic model; 0 off */
	float arming_rudder;                /* 0 off, 1 arm by rudder, 2 arm and disarm */
	float crash_detect;                 /* bit 0: disarm on a crash; 0 off */
};

void plane_params_default(struct plane_params *p);

enum plane_failsafe {
	PLANE_FS_NONE = 0,
	PLANE_FS_SHORT = 1,
	PLANE_FS_LONG = 2,
	PLANE_FS_GCS = 3,
};

/* What the step decided. */
struct plane_output {
	uint16_t pwm_us[SERVO_CHANNELS];
	bool nav_active;                    /* nav holds NAV_CONTROLLER_OUTPUT figures */
	struct nav_output nav;
	float roll_dem_rad, pitch_dem_rad, throttle;
	/* events, for STATUSTEXT and MISSION_ITEM_REACHED */
	bool mode_changed;
	const char *text;                   /* a message for the pilot this step, or NULL */
	int text_severity;                  /* MAV_SEVERITY */
	bool reached;
	uint16_t reached_seq;
	bool disarmed_after_landing;
	bool fence_event;                   /* a breach began (fence_code: its types) or ended (0) */
	uint8_t fence_code;
};

/* The geofence as plane_step judges it (FENCE_STATUS, SYS_STATUS). */
struct plane_fence {
	bool aloft;                         /* above FENCE_SAFE_HEIGHT_M since arming */
	uint8_t breaches;                   /* FENCE_TYPE bits breached now */
	uint8_t margins;                    /* ... within FENCE_MARGIN of their boundary */
	uint8_t breach_type;                /* FENCE_BREACH of the last breach */
	uint16_t breach_count;
	uint64_t breach_us;                 /* when the last breach began; 0 never */
};

/* Height above home the plane must have reached, armed, before the fence is enforced. */
#define FENCE_SAFE_HEIGHT_M 10.0f
/* RTL and the fence's GUIDED return fly this far under FENCE_ALT_MAX when the ceiling is on. */
#define FENCE_RTL_BELOW_CEILING_M 10.0f

struct plane {
	struct vehicle *v;                  /* modes and arming (shared with the GCS) */
	enum plane_mode last_mode;
	enum plane_mode switch_mode;        /* what the RC switch last said */
	int switch_pos;                     /* 0..5, -1 none */
	bool switch_pending;                /* its mode was refused: taken when it can fly */
	enum plane_failsafe fs;
	float elevator_last;                /* the elevator of the last step (the rollout slews from it) */
	uint64_t rc_bad_since_us;           /* 0: RC good */
	uint64_t batt_low_since_us;
	bool batt_fs;
	bool imu_fs;                        /* the IMU stuck in flight: the flight ends */
	bool imu_fs_pending;                /* ... by the landing or RTL, once there is an attitude */
	bool gcs_fs;
	struct nav nav;
	bool nav_origin_set;
	struct nav_output nav_last;         /* the last navigation's output ... */
	bool nav_last_ok;                   /* ... from the step before, in this mode */
	float nav_wait_s;                   /* time its runs were deferred since */
	struct ctl ctl;
	struct servo servo;
	struct mexec mexec;
	uint64_t landed_us;
	bool flare_said;                    /* "Flare ..." said for this landing */
	bool rollout_said;                  /* "Touchdown ..." said for this landing */
	uint32_t guided_gen;                /* the GUIDED target flown to */
	uint64_t rudder_since_us;           /* rudder-arming stick held since; 0: not held */
	bool has_flown;                     /* crash detection: flying speed seen since arming */
	uint64_t not_flying_since_us;       /* ... and not flying since; 0: flying */
	struct plane_fence fence;
	int rally_index;                    /* the rally point RTL flies to, -1 home */
	char text[96];                      /* storage for plane_output.text */
	char prearm_text[48];               /* storage for a formatted pre-arm problem */
};

void plane_init(struct plane *p, struct vehicle *v);
void plane_step(struct plane *p, const struct plane_params *pp, const struct vehicle_input *in,
		struct plane_output *out);
/* Whether mode m flies on navigation's demands (L1 and TECS): the work vehicle_input.nav_deferred defers. */
bool plane_mode_navigates(enum plane_mode m);
/* The mode a pulse on the mode channel selects (ArduPlane's six PWM bands). */
int plane_switch_position(uint16_t pwm_us);

#endif
