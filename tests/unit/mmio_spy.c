// SPDX-License-Identifier: GPL-3.0-or-later
#include "mmio_spy.h"

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "linux/hal_linux.h"

int emul_memwin_open(struct emul_memwin *m, size_t len)
{
	char path[64];

	m->len = len;
	m->fd = memfd_create("fulmar-window", MFD_CLOEXEC);
	if (m->fd < 0)
		return -errno;
	if (ftruncate(m->fd, (off_t)len) != 0)
		goto fail;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", m->fd);
	const struct mmio_config cfg = { .mem_path = path, .phys_base = 0, .len = len };
	int rc = mmio_linux_open(&cfg, "/sys", &m->win);
	if (rc) {
		close(m->fd);
		return rc;
	}
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
	if (p == MAP_FAILED) {
		mmio_close(m->win);
		goto fail;
	}
	m->ram = p;
	return 0;
fail:
	rc = -errno;
	close(m->fd);
	return rc;
}

void emul_memwin_close(struct emul_memwin *m)
{
	munmap((void *)m->ram, m->len);
	mmio_close(m->win);
	close(m->fd);
}

static uint32_t spy_read32(struct mmio *m, size_t off)
{
	struct spy *s = (struct spy *)m;
	uint32_t v = mmio_read32(s->real, off);

	s->reads++;
	if (s->on_read)
		s->on_read(s, off);
	return v;
}

static void spy_write32(struct mmio *m, size_t off, uint32_t value)
{
	struct spy *s = (struct spy *)m;

	s->writes++;
	if (s->limit && (off >= s->limit || off % 4 != 0))
		s->outside++;
	mmio_write32(s->real, off, value);
}

static void spy_close(struct mmio *m)
{
	(void)m;
}

static const struct mmio_ops spy_ops = {
	.read32 = spy_read32,
	.write32 = spy_write32,
	.close = spy_close,
};

void spy_init(struct spy *s, struct mmio *real)
{
	s->m.ops = &spy_ops;
	s->m.len = mmio_len(real);
	s->real = real;
}

uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void sleep_until_us(uint64_t t_us)
{
	struct timespec ts = { .tv_sec = (time_t)(t_us / 1000000u),
			       .tv_nsec = (long)(t_us % 1000000u) * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}
