/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the ground-station service tests share: a gcs_tx that records every
 * message sent, and frames from a ground station built through the real
 * encoder and parser.
 */
#ifndef FULMAR_TEST_GCS_HARNESS_H
#define FULMAR_TEST_GCS_HARNESS_H

#include <stdint.h>

#include "mavlink/frame.h"

#define HARNESS_MAX_SENT 20000

struct sent {
	int link;
	uint32_t msgid;
	uint8_t payload[255];
};

extern struct sent sent[HARNESS_MAX_SENT];
extern unsigned int n_sent;

/* The gcs_tx.send that records. */
void harness_capture(void *ctx, int link, uint32_t msgid, const uint8_t *payload);
/* A frame of msgid carrying payload (packed, max length) from sysid/compid. */
const struct mavlink_frame *harness_frame(uint8_t sysid, uint8_t compid, uint32_t msgid,
					  const uint8_t *payload);
/* The last message of msgid sent, or NULL. */
const struct sent *harness_last(uint32_t msgid);
/* How many of msgid went to link (GCS_LINK_ALL counts as its own link). */
unsigned int harness_count(int link, uint32_t msgid);

#endif
