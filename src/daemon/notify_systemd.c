// SPDX-License-Identifier: GPL-3.0-or-later
/* sd_notify through libsystemd, when fulmard is built with it. */
#include "daemon/notify.h"

#include <systemd/sd-daemon.h>

int notify_send(const char *state)
{
	int rc = sd_notify(0, state);
	return rc < 0 ? rc : 0;
}

uint64_t notify_watchdog_usec(void)
{
	uint64_t usec = 0;
	return sd_watchdog_enabled(0, &usec) > 0 ? usec : 0;
}
