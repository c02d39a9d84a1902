// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <string.h>

#include "log/df_msgs.h"

const struct df_msg_def df_msg_defs[] = {
	{ DF_ID_FMT, DF_FMT_LEN, "FMT", "BBnNZ", "Type,Length,Name,Format,Columns",
	  "-b---", "-----" },
	{ DF_ID_UNIT, DF_UNIT_LEN, "UNIT", "QbZ", "TimeUS,Id,Label", "s--", "F--" },
	{ DF_ID_MULT, DF_MULT_LEN, "MULT", "Qbd", "TimeUS,Id,Mult", "s--", "F--" },
	{ DF_ID_FMTU, DF_FMTU_LEN, "FMTU", "QBNN", "TimeUS,FmtType,UnitIds,MultIds",
	  "s---", "F---" },
	{ DF_ID_PARM, DF_PARM_LEN, "PARM", "QNff", "TimeUS,Name,Value,Default",
	  "s---", "F---" },
	{ DF_ID_MSG, DF_MSG_LEN, "MSG", "QZ", "TimeUS,Message", "s-", "F-" },
	{ DF_ID_MODE, DF_MODE_LEN, "MODE", "QMBB", "TimeUS,Mode,ModeNum,Rsn",
	  "s---", "F---" },
	{ DF_ID_EV, DF_EV_LEN, "EV", "QB", "TimeUS,Id", "s-", "F-" },
	{ DF_ID_ERR, DF_ERR_LEN, "ERR", "QBB", "TimeUS,Subsys,ECode", "s--", "F--" },
	{ DF_ID_PM, DF_PM_LEN, "PM", "QHHHIIIIH",
	  "TimeUS,LR,NLon,NLoop,MaxT,MinT,AvgT,LogDrop,Load",
	  "sz--sss-%", "F---FFF-A" },
	{ DF_ID_ATT, DF_ATT_LEN, "ATT", "QccccCCCC",
	  "TimeUS,DesRoll,Roll,DesPitch,Pitch,DesYaw,Yaw,ErrRP,ErrYaw",
	  "sdddddd--", "FBBBBBBBB" },
	{ DF_ID_GPS, DF_GPS_LEN, "GPS", "QBBIHBcLLeffffB",
	  "TimeUS,I,Status,GMS,GWk,NSats,HDop,Lat,Lng,Alt,Spd,GCrs,VZ,Yaw,U",
	  "s#-s-S-DUmnhnh-", "F--C--BGGB-----" },
};
const size_t df_msg_def_count = sizeof df_msg_defs / sizeof df_msg_defs[0];

const struct df_unit df_units[] = {
	{ '-', "" },
	{ 's', "s" },
	{ 'd', "deg" },
	{ 'D', "deglatitude" },
	{ 'U', "deglongitude" },
	{ 'm', "m" },
	{ 'n', "m/s" },
	{ 'h', "degheading" },
	{ 'S', "satellites" },
	{ 'z', "Hz" },
	{ '%', "%" },
	{ '#', "instance" },
	{ 'b', "B" },
};
const size_t df_unit_count = sizeof df_units / sizeof df_units[0];

const struct df_mult df_mults[] = {
	{ '-', 0.0 },
	{ '?', 1.0 },
	{ '0', 1.0 },
	{ 'A', 1e-1 },
	{ 'B', 1e-2 },
	{ 'C', 1e-3 },
	{ 'F', 1e-6 },
	{ 'G', 1e-7 },
};
const size_t df_mult_count = sizeof df_mults / sizeof df_mults[0];

/* The four records that describe the others come first, in this order. */
static const uint8_t preamble_types[] = { DF_ID_FMT, DF_ID_UNIT, DF_ID_MULT, DF_ID_FMTU };

const struct df_msg_def *df_msg_def_find(uint8_t type)
{
	for (size_t k = 0; k < df_msg_def_count; k++)
		if (df_msg_defs[k].type == type)
			return &df_msg_defs[k];
	return NULL;
}

size_t df_preamble_len(void)
{
	return sizeof preamble_types * (DF_FMT_LEN + DF_FMTU_LEN) +
	       df_unit_count * DF_UNIT_LEN + df_mult_count * DF_MULT_LEN;
}

int df_pack_announce(uint8_t *buf, size_t cap, uint64_t t_us, const struct df_msg_def *def)
{
	if (!def)
		return -EINVAL;
	if (cap < DF_FMT_LEN + DF_FMTU_LEN)
		return -ENOSPC;
	int n = df_pack_fmt(buf, cap, def->type, def->name, def->format, def->labels);
	if (n < 0)
		return n;
	int m = df_pack_fmtu(buf + n, cap - (size_t)n, t_us, def->type, def->units, def->mults);
	if (m < 0)
		return m;
	return n + m;
}

int df_pack_preamble(uint8_t *buf, size_t cap, uint64_t t_us)
{
	size_t off = 0;
	int n;

	if (cap < df_preamble_len())
		return -ENOSPC;
	/* All FMTs of the describing records before any of them is used. */
	for (size_t k = 0; k < sizeof preamble_types; k++) {
		const struct df_msg_def *def = df_msg_def_find(preamble_types[k]);
		n = df_pack_fmt(buf + off, cap - off, def->type, def->name, def->format,
				def->labels);
		if (n < 0)
			return n;
		off += (size_t)n;
	}
	for (size_t k = 0; k < df_unit_count; k++) {
		n = df_pack_unit(buf + off, cap - off, t_us, df_units[k].id, df_units[k].label);
		if (n < 0)
			return n;
		off += (size_t)n;
	}
	for (size_t k = 0; k < df_mult_count; k++) {
		n = df_pack_mult(buf + off, cap - off, t_us, df_mults[k].id, df_mults[k].mult);
		if (n < 0)
			return n;
		off += (size_t)n;
	}
	for (size_t k = 0; k < sizeof preamble_types; k++) {
		const struct df_msg_def *def = df_msg_def_find(preamble_types[k]);
		n = df_pack_fmtu(buf + off, cap - off, t_us, def->type, def->units, def->mults);
		if (n < 0)
			return n;
		off += (size_t)n;
	}
	return (int)off;
}

static int begin(uint8_t *buf, size_t cap, uint8_t type, size_t len, struct df_put *c)
{
	if (cap < len)
		return -ENOSPC;
	c->p = buf;
	df_put_u8(c, DF_HEAD1);
	df_put_u8(c, DF_HEAD2);
	df_put_u8(c, type);
	return 0;
}

int df_pack_parm(uint8_t *buf, size_t cap, const struct df_parm *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_PARM, DF_PARM_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_str(&c, m->name, 16);
	df_put_f32(&c, m->value);
	df_put_f32(&c, m->default_value);
	return (int)DF_PARM_LEN;
}

int df_pack_msg(uint8_t *buf, size_t cap, const struct df_msg *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_MSG, DF_MSG_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_str(&c, m->text, 64);
	return (int)DF_MSG_LEN;
}

int df_pack_mode(uint8_t *buf, size_t cap, const struct df_mode *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_MODE, DF_MODE_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_u8(&c, m->mode);
	df_put_u8(&c, m->mode_num);
	df_put_u8(&c, m->reason);
	return (int)DF_MODE_LEN;
}

int df_pack_ev(uint8_t *buf, size_t cap, const struct df_ev *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_EV, DF_EV_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_u8(&c, m->id);
	return (int)DF_EV_LEN;
}

int df_pack_err(uint8_t *buf, size_t cap, const struct df_err *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_ERR, DF_ERR_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_u8(&c, m->subsys);
	df_put_u8(&c, m->code);
	return (int)DF_ERR_LEN;
}

int df_pack_pm(uint8_t *buf, size_t cap, const struct df_pm *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_PM, DF_PM_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_u16(&c, m->loop_rate_hz);
	df_put_u16(&c, m->n_long);
	df_put_u16(&c, m->n_loop);
	df_put_u32(&c, m->max_t_us);
	df_put_u32(&c, m->min_t_us);
	df_put_u32(&c, m->avg_t_us);
	df_put_u32(&c, m->log_drop);
	df_put_u16(&c, m->load_permille);
	return (int)DF_PM_LEN;
}

int df_pack_att(uint8_t *buf, size_t cap, const struct df_att *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_ATT, DF_ATT_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_i16(&c, m->des_roll_cdeg);
	df_put_i16(&c, m->roll_cdeg);
	df_put_i16(&c, m->des_pitch_cdeg);
	df_put_i16(&c, m->pitch_cdeg);
	df_put_u16(&c, m->des_yaw_cdeg);
	df_put_u16(&c, m->yaw_cdeg);
	df_put_u16(&c, m->err_rp_x100);
	df_put_u16(&c, m->err_yaw_x100);
	return (int)DF_ATT_LEN;
}

int df_pack_gps(uint8_t *buf, size_t cap, const struct df_gps *m)
{
	struct df_put c;
	if (begin(buf, cap, DF_ID_GPS, DF_GPS_LEN, &c) < 0)
		return -ENOSPC;
	df_put_u64(&c, m->t_us);
	df_put_u8(&c, m->instance);
	df_put_u8(&c, m->status);
	df_put_u32(&c, m->week_ms);
	df_put_u16(&c, m->week);
	df_put_u8(&c, m->num_sats);
	df_put_i16(&c, m->hdop_x100);
	df_put_i32(&c, m->lat_1e7);
	df_put_i32(&c, m->lng_1e7);
	df_put_i32(&c, m->alt_msl_cm);
	df_put_f32(&c, m->ground_speed_m_s);
	df_put_f32(&c, m->course_deg);
	df_put_f32(&c, m->vel_down_m_s);
	df_put_f32(&c, m->yaw_deg);
	df_put_u8(&c, m->used);
	return (int)DF_GPS_LEN;
}
