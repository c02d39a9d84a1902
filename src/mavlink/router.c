// SPDX-License-Identifier: GPL-3.0-or-later
#include "mavlink/router.h"

#include <string.h>

#include "mavlink/mavlink_msgs.h"

void router_init(struct router *r, uint8_t sysid, uint8_t compid)
{
	memset(r, 0, sizeof(*r));
	r->sysid = sysid;
	r->compid = compid;
}

static void learn(struct router *r, uint8_t sysid, uint8_t compid, unsigned int link)
{
	for (unsigned int i = 0; i < r->n_routes; i++) {
		struct router_route *rt = &r->routes[i];
		if (rt->sysid == sysid && rt->compid == compid) {
			rt->link = (uint8_t)link;  /* it moved, or was seen on a better link */
			return;
		}
	}
	if (r->n_routes == ROUTER_MAX_ROUTES) {
		r->routes_full++;
		return;
	}
	r->routes[r->n_routes++] = (struct router_route){ sysid, compid, (uint8_t)link };
}

/* The target byte at ofs of the payload as received (a cut byte is zero). */
static int target(const struct mavlink_frame *f, int ofs)
{
	if (ofs < 0)
		return -1;
	return ofs < f->len ? mavlink_payload(f)[ofs] : 0;
}

uint32_t router_route(struct router *r, const struct mavlink_frame *f, unsigned int link,
		      bool *local)
{
	/* Our own messages coming back (a loop in the network) are not routes to learn. */
	if (f->sysid != r->sysid || f->compid != r->compid)
		learn(r, f->sysid, f->compid, link);

	const struct mavlink_msg_info *info = mavlink_msg_info(f->msgid);
	int sys = info ? target(f, info->target_system_ofs) : -1;
	int comp = info ? target(f, info->target_component_ofs) : -1;
	uint32_t all_others = ~(UINT32_C(1) << link);

	if (sys <= 0) {
		/* No target, or system 0: a broadcast. */
		*local = true;
		return all_others;
	}
	uint32_t out = 0;
	*local = false;
	for (unsigned int i = 0; i < r->n_routes; i++) {
		const struct router_route *rt = &r->routes[i];
		if (rt->sysid == sys && (comp <= 0 || rt->compid == comp))
			out |= UINT32_C(1) << rt->link;
	}
	if (sys == r->sysid && (comp <= 0 || comp == r->compid))
		*local = true;
	return out & all_others;
}
