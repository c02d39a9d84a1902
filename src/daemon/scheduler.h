/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The six threads and the tasks they run.
 *
 * Tasks (a function and a rate) are registered on a thread before start. In
 * real time each thread wakes on an absolute, drift-free period (or, when
 * paced, on an event such as "an IMU sample is ready") and runs its due tasks;
 * threads are SCHED_FIFO with rate-monotonic priorities unless configured
 * otherwise. In lock-step, nothing sleeps: the caller (the HIL link) advances
 * a virtual clock and every due task runs on the caller's thread in a fixed
 * order, so the same inputs give the same outputs.
 *
 * Timing is measured all the time, per thread, by the thread itself (single
 * writer); any thread may read the statistics.
 */
#ifndef FULMAR_DAEMON_SCHED_H
#define FULMAR_DAEMON_SCHED_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fulmar/task.h"
#include "util/hist.h"

#define SCHED_MAX_TASKS 32
#define SCHED_MAX_TASKS_PER_THREAD 16
#define SCHED_MAX_WORK 8
#define SCHED_LATE_RING 16      /* late-loop records a thread holds for the reader */
#define SCHED_TASK_NAME 16      /* a task's name as a late-loop record keeps it */

struct sched_thread_cfg {
	uint32_t rate_hz;   /* wake rate; for a paced thread, the expected rate */
	int priority;       /* SCHED_FIFO 1..99; 0: rate-monotonic from priority_max */
	int cpu;            /* CPU to pin to; -1: any */
};

struct sched_cfg {
	struct sched_thread_cfg thread[SCHED_THREAD_COUNT];  /* index 0 unused */
	bool realtime;      /* ask for SCHED_FIFO (falls back, saying so once) */
	bool lock_memory;   /* mlockall */
	int priority_max;   /* the fastest thread's priority when priorities are automatic */
	int cpu_dma_latency_us;  /* PM QoS held while running (daemon/pm_qos.h); -1: leave it */
};

/*
 * Overload shedding, in real time. A thread's work is its core, which runs in
 * every loop, and optional work, each piece with a class, a budget and how
 * long it may wait. A task asks sched_work_begin before a piece: it runs when
 * the loop so far and its budget fit the class's share of the period, and is
 * deferred when they do not, to be asked again in the next loop; once it has
 * waited max_defer_us it runs anyway, so nothing starves. Streams and logging
 * shed first, navigation only when the loop is nearly full; the flying core
 * (sensors in, estimator, attitude control, outputs) is never optional. In
 * lock-step every piece runs: no deadline is real there, and the same inputs
 * must give the same outputs.
 */
enum sched_shed {
	SCHED_SHED_FIRST = 1,   /* runs while the loop is within 60 % of its period */
	SCHED_SHED_LAST,        /* ... within 90 %: the last resort */
};

struct sched_work {
	const char *name;
	enum sched_thread_id thread;
	enum sched_shed shed;
	uint32_t budget_us;         /* what one run may take */
	uint32_t max_defer_us;      /* the longest it may wait */
	/* Kept by the scheduler, written by the thread that runs the piece. */
	_Atomic uint64_t runs;
	_Atomic uint64_t deferred;  /* loops it was asked in and waited */
	_Atomic uint64_t forced;    /* runs after waiting max_defer_us, loop time or not */
	_Atomic uint64_t over_budget;  /* runs that took longer than budget_us */
	_Atomic uint64_t longest_ns;
	uint64_t waiting_since_ns;  /* 0: not waiting */
	uint64_t began_ns;
};

/*
 * Per-thread timing; written by that thread only (in lock-step, by the caller
 * of sched_lockstep_run_until). What an overrun is depends on how the thread
 * is driven:
 * - periodic, real time: a start-to-start interval over 1.5 (2) periods;
 * - paced, real time: a start over half a period (a period) after the pacing
 *   event it serves. A loop that ran on its time-out served no event and is
 *   never an overrun: it was waiting, not late. Samples that come late make
 *   no overrun either, since the loop is judged from when they came;
 * - lock-step: nothing starts late on the simulator's clock, so it counts
 *   loops whose run time exceeded 1.5 (2) of the period they stand for.
 */
struct sched_stats {
	struct hist wake_latency;      /* ns from the intended start to the actual start (real time) */
	struct hist run_time;          /* ns from start to the end of the tasks (wall clock) */
	_Atomic uint64_t loops;
	_Atomic uint64_t overruns_1_5x;  /* over 1.5 periods, as above */
	_Atomic uint64_t overruns_2x;    /* ... over 2 periods */
	_Atomic uint64_t longest_interval_ns;  /* start to start, on the thread's clock */
	_Atomic uint64_t skipped;        /* periodic: periods skipped to stay in phase after an overrun */
	_Atomic uint64_t pace_timeouts;  /* paced thread ran on its time-out: no event came */
	_Atomic uint64_t first_start_ns; /* the first loop's start on the thread's clock (0: none yet) */
	_Atomic uint64_t last_start_ns;  /* the latest loop's start on the thread's clock */
	_Atomic uint64_t last_event_ns;  /* paced: when the latest event it served came; 0: none yet */
	_Atomic uint64_t shed_loops;     /* loops in which optional work was deferred */
	/* The worst of each since the last sched_window_take (0: none since). */
	_Atomic uint64_t win_interval_max_ns;  /* start to start */
	_Atomic uint64_t win_wake_max_ns;      /* wake-up latency (real time) */
	_Atomic uint64_t win_run_max_ns;       /* run time */
};

/*
 * How a loop went, on the thread's clock (CLOCK_MONOTONIC in real time, the
 * virtual clock in ns in lock-step), for sched_stats_add.
 */
struct sched_loop {
	uint64_t intended_ns;  /* real time: its deadline, or the time of the pacing event it serves */
	uint64_t start_ns;     /* when its tasks began */
	uint64_t run_ns;       /* how long they ran (wall clock, in lock-step too) */
	bool timed_out;        /* paced: no event came, it ran on its time-out */
};

/* Cumulative figures of one thread at one moment (sched_figures_read). */
struct sched_figures {
	uint64_t loops;
	uint64_t overruns_1_5x;
	uint64_t overruns_2x;
	uint64_t skipped;
	uint64_t pace_timeouts;
	uint64_t run_sum_ns;           /* the run times added up */
	uint64_t run_max_ns;           /* the longest run so far */
	uint64_t first_start_ns;       /* as in sched_stats */
	uint64_t last_start_ns;
	uint64_t last_event_ns;
	uint64_t shed_loops;
};

/*
 * Late-loop forensics: for every loop counted over 2x (sched_stats), where the
 * time went. In real time each thread reads its own counters at every loop's
 * start (getrusage RUSAGE_THREAD and its /proc schedstat: two system calls a
 * loop, 1.2-1.3 us together on this 2-core x86 VM, loaded 3 (2026-12-07),
 * not measured on an ARM board) and judges a late start from their change
 * since the previous start, with the previous loop's run time and its longest
 * task. In lock-step only a loop's run time can be late, and its longest task
 * says where the time went. fulmard's threads share no lock: they meet in
 * lock-free topics and rings, so a loop that slept inside a task waited on
 * the kernel (a read, a write, a device), never on another thread of ours.
 */
enum sched_late_cause {
	SCHED_LATE_TASK,        /* a task computed for longer than the period: task names it */
	SCHED_LATE_BLOCKED,     /* the loop slept inside a task: a system call waited (disk, device) */
	SCHED_LATE_PAGE_FAULT,  /* major page faults: it waited for pages to be read in */
	SCHED_LATE_PREEMPTED,   /* runnable, but another task held the CPU (a higher priority, an IRQ thread) */
	SCHED_LATE_KERNEL,      /* woken late, not for want of the CPU: timer or interrupt latency, a deep idle state */
	SCHED_LATE_CAUSES
};

/* One late loop (SCHED_LATE_UNKNOWN: a figure the kernel did not give). */
#define SCHED_LATE_UNKNOWN UINT32_MAX
struct sched_late {
	uint64_t start_ns;        /* the late loop's start, on the thread's clock */
	uint32_t period_us;
	uint32_t interval_us;     /* what was judged: periodic, start to start; paced, event to start;
	                           * lock-step, the loop's run */
	uint32_t late_us;         /* its wake-up latency (0 in lock-step) */
	uint32_t run_us;          /* the run in the interval: the loop before (real time), this one (lock-step) */
	uint32_t task_us;         /* that run's longest task */
	uint32_t run_delay_us;    /* over the interval: runnable but not running (schedstat) */
	uint32_t cpu_us;          /* over the interval: on the CPU (schedstat) */
	uint16_t nvcsw, nivcsw;   /* over the interval: voluntary and involuntary context switches */
	uint16_t minflt, majflt;  /* over the interval: minor and major page faults */
	uint8_t thread;           /* enum sched_thread_id */
	uint8_t cause;            /* enum sched_late_cause */
	char task[SCHED_TASK_NAME];  /* the longest task's name ("" none) */
};

/* A thread's own counters at a loop's start (real time). */
struct sched_probe {
	uint64_t cpu_ns, run_delay_ns;   /* schedstat; both 0 and known false without it */
	long nvcsw, nivcsw, minflt, majflt;
	bool known;
};

struct sched_thread {
	enum sched_thread_id id;
	uint64_t period_ns;
	uint64_t phase_ns;             /* first wake this long after the common start */
	int priority;                  /* as applied (0 when not SCHED_FIFO) */
	bool paced;
	_Atomic uint32_t pace_seq;     /* futex word: bumped by sched_pace_signal */
	_Atomic uint64_t pace_t_ns;    /* when the last event was signalled */
	_Atomic uint64_t pace_first_ns;  /* when the oldest event not yet served was signalled; 0: none */
	uint32_t n_tasks;
	uint32_t task_div[SCHED_MAX_TASKS_PER_THREAD];
	const struct sched_task *tasks[SCHED_MAX_TASKS_PER_THREAD];
	uint64_t wakes;                /* counts wakes to divide task rates */
	uint64_t next_vt_us;           /* lock-step: the virtual time of the next wake */
	uint32_t pace_seen;            /* lock-step: the last pace_seq acted on */
	bool pace_due;                 /* lock-step: an event came that the next run serves */
	uint64_t loop_start_ns;        /* real time: when this loop's tasks began */
	bool shed_now;                 /* optional work was deferred in this loop */
	/* Late-loop forensics, written by the thread (struct sched_late). */
	int schedstat_fd;              /* its /proc schedstat; -1: none */
	struct sched_probe probe;      /* at the latest loop's start */
	uint64_t run_ns;               /* the latest loop's run */
	uint64_t task_ns;              /* ... its longest task's */
	int32_t task_idx;              /* ... which (-1: none ran) */
	struct sched_late late_ring[SCHED_LATE_RING];  /* SPSC: the thread writes, sched_late_take reads */
	_Atomic uint32_t late_w, late_r;
	_Atomic uint64_t late_lost;    /* records the reader had not taken when the ring was full */
	_Atomic uint64_t late_by_cause[SCHED_LATE_CAUSES];
	_Atomic uint64_t late_longest_us[SCHED_LATE_CAUSES];  /* each cause's longest interval */
	_Atomic uint64_t late_by_task[SCHED_MAX_TASKS_PER_THREAD];  /* SCHED_LATE_TASK, by task */
	pthread_t pthread;
	bool started;
	struct sched *owner;
	struct sched_stats stats;
};

struct sched {
	struct sched_cfg cfg;
	struct sched_task tasks[SCHED_MAX_TASKS];
	uint32_t n_tasks;
	struct sched_work *work[SCHED_MAX_WORK];
	uint32_t n_work;
	struct sched_thread th[SCHED_THREAD_COUNT];
	_Atomic bool stop;
	bool fifo;                     /* SCHED_FIFO was granted */
	bool memory_locked;
	bool lockstep;
	uint64_t vt_us;                /* lock-step: virtual time reached */
	_Atomic uint32_t go;           /* futex word: threads wait on it before their first loop */
	uint64_t t0_ns;                /* the instant every thread starts on */
};

/* Defaults: timer 1 kHz, main at main_rate_hz, rcin 200, uart 100, tone 100, io 50 Hz; automatic priorities. */
void sched_cfg_defaults(struct sched_cfg *cfg, uint32_t main_rate_hz);
const char *sched_thread_name(enum sched_thread_id id);
/* Returns the id for a name ("timer", "main", ...) or 0. */
enum sched_thread_id sched_thread_by_name(const char *name);

/* Returns 0 or -EINVAL (a rate of 0, a priority out of 1..99, a thread faster than 1 MHz). */
int sched_init(struct sched *s, const struct sched_cfg *cfg);
/*
 * Before start. The task is copied. Returns 0, -ENOSPC when a table is full or
 * -EINVAL when its rate is 0-less-than-thread or does not divide into whole wakes.
 */
int sched_add_task(struct sched *s, const struct sched_task *task);
/* Before start: thread id wakes on sched_pace_signal (or after 2 periods without one). */
void sched_set_paced(struct sched *s, enum sched_thread_id id);
/* Any thread, wait-free: wakes a paced thread. */
void sched_pace_signal(struct sched *s, enum sched_thread_id id);

/* Before start: optional work, for the timing report. Returns 0, -ENOSPC or -EINVAL. */
int sched_add_work(struct sched *s, struct sched_work *w);
/*
 * On w's thread, in one of its tasks: true when w may run now, to be followed
 * by sched_work_end; false when it is deferred (counted). s may be NULL (code
 * run without a scheduler, in tests): it always runs.
 */
bool sched_work_begin(struct sched *s, struct sched_work *w);
void sched_work_end(struct sched *s, struct sched_work *w);

/*
 * Real time: locks memory and starts the six threads (SCHED_FIFO where
 * permitted; otherwise it says so once and goes on with normal scheduling).
 * Returns 0 or -errno (threads could not be created).
 */
int sched_start(struct sched *s);
/* Asks every thread to finish its loop and joins them. Safe to call twice. */
void sched_stop(struct sched *s);
/* Any thread: total loops of a thread, to tell that it is alive. */
uint64_t sched_loops(const struct sched *s, enum sched_thread_id id);
/*
 * Any thread: a thread's timing (read with hist_quantile and relaxed loads;
 * the owning thread keeps writing it). The log's PM records, MAVLink's
 * SYS_STATUS load and the timing report take their figures through
 * sched_figures_read, sched_load_permille and sched_rate_hz, so they agree.
 */
const struct sched_stats *sched_stats(const struct sched *s, enum sched_thread_id id);
void sched_figures_read(const struct sched *s, enum sched_thread_id id, struct sched_figures *f);
/*
 * Load in permille between two readings (from NULL: since the start): the
 * mean run time of the loops in between against the thread's period, as
 * ArduPilot's load; in lock-step, the work per step against the simulated
 * period it stands for. Above 1000 when the loops take longer than their
 * period; 0 when no loop ran in between.
 */
uint32_t sched_load_permille(const struct sched *s, enum sched_thread_id id,
			     const struct sched_figures *from, const struct sched_figures *to);
/*
 * Loops a second achieved between two readings (from NULL: since the first
 * loop), over the starts' span on the thread's clock (simulated seconds in
 * lock-step); *span_s gets that span. 0 when fewer than two loops started.
 */
double sched_rate_hz(const struct sched_figures *from, const struct sched_figures *to,
		     double *span_s);
/*
 * The worst loop of a thread over a window: the maxima since the previous
 * take, which start again from zero. One reader (the io thread's log task,
 * which writes them as PMT records every 10 s); a loop that ends while it
 * takes counts in one window or the next, never in neither.
 */
struct sched_window {
	uint64_t interval_max_ns;
	uint64_t wake_max_ns;
	uint64_t run_max_ns;
};
void sched_window_take(struct sched *s, enum sched_thread_id id, struct sched_window *w);
/*
 * The statistics' own step, exposed so that tests can drive it with made-up
 * times: adds one loop of thread id, and returns whether it was over 2x. The
 * owning thread only.
 */
bool sched_stats_add(struct sched *s, enum sched_thread_id id, const struct sched_loop *l);

/*
 * Lock-step: instead of sched_start. Runs, in virtual-time order, every wake
 * due up to and including t_us; wakes due at the same instant run
 * highest-priority thread first. t_us never goes backwards (-EINVAL).
 */
int sched_lockstep_run_until(struct sched *s, uint64_t t_us);

const char *sched_late_cause_name(enum sched_late_cause c);
/*
 * One reader (the io thread's log task): takes the oldest late-loop record of
 * any thread into *out; false when there is none.
 */
bool sched_late_take(struct sched *s, struct sched_late *out);
/* A record's cause in a sentence, into buf ("main: 6.2 ms late: task flight ran 6.0 ms ..."). */
void sched_late_describe(const struct sched_late *l, char *buf, size_t len);
/*
 * The judgement alone, for tests: the cause of a late loop from its figures
 * (struct sched_late without cause).
 */
enum sched_late_cause sched_late_classify(const struct sched_late *l);

/*
 * Multi-line human report of every thread's timing into buf (NUL-terminated,
 * cut to len): a header, a line per thread (load as sched_load_permille since
 * the start), then a line for each paced thread (what it is judged against,
 * or that its events have stopped coming and it is waiting) and, in
 * lock-step, a line on what the columns mean there.
 */
void sched_report(const struct sched *s, char *buf, size_t len);

#endif
