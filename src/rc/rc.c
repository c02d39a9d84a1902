// SPDX-License-Identifier: GPL-3.0-or-later
#include "rc/rc.h"

const char *rc_protocol_name(enum rc_protocol protocol)
{
	switch (protocol) {
	case RC_PROTOCOL_NONE: return "none";
	case RC_PROTOCOL_PPM: return "PPM";
	case RC_PROTOCOL_SBUS: return "SBUS";
	case RC_PROTOCOL_DSM: return "DSM";
	case RC_PROTOCOL_HIL: return "HIL";
	case RC_PROTOCOL_RCIO: return "RCIO";
	case RC_PROTOCOL_COUNT: break;
	}
	return "?";
}

const char *rc_reject_name(enum rc_reject reason)
{
	switch (reason) {
	case RC_REJECT_FRAMING: return "framing";
	case RC_REJECT_PARITY: return "parity";
	case RC_REJECT_LENGTH: return "length";
	case RC_REJECT_HEADER: return "header";
	case RC_REJECT_RANGE: return "range";
	case RC_REJECT_CHANNELS: return "channels";
	case RC_REJECT_COUNT: break;
	}
	return "?";
}

uint32_t rc_stats_rejected(const struct rc_stats *stats)
{
	uint32_t sum = 0;
	for (int i = 0; i < RC_REJECT_COUNT; i++)
		sum += stats->rejected[i];
	return sum;
}
