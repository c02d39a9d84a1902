/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The parameter table: every tunable of the aircraft, with ArduPlane's (or,
 * for a copter, ArduCopter's) name where the meaning is the same, a type, a
 * default, a range and units. One table, sorted by name; a row is shared by
 * every vehicle kind or belongs to one (PARAM_PLANE, PARAM_COPTER), and
 * param_init keeps the rows of the kind that flies: a ground station sees
 * the parameters of that vehicle only, in the same order as ever.
 *
 * Modules find their parameters by name once at start-up (param_find) and
 * read them by index (param_get) from any thread: values are 32-bit atomics.
 * Only the main thread writes them (param_set: ground station, files), and
 * each write bumps a generation the io thread uses to know when to save.
 * Values are floats, as MAVLink carries them: integers are exact up to 2^24.
 */
#ifndef FULMAR_PARAM_H
#define FULMAR_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* MAV_PARAM_TYPE values, as PARAM_VALUE reports them. */
enum param_type {
	PARAM_INT8 = 2,
	PARAM_INT16 = 4,
	PARAM_INT32 = 6,
	PARAM_FLOAT = 9,
};

#define PARAM_NAME_LEN 16   /* MAVLink's param_id: 16 bytes, NUL-terminated when shorter */

/* Which vehicle kinds a row is for (struct param_def.only): PARAM_ALL, or a kind. */
#define PARAM_ALL 0u
#define PARAM_PLANE (1u << 0)
#define PARAM_COPTER (1u << 1)

struct param_def {
	const char *name;
	enum param_type type;
	float def, min, max;
	const char *units;
	const char *doc;
	unsigned int only;             /* PARAM_PLANE, PARAM_COPTER; 0: every kind */
};

/* The rows of the kind that flies (param_init), sorted by name; indexes are theirs. */
extern const struct param_def *param_defs;
extern unsigned int param_count;

/*
 * Called once before any thread starts: the rows of the vehicle kind flown
 * (PARAM_PLANE or PARAM_COPTER), every value to its default.
 */
void param_init(unsigned int kind);
/* The index of a parameter (exact name, at most 16 characters), or -1. */
int param_find(const char *name);
/* Any thread. idx from param_find; out of range is a programmer error. */
float param_get(int idx);
/* Shorthand for modules: param_get(param_find(name)), asserting the name exists. */
float param_get_by_name(const char *name);
/*
 * Main thread. Sets a value after checking it against the range and rounding
 * integers (-ERANGE, value untouched, when outside; -EINVAL for NaN or an
 * integer parameter given a fraction). Returns 0.
 */
int param_set(int idx, float value);
/*
 * A parameter bound by name to float fields of a settings struct (the
 * vehicles' plane_params, copter_params): field = value * scale, into each
 * of the n offsets. param_binds_load copies every bound value into base and
 * returns how many names the table lacks. Main thread.
 */
#define PARAM_BIND_FIELDS 3
struct param_bind {
	const char *name;
	float scale;
	unsigned int n;
	size_t off[PARAM_BIND_FIELDS];
};
unsigned int param_binds_load(const struct param_bind *binds, unsigned int count, void *base);

/* Bumped on every change; the io thread saves when it moves. */
uint32_t param_generation(void);

/*
 * The text format of parameter files, one "NAME,VALUE" per line (also space
 * or tab separated; '#' starts a comment), as Mission Planner and MAVProxy
 * write them. All or nothing: returns 0 and applies every known name, or
 * returns -EINVAL and applies none, with "name:line: reason" in err. Names
 * fulmar does not have are skipped and counted in *unknown.
 */
int param_load_text(const char *text, const char *name, unsigned int *unknown,
		    char *err, size_t err_len);
/*
 * Writes every parameter as "NAME,VALUE\n" into buf (sorted as the table).
 * Returns the length, or -ENOSPC when buf is too small.
 */
long param_save_text(char *buf, size_t len);

#endif
