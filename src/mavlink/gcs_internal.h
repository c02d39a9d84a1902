/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the GCS service files share; not for the rest of the daemon. */
#ifndef FULMAR_MAVLINK_GCS_INTERNAL_H
#define FULMAR_MAVLINK_GCS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "mavlink/gcs.h"

/* Whether a message addressed to (sys, comp) is ours to act on (0: broadcast). */
bool gcs_for_us(const struct gcs *g, uint8_t sys, uint8_t comp);
/* The mission protocol: true when f was one of its messages. */
bool gcs_mission_handle(struct gcs *g, int link, const struct mavlink_frame *f, uint64_t now_us);
/* COMMAND_LONG, COMMAND_INT and SET_MODE: true when f was one of them. */
bool gcs_command_handle(struct gcs *g, int link, const struct mavlink_frame *f, uint64_t now_us);
/*
 * Sets home (mission item 0, as ArduPilot keeps it) and tells every link with
 * HOME_POSITION. Returns 0, or -EINVAL for a position that is not one.
 */
int gcs_set_home(int32_t lat_e7, int32_t lon_e7, float alt_msl_m, struct gcs *g);
/* HEARTBEAT to one link or all (GCS_LINK_ALL). */
void gcs_heartbeat(struct gcs *g, int link);
/* REQUEST_DATA_STREAM: true when f was one. */
bool gcs_streams_handle(struct gcs *g, int link, const struct mavlink_frame *f);
/*
 * Whether a parameter list may send bytes more on link now (a limited link
 * has what its streams leave); when so, they are counted as sent.
 */
bool gcs_link_param_room(struct gcs *g, int link, unsigned int bytes);
/* Looks up the SRn_* parameters. */
void gcs_streams_init(struct gcs *g);
/* Sends the streams that are due on every link. */
void gcs_streams_tick(struct gcs *g, uint64_t now_us);
/* Time-outs and retries of an upload. */
void gcs_mission_tick(struct gcs *g, uint64_t now_us);

#endif
