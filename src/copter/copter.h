/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The multicopter, one main-loop step at a time: the copter's counterpart of
 * vehicle/plane.h. The flight mode (from the RC mode switch, the ground
 * station, the mission and the failsafes), what each mode flies, the
 * attitude, position and waypoint controllers of this folder, the land and
 * crash detectors, the spool states and the motors' pulses. Pure: inputs and
 * time are arguments, state is this struct; owned by the main thread.
 *
 * RC channels (ArduCopter's default map): 1 roll, 2 pitch, 3 throttle, 4 yaw,
 * FLTMODE_CH (default 5) the 6-position mode switch (ArduCopter's PWM bands).
 * Sticks are read about 1500 us over +-400 us, the throttle over 1100..1900
 * us; a higher pulse is roll right, nose up, more throttle, nose right.
 *
 * Modes (ArduCopter's numbers and behaviour):
 *   STABILIZE  sticks: lean angles up to ANGLE_MAX, yaw rate up to
 *              PILOT_Y_RATE, the throttle through ArduCopter's curve that
 *              puts MOT_THST_HOVER at mid-stick.
 *   ALT_HOLD   as STABILIZE, the throttle stick a climb rate (PILOT_SPEED_UP
 *              / _DN, PILOT_ACCEL_Z) outside THR_DZ around mid-stick.
 *   LOITER     the roll and pitch sticks move the held point (wpnav's loiter,
 *              LOIT_*), the throttle as ALT_HOLD's.
 *   POSHOLD    the roll and pitch sticks lean as ALT_HOLD's, each axis
 *              brakes when its stick centres (PHLD_BRAKE_RATE,
 *              PHLD_BRAKE_ANGLE), then the loiter controller holds the
 *              place; the wind it leans against is flown under the sticks
 *              (copter/poshold.h). The throttle as ALT_HOLD's.
 *   GUIDED     to vehicle->guided's target as a waypoint leg, then holds;
 *              holds where it is without one. Armed and landed, a
 *              NAV_TAKEOFF (vehicle->takeoff) climbs straight up, then holds.
 *   AUTO       the mission (in->mission; item 0 is home), from item 1:
 *              NAV_TAKEOFF, NAV_WAYPOINT (param1 hold s), NAV_LOITER_TIME
 *              (param1 s), NAV_LOITER_TURNS (param1 turns, param3 radius m,
 *              negative anticlockwise, 0 CIRCLE_RADIUS), NAV_LAND,
 *              NAV_RETURN_TO_LAUNCH, DO_CHANGE_SPEED (param2 m/s),
 *              DO_SET_HOME (out->home_changed), CONDITION_YAW. Takes off
 *              from the ground once the throttle stick is raised (ArduCopter's
 *              auto_armed). At the mission's end it holds where it is.
 *   RTL        climbs to RTL_ALT (or stays higher, at least RTL_CLIMB_MIN
 *              more), returns at RTL_SPEED (0: WPNAV_SPEED), loiters
 *              RTL_LOIT_TIME, descends to RTL_ALT_FINAL and holds there, or
 *              with 0 lands and disarms.
 *   LAND       descends at LAND_SPEED_HIGH (0: WPNAV_SPEED_DN) down to
 *              LAND_ALT_LOW above home, then LAND_SPEED; holds its position
 *              when it has one (LAND_REPOSITION: the sticks move it, as
 *              LOITER's), else level; disarms once landed.
 *   BRAKE      stops at BRAKE_MODE_DECEL_RATE (7.5 m/s/s) and holds.
 *
 * Arming from the sticks (ARMING_RUDDER, ArduCopter's default 2): throttle
 * at its bottom and full right yaw for 2 s arms (pre-arm checks apply, in a
 * mode that arms); full left yaw for 2 s disarms when landed. Armed and
 * landed with the throttle at its bottom for DISARM_DELAY s disarms (0: not).
 * The land detector's "landed" in LAND, RTL's and AUTO's landing disarms.
 * Crash detection (FS_CRASH_CHECK, land_detect.h) disarms ("Crash:
 * Disarming").
 *
 * Geofence (FENCE_ENABLE, FENCE_TYPE, src/vehicle/fence.h), judged armed and
 * not landed: a new breach takes ArduCopter's FENCE_ACTION: 0 report, 1 RTL
 * (LAND when RTL cannot fly), 2 LAND, 3 RTL, 4 BRAKE, 5 LAND; disarm when
 * landed. RTL stays FENCE_MARGIN under a ceiling, and returns to the rally
 * point rally_select picks (RALLY_INCL_HOME, RALLY_LIMIT_KM) at its height.
 *
 * Failsafes (ArduCopter's parameters; the action said in out->text):
 *   RC     frames stop for RC_FS_TIMEOUT (1 s) or the throttle pulse is under
 *          FS_THR_VALUE with FS_THR_ENABLE: 1 RTL, 2 AUTO goes on (else
 *          RTL), 3 LAND; LAND when RTL
 *          cannot fly (no home, no position) or within 5 m of home; disarm
 *          when landed or in STABILIZE with the throttle at its bottom.
 *   GCS    heartbeats (after a first) stop for FS_GCS_TIMEOUT with
 *          FS_GCS_ENABLE: 1 RTL, 2 AUTO goes on (else RTL), 5 LAND (the
 *          same fall-backs).
 *   battery  under BATT_LOW_VOLT for BATT_LOW_TIMER s, or BATT_LOW_MAH used:
 *          BATT_FS_LOW_ACT 0 warn, 1 LAND, 2 RTL. Once.
 *   EKF    ArduCopter's EKF check at 10 Hz, armed: a bad tick is one with
 *          no position estimate, or two of the compass, velocity and
 *          position variances at FS_EKF_THRESH or more (velocity at twice it
 *          counts as two); ten bad ticks, each good one taking one back,
 *          declare it, and the count back at zero clears it. FS_EKF_THRESH
 *          0 turns the check off. FS_EKF_ACTION 1 LAND, 2 ALT_HOLD, 3 LAND
 *          in any mode; 1 and 2 act only in a mode that needs a position.
 */
#ifndef FULMAR_COPTER_COPTER_H
#define FULMAR_COPTER_COPTER_H

#include <stdbool.h>
#include <stdint.h>

#include "control/servo.h"
#include "copter/atc.h"
#include "copter/land_detect.h"
#include "copter/motors.h"
#include "copter/poshold.h"
#include "copter/psc.h"
#include "copter/wpnav.h"
#include "nav/nav_geo.h"
#include "vehicle/fence.h"
#include "vehicle/vehicle.h"

/* Field names are ArduCopter's parameter names in lower case. */
struct copter_params {
	struct copter_atc_params atc;
	struct copter_psc_params psc;
	struct copter_wpnav_params wpnav;
	struct copter_poshold_params poshold;  /* PHLD_* */
	struct copter_motors_params mot;
	struct copter_land_params land;
	struct servo_params servo;          /* SERVOn_FUNCTION (33..38 motors), _TRIM */
	struct fence_params fence;          /* FENCE_* (FENCE_ACTION: ArduCopter's values) and RALLY_* */
	float fltmode_ch;                   /* 5..8 */
	float fltmode[6];                   /* FLTMODE1..6 */
	float thr_dz;                       /* throttle deadzone about mid-stick, 0..1000 */
	float pilot_y_rate;                 /* deg/s at full yaw stick */
	float fs_thr_enable, fs_thr_value;  /* 0 off, 1 RTL, 3 LAND; us */
	float rc_fs_timeout;                /* s without frames */
	float rc_speed;                     /* RC_SPEED: the motors' pulse rate, Hz (the daemon's) */
	float fs_gcs_enable, fs_gcs_timeout; /* 0 off, 1 RTL, 5 LAND; s */
	float fs_ekf_action, fs_ekf_thresh; /* 1 LAND, 2 ALT_HOLD, 3 LAND always */
	float batt_low_volt, batt_low_mah;  /* 0: off */
	float batt_low_timer;               /* s */
	float batt_fs_low_act;              /* 0 none, 1 LAND, 2 RTL */
	float rtl_alt;                      /* cm above home */
	float rtl_climb_min;                /* cm */
	float rtl_speed;                    /* cm/s, 0: WPNAV_SPEED */
	float rtl_loit_time;                /* ms */
	float rtl_alt_final;                /* cm, 0: land */
	float circle_radius;                /* cm, LOITER_TURNS without a radius */
	float circle_rate;                  /* deg/s */
	float wp_yaw_behavior;              /* 0 hold heading, else face the next waypoint */
	float disarm_delay;                 /* s, 0: not */
	float land_repositions;             /* LAND_REPOSITION: 1 the sticks move a landing */
	float arming_check, arming_rudder;
};

void copter_params_default(struct copter_params *p);

/* What the step decided. */
struct copter_output {
	uint16_t pwm_us[SERVO_CHANNELS];    /* motors on their SERVOn_FUNCTION, others at trim */
	int motor_count;
	float actuator[COPTER_MOTORS_MAX];  /* 0..1 in motor order (HIL_ACTUATOR_CONTROLS); 0 disarmed */
	/* for the log (RATE, ATT, PSCN/E/D, CTUN, MOTB) */
	float roll_target_rad, pitch_target_rad, yaw_target_rad;  /* the attitude target */
	float rate_target_rad_s[3];
	struct copter_atc_out atc;          /* what the mixer was given */
	bool psc_active;                    /* the position controller ran this step */
	struct copter_psc_xy_target psc_xy; /* its targets (NE m from home, up m) */
	struct copter_psc_z_target psc_z;
	struct copter_psc_out psc;          /* and its output */
	struct copter_motors_out motors;    /* spool, limits, thrusts */
	bool landed, landed_maybe;
	/* events, for STATUSTEXT and MISSION_ITEM_REACHED (as struct plane_output's) */
	bool mode_changed;
	const char *text;                   /* a message for the pilot this step, or NULL */
	int text_severity;                  /* MAV_SEVERITY */
	bool reached;
	uint16_t reached_seq;
	bool disarmed_after_landing;
	bool fence_event;                   /* a breach began (fence_code: its types) or ended (0) */
	uint8_t fence_code;
	bool home_changed;                  /* DO_SET_HOME: the owner moves home to home's */
	struct nav_wp home;                 /* lat/lon (alt_rel_m unused) ... */
	float home_alt_msl_m;               /* ... and this height above sea level */
};

/* Where a mission item, RTL or LAND is in its own work. */
enum copter_phase {
	COPTER_PHASE_NONE = 0,
	COPTER_PHASE_TAKEOFF,               /* climbing to a NAV_TAKEOFF */
	COPTER_PHASE_LEG,                   /* flying a leg */
	COPTER_PHASE_HOLD,                  /* holding a point (a delay, a loiter time) */
	COPTER_PHASE_CIRCLE,                /* LOITER_TURNS */
	COPTER_PHASE_RTL_CLIMB,
	COPTER_PHASE_RTL_RETURN,
	COPTER_PHASE_RTL_LOITER,
	COPTER_PHASE_RTL_FINAL,
	COPTER_PHASE_LAND,                  /* descending (LAND, RTL's and AUTO's landings) */
	COPTER_PHASE_DONE,                  /* the mission is over: holding */
};

/* What a mode asks of the controllers this step. */
struct copter_demand {
	bool fly;                 /* airborne or taking off: throttle unlimited */
	bool psc;                 /* the position controller makes lean and throttle */
	bool landing;
	float roll_cd, pitch_cd;  /* without psc */
	float throttle;           /* without psc (STABILIZE) */
	bool yaw_rate;            /* yaw_rate_cds, else c->yaw_cd */
	float yaw_rate_cds;
	float climb_target_m_s;   /* for the throttle mix */
};

struct copter {
	struct vehicle *v;
	uint32_t last_mode;
	int switch_pos;                     /* 0..5, -1 none */
	uint32_t switch_mode;               /* what the switch last asked */
	bool switch_pending;                /* ... refused: taken once it can fly */
	/* controllers */
	struct copter_atc atc;
	struct copter_psc psc;
	struct copter_motors motors;
	bool motors_ok;                     /* copter_motors_init accepted the frame */
	struct copter_motors_limit limit;   /* the mixer's flags of the last step */
	float throttle_out;                 /* the mixer's throttle of the last step */
	struct copter_land land;
	struct copter_wpnav_leg leg;
	struct copter_wpnav_loiter loiter;
	struct copter_poshold poshold;
	bool psc_running;                   /* the position controller flies the vehicle */
	bool ground_contact;                /* a landing touching the ground this step */
	/* vehicle_input.nav_deferred: the last navigation's demand and output,
	 * flown again while it is deferred, and the time it missed */
	struct copter_demand nav_demand;
	struct copter_psc_out nav_psc_out;
	bool nav_last_ok;
	float nav_wait_s;
	float yaw_cd;                       /* the heading target of the auto modes */
	bool yaw_fixed;                     /* CONDITION_YAW's, until the next nav item */
	/* the mode's work */
	enum copter_phase phase;
	uint64_t phase_us;                  /* when it began */
	float hold_s;                       /* how long HOLD lasts */
	float hold_ne_m[2], hold_alt_m;     /* the point held */
	float speed_cm_s;                   /* DO_CHANGE_SPEED's, 0: WPNAV_SPEED */
	uint16_t item;                      /* the mission item being flown */
	bool item_reached_said;
	float circle_center_ne_m[2], circle_radius_m, circle_angle_rad, circle_rate_rad_s;
	float circle_total_rad, circle_goal_rad;
	int circle_dir;
	float rtl_alt_m;                    /* the return height */
	float rtl_ne_m[2];                  /* where RTL returns to: home or a rally point */
	bool auto_armed;                    /* ArduCopter's: the throttle was raised since arming */
	bool takeoff_pending;               /* the pilot modes: lifting off */
	uint32_t guided_gen, takeoff_gen;   /* vehicle->guided's and ->takeoff's, taken */
	/* arming and failsafes */
	uint64_t stick_since_us;            /* arm/disarm stick held since; 0 not */
	uint64_t zero_thr_since_us;         /* landed with the throttle down since; 0 not */
	uint64_t rc_bad_since_us;
	bool rc_fs, gcs_fs, batt_fs, ekf_fs;
	uint64_t batt_low_since_us;
	uint64_t ekf_check_us;              /* the EKF check's last 10 Hz tick */
	uint8_t ekf_bad_count;              /* its count of bad ticks, 0..10 */
	uint8_t fence_breaches;             /* FENCE_TYPE bits breached now */
	uint8_t fence_margins;              /* ... within FENCE_MARGIN of their boundary */
	uint16_t fence_breach_count;
	uint8_t fence_breach_type;          /* FENCE_BREACH of the last breach (FENCE_STATUS) */
	uint64_t fence_breach_us;           /* when the last breach began; 0 never */
	int rally_index;                    /* the rally point RTL flies to, -1 home */
	double origin_lat_deg, origin_lon_deg;
	bool origin_set;
	char text[96];
};

void copter_init(struct copter *c, struct vehicle *v);
/* One step. Calls copter_motors_init on its first step (and whenever the
 * frame last failed): an unknown frame outputs nothing but pulses at their
 * minimum and says so. */
void copter_step(struct copter *c, const struct copter_params *p, const struct vehicle_input *in,
		 struct copter_output *out);
/* Where the vehicle is flying to, as ArduCopter's get_wp gives it for
 * POSITION_TARGET_GLOBAL_INT: the end of the leg flown or the point held in
 * AUTO, GUIDED (a fly-to or a takeoff) and RTL, while the position controller
 * flies. False otherwise (*wp untouched). Height above home. */
bool copter_target(const struct copter *c, struct nav_wp *wp);
/* Whether mode flies on the position controller: the work
 * vehicle_input.nav_deferred defers (the mode's targets and the position
 * controller; the attitude and rate loops and the mixer run every step). */
bool copter_mode_navigates(uint32_t mode);
/* The position (0..5) of the mode switch's pulse (ArduCopter's six bands). */
int copter_switch_position(uint16_t pwm_us);

#endif
