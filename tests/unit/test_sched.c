// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "daemon/scheduler.h"

static struct sched s;  /* big: keep it off the stack */

struct trace {
	struct { uint8_t task; uint64_t t_us; } ev[8192];
	unsigned int n;
};

struct probe {
	struct trace *trace;
	uint8_t id;
	uint64_t runs;
	uint64_t last_us;
	int signal_every;  /* >0: signal the main thread every n runs */
};

static void probe_run(void *ctx, uint64_t now_us)
{
	struct probe *p = ctx;
	if (p->trace && p->trace->n < 8192) {
		p->trace->ev[p->trace->n].task = p->id;
		p->trace->ev[p->trace->n].t_us = now_us;
		p->trace->n++;
	}
	p->runs++;
	p->last_us = now_us;
	if (p->signal_every && p->runs % (uint64_t)p->signal_every == 0)
		sched_pace_signal(&s, SCHED_MAIN);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/*
 * Real threads on a loaded host may not get a CPU for a while: after min_ms,
 * wait (up to 30 s) until each listed thread has looped at least the given
 * number of times, so that a verdict never depends on how busy the host is.
 */
static void run_at_least(long min_ms, const uint64_t want[SCHED_THREAD_COUNT])
{
	sleep_ms(min_ms);
	for (int waited = 0; waited < 30000; waited += 10) {
		bool done = true;
		for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++)
			done &= sched_loops(&s, (enum sched_thread_id)i) >= want[i];
		if (done)
			return;
		sleep_ms(10);
	}
}

static void setup_lockstep(struct probe *p, struct trace *tr)
{
	struct sched_cfg cfg;
	sched_cfg_defaults(&cfg, 400);
	assert_int_equal(sched_init(&s, &cfg), 0);
	static const struct { enum sched_thread_id th; uint32_t hz; } spec[] = {
		{ SCHED_TIMER, 0 }, { SCHED_TIMER, 100 }, { SCHED_MAIN, 0 },
		{ SCHED_UART, 0 }, { SCHED_IO, 10 },
	};
	for (uint8_t i = 0; i < 5; i++) {
		p[i] = (struct probe){ .trace = tr, .id = i };
		struct sched_task t = { "probe", spec[i].th, spec[i].hz, probe_run, &p[i] };
		assert_int_equal(sched_add_task(&s, &t), 0);
	}
}

static void test_sched_default_priorities_are_rate_monotonic(void **state)
{
	struct sched_cfg cfg;
	sched_cfg_defaults(&cfg, 400);
	assert_int_equal(sched_init(&s, &cfg), 0);
	assert_int_equal(s.th[SCHED_TIMER].priority, 40);  /* 1000 Hz */
	assert_int_equal(s.th[SCHED_MAIN].priority, 39);   /* 400 */
	assert_int_equal(s.th[SCHED_RCIN].priority, 38);   /* 200 */
	assert_int_equal(s.th[SCHED_UART].priority, 37);   /* 100 */
	assert_int_equal(s.th[SCHED_TONE].priority, 36);   /* 100 */
	assert_int_equal(s.th[SCHED_IO].priority, 35);     /* 50 */

	/* A main loop configured faster than the timer moves above it. */
	cfg.thread[SCHED_MAIN].rate_hz = 2000;
	cfg.thread[SCHED_IO].priority = 7;
	assert_int_equal(sched_init(&s, &cfg), 0);
	assert_int_equal(s.th[SCHED_MAIN].priority, 40);
	assert_int_equal(s.th[SCHED_TIMER].priority, 39);
	assert_int_equal(s.th[SCHED_IO].priority, 7);
}

static void test_sched_rejects_bad_rates_and_full_tables(void **state)
{
	struct sched_cfg cfg;
	sched_cfg_defaults(&cfg, 400);
	cfg.thread[SCHED_RCIN].rate_hz = 0;
	assert_int_equal(sched_init(&s, &cfg), -EINVAL);
	sched_cfg_defaults(&cfg, 400);
	cfg.priority_max = 3;  /* the slowest thread would get priority -2 */
	assert_int_equal(sched_init(&s, &cfg), -EINVAL);

	sched_cfg_defaults(&cfg, 400);
	assert_int_equal(sched_init(&s, &cfg), 0);
	struct probe p = { 0 };
	struct sched_task t = { "x", SCHED_MAIN, 300, probe_run, &p };  /* 400/300 not whole */
	assert_int_equal(sched_add_task(&s, &t), -EINVAL);
	t.rate_hz = 800;  /* faster than its thread */
	assert_int_equal(sched_add_task(&s, &t), -EINVAL);
	t.rate_hz = 0;
	t.thread = 0;
	assert_int_equal(sched_add_task(&s, &t), -EINVAL);
	t.thread = SCHED_IO;
	for (int i = 0; i < SCHED_MAX_TASKS_PER_THREAD; i++)
		assert_int_equal(sched_add_task(&s, &t), 0);
	assert_int_equal(sched_add_task(&s, &t), -ENOSPC);
}

static void test_sched_lockstep_runs_each_task_at_its_rate(void **state)
{
	struct probe p[5];
	setup_lockstep(p, NULL);
	assert_int_equal(sched_lockstep_run_until(&s, 999999), 0);
	assert_int_equal(p[0].runs, 1000);  /* timer, every wake */
	assert_int_equal(p[1].runs, 100);   /* timer, 100 Hz */
	assert_int_equal(p[2].runs, 400);   /* main */
	assert_int_equal(p[3].runs, 100);   /* uart */
	assert_int_equal(p[4].runs, 10);    /* io, 10 Hz of 50 */
	assert_int_equal(p[0].last_us, 999000);
	assert_int_equal(p[2].last_us, 997500);
	assert_int_equal(sched_lockstep_run_until(&s, 5), -EINVAL);  /* time never goes back */
}

static void test_sched_lockstep_same_inputs_give_the_same_order(void **state)
{
	static struct trace a, b;
	struct probe p[5];
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	setup_lockstep(p, &a);
	for (uint64_t t = 0; t <= 500000; t += 3333)  /* uneven steps */
		assert_int_equal(sched_lockstep_run_until(&s, t), 0);
	assert_int_equal(sched_lockstep_run_until(&s, 500000), 0);
	setup_lockstep(p, &b);
	assert_int_equal(sched_lockstep_run_until(&s, 500000), 0);
	assert_int_equal(a.n, b.n);
	assert_memory_equal(a.ev, b.ev, a.n * sizeof(a.ev[0]));
	/* At t = 0 every thread is due: the highest priority goes first. */
	assert_int_equal(a.ev[0].task, 0);
	assert_int_equal(a.ev[1].task, 1);
	assert_int_equal(a.ev[2].task, 2);
	assert_int_equal(a.ev[3].task, 3);
	assert_int_equal(a.ev[4].task, 4);
	for (unsigned int i = 1; i < a.n; i++)
		assert_true(a.ev[i].t_us >= a.ev[i - 1].t_us);
}

static void test_sched_lockstep_paced_thread_runs_on_each_signal(void **state)
{
	struct sched_cfg cfg;
	sched_cfg_defaults(&cfg, 250);
	assert_int_equal(sched_init(&s, &cfg), 0);
	sched_set_paced(&s, SCHED_MAIN);
	struct probe imu = { .signal_every = 4 }, loop = { 0 };
	struct sched_task t1 = { "imu", SCHED_TIMER, 0, probe_run, &imu };
	struct sched_task t2 = { "loop", SCHED_MAIN, 0, probe_run, &loop };
	assert_int_equal(sched_add_task(&s, &t1), 0);
	assert_int_equal(sched_add_task(&s, &t2), 0);
	assert_int_equal(sched_lockstep_run_until(&s, 99999), 0);
	/* One run at t = 0 (due from the start), then one per fourth IMU sample. */
	assert_int_equal(imu.runs, 100);
	assert_int_equal(loop.runs, 1 + 25);
	assert_int_equal(loop.last_us, 99000);  /* right after the signal, same instant */
}

/*
 * The lock-step leader's way: it takes a sample stamped t, which signals main,
 * then runs the scheduler to t. Main runs once per sample at the sample's time,
 * however far apart the samples (here 5 and 10 ms, two and four of main's 400 Hz
 * periods): no time-out loop, and no run at the previous call's time. Before
 * 2026-12-04 it ran at the previous sample's time and again on its time-out at
 * this one's, a loop with no new sample and no time passed.
 */
static struct probe leader_loop;
static void test_sched_lockstep_leader_sample_runs_main_at_its_time(void **state)
{
	static const uint64_t step_us[] = { 5000, 10000 };
	for (unsigned int k = 0; k < 2; k++) {
		struct sched_cfg cfg;
		sched_cfg_defaults(&cfg, 400);
		assert_int_equal(sched_init(&s, &cfg), 0);
		sched_set_paced(&s, SCHED_MAIN);
		memset(&leader_loop, 0, sizeof(leader_loop));
		struct sched_task t = { "loop", SCHED_MAIN, 0, probe_run, &leader_loop };
		assert_int_equal(sched_add_task(&s, &t), 0);
		assert_int_equal(sched_lockstep_run_until(&s, 0), 0);   /* the first run, at 0 */
		for (uint64_t ts = step_us[k]; ts <= 1000000; ts += step_us[k]) {
			sched_pace_signal(&s, SCHED_MAIN);
			assert_int_equal(sched_lockstep_run_until(&s, ts), 0);
			assert_int_equal(leader_loop.last_us, ts);
		}
		assert_int_equal(leader_loop.runs, 1 + 1000000 / step_us[k]);
		struct sched_figures f;
		sched_figures_read(&s, SCHED_MAIN, &f);
		assert_int_equal(f.pace_timeouts, 0);
	}
	/* Without samples main still runs, on its time-out: every two periods. */
	assert_int_equal(sched_lockstep_run_until(&s, 1100000), 0);
	assert_int_equal(leader_loop.runs, 1 + 100 + 20);
	assert_int_equal(leader_loop.last_us, 1100000);
}

static void test_sched_real_time_threads_loop_measure_and_stop(void **state)
{
	struct sched_cfg cfg;
	sched_cfg_defaults(&cfg, 400);
	cfg.realtime = false;   /* a unit test must not hog the machine with FIFO threads */
	cfg.lock_memory = false;
	assert_int_equal(sched_init(&s, &cfg), 0);
	struct probe p = { 0 }, q = { 0 };
	struct sched_task t1 = { "a", SCHED_TIMER, 100, probe_run, &p };
	struct sched_task t2 = { "b", SCHED_IO, 0, probe_run, &q };
	assert_int_equal(sched_add_task(&s, &t1), 0);
	assert_int_equal(sched_add_task(&s, &t2), 0);
	assert_int_equal(sched_start(&s), 0);
	run_at_least(300, (const uint64_t[SCHED_THREAD_COUNT]){ [SCHED_TIMER] = 11, [SCHED_MAIN] = 1,
						       [SCHED_RCIN] = 1, [SCHED_UART] = 1,
						       [SCHED_TONE] = 1, [SCHED_IO] = 1 });
	sched_stop(&s);
	sched_stop(&s);  /* twice is fine */
	uint64_t loops = sched_loops(&s, SCHED_TIMER);
	assert_true(loops > 10);
	/* Every loop was measured. */
	const struct sched_stats *st = sched_stats(&s, SCHED_TIMER);
	assert_int_equal(hist_total(&st->wake_latency), loops);
	assert_int_equal(hist_total(&st->run_time), loops);
	/* The 100 Hz task ran on every tenth wake of the 1 kHz thread. */
	assert_int_equal(p.runs, (loops + 9) / 10);
	assert_int_equal(q.runs, sched_loops(&s, SCHED_IO));
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++)
		assert_true(sched_loops(&s, (enum sched_thread_id)i) > 0);

	char buf[4096];
	sched_report(&s, buf, sizeof(buf));
	assert_non_null(strstr(buf, "timer  "));
	assert_non_null(strstr(buf, "\nio "));
}

static void test_sched_real_time_paced_thread_follows_its_signal(void **state)
{
	struct sched_cfg cfg;
	sched_cfg_defaults(&cfg, 250);
	cfg.realtime = false;
	cfg.lock_memory = false;
	assert_int_equal(sched_init(&s, &cfg), 0);
	sched_set_paced(&s, SCHED_MAIN);
	struct probe imu = { .signal_every = 4 }, loop = { 0 };
	struct sched_task t1 = { "imu", SCHED_TIMER, 0, probe_run, &imu };
	struct sched_task t2 = { "loop", SCHED_MAIN, 0, probe_run, &loop };
	assert_int_equal(sched_add_task(&s, &t1), 0);
	assert_int_equal(sched_add_task(&s, &t2), 0);
	assert_int_equal(sched_start(&s), 0);
	/* Six signals (24 imu runs) and a loop of main at least. */
	run_at_least(300, (const uint64_t[SCHED_THREAD_COUNT]){ [SCHED_TIMER] = 28, [SCHED_MAIN] = 1 });
	sched_stop(&s);
	/* At most one run per signal plus time-outs; signals may merge, never multiply. */
	uint64_t signals = imu.runs / 4;
	uint64_t timeouts = s.th[SCHED_MAIN].stats.pace_timeouts;
	assert_true(signals > 5);
	assert_true(loop.runs <= signals + timeouts + 1);
	assert_true(loop.runs >= 1);
}

/* A loop of main at start_us (intended at intended_us) that ran run_us. */
static void main_loop(uint64_t intended_us, uint64_t start_us, uint64_t run_us, bool timed_out)
{
	struct sched_loop l = { .intended_ns = intended_us * 1000u, .start_ns = start_us * 1000u,
				.run_ns = run_us * 1000u, .timed_out = timed_out };
	sched_stats_add(&s, SCHED_MAIN, &l);
}

static void setup_paced_main(uint32_t rate_hz)
{
	struct sched_cfg cfg;
	sched_cfg_defaults(&cfg, rate_hz);
	cfg.realtime = false;
	cfg.lock_memory = false;
	assert_int_equal(sched_init(&s, &cfg), 0);
	sched_set_paced(&s, SCHED_MAIN);
}

/* The report's line for a thread, cut at its end, into line. */
static void report_line(const char *report, const char *prefix, char *line, size_t len)
{
	const char *p = strstr(report, prefix);
	assert_non_null(p);
	p += prefix[0] == '\n';
	size_t n = strcspn(p, "\n");
	assert_true(n < len);
	memcpy(line, p, n);
	line[n] = '\0';
}

static void test_sched_paced_loop_without_events_waits_and_is_not_overrunning(void **state)
{
	/* 400 Hz main, no IMU: it runs on its 5 ms time-out, often late on a busy host. */
	setup_paced_main(400);
	uint64_t t = 1000000;
	for (int i = 0; i < 2000; i++) {
		main_loop(t, t + (i % 7) * 1000, 30, true);  /* up to 6 ms late */
		t += 5000 + (i % 7) * 1000;
	}
	const struct sched_stats *st = sched_stats(&s, SCHED_MAIN);
	assert_int_equal(st->loops, 2000);
	assert_int_equal(st->pace_timeouts, 2000);
	assert_int_equal(st->overruns_1_5x, 0);
	assert_int_equal(st->overruns_2x, 0);
	assert_int_equal(st->skipped, 0);

	static char buf[8192];
	char line[512];
	sched_report(&s, buf, sizeof(buf));
	print_message("%s", buf);
	report_line(buf, "\nmain ", line, sizeof(line));
	unsigned long long loops, o15, o2;
	assert_int_equal(sscanf(strrchr(line, '|') + 1, "%llu %llu", &o15, &o2), 2);
	assert_int_equal(o15, 0);
	assert_int_equal(o2, 0);
	assert_int_equal(sscanf(line, "main %*u %*d %llu", &loops), 1);
	assert_int_equal(loops, 2000);
	report_line(buf, "main: paced", line, sizeof(line));
	assert_non_null(strstr(line, "no pacing event has come for"));
	assert_non_null(strstr(line, "waiting on its time-out (2000 loops), not overrunning"));
}

static void test_sched_real_time_paced_thread_without_events_counts_no_overrun(void **state)
{
	/*
	 * The real threads, whatever the host's load: a time-out serves no event,
	 * so however late it wakes it is not an overrun.
	 */
	setup_paced_main(400);
	struct probe loop = { 0 };
	struct sched_task t = { "loop", SCHED_MAIN, 0, probe_run, &loop };
	assert_int_equal(sched_add_task(&s, &t), 0);
	assert_int_equal(sched_start(&s), 0);
	run_at_least(200, (const uint64_t[SCHED_THREAD_COUNT]){ [SCHED_MAIN] = 1 });
	sched_stop(&s);
	const struct sched_stats *st = sched_stats(&s, SCHED_MAIN);
	assert_true(st->loops >= 1);
	assert_int_equal(st->pace_timeouts, st->loops);
	assert_int_equal(st->overruns_1_5x, 0);
	assert_int_equal(st->overruns_2x, 0);
	assert_int_equal(st->skipped, 0);
}

static void test_sched_late_pacing_event_is_not_an_overrun(void **state)
{
	setup_paced_main(400);  /* 2.5 ms */
	main_loop(0, 100, 50, false);
	/* The samples came 10 ms late; the loop started 0.2 ms after them: not late itself. */
	main_loop(12500, 12700, 50, false);
	const struct sched_stats *st = sched_stats(&s, SCHED_MAIN);
	assert_int_equal(st->overruns_1_5x, 0);
	assert_int_equal(st->overruns_2x, 0);
	assert_int_equal(st->longest_interval_ns, 12600000u);  /* the interval is still told */
	/* A loop that starts over half a period after its event is late: once over a period. */
	main_loop(15000, 16300, 50, false);
	assert_int_equal(st->overruns_1_5x, 1);
	assert_int_equal(st->overruns_2x, 0);
	main_loop(17500, 20100, 50, false);
	assert_int_equal(st->overruns_1_5x, 2);
	assert_int_equal(st->overruns_2x, 1);
	assert_int_equal(st->pace_timeouts, 0);

	/* Events that come while the loop is busy: the oldest is what it is judged from. */
	sched_pace_signal(&s, SCHED_MAIN);
	uint64_t first = s.th[SCHED_MAIN].pace_first_ns;
	sleep_ms(1);
	sched_pace_signal(&s, SCHED_MAIN);
	assert_int_equal(s.th[SCHED_MAIN].pace_first_ns, first);
	assert_true(s.th[SCHED_MAIN].pace_t_ns > first);
}

static void test_sched_periodic_loop_counts_overruns_by_interval(void **state)
{
	struct sched_cfg cfg;
	sched_cfg_defaults(&cfg, 400);
	assert_int_equal(sched_init(&s, &cfg), 0);
	main_loop(0, 10, 50, false);
	main_loop(2500, 2600, 50, false);
	main_loop(5000, 6500, 50, false);   /* 3.9 ms after the last start: over 1.5x */
	main_loop(7500, 7510, 50, false);
	main_loop(10000, 13100, 50, false); /* 5.59 ms: over 2x too */
	const struct sched_stats *st = sched_stats(&s, SCHED_MAIN);
	assert_int_equal(st->overruns_1_5x, 2);
	assert_int_equal(st->overruns_2x, 1);
	assert_int_equal(hist_max(&st->wake_latency), 3100000u);
}

/* PMT's window: the worst loop since the last take, then from nothing again. */
static void test_sched_window_takes_the_worst_since_the_last_take(void **state)
{
	(void)state;
	struct sched_cfg cfg;
	sched_cfg_defaults(&cfg, 400);
	assert_int_equal(sched_init(&s, &cfg), 0);
	struct sched_window w;
	sched_window_take(&s, SCHED_MAIN, &w);
	assert_int_equal(w.interval_max_ns, 0);
	assert_int_equal(w.wake_max_ns, 0);
	assert_int_equal(w.run_max_ns, 0);
	main_loop(0, 10, 50, false);
	main_loop(2500, 2600, 900, false);
	main_loop(5000, 6500, 50, false);   /* 3.9 ms start to start, 1.5 ms late */
	main_loop(7500, 7510, 50, false);
	sched_window_take(&s, SCHED_MAIN, &w);
	assert_int_equal(w.interval_max_ns, 3900000u);
	assert_int_equal(w.wake_max_ns, 1500000u);
	assert_int_equal(w.run_max_ns, 900000u);
	main_loop(10000, 10020, 70, false);
	sched_window_take(&s, SCHED_MAIN, &w);
	assert_int_equal(w.interval_max_ns, 2510000u);
	assert_int_equal(w.wake_max_ns, 20000u);
	assert_int_equal(w.run_max_ns, 70000u);
	/* the whole run's figures are untouched by the takes */
	assert_int_equal(atomic_load(&sched_stats(&s, SCHED_MAIN)->longest_interval_ns), 3900000u);
	sched_window_take(&s, SCHED_TIMER, &w);
	assert_int_equal(w.interval_max_ns, 0);
}

static void test_sched_figures_for_sys_status_and_pm_are_the_report_s(void **state)
{
	setup_paced_main(400);
	/* 1000 loops of 250 us (10 % of 2.5 ms), then 1000 of 750 us (30 %), one 1.5x late. */
	uint64_t t = 0;
	for (int i = 0; i < 1000; i++, t += 2500)
		main_loop(t, t, 250, false);
	struct sched_figures mid, end;
	sched_figures_read(&s, SCHED_MAIN, &mid);
	for (int i = 0; i < 1000; i++, t += 2500)
		main_loop(t, t + (i == 500 ? 1300 : 0), 750, false);
	sched_figures_read(&s, SCHED_MAIN, &end);

	/* SYS_STATUS: since the start. PM: between its records. */
	uint32_t load = sched_load_permille(&s, SCHED_MAIN, NULL, &end);
	assert_int_equal(load, 200);
	assert_int_equal(sched_load_permille(&s, SCHED_MAIN, NULL, &mid), 100);
	assert_int_equal(sched_load_permille(&s, SCHED_MAIN, &mid, &end), 300);
	assert_int_equal(end.loops - mid.loops, 1000);
	assert_int_equal(end.overruns_1_5x - mid.overruns_1_5x, 1);
	assert_int_equal(end.run_max_ns, 750000u);
	double span_s;
	double hz = sched_rate_hz(NULL, &end, &span_s);
	assert_true(hz > 399.99 && hz < 400.01);
	assert_true(span_s > 4.99 && span_s < 5.01);
	hz = sched_rate_hz(&mid, &end, &span_s);
	assert_true(hz > 399.99 && hz < 400.01);

	/* The report's main line says the same load and >1.5x count. */
	static char buf[8192];
	char line[512];
	sched_report(&s, buf, sizeof(buf));
	report_line(buf, "\nmain ", line, sizeof(line));
	print_message("%s\n", line);
	char want[32];
	snprintf(want, sizeof(want), " %u.%u%% paced", load / 10u, load % 10u);
	assert_non_null(strstr(line, want));
	unsigned long long o15;
	assert_int_equal(sscanf(strrchr(line, '|') + 1, "%llu", &o15), 1);
	assert_int_equal(o15, end.overruns_1_5x);
	assert_null(strstr(buf, "no pacing event"));
}

/* Busy for us microseconds of CLOCK_MONOTONIC. The difference is taken in
 * signed nanoseconds: as unsigned, a spin across a second's boundary (the
 * later tv_nsec smaller) came out huge and ended at once, and
 * test_sched_optional_work_that_waited_its_longest_runs_anyway failed on
 * its 200 us (once, in tools/test's ThreadSanitizer stage, 2026-12-06). */
static void spin_us(uint64_t us)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	int64_t ns;
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns = ((int64_t)b.tv_sec - (int64_t)a.tv_sec) * 1000000000 + ((int64_t)b.tv_nsec - (int64_t)a.tv_nsec);
	} while (ns < (int64_t)us * 1000);
}

static void slow_run(void *ctx, uint64_t now_us)
{
	(void)now_us;
	uint64_t *n = ctx;
	if (++*n == 3)
		spin_us(2500);  /* over 2 periods of 1 ms: it can only take longer */
}

static void test_sched_lockstep_judges_work_against_the_simulated_period(void **state)
{
	struct sched_cfg cfg;
	sched_cfg_defaults(&cfg, 1000);
	assert_int_equal(sched_init(&s, &cfg), 0);
	uint64_t n = 0;
	struct sched_task t = { "slow", SCHED_MAIN, 0, slow_run, &n };
	assert_int_equal(sched_add_task(&s, &t), 0);
	assert_int_equal(sched_lockstep_run_until(&s, 999999), 0);
	const struct sched_stats *st = sched_stats(&s, SCHED_MAIN);
	assert_int_equal(st->loops, 1000);
	assert_true(st->overruns_2x >= 1);
	assert_true(st->overruns_1_5x >= st->overruns_2x);
	assert_int_equal(hist_total(&st->wake_latency), 0);
	assert_int_equal(st->longest_interval_ns, 1000000u);
	/* Loops a simulated second, over the simulated time. */
	struct sched_figures f;
	sched_figures_read(&s, SCHED_MAIN, &f);
	double span_s;
	double hz = sched_rate_hz(NULL, &f, &span_s);
	assert_true(hz > 999.99 && hz < 1000.01);
	assert_true(span_s > 0.998 && span_s < 0.9995);
	static char buf[8192];
	sched_report(&s, buf, sizeof(buf));
	print_message("%s", buf);
	assert_non_null(strstr(buf, "\nlock-step: every loop starts on its instant"));
}

/*
 * Optional work, judged against a 1 Hz main loop so that no delay of this test's
 * own (a busy host) can move a verdict: "elapsed" only grows with delay, and the
 * loop is set 750 ms in, between the 60 % that streams may run within and the 90 %
 * navigation may (150 ms of margin).
 */
static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether w may run now; if it may, it runs (nothing) and ends. */
static bool work_runs(struct sched_work *w)
{
	if (!sched_work_begin(&s, w))
		return false;
	sched_work_end(&s, w);
	return true;
}

static void test_sched_optional_work_sheds_streams_first_and_navigation_last(void **state)
{
	/* A main loop of 100 s, its work's budget 1 s: the shares (70 % and
	 * 90 %) and the budgets are judged on the real clock, and this test's
	 * verdict must not move with the host's load (on a loaded host under
	 * qemu-arm a 1 ms budget was once over between two calls). Its
	 * instants are "so far into the loop": the clock must have run that
	 * long since boot. */
	setup_paced_main(1);
	const uint64_t sec = 1000000000u;
	while (mono_ns() < 100 * sec)
		spin_us(100000);
	static struct sched_work streams = { .name = "streams", .thread = SCHED_MAIN,
					     .shed = SCHED_SHED_FIRST, .budget_us = 1000000,
					     .max_defer_us = 1000000000 };
	static struct sched_work nav = { .name = "nav", .thread = SCHED_MAIN,
					 .shed = SCHED_SHED_LAST, .budget_us = 1000000,
					 .max_defer_us = 1000000000 };
	assert_int_equal(sched_add_work(&s, &streams), 0);
	assert_int_equal(sched_add_work(&s, &nav), 0);
	struct sched_thread *t = &s.th[SCHED_MAIN];
	t->period_ns = 100 * sec;

	/* A loop just begun: both run, and are measured. */
	t->loop_start_ns = mono_ns() + 100 * sec;
	assert_true(work_runs(&streams));
	assert_true(work_runs(&nav));
	main_loop(0, 0, 10, false);
	assert_int_equal(streams.runs, 1);
	assert_int_equal(nav.runs, 1);
	assert_int_equal(s.th[SCHED_MAIN].stats.shed_loops, 0);

	/* 75 s into the loop: the streams wait, navigation still runs. */
	t->loop_start_ns = mono_ns() - 75 * sec;
	assert_false(sched_work_begin(&s, &streams));
	assert_true(work_runs(&nav));
	main_loop(1000000, 1000000, 750000, false);
	assert_int_equal(streams.deferred, 1);
	assert_int_equal(streams.runs, 1);
	assert_int_equal(nav.runs, 2);
	assert_int_equal(s.th[SCHED_MAIN].stats.shed_loops, 1);

	/* Past 90 %: navigation waits too; a loop with time runs both again. */
	t->loop_start_ns = mono_ns() - 95 * sec;
	assert_false(sched_work_begin(&s, &streams));
	assert_false(sched_work_begin(&s, &nav));
	main_loop(2000000, 2000000, 950000, false);
	assert_int_equal(nav.deferred, 1);
	assert_int_equal(streams.deferred, 2);
	t->loop_start_ns = mono_ns() + 100 * sec;
	assert_true(work_runs(&streams));
	assert_true(work_runs(&nav));
	main_loop(3000000, 3000000, 10, false);
	assert_int_equal(s.th[SCHED_MAIN].stats.shed_loops, 2);
	assert_int_equal(streams.forced + nav.forced, 0);

	/* The timing report has a line for each, with the counts. */
	static char buf[8192];
	sched_report(&s, buf, sizeof(buf));
	print_message("%s", buf);
	assert_non_null(strstr(buf, "main: optional streams (shed first, budget 1000000 us, waits at "
				    "most 1000000 ms): ran 2 times (0 forced after waiting, 0 over "
				    "budget, longest "));
	assert_non_null(strstr(buf, "deferred in 2 loops; the thread shed work in 2 loops"));
	assert_non_null(strstr(buf, "main: optional nav (shed last"));
}

static void test_sched_optional_work_that_waited_its_longest_runs_anyway(void **state)
{
	setup_paced_main(1);
	static struct sched_work w = { .name = "log", .thread = SCHED_MAIN, .shed = SCHED_SHED_FIRST,
				       .budget_us = 100, .max_defer_us = 1000 };
	assert_int_equal(sched_add_work(&s, &w), 0);
	s.th[SCHED_MAIN].loop_start_ns = mono_ns() - 2000000000u;  /* every loop over */
	assert_false(sched_work_begin(&s, &w));
	spin_us(2000);
	assert_true(sched_work_begin(&s, &w));
	spin_us(200);
	sched_work_end(&s, &w);
	assert_int_equal(w.forced, 1);
	assert_int_equal(w.over_budget, 1);
	assert_true(w.longest_ns >= 200000u);
	/* And its wait starts again from its run. */
	assert_false(sched_work_begin(&s, &w));
	assert_int_equal(w.deferred, 2);
}

static void test_sched_optional_work_always_runs_in_lockstep_and_without_a_scheduler(void **state)
{
	struct sched_cfg cfg;
	sched_cfg_defaults(&cfg, 1);
	assert_int_equal(sched_init(&s, &cfg), 0);
	static struct sched_work w = { .name = "log", .thread = SCHED_MAIN, .shed = SCHED_SHED_FIRST,
				       .budget_us = 100, .max_defer_us = 1000000 };
	assert_int_equal(sched_add_work(&s, &w), 0);
	assert_int_equal(sched_lockstep_run_until(&s, 0), 0);
	s.th[SCHED_MAIN].loop_start_ns = mono_ns() - 2000000000u;
	assert_true(sched_work_begin(&s, &w));
	sched_work_end(&s, &w);
	assert_int_equal(w.deferred, 0);
	assert_true(sched_work_begin(NULL, &w));
	sched_work_end(NULL, &w);
	assert_int_equal(w.runs, 1);
}

static void test_sched_optional_work_table_rejects_bad_entries(void **state)
{
	setup_paced_main(400);
	static struct sched_work w[SCHED_MAX_WORK + 1];
	struct sched_work bad = { .name = "x", .thread = SCHED_MAIN, .shed = SCHED_SHED_FIRST };
	assert_int_equal(sched_add_work(&s, &bad), -EINVAL);   /* no budget */
	bad.budget_us = 10;
	bad.shed = 0;
	assert_int_equal(sched_add_work(&s, &bad), -EINVAL);   /* no class */
	bad.shed = SCHED_SHED_LAST;
	bad.thread = SCHED_THREAD_COUNT;
	assert_int_equal(sched_add_work(&s, &bad), -EINVAL);
	for (int i = 0; i < SCHED_MAX_WORK; i++) {
		w[i] = (struct sched_work){ .name = "w", .thread = SCHED_IO, .shed = SCHED_SHED_FIRST,
					    .budget_us = 10 };
		assert_int_equal(sched_add_work(&s, &w[i]), 0);
	}
	w[SCHED_MAX_WORK] = w[0];
	assert_int_equal(sched_add_work(&s, &w[SCHED_MAX_WORK]), -ENOSPC);
}


/* ---- late-loop forensics --------------------------------------------------- */

/* The judgement alone, on made-up figures: each cause where it belongs. */
static void test_sched_late_loop_causes_from_the_figures(void **state)
{
	(void)state;
	const uint32_t U = SCHED_LATE_UNKNOWN;
	static const struct { struct sched_late l; enum sched_late_cause want; } cases[] = {
		/* a 6 ms run, on the CPU */
		{ { .run_us = 6000, .late_us = 50, .cpu_us = 6000, .run_delay_us = 10 }, SCHED_LATE_TASK },
		/* a 6 ms run, 5 of them waiting for the CPU */
		{ { .run_us = 6000, .late_us = 50, .cpu_us = 1000, .run_delay_us = 5000 }, SCHED_LATE_PREEMPTED },
		/* a 6 ms run, neither on the CPU nor waiting for it: asleep in a task */
		{ { .run_us = 6000, .late_us = 50, .cpu_us = 300, .run_delay_us = 100 }, SCHED_LATE_BLOCKED },
		/* a page read from storage explains whatever else */
		{ { .run_us = 6000, .late_us = 50, .cpu_us = 300, .run_delay_us = 100, .majflt = 1 },
		  SCHED_LATE_PAGE_FAULT },
		/* woken 5 ms late, runnable for 4.5 of them */
		{ { .run_us = 200, .late_us = 5000, .cpu_us = 200, .run_delay_us = 4500 }, SCHED_LATE_PREEMPTED },
		/* woken 5 ms late, never waiting for the CPU: the timer or an interrupt */
		{ { .run_us = 200, .late_us = 5000, .cpu_us = 200, .run_delay_us = 30 }, SCHED_LATE_KERNEL },
		/* without the scheduler's figures: a long run is the task's, a late wake the kernel's */
		{ { .run_us = 6000, .late_us = 50, .cpu_us = U, .run_delay_us = U }, SCHED_LATE_TASK },
		{ { .run_us = 200, .late_us = 5000, .cpu_us = U, .run_delay_us = U }, SCHED_LATE_KERNEL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum sched_late_cause got = sched_late_classify(&cases[i].l);
		if (got != cases[i].want)
			print_message("case %zu: %s, not %s\n", i, sched_late_cause_name(got),
				      sched_late_cause_name(cases[i].want));
		assert_int_equal(got, cases[i].want);
	}
}

/*
 * Of the late records of thread th whose longest task is named task, the one
 * in which it ran longest, or NULL. (On a busy host other loops are late too,
 * by a late wake, with any task the longest of a short run.)
 */
static const struct sched_late *find_late(struct sched_late *all, size_t n, enum sched_thread_id th,
					  const char *task)
{
	const struct sched_late *best = NULL;
	for (size_t i = 0; i < n; i++)
		if (all[i].thread == th && strcmp(all[i].task, task) == 0 &&
		    (!best || all[i].task_us > best->task_us))
			best = &all[i];
	return best;
}

static size_t take_all(struct sched_late *all, size_t cap)
{
	size_t n = 0;
	while (n < cap && sched_late_take(&s, &all[n]))
		n++;
	return n;
}

struct once {
	uint64_t runs;
	uint64_t at;        /* the run that is long */
	uint32_t ms;
	bool sleep;         /* sleep through it, else spin */
};

static void once_run(void *ctx, uint64_t now_us)
{
	(void)now_us;
	struct once *o = ctx;
	if (o->runs++ != o->at)
		return;
	if (o->sleep) {
		sleep_ms(o->ms);
		return;
	}
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < (long)o->ms * 1000000L);
}

/*
 * Lock-step: a task that runs 8 ms in one loop of a 400 Hz main (2.5 ms) is a
 * late loop, and its record names that task and what it took. (Other loops of
 * a busy host may be late too: only the record of ours is judged.)
 */
static void test_sched_lockstep_late_loop_names_the_task(void **state)
{
	(void)state;
	struct sched_cfg cfg;
	sched_cfg_defaults(&cfg, 400);
	assert_int_equal(sched_init(&s, &cfg), 0);
	struct once quick = { .at = UINT64_MAX }, slow = { .at = 100, .ms = 8 };
	struct sched_task t1 = { "quick", SCHED_MAIN, 0, once_run, &quick };
	struct sched_task t2 = { "slow-one", SCHED_MAIN, 0, once_run, &slow };
	assert_int_equal(sched_add_task(&s, &t1), 0);
	assert_int_equal(sched_add_task(&s, &t2), 0);
	assert_int_equal(sched_lockstep_run_until(&s, 500000), 0);
	static struct sched_late all[64];
	size_t n = take_all(all, 64);
	const struct sched_late *l = find_late(all, n, SCHED_MAIN, "slow-one");
	assert_non_null(l);
	char text[320];
	sched_late_describe(l, text, sizeof(text));
	print_message("%s\n", text);
	assert_int_equal(l->cause, SCHED_LATE_TASK);
	assert_true(l->task_us >= 8000 && l->run_us >= l->task_us);
	assert_int_equal(l->start_ns, 100u * 2500000u);
	static char buf[8192];
	sched_report(&s, buf, sizeof(buf));
	char line[512];
	report_line(buf, "loops over 2x, where the time went:", line, sizeof(line));
	print_message("%s\n", line);
	assert_non_null(strstr(buf, "a task ran long "));
	assert_non_null(strstr(buf, "slow-one 1"));
}

/*
 * Real time, periodic main at 400 Hz: one loop spins 12 ms in a task, another
 * sleeps 12 ms in one. Each makes the next start late, and its record names
 * the task. The spin was on the CPU (or, on a busy host, waiting for it); the
 * sleep was neither, and is never taken for a task computing.
 */
static void test_sched_real_time_late_loops_say_where_the_time_went(void **state)
{
	(void)state;
	struct sched_cfg cfg;
	sched_cfg_defaults(&cfg, 400);
	cfg.realtime = false;
	cfg.lock_memory = false;
	assert_int_equal(sched_init(&s, &cfg), 0);
	struct once spin = { .at = 40, .ms = 12 }, nap = { .at = 80, .ms = 12, .sleep = true };
	struct sched_task t1 = { "spinner", SCHED_MAIN, 0, once_run, &spin };
	struct sched_task t2 = { "sleeper", SCHED_MAIN, 0, once_run, &nap };
	assert_int_equal(sched_add_task(&s, &t1), 0);
	assert_int_equal(sched_add_task(&s, &t2), 0);
	assert_int_equal(sched_start(&s), 0);
	/* Taken as they come, as fulmard's io thread takes them: on a busy host many loops
	 * of a thread without SCHED_FIFO are late, more than a ring holds. */
	static struct sched_late all[4096];
	size_t n = 0;
	for (int waited = 0; waited < 60000 && sched_loops(&s, SCHED_MAIN) < 120; waited += 2) {
		sleep_ms(2);
		n += take_all(all + n, 4096 - n);
	}
	sched_stop(&s);
	n += take_all(all + n, 4096 - n);
	const struct sched_late *a = find_late(all, n, SCHED_MAIN, "spinner");
	const struct sched_late *b = find_late(all, n, SCHED_MAIN, "sleeper");
	assert_non_null(a);
	assert_non_null(b);
	char text[320];
	sched_late_describe(a, text, sizeof(text));
	print_message("%s\n", text);
	sched_late_describe(b, text, sizeof(text));
	print_message("%s\n", text);
	assert_true(a->task_us >= 12000 && a->run_us >= a->task_us);
	assert_true(a->cause == SCHED_LATE_TASK || a->cause == SCHED_LATE_PREEMPTED);
	assert_true(b->task_us >= 12000);
	/* where the kernel gives no schedstat, a long run is taken for the task's */
	if (b->cpu_us != SCHED_LATE_UNKNOWN)
		assert_true(b->cause == SCHED_LATE_BLOCKED || b->cause == SCHED_LATE_PREEMPTED);
	assert_true(b->nvcsw >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_default_priorities_are_rate_monotonic),
		cmocka_unit_test(test_sched_rejects_bad_rates_and_full_tables),
		cmocka_unit_test(test_sched_lockstep_runs_each_task_at_its_rate),
		cmocka_unit_test(test_sched_lockstep_same_inputs_give_the_same_order),
		cmocka_unit_test(test_sched_lockstep_paced_thread_runs_on_each_signal),
		cmocka_unit_test(test_sched_lockstep_leader_sample_runs_main_at_its_time),
		cmocka_unit_test(test_sched_real_time_threads_loop_measure_and_stop),
		cmocka_unit_test(test_sched_real_time_paced_thread_follows_its_signal),
		cmocka_unit_test(test_sched_paced_loop_without_events_waits_and_is_not_overrunning),
		cmocka_unit_test(test_sched_real_time_paced_thread_without_events_counts_no_overrun),
		cmocka_unit_test(test_sched_late_pacing_event_is_not_an_overrun),
		cmocka_unit_test(test_sched_periodic_loop_counts_overruns_by_interval),
		cmocka_unit_test(test_sched_window_takes_the_worst_since_the_last_take),
		cmocka_unit_test(test_sched_figures_for_sys_status_and_pm_are_the_report_s),
		cmocka_unit_test(test_sched_lockstep_judges_work_against_the_simulated_period),
		cmocka_unit_test(test_sched_optional_work_sheds_streams_first_and_navigation_last),
		cmocka_unit_test(test_sched_optional_work_that_waited_its_longest_runs_anyway),
		cmocka_unit_test(test_sched_optional_work_always_runs_in_lockstep_and_without_a_scheduler),
		cmocka_unit_test(test_sched_optional_work_table_rejects_bad_entries),
		cmocka_unit_test(test_sched_late_loop_causes_from_the_figures),
		cmocka_unit_test(test_sched_lockstep_late_loop_names_the_task),
		cmocka_unit_test(test_sched_real_time_late_loops_say_where_the_time_went),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
