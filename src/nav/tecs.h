/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * TECS: total energy control of speed and height (Lambregts; as ArduPilot's
 * AP_TECS applies it). Throttle controls the total energy (potential + kinetic),
 * pitch the balance between them. Pure; state in caller storage; call on the
 * main thread at the navigation rate (10-400 Hz; dt is an argument).
 */
#ifndef FULMAR_NAV_TECS_H
#define FULMAR_NAV_TECS_H

#include <stdbool.h>

/* How far under the approach's pitch the flare's floor starts (5 degrees). The
 * approach's pitch was flown with the motor's thrust; with the motor off the
 * same path takes a lower attitude, and a flare a gust has lifted over its path
 * lower still. Measured over issue 16's 200 flights (docs/campaign.md): from
 * the approach's pitch itself f009 floated 1.8 m over its path at the floor
 * (-1 degree) after a 5 m/s headwind gust and landed 25 m long, from 5 degrees
 * under it 15 m; the 95 % figure went from 19.4 to 15.4 m in turbulence 7.7. */
#define TECS_FLARE_FLOOR_DROP_DEG 5.0f

/* Field names follow ArduPilot's parameters (TECS_CLMB_MAX -> tecs_clmb_max). */
struct tecs_params {
	float tecs_clmb_max;    /* m/s, climb rate at THR_MAX and cruise speed */
	float tecs_sink_min;    /* m/s, sink rate at THR_MIN and cruise speed */
	float tecs_sink_max;    /* m/s, fastest sink demanded */
	float tecs_time_const;  /* s, of the energy loops */
	float tecs_thr_damp;    /* throttle damping on the energy-rate error */
	float tecs_integ_gain;  /* integrators' gain, 1/s */
	float tecs_vert_acc;    /* m/s^2, limit on the pitch demand's rate (as V * dpitch/dt) */
	float tecs_spd_omega;   /* rad/s, airspeed complementary filter */
	float tecs_rll2thr;     /* m^2/s^3 of energy rate per (1/cos^2(roll) - 1) */
	float tecs_spdweight;   /* 0 (height first) .. 2 (speed first) */
	float tecs_ptch_damp;   /* pitch damping on the energy-balance rate error */
	float tecs_land_sink;   /* m/s, sink rate at touchdown after the flare */
	float tecs_land_tconst; /* s, time constant of the energy loops in the flare */
	float tecs_land_damp;   /* pitch damping on the sink-rate error in the flare */
	float tecs_land_arspd;  /* m/s, the landing approach's airspeed; < 0: the cruise demand */
	float tecs_synairspeed; /* 1: fly the speed on a synthetic airspeed (the sensor declared
	                         * unhealthy); 0: fly as without an airspeed (ArduPlane's default) */
	/* shared ArduPlane parameters TECS uses */
	float arspd_fbw_min;    /* m/s */
	float arspd_fbw_max;    /* m/s */
	float thr_min;          /* percent */
	float thr_max;          /* percent */
	float trim_throttle;    /* percent, level flight at TRIM_ARSPD_CM */
	float lim_pitch_max;    /* centidegrees */
	float lim_pitch_min;    /* centidegrees */
	float land_pitch_cd;    /* centidegrees, lowest pitch in the flare */
};

void tecs_params_default(struct tecs_params *p);

enum tecs_stage {
	TECS_STAGE_NORMAL = 1,
	TECS_STAGE_TAKEOFF,        /* full throttle (less only above tkoff_eas_max_m_s); pitch up
				      to the takeoff pitch, less only to hold the speed demand
				      (speed weight 2) */
	TECS_STAGE_LAND_APPROACH,  /* the height demand is a glide path: no smoothing lag */
	TECS_STAGE_LAND_FLARE,     /* throttle cut, pitch holds the flare path, speed ignored */
};

struct tecs_input {
	float hgt_m;               /* height (above home), estimator's */
	float climb_m_s;           /* up positive */
	float eas_m_s;             /* equivalent airspeed (ignored unless eas_ok) */
	bool eas_ok;               /* an airspeed sensor is in use and healthy */
	float vel_dot_m_s2;        /* longitudinal acceleration (specific force x - g sin pitch),
				      NAN when not known: derived from the airspeed then */
	float pitch_rad, roll_rad;
	float eas2tas;
	float hgt_dem_m;           /* demanded height */
	float eas_dem_m_s;         /* demanded airspeed (equivalent) */
	enum tecs_stage stage;
	float ptch_takeoff_rad;    /* TAKEOFF stage: the climb-out pitch (the highest demanded) */
	float tkoff_eas_max_m_s;   /* TAKEOFF stage: faster than this (EAS) the throttle comes off
				      (an aircraft that out-climbs its takeoff pitch); 0: full throttle */
	bool flare_power;          /* LAND_FLARE stage: the throttle stays on the energy loop */
	bool flare_past;           /* LAND_FLARE stage: past the land point (the pitch floor,
				      LAND_PITCH_CD, 2 degrees lower) */
	float flare_frac;          /* LAND_FLARE stage: the part of the flare's height flown,
				      0 at its start, 1 on the ground: the pitch floor rises
				      with it from the flare's first pitch to LAND_PITCH_CD */
};

struct tecs {
	bool initialised;
	bool bumpless;             /* next update starts the pitch integrator at the present pitch */
	enum tecs_stage last_stage;
	/* airspeed filter */
	float tas_state, integ_dtas, vel_dot;
	/* demands after limiting */
	float tas_dem_adj, tas_rate_dem;
	float hgt_dem_rl, hgt_dem_adj, hgt_dem_adj_last, hgt_rate_dem;
	/* integrators: throttle (0..1), pitch (rad) */
	float integ_thr, integ_seb;
	float flare_pitch0_rad;    /* the pitch demand when the flare began */
	float tkoff_thr_cut;       /* the takeoff speed cap's cut from full throttle, lagged */
	float ste_error, seb_error;
	bool underspeed;
	/* outputs */
	float throttle_dem;        /* 0..1 */
	float pitch_dem_rad;
	float last_pitch_dem_rad;
};

void tecs_init(struct tecs *t);
/* While the pitch is not TECS's to fly (a takeoff roll on the wheels): the
 * next pitch demand starts from pitch_rad (then at the TECS_VERT_ACC rate)
 * and the pitch integrator holds trim_rad, not what it would gather. */
void tecs_hold_pitch(struct tecs *t, float pitch_rad, float trim_rad);
/* One step of dt_s; outputs in t->throttle_dem and t->pitch_dem_rad. */
void tecs_update(struct tecs *t, const struct tecs_params *p, const struct tecs_input *in, float dt_s);

#endif
