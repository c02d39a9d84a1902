/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the PRU RC input rings' tests share (test_rcin_pru.c for rcinpru0's
 * ring, test_rcin_aiopru.c for the AioPRU's): the PRU's RAM as a memfd the
 * backend maps through the real mmio backend and reads through a spy, while
 * the test plays the firmware on a mapping of its own (mmio_spy.h); the ring's
 * word 0 ({u16 head, u16 tail}, head never written: it holds a mark the
 * teardown checks, with the spy's count of writes); a firmware thread that
 * plays PPM or bursts in real time; and the tests whose bodies are the same
 * for both rings, run against the firmware a test file describes.
 */
#ifndef FULMAR_TEST_PRU_RING_HARNESS_H
#define FULMAR_TEST_PRU_RING_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fulmar/rcin.h"
#include "mmio_spy.h"

struct pru_ram;

/* A firmware, as a test file plays it. */
struct pru_ring_fw {
	int (*open)(struct mmio *win, size_t off, struct rcin **out);
	size_t win_len;                  /* the PRU RAM the ring is in */
	size_t ring_off;
	size_t ring_bytes;
	unsigned int entries_per_pair;   /* entries a low and a high take */
	unsigned int pairs_per_read_max; /* what one read of a full ring gives at most */
	uint32_t burst_poll_us;          /* reads too slow for the bursts: the ring overflows */
	/* Its start-up; a firmware that has run until its tail was tail. */
	void (*start)(struct pru_ram *r);
	void (*run_at)(struct pru_ram *r, uint16_t tail);
	/* The pin was high (or low) for dur_us, until now. */
	void (*level)(struct pru_ram *r, bool high, uint32_t dur_us);
	/*
	 * Plays the wave (rcin_e2e.h) from t0_us on, reads the ring every
	 * poll_us and gives every pair to the decoders; returns the frames.
	 */
	size_t (*play)(struct pru_ram *r, struct rcin *in, uint64_t t0_us, uint32_t poll_us);
};

struct pru_ram {
	const struct pru_ring_fw *fw;
	struct emul_memwin mem;     /* the backend's window (win) and the PRU's side (ram) */
	struct spy spy;             /* the same window, through a spy */
	uint16_t index;             /* the firmware's own: the entry it writes next (AioPRU) */
	uint32_t high_us;           /* the firmware's own: the high its next entry holds (AioPRU) */
	unsigned int lap_reads, lap_at;
	void (*lap)(struct pru_ram *r);
	struct fw_thread *live;     /* a firmware thread, stopped by teardown */
};

int pru_ram_setup(void **state, const struct pru_ring_fw *fw);
int pru_ram_teardown(void **state);
/* The backend on the ring, through the spy. */
struct rcin *pru_ram_open(struct pru_ram *r);

uint16_t pru_ram_tail(struct pru_ram *r);
void pru_ram_set_tail(struct pru_ram *r, uint16_t tail);
/* A firmware starting at tail: the head mark, then the tail. */
void pru_ram_start_at(struct pru_ram *r, uint16_t tail);
volatile uint32_t *pru_ram_entry(struct pru_ram *r, unsigned int i);
/* After the backend's nth read of an entry, the PRU calls lap(r) (spy.on_read). */
void pru_ram_lap_after_read(struct pru_ram *r, unsigned int nth, void (*lap)(struct pru_ram *r));

void test_pru_ring_open_refuses_a_ring_outside_the_window(void **state);
void test_pru_ring_open_refuses_all_ones_and_an_impossible_tail(void **state);
void test_pru_ring_treats_a_quiet_pin_as_no_error(void **state);
void test_pru_ring_ppm_waveform_decodes_through_the_ring(void **state);
void test_pru_ring_sbus_waveform_decodes_through_the_ring(void **state);
void test_pru_ring_follows_a_live_ppm_stream_around_the_ring(void **state);
void test_pru_ring_survives_bursts_that_overflow_the_ring(void **state);

#endif
