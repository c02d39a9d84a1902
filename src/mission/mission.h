/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The mission: a list of MAVLink mission items (item 0 is home, as ArduPilot
 * keeps it), and its file format, QGroundControl's "QGC WPL 110" text. Plain
 * data and pure functions; the main thread owns the live mission.
 */
#ifndef FULMAR_MISSION_H
#define FULMAR_MISSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MISSION_MAX_ITEMS 700

/* One item as MISSION_ITEM_INT carries it. */
struct mission_item {
	uint16_t command;        /* MAV_CMD */
	uint8_t frame;           /* MAV_FRAME */
	uint8_t autocontinue;
	float param1, param2, param3, param4;
	int32_t x;               /* latitude, 1e-7 degrees (or a local x in metres * 1e4) */
	int32_t y;               /* longitude, 1e-7 degrees */
	float z;                 /* altitude, metres in the frame's reference */
};

struct mission {
	uint16_t count;
	uint16_t current;        /* the item being flown */
	struct mission_item items[MISSION_MAX_ITEMS];
};

void mission_clear(struct mission *m);

/*
 * Parses QGC WPL 110 text: a header line, then per item
 * "seq current frame command p1 p2 p3 p4 lat lon alt autocontinue" separated
 * by tabs (or spaces). Items must be numbered 0, 1, 2... All or nothing:
 * returns 0 and fills m, or -EINVAL with "name:line: reason" in err and m
 * untouched; -ENOSPC past MISSION_MAX_ITEMS.
 */
int mission_load_wpl(struct mission *m, const char *text, const char *name, char *err,
		     size_t err_len);
/* Writes m as QGC WPL 110. Returns the length, or -ENOSPC when buf is too small. */
long mission_save_wpl(const struct mission *m, char *buf, size_t len);

#endif
