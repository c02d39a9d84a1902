/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the MAVLink FTP server's files share (ftp.c, ftp_ops.c, ftp_path.c);
 * not for the rest of the daemon. The io thread's, as all of ftp.h.
 */
#ifndef FULMAR_MAVLINK_FTP_INTERNAL_H
#define FULMAR_MAVLINK_FTP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "mavlink/ftp.h"

/* --- paths (ftp_path.c) --------------------------------------------------- */

enum ftp_area {
	FTP_AREA_TOP = 1,        /* "/" */
	FTP_AREA_APM,            /* "/APM" */
	FTP_AREA_PARAM_DIR,
	FTP_AREA_SYS_DIR,
	FTP_AREA_PARAM_FILE,
	FTP_AREA_SYS_FILE,
	FTP_AREA_LOGS,           /* under log_dir, read-only */
	FTP_AREA_WRITABLE,       /* under root */
};

struct ftp_path {
	enum ftp_area area;
	char rel[FTP_PATH_MAX + 1];   /* under the area's directory; "" the directory itself */
	char leaf[FTP_PATH_MAX + 1];  /* a virtual file's name */
	char query[FTP_PATH_MAX + 1];
};

/* A request's path (text, len bytes up to a NUL) into p; FTP_ERR_NONE or the NAK. */
enum ftp_err ftp_parse_path(struct ftp *f, const uint8_t *text, size_t len, struct ftp_path *p);
/*
 * The directory holding rel's last component, opened without following a
 * symbolic link, *leaf that component; the fd or -errno. rel is cut at its
 * slashes.
 */
int ftp_walk(struct ftp *f, enum ftp_area a, char *rel, const char **leaf);
/* rel itself, opened as ftp_walk goes; an fd or -errno. */
int ftp_open_path(struct ftp *f, enum ftp_area a, char *rel, int flags, mode_t mode);
/* ftp_open_path, a regular file only (-EISDIR else), its stat in *st. */
int ftp_open_regular(struct ftp *f, enum ftp_area area, char *rel, int flags, mode_t mode,
		     struct stat *st);
/* A virtual file's bytes into buf; its length or -errno. */
long ftp_virtual_read(struct ftp *f, const struct ftp_path *p, uint8_t *buf, size_t len);
/* Whether an area is a virtual file (@PARAM's or @SYS's). */
bool ftp_is_virtual(enum ftp_area a);

/* --- replies and sessions (ftp.c) ----------------------------------------- */

/* Makes r a NAK of err (e: the errno, for FTP_ERR_FAIL_ERRNO), counted. */
void ftp_nak(struct ftp *f, struct ftp_msg *r, enum ftp_err err, int e);
/* A malformed request's NAK, counted as rejected. */
void ftp_reject(struct ftp *f, struct ftp_msg *r, enum ftp_err err);
/* The NAK for errno e. */
void ftp_nak_errno(struct ftp *f, struct ftp_msg *r, int e);
/* Closes session s (and ends its burst). */
void ftp_session_close(struct ftp *f, unsigned int s);
/* A free session's number, or -1. */
int ftp_session_free(const struct ftp *f);
/* The request's session when it is open and this link's, else NULL (and the NAK in r). */
struct ftp_session *ftp_session_of(struct ftp *f, int link, const struct ftp_msg *req,
				   struct ftp_msg *r);
/* Up to n bytes of a session at ofs into out; the count, or -errno. */
long ftp_session_read(const struct ftp_session *ss, uint32_t ofs, uint8_t *out, size_t n);

/* --- the operations (ftp_ops.c) ------------------------------------------- */

/*
 * Runs one request (raw: its payload as it came) into the reply r; false when
 * its reply goes later, from ftp_tick (a burst, a CRC).
 */
bool ftp_dispatch(struct ftp *f, int link, uint8_t sys, uint8_t comp, const uint8_t *raw,
		  const struct ftp_msg *req, struct ftp_msg *r);

#endif
