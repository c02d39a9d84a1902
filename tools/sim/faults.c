// SPDX-License-Identifier: GPL-3.0-or-later
#include "faults.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"

#define MAX_WORDS 16
#define WORD_LEN 32
#define MAX_TIME_S 1e6   /* eleven and a half days of simulated flight */

static const char *const event_names[SIM_EV_COUNT] = {
	[SIM_EV_THROW] = "throw",
	[SIM_EV_RC_SET] = "rc",
	[SIM_EV_RC_ON] = "rc",
	[SIM_EV_RC_OFF] = "rc",
	[SIM_EV_RC_LOSS] = "rc_loss",
	[SIM_EV_GPS_LOSS] = "gps_loss",
	[SIM_EV_GPS_GLITCH] = "gps_glitch",
	[SIM_EV_FREEZE] = "freeze",
	[SIM_EV_DROPOUT] = "dropout",
	[SIM_EV_BIAS] = "bias",
	[SIM_EV_LINK_LOSS] = "link_loss",
	[SIM_EV_MOTOR_FAIL] = "motor_fail",
	[SIM_EV_WIND] = "wind",
	[SIM_EV_PITOT_BLOCK] = "pitot",
	[SIM_EV_PITOT_WATER] = "pitot",
	[SIM_EV_PITOT_OFF] = "pitot",
	[SIM_EV_BARO_DRIFT] = "baro_drift",
	[SIM_EV_MAG_CURRENT] = "mag_current",
};

static const char *const sensor_names[SIM_FS_COUNT] = {
	[SIM_FS_ACCEL] = "accel",
	[SIM_FS_GYRO] = "gyro",
	[SIM_FS_IMU] = "imu",
	[SIM_FS_MAG] = "mag",
	[SIM_FS_BARO] = "baro",
	[SIM_FS_AIRSPEED] = "airspeed",
	[SIM_FS_GPS] = "gps",
	[SIM_FS_BATTERY] = "battery",
	[SIM_FS_RANGEFINDER] = "rangefinder",
};

const char *sim_event_name(enum sim_event_kind k)
{
	return k > 0 && k < SIM_EV_COUNT ? event_names[k] : "?";
}

const char *sim_fault_sensor_name(enum sim_fault_sensor s)
{
	return s > 0 && s < SIM_FS_COUNT ? sensor_names[s] : "?";
}

void sim_timeline_init(struct sim_timeline *tl)
{
	memset(tl, 0, sizeof(*tl));
}

struct line_ctx {
	const char *name;
	unsigned int line;
	char *err;
	size_t err_len;
};

static int fail(const struct line_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(const struct line_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = errmsg_vat(c->err, c->err_len, c->name, c->line, fmt, ap);
	va_end(ap);
	return r;
}

/* A whole word as a finite number. */
static bool number(const char *w, double *out)
{
	char *end;
	errno = 0;
	double x = strtod(w, &end);
	if (end == w || *end != '\0' || errno == ERANGE || !isfinite(x))
		return false;
	*out = x;
	return true;
}

static int duration(const struct line_ctx *c, const char *w, double *out)
{
	if (!number(w, out) || *out < 0.0 || *out > MAX_TIME_S)
		return fail(c, "duration '%s' is not a number of seconds from 0 (to the end) to %g", w,
			    MAX_TIME_S);
	return 0;
}

static int sensor(const struct line_ctx *c, const char *w, enum sim_fault_sensor *out)
{
	for (int s = 1; s < SIM_FS_COUNT; s++) {
		if (strcmp(w, sensor_names[s]) == 0) {
			*out = (enum sim_fault_sensor)s;
			return 0;
		}
	}
	return fail(c, "unknown sensor '%s' (accel, gyro, imu, mag, baro, airspeed, gps, battery, rangefinder)",
		    w);
}

static int nargs(const struct line_ctx *c, const char *ev, int n, int lo, int hi, const char *usage)
{
	if (n < lo || n > hi)
		return fail(c, "%s takes %s", ev, usage);
	return 0;
}

static int parse_rc(const struct line_ctx *c, struct sim_event *e, char w[][WORD_LEN], int n)
{
	if (n == 1 && strcmp(w[0], "on") == 0) {
		e->kind = SIM_EV_RC_ON;
		return 0;
	}
	if (n == 1 && strcmp(w[0], "off") == 0) {
		e->kind = SIM_EV_RC_OFF;
		return 0;
	}
	if (n == 0)
		return fail(c, "rc takes CH=PWM ..., on or off");
	e->kind = SIM_EV_RC_SET;
	for (int i = 0; i < n; i++) {
		char *eq = strchr(w[i], '=');
		char *end;
		if (!eq)
			return fail(c, "rc: '%s' is not CH=PWM", w[i]);
		*eq = '\0';
		long ch = strtol(w[i], &end, 10);
		if (end == w[i] || *end != '\0' || ch < 1 || ch > SIM_RC_CHANNELS)
			return fail(c, "rc: channel '%s' is not 1-%d", w[i], SIM_RC_CHANNELS);
		long pwm = strtol(eq + 1, &end, 10);
		if (end == eq + 1 || *end != '\0' || pwm < 800 || pwm > 2200)
			return fail(c, "rc: pulse '%s' on channel %ld is not 800-2200 us", eq + 1, ch);
		e->rc_pwm_us[ch - 1] = (uint16_t)pwm;
		*eq = '=';
	}
	return 0;
}

static int parse_bias(const struct line_ctx *c, struct sim_event *e, char w[][WORD_LEN], int n)
{
	if (n < 1)
		return fail(c, "bias takes SENSOR and its values");
	int err = sensor(c, w[0], &e->sensor);
	if (err)
		return err;
	int want = 1;
	const char *unit = "Pa";
	switch (e->sensor) {
	case SIM_FS_ACCEL: want = 3; unit = "m/s^2"; break;
	case SIM_FS_GYRO: want = 3; unit = "deg/s"; break;
	case SIM_FS_MAG: want = 3; unit = "gauss"; break;
	case SIM_FS_BARO:
	case SIM_FS_AIRSPEED: break;
	case SIM_FS_BATTERY: unit = "V"; break;
	case SIM_FS_RANGEFINDER: unit = "m"; break;
	default:
		return fail(c, "bias: %s has no bias to step (accel, gyro, mag, baro, airspeed, battery, "
			    "rangefinder)", w[0]);
	}
	if (n - 1 != want)
		return fail(c, "bias %s takes %d value%s in %s", w[0], want, want > 1 ? "s" : "", unit);
	for (int i = 0; i < want; i++)
		if (!number(w[1 + i], &e->v[i]) || fabs(e->v[i]) > 1e5)
			return fail(c, "bias %s: '%s' is not a number", w[0], w[1 + i]);
	return 0;
}

static int parse_event(const struct line_ctx *c, struct sim_event *e, char w[][WORD_LEN], int n)
{
	const char *ev = w[0];
	char (*a)[WORD_LEN] = w + 1;
	int na = n - 1;
	int err;
	if (strcmp(ev, "throw") == 0) {
		/* An optional speed out of the hand: a weak throw, for failed launches. */
		e->kind = SIM_EV_THROW;
		if ((err = nargs(c, ev, na, 0, 1, "[SPEED_M_S]")))
			return err;
		if (na == 1 && (!number(a[0], &e->v[0]) || e->v[0] < 1.0 || e->v[0] > 40.0))
			return fail(c, "throw: speed '%s' is not 1-40 m/s", a[0]);
		return 0;
	}
	if (strcmp(ev, "rc") == 0)
		return parse_rc(c, e, a, na);
	if (strcmp(ev, "bias") == 0) {
		e->kind = SIM_EV_BIAS;
		return parse_bias(c, e, a, na);
	}
	if (strcmp(ev, "freeze") == 0 || strcmp(ev, "dropout") == 0) {
		e->kind = ev[0] == 'f' ? SIM_EV_FREEZE : SIM_EV_DROPOUT;
		if ((err = nargs(c, ev, na, 2, 2, "SENSOR DURATION")) || (err = sensor(c, a[0], &e->sensor)))
			return err;
		return duration(c, a[1], &e->dur_s);
	}
	if (strcmp(ev, "gps_glitch") == 0) {
		e->kind = SIM_EV_GPS_GLITCH;
		if ((err = nargs(c, ev, na, 3, 4, "DURATION NORTH_M EAST_M [DOWN_M]")) ||
		    (err = duration(c, a[0], &e->dur_s)))
			return err;
		for (int i = 1; i < na; i++)
			if (!number(a[i], &e->v[i - 1]) || fabs(e->v[i - 1]) > 1e6)
				return fail(c, "gps_glitch: '%s' is not a distance in metres", a[i]);
		return 0;
	}
	if (strcmp(ev, "wind") == 0) {
		e->kind = SIM_EV_WIND;
		if ((err = nargs(c, ev, na, 2, 2, "SPEED_M_S FROM_DEG")))
			return err;
		if (!number(a[0], &e->v[0]) || e->v[0] < 0.0 || e->v[0] > 100.0)
			return fail(c, "wind: speed '%s' is not 0-100 m/s", a[0]);
		if (!number(a[1], &e->v[1]) || e->v[1] < -360.0 || e->v[1] > 360.0)
			return fail(c, "wind: direction '%s' is not -360-360 degrees", a[1]);
		return 0;
	}
	if (strcmp(ev, "pitot") == 0) {
		static const char *const usage = "block DURATION [LEAK_TAU_S], water DURATION or off DURATION";
		if (na < 2)
			return fail(c, "pitot takes %s", usage);
		if (strcmp(a[0], "block") == 0) {
			e->kind = SIM_EV_PITOT_BLOCK;
			if ((err = nargs(c, ev, na, 2, 3, usage)))
				return err;
			e->v[0] = 120.0;
			if (na == 3 && (!number(a[2], &e->v[0]) || e->v[0] < 0.0 || e->v[0] > 1e6))
				return fail(c, "pitot block: leak time constant '%s' is not 0-1e6 s", a[2]);
		} else if (strcmp(a[0], "water") == 0 || strcmp(a[0], "off") == 0) {
			e->kind = a[0][0] == 'w' ? SIM_EV_PITOT_WATER : SIM_EV_PITOT_OFF;
			if ((err = nargs(c, ev, na, 2, 2, usage)))
				return err;
		} else {
			return fail(c, "pitot: unknown failure '%s' (block, water, off)", a[0]);
		}
		return duration(c, a[1], &e->dur_s);
	}
	if (strcmp(ev, "baro_drift") == 0) {
		e->kind = SIM_EV_BARO_DRIFT;
		if ((err = nargs(c, ev, na, 1, 1, "HPA_PER_HOUR")))
			return err;
		if (!number(a[0], &e->v[0]) || fabs(e->v[0]) > 100.0)
			return fail(c, "baro_drift: '%s' is not -100-100 hPa per hour", a[0]);
		return 0;
	}
	if (strcmp(ev, "mag_current") == 0) {
		e->kind = SIM_EV_MAG_CURRENT;
		if ((err = nargs(c, ev, na, 3, 3, "X Y Z (mGauss per amp, body axes)")))
			return err;
		for (int i = 0; i < 3; i++)
			if (!number(a[i], &e->v[i]) || fabs(e->v[i]) > 1e4)
				return fail(c, "mag_current: '%s' is not -1e4-1e4 mGauss per amp", a[i]);
		return 0;
	}
	static const struct {
		const char *name;
		enum sim_event_kind kind;
	} timed[] = {
		{ "rc_loss", SIM_EV_RC_LOSS },	   { "gps_loss", SIM_EV_GPS_LOSS },
		{ "link_loss", SIM_EV_LINK_LOSS }, { "motor_fail", SIM_EV_MOTOR_FAIL },
	};
	for (size_t i = 0; i < sizeof(timed) / sizeof(timed[0]); i++) {
		if (strcmp(ev, timed[i].name) != 0)
			continue;
		e->kind = timed[i].kind;
		if ((err = nargs(c, ev, na, 1, 1, "DURATION (0 = to the end)")))
			return err;
		return duration(c, a[0], &e->dur_s);
	}
	return fail(c, "unknown event '%s'", ev);
}

int sim_timeline_add_line(struct sim_timeline *tl, const char *text, const char *name,
			  unsigned int line_no, char *err, size_t err_len)
{
	struct line_ctx c = { name, line_no, err, err_len };
	char w[MAX_WORDS][WORD_LEN];
	int n = 0;
	const char *p = text;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (*p == '\0' || *p == '#' || *p == '\n')
			break;
		size_t len = strcspn(p, " \t\r\n#");
		if (n == MAX_WORDS)
			return fail(&c, "too many words (at most %d)", MAX_WORDS);
		if (len >= WORD_LEN)
			return fail(&c, "'%.*s...' is too long", 12, p);
		memcpy(w[n], p, len);
		w[n][len] = '\0';
		n++;
		p += len;
	}
	if (n == 0)
		return 0;
	double t;
	if (!number(w[0], &t) || t < 0.0 || t > MAX_TIME_S)
		return fail(&c, "time '%s' is not a number of seconds from 0 to %g", w[0], MAX_TIME_S);
	if (n < 2)
		return fail(&c, "an event is missing after the time");
	if (tl->count == SIM_TIMELINE_MAX) {
		fail(&c, "too many events (at most %d)", SIM_TIMELINE_MAX);
		return -ENOSPC;
	}
	struct sim_event e;
	memset(&e, 0, sizeof(e));
	e.t_us = (uint64_t)llround(t * 1e6);
	int r = parse_event(&c, &e, w + 1, n - 1);
	if (r)
		return r;
	/* The canonical text: the words after the time, single-spaced. */
	size_t off = 0;
	for (int i = 1; i < n && off < sizeof(e.text) - 1; i++) {
		int k = snprintf(e.text + off, sizeof(e.text) - off, "%s%s", i > 1 ? " " : "", w[i]);
		if (k < 0)
			break;
		off += (size_t)k;
	}
	tl->ev[tl->count++] = e;
	return 0;
}

int sim_timeline_parse(struct sim_timeline *tl, const char *text, size_t len, const char *name,
		       char *err, size_t err_len)
{
	char line[512];
	unsigned int line_no = 0;
	size_t i = 0;
	while (i < len) {
		line_no++;
		size_t n = 0;
		bool too_long = false;
		while (i < len && text[i] != '\n') {
			if (text[i] == '\0')
				return errmsg_at(err, err_len, name, line_no, "a NUL byte: not a text file");
			if (n < sizeof(line) - 1)
				line[n++] = text[i];
			else
				too_long = true;
			i++;
		}
		i++;  /* the newline */
		if (too_long)
			return errmsg_at(err, err_len, name, line_no, "line longer than %zu characters",
					 sizeof(line) - 1);
		line[n] = '\0';
		int r = sim_timeline_add_line(tl, line, name, line_no, err, err_len);
		if (r)
			return r;
	}
	return 0;
}

void sim_timeline_sort(struct sim_timeline *tl)
{
	/* Insertion sort: stable, and time-lines are short. */
	for (unsigned int i = 1; i < tl->count; i++) {
		struct sim_event e = tl->ev[i];
		unsigned int j = i;
		while (j > 0 && tl->ev[j - 1].t_us > e.t_us) {
			tl->ev[j] = tl->ev[j - 1];
			j--;
		}
		tl->ev[j] = e;
	}
}
