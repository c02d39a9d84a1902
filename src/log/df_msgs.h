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

#endif
