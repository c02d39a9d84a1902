/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The board's devices, opened: the board table with the configuration's
 * overrides applied, each device opened through the backend the board names.
 * Opened and closed by the leader thread at start-up and shutdown; the handles
 * are then handed to the drivers that use them.
 */
#ifndef FULMAR_DAEMON_DEVICES_H
#define FULMAR_DAEMON_DEVICES_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/config.h"
#include "fulmar/board.h"

#define DEVICES_MAX 32

struct device {
	struct board_dev desc;      /* the board's entry, overrides applied */
	char value[CONFIG_VALUE_MAX];  /* storage for an overridden path or name */
	bool disabled;              /* optional and not configured; a rangefinder entry
	                             * RNGFND1_TYPE did not pick */
	bool refused;               /* the configuration says none */
	void *handle;               /* struct spi_dev *, struct i2c_bus *, ... or NULL */
};

struct devices {
	const struct board *board;
	struct device dev[DEVICES_MAX];
	unsigned int n;
};

/*
 * Lists the board's parts that fulmar cannot drive yet, "name (what): missing"
 * separated by "; ", into buf. Returns how many there are.
 */
unsigned int devices_missing(const struct board *board, char *buf, size_t len);

/*
 * Applies the configuration's overrides and opens every device that is not
 * disabled. In HIL (hil true) the simulator is every sensor and output, so
 * only the devices the configuration names are opened (a telemetry radio, a
 * buzzer): a board in the loop flies with its IMU and servo rail absent, as an
 * emulated board has them. Returns 0, or -errno with one line naming the
 * device (and the configuration line that set it) in err; then nothing stays
 * open.
 */
int devices_open(struct devices *d, const struct board *board, const struct config *cfg,
		 bool hil, char *err, size_t err_len);
/*
 * After the parameters have loaded: opens the board's rangefinder entry for
 * RNGFND1_TYPE type (struct board_driver.rngfnd_type; 3 and 15 both name the
 * LIDAR-Lite's register protocol), with its I2C address moved to addr when
 * addr is not 0 (RNGFND1_ADDR), unless the configuration says none for it.
 * Not for HIL, where the simulator's DISTANCE_SENSOR is the rangefinder
 * (RNGFND1_TYPE 10, src/daemon/hil.h). Returns 1 with the entry's name in *name when one opened, 0
 * when none is for that type (type 0, 10 or one the board does not place),
 * or -errno with one line naming the device in err.
 */
int devices_open_rangefinder(struct devices *d, int type, int addr, const char **name,
			     char *err, size_t err_len);
/* Whether a board entry tagged tag is the rangefinder RNGFND1_TYPE type names. */
bool devices_rangefinder_type_matches(unsigned int tag, int type);
void devices_close(struct devices *d);
/* The handle of an open device of that kind, or NULL. */
void *devices_find(const struct devices *d, const char *name, enum board_dev_kind kind);
/* One line per device for --board-info. */
void devices_describe(const struct board *board, char *buf, size_t len);

#endif
