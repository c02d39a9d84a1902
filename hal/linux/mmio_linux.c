// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Register windows mapped into the process: a UIO device's map (found by the
 * name its kernel driver gave it) or a physical range of a memory device.
 *
 * UIO convention (Documentation/driver-api/uio-howto.rst): map N of /dev/uioX
 * is mmapped at file offset N * page size; its size and its start within the
 * first page are in /sys/class/uio/uioX/maps/mapN/{size,offset}.
 *
 * The device node is looked up in the "dev" directory next to sysfs_root:
 * "/sys" gives "/dev", and a test's "<tmp>/sys" gives "<tmp>/dev".
 */
#include "linux/hal_linux.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct mmio_linux {
	struct mmio m;
	void *map;
	size_t map_len;
	volatile uint32_t *regs;  /* the window's start inside map */
};

/* Where a window lives in which file, before it is mapped. */
struct mmio_linux_src {
	char path[PATH_MAX];
	off_t file_off;    /* page aligned */
	size_t page_off;   /* where the window starts in the first page */
	size_t avail;      /* bytes from page_off on that the source has */
};

__attribute__((format(printf, 3, 4)))
static int mmio_linux_path(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* A sysfs attribute without its trailing newline. */
static int mmio_linux_read_attr(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, cap - 1);
	int err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return 0;
}

/* A sysfs number ("0x00001000" for map sizes); garbage there is an I/O error, not ours. */
static int mmio_linux_read_u64(const char *path, uint64_t *out)
{
	char buf[32];
	char *end;

	int err = mmio_linux_read_attr(path, buf, sizeof(buf));
	if (err)
		return err;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 0);
	if (errno || end == buf || *end != '\0')
		return -EIO;
	*out = v;
	return 0;
}

/* The N of the uioN whose name is name; -ENODEV when there is none. */
static int mmio_linux_find_uio(const char *sysfs_root, const char *name, unsigned int *out)
{
	char path[PATH_MAX];
	char found[64];
	struct dirent *de;
	int err;

	err = mmio_linux_path(path, sizeof(path), "%s/class/uio", sysfs_root);
	if (err)
		return err;
	DIR *dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ENODEV : -errno;
	err = -ENODEV;
	while ((de = readdir(dir))) {
		char *end;

		if (strncmp(de->d_name, "uio", 3) != 0 || !isdigit((unsigned char)de->d_name[3]))
			continue;
		unsigned long n = strtoul(de->d_name + 3, &end, 10);
		if (*end != '\0' || n > UINT_MAX)
			continue;
		/* A device that vanishes or cannot be read mid-scan is simply not the one. */
		if (mmio_linux_path(path, sizeof(path), "%s/class/uio/%s/name", sysfs_root,
				    de->d_name) ||
		    mmio_linux_read_attr(path, found, sizeof(found)) ||
		    strcmp(found, name) != 0)
			continue;
		*out = (unsigned int)n;
		err = 0;
		break;
	}
	closedir(dir);
	return err;
}

/* "/sys" -> "/dev/uioN", "<dir>/sys" -> "<dir>/dev/uioN", "sys" -> "dev/uioN". */
static int mmio_linux_uio_node(const char *sysfs_root, unsigned int n, char *buf, size_t cap)
{
	size_t len = strlen(sysfs_root);
	size_t slash;

	while (len > 1 && sysfs_root[len - 1] == '/')
		len--;
	for (slash = len; slash > 0 && sysfs_root[slash - 1] != '/'; slash--)
		;
	if (slash == 0)
		return mmio_linux_path(buf, cap, "dev/uio%u", n);
	if (slash - 1 > INT_MAX)
		return -ENAMETOOLONG;
	return mmio_linux_path(buf, cap, "%.*s/dev/uio%u", (int)(slash - 1), sysfs_root, n);
}

static int mmio_linux_uio_src(const struct mmio_config *cfg, const char *sysfs_root,
			      size_t page, struct mmio_linux_src *src)
{
	char path[PATH_MAX];
	uint64_t size, offset = 0;
	unsigned int n = 0;
	int err;

	err = mmio_linux_find_uio(sysfs_root, cfg->uio_name, &n);
	if (err)
		return err;
	err = mmio_linux_path(path, sizeof(path), "%s/class/uio/uio%u/maps/map%u/size",
			      sysfs_root, n, cfg->uio_map);
	if (err)
		return err;
	err = mmio_linux_read_u64(path, &size);
	if (err)
		return err == -ENOENT ? -ENODEV : err;
	/* Kernels before 3.12 have no offset attribute: their maps start on a page. */
	err = mmio_linux_path(path, sizeof(path), "%s/class/uio/uio%u/maps/map%u/offset",
			      sysfs_root, n, cfg->uio_map);
	if (err)
		return err;
	err = mmio_linux_read_u64(path, &offset);
	if (err && err != -ENOENT)
		return err;
	if (offset >= page || offset % 4 != 0 || size > SIZE_MAX)
		return -EIO;
	err = mmio_linux_uio_node(sysfs_root, n, src->path, sizeof(src->path));
	if (err)
		return err;
	src->file_off = (off_t)cfg->uio_map * (off_t)page;
	src->page_off = (size_t)offset;
	src->avail = (size_t)size;
	return 0;
}

static int mmio_linux_mem_src(const struct mmio_config *cfg, size_t page,
			      struct mmio_linux_src *src)
{
	/* A 32-bit build without 64-bit off_t cannot reach above 2 GiB. */
	const uint64_t off_max = sizeof(off_t) >= 8 ? (uint64_t)INT64_MAX : (uint64_t)INT32_MAX;

	if (!cfg->mem_path || cfg->phys_base % page != 0)
		return -EINVAL;
	if (cfg->phys_base > off_max)
		return -EOVERFLOW;
	int err = mmio_linux_path(src->path, sizeof(src->path), "%s", cfg->mem_path);
	if (err)
		return err;
	src->file_off = (off_t)cfg->phys_base;
	src->page_off = 0;
	src->avail = SIZE_MAX;
	return 0;
}

static uint32_t mmio_linux_read32(struct mmio *m, size_t off)
{
	return ((struct mmio_linux *)m)->regs[off / 4];
}

static void mmio_linux_write32(struct mmio *m, size_t off, uint32_t value)
{
	((struct mmio_linux *)m)->regs[off / 4] = value;
}

static void mmio_linux_close(struct mmio *m)
{
	struct mmio_linux *w = (struct mmio_linux *)m;

	munmap(w->map, w->map_len);
	free(w);
}

static const struct mmio_ops mmio_linux_ops = {
	.read32 = mmio_linux_read32,
	.write32 = mmio_linux_write32,
	.close = mmio_linux_close,
};

int mmio_linux_open(const struct mmio_config *cfg, const char *sysfs_root, struct mmio **out)
{
	struct mmio_linux_src src;
	long page_l = sysconf(_SC_PAGESIZE);
	int err;

	if (page_l <= 0)
		return -EINVAL;
	size_t page = (size_t)page_l;
	if (cfg->len == 0 || cfg->len % 4 != 0)
		return -EINVAL;
	err = cfg->uio_name ? mmio_linux_uio_src(cfg, sysfs_root, page, &src)
			    : mmio_linux_mem_src(cfg, page, &src);
	if (err)
		return err;
	if (cfg->len > src.avail || cfg->len > SIZE_MAX - page - src.page_off)
		return -EINVAL;

	struct mmio_linux *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->m.ops = &mmio_linux_ops;
	w->m.len = cfg->len;
	w->map_len = (src.page_off + cfg->len + page - 1) / page * page;

	/* O_SYNC: /dev/mem then maps the range uncached, as registers need. */
	int fd = open(src.path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto err_free;
	}
	w->map = mmap(NULL, w->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, src.file_off);
	err = w->map == MAP_FAILED ? -errno : 0;
	/* The mapping holds its own reference to the file. */
	close(fd);
	if (err)
		goto err_free;
	w->regs = w->map;
	w->regs += src.page_off / 4;
	*out = &w->m;
	return 0;

err_free:
	free(w);
	return err;
}
