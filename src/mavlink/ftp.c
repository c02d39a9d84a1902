// SPDX-License-Identifier: GPL-3.0-or-later
#include "mavlink/ftp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mavlink/wire.h"
#include "mavlink_msgs.h"
#include "param/param.h"

#define MAX_COMPONENTS 16u
#define PCK_MAGIC 0x671bu
#define PCK_MAGIC_DEFAULTS 0x671cu

/* --- the payload ---------------------------------------------------------- */

void ftp_msg_unpack(const uint8_t payload[FTP_PAYLOAD_LEN], struct ftp_msg *m)
{
	m->seq = (uint16_t)(payload[0] | payload[1] << 8);
	m->session = payload[2];
	m->opcode = payload[3];
	m->size = payload[4];
	m->req_opcode = payload[5];
	m->burst_complete = payload[6];
	m->offset = (uint32_t)payload[8] | (uint32_t)payload[9] << 8 |
		    (uint32_t)payload[10] << 16 | (uint32_t)payload[11] << 24;
	memcpy(m->data, payload + FTP_HEADER_LEN, FTP_DATA_MAX);
}

void ftp_msg_pack(const struct ftp_msg *m, uint8_t payload[FTP_PAYLOAD_LEN])
{
	wire_put_u16(payload, m->seq);
	payload[2] = m->session;
	payload[3] = m->opcode;
	payload[4] = m->size;
	payload[5] = m->req_opcode;
	payload[6] = m->burst_complete;
	payload[7] = 0;
	wire_put_u32(payload + 8, m->offset);
	memcpy(payload + FTP_HEADER_LEN, m->data, FTP_DATA_MAX);
}

uint32_t ftp_crc32(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? crc >> 1 ^ 0xedb88320u : crc >> 1;
	}
	return crc;
}

/* --- @PARAM/param.pck ----------------------------------------------------- */

/* ArduPilot's AP_Param type numbers and their sizes. */
static unsigned int pck_type(enum param_type t, unsigned int *size)
{
	switch (t) {
	case PARAM_INT8: *size = 1; return 1;
	case PARAM_INT16: *size = 2; return 2;
	case PARAM_INT32: *size = 4; return 3;
	default: *size = 4; return 4;
	}
}

static void pck_value(enum param_type t, float v, uint8_t *out)
{
	int32_t i = (int32_t)lrintf(v);
	switch (t) {
	case PARAM_INT8: out[0] = (uint8_t)(int8_t)i; break;
	case PARAM_INT16: wire_put_i16(out, (int16_t)i); break;
	case PARAM_INT32: wire_put_i32(out, i); break;
	default: wire_put_f32(out, v); break;
	}
}

/* "withdefaults=1&start=N&count=N": unknown keys are ignored, as ArduPilot does. */
static void pck_query(const char *q, bool *defaults, unsigned long *start, unsigned long *count)
{
	while (q && *q) {
		const char *end = strchr(q, '&');
		size_t n = end ? (size_t)(end - q) : strlen(q);
		char item[48];
		if (n < sizeof(item)) {
			memcpy(item, q, n);
			item[n] = '\0';
			char *eq = strchr(item, '=');
			if (eq) {
				*eq = '\0';
				unsigned long v = strtoul(eq + 1, NULL, 10);
				if (strcmp(item, "withdefaults") == 0)
					*defaults = v != 0;
				else if (strcmp(item, "start") == 0)
					*start = v;
				else if (strcmp(item, "count") == 0)
					*count = v;
			}
		}
		q = end ? end + 1 : NULL;
	}
}

long ftp_param_pack(const char *query, uint8_t *buf, size_t len)
{
	bool defaults = false;
	unsigned long start = 0, count = param_count;
	pck_query(query, &defaults, &start, &count);
	if (start > param_count)
		start = param_count;
	if (count > param_count - start)
		count = param_count - start;
	if (len < 6)
		return -ENOSPC;
	wire_put_u16(buf, defaults ? PCK_MAGIC_DEFAULTS : PCK_MAGIC);
	wire_put_u16(buf + 2, (uint16_t)count);
	wire_put_u16(buf + 4, (uint16_t)param_count);
	size_t pos = 6;
	const char *prev = "";
	for (unsigned long i = start; i < start + count; i++) {
		const struct param_def *d = &param_defs[i];
		size_t nlen = strnlen(d->name, PARAM_NAME_LEN);
		size_t common = 0;
		while (common < nlen - 1 && common < 15 && prev[common] == d->name[common])
			common++;
		size_t suffix = nlen - common;
		unsigned int tsize;
		unsigned int type = pck_type(d->type, &tsize);
		float v = param_get((int)i);
		bool with_def = defaults && v != d->def;
		size_t entry = 2 + suffix + tsize + (with_def ? tsize : 0);
		/* A block re-read after a loss must not hold half a parameter. */
		if (pos / FTP_DATA_MAX != (pos + entry - 1) / FTP_DATA_MAX) {
			size_t next = (pos / FTP_DATA_MAX + 1) * FTP_DATA_MAX;
			if (next > len)
				return -ENOSPC;
			memset(buf + pos, 0, next - pos);
			pos = next;
		}
		if (pos + entry > len)
			return -ENOSPC;
		buf[pos] = (uint8_t)(type | (with_def ? 1u : 0u) << 4);
		buf[pos + 1] = (uint8_t)(common | (suffix - 1) << 4);
		memcpy(buf + pos + 2, d->name + common, suffix);
		pck_value(d->type, v, buf + pos + 2 + suffix);
		if (with_def)
			pck_value(d->type, d->def, buf + pos + 2 + suffix + tsize);
		pos += entry;
		prev = d->name;
	}
	return (long)pos;
}

/* --- paths ---------------------------------------------------------------- */

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

static bool is_sys_name(const struct ftp *f, const char *name)
{
	for (const char *const *n = f->cfg.sys_names; n && *n; n++)
		if (strcmp(*n, name) == 0)
			return true;
	return false;
}

/*
 * text (len bytes, up to a NUL) into where it is; FTP_ERR_NONE or the NAK.
 * ".." is refused whatever it would resolve to: a ground station has no
 * business walking up, and refusing it whole leaves nothing to get wrong.
 */
static enum ftp_err ftp_parse_path(struct ftp *f, const uint8_t *text, size_t len,
				   struct ftp_path *p)
{
	char buf[FTP_PATH_MAX + 1];
	size_t n = strnlen((const char *)text, len < FTP_PATH_MAX ? len : FTP_PATH_MAX);
	memcpy(buf, text, n);
	buf[n] = '\0';
	memset(p, 0, sizeof(*p));
	char *q = strchr(buf, '?');
	if (q) {
		*q = '\0';
		snprintf(p->query, sizeof(p->query), "%s", q + 1);
	}
	const char *comp[MAX_COMPONENTS];
	unsigned int nc = 0;
	for (char *save = NULL, *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			f->stats.escapes++;
			return FTP_ERR_FILE_PROTECTED;
		}
		if (nc == MAX_COMPONENTS)
			return FTP_ERR_FILE_NOT_FOUND;
		comp[nc++] = c;
	}
	unsigned int first = 0;
	if (nc == 0) {
		p->area = FTP_AREA_TOP;
		return FTP_ERR_NONE;
	}
	if (strcmp(comp[0], "@PARAM") == 0 || strcmp(comp[0], "@SYS") == 0) {
		bool param = comp[0][1] == 'P';
		if (nc == 1) {
			p->area = param ? FTP_AREA_PARAM_DIR : FTP_AREA_SYS_DIR;
			return FTP_ERR_NONE;
		}
		if (nc > 2 || (param ? strcmp(comp[1], "param.pck") != 0 : !is_sys_name(f, comp[1])))
			return FTP_ERR_FILE_NOT_FOUND;
		p->area = param ? FTP_AREA_PARAM_FILE : FTP_AREA_SYS_FILE;
		snprintf(p->leaf, sizeof(p->leaf), "%s", comp[1]);
		return FTP_ERR_NONE;
	}
	if (comp[0][0] == '@')
		return FTP_ERR_FILE_NOT_FOUND;
	if (strcmp(comp[0], "APM") == 0) {
		if (!f->cfg.log_dir)
			return FTP_ERR_FILE_NOT_FOUND;
		if (nc == 1) {
			p->area = FTP_AREA_APM;
			return FTP_ERR_NONE;
		}
		if (strcmp(comp[1], "LOGS") != 0)
			return FTP_ERR_FILE_NOT_FOUND;
		p->area = FTP_AREA_LOGS;
		first = 2;
	} else {
		if (!f->cfg.root)
			return FTP_ERR_FILE_NOT_FOUND;
		p->area = FTP_AREA_WRITABLE;
	}
	size_t pos = 0;
	for (unsigned int i = first; i < nc; i++)
		pos += (size_t)snprintf(p->rel + pos, sizeof(p->rel) - pos, "%s%s", pos ? "/" : "",
					comp[i]);
	return FTP_ERR_NONE;
}

static const char *area_dir(const struct ftp *f, enum ftp_area a)
{
	return a == FTP_AREA_LOGS ? f->cfg.log_dir : f->cfg.root;
}

static enum ftp_err errno_err(int e)
{
	switch (e) {
	case ENOENT: case ENOTDIR: return FTP_ERR_FILE_NOT_FOUND;
	case EEXIST: return FTP_ERR_FILE_EXISTS;
	case EACCES: case EPERM: case EROFS: return FTP_ERR_FILE_PROTECTED;
	default: return FTP_ERR_FAIL_ERRNO;
	}
}

/*
 * openat that never follows a symbolic link: -ELOOP (counted) for one, whether
 * the kernel says ELOOP or (with O_DIRECTORY) ENOTDIR. Returns an fd or -errno.
 */
static int open_at(struct ftp *f, int dfd, const char *name, int flags, mode_t mode)
{
	int fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd >= 0)
		return fd;
	int e = errno;
	struct stat st;
	if (e == ELOOP || (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))) {
		f->stats.escapes++;
		return -ELOOP;
	}
	return -e;
}

/*
 * Opens the directory that holds rel's last component under the area's
 * directory, one component at a time and never through a symbolic link, and
 * points *leaf at that component ("" for the directory itself). Returns the
 * directory's fd or -errno (-ELOOP: a symbolic link on the way, counted).
 */
static int ftp_walk(struct ftp *f, enum ftp_area a, char *rel, const char **leaf)
{
	int dfd = open(area_dir(f, a), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	char *c = rel;
	for (char *slash; (slash = strchr(c, '/')) != NULL; c = slash + 1) {
		*slash = '\0';
		int nfd = open_at(f, dfd, c, O_RDONLY | O_DIRECTORY, 0);
		close(dfd);
		if (nfd < 0)
			return nfd;
		dfd = nfd;
	}
	*leaf = c;
	return dfd;
}

/* Opens rel itself (flags without O_NOFOLLOW: added here). Returns an fd or -errno. */
static int ftp_open_path(struct ftp *f, enum ftp_area a, char *rel, int flags, mode_t mode)
{
	const char *leaf;
	int dfd = ftp_walk(f, a, rel, &leaf);
	if (dfd < 0)
		return dfd;
	if (!*leaf)
		return dfd;   /* the area's directory */
	int fd = open_at(f, dfd, leaf, flags, mode);
	close(dfd);
	return fd;
}

/* ftp_open_path, and a regular file only (a directory or a device is -EISDIR). */
static int ftp_open_regular(struct ftp *f, enum ftp_area area, char *rel, int flags,
			    mode_t mode, struct stat *st)
{
	int fd = ftp_open_path(f, area, rel, flags, mode);
	if (fd >= 0 && (fstat(fd, st) != 0 || !S_ISREG(st->st_mode))) {
		close(fd);
		fd = -EISDIR;
	}
	return fd;
}

/* --- replies -------------------------------------------------------------- */

static void send_reply(struct ftp *f, int link, uint8_t sys, uint8_t comp,
		       const uint8_t payload[FTP_PAYLOAD_LEN])
{
	struct mavlink_file_transfer_protocol m = { .target_network = 0, .target_system = sys,
						    .target_component = comp };
	memcpy(m.payload, payload, FTP_PAYLOAD_LEN);
	uint8_t p[MAVLINK_MSG_FILE_TRANSFER_PROTOCOL_MAX_LEN];
	mavlink_file_transfer_protocol_pack(&m, p);
	f->tx.send(f->tx.ctx, link, MAVLINK_MSG_ID_FILE_TRANSFER_PROTOCOL, p);
}

static void reply_init(const struct ftp_msg *req, struct ftp_msg *r)
{
	memset(r, 0, sizeof(*r));
	r->seq = (uint16_t)(req->seq + 1);
	r->session = req->session;
	r->opcode = FTP_OP_ACK;
	r->req_opcode = req->opcode;
	r->offset = req->offset;
}

static void ftp_nak(struct ftp *f, struct ftp_msg *r, enum ftp_err err, int e)
{
	r->opcode = FTP_OP_NAK;
	r->size = 1;
	r->data[0] = (uint8_t)err;
	if (err == FTP_ERR_FAIL_ERRNO) {
		r->size = 2;
		r->data[1] = (uint8_t)e;
	}
	f->stats.naks++;
}

/* A malformed request: said with its NAK, and counted apart from a plain "no". */
static void ftp_reject(struct ftp *f, struct ftp_msg *r, enum ftp_err err)
{
	f->stats.rejected++;
	ftp_nak(f, r, err, 0);
}

static void ftp_nak_errno(struct ftp *f, struct ftp_msg *r, int e)
{
	ftp_nak(f, r, e == ELOOP ? FTP_ERR_FILE_PROTECTED : errno_err(e), e);
}

/* --- sessions ------------------------------------------------------------- */

static void ftp_session_close(struct ftp *f, unsigned int s)
{
	struct ftp_session *ss = &f->session[s];
	if (ss->kind == FTP_SESSION_READ || ss->kind == FTP_SESSION_WRITE)
		close(ss->fd);
	ss->kind = FTP_SESSION_FREE;
	ss->fd = -1;
	if (f->burst.active && f->burst.session == s)
		f->burst.active = false;
}

static int ftp_session_free(const struct ftp *f)
{
	for (unsigned int s = 0; s < FTP_SESSIONS; s++)
		if (f->session[s].kind == FTP_SESSION_FREE)
			return (int)s;
	return -1;
}

/* The request's session when it is open and this link's, else NULL (and the NAK). */
static struct ftp_session *ftp_session_of(struct ftp *f, int link, const struct ftp_msg *req,
					  struct ftp_msg *r)
{
	if (req->session >= FTP_SESSIONS || f->session[req->session].kind == FTP_SESSION_FREE ||
	    f->session[req->session].link != link) {
		ftp_reject(f, r, FTP_ERR_INVALID_SESSION);
		return NULL;
	}
	return &f->session[req->session];
}

/* A virtual file's bytes into buf; its length or -errno. */
static long ftp_virtual_read(struct ftp *f, const struct ftp_path *p, uint8_t *buf, size_t len)
{
	if (p->area == FTP_AREA_PARAM_FILE)
		return ftp_param_pack(p->query, buf, len);
	if (!f->cfg.sys_read)
		return -ENOENT;
	return f->cfg.sys_read(f->cfg.sys_ctx, p->leaf, (char *)buf, len);
}

static bool ftp_is_virtual(enum ftp_area a)
{
	return a == FTP_AREA_PARAM_FILE || a == FTP_AREA_SYS_FILE;
}

/* --- the operations ------------------------------------------------------- */

/* Appends one listing entry; false when it does not fit. */
static bool list_add(struct ftp_msg *r, const char *text)
{
	size_t n = strlen(text) + 1;
	if (r->size + n > FTP_DATA_MAX)
		return false;
	memcpy(r->data + r->size, text, n);
	r->size = (uint8_t)(r->size + n);
	return true;
}

/* The entry for name in dfd: "F<name>\t<size>", "D<name>", or "S" for anything else. */
static void list_entry(int dfd, const char *name, char *out, size_t len)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		snprintf(out, len, "S");
	else if (S_ISREG(st.st_mode))
		snprintf(out, len, "F%s\t%llu", name, (unsigned long long)st.st_size);
	else if (S_ISDIR(st.st_mode))
		snprintf(out, len, "D%s", name);
	else
		snprintf(out, len, "S");
	if (strlen(out) + 1 > FTP_DATA_MAX)
		snprintf(out, len, "S");
}

static void op_list(struct ftp *f, struct ftp_path *p, const struct ftp_msg *req, struct ftp_msg *r)
{
	char virt[8][48];
	unsigned int nv = 0;
	bool real = false;
	switch (p->area) {
	case FTP_AREA_TOP:
		snprintf(virt[nv++], sizeof(virt[0]), "D@PARAM");
		snprintf(virt[nv++], sizeof(virt[0]), "D@SYS");
		if (f->cfg.log_dir)
			snprintf(virt[nv++], sizeof(virt[0]), "DAPM");
		real = f->cfg.root != NULL;
		p->area = FTP_AREA_WRITABLE;
		break;
	case FTP_AREA_APM:
		snprintf(virt[nv++], sizeof(virt[0]), "DLOGS");
		break;
	case FTP_AREA_PARAM_DIR: {
		/* The size a plain open would give. */
		long n = ftp_param_pack(NULL, f->crc_vbuf, sizeof(f->crc_vbuf));
		snprintf(virt[nv++], sizeof(virt[0]), "Fparam.pck\t%ld", n < 0 ? 0 : n);
		break;
	}
	case FTP_AREA_SYS_DIR:
		/* Their size is known only once made: 0, as ArduPilot says of its own. */
		for (const char *const *n = f->cfg.sys_names; n && *n && nv < 8; n++)
			snprintf(virt[nv++], sizeof(virt[0]), "F%s\t0", *n);
		break;
	case FTP_AREA_PARAM_FILE:
	case FTP_AREA_SYS_FILE:
		ftp_nak(f, r, FTP_ERR_FAIL_ERRNO, ENOTDIR);
		return;
	default:
		real = true;
		break;
	}
	uint32_t idx = 0;
	for (unsigned int i = 0; i < nv; i++, idx++)
		if (idx >= req->offset && !list_add(r, virt[i]))
			return;
	if (real) {
		int fd = ftp_open_path(f, p->area, p->rel, O_RDONLY | O_DIRECTORY, 0);
		if (fd < 0) {
			ftp_nak_errno(f, r, -fd);
			return;
		}
		DIR *d = fdopendir(fd);
		if (!d) {
			close(fd);
			ftp_nak_errno(f, r, errno);
			return;
		}
		bool top = nv > 0;   /* only the top mixes the virtual with the real */
		for (struct dirent *e; (e = readdir(d)) != NULL;) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			char text[FTP_PATH_MAX + 32];
			/* At the top, names the virtual tree hides cannot be reached: skipped. */
			if (top && (e->d_name[0] == '@' || strcmp(e->d_name, "APM") == 0))
				snprintf(text, sizeof(text), "S");
			else
				list_entry(dirfd(d), e->d_name, text, sizeof(text));
			if (idx++ >= req->offset && !list_add(r, text))
				break;
		}
		closedir(d);
	}
	if (r->size == 0)
		ftp_nak(f, r, FTP_ERR_EOF, 0);
}

static void op_open_ro(struct ftp *f, int link, struct ftp_path *p, struct ftp_msg *r)
{
	int s = ftp_session_free(f);
	if (s < 0) {
		ftp_nak(f, r, FTP_ERR_NO_SESSIONS_AVAILABLE, 0);
		return;
	}
	struct ftp_session *ss = &f->session[s];
	if (ftp_is_virtual(p->area)) {
		long n = ftp_virtual_read(f, p, ss->vbuf, sizeof(ss->vbuf));
		if (n < 0) {
			ftp_nak_errno(f, r, (int)-n);
			return;
		}
		ss->kind = FTP_SESSION_VIRTUAL;
		ss->vlen = (uint32_t)n;
		ss->size = (uint32_t)n;
	} else if (p->area == FTP_AREA_LOGS || p->area == FTP_AREA_WRITABLE) {
		struct stat st;
		int fd = ftp_open_regular(f, p->area, p->rel, O_RDONLY, 0, &st);
		if (fd < 0) {
			ftp_nak_errno(f, r, -fd);
			return;
		}
		ss->kind = FTP_SESSION_READ;
		ss->fd = fd;
		ss->size = st.st_size > UINT32_MAX ? UINT32_MAX : (uint32_t)st.st_size;
	} else {
		ftp_nak(f, r, FTP_ERR_FAIL_ERRNO, EISDIR);
		return;
	}
	ss->link = link;
	r->session = (uint8_t)s;
	r->size = 4;
	wire_put_u32(r->data, ss->size);
}

/* Reads up to n bytes of a session at ofs into out; the count, or -errno. */
static long ftp_session_read(const struct ftp_session *ss, uint32_t ofs, uint8_t *out, size_t n)
{
	if (ss->kind == FTP_SESSION_VIRTUAL) {
		if (ofs >= ss->vlen)
			return 0;
		size_t k = ss->vlen - ofs < n ? ss->vlen - ofs : n;
		memcpy(out, ss->vbuf + ofs, k);
		return (long)k;
	}
	ssize_t k = pread(ss->fd, out, n, (off_t)ofs);
	return k < 0 ? -errno : (long)k;
}

static void op_read(struct ftp *f, int link, const struct ftp_msg *req, struct ftp_msg *r)
{
	struct ftp_session *ss = ftp_session_of(f, link, req, r);
	if (!ss)
		return;
	if (ss->kind == FTP_SESSION_WRITE) {
		ftp_reject(f, r, FTP_ERR_INVALID_SESSION);
		return;
	}
	if (req->size == 0 || req->size > FTP_DATA_MAX) {
		ftp_reject(f, r, FTP_ERR_INVALID_DATA_SIZE);
		return;
	}
	long n = ftp_session_read(ss, req->offset, r->data, req->size);
	if (n < 0) {
		ftp_nak_errno(f, r, (int)-n);
	} else if (n == 0) {
		ftp_nak(f, r, FTP_ERR_EOF, 0);
	} else {
		r->size = (uint8_t)n;
		f->stats.bytes_read += (uint64_t)n;
	}
}

static bool op_burst(struct ftp *f, int link, uint8_t sys, uint8_t comp,
		     const struct ftp_msg *req, struct ftp_msg *r)
{
	struct ftp_session *ss = ftp_session_of(f, link, req, r);
	if (!ss)
		return false;
	if (ss->kind == FTP_SESSION_WRITE) {
		ftp_reject(f, r, FTP_ERR_INVALID_SESSION);
		return false;
	}
	/* ArduPilot's extension: size sets the block of each reply, 0 the largest. */
	if (req->size > FTP_DATA_MAX) {
		ftp_reject(f, r, FTP_ERR_INVALID_DATA_SIZE);
		return false;
	}
	/* One burst at a time: a new request replaces the old (its owner asks again). */
	f->burst = (struct ftp_burst){
		.active = true, .link = link, .peer_sys = sys, .peer_comp = comp,
		.session = req->session, .chunk = req->size ? req->size : FTP_DATA_MAX,
		.seq = (uint16_t)(req->seq + 1), .offset = req->offset, .left = FTP_BURST_PACKETS,
	};
	return true;
}

static bool writable(struct ftp *f, const struct ftp_path *p, struct ftp_msg *r)
{
	if (p->area == FTP_AREA_WRITABLE && p->rel[0])
		return true;
	ftp_nak(f, r, FTP_ERR_FILE_PROTECTED, 0);
	return false;
}

static void op_open_wo(struct ftp *f, int link, struct ftp_path *p, bool create, struct ftp_msg *r)
{
	if (!writable(f, p, r))
		return;
	int s = ftp_session_free(f);
	if (s < 0) {
		ftp_nak(f, r, FTP_ERR_NO_SESSIONS_AVAILABLE, 0);
		return;
	}
	int flags = O_WRONLY | (create ? O_CREAT | O_TRUNC : 0);
	struct stat st;
	int fd = ftp_open_regular(f, p->area, p->rel, flags, 0644, &st);
	if (fd < 0) {
		ftp_nak_errno(f, r, -fd);
		return;
	}
	f->session[s].kind = FTP_SESSION_WRITE;
	f->session[s].link = link;
	f->session[s].fd = fd;
	r->session = (uint8_t)s;
}

static void op_write(struct ftp *f, int link, const struct ftp_msg *req, struct ftp_msg *r)
{
	struct ftp_session *ss = ftp_session_of(f, link, req, r);
	if (!ss)
		return;
	if (ss->kind != FTP_SESSION_WRITE) {
		ftp_reject(f, r, FTP_ERR_INVALID_SESSION);
		return;
	}
	if (req->size == 0 || req->size > FTP_DATA_MAX) {
		ftp_reject(f, r, FTP_ERR_INVALID_DATA_SIZE);
		return;
	}
	if ((uint64_t)req->offset + req->size > FTP_WRITE_MAX) {
		f->stats.rejected++;
		ftp_nak(f, r, FTP_ERR_FAIL_ERRNO, EFBIG);
		return;
	}
	ssize_t n = pwrite(ss->fd, req->data, req->size, (off_t)req->offset);
	if (n != req->size) {
		ftp_nak_errno(f, r, n < 0 ? errno : ENOSPC);
		return;
	}
	f->stats.bytes_written += (uint64_t)n;
}

/* Remove a file or a directory, make a directory: one call on the parent. */
static void op_path_call(struct ftp *f, struct ftp_path *p, enum ftp_opcode op, struct ftp_msg *r)
{
	if (!writable(f, p, r))
		return;
	const char *leaf;
	int dfd = ftp_walk(f, p->area, p->rel, &leaf);
	if (dfd < 0) {
		ftp_nak_errno(f, r, -dfd);
		return;
	}
	int rc;
	if (op == FTP_OP_CREATE_DIRECTORY)
		rc = mkdirat(dfd, leaf, 0755);
	else
		rc = unlinkat(dfd, leaf, op == FTP_OP_REMOVE_DIRECTORY ? AT_REMOVEDIR : 0);
	int e = errno;
	close(dfd);
	if (rc != 0)
		ftp_nak_errno(f, r, e);
}

static void op_truncate(struct ftp *f, struct ftp_path *p, const struct ftp_msg *req,
			struct ftp_msg *r)
{
	if (!writable(f, p, r))
		return;
	if (req->offset > FTP_WRITE_MAX) {
		f->stats.rejected++;
		ftp_nak(f, r, FTP_ERR_FAIL_ERRNO, EFBIG);
		return;
	}
	int fd = ftp_open_path(f, p->area, p->rel, O_WRONLY, 0);
	if (fd < 0) {
		ftp_nak_errno(f, r, -fd);
		return;
	}
	int rc = ftruncate(fd, (off_t)req->offset);
	int e = errno;
	close(fd);
	if (rc != 0)
		ftp_nak_errno(f, r, e);
}

static void op_rename(struct ftp *f, const struct ftp_msg *req, struct ftp_msg *r)
{
	/* "old\0new" within size. */
	size_t n1 = strnlen((const char *)req->data, req->size);
	if (n1 + 1 >= req->size) {
		ftp_reject(f, r, FTP_ERR_INVALID_DATA_SIZE);
		return;
	}
	static struct ftp_path from, to;   /* io thread only; kept off the stack */
	enum ftp_err e1 = ftp_parse_path(f, req->data, n1, &from);
	enum ftp_err e2 = e1 ? e1 : ftp_parse_path(f, req->data + n1 + 1, req->size - n1 - 1, &to);
	if (e2) {
		ftp_nak(f, r, e2, 0);
		return;
	}
	if (!writable(f, &from, r) || !writable(f, &to, r))
		return;
	const char *l1, *l2;
	int d1 = ftp_walk(f, from.area, from.rel, &l1);
	int d2 = d1 < 0 ? d1 : ftp_walk(f, to.area, to.rel, &l2);
	if (d2 < 0) {
		if (d1 >= 0)
			close(d1);
		ftp_nak_errno(f, r, -d2);
		return;
	}
	int rc = renameat(d1, l1, d2, l2);
	int e = errno;
	close(d1);
	close(d2);
	if (rc != 0)
		ftp_nak_errno(f, r, e);
}

/* true: a job was started and answers from ftp_tick. */
static bool op_crc(struct ftp *f, int link, uint8_t sys, uint8_t comp, struct ftp_path *p,
		   const uint8_t *raw, struct ftp_msg *r)
{
	if (ftp_is_virtual(p->area)) {
		long n = ftp_virtual_read(f, p, f->crc_vbuf, sizeof(f->crc_vbuf));
		if (n < 0) {
			ftp_nak_errno(f, r, (int)-n);
			return false;
		}
		r->size = 4;
		wire_put_u32(r->data, ftp_crc32(0, f->crc_vbuf, (size_t)n));
		return false;
	}
	if (p->area != FTP_AREA_LOGS && p->area != FTP_AREA_WRITABLE) {
		ftp_nak(f, r, FTP_ERR_FAIL_ERRNO, EISDIR);
		return false;
	}
	int fd = ftp_open_path(f, p->area, p->rel, O_RDONLY, 0);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -EISDIR;
	}
	if (fd < 0) {
		ftp_nak_errno(f, r, -fd);
		return false;
	}
	if (f->crc.active)
		close(f->crc.fd);   /* its owner asks again */
	f->crc = (struct ftp_crc_job){ .active = true, .link = link, .fd = fd,
				       .peer_sys = sys, .peer_comp = comp };
	memcpy(f->crc.req, raw, FTP_PAYLOAD_LEN);
	return true;
}

/* --- the server ----------------------------------------------------------- */

void ftp_init(struct ftp *f, const struct ftp_config *cfg, const struct ftp_tx *tx)
{
	memset(f, 0, sizeof(*f));
	f->cfg = *cfg;
	f->tx = *tx;
	for (unsigned int s = 0; s < FTP_SESSIONS; s++)
		f->session[s].fd = -1;
}

/* Runs one request; false when its reply goes later (a burst, a CRC). */
static bool ftp_dispatch(struct ftp *f, int link, uint8_t sys, uint8_t comp, const uint8_t *raw,
			 const struct ftp_msg *req, struct ftp_msg *r)
{
	static struct ftp_path p;   /* io thread only; kept off the stack */
	bool takes_path = req->opcode == FTP_OP_LIST_DIRECTORY || req->opcode == FTP_OP_OPEN_FILE_RO ||
		(req->opcode >= FTP_OP_CREATE_FILE && req->opcode <= FTP_OP_CALC_FILE_CRC32 &&
		 req->opcode != FTP_OP_WRITE_FILE && req->opcode != FTP_OP_RENAME);
	if (takes_path) {
		enum ftp_err e = ftp_parse_path(f, req->data, req->size, &p);
		if (e) {
			ftp_nak(f, r, e, 0);
			return true;
		}
	}
	switch (req->opcode) {
	case FTP_OP_NONE:
		break;   /* ArduPilot acknowledges it: a ground station's ping */
	case FTP_OP_TERMINATE_SESSION:
		if (ftp_session_of(f, link, req, r))
			ftp_session_close(f, req->session);
		break;
	case FTP_OP_RESET_SESSIONS:
		for (unsigned int s = 0; s < FTP_SESSIONS; s++)
			if (f->session[s].kind != FTP_SESSION_FREE && f->session[s].link == link)
				ftp_session_close(f, s);
		break;
	case FTP_OP_LIST_DIRECTORY: op_list(f, &p, req, r); break;
	case FTP_OP_OPEN_FILE_RO: op_open_ro(f, link, &p, r); break;
	case FTP_OP_READ_FILE: op_read(f, link, req, r); break;
	case FTP_OP_CREATE_FILE: op_open_wo(f, link, &p, true, r); break;
	case FTP_OP_OPEN_FILE_WO: op_open_wo(f, link, &p, false, r); break;
	case FTP_OP_WRITE_FILE: op_write(f, link, req, r); break;
	case FTP_OP_REMOVE_FILE:
	case FTP_OP_CREATE_DIRECTORY:
	case FTP_OP_REMOVE_DIRECTORY:
		op_path_call(f, &p, (enum ftp_opcode)req->opcode, r);
		break;
	case FTP_OP_TRUNCATE_FILE: op_truncate(f, &p, req, r); break;
	case FTP_OP_RENAME: op_rename(f, req, r); break;
	case FTP_OP_CALC_FILE_CRC32: return !op_crc(f, link, sys, comp, &p, raw, r);
	case FTP_OP_BURST_READ_FILE: return !op_burst(f, link, sys, comp, req, r);
	default:
		ftp_reject(f, r, FTP_ERR_UNKNOWN_COMMAND);
		break;
	}
	return true;
}

void ftp_handle(struct ftp *f, int link, uint8_t sys, uint8_t comp, const uint8_t *payload,
		size_t len)
{
	struct mavlink_file_transfer_protocol m;
	mavlink_file_transfer_protocol_unpack(payload, len, &m);
	if ((m.target_system != 0 && m.target_system != f->cfg.sysid) ||
	    (m.target_component != 0 && m.target_component != f->cfg.compid)) {
		f->stats.not_for_us++;
		return;
	}
	if (link < 0 || link >= (int)FTP_LINKS) {
		f->stats.rejected++;
		return;
	}
	static struct ftp_msg req, r;   /* io thread only; kept off the stack */
	ftp_msg_unpack(m.payload, &req);
	/* Our own replies (another autopilot's, routed here) are not requests. */
	if (req.opcode == FTP_OP_ACK || req.opcode == FTP_OP_NAK) {
		f->stats.rejected++;
		return;
	}
	f->stats.requests++;
	struct ftp_link *fl = &f->link[link];
	/*
	 * A request that comes again, byte for byte, is a retry: its reply was
	 * lost. It gets the same reply rather than a second run (a second
	 * OpenFileRO would take another session, a second RemoveFile would say
	 * "not found"). A burst is re-run: reading again is harmless.
	 */
	if (fl->have_last && fl->peer_sys == sys && fl->peer_comp == comp &&
	    memcmp(fl->last_req, m.payload, FTP_PAYLOAD_LEN) == 0) {
		f->stats.retries++;
		send_reply(f, link, sys, comp, fl->last_reply);
		return;
	}
	fl->have_last = false;
	reply_init(&req, &r);
	if (req.size > FTP_DATA_MAX) {
		ftp_reject(f, &r, FTP_ERR_INVALID_DATA_SIZE);
	} else if (!ftp_dispatch(f, link, sys, comp, m.payload, &req, &r)) {
		return;
	}
	memcpy(fl->last_req, m.payload, FTP_PAYLOAD_LEN);
	ftp_msg_pack(&r, fl->last_reply);
	fl->peer_sys = sys;
	fl->peer_comp = comp;
	fl->have_last = true;
	send_reply(f, link, sys, comp, fl->last_reply);
}

static void crc_step(struct ftp *f)
{
	static uint8_t buf[8192];
	struct ftp_crc_job *j = &f->crc;
	for (size_t done = 0; done < FTP_CRC_STEP; done += sizeof(buf)) {
		ssize_t n = pread(j->fd, buf, sizeof(buf), (off_t)j->done);
		if (n > 0) {
			j->crc = ftp_crc32(j->crc, buf, (size_t)n);
			j->done += (uint64_t)n;
			continue;
		}
		struct ftp_msg req, r;
		ftp_msg_unpack(j->req, &req);
		reply_init(&req, &r);
		if (n < 0) {
			ftp_nak_errno(f, &r, errno);
		} else {
			r.size = 4;
			wire_put_u32(r.data, j->crc);
		}
		close(j->fd);
		j->active = false;
		struct ftp_link *fl = &f->link[j->link];
		memcpy(fl->last_req, j->req, FTP_PAYLOAD_LEN);
		ftp_msg_pack(&r, fl->last_reply);
		fl->peer_sys = j->peer_sys;
		fl->peer_comp = j->peer_comp;
		fl->have_last = true;
		send_reply(f, j->link, j->peer_sys, j->peer_comp, fl->last_reply);
		return;
	}
}

/* One reply of the burst; false when the burst is over. */
static bool burst_step(struct ftp *f)
{
	struct ftp_burst *b = &f->burst;
	struct ftp_session *ss = &f->session[b->session];
	static struct ftp_msg r;
	static uint8_t payload[FTP_PAYLOAD_LEN];
	memset(&r, 0, sizeof(r));
	r.seq = b->seq++;
	r.session = b->session;
	r.opcode = FTP_OP_ACK;
	r.req_opcode = FTP_OP_BURST_READ_FILE;
	r.offset = b->offset;
	long n = ftp_session_read(ss, b->offset, r.data, b->chunk);
	if (n <= 0) {
		/* The end of the file (or a read error): said once, and the burst is over. */
		if (n < 0)
			ftp_nak_errno(f, &r, (int)-n);
		else
			ftp_nak(f, &r, FTP_ERR_EOF, 0);
		r.burst_complete = 1;
		b->active = false;
	} else {
		r.size = (uint8_t)n;
		b->offset += (uint32_t)n;
		b->left--;
		f->stats.bytes_read += (uint64_t)n;
		if (b->left == 0 || (uint32_t)n < b->chunk) {
			r.burst_complete = 1;
			b->active = false;
		}
	}
	f->stats.burst_packets++;
	ftp_msg_pack(&r, payload);
	send_reply(f, b->link, b->peer_sys, b->peer_comp, payload);
	return b->active;
}

unsigned int ftp_tick(struct ftp *f, unsigned int max_msgs)
{
	unsigned int sent = 0;
	if (f->crc.active && max_msgs > 0) {
		crc_step(f);
		if (!f->crc.active)
			sent++;
	}
	while (f->burst.active && sent < max_msgs) {
		burst_step(f);
		sent++;
	}
	return sent;
}

bool ftp_is_busy(const struct ftp *f)
{
	return f->burst.active || f->crc.active;
}

void ftp_fini(struct ftp *f)
{
	for (unsigned int s = 0; s < FTP_SESSIONS; s++)
		if (f->session[s].kind != FTP_SESSION_FREE)
			ftp_session_close(f, s);
	if (f->crc.active)
		close(f->crc.fd);
	f->crc.active = false;
	f->burst.active = false;
}
