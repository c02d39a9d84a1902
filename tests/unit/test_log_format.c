// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "log/df_format.h"
#include "log/df_msgs.h"
#include "log/df_reader.h"

#include "reference.h"

/* The reference logs' folder, once main has found it. */
static char dataflash_dir[256];

/* A byte stream under construction. */
struct stream {
	uint8_t buf[16384];
	size_t len;
};

static void append(struct stream *s, int n)
{
	assert_true(n > 0);
	s->len += (size_t)n;
	assert_true(s->len <= sizeof s->buf);
}

static struct df_reader *reader_new(void)
{
	struct df_reader *r = malloc(sizeof *r);
	assert_non_null(r);
	df_reader_init(r);
	return r;
}

/* Feeds data in chunks of chunk bytes, collecting up to max records' copies. */
struct read_out {
	size_t n;
	uint8_t type[256];
	uint8_t data[256][DF_MAX_RECORD_LEN];
};

static void read_all(struct df_reader *r, const uint8_t *data, size_t len, size_t chunk,
		     struct read_out *out)
{
	struct df_record rec;
	size_t off = 0;

	while (off < len) {
		size_t n = len - off < chunk ? len - off : chunk;
		size_t took = df_reader_feed(r, data + off, n);
		off += took;
		while (df_reader_next(r, &rec) == 1) {
			if (out && out->n < 256) {
				out->type[out->n] = rec.type;
				memcpy(out->data[out->n], rec.data, rec.length);
				out->n++;
			}
		}
	}
	df_reader_end(r);
	while (df_reader_next(r, &rec) == 1) {
		if (out && out->n < 256) {
			out->type[out->n] = rec.type;
			memcpy(out->data[out->n], rec.data, rec.length);
			out->n++;
		}
	}
}

/* Field k of the record copy i, decoded through the reader's learnt FMT. */
static struct df_value field(const struct df_reader *r, const struct read_out *o, size_t i,
			     unsigned k)
{
	struct df_record rec = {
		.type = o->type[i],
		.length = r->fmts[o->type[i]].length,
		.fmt = &r->fmts[o->type[i]],
		.data = o->data[i],
	};
	struct df_value v;
	assert_int_equal(df_record_field(&rec, k, &v), 0);
	return v;
}

static void assert_text(struct df_value v, const char *want)
{
	assert_int_equal(v.v.s.len, strlen(want));
	assert_memory_equal(v.v.s.p, want, strlen(want));
}

static size_t find_type(const struct read_out *o, size_t from, uint8_t type)
{
	for (size_t i = from; i < o->n; i++)
		if (o->type[i] == type)
			return i;
	fail_msg("type %u not found", type);
	return 0;
}

static void test_log_letter_sizes_match_the_format(void **state)
{
	static const struct {
		char letter;
		size_t size;
	} sizes[] = {
		{ 'a', 64 }, { 'b', 1 }, { 'B', 1 }, { 'h', 2 }, { 'H', 2 }, { 'i', 4 },
		{ 'I', 4 }, { 'f', 4 }, { 'd', 8 }, { 'n', 4 }, { 'N', 16 }, { 'Z', 64 },
		{ 'c', 2 }, { 'C', 2 }, { 'e', 4 }, { 'E', 4 }, { 'L', 4 }, { 'M', 1 },
		{ 'q', 8 }, { 'Q', 8 },
	};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
		assert_int_equal(df_letter_size(sizes[k].letter), sizes[k].size);
	assert_int_equal(df_letter_size('x'), 0);
	assert_int_equal(df_format_payload_size("BBnNZ"), DF_FMT_LEN - 3);
	assert_int_equal(df_format_payload_size("Qx"), -EINVAL);
	assert_int_equal(df_format_payload_size(""), -EINVAL);
	assert_int_equal(df_format_payload_size("QQQQQQQQQQQQQQQQQ"), -EINVAL);
	/* 4 × 64 bytes do not fit a uint8 length. */
	assert_int_equal(df_format_payload_size("ZZZZ"), -EINVAL);
}

static void test_log_message_table_is_self_consistent(void **state)
{
	for (size_t k = 0; k < df_msg_def_count; k++) {
		const struct df_msg_def *d = &df_msg_defs[k];
		size_t n = strlen(d->format);
		assert_int_equal(df_format_payload_size(d->format) + 3, d->length);
		assert_true(strlen(d->name) <= 4);
		/* FMT's Columns is a Z: 64 characters (a longer list cannot be announced) */
		assert_true(strlen(d->labels) <= 64);
		assert_int_equal(strlen(d->units), n);
		assert_int_equal(strlen(d->mults), n);
		size_t commas = 0;
		for (const char *c = d->labels; *c; c++)
			commas += *c == ',';
		assert_int_equal(commas + 1, n);
		assert_ptr_equal(df_msg_def_find(d->type), d);
		for (size_t j = 0; j < n; j++) {
			int unit_ok = 0, mult_ok = 0;
			for (size_t u = 0; u < df_unit_count; u++)
				unit_ok |= df_units[u].id == d->units[j];
			for (size_t m = 0; m < df_mult_count; m++)
				mult_ok |= df_mults[m].id == d->mults[j];
			assert_true(unit_ok);
			assert_true(mult_ok);
		}
		/* Ids are unique. */
		for (size_t j = k + 1; j < df_msg_def_count; j++)
			assert_int_not_equal(df_msg_defs[j].type, d->type);
	}
	assert_null(df_msg_def_find(200));
}

static void test_log_packers_refuse_a_short_buffer(void **state)
{
	uint8_t buf[DF_MAX_RECORD_LEN];
	const struct df_pm pm = { .t_us = 1 };
	const struct df_gps gps = { .t_us = 1 };

	memset(buf, 0x5a, sizeof buf);
	assert_int_equal(df_pack_pm(buf, DF_PM_LEN - 1, &pm), -ENOSPC);
	assert_int_equal(df_pack_gps(buf, DF_GPS_LEN - 1, &gps), -ENOSPC);
	assert_int_equal(df_pack_fmt(buf, DF_FMT_LEN - 1, 1, "X", "B", "A"), -ENOSPC);
	assert_int_equal(df_pack_fmt(buf, sizeof buf, 1, "TOOLONG", "B", "A"), -EINVAL);
	assert_int_equal(df_pack_fmt(buf, sizeof buf, 1, "X", "Bx", "A"), -EINVAL);
	assert_int_equal(df_pack_preamble(buf, sizeof buf, 0), -ENOSPC);
	/* Nothing written on error. */
	for (size_t k = 0; k < sizeof buf; k++)
		assert_int_equal(buf[k], 0x5a);
}

/* RFND as ArduPilot's LogStructure.h has it: "QBCBB", Dist in cm. */
static void test_log_rfnd_is_ardupilots_old_layout(void **state)
{
	const struct df_msg_def *d = df_msg_def_find(DF_ID_RFND);
	assert_non_null(d);
	assert_string_equal(d->name, "RFND");
	assert_string_equal(d->format, "QBCBB");
	assert_string_equal(d->labels, "TimeUS,Instance,Dist,Stat,Orient");
	assert_string_equal(d->units, "s#m--");
	assert_string_equal(d->mults, "F-B--");
	uint8_t b[64];
	const struct df_rfnd m = { .t_us = 0x0102030405060708ull, .instance = 0, .dist_cm = 1234,
				   .status = 4, .orient = 25 };
	assert_int_equal(df_pack_rfnd(b, sizeof b, &m), DF_RFND_LEN);
	const uint8_t want[DF_RFND_LEN] = { 0xA3, 0x95, DF_ID_RFND, 8, 7, 6, 5, 4, 3, 2, 1, 0,
					    0xd2, 0x04, 4, 25 };
	assert_memory_equal(b, want, DF_RFND_LEN);
}

static void test_log_every_logged_type_round_trips_field_by_field(void **state)
{
	static struct stream s;
	static struct read_out o;
	const uint64_t t0 = 123456789012345ull;

	s.len = 0;
	o.n = 0;
	append(&s, df_pack_preamble(s.buf + s.len, sizeof s.buf - s.len, t0));
	assert_int_equal(s.len, df_preamble_len());

	const struct df_parm parm = { t0 + 1, "SERVO1_TRIM_LONG", 1500.25f, -0.5f };
	const struct df_msg msg = { t0 + 2,
		"fulmar 0.1.0: a message exactly sixty-four characters long.....!" };
	const struct df_mode mode = { t0 + 3, 10, 10, 2 };
	const struct df_ev ev = { t0 + 4, 255 };
	const struct df_err err = { t0 + 5, 17, 3 };
	const struct df_pm pm = { t0 + 6, 400, 3, 400, 4321, 2401, 2500, 77, 625 };
	const struct df_att att = { t0 + 7, -4500, 4499, -32768, 32767, 35999, 0, 12, 65535 };
	const struct df_gps gps = { t0 + 8, 1, 6, 345600123, 2382, 18, -1, -353632621,
		1491652374, -12345, 12.5f, 359.75f, -0.25f, 1.0e-3f, 1 };
	assert_int_equal(strlen(msg.text), 64);

	const struct df_msg_def *defs[] = {
		df_msg_def_find(DF_ID_PARM), df_msg_def_find(DF_ID_MSG),
		df_msg_def_find(DF_ID_MODE), df_msg_def_find(DF_ID_EV),
		df_msg_def_find(DF_ID_ERR), df_msg_def_find(DF_ID_PM),
		df_msg_def_find(DF_ID_ATT), df_msg_def_find(DF_ID_GPS),
	};
	for (size_t k = 0; k < sizeof defs / sizeof defs[0]; k++)
		append(&s, df_pack_announce(s.buf + s.len, sizeof s.buf - s.len, t0, defs[k]));
	append(&s, df_pack_parm(s.buf + s.len, sizeof s.buf - s.len, &parm));
	append(&s, df_pack_msg(s.buf + s.len, sizeof s.buf - s.len, &msg));
	append(&s, df_pack_mode(s.buf + s.len, sizeof s.buf - s.len, &mode));
	append(&s, df_pack_ev(s.buf + s.len, sizeof s.buf - s.len, &ev));
	append(&s, df_pack_err(s.buf + s.len, sizeof s.buf - s.len, &err));
	append(&s, df_pack_pm(s.buf + s.len, sizeof s.buf - s.len, &pm));
	append(&s, df_pack_att(s.buf + s.len, sizeof s.buf - s.len, &att));
	append(&s, df_pack_gps(s.buf + s.len, sizeof s.buf - s.len, &gps));

	struct df_reader *r = reader_new();
	read_all(r, s.buf, s.len, 13, &o);
	assert_int_equal(r->skipped_bytes, 0);
	assert_int_equal(r->truncated_bytes, 0);
	assert_int_equal(r->bad_fmts, 0);
	/* 4 FMT + 4 FMTU + units + mults + 8 × (FMT + FMTU) + 8 records. */
	assert_int_equal(o.n, 8 + df_unit_count + df_mult_count + 8 * 3);

	/* Every announced type's FMT as read equals the table (the others are
	 * covered through the writer in test_log_writer.c). */
	for (size_t k = 0; k < df_msg_def_count; k++) {
		const struct df_msg_def *d = &df_msg_defs[k];
		if (!r->known[d->type])
			continue;
		const struct df_fmt *f = &r->fmts[d->type];
		assert_true(r->known[d->type]);
		assert_true(f->fields_ok);
		assert_int_equal(f->length, d->length);
		assert_string_equal(f->name, d->name);
		assert_string_equal(f->format, d->format);
		assert_string_equal(f->labels, d->labels);
		assert_int_equal(df_fmt_column(f, "TimeUS"), d->type == DF_ID_FMT ? -ENOENT : 0);
	}
	/* FMT of FMT comes first. */
	assert_int_equal(o.type[0], DF_ID_FMT);
	assert_int_equal(field(r, &o, 0, 0).v.u, DF_ID_FMT);
	assert_int_equal(field(r, &o, 0, 1).v.u, DF_FMT_LEN);
	assert_text(field(r, &o, 0, 2), "FMT");
	assert_text(field(r, &o, 0, 3), "BBnNZ");
	assert_text(field(r, &o, 0, 4), "Type,Length,Name,Format,Columns");

	/* UNIT and MULT records carry the tables. */
	size_t i = find_type(&o, 0, DF_ID_UNIT);
	for (size_t k = 0; k < df_unit_count; k++, i++) {
		assert_int_equal(o.type[i], DF_ID_UNIT);
		assert_int_equal(field(r, &o, i, 0).v.u, t0);
		assert_int_equal(field(r, &o, i, 1).v.i, df_units[k].id);
		assert_text(field(r, &o, i, 2), df_units[k].label);
	}
	for (size_t k = 0; k < df_mult_count; k++, i++) {
		assert_int_equal(o.type[i], DF_ID_MULT);
		assert_int_equal(field(r, &o, i, 1).v.i, df_mults[k].id);
		assert_true(field(r, &o, i, 2).v.d == df_mults[k].mult);
	}
	/* Each announced type: FMT then FMTU with its units and multipliers. */
	for (size_t k = 0; k < sizeof defs / sizeof defs[0]; k++) {
		i = find_type(&o, i, DF_ID_FMT);
		assert_int_equal(field(r, &o, i, 0).v.u, defs[k]->type);
		i++;
		assert_int_equal(o.type[i], DF_ID_FMTU);
		assert_int_equal(field(r, &o, i, 1).v.u, defs[k]->type);
		assert_text(field(r, &o, i, 2), defs[k]->units);
		assert_text(field(r, &o, i, 3), defs[k]->mults);
	}

	i = find_type(&o, 0, DF_ID_PARM);
	assert_int_equal(field(r, &o, i, 0).v.u, parm.t_us);
	assert_text(field(r, &o, i, 1), "SERVO1_TRIM_LONG");
	assert_true(field(r, &o, i, 2).v.f == parm.value);
	assert_true(field(r, &o, i, 3).v.f == parm.default_value);

	i = find_type(&o, 0, DF_ID_MSG);
	assert_int_equal(field(r, &o, i, 0).v.u, msg.t_us);
	assert_text(field(r, &o, i, 1), msg.text);

	i = find_type(&o, 0, DF_ID_MODE);
	assert_int_equal(field(r, &o, i, 0).v.u, mode.t_us);
	assert_int_equal(field(r, &o, i, 1).letter, 'M');
	assert_int_equal(field(r, &o, i, 1).v.u, mode.mode);
	assert_int_equal(field(r, &o, i, 2).v.u, mode.mode_num);
	assert_int_equal(field(r, &o, i, 3).v.u, mode.reason);

	i = find_type(&o, 0, DF_ID_EV);
	assert_int_equal(field(r, &o, i, 0).v.u, ev.t_us);
	assert_int_equal(field(r, &o, i, 1).v.u, ev.id);

	i = find_type(&o, 0, DF_ID_ERR);
	assert_int_equal(field(r, &o, i, 0).v.u, err.t_us);
	assert_int_equal(field(r, &o, i, 1).v.u, err.subsys);
	assert_int_equal(field(r, &o, i, 2).v.u, err.code);

	i = find_type(&o, 0, DF_ID_PM);
	const uint64_t pm_want[] = { pm.t_us, pm.loop_rate_hz, pm.n_long, pm.n_loop,
		pm.max_t_us, pm.min_t_us, pm.avg_t_us, pm.log_drop, pm.load_permille };
	for (unsigned k = 0; k < 9; k++)
		assert_int_equal(field(r, &o, i, k).v.u, pm_want[k]);
	assert_int_equal(df_fmt_column(&r->fmts[DF_ID_PM], "MaxT"), 4);

	i = find_type(&o, 0, DF_ID_ATT);
	assert_int_equal(field(r, &o, i, 0).v.u, att.t_us);
	const int64_t att_signed[] = { att.des_roll_cdeg, att.roll_cdeg, att.des_pitch_cdeg,
		att.pitch_cdeg };
	for (unsigned k = 0; k < 4; k++) {
		assert_int_equal(field(r, &o, i, 1 + k).letter, 'c');
		assert_int_equal(field(r, &o, i, 1 + k).v.i, att_signed[k]);
	}
	const uint64_t att_unsigned[] = { att.des_yaw_cdeg, att.yaw_cdeg, att.err_rp_x100,
		att.err_yaw_x100 };
	for (unsigned k = 0; k < 4; k++) {
		assert_int_equal(field(r, &o, i, 5 + k).letter, 'C');
		assert_int_equal(field(r, &o, i, 5 + k).v.u, att_unsigned[k]);
	}
	struct df_value roll = field(r, &o, i, 1);
	assert_true(df_value_to_double(&roll) == -45.0);

	i = find_type(&o, 0, DF_ID_GPS);
	assert_int_equal(field(r, &o, i, 0).v.u, gps.t_us);
	assert_int_equal(field(r, &o, i, 1).v.u, gps.instance);
	assert_int_equal(field(r, &o, i, 2).v.u, gps.status);
	assert_int_equal(field(r, &o, i, 3).v.u, gps.week_ms);
	assert_int_equal(field(r, &o, i, 4).v.u, gps.week);
	assert_int_equal(field(r, &o, i, 5).v.u, gps.num_sats);
	assert_int_equal(field(r, &o, i, 6).v.i, gps.hdop_x100);
	assert_int_equal(field(r, &o, i, 7).letter, 'L');
	assert_int_equal(field(r, &o, i, 7).v.i, gps.lat_1e7);
	assert_int_equal(field(r, &o, i, 8).v.i, gps.lng_1e7);
	assert_int_equal(field(r, &o, i, 9).letter, 'e');
	assert_int_equal(field(r, &o, i, 9).v.i, gps.alt_msl_cm);
	assert_true(field(r, &o, i, 10).v.f == gps.ground_speed_m_s);
	assert_true(field(r, &o, i, 11).v.f == gps.course_deg);
	assert_true(field(r, &o, i, 12).v.f == gps.vel_down_m_s);
	assert_true(field(r, &o, i, 13).v.f == gps.yaw_deg);
	assert_int_equal(field(r, &o, i, 14).v.u, gps.used);
	struct df_value lat = field(r, &o, i, 7);
	assert_true(df_value_to_double(&lat) > -35.3632622 && df_value_to_double(&lat) < -35.363262);
	assert_int_equal(df_record_field(&(struct df_record){ .type = DF_ID_GPS,
		.length = DF_GPS_LEN, .fmt = &r->fmts[DF_ID_GPS], .data = o.data[i] }, 15,
		&lat), -ERANGE);
	free(r);
}

/* The letters no logged type uses yet (h i q E a) and all the others, through the
 * generic packer: two test types of 10 letters each cover all 20. */
static void test_log_generic_pack_round_trips_every_format_letter(void **state)
{
	static struct stream s;
	static struct read_out o;
	static const char *formats[2] = { "bBhHiIfdnN", "ZcCeELMqQa" };
	static const char *labels[2] = { "b,B,h,H,i,I,f,d,n,N", "Z,c,C,e,E,L,M,q,Q,a" };
	const char zed[] = "sixty-four: 0123456789012345678901234567890123456789012345678901";
	struct df_value v[2][10];

	assert_int_equal(strlen(zed), 64);
	memset(v, 0, sizeof v);
	for (unsigned t = 0; t < 2; t++)
		for (unsigned k = 0; k < 10; k++)
			v[t][k].letter = formats[t][k];
	v[0][0].v.i = INT8_MIN;
	v[0][1].v.u = UINT8_MAX;
	v[0][2].v.i = INT16_MIN;
	v[0][3].v.u = UINT16_MAX;
	v[0][4].v.i = INT32_MIN;
	v[0][5].v.u = UINT32_MAX;
	v[0][6].v.f = -1.5e-30f;
	v[0][7].v.d = 6.02214076e23;
	v[0][8].v.s.p = "ABCD";
	v[0][8].v.s.len = 4;
	v[0][9].v.s.p = "short";
	v[0][9].v.s.len = 5;
	v[1][0].v.s.p = zed;
	v[1][0].v.s.len = 64;
	v[1][1].v.i = -12345;
	v[1][2].v.u = 54321;
	v[1][3].v.i = -2000000000;
	v[1][4].v.u = 4000000000u;
	v[1][5].v.i = -1799999999;
	v[1][6].v.u = 23;
	v[1][7].v.i = INT64_MIN;
	v[1][8].v.u = UINT64_MAX;
	for (unsigned k = 0; k < DF_ARRAY_LEN; k++)
		v[1][9].v.a[k] = (int16_t)(k % 2 ? -1000 * (int)k : 1000 * (int)k);

	s.len = 0;
	o.n = 0;
	for (unsigned t = 0; t < 2; t++) {
		const char *name = t ? "TST2" : "TST1";
		append(&s, df_pack_fmt(s.buf + s.len, sizeof s.buf - s.len, (uint8_t)(200 + t),
				       name, formats[t], labels[t]));
		append(&s, df_pack_values(s.buf + s.len, sizeof s.buf - s.len, (uint8_t)(200 + t),
					  formats[t], v[t], 10));
	}
	/* A value whose letter disagrees with the format is refused. */
	assert_int_equal(df_pack_values(s.buf + s.len, sizeof s.buf - s.len, 200, "bB",
					v[0] + 1, 2), -EINVAL);

	struct df_reader *r = reader_new();
	read_all(r, s.buf, s.len, 1, &o);
	assert_int_equal(o.n, 4);
	for (unsigned t = 0; t < 2; t++) {
		size_t i = 2 * t + 1;
		assert_int_equal(o.type[i], 200 + t);
		for (unsigned k = 0; k < 10; k++) {
			struct df_value got = field(r, &o, i, k);
			const struct df_value *want = &v[t][k];
			char label[8];
			assert_int_equal(df_fmt_label(&r->fmts[200 + t], k, label, sizeof label), 0);
			assert_int_equal(label[0], want->letter);
			assert_int_equal(got.letter, want->letter);
			switch (want->letter) {
			case 'f':
				assert_true(got.v.f == want->v.f);
				break;
			case 'd':
				assert_true(got.v.d == want->v.d);
				break;
			case 'n': case 'N': case 'Z':
				assert_int_equal(got.v.s.len, want->v.s.len);
				assert_memory_equal(got.v.s.p, want->v.s.p, want->v.s.len);
				break;
			case 'a':
				assert_memory_equal(got.v.a, want->v.a, sizeof got.v.a);
				break;
			default:
				if (df_letter_is_signed(want->letter))
					assert_true(got.v.i == want->v.i);
				else
					assert_true(got.v.u == want->v.u);
				break;
			}
		}
	}
	free(r);
}

/* A stream of n EV records after the FMT of FMT and EV's FMT. */
static void ev_stream(struct stream *s, unsigned n)
{
	s->len = 0;
	append(s, df_pack_fmt(s->buf, sizeof s->buf, DF_FMT_ID, "FMT", "BBnNZ",
			      "Type,Length,Name,Format,Columns"));
	const struct df_msg_def *d = df_msg_def_find(DF_ID_EV);
	append(s, df_pack_fmt(s->buf + s->len, sizeof s->buf - s->len, d->type, d->name,
			      d->format, d->labels));
	for (unsigned k = 0; k < n; k++) {
		const struct df_ev ev = { 1000u * k, (uint8_t)k };
		append(s, df_pack_ev(s->buf + s->len, sizeof s->buf - s->len, &ev));
	}
}

static void test_log_reader_drops_a_truncated_last_record(void **state)
{
	static struct stream s;
	static struct read_out o;

	ev_stream(&s, 10);
	for (size_t cut = 1; cut < DF_EV_LEN; cut++) {
		for (size_t chunk = 1; chunk <= 64; chunk *= 4) {
			struct df_reader *r = reader_new();
			o.n = 0;
			read_all(r, s.buf, s.len - cut, chunk, &o);
			assert_int_equal(o.n, 2 + 9);
			assert_int_equal(r->count[DF_ID_EV], 9);
			assert_int_equal(r->truncated_bytes, DF_EV_LEN - cut);
			assert_int_equal(r->skipped_bytes, 0);
			assert_int_equal(field(r, &o, o.n - 1, 1).v.u, 8);
			free(r);
		}
	}
}

static void test_log_reader_resyncs_on_garbage_in_the_middle(void **state)
{
	static struct stream s, g;
	static struct read_out o;
	/* No header, a lone 0xA3, a header of an unknown type, a header cut by a 0xA3. */
	static const uint8_t garbage[] = { 0x00, 0xff, 0xA3, 0x12, 0x95, 0xA3, 0x95, 0x07,
		0xA3, 0xA3, 0x95, 0x99, 0x42 };

	ev_stream(&s, 10);
	size_t mid = s.len - 5 * DF_EV_LEN;
	memcpy(g.buf, s.buf, mid);
	memcpy(g.buf + mid, garbage, sizeof garbage);
	memcpy(g.buf + mid + sizeof garbage, s.buf + mid, s.len - mid);
	g.len = s.len + sizeof garbage;

	for (size_t chunk = 1; chunk <= 4096; chunk *= 8) {
		struct df_reader *r = reader_new();
		o.n = 0;
		read_all(r, g.buf, g.len, chunk, &o);
		assert_int_equal(r->count[DF_ID_EV], 10);
		assert_int_equal(r->skipped_bytes, sizeof garbage);
		assert_int_equal(r->resyncs, 1);
		assert_int_equal(r->truncated_bytes, 0);
		for (unsigned k = 0; k < 10; k++)
			assert_int_equal(field(r, &o, 2 + k, 1).v.u, k);
		free(r);
	}

	/* Garbage ending in what looks like a long record's header, then whole records:
	 * at end of input the reader still finds them. */
	memcpy(g.buf, s.buf, s.len);
	const uint8_t fake[] = { 0xA3, 0x95, DF_FMT_ID, 1, 2 };
	memcpy(g.buf + s.len, fake, sizeof fake);
	memcpy(g.buf + s.len + sizeof fake, s.buf + s.len - DF_EV_LEN, DF_EV_LEN);
	g.len = s.len + sizeof fake + DF_EV_LEN;
	struct df_reader *r = reader_new();
	read_all(r, g.buf, g.len, 4096, NULL);
	assert_int_equal(r->count[DF_ID_EV], 11);
	assert_int_equal(r->skipped_bytes, sizeof fake);
	free(r);
}

/* Random bytes with valid records scattered in, and an FMT whose letters are unknown:
 * nothing crashes, and every byte is a record's, skipped or truncated. */
static void test_log_reader_accounts_for_every_byte_of_random_input(void **state)
{
	static struct stream s;
	uint32_t x = 12345u;
	uint64_t record_bytes = 0;

	s.len = 0;
	/* Type 7 with format letters we do not know: its length is still learnt. */
	const uint8_t odd_fmt_len = 10;
	uint8_t *f = s.buf;
	append(&s, df_pack_fmt(f, sizeof s.buf, 7, "ODD", "Q", "TimeUS"));
	f[4] = odd_fmt_len;
	f[9] = 'x';
	while (s.len < sizeof s.buf - 2 * DF_MAX_RECORD_LEN) {
		x = x * 1103515245u + 12345u;
		unsigned pick = (x >> 16) % 8;
		if (pick == 0) {
			const struct df_ev ev = { x, (uint8_t)x };
			const struct df_msg_def *d = df_msg_def_find(DF_ID_EV);
			append(&s, df_pack_fmt(s.buf + s.len, sizeof s.buf - s.len, d->type,
					       d->name, d->format, d->labels));
			append(&s, df_pack_ev(s.buf + s.len, sizeof s.buf - s.len, &ev));
		} else if (pick == 1) {
			s.buf[s.len++] = DF_HEAD1;
			s.buf[s.len++] = DF_HEAD2;
			s.buf[s.len++] = 7;
			for (unsigned k = 3; k < odd_fmt_len; k++)
				s.buf[s.len++] = (uint8_t)(x >> k);
		} else {
			s.buf[s.len++] = (uint8_t)(x >> 24);
		}
	}

	struct df_reader *r = reader_new();
	struct df_record rec;
	size_t off = 0;
	while (off < s.len) {
		off += df_reader_feed(r, s.buf + off, s.len - off < 97 ? s.len - off : 97);
		while (df_reader_next(r, &rec) == 1) {
			record_bytes += rec.length;
			struct df_value v;
			if (rec.type == 7)
				assert_int_equal(df_record_field(&rec, 0, &v), -EINVAL);
		}
	}
	df_reader_end(r);
	while (df_reader_next(r, &rec) == 1)
		record_bytes += rec.length;
	assert_int_equal(record_bytes + r->skipped_bytes + r->truncated_bytes, s.len);
	assert_true(r->count[DF_ID_EV] > 0);
	assert_true(r->count[7] > 0);
	assert_int_equal(r->bad_fmts, 1);
	assert_false(r->fmts[7].fields_ok);
	free(r);
}

/* Reference logs --------------------------------------------------------------- */

struct ref_stats {
	unsigned types;
	uint64_t records;
	uint64_t truncated;
	uint64_t skipped;
	uint64_t bad_fields;
	uint64_t time_backsteps;
	uint64_t t_min_us, t_max_us;
	uint32_t count_fmt, count_parm, count_unit, count_mult, count_fmtu;
	uint64_t array_fields;
	struct df_reader *r;
};

static int read_ref(const char *file, struct ref_stats *st)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dataflash_dir, file);
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return -errno;

	memset(st, 0, sizeof *st);
	st->t_min_us = UINT64_MAX;
	struct df_reader *r = reader_new();
	uint8_t chunk[1000];
	uint64_t last_t = 0;
	int at_end = 0;
	while (!at_end) {
		size_t n = fread(chunk, 1, sizeof chunk, fp), off = 0;
		if (n < sizeof chunk) {
			assert_false(ferror(fp));
			at_end = 1;
		}
		for (;;) {
			struct df_record rec;
			off += df_reader_feed(r, chunk + off, n - off);
			if (at_end && off == n)
				df_reader_end(r);
			int got = 0;
			while (df_reader_next(r, &rec) == 1) {
				got = 1;
				for (unsigned k = 0; k < rec.fmt->nfields; k++) {
					struct df_value v;
					if (df_record_field(&rec, k, &v) != 0)
						st->bad_fields++;
					else if (v.letter == 'a')
						st->array_fields++;
				}
				if (!rec.fmt->fields_ok)
					st->bad_fields++;
				int tcol = df_fmt_column(rec.fmt, "TimeUS");
				struct df_value t;
				if (tcol >= 0 && df_record_field(&rec, (unsigned)tcol, &t) == 0) {
					if (t.v.u < last_t)
						st->time_backsteps++;
					last_t = t.v.u;
					if (t.v.u < st->t_min_us)
						st->t_min_us = t.v.u;
					if (t.v.u > st->t_max_us)
						st->t_max_us = t.v.u;
				}
			}
			if (off == n && !got)
				break;
		}
	}
	fclose(fp);
	st->types = df_reader_type_count(r);
	st->records = r->records;
	st->truncated = r->truncated_bytes;
	st->skipped = r->skipped_bytes;
	st->count_fmt = r->count[DF_FMT_ID];
	st->r = r;
	return 0;
}

static uint32_t count_named(const struct df_reader *r, const char *name)
{
	for (unsigned k = 0; k < 256; k++)
		if (r->known[k] && strcmp(r->fmts[k].name, name) == 0)
			return r->count[k];
	return 0;
}

/* The folder is there (main checked), so every log in it must be. */
static void read_ref_or_fail(const char *file, struct ref_stats *st)
{
	int rc = read_ref(file, st);
	if (rc != 0)
		print_message("reference log %s/%s: %s\n", dataflash_dir, file, strerror(-rc));
	assert_int_equal(rc, 0);
}

static void report(const char *name, const struct ref_stats *st)
{
	print_message("%s: %u types, %llu records, %llu truncated bytes, %llu skipped, "
		      "TimeUS %llu..%llu, %llu back-steps\n", name, st->types,
		      (unsigned long long)st->records, (unsigned long long)st->truncated,
		      (unsigned long long)st->skipped, (unsigned long long)st->t_min_us,
		      (unsigned long long)st->t_max_us, (unsigned long long)st->time_backsteps);
}

static void test_log_reads_the_plane_3_8_reference_log(void **state)
{
	struct ref_stats st;
	read_ref_or_fail("ArduPlane-3.8.2-dev_pymavlink-test.BIN", &st);
	report("Plane 3.8.2", &st);
	assert_int_equal(st.types, 47);
	assert_int_equal(st.records, 1731);
	assert_int_equal(st.truncated, 24);
	assert_int_equal(st.skipped, 0);
	assert_int_equal(st.bad_fields, 0);
	assert_int_equal(st.count_fmt, 132);
	assert_int_equal(count_named(st.r, "PARM"), 809);
	assert_int_equal(count_named(st.r, "FMTU"), 0);
	assert_int_equal(st.r->bad_fmts, 0);
	/* TimeUS 81.72–82.77 s, as the README gives. */
	assert_int_equal(st.t_min_us, 81718843);
	assert_int_equal(st.t_max_us, 82770403);
	assert_int_equal(st.time_backsteps, 0);
	free(st.r);
}

static void test_log_reads_the_copter_4_6_reference_log(void **state)
{
	struct ref_stats st;
	read_ref_or_fail("ArduCopter-4.6.2_amc-backend_log_80k.bin", &st);
	report("Copter 4.6.2", &st);
	assert_int_equal(st.types, 58);
	assert_int_equal(st.records, 1817);
	/* The file ends with 0xA3 0x95: the start of a header, dropped. */
	assert_int_equal(st.truncated, 2);
	assert_int_equal(st.skipped, 0);
	assert_int_equal(st.bad_fields, 0);
	assert_int_equal(st.r->bad_fmts, 0);
	assert_int_equal(count_named(st.r, "PARM"), 1077);
	assert_true(count_named(st.r, "FMTU") > 0);
	assert_true(count_named(st.r, "UNIT") > 0);
	assert_true(count_named(st.r, "MULT") > 0);
	assert_true(count_named(st.r, "ISBD") > 0);
	assert_true(st.array_fields > 0);
	assert_int_equal(st.time_backsteps, 45);
	/* TimeUS 140.18–140.59 s. */
	assert_int_equal(st.t_min_us, 140183937);
	assert_int_equal(st.t_max_us, 140593390);
	free(st.r);
}

static void test_log_reads_the_copter_3_5_reference_log(void **state)
{
	struct ref_stats st;
	read_ref_or_fail("ArduCopter-3.5-era_spark404-log.bin", &st);
	report("Copter 3.5", &st);
	assert_int_equal(st.types, 43);
	assert_int_equal(st.records, 17707);
	assert_int_equal(st.truncated, 0);
	assert_int_equal(st.skipped, 0);
	assert_int_equal(st.bad_fields, 0);
	assert_int_equal(st.r->bad_fmts, 0);
	assert_int_equal(count_named(st.r, "MSG"), 0);
	/* PARM dump at 73.6 s, last EV at 510.7 s. */
	assert_int_equal(st.t_min_us, 73573621);
	assert_int_equal(st.t_max_us, 510692515);
	assert_int_equal(count_named(st.r, "EV") > 0, 1);
	free(st.r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_letter_sizes_match_the_format),
		cmocka_unit_test(test_log_message_table_is_self_consistent),
		cmocka_unit_test(test_log_packers_refuse_a_short_buffer),
		cmocka_unit_test(test_log_rfnd_is_ardupilots_old_layout),
		cmocka_unit_test(test_log_every_logged_type_round_trips_field_by_field),
		cmocka_unit_test(test_log_generic_pack_round_trips_every_format_letter),
		cmocka_unit_test(test_log_reader_drops_a_truncated_last_record),
		cmocka_unit_test(test_log_reader_resyncs_on_garbage_in_the_middle),
		cmocka_unit_test(test_log_reader_accounts_for_every_byte_of_random_input),
	};
	const struct CMUnitTest reference_tests[] = {
		cmocka_unit_test(test_log_reads_the_plane_3_8_reference_log),
		cmocka_unit_test(test_log_reads_the_copter_4_6_reference_log),
		cmocka_unit_test(test_log_reads_the_copter_3_5_reference_log),
	};
	if (!reference_wanted(argc, argv))
		return cmocka_run_group_tests(tests, NULL, NULL);
	if (reference_dir("dataflash", dataflash_dir, sizeof dataflash_dir) < 0)
		return reference_absent(dataflash_dir);
	return cmocka_run_group_tests(reference_tests, NULL, NULL);
}
