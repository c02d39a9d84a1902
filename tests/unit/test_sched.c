// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
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
	sleep_ms(300);
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
	sleep_ms(300);
	sched_stop(&s);
	/* At most one run per signal plus time-outs; signals may merge, never multiply. */
	uint64_t signals = imu.runs / 4;
	uint64_t timeouts = s.th[SCHED_MAIN].stats.pace_timeouts;
	assert_true(signals > 5);
	assert_true(loop.runs <= signals + timeouts + 1);
	assert_true(loop.runs >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_default_priorities_are_rate_monotonic),
		cmocka_unit_test(test_sched_rejects_bad_rates_and_full_tables),
		cmocka_unit_test(test_sched_lockstep_runs_each_task_at_its_rate),
		cmocka_unit_test(test_sched_lockstep_same_inputs_give_the_same_order),
		cmocka_unit_test(test_sched_lockstep_paced_thread_runs_on_each_signal),
		cmocka_unit_test(test_sched_real_time_threads_loop_measure_and_stop),
		cmocka_unit_test(test_sched_real_time_paced_thread_follows_its_signal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
