// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A writer killed mid-flight (SIGKILL, no chance to flush) leaves a file that readers
 * open and that holds the flight up to within a second of the kill.
 *
 * The child logs the synthetic flight in real time through the real writer (four
 * producer threads, the I/O thread servicing at 50 Hz); the parent kills it at a
 * few moments and reads what is on the disk.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log/df_reader.h"
#include "log_flight.h"

static uint64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void sleep_until(uint64_t t_us)
{
	struct timespec ts = { (time_t)(t_us / 1000000u), (long)(t_us % 1000000u) * 1000L };
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

struct child_thread {
	struct log_producer p;
	enum flight_group g;
	unsigned hz;
	struct flight_rates *rates;
	uint8_t ring[65536];
};

static void *child_producer(void *arg)
{
	struct child_thread *c = arg;
	uint64_t period = 1000000u / c->hz, next = mono_us();
	unsigned refused = 0;
	if (c->g == FLIGHT_MAIN)
		flight_emit_start(&c->p, next, &refused);
	for (;;) {
		flight_emit(&c->p, c->g, next, period, c->rates, &refused);
		next += period;
		sleep_until(next);
	}
	return NULL;
}

/* Never returns: logs until killed. */
static void child_main(const char *dir, int ready_fd)
{
	static uint8_t buf[128 * 1024];
	static struct log_writer w;
	static struct child_thread th[4];
	static struct flight_rates rates = { .imu_hz = 400, .main_hz = 400, .duration_s = 3600 };
	const enum flight_group groups[4] = { FLIGHT_TIMER, FLIGHT_MAIN, FLIGHT_RCIN, FLIGHT_UART };
	const unsigned hz[4] = { 400, 400, 50, 10 };
	struct log_writer_config cfg = { .dir = dir, .log_disarmed = true, .buf = buf,
		.buf_len = sizeof buf };

	if (log_writer_init(&w, &cfg) < 0)
		_exit(10);
	for (int k = 0; k < 4; k++) {
		th[k].g = groups[k];
		th[k].hz = hz[k];
		th[k].rates = &rates;
		if (log_writer_add_producer(&w, &th[k].p, th[k].ring, sizeof th[k].ring, "t") < 0)
			_exit(11);
	}
	for (int k = 0; k < 4; k++) {
		pthread_t t;
		if (pthread_create(&t, NULL, child_producer, &th[k]) != 0)
			_exit(12);
	}
	uint64_t next = mono_us();
	bool said = false;
	for (;;) {
		log_writer_service(&w, mono_us());
		if (!said) {
			if (write(ready_fd, "r", 1) != 1)
				_exit(13);
			said = true;
		}
		next += 20000u;
		sleep_until(next);
	}
}

struct scan {
	uint64_t last_imu_us;
	uint64_t imu;
};

static int read_log(const char *path, struct scan *s, struct df_reader *r)
{
	FILE *fp = fopen(path, "rb");
	static uint8_t chunk[65536];
	struct df_record rec;
	if (!fp)
		return -errno;
	df_reader_init(r);
	memset(s, 0, sizeof *s);
	for (;;) {
		size_t n = fread(chunk, 1, sizeof chunk, fp), off = 0;
		while (off < n) {
			off += df_reader_feed(r, chunk + off, n - off);
			while (df_reader_next(r, &rec) == 1) {
				if (rec.type != DF_ID_IMU)
					continue;
				struct df_value v;
				if (df_record_field(&rec, 0, &v) == 0 && v.v.u > s->last_imu_us)
					s->last_imu_us = v.v.u;
				s->imu++;
			}
		}
		if (n < sizeof chunk)
			break;
	}
	df_reader_end(r);
	while (df_reader_next(r, &rec) == 1)
		;
	fclose(fp);
	return 0;
}

static int run_once(unsigned kill_after_ms)
{
	static struct df_reader r;
	char dir[] = "/tmp/fulmar-logcrash-XXXXXX", path[64];
	int fds[2];
	char c;

	if (!mkdtemp(dir) || pipe(fds) < 0)
		return 1;
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(fds[0]);
		child_main(dir, fds[1]);
	}
	close(fds[1]);
	if (read(fds[0], &c, 1) != 1) {
		fprintf(stderr, "child did not start\n");
		return 1;
	}
	close(fds[0]);
	sleep_until(mono_us() + kill_after_ms * 1000u);
	uint64_t killed_at = mono_us();
	kill(pid, SIGKILL);
	int status;
	waitpid(pid, &status, 0);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
		fprintf(stderr, "child ended otherwise (status %d)\n", status);
		return 1;
	}
	snprintf(path, sizeof path, "%s/1.BIN", dir);
	struct scan s;
	if (read_log(path, &s, &r) < 0) {
		fprintf(stderr, "%s: no log\n", path);
		return 1;
	}
	double lag_s = (double)(killed_at - s.last_imu_us) / 1e6;
	printf("killed after %u ms: %llu records (%llu IMU), skipped %llu, partial end %llu bytes, "
	       "last IMU %.3f s before the kill\n", kill_after_ms, (unsigned long long)r.records,
	       (unsigned long long)s.imu, (unsigned long long)r.skipped_bytes,
	       (unsigned long long)r.truncated_bytes, lag_s);
	int fail = 0;
	if (r.skipped_bytes || r.bad_fmts) {
		fprintf(stderr, "FAIL: the file does not read cleanly\n");
		fail = 1;
	}
	if (r.truncated_bytes >= DF_MAX_RECORD_LEN) {
		fprintf(stderr, "FAIL: more than one partial record at the end\n");
		fail = 1;
	}
	if (s.imu == 0 || lag_s > 1.0) {
		fprintf(stderr, "FAIL: lost more than the last second\n");
		fail = 1;
	}
	unlink(path);
	snprintf(path, sizeof path, "%s/LASTLOG.TXT", dir);
	unlink(path);
	rmdir(dir);
	return fail;
}

int main(void)
{
	/* Different moments relative to the 250 ms flush and the 1 s fdatasync. */
	static const unsigned at_ms[] = { 700, 1330, 2090 };
	int fail = 0;
	for (size_t k = 0; k < sizeof at_ms / sizeof at_ms[0]; k++)
		fail |= run_once(at_ms[k]);
	return fail;
}
