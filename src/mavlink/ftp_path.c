// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The MAVLink FTP server's paths: where a request's path points, its files
 * opened without leaving root or log_dir, the virtual files' bytes.
 */
#include "mavlink/ftp_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_COMPONENTS 16u

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
enum ftp_err ftp_parse_path(struct ftp *f, const uint8_t *text, size_t len, struct ftp_path *p)
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
int ftp_walk(struct ftp *f, enum ftp_area a, char *rel, const char **leaf)
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
int ftp_open_path(struct ftp *f, enum ftp_area a, char *rel, int flags, mode_t mode)
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
int ftp_open_regular(struct ftp *f, enum ftp_area area, char *rel, int flags, mode_t mode,
		     struct stat *st)
{
	int fd = ftp_open_path(f, area, rel, flags, mode);
	if (fd >= 0 && (fstat(fd, st) != 0 || !S_ISREG(st->st_mode))) {
		close(fd);
		fd = -EISDIR;
	}
	return fd;
}

/* A virtual file's bytes into buf; its length or -errno. */
long ftp_virtual_read(struct ftp *f, const struct ftp_path *p, uint8_t *buf, size_t len)
{
	if (p->area == FTP_AREA_PARAM_FILE)
		return ftp_param_pack(p->query, buf, len);
	if (!f->cfg.sys_read)
		return -ENOENT;
	return f->cfg.sys_read(f->cfg.sys_ctx, p->leaf, (char *)buf, len);
}

bool ftp_is_virtual(enum ftp_area a)
{
	return a == FTP_AREA_PARAM_FILE || a == FTP_AREA_SYS_FILE;
}
