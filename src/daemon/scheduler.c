// SPDX-License-Identifier: GPL-3.0-or-later
#define LOG_TAG "sched"
#include "daemon/scheduler.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fulmar/clock.h"
#include "util/log.h"

#define SCHED_STACK_BYTES (256u * 1024u)

static const char *const thread_names[SCHED_THREAD_COUNT] = {
	[SCHED_TIMER] = "timer", [SCHED_MAIN] = "main", [SCHED_RCIN] = "rcin",
	[SCHED_UART] = "uart",   [SCHED_TONE] = "tone", [SCHED_IO] = "io",
};

const char *sched_thread_name(enum sched_thread_id id)
{
	return id > 0 && id < SCHED_THREAD_COUNT ? thread_names[id] : "?";
}

enum sched_thread_id sched_thread_by_name(const char *name)
{
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++)
		if (strcmp(thread_names[i], name) == 0)
			return (enum sched_thread_id)i;
	return 0;
}

void sched_cfg_defaults(struct sched_cfg *cfg, uint32_t main_rate_hz)
{
	static const uint32_t rates[SCHED_THREAD_COUNT] = {
		[SCHED_TIMER] = 1000, [SCHED_RCIN] = 200, [SCHED_UART] = 100,
		[SCHED_TONE] = 100,   [SCHED_IO] = 50,
	};
	memset(cfg, 0, sizeof(*cfg));
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++) {
		cfg->thread[i].rate_hz = i == SCHED_MAIN ? main_rate_hz : rates[i];
		cfg->thread[i].cpu = -1;
	}
	cfg->realtime = true;
	cfg->lock_memory = true;
	/*
	 * Below the kernel's threaded interrupt handlers (50), whose SPI and I2C
	 * completions our sensor reads wait on.
	 */
	cfg->priority_max = 40;
	/* As cyclictest: no CPU sinks into an idle state it takes time to leave. */
	cfg->cpu_dma_latency_us = 0;
}

/*
 * Rate-monotonic: the faster thread gets the higher priority; equal rates keep
 * the table's order. A 400 Hz main loop below a 100 Hz serial thread is the
 * known way to miss control deadlines.
 */
static int auto_priority(const struct sched_cfg *cfg, int id)
{
	int rank = 0;
	for (int j = SCHED_TIMER; j < SCHED_THREAD_COUNT; j++) {
		uint32_t rj = cfg->thread[j].rate_hz, ri = cfg->thread[id].rate_hz;
		if (rj > ri || (rj == ri && j < id))
			rank++;
	}
	return cfg->priority_max - rank;
}

int sched_init(struct sched *s, const struct sched_cfg *cfg)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	atomic_init(&s->stop, false);
	atomic_init(&s->go, 0);
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++) {
		const struct sched_thread_cfg *tc = &cfg->thread[i];
		struct sched_thread *t = &s->th[i];
		if (tc->rate_hz == 0 || tc->rate_hz > 1000000)
			return -EINVAL;
		int prio = tc->priority ? tc->priority : auto_priority(cfg, i);
		if (prio < 1 || prio > 99)
			return -EINVAL;
		t->id = (enum sched_thread_id)i;
		t->priority = prio;
		t->period_ns = 1000000000ull / tc->rate_hz;
		/*
		 * Threads wake on staggered instants, 150 us apart: six expiries on one
		 * instant would have the kernel wake six threads at once, and the
		 * fastest would wait for the others' wake-ups.
		 */
		t->phase_ns = (uint64_t)(i - SCHED_TIMER) * 150000u;
		t->owner = s;
		atomic_init(&t->pace_seq, 0);
		atomic_init(&t->pace_t_ns, 0);
		atomic_init(&t->pace_first_ns, 0);
		hist_init(&t->stats.wake_latency);
		hist_init(&t->stats.run_time);
		atomic_init(&t->stats.loops, 0);
		atomic_init(&t->stats.overruns_1_5x, 0);
		atomic_init(&t->stats.overruns_2x, 0);
		atomic_init(&t->stats.longest_interval_ns, 0);
		atomic_init(&t->stats.skipped, 0);
		atomic_init(&t->stats.pace_timeouts, 0);
		atomic_init(&t->stats.first_start_ns, 0);
		atomic_init(&t->stats.last_start_ns, 0);
		atomic_init(&t->stats.last_event_ns, 0);
		atomic_init(&t->stats.shed_loops, 0);
		t->schedstat_fd = -1;
		t->task_idx = -1;
		atomic_init(&t->late_w, 0);
		atomic_init(&t->late_r, 0);
		atomic_init(&t->late_lost, 0);
		for (int c = 0; c < SCHED_LATE_CAUSES; c++) {
			atomic_init(&t->late_by_cause[c], 0);
			atomic_init(&t->late_longest_us[c], 0);
		}
		for (int k = 0; k < SCHED_MAX_TASKS_PER_THREAD; k++)
			atomic_init(&t->late_by_task[k], 0);
	}
	return 0;
}

int sched_add_task(struct sched *s, const struct sched_task *task)
{
	if (task->thread < SCHED_TIMER || task->thread >= SCHED_THREAD_COUNT || !task->run)
		return -EINVAL;
	struct sched_thread *t = &s->th[task->thread];
	uint32_t thread_hz = s->cfg.thread[task->thread].rate_hz;
	uint32_t div = 1;
	if (task->rate_hz) {
		if (task->rate_hz > thread_hz || thread_hz % task->rate_hz)
			return -EINVAL;
		div = thread_hz / task->rate_hz;
	}
	if (s->n_tasks == SCHED_MAX_TASKS || t->n_tasks == SCHED_MAX_TASKS_PER_THREAD)
		return -ENOSPC;
	s->tasks[s->n_tasks] = *task;
	t->tasks[t->n_tasks] = &s->tasks[s->n_tasks];
	t->task_div[t->n_tasks] = div;
	s->n_tasks++;
	t->n_tasks++;
	return 0;
}

int sched_add_work(struct sched *s, struct sched_work *w)
{
	if (w->thread < SCHED_TIMER || w->thread >= SCHED_THREAD_COUNT ||
	    (w->shed != SCHED_SHED_FIRST && w->shed != SCHED_SHED_LAST) || !w->budget_us)
		return -EINVAL;
	if (s->n_work == SCHED_MAX_WORK)
		return -ENOSPC;
	atomic_init(&w->runs, 0);
	atomic_init(&w->deferred, 0);
	atomic_init(&w->forced, 0);
	atomic_init(&w->over_budget, 0);
	atomic_init(&w->longest_ns, 0);
	w->waiting_since_ns = 0;
	s->work[s->n_work++] = w;
	return 0;
}

static void bump(_Atomic uint64_t *c);

/* The share of the period (percent) a class may run within. */
static uint64_t shed_share_pct(enum sched_shed c)
{
	return c == SCHED_SHED_LAST ? 90u : 60u;
}

bool sched_work_begin(struct sched *s, struct sched_work *w)
{
	if (!s)
		return true;
	const struct sched_thread *t = &s->th[w->thread];
	uint64_t now = clock_mono_ns();
	bool run = s->lockstep;
	if (!run) {
		uint64_t elapsed = now > t->loop_start_ns ? now - t->loop_start_ns : 0;
		run = elapsed + (uint64_t)w->budget_us * 1000u <= t->period_ns * shed_share_pct(w->shed) / 100u;
	}
	if (!run && w->waiting_since_ns &&
	    now - w->waiting_since_ns >= (uint64_t)w->max_defer_us * 1000u) {
		bump(&w->forced);
		run = true;
	}
	if (!run) {
		if (!w->waiting_since_ns)
			w->waiting_since_ns = now;
		bump(&w->deferred);
		s->th[w->thread].shed_now = true;
		return false;
	}
	w->waiting_since_ns = 0;
	w->began_ns = now;
	return true;
}

void sched_work_end(struct sched *s, struct sched_work *w)
{
	if (!s)
		return;
	uint64_t took = clock_mono_ns() - w->began_ns;
	if (took > (uint64_t)w->budget_us * 1000u)
		bump(&w->over_budget);
	if (took > atomic_load_explicit(&w->longest_ns, memory_order_relaxed))
		atomic_store_explicit(&w->longest_ns, took, memory_order_relaxed);
	bump(&w->runs);
}

void sched_set_paced(struct sched *s, enum sched_thread_id id)
{
	s->th[id].paced = true;
}

void sched_pace_signal(struct sched *s, enum sched_thread_id id)
{
	struct sched_thread *t = &s->th[id];
	uint64_t now = clock_mono_ns();
	/*
	 * The oldest event not yet served is what a late loop is judged from: a
	 * newer one does not replace it. One attempt, so the signaller never waits.
	 */
	uint64_t none = 0;
	atomic_compare_exchange_strong_explicit(&t->pace_first_ns, &none, now,
						memory_order_relaxed, memory_order_relaxed);
	atomic_store_explicit(&t->pace_t_ns, now, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->pace_seq, 1, memory_order_release);
	if (!s->lockstep)
		syscall(SYS_futex, &t->pace_seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void release(struct sched *s);

/* Runs the due tasks, each timed: the longest is the one a late loop names. */
static void run_tasks(struct sched_thread *t, uint64_t now_us)
{
	t->task_idx = -1;
	t->task_ns = 0;
	for (uint32_t i = 0; i < t->n_tasks; i++) {
		if (t->wakes % t->task_div[i] != 0)
			continue;
		uint64_t t0 = clock_mono_ns();
		t->tasks[i]->run(t->tasks[i]->ctx, now_us);
		uint64_t d = clock_mono_ns() - t0;
		if (t->task_idx < 0 || d > t->task_ns) {
			t->task_ns = d;
			t->task_idx = (int32_t)i;
		}
	}
	t->wakes++;
}

static void bump(_Atomic uint64_t *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* Raises *c to v: a compare-exchange, as the window's reader zeroes it meanwhile. */
static void raise_to(_Atomic uint64_t *c, uint64_t v)
{
	uint64_t cur = atomic_load_explicit(c, memory_order_relaxed);
	while (v > cur && !atomic_compare_exchange_weak_explicit(c, &cur, v, memory_order_relaxed,
								 memory_order_relaxed))
		;
}

bool sched_stats_add(struct sched *s, enum sched_thread_id id, const struct sched_loop *l)
{
	const struct sched_thread *t = &s->th[id];
	struct sched_stats *st = &s->th[id].stats;
	uint64_t period = t->period_ns;
	uint64_t prev = atomic_load_explicit(&st->last_start_ns, memory_order_relaxed);
	bool first = atomic_load_explicit(&st->loops, memory_order_relaxed) == 0;
	uint64_t iv = !first && l->start_ns > prev ? l->start_ns - prev : 0;
	uint64_t late = l->start_ns > l->intended_ns ? l->start_ns - l->intended_ns : 0;

	if (!s->lockstep)
		hist_add(&st->wake_latency, late);
	hist_add(&st->run_time, l->run_ns);
	bool over_1_5x, over_2x;
	if (s->lockstep) {
		over_1_5x = 2 * l->run_ns > 3 * period;
		over_2x = l->run_ns > 2 * period;
	} else if (t->paced) {
		over_1_5x = !l->timed_out && 2 * late > period;
		over_2x = !l->timed_out && late > period;
	} else {
		over_1_5x = !first && 2 * iv > 3 * period;
		over_2x = !first && iv > 2 * period;
	}
	if (over_1_5x)
		bump(&st->overruns_1_5x);
	if (over_2x)
		bump(&st->overruns_2x);
	if (l->timed_out)
		bump(&st->pace_timeouts);
	if (s->th[id].shed_now) {
		s->th[id].shed_now = false;
		bump(&st->shed_loops);
	}
	if (iv > atomic_load_explicit(&st->longest_interval_ns, memory_order_relaxed))
		atomic_store_explicit(&st->longest_interval_ns, iv, memory_order_relaxed);
	raise_to(&st->win_interval_max_ns, iv);
	if (!s->lockstep)
		raise_to(&st->win_wake_max_ns, late);
	raise_to(&st->win_run_max_ns, l->run_ns);
	if (first)
		atomic_store_explicit(&st->first_start_ns, l->start_ns, memory_order_relaxed);
	atomic_store_explicit(&st->last_start_ns, l->start_ns, memory_order_relaxed);
	if (t->paced && !l->timed_out)
		atomic_store_explicit(&st->last_event_ns, l->intended_ns, memory_order_relaxed);
	/* Last, so that a reader that sees n loops sees their starts too (nearly: relaxed). */
	bump(&st->loops);
	return over_2x;
}

/* ---- late-loop forensics ------------------------------------------------ */

static const char *const cause_names[SCHED_LATE_CAUSES] = {
	[SCHED_LATE_TASK] = "a task ran long",
	[SCHED_LATE_BLOCKED] = "a task slept in a system call",
	[SCHED_LATE_PAGE_FAULT] = "page faults read from storage",
	[SCHED_LATE_PREEMPTED] = "another task held the CPU",
	[SCHED_LATE_KERNEL] = "the kernel woke it late",
};

const char *sched_late_cause_name(enum sched_late_cause c)
{
	return c < SCHED_LATE_CAUSES ? cause_names[c] : "?";
}

static uint32_t us32(uint64_t ns)
{
	uint64_t u = ns / 1000u;
	return u < SCHED_LATE_UNKNOWN ? (uint32_t)u : SCHED_LATE_UNKNOWN - 1u;
}

static uint16_t count16(long d)
{
	return d <= 0 ? 0 : d > UINT16_MAX ? UINT16_MAX : (uint16_t)d;
}

/*
 * Where the interval went: the run inside it against the wait for the start.
 * Page faults that read storage explain either. A run longer than the wait
 * was the CPU's (a task computing), the run queue's (runnable, another task
 * on the CPU) or neither (asleep inside a task: a system call that waited);
 * a longer wait was the run queue's or else the kernel's own (the timer or
 * an interrupt late, an idle state slow to leave). Half the part in question
 * decides; without the scheduler's figures a long run is the task's and a
 * late wake the kernel's.
 */
enum sched_late_cause sched_late_classify(const struct sched_late *l)
{
	if (l->majflt)
		return SCHED_LATE_PAGE_FAULT;
	bool known = l->run_delay_us != SCHED_LATE_UNKNOWN && l->cpu_us != SCHED_LATE_UNKNOWN;
	if (l->run_us >= l->late_us) {
		if (known && 2u * (uint64_t)l->run_delay_us >= l->run_us)
			return SCHED_LATE_PREEMPTED;
		if (known && 2u * (uint64_t)l->cpu_us < l->run_us)
			return SCHED_LATE_BLOCKED;
		return SCHED_LATE_TASK;
	}
	if (known && 2u * (uint64_t)l->run_delay_us >= l->late_us)
		return SCHED_LATE_PREEMPTED;
	return SCHED_LATE_KERNEL;
}

/* Single writer (the thread): counted, and into the ring unless it is full. */
static void late_push(struct sched_thread *t, struct sched_late *r, int32_t task)
{
	if (task >= 0)
		snprintf(r->task, sizeof(r->task), "%s", t->tasks[task]->name);
	r->cause = (uint8_t)sched_late_classify(r);
	bump(&t->late_by_cause[r->cause]);
	if (r->interval_us > atomic_load_explicit(&t->late_longest_us[r->cause], memory_order_relaxed))
		atomic_store_explicit(&t->late_longest_us[r->cause], r->interval_us, memory_order_relaxed);
	if (r->cause == SCHED_LATE_TASK && task >= 0)
		bump(&t->late_by_task[task]);
	uint32_t w = atomic_load_explicit(&t->late_w, memory_order_relaxed);
	if (w - atomic_load_explicit(&t->late_r, memory_order_acquire) >= SCHED_LATE_RING) {
		bump(&t->late_lost);
		return;
	}
	t->late_ring[w % SCHED_LATE_RING] = *r;
	atomic_store_explicit(&t->late_w, w + 1u, memory_order_release);
}

/* The thread's own counters now (two system calls, neither of which blocks). */
static void probe_read(const struct sched_thread *t, struct sched_probe *p)
{
	memset(p, 0, sizeof(*p));
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		p->nvcsw = ru.ru_nvcsw;
		p->nivcsw = ru.ru_nivcsw;
		p->minflt = ru.ru_minflt;
		p->majflt = ru.ru_majflt;
	}
	char buf[96];
	ssize_t n = t->schedstat_fd >= 0 ? pread(t->schedstat_fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n <= 0)
		return;
	buf[n] = '\0';
	/* "<ns on the CPU> <ns runnable, waiting for it> <timeslices>" */
	char *end;
	p->cpu_ns = strtoull(buf, &end, 10);
	if (end != buf) {
		char *end2;
		p->run_delay_ns = strtoull(end, &end2, 10);
		p->known = end2 != end;
	}
}

static void schedstat_open(struct sched_thread *t)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%ld/schedstat", (long)syscall(SYS_gettid));
	t->schedstat_fd = open(path, O_RDONLY | O_CLOEXEC);
}

/*
 * Real time, an interval over 2x: from the previous start to this one, the
 * previous loop's run (for a paced thread, its part after the event) and the
 * wait for this start, with the counters' change over it.
 */
static void late_realtime(struct sched_thread *t, const struct sched_loop *l, uint64_t iv,
			  const struct sched_probe *p, uint64_t prev_end, uint64_t prev_run,
			  uint64_t prev_task_ns, int32_t prev_task)
{
	struct sched_late r = { .start_ns = l->start_ns, .period_us = us32(t->period_ns),
				.thread = (uint8_t)t->id, .task_us = us32(prev_task_ns) };
	uint64_t from = l->intended_ns;
	if (t->paced) {
		r.interval_us = us32(l->start_ns - l->intended_ns);
		r.run_us = us32(prev_end > l->intended_ns ? prev_end - l->intended_ns : 0);
		if (prev_end > from)
			from = prev_end;
	} else {
		r.interval_us = us32(iv);
		r.run_us = us32(prev_run);
	}
	r.late_us = us32(l->start_ns > from ? l->start_ns - from : 0);
	const struct sched_probe *a = &t->probe;
	r.nvcsw = count16(p->nvcsw - a->nvcsw);
	r.nivcsw = count16(p->nivcsw - a->nivcsw);
	r.minflt = count16(p->minflt - a->minflt);
	r.majflt = count16(p->majflt - a->majflt);
	bool known = p->known && a->known;
	r.cpu_us = known ? us32(p->cpu_ns - a->cpu_ns) : SCHED_LATE_UNKNOWN;
	r.run_delay_us = known ? us32(p->run_delay_ns - a->run_delay_ns) : SCHED_LATE_UNKNOWN;
	late_push(t, &r, prev_task);
}

/* Lock-step, a run over 2x: its longest task is where the time went. */
static void late_lockstep(struct sched_thread *t, const struct sched_loop *l)
{
	struct sched_late r = { .start_ns = l->start_ns, .period_us = us32(t->period_ns),
				.interval_us = us32(l->run_ns), .run_us = us32(l->run_ns),
				.task_us = us32(t->task_ns), .thread = (uint8_t)t->id,
				.cpu_us = SCHED_LATE_UNKNOWN, .run_delay_us = SCHED_LATE_UNKNOWN };
	late_push(t, &r, t->task_idx);
}

bool sched_late_take(struct sched *s, struct sched_late *out)
{
	struct sched_thread *best = NULL;
	uint32_t best_r = 0;
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++) {
		struct sched_thread *t = &s->th[i];
		uint32_t r = atomic_load_explicit(&t->late_r, memory_order_relaxed);
		if (r == atomic_load_explicit(&t->late_w, memory_order_acquire))
			continue;
		if (!best || t->late_ring[r % SCHED_LATE_RING].start_ns <
			     best->late_ring[best_r % SCHED_LATE_RING].start_ns) {
			best = t;
			best_r = r;
		}
	}
	if (!best)
		return false;
	*out = best->late_ring[best_r % SCHED_LATE_RING];
	atomic_store_explicit(&best->late_r, best_r + 1u, memory_order_release);
	return true;
}

static double ms(uint32_t us)
{
	return (double)us * 1e-3;
}

void sched_late_describe(const struct sched_late *l, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s: %.1f ms (period %.1f ms): %s; run %.1f ms", 
			 sched_thread_name((enum sched_thread_id)l->thread), ms(l->interval_us),
			 ms(l->period_us), sched_late_cause_name((enum sched_late_cause)l->cause),
			 ms(l->run_us));
	if (l->task[0] && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " (longest task %s, %.1f ms)", l->task,
			      ms(l->task_us));
	if (n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", woken %.1f ms late; switches %u "
			      "involuntary, %u voluntary; page faults %u major, %u minor",
			      ms(l->late_us), l->nivcsw, l->nvcsw, l->majflt, l->minflt);
	if (l->cpu_us != SCHED_LATE_UNKNOWN && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "; %.1f ms on the CPU, %.1f ms runnable waiting "
			 "for it", ms(l->cpu_us), ms(l->run_delay_us));
}

/*
 * A paced thread: wait for the futex word to move past seen, or until the
 * absolute deadline. Returns true when an event came.
 */
static bool wait_pace(struct sched_thread *t, uint32_t *seen, uint64_t deadline_ns)
{
	for (;;) {
		uint32_t seq = atomic_load_explicit(&t->pace_seq, memory_order_acquire);
		if (seq != *seen) {
			*seen = seq;
			return true;
		}
		if (clock_mono_ns() >= deadline_ns || atomic_load(&t->owner->stop))
			return false;
		struct timespec ts = {
			.tv_sec = (time_t)(deadline_ns / 1000000000u),
			.tv_nsec = (long)(deadline_ns % 1000000000u),
		};
		/* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline. */
		syscall(SYS_futex, &t->pace_seq, FUTEX_WAIT_BITSET_PRIVATE, seq, &ts, NULL,
			FUTEX_BITSET_MATCH_ANY);
	}
}

static void *thread_main(void *arg)
{
	struct sched_thread *t = arg;
	struct sched *s = t->owner;
	struct sched_stats *st = &t->stats;
	/*
	 * Timer slack: the kernel may fire a normal thread's timers up to 50 us
	 * late by default, to batch wake-ups; a SCHED_FIFO thread has none. Where
	 * SCHED_FIFO was refused, 1 ns, so the sleeps still end on time.
	 */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);

	/* Wait for the go: all threads start on one instant, or leave if start failed. */
	while (atomic_load_explicit(&s->go, memory_order_acquire) == 0)
		syscall(SYS_futex, &s->go, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	uint64_t next = s->t0_ns + t->phase_ns;
	uint64_t prev_start = 0, prev_end = 0;
	uint32_t pace_seen = atomic_load(&t->pace_seq);
	schedstat_open(t);
	probe_read(t, &t->probe);

	while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		struct sched_loop l = { 0 };
		if (t->paced) {
			/* Two missed events in a row: run anyway so failsafes still get a turn. */
			uint64_t deadline = (prev_start ? prev_start : next) + 2 * t->period_ns;
			bool got = wait_pace(t, &pace_seen, deadline);
			if (atomic_load_explicit(&s->stop, memory_order_relaxed))
				break;
			l.timed_out = !got;
			l.intended_ns = deadline;
			if (got) {
				/*
				 * A signal that came as the previous one was being taken
				 * left no time of its own: judged from the latest signal.
				 */
				uint64_t first = atomic_exchange_explicit(&t->pace_first_ns, 0,
									  memory_order_relaxed);
				l.intended_ns = first ? first
					      : atomic_load_explicit(&t->pace_t_ns, memory_order_relaxed);
			}
		} else {
			clock_sleep_until_ns(next);
			l.intended_ns = next;
		}
		uint64_t start = clock_mono_ns();
		struct sched_probe probe;
		probe_read(t, &probe);
		uint64_t iv = prev_start ? start - prev_start : 0;
		uint64_t prev_run = t->run_ns, prev_task_ns = t->task_ns;
		int32_t prev_task = t->task_idx;
		prev_start = start;
		t->loop_start_ns = start;

		run_tasks(t, start / 1000);

		uint64_t end = clock_mono_ns();
		l.start_ns = start;
		l.run_ns = end - start;
		/* Over 2x is judged on the start alone in real time (sched_stats). */
		if (sched_stats_add(s, t->id, &l))
			late_realtime(t, &l, iv, &probe, prev_end, prev_run, prev_task_ns, prev_task);
		t->probe = probe;
		t->run_ns = l.run_ns;
		prev_end = end;
		if (t->paced)
			continue;

		/* Drift-free: the next start is a whole period on; late loops skip to stay in phase. */
		next += t->period_ns;
		if (next <= end) {
			uint64_t behind = (end - next) / t->period_ns + 1;
			atomic_store_explicit(&st->skipped,
					      atomic_load_explicit(&st->skipped, memory_order_relaxed) + behind,
					      memory_order_relaxed);
			next += behind * t->period_ns;
		}
	}
	if (t->schedstat_fd >= 0)
		close(t->schedstat_fd);
	t->schedstat_fd = -1;
	return NULL;
}

static int create_thread(struct sched *s, struct sched_thread *t, bool fifo)
{
	pthread_attr_t attr;
	int rc = pthread_attr_init(&attr);
	if (rc)
		return -rc;
	rc = pthread_attr_setstacksize(&attr, SCHED_STACK_BYTES);
	if (!rc && fifo) {
		struct sched_param sp = { .sched_priority = t->priority };
		rc = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		if (!rc)
			rc = pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		if (!rc)
			rc = pthread_attr_setschedparam(&attr, &sp);
	}
	int cpu = s->cfg.thread[t->id].cpu;
	if (!rc && cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET((size_t)cpu, &set);
		rc = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	if (!rc)
		rc = pthread_create(&t->pthread, &attr, thread_main, t);
	pthread_attr_destroy(&attr);
	if (rc)
		return -rc;
	t->started = true;
	/* Thread names are at most 15 characters; ours are short. */
	pthread_setname_np(t->pthread, sched_thread_name(t->id));
	return 0;
}

/*
 * Whether locking all memory can work: without CAP_IPC_LOCK a finite
 * RLIMIT_MEMLOCK would let mlockall(MCL_FUTURE) succeed now and make every
 * later mapping past the limit fail, thread stacks first.
 */
static bool can_lock_all(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY)
		return true;
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return false;
	char line[256];
	unsigned long long caps = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps & (1ull << 14);  /* CAP_IPC_LOCK */
}

int sched_start(struct sched *s)
{
	if (s->cfg.lock_memory) {
		if (!can_lock_all())
			log_warn("memory not locked (needs CAP_IPC_LOCK or LimitMEMLOCK=infinity): "
				 "page faults may delay the loops");
		else if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
			s->memory_locked = true;
		else
			log_warn("cannot lock memory (%s): page faults may delay the loops",
				 strerror(errno));
	}
	int rc;
	s->fifo = s->cfg.realtime;
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++) {
		struct sched_thread *t = &s->th[i];
		rc = create_thread(s, t, s->fifo);
		if (rc == -EPERM && s->fifo) {
			log_warn("no permission for SCHED_FIFO (needs CAP_SYS_NICE or "
				 "LimitRTPRIO=%d): running with normal scheduling", s->cfg.priority_max);
			s->fifo = false;
			for (int j = SCHED_TIMER; j < i; j++)
				pthread_setschedparam(s->th[j].pthread, SCHED_OTHER,
						      &(struct sched_param){ .sched_priority = 0 });
			rc = create_thread(s, t, false);
		}
		if (rc) {
			int cpu = s->cfg.thread[i].cpu;
			if (cpu >= 0)
				log_err("cannot start thread %s on CPU %d: %s", sched_thread_name(t->id),
					cpu, strerror(-rc));
			else
				log_err("cannot start thread %s: %s", sched_thread_name(t->id),
					strerror(-rc));
			goto err_join;
		}
	}
	if (!s->fifo)
		for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++)
			s->th[i].priority = 0;
	/* Everyone starts on the same instant, a millisecond from now. */
	s->t0_ns = clock_mono_ns() + 1000000;
	release(s);
	return 0;

err_join:
	sched_stop(s);
	return rc;
}

/* Lets the threads past their start gate (into their loops, or out if stop is set). */
static void release(struct sched *s)
{
	atomic_store_explicit(&s->go, 1, memory_order_release);
	syscall(SYS_futex, &s->go, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void sched_stop(struct sched *s)
{
	atomic_store(&s->stop, true);
	release(s);
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++) {
		struct sched_thread *t = &s->th[i];
		if (!t->started)
			continue;
		/* A paced thread may be asleep on its event: wake it to see stop. */
		atomic_fetch_add(&t->pace_seq, 1);
		syscall(SYS_futex, &t->pace_seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		pthread_join(t->pthread, NULL);
		t->started = false;
	}
}

uint64_t sched_loops(const struct sched *s, enum sched_thread_id id)
{
	return atomic_load_explicit(&s->th[id].stats.loops, memory_order_relaxed);
}

const struct sched_stats *sched_stats(const struct sched *s, enum sched_thread_id id)
{
	return &s->th[id].stats;
}

static uint64_t get(const _Atomic uint64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

void sched_figures_read(const struct sched *s, enum sched_thread_id id, struct sched_figures *f)
{
	const struct sched_stats *st = &s->th[id].stats;
	/* The loop count first: the sums read after it cover at least those loops. */
	f->loops = get(&st->loops);
	f->overruns_1_5x = get(&st->overruns_1_5x);
	f->overruns_2x = get(&st->overruns_2x);
	f->skipped = get(&st->skipped);
	f->pace_timeouts = get(&st->pace_timeouts);
	f->run_sum_ns = get(&st->run_time.sum_ns);
	f->run_max_ns = hist_max(&st->run_time);
	f->first_start_ns = get(&st->first_start_ns);
	f->last_start_ns = get(&st->last_start_ns);
	f->last_event_ns = get(&st->last_event_ns);
	f->shed_loops = get(&st->shed_loops);
}

void sched_window_take(struct sched *s, enum sched_thread_id id, struct sched_window *w)
{
	struct sched_stats *st = &s->th[id].stats;
	w->interval_max_ns = atomic_exchange_explicit(&st->win_interval_max_ns, 0, memory_order_relaxed);
	w->wake_max_ns = atomic_exchange_explicit(&st->win_wake_max_ns, 0, memory_order_relaxed);
	w->run_max_ns = atomic_exchange_explicit(&st->win_run_max_ns, 0, memory_order_relaxed);
}

uint32_t sched_load_permille(const struct sched *s, enum sched_thread_id id,
			     const struct sched_figures *from, const struct sched_figures *to)
{
	uint64_t loops = to->loops - (from ? from->loops : 0);
	uint64_t run_ns = to->run_sum_ns - (from ? from->run_sum_ns : 0);
	uint64_t period_ns = s->th[id].period_ns;
	if (!loops || !period_ns)
		return 0;
	uint64_t permille = run_ns * 1000u / (loops * period_ns);
	return permille > UINT32_MAX ? UINT32_MAX : (uint32_t)permille;
}

double sched_rate_hz(const struct sched_figures *from, const struct sched_figures *to,
		     double *span_s)
{
	/* Since the first loop: the intervals between the starts, one fewer than the loops. */
	uint64_t t0 = from ? from->last_start_ns : to->first_start_ns;
	uint64_t n = from ? to->loops - from->loops : to->loops ? to->loops - 1 : 0;
	uint64_t span = to->last_start_ns > t0 ? to->last_start_ns - t0 : 0;
	*span_s = (double)span * 1e-9;
	return n && span ? (double)n / *span_s : 0.0;
}

/*
 * Lock-step. Each thread's next wake is on a virtual timeline; the earliest
 * runs first, ties go to the higher priority (then the lower id), so the order
 * is fixed by the configuration alone. A paced thread runs when signalled,
 * at the virtual time of the signal, or after two periods without one.
 */
int sched_lockstep_run_until(struct sched *s, uint64_t t_us)
{
	if (!s->lockstep) {
		s->lockstep = true;
		for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++) {
			s->th[i].next_vt_us = s->vt_us;
			s->th[i].pace_seen = atomic_load(&s->th[i].pace_seq);
		}
	} else if (t_us < s->vt_us) {
		return -EINVAL;
	}
	/*
	 * A signal already waiting came with what the caller took before this
	 * call: the leader's sample, stamped t_us. The thread runs at that
	 * time, and its time-out counts from it. Run at the last call's time
	 * instead, the loop's clock lagged its data by a sample, and samples
	 * two periods apart or more (HIL_SENSOR at 200 Hz and below) brought a
	 * time-out loop besides at each sample's time, with no time passed and
	 * no new sample (docs/design.md). A signal a task raises on the way
	 * (below) is at that task's time.
	 */
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++) {
		struct sched_thread *t = &s->th[i];
		uint32_t seq = atomic_load_explicit(&t->pace_seq, memory_order_acquire);
		if (t->paced && seq != t->pace_seen) {
			t->pace_seen = seq;
			t->pace_due = true;
			t->next_vt_us = t_us;
		}
	}
	for (;;) {
		struct sched_thread *best = NULL;
		for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++) {
			struct sched_thread *t = &s->th[i];
			if (t->paced) {
				uint32_t seq = atomic_load_explicit(&t->pace_seq, memory_order_acquire);
				if (seq != t->pace_seen) {
					t->pace_seen = seq;
					t->pace_due = true;
					if (t->next_vt_us > s->vt_us)
						t->next_vt_us = s->vt_us;
				}
			}
			if (t->next_vt_us > t_us)
				continue;
			if (!best || t->next_vt_us < best->next_vt_us ||
			    (t->next_vt_us == best->next_vt_us && t->priority > best->priority))
				best = t;
		}
		if (!best)
			break;
		s->vt_us = best->next_vt_us;
		/* The first run of a paced thread is due from the start, like any other. */
		struct sched_loop l = { .intended_ns = s->vt_us * 1000u, .start_ns = s->vt_us * 1000u,
					.timed_out = best->paced && !best->pace_due &&
						     atomic_load_explicit(&best->stats.loops,
									  memory_order_relaxed) > 0 };
		best->pace_due = false;
		uint64_t w0 = clock_mono_ns();
		run_tasks(best, s->vt_us);
		l.run_ns = clock_mono_ns() - w0;
		if (sched_stats_add(s, best->id, &l))
			late_lockstep(best, &l);
		uint64_t period_us = best->period_ns / 1000;
		best->next_vt_us = s->vt_us + (best->paced ? 2 * period_us : period_us);
		if (period_us == 0)
			best->next_vt_us = s->vt_us + 1;
	}
	s->vt_us = t_us;
	return 0;
}

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

/* Appends to buf at *n (NUL-terminated, cut to len); keeps *n at len once full. */
static void put(char *buf, size_t len, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	if (*n >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	*n = w < 0 ? len : *n + (size_t)w;
}

/* What a paced thread's line cannot say: what it was judged against, and whether its events come. */
static void report_pacing(const struct sched *s, const struct sched_thread *t,
			  const struct sched_figures *f, char *buf, size_t len, size_t *n)
{
	const char *name = sched_thread_name(t->id);
	if (s->lockstep) {
		put(buf, len, n, "%s: paced by events on the simulator's clock; %llu loops ran on "
		    "the time-out (no event for 2 periods)\n", name,
		    (unsigned long long)f->pace_timeouts);
		return;
	}
	if (!f->loops)
		return;
	uint64_t last_ev = f->last_event_ns;
	/* Missing when its latest loops were time-outs: no event for two periods before them. */
	if (last_ev + 2 * t->period_ns <= f->last_start_ns) {
		uint64_t since = last_ev ? last_ev : f->first_start_ns;
		put(buf, len, n, "%s: paced, but no pacing event %s for %.1f s: waiting on its "
		    "time-out (%llu loops), not overrunning\n", name,
		    last_ev ? "came" : "has come", (double)(f->last_start_ns - since) * 1e-9,
		    (unsigned long long)f->pace_timeouts);
		return;
	}
	put(buf, len, n, "%s: paced: judged from its pacing events (>1.5x, >2x: started over half "
	    "a period, a period after the event it served); %llu loops ran on the time-out\n",
	    name, (unsigned long long)f->pace_timeouts);
}

/* A thread's loops over 2x by cause (and, for a task that ran long, by task): one line. */
static void report_late(const struct sched_thread *t, char *buf, size_t len, size_t *n)
{
	uint64_t by[SCHED_LATE_CAUSES], total = 0;
	for (int c = 0; c < SCHED_LATE_CAUSES; c++)
		total += by[c] = get(&t->late_by_cause[c]);
	if (!total)
		return;
	put(buf, len, n, "%s: %llu loops over 2x, where the time went:", sched_thread_name(t->id),
	    (unsigned long long)total);
	const char *sep = " ";
	for (int c = 0; c < SCHED_LATE_CAUSES; c++) {
		if (!by[c])
			continue;
		put(buf, len, n, "%s%s %llu (longest %.1f ms", sep,
		    sched_late_cause_name((enum sched_late_cause)c), (unsigned long long)by[c],
		    (double)get(&t->late_longest_us[c]) * 1e-3);
		if (c == SCHED_LATE_TASK)
			for (uint32_t k = 0; k < t->n_tasks; k++) {
				uint64_t m = get(&t->late_by_task[k]);
				if (m)
					put(buf, len, n, "; %s %llu", t->tasks[k]->name, (unsigned long long)m);
			}
		put(buf, len, n, ")");
		sep = ", ";
	}
	uint64_t lost = get(&t->late_lost);
	if (lost)
		put(buf, len, n, "; %llu of them not in the flight log's LATE records (not taken in time)",
		    (unsigned long long)lost);
	put(buf, len, n, "\n");
}

void sched_report(const struct sched *s, char *buf, size_t len)
{
	size_t n = 0;
	if (len)
		buf[0] = '\0';
	put(buf, len, &n, "%-6s %5s %4s %9s | %-35s | %-24s | %6s %6s %9s %7s %7s\n",
	    "thread", "Hz", "prio", "loops", "wake-up latency us p50 p99 p99.9 max",
	    "run time us p50 p99 max", ">1.5x", ">2x", "longest", "skipped", "load");
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++) {
		const struct sched_thread *t = &s->th[i];
		const struct sched_stats *st = &t->stats;
		const struct hist *wl = &st->wake_latency, *rt = &st->run_time;
		struct sched_figures f;
		sched_figures_read(s, t->id, &f);
		uint32_t load = sched_load_permille(s, t->id, NULL, &f);
		char skipped[24];
		/* A paced thread has no periods of its own to skip. */
		if (t->paced || s->lockstep)
			snprintf(skipped, sizeof(skipped), "-");
		else
			snprintf(skipped, sizeof(skipped), "%llu", (unsigned long long)f.skipped);
		put(buf, len, &n,
		    "%-6s %5u %4d %9llu | %8.1f %8.1f %8.1f %8.1f | %7.1f %7.1f %8.1f |"
		    " %6llu %6llu %9.1f %7s %4u.%u%%%s\n",
		    sched_thread_name(t->id), s->cfg.thread[i].rate_hz, t->priority,
		    (unsigned long long)f.loops,
		    us(hist_quantile(wl, 0.5)), us(hist_quantile(wl, 0.99)),
		    us(hist_quantile(wl, 0.999)), us(hist_max(wl)),
		    us(hist_quantile(rt, 0.5)), us(hist_quantile(rt, 0.99)), us(f.run_max_ns),
		    (unsigned long long)f.overruns_1_5x, (unsigned long long)f.overruns_2x,
		    us(atomic_load_explicit(&st->longest_interval_ns, memory_order_relaxed)),
		    skipped, load / 10u, load % 10u, t->paced ? " paced" : "");
	}
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++)
		if (s->th[i].paced) {
			struct sched_figures f;
			sched_figures_read(s, (enum sched_thread_id)i, &f);
			report_pacing(s, &s->th[i], &f, buf, len, &n);
		}
	for (uint32_t i = 0; i < s->n_work; i++) {
		const struct sched_work *w = s->work[i];
		struct sched_figures f;
		sched_figures_read(s, w->thread, &f);
		put(buf, len, &n, "%s: optional %s (shed %s, budget %u us, waits at most %u ms): "
		    "ran %llu times (%llu forced after waiting, %llu over budget, longest %.1f us), "
		    "deferred in %llu loops; the thread shed work in %llu loops\n",
		    sched_thread_name(w->thread), w->name,
		    w->shed == SCHED_SHED_FIRST ? "first" : "last", w->budget_us,
		    w->max_defer_us / 1000u, (unsigned long long)get(&w->runs),
		    (unsigned long long)get(&w->forced), (unsigned long long)get(&w->over_budget),
		    us(get(&w->longest_ns)), (unsigned long long)get(&w->deferred),
		    (unsigned long long)f.shed_loops);
	}
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++)
		report_late(&s->th[i], buf, len, &n);
	if (s->lockstep)
		put(buf, len, &n, "lock-step: every loop starts on its instant of the simulator's "
		    "clock, so none is late and no wake-up latency is measured; >1.5x and >2x count "
		    "loops whose run time took over 1.5 and 2 of the simulated period they stand "
		    "for; longest is on the simulator's clock; load is the mean run time against "
		    "the period; optional work always runs\n");
}
