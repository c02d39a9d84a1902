/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MAVLink routing between links, as the MAVLink routing rules say: each link
 * learns the systems and components heard on it; a message addressed to a
 * system (and component) goes to the links where that one was heard, a
 * broadcast goes everywhere, and nothing goes back to the link it came from.
 * Pure; used by the thread that runs the links.
 */
#ifndef FULMAR_MAVLINK_ROUTER_H
#define FULMAR_MAVLINK_ROUTER_H

#include <stdbool.h>
#include <stdint.h>

#include "mavlink/frame.h"

#define ROUTER_MAX_ROUTES 64

struct router_route {
	uint8_t sysid, compid;
	uint8_t link;
};

struct router {
	uint8_t sysid, compid;    /* ours */
	struct router_route routes[ROUTER_MAX_ROUTES];
	unsigned int n_routes;
	uint64_t routes_full;     /* a new origin when the table was full: not learned */
};

void router_init(struct router *r, uint8_t sysid, uint8_t compid);

/*
 * A frame received on link (0..31): learns where its sender is and says
 * where it goes. Returns the bitmask of links to forward it to (never link
 * itself); *local is whether this autopilot should act on it.
 */
uint32_t router_route(struct router *r, const struct mavlink_frame *f, unsigned int link,
		      bool *local);

#endif
