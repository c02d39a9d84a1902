// SPDX-License-Identifier: GPL-3.0-or-later
#include "drivers/driver.h"

#include <stdio.h>

size_t drv_task(struct drv_inst *d, struct sched_task *out, unsigned int i, const char *suffix,
		enum sched_thread_id thread, uint32_t rate_hz, void (*run)(void *ctx, uint64_t now_us))
{
	const char *name = d->desc->name;
	if (suffix) {
		snprintf(d->task_name[i], sizeof(d->task_name[i]), "%s-%s", name, suffix);
		name = d->task_name[i];
	}
	out[i] = (struct sched_task){ name, thread, rate_hz, run, d };
	return i + 1;
}
