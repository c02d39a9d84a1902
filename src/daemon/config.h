/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fulmard's configuration file: "key = value" lines under [sections], '#' or
 * ';' comments. Every key is known: an unknown section or key, a bad value or
 * a repeated key is an error that names file:line. Read once at start-up.
 *
 *   [daemon]      state_dir, log_dir, log_level (err|warn|info|debug),
 *                 vehicle (plane|copter: what flies, docs/design.md)
 *   [sched]       realtime, lock_memory, priority_max, cpu_dma_latency_us
 *   [thread.NAME] rate_hz, priority, cpu      (NAME: timer main rcin uart tone io)
 *   [devices]     DEVICE = path               (overrides the board's wiring; "none"
 *                                              leaves an optional device closed)
 *   [mavlink]     link0 .. link7 = udp-server:HOST:PORT | udp-client:HOST:PORT |
 *                                  serial:PATH:BAUD[:rtscts]
 *                 (no link set: one udp-server:0.0.0.0:14550)
 */
#ifndef FULMAR_DAEMON_CONFIG_H
#define FULMAR_DAEMON_CONFIG_H

#include <limits.h>
#include <stddef.h>

#include "daemon/links.h"
#include "daemon/scheduler.h"
#include "fulmar/board.h"
#include "util/log.h"
#include "vehicle/vehicle.h"

#define CONFIG_MAX_OVERRIDES 32
#define CONFIG_VALUE_MAX 256

struct config_override {
	char device[32];
	char value[CONFIG_VALUE_MAX];
	char where[PATH_MAX + 16];  /* "file:line" for messages */
};

struct config {
	char state_dir[PATH_MAX];
	char log_dir[PATH_MAX];
	enum log_level log_level;
	enum vehicle_kind vehicle;
	struct sched_cfg sched;
	struct config_override overrides[CONFIG_MAX_OVERRIDES];
	unsigned int n_overrides;
	struct link_spec links[LINKS_MAX];
	bool link_set[LINKS_MAX];
};

/* The configured links in order (or the default one) into specs; returns how many. */
unsigned int config_links(const struct config *cfg, struct link_spec specs[LINKS_MAX]);

/* Defaults for the board: its main-loop rate, /var/lib/fulmar, /var/log/fulmar. */
void config_defaults(struct config *cfg, const struct board *board);

/*
 * Reads path over the values already in cfg. Returns 0, or -errno with one line
 * for people in err ("fulmard.conf:12: unknown key 'foo' in [sched]"):
 * -ENOENT/-EACCES/... when the file cannot be read, -EINVAL for its content.
 */
int config_load(struct config *cfg, const char *path, const struct board *board,
		char *err, size_t err_len);

/* Parses the text of a configuration; name is used in messages. Same returns. */
int config_parse(struct config *cfg, const char *text, const char *name,
		 const struct board *board, char *err, size_t err_len);

#endif
