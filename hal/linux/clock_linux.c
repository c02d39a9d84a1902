// SPDX-License-Identifier: GPL-3.0-or-later
#include "fulmar/clock.h"

#include <errno.h>
#include <time.h>

uint64_t clock_mono_ns(void)
{
	struct timespec ts;
	/* CLOCK_MONOTONIC cannot fail with a valid pointer on Linux. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int clock_sleep_until_ns(uint64_t t_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t_ns / 1000000000u),
		.tv_nsec = (long)(t_ns % 1000000000u),
	};
	int rc;
	/* clock_nanosleep returns the error number rather than setting errno. */
	while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
		;
	return -rc;
}
