/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the flight's files share (flight.c, flight_records.c, flight_gcs.c); not
 * for the rest of the daemon. The state is the main thread's, but for armed
 * (flight_armed, any thread).
 */
#ifndef FULMAR_DAEMON_FLIGHT_INTERNAL_H
#define FULMAR_DAEMON_FLIGHT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "copter/copter.h"
#include "daemon/flight.h"
#include "daemon/scheduler.h"
#include "estim/vibe.h"

struct log_producer;

struct orgn_said {
	bool said;
	int32_t lat, lng, alt_cm;
};

struct flight {
	struct sensor_hub *hub;
	struct rcout *out;
	struct gcs *gcs;
	struct vehicle *vehicle;
	struct mission *mission;
	struct estim est;
	struct estim_config est_cfg;
	/* the vehicle that flies (flight.vehicle->kind): the other's are unused */
	struct plane plane;
	struct plane_params pp;
	struct plane_output po;
	struct copter copter;
	struct copter_params cp;
	struct copter_output co;
	struct servo_params out_servo;  /* what the outputs were mixed with (flight_servo_params) */
	struct vehicle_state vs;
	struct imu_sample imu;          /* latest taken */
	uint64_t imu_taken;
	struct vibe vibe;               /* VIBRATION: from every IMU sample */
	uint32_t gen[SENSOR_KIND_COUNT];  /* topic generations taken */
	struct rc_frame rc;
	bool rc_seen;
	struct gps_fix gps;
	bool gps_new;                   /* a fix taken this step */
	struct mag_sample mag;          /* the latest compass sample ... */
	bool mag_seen;                  /* ... if any came */
	bool autodec;                   /* COMPASS_AUTODEC at start-up */
	bool decl_said;                 /* the model's declination given to the estimator */
	bool wmm_known;                 /* the model's field at the latest 3D fix: */
	float wmm_decl_deg, wmm_incl_deg, wmm_gauss;
	struct battery_sample batt;
	struct rangefinder rng;         /* RNGFND1_*: the state flight code is given */
	struct rangefinder_params rng_p;
	uint32_t arsp_disables_said, arsp_enables_said, arsp_fallbacks_said, arsp_warnings_said;
	bool rng_said_bad;              /* "no data" or "stuck" said, not yet "good again" */
	struct range_sample rng_sample; /* the latest reading taken (the log's RFND) */
	bool home_set;
	bool was_armed;
	enum plane_mode mode_said;      /* for the log: what was last said */
	bool armed_said;
	uint32_t health;                /* the estimator's, as last said */
	uint64_t last_us;               /* now, on the samples' clock (see flight_task) */
	uint64_t paused_us;             /* the samples' source's pauses passed to the estimator */
	uint64_t say_us;                /* the same on their source's clock: the time said in the log's lines */
	uint32_t param_gen;             /* the parameters' generation last loaded */
	uint64_t log_next25_us, log_next10_us;  /* the log's next 25 Hz and 10 Hz ticks */
	uint64_t log_next1_us;          /* and 1 Hz (POWR) */
	struct estim_ekf_report ekf_rep;  /* the copter's EKF check's, at its 10 Hz */
	uint16_t motor_rate_hz;         /* RC_SPEED as last set on the outputs (or refused) */
	uint64_t ekf_rep_us;
	uint32_t log_gps_gen, log_baro_gen;
	uint32_t log_mag_gen, log_as_gen;  /* MAG's and ARSP's health: a sample since the last record */
	struct orgn_said log_orgn[2];   /* ORGN types 0 and 1 as logged */
	bool log_orgn_armed;            /* the arming the origins were last logged at */
	struct sched *sched;            /* loop timing (PM) and shedding; may be NULL */
	struct sched_work nav_work;     /* navigation: shed last */
	struct sched_work log_work;     /* the log's periodic records: shed first */
	uint64_t shed_seen;             /* the main thread's shed loops at the window's start */
	uint64_t shed_window_us;        /* when this second's window began */
	uint64_t shed_from;             /* its shed loops when this overload began */
	bool overloaded;                /* as said */
	unsigned int shed_quiet;        /* whole windows without shedding since */
	struct { uint32_t us; uint64_t from_us, to_us; } burn[FLIGHT_TEST_BURNS];  /* flight_test_burn */
	unsigned int n_burn;
	uint64_t pm_last_us;
	struct sched_figures pm_prev;   /* the main loop's figures at the last PM */
	_Atomic bool armed;
	uint64_t out_errors;
};

/*
 * flight_all.c compiles flight.c, flight_records.c and flight_gcs.c as one
 * translation unit (FLIGHT_ONE_UNIT): then what they share here is static, as
 * it was in one file, and the main loop inlines its records again.
 */
#ifdef FLIGHT_ONE_UNIT
#define FLIGHT_SHARED static
#else
#define FLIGHT_SHARED
#endif

/* The one flight (flight.c): set up by flight_init, stepped by flight_task. */
#ifdef FLIGHT_ONE_UNIT
static struct flight flight;
#else
extern struct flight flight;
#endif

/* --- the log records (flight_records.c), main thread ----------------------- */

/* A MSG record of text (copied, not formatted). */
FLIGHT_SHARED void flight_records_text(struct log_producer *lp, uint64_t now_us, const char *text);
/* The main loop's records: at 25 and 10 Hz (shed first), GPS at each fix, ORGN as origins move. */
FLIGHT_SHARED void flight_records_write(uint64_t now_us);
/* PM, every 10 s. */
FLIGHT_SHARED void flight_records_pm(uint64_t now_us);
/* RFND, with each rangefinder reading taken (its rate, not shed: as GPS). */
FLIGHT_SHARED void flight_records_rfnd(uint64_t now_us);
/* The mission as armed with, as CMD records. */
FLIGHT_SHARED void flight_records_mission(uint64_t now_us);

#endif
