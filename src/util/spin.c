// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/spin.h"

void spin_judge_init(struct spin_judge *j, uint64_t bound_ns)
{
	*j = (struct spin_judge){ .bound_ns = bound_ns, .spin_ns = bound_ns, .off_next = SPIN_OFF };
}

void spin_judge_frame(struct spin_judge *j, bool caught)
{
	if (!j->bound_ns)
		return;
	if (j->off_left) {
		if (--j->off_left == 0)
			j->spin_ns = j->bound_ns;
		return;
	}
	j->misses += !caught;
	if (++j->window < SPIN_WINDOW)
		return;
	if (j->misses > SPIN_MISSES) {
		j->spin_ns = 0;
		j->off_left = j->off_next;
		j->offs++;
		if (j->off_next < SPIN_OFF_MAX)
			j->off_next *= 2;
	} else {
		j->off_next = SPIN_OFF;
	}
	j->window = j->misses = 0;
}
