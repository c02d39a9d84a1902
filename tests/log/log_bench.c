// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * log-bench: the flight log writer under load (not a test; tools/bench-log runs it).
 *
 *   log-bench rate DIR SECONDS [IMU_HZ MAIN_HZ]
 *       real time: four producer threads (timer, main, rcin, uart) log every message
 *       at full rate through their own rings while this thread services the writer
 *       at 50 Hz; prints the write rate, drops and the CPU time of both sides
 *   log-bench gen DIR SECONDS [IMU_HZ MAIN_HZ]
 *       simulated time, as fast as possible: writes a flight of SECONDS into DIR/1.BIN
 *       through the real writer (a long log for fulmar-log's benchmark)
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log_flight.h"

static uint64_t clock_us(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

struct producer_thread {
	pthread_t th;
	struct log_producer p;
	enum flight_group group;
	unsigned hz;
	const struct flight_rates *rates;
	uint64_t start_us, end_us;
	unsigned offered, refused;
	uint64_t cpu_us;
	uint8_t *ring;
};

static atomic_bool go;

static void *producer_main(void *arg)
{
	struct producer_thread *pt = arg;
	uint64_t period = 1000000u / pt->hz, next = pt->start_us;
	while (!atomic_load(&go))
		;
	if (pt->group == FLIGHT_MAIN)
		pt->offered += flight_emit_start(&pt->p, next, &pt->refused);
	while (next < pt->end_us) {
		uint64_t c0 = clock_us(CLOCK_THREAD_CPUTIME_ID);
		pt->offered += flight_emit(&pt->p, pt->group, next, period, pt->rates, &pt->refused);
		pt->cpu_us += clock_us(CLOCK_THREAD_CPUTIME_ID) - c0;
		next += period;
		struct timespec ts = { (time_t)(next / 1000000u), (long)(next % 1000000u) * 1000L };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return NULL;
}

static void on_status(void *ctx, enum log_writer_event ev, int err, const char *text)
{
	fprintf(stderr, "  status: %s\n", text);
}

static int bench_rate(const char *dir, unsigned seconds, struct flight_rates *rates)
{
	static uint8_t buf[256 * 1024];
	static struct log_writer w;
	static struct producer_thread pt[4];
	const struct { enum flight_group g; unsigned hz; uint32_t ring; const char *name; } spec[4] = {
		{ FLIGHT_TIMER, rates->imu_hz, 64 * 1024, "timer" },
		{ FLIGHT_MAIN, rates->main_hz, 128 * 1024, "main" },
		{ FLIGHT_RCIN, 50, 8 * 1024, "rcin" },
		{ FLIGHT_UART, 10, 8 * 1024, "uart" },
	};
	struct log_writer_config cfg = { .dir = dir, .log_disarmed = true, .buf = buf,
		.buf_len = sizeof buf, .on_status = on_status };
	if (log_writer_init(&w, &cfg) < 0)
		return 1;
	uint64_t start = clock_us(CLOCK_MONOTONIC) + 100000u;
	for (int k = 0; k < 4; k++) {
		pt[k].ring = malloc(spec[k].ring);
		if (!pt[k].ring || log_writer_add_producer(&w, &pt[k].p, pt[k].ring, spec[k].ring, spec[k].name) < 0)
			return 1;
		pt[k].group = spec[k].g;
		pt[k].hz = spec[k].hz;
		pt[k].rates = rates;
		pt[k].start_us = start;
		pt[k].end_us = start + seconds * 1000000ull;
		if (pthread_create(&pt[k].th, NULL, producer_main, &pt[k]) != 0)
			return 1;
	}
	atomic_store(&go, true);
	uint64_t io_cpu0 = clock_us(CLOCK_THREAD_CPUTIME_ID), longest = 0;
	uint64_t next = start;
	while (next < start + seconds * 1000000ull + 100000u) {
		uint64_t t0 = clock_us(CLOCK_MONOTONIC);
		log_writer_service(&w, t0);
		uint64_t dt = clock_us(CLOCK_MONOTONIC) - t0;
		if (dt > longest)
			longest = dt;
		next += 20000u;
		struct timespec ts = { (time_t)(next / 1000000u), (long)(next % 1000000u) * 1000L };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	for (int k = 0; k < 4; k++)
		pthread_join(pt[k].th, NULL);
	log_writer_fini(&w, clock_us(CLOCK_MONOTONIC));
	uint64_t io_cpu = clock_us(CLOCK_THREAD_CPUTIME_ID) - io_cpu0;
	struct log_writer_stats st;
	log_writer_get_stats(&w, &st);

	unsigned offered = 0, refused = 0;
	uint64_t prod_cpu = 0;
	printf("log-bench rate: %u s, IMU 2 x %u Hz, main %u Hz, into %s/%u.BIN\n", seconds,
	       rates->imu_hz, rates->main_hz, dir, st.file_num);
	for (int k = 0; k < 4; k++) {
		printf("  producer %-5s %5u Hz: %8u records, %6u dropped, %.0f ns CPU a record\n",
		       spec[k].name, spec[k].hz, pt[k].offered, pt[k].refused,
		       pt[k].offered ? (double)pt[k].cpu_us * 1000.0 / pt[k].offered : 0.0);
		offered += pt[k].offered;
		refused += pt[k].refused;
		prod_cpu += pt[k].cpu_us;
	}
	printf("  records: %u offered (%.0f/s), %u dropped, %llu written, %llu lost\n", offered,
	       (double)offered / seconds, refused, (unsigned long long)st.records_written,
	       (unsigned long long)st.records_lost);
	printf("  file: %.1f MB, %.0f kB/s sustained, %llu writes, %llu fdatasyncs\n",
	       (double)st.bytes_total / 1e6, (double)st.bytes_total / 1e3 / seconds,
	       (unsigned long long)st.writes, (unsigned long long)st.syncs);
	printf("  CPU: I/O thread %.2f %% of one core (%.0f ns a record), producers %.2f %% in total\n",
	       100.0 * (double)io_cpu / (seconds * 1e6), (double)io_cpu * 1000.0 / (offered ? offered : 1),
	       100.0 * (double)prod_cpu / (seconds * 1e6));
	printf("  longest service call: %.1f ms\n", (double)longest / 1000.0);
	return refused ? 3 : 0;
}

static int bench_gen(const char *dir, unsigned seconds, struct flight_rates *rates)
{
	static uint8_t buf[1 << 20], ring[1 << 22];
	static struct log_writer w;
	static struct log_producer p;
	unsigned offered = 0, refused = 0;
	struct log_writer_config cfg = { .dir = dir, .log_disarmed = true, .buf = buf,
		.buf_len = sizeof buf, .on_status = on_status };
	if (log_writer_init(&w, &cfg) < 0 ||
	    log_writer_add_producer(&w, &p, ring, sizeof ring, "gen") < 0)
		return 1;
	uint64_t wall0 = clock_us(CLOCK_MONOTONIC), cpu0 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
	uint64_t base = 1000000u / rates->imu_hz, end = seconds * 1000000ull, t0 = 1000000u;
	offered += flight_emit_start(&p, t0, &refused);
	for (uint64_t t = t0; t < t0 + end; t += base) {
		offered += flight_emit(&p, FLIGHT_TIMER, t, base, rates, &refused);
		if ((t * rates->main_hz) / 1000000u != ((t - base) * rates->main_hz) / 1000000u)
			offered += flight_emit(&p, FLIGHT_MAIN, t, 1000000u / rates->main_hz, rates, &refused);
		if ((t * 50) / 1000000u != ((t - base) * 50) / 1000000u)
			offered += flight_emit(&p, FLIGHT_RCIN, t, 20000u, rates, &refused);
		if ((t * 10) / 1000000u != ((t - base) * 10) / 1000000u)
			offered += flight_emit(&p, FLIGHT_UART, t, 100000u, rates, &refused);
		if ((t / 20000u) != ((t - base) / 20000u))
			log_writer_service(&w, t);
	}
	log_writer_fini(&w, t0 + end);
	struct log_writer_stats st;
	log_writer_get_stats(&w, &st);
	double wall = (double)(clock_us(CLOCK_MONOTONIC) - wall0) / 1e6;
	double cpu = (double)(clock_us(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / 1e6;
	printf("log-bench gen: %u s of flight, %u records (%u dropped), %.1f MB in %s/%u.BIN; "
	       "%.2f s wall, %.2f s CPU (%.0f MB/s through the writer)\n",
	       seconds, offered, refused, (double)st.bytes_total / 1e6, dir, st.file_num, wall, cpu,
	       (double)st.bytes_total / 1e6 / wall);
	return refused ? 3 : 0;
}

int main(int argc, char **argv)
{
	struct flight_rates rates = { .imu_hz = 400, .main_hz = 400 };
	if (argc < 4) {
		fputs("usage: log-bench rate|gen DIR SECONDS [IMU_HZ MAIN_HZ]\n", stderr);
		return 2;
	}
	unsigned seconds = (unsigned)strtoul(argv[3], NULL, 10);
	if (argc >= 6) {
		rates.imu_hz = (unsigned)strtoul(argv[4], NULL, 10);
		rates.main_hz = (unsigned)strtoul(argv[5], NULL, 10);
	}
	if (!seconds || !rates.imu_hz || !rates.main_hz || rates.imu_hz > 10000 || rates.main_hz > 10000) {
		fputs("log-bench: bad numbers\n", stderr);
		return 2;
	}
	rates.duration_s = seconds;
	if (strcmp(argv[1], "rate") == 0)
		return bench_rate(argv[2], seconds, &rates);
	if (strcmp(argv[1], "gen") == 0)
		return bench_gen(argv[2], seconds, &rates);
	fputs("usage: log-bench rate|gen DIR SECONDS [IMU_HZ MAIN_HZ]\n", stderr);
	return 2;
}
