// SPDX-License-Identifier: GPL-3.0-or-later
/* The MAVLink FTP server's operations: what each request does, and which one it is. */
#include "mavlink/ftp_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mavlink/wire.h"

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

/* Runs one request; false when its reply goes later (a burst, a CRC). */
bool ftp_dispatch(struct ftp *f, int link, uint8_t sys, uint8_t comp, const uint8_t *raw,
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
