// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The DataFlash messages fulmar logs: their ids, formats, column labels, units and
 * multipliers (named and laid out as ArduPilot's where the meaning is the same, so
 * Mission Planner, MAVExplorer and UAV Log Viewer show them), and one packer per
 * message that writes a whole record into a caller buffer.
 *
 * Threads: everything here is pure and reentrant; the packers are meant to be called
 * by the producing thread (real-time ones included) to fill a ring slot. They copy
 * bytes only: no allocation, no locks, no string formatting.
 *
 * Return codes: bytes written (the record's length), -ENOSPC if cap is too small
 * (nothing written), -EINVAL for a bad argument.
 *
 * Ordering contract for whoever writes the file: df_pack_preamble() first (FMT for
 * FMT, UNIT, MULT and FMTU, then every UNIT and MULT), then df_pack_announce() for a
 * message type before its first record.
 */
#ifndef FULMAR_LOG_DF_MSGS_H
#define FULMAR_LOG_DF_MSGS_H

#include <stddef.h>
#include <stdint.h>

#include "log/df_format.h"

/* Vehicle messages below 128, common ones from 128 (FMT's id is fixed). */
enum df_msg_id {
	DF_ID_ATT = 1,
	DF_ID_GPS = 2,
	DF_ID_IMU = 3,
	DF_ID_BARO = 4,
	DF_ID_MAG = 5,
	DF_ID_POS = 6,
	DF_ID_CTUN = 7,
	DF_ID_NTUN = 8,
	DF_ID_TECS = 9,
	DF_ID_RCIN = 10,
	DF_ID_RCOU = 11,
	DF_ID_BAT = 12,
	DF_ID_CMD = 13,
	DF_ID_XKF1 = 14,
	DF_ID_XKF3 = 15,
	DF_ID_XKF4 = 16,
	DF_ID_XKF2 = 17,
	DF_ID_ARSP = 18,
	DF_ID_VIBE = 19,
	DF_ID_POWR = 20,
	DF_ID_ORGN = 21,
	/* the copter's (ArduCopter 4.6's layouts; ATT and CTUN under their names,
	 * another layout than the plane's: one kind flies, so a file has one) */
	DF_ID_RATE = 22,
	DF_ID_PSCN = 23,
	DF_ID_PSCE = 24,
	DF_ID_PSCD = 25,
	DF_ID_CATT = 26,
	DF_ID_CCTUN = 27,
	DF_ID_MOTB = 28,
	DF_ID_RFND = 29,
	DF_ID_FMT = 128,
	DF_ID_PARM = 129,
	DF_ID_MSG = 130,
	DF_ID_MODE = 131,
	DF_ID_EV = 132,
	DF_ID_ERR = 133,
	DF_ID_PM = 134,
	DF_ID_UNIT = 135,
	DF_ID_MULT = 136,
	DF_ID_FMTU = 137,
	DF_ID_DSF = 138,
	DF_ID_LATE = 139,
	DF_ID_PMT = 140,
};

/* Whole record lengths, header included. */
#define DF_UNIT_LEN 76u
#define DF_MULT_LEN 20u
#define DF_FMTU_LEN 44u
#define DF_PARM_LEN 35u
#define DF_MSG_LEN 75u
#define DF_MODE_LEN 14u
#define DF_EV_LEN 12u
#define DF_ERR_LEN 13u
#define DF_PM_LEN 35u
#define DF_ATT_LEN 27u
#define DF_GPS_LEN 51u
#define DF_IMU_LEN 54u
#define DF_BARO_LEN 43u
#define DF_MAG_LEN 35u
#define DF_POS_LEN 31u
#define DF_CTUN_LEN 37u
#define DF_NTUN_LEN 45u
#define DF_TECS_LEN 64u
#define DF_RCIN_LEN 39u
#define DF_RCOU_LEN 39u
#define DF_BAT_LEN 41u
#define DF_CMD_LEN 46u
#define DF_XKF1_LEN 56u
#define DF_XKF3_LEN 42u
#define DF_XKF4_LEN 44u
#define DF_XKF2_LEN 46u
#define DF_ARSP_LEN 41u
#define DF_VIBE_LEN 28u
#define DF_POWR_LEN 24u
#define DF_ORGN_LEN 24u
#define DF_DSF_LEN 33u
#define DF_RATE_LEN 63u
#define DF_PSC_LEN 47u
#define DF_CATT_LEN 36u
#define DF_CCTUN_LEN 55u
#define DF_MOTB_LEN 32u
#define DF_RFND_LEN 16u
#define DF_LATE_LEN 65u
#define DF_PMT_LEN 34u

/* Where a column's value lives in the message's C struct, for the generic packer.
 * size is the member's size: the letter's for numbers, at least the letter's for
 * text (a char array one longer holds the NUL). */
struct df_field {
	uint16_t off;
	uint16_t size;
};
#define DF_FIELD(type, member) { offsetof(type, member), sizeof(((type *)0)->member) }

/*
 * One message type. units and mults hold one character per format letter: unit ids
 * and multiplier ids of df_units[] and df_mults[] (written as FMTU).
 */
struct df_msg_def {
	uint8_t type;
	uint8_t length;
	const char *name;
	const char *format;
	const char *labels;
	const char *units;
	const char *mults;
	const struct df_field *fields;  /* one per letter; NULL for FMT, UNIT, MULT, FMTU */
};

extern const struct df_msg_def df_msg_defs[];
extern const size_t df_msg_def_count;

/* The definition of a type id, or NULL. */
const struct df_msg_def *df_msg_def_find(uint8_t type);

struct df_unit {
	char id;
	const char *label;
};
struct df_mult {
	char id;
	double mult;
};
extern const struct df_unit df_units[];
extern const size_t df_unit_count;
extern const struct df_mult df_mults[];
extern const size_t df_mult_count;

/* Bytes df_pack_preamble() writes. */
size_t df_preamble_len(void);
/* FMT for FMT, UNIT, MULT, FMTU; their FMTUs; every UNIT and MULT record. */
int df_pack_preamble(uint8_t *buf, size_t cap, uint64_t t_us);
/* FMT then FMTU for one message type (DF_FMT_LEN + DF_FMTU_LEN bytes). */
int df_pack_announce(uint8_t *buf, size_t cap, uint64_t t_us, const struct df_msg_def *def);

/*
 * Packs a whole record of type from its struct (struct df_<name> below) through the
 * type's field table: -EINVAL for a type without one. The typed packers below are
 * this with the type fixed.
 */
int df_pack_struct(uint8_t *buf, size_t cap, const struct df_msg_def *def, const void *m);

/* Times are CLOCK_MONOTONIC microseconds stamped at the source. */

/* PARM "QNff": one parameter, written at log start and on change. */
struct df_parm {
	uint64_t t_us;
	char name[17];              /* up to 16 chars, NUL-terminated here */
	float value;
	float default_value;
};
int df_pack_parm(uint8_t *buf, size_t cap, const struct df_parm *m);

/* MSG "QZ": a text message (the STATUSTEXT a GCS saw). */
struct df_msg {
	uint64_t t_us;
	char text[65];              /* up to 64 chars */
};
int df_pack_msg(uint8_t *buf, size_t cap, const struct df_msg *m);

/* MODE "QMBB": flight mode change (mode and mode_num are the custom_mode). */
struct df_mode {
	uint64_t t_us;
	uint8_t mode;
	uint8_t mode_num;
	uint8_t reason;
};
int df_pack_mode(uint8_t *buf, size_t cap, const struct df_mode *m);

/* EV "QB": an event (arm, disarm, landed, ...). */
struct df_ev {
	uint64_t t_us;
	uint8_t id;
};
int df_pack_ev(uint8_t *buf, size_t cap, const struct df_ev *m);

/* ERR "QBB": a subsystem error or its clearing. */
struct df_err {
	uint64_t t_us;
	uint8_t subsys;
	uint8_t code;
};
int df_pack_err(uint8_t *buf, size_t cap, const struct df_err *m);

/* PM "QHHHIIIIH": main-loop timing over the last reporting period. */
struct df_pm {
	uint64_t t_us;
	uint16_t loop_rate_hz;      /* LR: the loop's target rate */
	uint16_t n_long;            /* NLon: loops over their period */
	uint16_t n_loop;            /* NLoop: loops run */
	uint32_t max_t_us;          /* MaxT: longest loop */
	uint32_t min_t_us;          /* MinT: shortest loop */
	uint32_t avg_t_us;          /* AvgT: mean loop */
	uint32_t log_drop;          /* LogDrop: log records dropped so far */
	uint16_t load_permille;     /* Load: loop time / period, 0.1 % */
};
int df_pack_pm(uint8_t *buf, size_t cap, const struct df_pm *m);

/* ATT "QccccCCCC": attitude demand and achieved (centidegrees). */
struct df_att {
	uint64_t t_us;
	int16_t des_roll_cdeg;
	int16_t roll_cdeg;
	int16_t des_pitch_cdeg;
	int16_t pitch_cdeg;
	uint16_t des_yaw_cdeg;      /* 0..35999 */
	uint16_t yaw_cdeg;
	uint16_t err_rp_x100;       /* estimator attitude error, ×100 */
	uint16_t err_yaw_x100;
};
int df_pack_att(uint8_t *buf, size_t cap, const struct df_att *m);

/* GPS "QBBIHBcLLeffffB": one receiver's fix. */
struct df_gps {
	uint64_t t_us;
	uint8_t instance;
	uint8_t status;             /* GPS_FIX_TYPE */
	uint32_t week_ms;           /* GMS */
	uint16_t week;              /* GWk */
	uint8_t num_sats;
	int16_t hdop_x100;
	int32_t lat_1e7;            /* degrees ×1e7 */
	int32_t lng_1e7;
	int32_t alt_msl_cm;
	float ground_speed_m_s;
	float course_deg;
	float vel_down_m_s;         /* VZ: NED down */
	float yaw_deg;
	uint8_t used;
};
int df_pack_gps(uint8_t *buf, size_t cap, const struct df_gps *m);

/* IMU "QBffffffIIfBBHH": one inertial sensor's sample (body frame, FRD). */
struct df_imu {
	uint64_t t_us;
	uint8_t instance;
	float gyr_x_rad_s, gyr_y_rad_s, gyr_z_rad_s;
	float acc_x_m_s2, acc_y_m_s2, acc_z_m_s2;
	uint32_t gyro_errors;       /* EG */
	uint32_t accel_errors;      /* EA */
	float temp_degc;            /* T */
	uint8_t gyro_healthy;       /* GH */
	uint8_t accel_healthy;      /* AH */
	uint16_t gyro_rate_hz;      /* GHz */
	uint16_t accel_rate_hz;     /* AHz */
};
int df_pack_imu(uint8_t *buf, size_t cap, const struct df_imu *m);

/* BARO "QBfffcfIffB": one barometer's sample. */
struct df_baro {
	uint64_t t_us;
	uint8_t instance;
	float alt_m;                /* Alt: above the ground calibration */
	float alt_amsl_m;           /* AltAMSL */
	float press_pa;             /* Press */
	int16_t temp_cdegc;         /* Temp: degC ×100 */
	float climb_m_s;            /* CRt */
	uint32_t sample_ms;         /* SMS: time of the sample, ms */
	float offset_m;             /* Offset: altitude offset */
	float gnd_temp_degc;        /* GndTemp */
	uint8_t healthy;            /* Health */
};
int df_pack_baro(uint8_t *buf, size_t cap, const struct df_baro *m);

/* MAG "QBhhhhhhhhhBI": one compass's field, offsets and motor compensation (mGauss). */
struct df_mag {
	uint64_t t_us;
	uint8_t instance;
	int16_t mag_x_mga, mag_y_mga, mag_z_mga;
	int16_t ofs_x_mga, ofs_y_mga, ofs_z_mga;
	int16_t mot_x_mga, mot_y_mga, mot_z_mga;
	uint8_t healthy;
	uint32_t sample_us;         /* S: time of the sample */
};
int df_pack_mag(uint8_t *buf, size_t cap, const struct df_mag *m);

/* POS "QLLfff": the estimator's position. */
struct df_pos {
	uint64_t t_us;
	int32_t lat_1e7;
	int32_t lng_1e7;
	float alt_msl_m;            /* Alt */
	float rel_home_alt_m;       /* RelHomeAlt */
	float rel_origin_alt_m;     /* RelOriginAlt */
};
int df_pack_pos(uint8_t *buf, size_t cap, const struct df_pos *m);

/* CTUN "Qcccchhhfff": plane control tuning (demands in centidegrees). */
struct df_ctun {
	uint64_t t_us;
	int16_t nav_roll_cdeg;      /* NavRoll: roll demand */
	int16_t roll_cdeg;
	int16_t nav_pitch_cdeg;     /* NavPitch: pitch demand */
	int16_t pitch_cdeg;
	int16_t throttle_out_pct;   /* ThO */
	int16_t rudder_out;         /* RdrOut: -4500..4500 */
	int16_t throttle_dem_pct;   /* ThD */
	float airspeed_m_s;         /* As: the airspeed estimate in use */
	float sensor_airspeed_m_s;  /* SAs: the sensor's (NaN without one) */
	float eas2tas;              /* E2T */
};
int df_pack_ctun(uint8_t *buf, size_t cap, const struct df_ctun *m);

/* RATE "Qfffffffffffff": the copter's rate loops, roll, pitch and yaw (deg/s)
 * and the vertical acceleration (m/s/s): desired, actual, output. */
struct df_rate {
	uint64_t t_us;
	float roll_des, roll, roll_out;
	float pitch_des, pitch, pitch_out;
	float yaw_des, yaw, yaw_out;
	float accel_des, accel, accel_out;
	float accel_out_slew;       /* AOutSlew */
};

/* PSCN, PSCE, PSCD "Qfffffffff": the copter's position controller on one axis
 * (north, east, down): desired, target and actual position (m), velocity
 * (m/s) and acceleration (m/s/s). */
struct df_psc {
	uint64_t t_us;
	float pos_des, pos_tgt, pos;
	float vel_des, vel_tgt, vel;
	float acc_des, acc_tgt, acc;
};

/* ATT "QffffffB": the copter's attitude, desired and actual (deg), and the
 * AHRS in use (AEKF: 3, the EKF3 slot ArduCopter gives its EKF). */
struct df_catt {
	uint64_t t_us;
	float des_roll, roll, des_pitch, pitch, des_yaw, yaw;
	uint8_t aekf;
};

/* CTUN "Qffffffefffhh": the copter's throttle and height: throttle in, the
 * angle boost, throttle out and hover (0..1); desired, actual, barometer,
 * desired-rangefinder, rangefinder and terrain heights (m; BAlt in cm);
 * desired and actual climb (cm/s). */
struct df_cctun {
	uint64_t t_us;
	float thr_in, angle_boost, thr_out, thr_hover;
	float des_alt_m, alt_m;
	int32_t baro_alt_cm;
	float des_sonar_alt_m, sonar_alt_m, terrain_alt_m;
	int16_t des_climb_cm_s, climb_cm_s;
};

/* MOTB "QfffffB": the motors' battery compensation and limits: lift max,
 * battery voltage (filtered), throttle limit, average max throttle, throttle
 * out, failed-motor flags. */
struct df_motb {
	uint64_t t_us;
	float lift_max, bat_volt, th_limit, thr_av_max, thr_out;
	uint8_t fail_flags;
};

/* NTUN "QfcccfffLLe": navigation tuning towards the current waypoint. */
struct df_ntun {
	uint64_t t_us;
	float wp_dist_m;            /* Dist */
	int16_t target_bearing_cdeg; /* TBrg */
	int16_t nav_bearing_cdeg;   /* NavBrg */
	int16_t alt_err_cm;         /* AltE */
	float xtrack_m;             /* XT */
	float xtrack_i;             /* XTi: cross-track integrator */
	float airspeed_err_m_s;     /* AsE */
	int32_t target_lat_1e7;     /* TLat */
	int32_t target_lng_1e7;     /* TLng */
	int32_t target_alt_cm;      /* TAlt */
};
int df_pack_ntun(uint8_t *buf, size_t cap, const struct df_ntun *m);

/* TECS "QfffffffffffffB": total energy control. */
struct df_tecs {
	uint64_t t_us;
	float h_m;                  /* h: height estimate */
	float dh_m_s;               /* dh: climb rate */
	float h_dem_m;              /* hdem */
	float dh_dem_m_s;           /* dhdem */
	float spd_dem_m_s;          /* spdem: TAS demand */
	float spd_m_s;              /* sp */
	float dspd_m_s2;            /* dsp */
	float integ_thr;            /* ith */
	float integ_pitch;          /* iph */
	float thr;                  /* th: throttle demand 0..1 */
	float pitch_dem_rad;        /* ph */
	float dspd_dem_m_s2;        /* dspdem */
	float spd_weight;           /* w */
	uint8_t flags;              /* f */
};
int df_pack_tecs(uint8_t *buf, size_t cap, const struct df_tecs *m);

#define DF_RC_CHANNELS 14u
/* RCIN / RCOU "QHHHHHHHHHHHHHH": pulse widths of channels 1..14 in, and out. */
struct df_rc {
	uint64_t t_us;
	uint16_t ch_us[DF_RC_CHANNELS];
};
int df_pack_rcin(uint8_t *buf, size_t cap, const struct df_rc *m);
int df_pack_rcou(uint8_t *buf, size_t cap, const struct df_rc *m);

/* BAT "QBfffffcfBBB": one battery monitor. */
struct df_bat {
	uint64_t t_us;
	uint8_t instance;
	float volt_v;               /* Volt */
	float volt_rest_v;          /* VoltR: resting voltage estimate */
	float curr_a;               /* Curr */
	float used_mah;             /* CurrTot */
	float used_wh;              /* EnrgTot */
	int16_t temp_cdegc;         /* Temp */
	float resistance_ohm;       /* Res */
	uint8_t remaining_pct;      /* RemPct */
	uint8_t healthy;            /* H */
	uint8_t health_pct;         /* SH: state of health */
};
int df_pack_bat(uint8_t *buf, size_t cap, const struct df_bat *m);

/* CMD "QHHHffffLLfB": a mission item (written when the mission loads or changes,
 * and when execution reaches it). */
struct df_cmd {
	uint64_t t_us;
	uint16_t total;             /* CTot */
	uint16_t seq;               /* CNum */
	uint16_t command;           /* CId: MAV_CMD */
	float param1, param2, param3, param4;
	int32_t lat_1e7;
	int32_t lng_1e7;
	float alt_m;
	uint8_t frame;              /* MAV_FRAME */
};
int df_pack_cmd(uint8_t *buf, size_t cap, const struct df_cmd *m);

/* XKF1 "QBccCfffffffccce": estimator state (core C). */
struct df_xkf1 {
	uint64_t t_us;
	uint8_t core;
	int16_t roll_cdeg, pitch_cdeg;
	uint16_t yaw_cdeg;
	float vel_n_m_s, vel_e_m_s, vel_d_m_s;
	float dpos_d_m_s;           /* dPD: derivative of the down position */
	float pos_n_m, pos_e_m, pos_d_m;
	int16_t gyro_bias_x_cdeg_s, gyro_bias_y_cdeg_s, gyro_bias_z_cdeg_s;
	int32_t origin_hgt_cm;      /* OH */
};
int df_pack_xkf1(uint8_t *buf, size_t cap, const struct df_xkf1 *m);

/* XKF3 "QBcccccchhhccff": estimator innovations (measurement minus prediction). */
struct df_xkf3 {
	uint64_t t_us;
	uint8_t core;
	int16_t ivn_cm_s, ive_cm_s, ivd_cm_s;      /* IVN IVE IVD: velocity, ×100 m/s */
	int16_t ipn_cm, ipe_cm, ipd_cm;            /* IPN IPE IPD: position, ×100 m */
	int16_t imx_mga, imy_mga, imz_mga;         /* IMX IMY IMZ: magnetometer */
	int16_t iyaw_cdeg;                         /* IYAW */
	int16_t ivt_cm_s;                          /* IVT: airspeed */
	float rerr;                                /* RErr: range finder innovation */
	float err_score;                           /* ErSc: error score */
};
int df_pack_xkf3(uint8_t *buf, size_t cap, const struct df_xkf3 *m);

/* XKF4 "QBcccccfffHBIHb": innovation test ratios (×100; 100 = at the gate) and health. */
struct df_xkf4 {
	uint64_t t_us;
	uint8_t core;
	int16_t sv_x100, sp_x100, sh_x100, sm_x100, svt_x100; /* vel, pos, hgt, mag, airspeed */
	float err_rp;               /* errRP: tilt error */
	float ofn_m, ofe_m;         /* OFN OFE: position reset jumps */
	uint16_t faults;            /* FS */
	uint8_t timeouts;           /* TS */
	uint32_t solution;          /* SS: solution status bits */
	uint16_t gps_check;         /* GPS: GPS check failures */
	int8_t primary;             /* PI */
};
int df_pack_xkf4(uint8_t *buf, size_t cap, const struct df_xkf4 *m);

/* XKF2 "QBccccchhhhhhfff": estimator state, second part (core C): the
 * sensor biases, wind and magnetic field states. */
struct df_xkf2 {
	uint64_t t_us;
	uint8_t core;
	int16_t ax_cm_s2, ay_cm_s2, az_cm_s2;       /* AX AY AZ: accelerometer bias, ×100 m/s^2 */
	int16_t vwn_cm_s, vwe_cm_s;                 /* VWN VWE: wind, the way it blows, ×100 m/s */
	int16_t mn_mga, me_mga, md_mga;             /* MN ME MD: earth field (NED), mGauss */
	int16_t mx_mga, my_mga, mz_mga;             /* MX MY MZ: body field (compass bias), mGauss */
	float idx_m_s2, idy_m_s2;                   /* IDX IDY: drag innovations */
	float is_rad;                               /* IS: sideslip innovation */
};
int df_pack_xkf2(uint8_t *buf, size_t cap, const struct df_xkf2 *m);

/* ARSP "QBffcffBBffB": one airspeed sensor. */
struct df_arsp {
	uint64_t t_us;
	uint8_t instance;           /* I */
	float airspeed_m_s;         /* Airspeed: equivalent (indicated) */
	float diff_press_pa;        /* DiffPress: after the offset */
	int16_t temp_cdegc;         /* Temp */
	float raw_press_pa;         /* RawPress: as the sensor reads it */
	float offset_pa;            /* Offset */
	uint8_t use;                /* U: the estimator may use it */
	uint8_t healthy;            /* H */
	float health_prob;          /* Hp: 0..1 */
	float test_ratio;           /* TR: the estimator's innovation test ratio */
	uint8_t primary;            /* Pri */
};
int df_pack_arsp(uint8_t *buf, size_t cap, const struct df_arsp *m);

/* RFND "QBCBB": one rangefinder's reading (ArduPilot's layout, Dist in cm). */
struct df_rfnd {
	uint64_t t_us;
	uint8_t instance;           /* Instance: 0, RNGFND1 */
	uint16_t dist_cm;           /* Dist: along the beam; 0 without a return */
	uint8_t status;             /* Stat: RangeFinder::Status (vehicle/rangefinder.h) */
	uint8_t orient;             /* Orient: RNGFND1_ORIENT */
};
int df_pack_rfnd(uint8_t *buf, size_t cap, const struct df_rfnd *m);

/*
 * LATE "QBBIIIIIIIHHHHN": one loop over twice its period and where the time
 * went (fulmar's own; daemon/scheduler.h, struct sched_late, says what each
 * figure covers). Dly and Cpu are 4294967295 where the kernel gave none.
 */
struct df_late {
	uint64_t t_us;
	uint8_t thread;             /* Thr: 1 timer, 2 main, 3 rcin, 4 uart, 5 tone, 6 io */
	uint8_t cause;              /* Cause: 0 task, 1 blocked, 2 page fault, 3 preempted, 4 kernel */
	uint32_t period_us;         /* Per */
	uint32_t interval_us;       /* Ivl: what was judged over 2x */
	uint32_t late_us;           /* Lat: woken this late */
	uint32_t run_us;            /* Run: the run inside the interval */
	uint32_t task_us;           /* TkT: its longest task */
	uint32_t run_delay_us;      /* Dly: runnable, waiting for the CPU */
	uint32_t cpu_us;            /* Cpu: on the CPU */
	uint16_t nvcsw;             /* VC: voluntary context switches */
	uint16_t nivcsw;            /* IC: involuntary context switches */
	uint16_t minflt;            /* Fmn: minor page faults */
	uint16_t majflt;            /* Fmj: major page faults */
	char task[16];              /* Task: the longest task's name */
};
int df_pack_late(uint8_t *buf, size_t cap, const struct df_late *m);

/*
 * PMT "QBIHHIIIH": one thread's loops over the last 10 s, PM's figures for
 * every thread (fulmar's own; the maxima are the window's, from
 * sched_window_take: tools/soak's per-minute table is built from them).
 */
struct df_pmt {
	uint64_t t_us;
	uint8_t thread;             /* Thr: as LATE's */
	uint32_t n_loop;            /* NLoop: loops run */
	uint16_t n_long;            /* NLon: over 1.5x their period */
	uint16_t n_late;            /* NL2x: over 2x (each has a LATE record) */
	uint32_t max_i_us;          /* MaxI: longest start to start */
	uint32_t max_w_us;          /* MaxW: longest wake-up latency (0 in lock-step) */
	uint32_t max_r_us;          /* MaxR: longest run */
	uint16_t load_permille;     /* Load: mean run against the period, 0.1 % */
};
int df_pack_pmt(uint8_t *buf, size_t cap, const struct df_pmt *m);

/* VIBE "QBfffI": one IMU's vibration levels and clipping count. */
struct df_vibe {
	uint64_t t_us;
	uint8_t imu;
	float vibe_x_m_s2, vibe_y_m_s2, vibe_z_m_s2;
	uint32_t clip;              /* samples clipped since start */
};
int df_pack_vibe(uint8_t *buf, size_t cap, const struct df_vibe *m);

/* POWR "QffHHB": the board's rails (MAV_POWER_STATUS flags). */
struct df_powr {
	uint64_t t_us;
	float vcc_v;                /* Vcc: board 5 V */
	float vservo_v;             /* VServo: servo rail */
	uint16_t flags;             /* Flags: MAV_POWER_STATUS now */
	uint16_t acc_flags;         /* AccFlags: every flag seen since start */
	uint8_t safety;             /* Safety: 0 none, 1 disarmed, 2 armed */
};
int df_pack_powr(uint8_t *buf, size_t cap, const struct df_powr *m);

/* ORGN "QBLLe": an origin: Type 0 the estimator's, 1 home. */
struct df_orgn {
	uint64_t t_us;
	uint8_t type;
	int32_t lat_1e7;
	int32_t lng_1e7;
	int32_t alt_cm;             /* MSL */
};
int df_pack_orgn(uint8_t *buf, size_t cap, const struct df_orgn *m);

/* DSF "QIHIIII": the log writer's own figures (written by the writer, 1 Hz and
 * whenever drops grow). */
struct df_dsf {
	uint64_t t_us;
	uint32_t dropped;           /* Dp: records producers could not queue, in total */
	uint16_t writes;            /* Blk: write() calls since the last DSF */
	uint32_t bytes;             /* Bytes: written to this file so far */
	uint32_t free_min;          /* FMn: least free ring bytes seen (any producer) */
	uint32_t free_max;          /* FMx */
	uint32_t free_avg;          /* FAv */
};
int df_pack_dsf(uint8_t *buf, size_t cap, const struct df_dsf *m);

#endif
