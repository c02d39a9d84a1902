// SPDX-License-Identifier: GPL-3.0-or-later
#include "daemon/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fulmar/storage.h"
#include "util/errmsg.h"

#define CONFIG_FILE_MAX (256 * 1024)
#define CONFIG_MAX_SEEN 256

enum key_type {
	KEY_BOOL = 1,
	KEY_INT,
	KEY_PATH,
	KEY_LOG_LEVEL,
	KEY_VEHICLE,
};

/* Which struct a key's offset is into. */
enum key_scope {
	SCOPE_CONFIG = 1,   /* struct config */
	SCOPE_THREAD,       /* struct sched_thread_cfg of [thread.NAME] */
};

struct key_def {
	const char *section;  /* "thread" stands for every [thread.NAME] */
	const char *key;
	enum key_type type;
	enum key_scope scope;
	size_t off;
	size_t size;          /* KEY_PATH: buffer size */
	long min, max;        /* KEY_INT */
};

#define CFG_OFF(field) offsetof(struct config, field)
#define THR_OFF(field) offsetof(struct sched_thread_cfg, field)

static const struct key_def keys[] = {
	{ "daemon", "state_dir", KEY_PATH, SCOPE_CONFIG, CFG_OFF(state_dir), PATH_MAX, 0, 0 },
	{ "daemon", "log_dir", KEY_PATH, SCOPE_CONFIG, CFG_OFF(log_dir), PATH_MAX, 0, 0 },
	{ "daemon", "log_level", KEY_LOG_LEVEL, SCOPE_CONFIG, CFG_OFF(log_level), 0, 0, 0 },
	{ "daemon", "vehicle", KEY_VEHICLE, SCOPE_CONFIG, CFG_OFF(vehicle), 0, 0, 0 },
	{ "sched", "realtime", KEY_BOOL, SCOPE_CONFIG, CFG_OFF(sched.realtime), 0, 0, 0 },
	{ "sched", "lock_memory", KEY_BOOL, SCOPE_CONFIG, CFG_OFF(sched.lock_memory), 0, 0, 0 },
	{ "sched", "priority_max", KEY_INT, SCOPE_CONFIG, CFG_OFF(sched.priority_max), 0, 6, 99 },
	{ "sched", "cpu_dma_latency_us", KEY_INT, SCOPE_CONFIG, CFG_OFF(sched.cpu_dma_latency_us), 0,
	  -1, 2000000000 },
	{ "thread", "rate_hz", KEY_INT, SCOPE_THREAD, THR_OFF(rate_hz), 0, 1, 100000 },
	{ "thread", "priority", KEY_INT, SCOPE_THREAD, THR_OFF(priority), 0, 1, 99 },
	{ "thread", "cpu", KEY_INT, SCOPE_THREAD, THR_OFF(cpu), 0, -1, 1023 },
};

static const struct { const char *name; enum log_level level; } log_levels[] = {
	{ "err", LOG_LEVEL_ERR }, { "warn", LOG_LEVEL_WARN },
	{ "info", LOG_LEVEL_INFO }, { "debug", LOG_LEVEL_DEBUG },
};

void config_defaults(struct config *cfg, const struct board *board)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->state_dir, sizeof(cfg->state_dir), "/var/lib/fulmar");
	snprintf(cfg->log_dir, sizeof(cfg->log_dir), "/var/log/fulmar");
	cfg->log_level = LOG_LEVEL_INFO;
	cfg->vehicle = VEHICLE_PLANE;
	sched_cfg_defaults(&cfg->sched, board->main_rate_hz);
}

struct parser {
	struct config *cfg;
	const struct board *board;
	const char *name;
	unsigned int line;
	char section[64];
	enum sched_thread_id thread;   /* in a [thread.NAME] section */
	char seen[CONFIG_MAX_SEEN][96];
	unsigned int n_seen;
	char *err;
	size_t err_len;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = errmsg_vat(p->err, p->err_len, p->name, p->line, fmt, ap);
	va_end(ap);
	return rc;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int parse_long(const char *v, long *out)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, 0);
	if (errno || end == v || *end != '\0')
		return -EINVAL;
	*out = x;
	return 0;
}

static int parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	for (size_t i = 0; i < 4; i++) {
		if (strcmp(v, yes[i]) == 0)
			return *out = true, 0;
		if (strcmp(v, no[i]) == 0)
			return *out = false, 0;
	}
	return -EINVAL;
}

static int set_section(struct parser *p, char *line)
{
	char *close = strchr(line, ']');
	if (!close || trim(close + 1)[0] != '\0')
		return fail(p, "malformed section header (expected [name])");
	*close = '\0';
	char *name = trim(line + 1);
	p->thread = 0;
	if (strncmp(name, "thread.", 7) == 0) {
		p->thread = sched_thread_by_name(name + 7);
		if (!p->thread)
			return fail(p, "unknown thread '%s' (timer, main, rcin, uart, tone, io)",
				    name + 7);
	} else if (strcmp(name, "daemon") && strcmp(name, "sched") && strcmp(name, "devices") &&
		   strcmp(name, "mavlink")) {
		return fail(p, "unknown section [%s]", name);
	}
	snprintf(p->section, sizeof(p->section), "%s", name);
	return 0;
}

static int set_device(struct parser *p, const char *key, const char *value)
{
	const struct board_dev *dev = NULL;
	for (unsigned int i = 0; i < p->board->n_devs; i++)
		if (strcmp(p->board->devs[i].name, key) == 0)
			dev = &p->board->devs[i];
	if (!dev)
		return fail(p, "board %s has no device '%s'", p->board->name, key);
	if (strcmp(value, "none") == 0 && !dev->optional && !dev->drv.rngfnd_type)
		return fail(p, "device '%s' (%s) is required on board %s and cannot be none",
			    key, dev->what, p->board->name);
	struct config *cfg = p->cfg;
	if (cfg->n_overrides == CONFIG_MAX_OVERRIDES)
		return fail(p, "more than %d device overrides", CONFIG_MAX_OVERRIDES);
	struct config_override *o = &cfg->overrides[cfg->n_overrides];
	if (strlen(value) >= sizeof(o->value))
		return fail(p, "value of '%s' is longer than %zu characters", key, sizeof(o->value) - 1);
	snprintf(o->device, sizeof(o->device), "%s", key);
	snprintf(o->value, sizeof(o->value), "%s", value);
	snprintf(o->where, sizeof(o->where), "%s:%u", p->name, p->line);
	cfg->n_overrides++;
	return 0;
}

static int set_link(struct parser *p, const char *key, const char *value)
{
	if (strncmp(key, "link", 4) != 0 || key[4] < '0' || key[4] >= '0' + LINKS_MAX || key[5])
		return fail(p, "unknown key '%s' in [mavlink] (link0 .. link%d)", key, LINKS_MAX - 1);
	int i = key[4] - '0';
	if (link_spec_parse(value, &p->cfg->links[i]))
		return fail(p, "%s: '%s' is not udp-server:HOST:PORT, udp-client:HOST:PORT or "
			    "serial:PATH:BAUD[:rtscts]", key, value);
	p->cfg->link_set[i] = true;
	return 0;
}

unsigned int config_links(const struct config *cfg, struct link_spec specs[LINKS_MAX])
{
	unsigned int n = 0;
	for (int i = 0; i < LINKS_MAX; i++)
		if (cfg->link_set[i])
			specs[n++] = cfg->links[i];
	if (n == 0 && link_spec_parse("udp-server:0.0.0.0:14550", &specs[0]) == 0)
		n = 1;
	return n;
}

static int set_key(struct parser *p, const char *key, const char *value)
{
	if (p->section[0] == '\0')
		return fail(p, "'%s' is outside any [section]", key);

	char id[sizeof(p->seen[0])];
	snprintf(id, sizeof(id), "%s/%s", p->section, key);
	for (unsigned int i = 0; i < p->n_seen; i++)
		if (strcmp(p->seen[i], id) == 0)
			return fail(p, "'%s' is set twice in [%s]", key, p->section);
	if (p->n_seen == CONFIG_MAX_SEEN)
		return fail(p, "more than %d settings", CONFIG_MAX_SEEN);
	snprintf(p->seen[p->n_seen++], sizeof(p->seen[0]), "%s", id);

	if (strcmp(p->section, "devices") == 0)
		return set_device(p, key, value);
	if (strcmp(p->section, "mavlink") == 0)
		return set_link(p, key, value);

	const char *section = p->thread ? "thread" : p->section;
	const struct key_def *k = NULL;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].key, key) == 0)
			k = &keys[i];
	if (!k)
		return fail(p, "unknown key '%s' in [%s]", key, p->section);

	char *base = k->scope == SCOPE_THREAD ? (char *)&p->cfg->sched.thread[p->thread]
					      : (char *)p->cfg;
	void *field = base + k->off;
	long x;
	bool b;
	switch (k->type) {
	case KEY_BOOL:
		if (parse_bool(value, &b))
			return fail(p, "%s: '%s' is not a boolean (true/false)", key, value);
		*(bool *)field = b;
		return 0;
	case KEY_INT:
		if (parse_long(value, &x) || x < k->min || x > k->max)
			return fail(p, "%s: '%s' is not a whole number in %ld..%ld", key, value,
				    k->min, k->max);
		/* Every integer key is an int or a uint32_t, both 4 bytes. */
		if (k->min >= 0)
			*(uint32_t *)field = (uint32_t)x;
		else
			*(int *)field = (int)x;
		return 0;
	case KEY_PATH:
		if (value[0] == '\0' || strlen(value) >= k->size)
			return fail(p, "%s: path is empty or too long", key);
		memcpy(field, value, strlen(value) + 1);
		return 0;
	case KEY_LOG_LEVEL:
		for (size_t i = 0; i < sizeof(log_levels) / sizeof(log_levels[0]); i++)
			if (strcmp(value, log_levels[i].name) == 0) {
				*(enum log_level *)field = log_levels[i].level;
				return 0;
			}
		return fail(p, "%s: '%s' is not one of err, warn, info, debug", key, value);
	case KEY_VEHICLE:
		if (strcmp(value, "plane") == 0 || strcmp(value, "copter") == 0) {
			*(enum vehicle_kind *)field = value[0] == 'p' ? VEHICLE_PLANE : VEHICLE_COPTER;
			return 0;
		}
		return fail(p, "%s: '%s' is not one of plane, copter", key, value);
	}
	return fail(p, "internal: key '%s' has no type", key);
}

int config_parse(struct config *cfg, const char *text, const char *name,
		 const struct board *board, char *err, size_t err_len)
{
	/* The parser is big (the seen-keys list): keep it off the caller's stack. */
	static _Thread_local struct parser p;
	memset(&p, 0, sizeof(p));
	p.cfg = cfg;
	p.board = board;
	p.name = name;
	p.err = err;
	p.err_len = err_len;

	const char *s = text;
	while (*s) {
		p.line++;
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		char buf[1024];
		if (n >= sizeof(buf))
			return fail(&p, "line longer than %zu characters", sizeof(buf) - 1);
		memcpy(buf, s, n);
		buf[n] = '\0';
		s += n + (nl ? 1 : 0);
		if (memchr(buf, '\0', n))
			return fail(&p, "NUL byte in the file");

		char *line = trim(buf);
		if (line[0] == '\0' || line[0] == '#' || line[0] == ';')
			continue;
		int rc;
		if (line[0] == '[') {
			rc = set_section(&p, line);
		} else {
			char *eq = strchr(line, '=');
			if (!eq)
				return fail(&p, "expected 'key = value' or '[section]'");
			*eq = '\0';
			char *key = trim(line), *value = trim(eq + 1);
			if (key[0] == '\0')
				return fail(&p, "missing key before '='");
			size_t vl = strlen(value);
			if (vl >= 2 && value[0] == '"' && value[vl - 1] == '"') {
				value[vl - 1] = '\0';
				value++;
			}
			rc = set_key(&p, key, value);
		}
		if (rc)
			return rc;
	}
	return 0;
}

int config_load(struct config *cfg, const char *path, const struct board *board,
		char *err, size_t err_len)
{
	static char text[CONFIG_FILE_MAX + 1];
	long n = storage_read(path, text, CONFIG_FILE_MAX);
	if (n < 0) {
		snprintf(err, err_len, "%s: %s", path,
			 n == -EFBIG ? "file is larger than 256 KiB" : strerror((int)-n));
		return (int)n;
	}
	text[n] = '\0';
	if (memchr(text, '\0', (size_t)n)) {
		snprintf(err, err_len, "%s: NUL byte in the file (not a text file?)", path);
		return -EINVAL;
	}
	return config_parse(cfg, text, path, board, err, err_len);
}
