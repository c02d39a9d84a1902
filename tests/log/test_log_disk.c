// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The writer on a real small file system (a 256 KiB tmpfs mounted for the test):
 * read-only at first, then writable, then full, then with room again. Logging
 * stops and resumes with a status each time (once: no flapping), the producer never waits, nothing
 * crashes, and the file holds whole records only.
 *
 * "Never waits" is counted, not timed: a call that waited (on the file system, or on a
 * lock the I/O thread holds) puts its thread to sleep, which the kernel counts as a
 * voluntary context switch (getrusage RUSAGE_THREAD, ru_nvcsw); a busy host only
 * preempts it, which counts as an involuntary one (ru_nivcsw). So no call may have
 * slept, however loaded the host; how long the longest call took is printed, a figure.
 *
 * Needs root (mount); exits 77 (skipped) with the reason otherwise.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log/df_reader.h"
#include "log/log_writer.h"

static uint64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

struct events {
	unsigned n[8];
	int err[8];
	uint64_t at_us[8];
};

static void on_status(void *ctx, enum log_writer_event ev, int err, const char *text)
{
	struct events *e = ctx;
	e->n[ev]++;
	e->err[ev] = err;
	e->at_us[ev] = mono_us();
	printf("  status: %s\n", text);
}

struct producer {
	struct log_producer p;
	atomic_bool stop;
	uint64_t max_call_us;
	unsigned calls, refused;
	unsigned slept;           /* calls in which the thread slept (a voluntary switch) */
	unsigned preempted;       /* calls in which it was preempted: a figure */
	int rusage_err;
	uint8_t ring[32768];
};

static void *producer_main(void *arg)
{
	struct producer *pr = arg;
	struct df_imu imu = { .instance = 0, .acc_z_m_s2 = -9.81f };
	struct rusage before, after;
	uint64_t next = mono_us();
	while (!atomic_load(&pr->stop)) {
		if (getrusage(RUSAGE_THREAD, &before) < 0)
			pr->rusage_err = errno;
		imu.t_us = mono_us();
		int rc = log_write_imu(&pr->p, &imu);
		uint64_t dt = mono_us() - imu.t_us;
		if (getrusage(RUSAGE_THREAD, &after) < 0)
			pr->rusage_err = errno;
		pr->slept += after.ru_nvcsw != before.ru_nvcsw;
		pr->preempted += after.ru_nivcsw != before.ru_nivcsw;
		if (dt > pr->max_call_us)
			pr->max_call_us = dt;
		pr->calls++;
		pr->refused += rc != 0;
		next += 250;            /* 4 kHz: 216 kB/s */
		struct timespec ts = { (time_t)(next / 1000000u), (long)(next % 1000000u) * 1000L };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return NULL;
}

static int write_filler(const char *path, size_t bytes)
{
	static uint8_t zero[4096];
	FILE *fp = fopen(path, "wb");
	if (!fp)
		return -1;
	for (size_t k = 0; k < bytes; k += sizeof zero)
		fwrite(zero, 1, sizeof zero, fp);
	return fclose(fp);
}

static void resumed_msg(const struct df_record *rec, unsigned *n)
{
	struct df_value v;
	if (rec->type == DF_ID_MSG && df_record_field(rec, 1, &v) == 0 &&
	    memmem(v.v.s.p, v.v.s.len, "log resumed", 11))
		(*n)++;
}

int main(void)
{
	static struct log_writer w;
	static struct producer pr;
	static uint8_t buf[32768];
	static struct df_reader r;
	struct events ev = { 0 };
	char mnt[] = "/tmp/fulmar-logdisk-XXXXXX", dir[64], filler[64], path[80];
	int fail = 0;

	if (!mkdtemp(mnt))
		return 1;
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=256k") < 0) {
		printf("SKIP: cannot mount a tmpfs (%s): needs root and CAP_SYS_ADMIN\n",
		       strerror(errno));
		rmdir(mnt);
		return 77;
	}
	snprintf(dir, sizeof dir, "%s/logs", mnt);
	snprintf(filler, sizeof filler, "%s/filler", mnt);
	if (mkdir(dir, 0755) < 0 || write_filler(filler, 128 * 1024) < 0 ||
	    mount(NULL, mnt, NULL, MS_REMOUNT | MS_RDONLY, "size=256k") < 0) {
		printf("setting up the tmpfs failed: %s\n", strerror(errno));
		fail = 1;
		goto out;
	}
	struct log_writer_config cfg = { .dir = dir, .log_disarmed = true, .buf = buf,
		.buf_len = sizeof buf, .flush_interval_us = 100000u, .retry_interval_us = 200000u,
		.on_status = on_status, .ctx = &ev };
	if (log_writer_init(&w, &cfg) < 0 ||
	    log_writer_add_producer(&w, &pr.p, pr.ring, sizeof pr.ring, "imu") < 0)
		return 1;
	atomic_init(&pr.stop, false);
	pthread_t th;
	/* The ring's pages and the writer's code in memory before the producer starts (one
	 * record, from here): a first touch is a page fault, which may sleep (a major one
	 * reads the disk), and is not the writer's doing. */
	memset(pr.ring, 0xff, sizeof pr.ring);
	struct df_imu first = { .instance = 0 };
	if (log_write_imu(&pr.p, &first) < 0)
		return 1;
	if (pthread_create(&th, NULL, producer_main, &pr) != 0)
		return 1;

	uint64_t start = mono_us(), next = start;
	bool made_rw = false, freed = false;
	while (mono_us() - start < 4000000u) {
		uint64_t now = mono_us();
		log_writer_service(&w, now);
		if (!made_rw && now - start > 500000u) {
			if (mount(NULL, mnt, NULL, MS_REMOUNT, "size=256k") < 0) {
				printf("remount rw: %s\n", strerror(errno));
				fail = 1;
				break;
			}
			made_rw = true;
		}
		if (!freed && ev.err[LOG_EVENT_STOPPED] == -ENOSPC &&
		    now - ev.at_us[LOG_EVENT_STOPPED] > 300000u) {
			unlink(filler);
			freed = true;
		}
		next += 20000u;
		struct timespec ts = { (time_t)(next / 1000000u), (long)(next % 1000000u) * 1000L };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	atomic_store(&pr.stop, true);
	pthread_join(th, NULL);
	log_writer_fini(&w, mono_us());
	struct log_writer_stats st;
	log_writer_get_stats(&w, &st);
	printf("producer: %u calls, %u refused, %u slept in a call, %u preempted in one, longest "
	       "call %llu us; writer: %llu written, %llu lost, %llu write errors\n", pr.calls,
	       pr.refused, pr.slept, pr.preempted, (unsigned long long)pr.max_call_us,
	       (unsigned long long)st.records_written, (unsigned long long)st.records_lost,
	       (unsigned long long)st.write_errors);

	/* Read-only, started, full, resumed once after the room was made, full again;
	 * no flapping in between. */
	if (ev.n[LOG_EVENT_STARTED] != 1 || ev.n[LOG_EVENT_STOPPED] < 2 ||
	    ev.n[LOG_EVENT_STOPPED] > 3 || !freed || ev.n[LOG_EVENT_RESUMED] != 1) {
		printf("FAIL: expected read-only, start, full, resume (started %u, stopped %u, "
		       "resumed %u)\n", ev.n[LOG_EVENT_STARTED], ev.n[LOG_EVENT_STOPPED],
		       ev.n[LOG_EVENT_RESUMED]);
		fail = 1;
	}
	/* Through the read-only and full spells the producer never slept in a call (the
	 * comment at the top says why that, not a time, is the verdict). */
	if (pr.rusage_err) {
		printf("FAIL: getrusage(RUSAGE_THREAD): %s\n", strerror(pr.rusage_err));
		fail = 1;
	}
	if (pr.slept) {
		printf("FAIL: %u producer calls slept (waited), the longest took %llu us\n", pr.slept,
		       (unsigned long long)pr.max_call_us);
		fail = 1;
	}
	if (st.records_lost == 0) {
		printf("FAIL: a full disk lost nothing?\n");
		fail = 1;
	}
	/* The file: whole records, the resumption noted in it. */
	snprintf(path, sizeof path, "%s/1.BIN", dir);
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		printf("FAIL: %s: %s\n", path, strerror(errno));
		fail = 1;
		goto out;
	}
	static uint8_t data[300 * 1024];
	size_t len = fread(data, 1, sizeof data, fp), off = 0;
	fclose(fp);
	unsigned resumed = 0;
	struct df_record rec;
	df_reader_init(&r);
	while (off < len) {
		off += df_reader_feed(&r, data + off, len - off);
		while (df_reader_next(&r, &rec) == 1)
			resumed_msg(&rec, &resumed);
	}
	df_reader_end(&r);
	while (df_reader_next(&r, &rec) == 1)
		resumed_msg(&rec, &resumed);
	printf("file: %zu bytes, %llu records (%u IMU), skipped %llu, partial end %llu\n", len,
	       (unsigned long long)r.records, r.count[DF_ID_IMU],
	       (unsigned long long)r.skipped_bytes, (unsigned long long)r.truncated_bytes);
	if (r.skipped_bytes || r.truncated_bytes || r.count[DF_ID_IMU] == 0 || resumed < 1) {
		printf("FAIL: the file is not whole records with the resumption noted\n");
		fail = 1;
	}
out:
	umount2(mnt, MNT_DETACH);
	rmdir(mnt);
	return fail;
}
