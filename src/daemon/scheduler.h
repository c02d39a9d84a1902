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

#include "util/hist.h"

enum sched_thread_id {
	SCHED_TIMER = 1,   /* 1 kHz: fast sensors, timer callbacks */
	SCHED_MAIN,        /* IMU-paced: estimate, navigate, control, outputs */
	SCHED_RCIN,        /* RC input backend and decoders */
	SCHED_UART,        /* serial ports and network links */
	SCHED_TONE,        /* buzzer tunes */
	SCHED_IO,          /* log writer, saves, slow work */
	SCHED_THREAD_COUNT,
};

#define SCHED_MAX_TASKS 32
#define SCHED_MAX_TASKS_PER_THREAD 16

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

struct sched_task {
	const char *name;
	enum sched_thread_id thread;
	uint32_t rate_hz;   /* 0: every wake of its thread; else at most the thread's rate */
	void (*run)(void *ctx, uint64_t now_us);
	void *ctx;
};

/* Per-thread timing; written by that thread only. */
struct sched_stats {
	struct hist wake_latency;      /* ns from the intended start to the actual start */
	struct hist run_time;          /* ns from start to the end of the tasks */
	_Atomic uint64_t loops;
	_Atomic uint64_t overruns_1_5x;  /* start-to-start intervals over 1.5 periods */
	_Atomic uint64_t overruns_2x;    /* ... over 2 periods */
	_Atomic uint64_t longest_interval_ns;
	_Atomic uint64_t skipped;        /* periods skipped to stay in phase after an overrun */
	_Atomic uint64_t pace_timeouts;  /* paced thread ran on its timeout: no event came */
};

struct sched_thread {
	enum sched_thread_id id;
	uint64_t period_ns;
	uint64_t phase_ns;             /* first wake this long after the common start */
	int priority;                  /* as applied (0 when not SCHED_FIFO) */
	bool paced;
	_Atomic uint32_t pace_seq;     /* futex word: bumped by sched_pace_signal */
	_Atomic uint64_t pace_t_ns;    /* when the last event was signalled */
	uint32_t n_tasks;
	uint32_t task_div[SCHED_MAX_TASKS_PER_THREAD];
	const struct sched_task *tasks[SCHED_MAX_TASKS_PER_THREAD];
	uint64_t wakes;                /* counts wakes to divide task rates */
	uint64_t next_vt_us;           /* lock-step: the virtual time of the next wake */
	uint32_t pace_seen;            /* lock-step: the last pace_seq acted on */
	pthread_t pthread;
	bool started;
	struct sched *owner;
	struct sched_stats stats;
};

struct sched {
	struct sched_cfg cfg;
	struct sched_task tasks[SCHED_MAX_TASKS];
	uint32_t n_tasks;
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
 * Any thread: a thread's timing, for the log's PM records and MAVLink (read with
 * hist_quantile and relaxed loads; the owning thread keeps writing it).
 */
const struct sched_stats *sched_stats(const struct sched *s, enum sched_thread_id id);

/*
 * Lock-step: instead of sched_start. Runs, in virtual-time order, every wake
 * due up to and including t_us; wakes due at the same instant run
 * highest-priority thread first. t_us never goes backwards (-EINVAL).
 */
int sched_lockstep_run_until(struct sched *s, uint64_t t_us);

/* Multi-line human report of every thread's timing into buf (NUL-terminated, cut to len). */
void sched_report(const struct sched *s, char *buf, size_t len);

#endif
