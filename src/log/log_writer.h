// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The flight log writer: records from every thread, one file written by the I/O thread.
 *
 * Each producing thread owns a struct log_producer: an SPSC byte ring (util/ring.h)
 * in caller storage. log_write() and the typed log_write_<type>() pack a whole
 * DataFlash record on the caller's stack and copy it into the ring, or, when it does
 * not fit, drop it and count it. They never block, never allocate, never format text,
 * never make a system call: safe on the timer and main threads.
 *
 * The I/O thread calls log_writer_service() periodically (10-50 Hz). It drains every
 * ring into an output buffer (caller storage), writes FMT/FMTU before a type's first
 * record in each file, writes the buffer to the file in big writes, fdatasync()s at
 * sync_interval_us, rotates files, and deals with trouble (disk full, read-only or
 * missing directory, failing or slow storage): logging stops, says so through the
 * status callback, retries every retry_interval_us and resumes, counting what was lost.
 * Only the I/O thread touches the file, the directory and struct log_writer's fields.
 *
 * Files: <dir>/<N>.BIN, N = 1, 2, ... (LASTLOG.TXT holds the last N), at most
 * max_files kept (the lowest numbers are deleted first). A new file at the first
 * service after init (per boot) and, with rotate_on_disarm, one per arming
 * (LOG_FILE_DSRMROT): at disarm the file is flushed, synced and closed.
 *
 * Return codes: 0 or a count on success, -errno on failure.
 */
#ifndef FULMAR_LOG_LOG_WRITER_H
#define FULMAR_LOG_LOG_WRITER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "log/df_msgs.h"
#include "util/ring.h"

#define LOG_WRITER_MAX_PRODUCERS 8u
#define LOG_WRITER_PATH_MAX 256u
#define LOG_WRITER_MIN_BUF 4096u
#define LOG_WRITER_MAX_LOG_NUM 65535u   /* MAVLink log ids are uint16 */

/*
 * Storage operations, so a test can inject slow or failing storage; NULL ops in the
 * config means real POSIX files. Each returns -errno on failure. The directory
 * itself (listing, mkdir, unlink) is always POSIX.
 */
struct log_storage_ops {
	/* Opens path for writing: truncated and created, or (append) appended to. A
	 * handle >= 0 or -errno. */
	int (*open)(void *ctx, const char *path, bool append);
	/* Bytes written (possibly fewer than len) or -errno. */
	ssize_t (*write)(void *ctx, int h, const void *buf, size_t len);
	int (*sync)(void *ctx, int h);
	int (*truncate)(void *ctx, int h, off_t len);
	int (*close)(void *ctx, int h);
};

/* The POSIX implementation (open/write/fdatasync/ftruncate/close). */
extern const struct log_storage_ops log_storage_posix;

enum log_writer_event {
	LOG_EVENT_STARTED = 1,   /* a file opened: text names it */
	LOG_EVENT_STOPPED,       /* trouble: logging stopped; err says why */
	LOG_EVENT_RESUMED,       /* logging again after trouble; text says what was lost */
	LOG_EVENT_CLOSED,        /* a file closed cleanly (disarm rotation, shutdown) */
	LOG_EVENT_DROPS,         /* producers dropped records since the last report */
};

struct log_writer;

struct log_writer_config {
	const char *dir;                /* copied; created (one level) if missing */
	unsigned max_files;             /* files kept, 0 = no limit (LOG_MAX_FILES) */
	bool log_disarmed;              /* write while disarmed too (LOG_DISARMED) */
	bool rotate_on_disarm;          /* close at disarm, new file next time (LOG_FILE_DSRMROT) */
	uint32_t flush_interval_us;     /* write buffered records at least this often; 0: 250 ms */
	uint32_t sync_interval_us;      /* fdatasync at least this often; 0: 1 s */
	uint32_t retry_interval_us;     /* after trouble, try again after this; 0: 5 s */
	void *buf;                      /* output buffer, >= LOG_WRITER_MIN_BUF; 64 KiB is good */
	size_t buf_len;
	const struct log_storage_ops *ops; /* NULL: log_storage_posix */
	void *ops_ctx;
	/* I/O thread, from log_writer_service(): what happened, -errno for trouble and a
	 * short text suitable for a STATUSTEXT. Optional. */
	void (*on_status)(void *ctx, enum log_writer_event ev, int err, const char *text);
	/* I/O thread, right after a file's preamble: the place to log_writer_emit() the
	 * parameters (PARM), the mission (CMD) and a version MSG into every file. */
	void (*on_file_start)(void *ctx, struct log_writer *w, uint64_t now_us);
	void *ctx;
};

/* One producing thread's queue. Its ring is written by that thread only. */
struct log_producer {
	struct ring ring;
	struct log_writer *writer;
	/* The I/O thread's side: */
	uint8_t carry[DF_MAX_RECORD_LEN];  /* a record split by a ring read */
	size_t carry_len;
	uint64_t drops_reported;
	size_t free_min;                   /* least free ring bytes seen since the last DSF */
	char name[16];
};

enum log_writer_state {
	LOG_WRITER_IDLE = 1,     /* no file: disarmed and not logging disarmed, or closed */
	LOG_WRITER_LOGGING,
	LOG_WRITER_TROUBLE,      /* storage failed: waiting to retry */
};

/* Figures, kept by the I/O thread. */
struct log_writer_stats {
	enum log_writer_state state;
	unsigned file_num;              /* current or last file, 0 before the first */
	uint64_t bytes_file;            /* written to the current file */
	uint64_t bytes_total;           /* written since init */
	uint64_t records_written;
	uint64_t records_lost;          /* drained but not written: trouble */
	uint64_t records_dropped;       /* refused by full rings, all producers */
	uint64_t records_corrupt;       /* ring bytes that were not a whole record */
	uint64_t writes;
	uint64_t syncs;
	uint64_t write_errors;
	uint32_t longest_write_us;      /* longest write()+fdatasync() in one service */
	int last_err;                   /* -errno of the last trouble, 0 if none */
};

struct log_writer {
	struct log_writer_config cfg;
	char dir[LOG_WRITER_PATH_MAX];
	char path[LOG_WRITER_PATH_MAX + 16];
	struct log_producer *producers[LOG_WRITER_MAX_PRODUCERS];
	unsigned nproducers;
	uint8_t *out;
	size_t out_len;
	size_t out_records;
	int h;                          /* storage handle, -1 when closed */
	bool announced[256];            /* FMT written or in the buffer */
	bool announced_file[256];       /* FMT on the storage */
	bool started;                   /* a file was opened since init */
	bool armed_seen;
	_Atomic bool armed;             /* set by any thread */
	uint64_t last_write_us;
	uint64_t last_sync_us;
	uint64_t last_dsf_us;
	uint64_t next_retry_us;
	uint64_t lost_at_trouble;
	uint64_t unsynced_bytes;
	uint32_t writes_since_dsf;
	bool resuming;                  /* reopened after trouble, nothing written yet */
	uint8_t rec_len[256];           /* record length of each known type, 0 unknown */
	uint8_t stage[4096];            /* ring bytes being split into records */
	struct log_writer_stats st;
};

/*
 * Sets up a writer on caller storage; no file yet (the first log_writer_service()
 * opens one). -EINVAL for a missing dir or a buffer below LOG_WRITER_MIN_BUF.
 * Start-up only.
 */
int log_writer_init(struct log_writer *w, const struct log_writer_config *cfg);

/*
 * Registers a producer (start-up, before the threads run): its ring uses storage of
 * bytes bytes (a power of two, >= 1024; 16-64 KiB per fast thread). name is for
 * messages only. -ENOSPC past LOG_WRITER_MAX_PRODUCERS.
 */
int log_writer_add_producer(struct log_writer *w, struct log_producer *p, void *storage,
			    uint32_t bytes, const char *name);

/*
 * Producer thread: queues a record of type from its struct (struct df_<name> of
 * df_msgs.h). 0, -ENOBUFS when the ring is full (dropped and counted), -EINVAL for a
 * type without a struct.
 */
int log_write(struct log_producer *p, uint8_t type, const void *msg);
/* Producer thread: queues an already packed whole record (len bytes). */
int log_write_raw(struct log_producer *p, const uint8_t *rec, size_t len);

/* Typed forms of log_write() (producer thread). */
static inline int log_write_parm(struct log_producer *p, const struct df_parm *m) { return log_write(p, DF_ID_PARM, m); }
static inline int log_write_msg(struct log_producer *p, const struct df_msg *m) { return log_write(p, DF_ID_MSG, m); }
static inline int log_write_mode(struct log_producer *p, const struct df_mode *m) { return log_write(p, DF_ID_MODE, m); }
static inline int log_write_ev(struct log_producer *p, const struct df_ev *m) { return log_write(p, DF_ID_EV, m); }
static inline int log_write_err(struct log_producer *p, const struct df_err *m) { return log_write(p, DF_ID_ERR, m); }
static inline int log_write_pm(struct log_producer *p, const struct df_pm *m) { return log_write(p, DF_ID_PM, m); }
static inline int log_write_att(struct log_producer *p, const struct df_att *m) { return log_write(p, DF_ID_ATT, m); }
static inline int log_write_gps(struct log_producer *p, const struct df_gps *m) { return log_write(p, DF_ID_GPS, m); }
static inline int log_write_imu(struct log_producer *p, const struct df_imu *m) { return log_write(p, DF_ID_IMU, m); }
static inline int log_write_baro(struct log_producer *p, const struct df_baro *m) { return log_write(p, DF_ID_BARO, m); }
static inline int log_write_mag(struct log_producer *p, const struct df_mag *m) { return log_write(p, DF_ID_MAG, m); }
static inline int log_write_pos(struct log_producer *p, const struct df_pos *m) { return log_write(p, DF_ID_POS, m); }
static inline int log_write_ctun(struct log_producer *p, const struct df_ctun *m) { return log_write(p, DF_ID_CTUN, m); }
static inline int log_write_ntun(struct log_producer *p, const struct df_ntun *m) { return log_write(p, DF_ID_NTUN, m); }
static inline int log_write_tecs(struct log_producer *p, const struct df_tecs *m) { return log_write(p, DF_ID_TECS, m); }
static inline int log_write_rcin(struct log_producer *p, const struct df_rc *m) { return log_write(p, DF_ID_RCIN, m); }
static inline int log_write_rcou(struct log_producer *p, const struct df_rc *m) { return log_write(p, DF_ID_RCOU, m); }
static inline int log_write_bat(struct log_producer *p, const struct df_bat *m) { return log_write(p, DF_ID_BAT, m); }
static inline int log_write_cmd(struct log_producer *p, const struct df_cmd *m) { return log_write(p, DF_ID_CMD, m); }
static inline int log_write_xkf1(struct log_producer *p, const struct df_xkf1 *m) { return log_write(p, DF_ID_XKF1, m); }
static inline int log_write_xkf3(struct log_producer *p, const struct df_xkf3 *m) { return log_write(p, DF_ID_XKF3, m); }
static inline int log_write_xkf4(struct log_producer *p, const struct df_xkf4 *m) { return log_write(p, DF_ID_XKF4, m); }
static inline int log_write_xkf2(struct log_producer *p, const struct df_xkf2 *m) { return log_write(p, DF_ID_XKF2, m); }
static inline int log_write_arsp(struct log_producer *p, const struct df_arsp *m) { return log_write(p, DF_ID_ARSP, m); }
static inline int log_write_vibe(struct log_producer *p, const struct df_vibe *m) { return log_write(p, DF_ID_VIBE, m); }
static inline int log_write_powr(struct log_producer *p, const struct df_powr *m) { return log_write(p, DF_ID_POWR, m); }
static inline int log_write_rfnd(struct log_producer *p, const struct df_rfnd *m) { return log_write(p, DF_ID_RFND, m); }
static inline int log_write_orgn(struct log_producer *p, const struct df_orgn *m) { return log_write(p, DF_ID_ORGN, m); }

/* Any thread: the vehicle armed or disarmed; acted on at the next service. */
void log_writer_set_armed(struct log_writer *w, bool armed);

/*
 * I/O thread, periodically: opens, drains, writes, syncs, rotates, retries.
 * now_us is CLOCK_MONOTONIC. Returns the bytes written to the file this call, or
 * -errno when the storage is in trouble (the writer keeps going).
 */
int log_writer_service(struct log_writer *w, uint64_t now_us);

/*
 * I/O thread (or on_file_start): writes a record of type straight into the current
 * file's buffer, bypassing the rings. -ENODEV without an open file.
 */
int log_writer_emit(struct log_writer *w, uint8_t type, const void *msg);

/* I/O thread: a copy of the figures. */
void log_writer_get_stats(const struct log_writer *w, struct log_writer_stats *out);

/* Any thread: records dropped by full rings so far, all producers. */
uint64_t log_writer_dropped(const struct log_writer *w);

/*
 * I/O thread, at shutdown (producers stopped): drains what is queued, writes, syncs
 * and closes the file. Returns 0 or the -errno of the last failing step.
 */
int log_writer_fini(struct log_writer *w, uint64_t now_us);

/*
 * Log numbers in dir: how many N.BIN files, the lowest and highest N (0 when none).
 * For the writer and log download alike. -errno if dir cannot be read.
 */
int log_dir_scan(const char *dir, unsigned *count, unsigned *lowest, unsigned *highest);
/* N of a file named "N.BIN" (N in 1..LOG_WRITER_MAX_LOG_NUM, no leading zero), else 0. */
unsigned log_number(const char *name);

#endif
