// SPDX-License-Identifier: GPL-3.0-or-later
#include "pru_ring_harness.h"

#include <assert.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "pru/hal_pru.h"
#include "rc/input.h"
#include "rcin_e2e.h"

/* Both firmwares' rings have 300 entries. */
#define ENTRIES RCIN_PRU_RING_ENTRIES
#define HEAD_MARK 0xBEEF       /* in head's half of word 0: nobody may write it */

static_assert(RCIN_AIOPRU_RING_ENTRIES == ENTRIES, "one ring size");

/* --- the PRU's RAM ------------------------------------------------------- */

static void fw_thread_stop(struct pru_ram *r);

int pru_ram_setup(void **state, const struct pru_ring_fw *fw)
{
	struct pru_ram *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->fw = fw;
	assert_int_equal(emul_memwin_open(&r->mem, fw->win_len), 0);
	spy_init(&r->spy, r->mem.win);
	fw->start(r);
	*state = r;
	return 0;
}

int pru_ram_teardown(void **state)
{
	struct pru_ram *r = *state;

	/* A failed test leaves its firmware thread running: stop it before unmapping. */
	fw_thread_stop(r);

	/* Whatever a test did, the backend never wrote the window. */
	assert_int_equal(r->spy.writes, 0);
	assert_int_equal(((volatile uint16_t *)&r->mem.ram[r->fw->ring_off / 4])[0], HEAD_MARK);
	emul_memwin_close(&r->mem);
	free(r);
	return 0;
}

struct rcin *pru_ram_open(struct pru_ram *r)
{
	struct rcin *in = NULL;

	assert_int_equal(r->fw->open(&r->spy.m, r->fw->ring_off, &in), 0);
	assert_non_null(in);
	return in;
}

static volatile uint16_t *tail_ptr(struct pru_ram *r)
{
	return (volatile uint16_t *)&r->mem.ram[r->fw->ring_off / 4] + 1;
}

uint16_t pru_ram_tail(struct pru_ram *r)
{
	return __atomic_load_n(tail_ptr(r), __ATOMIC_RELAXED);
}

void pru_ram_set_tail(struct pru_ram *r, uint16_t tail)
{
	__atomic_store_n(tail_ptr(r), tail, __ATOMIC_RELEASE);
}

void pru_ram_start_at(struct pru_ram *r, uint16_t tail)
{
	((volatile uint16_t *)&r->mem.ram[r->fw->ring_off / 4])[0] = HEAD_MARK;
	pru_ram_set_tail(r, tail);
}

volatile uint32_t *pru_ram_entry(struct pru_ram *r, unsigned int i)
{
	size_t entry_bytes = (r->fw->ring_bytes - 4) / ENTRIES;

	return &r->mem.ram[(r->fw->ring_off + 4 + entry_bytes * i) / 4];
}

static void lap_on_read(struct spy *s, size_t off)
{
	struct pru_ram *r = s->ctx;

	if (off >= r->fw->ring_off + 4 && off < r->fw->ring_off + r->fw->ring_bytes &&
	    ++r->lap_reads == r->lap_at)
		r->lap(r);
}

void pru_ram_lap_after_read(struct pru_ram *r, unsigned int nth, void (*lap)(struct pru_ram *r))
{
	r->lap_reads = 0;
	r->lap_at = nth;
	r->lap = lap;
	r->spy.ctx = r;
	r->spy.on_read = lap_on_read;
}

/* --- single-threaded: the firmware writes, then the test reads ------------ */

void test_pru_ring_open_refuses_a_ring_outside_the_window(void **state)
{
	struct pru_ram *r = *state;
	const struct pru_ring_fw *fw = r->fw;
	struct rcin *in = NULL;

	assert_int_equal(fw->open(r->mem.win, fw->win_len - fw->ring_bytes + 4, &in), -EINVAL);
	assert_int_equal(fw->open(r->mem.win, fw->ring_off + 2, &in), -EINVAL);
	assert_int_equal(fw->open(r->mem.win, fw->win_len + 4096, &in), -EINVAL);
	assert_null(in);
	/* The last place it fits. */
	assert_int_equal(fw->open(r->mem.win, fw->win_len - fw->ring_bytes, &in), 0);
	rcin_close(in);
}

void test_pru_ring_open_refuses_all_ones_and_an_impossible_tail(void **state)
{
	struct pru_ram *r = *state;
	const struct pru_ring_fw *fw = r->fw;
	struct rcin *in = NULL;

	memset((void *)r->mem.ram, 0xFF, fw->win_len);
	assert_int_equal(fw->open(r->mem.win, fw->ring_off, &in), -ENXIO);
	fw->run_at(r, ENTRIES);
	assert_int_equal(fw->open(r->mem.win, fw->ring_off, &in), -EPROTO);
	fw->run_at(r, 0xFFFF);
	assert_int_equal(fw->open(r->mem.win, fw->ring_off, &in), -EPROTO);
	assert_null(in);
	fw->run_at(r, ENTRIES - 1);
	assert_int_equal(fw->open(r->mem.win, fw->ring_off, &in), 0);
	rcin_close(in);
}

void test_pru_ring_treats_a_quiet_pin_as_no_error(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[8];
	struct rcin *in = pru_ram_open(r);

	for (uint64_t t = 0; t < 10000; t++)
		assert_int_equal(rcin_read(in, p, 8, 1000000 + t * 1000), 0);
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

/* --- end to end: a receiver's waveform through the ring into the decoders - */

void test_pru_ring_ppm_waveform_decodes_through_the_ring(void **state)
{
	struct pru_ram *r = *state;

	for (int pulse_high = 0; pulse_high <= 1; pulse_high++) {
		r->fw->start(r);
		struct rcin *in = pru_ram_open(r);
		/* 30 s idle first: more than either firmware's count of a level holds. */
		wave_ppm(pulse_high);
		size_t nf = r->fw->play(r, in, 100000000, 1000);
		/* Lock takes the first few frames (rc/input.h). */
		assert_true(nf >= 30 - 5);
		for (size_t k = 0; k < nf; k++)
			assert_channels(&frames[k], RC_PROTOCOL_PPM, ppm_ch, 8);
		assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
		rcin_close(in);
	}
}

void test_pru_ring_sbus_waveform_decodes_through_the_ring(void **state)
{
	struct pru_ram *r = *state;

	/*
	 * SBUS from pulses tells the pin's levels apart, as PPM-sum does not:
	 * this is the test of which level an entry says (rcinpru0's: the one
	 * that ENDED; the AioPRU's: a high, then the low after it).
	 */
	struct rcin *in = pru_ram_open(r);
	wave_sbus();
	size_t nf = r->fw->play(r, in, 200000000, 1000);
	assert_true(nf >= 30 - 3);
	for (size_t k = 0; k < nf; k++)
		assert_channels(&frames[k], RC_PROTOCOL_SBUS, sbus_ch, 16);
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	rcin_close(in);
}

/* --- two threads: the firmware runs in real time while the test reads ---- */

struct fw_thread {
	struct pru_ram *r;
	uint64_t t0_us;             /* the first low level starts here */
	size_t pairs;               /* how many to play */
	bool burst;                 /* bursts of BURST_PAIRS */
	pthread_t th;
	atomic_bool done;
	atomic_bool stop;
	/*
	 * Pairs the reader has taken, for the PPM stream: its sync gaps stretch
	 * rather than the PRU lapping a reader that a busy host runs late, so
	 * the test's verdict does not depend on the host. Lapping is tested
	 * deterministically in each test file, and by the bursts below.
	 */
	atomic_size_t taken;
};

#define LIVE_FRAMES 40
#define BURST_PAIRS 500
#define BURST_GAP_US 5000
#define PPM_BEHIND_MAX (ENTRIES - 40)      /* entries */
#define PPM_GAP_MAX_US 65535               /* what rcinpru0's entry holds */

/* PPM-sum of 8 channels in 20 ms frames: pair k of a frame is (300, ch - 300). */
static void ppm_pair(size_t k, uint32_t *low, uint32_t *high)
{
	size_t frame = k / 9, i = k % 9;

	*low = 300;
	if (i < 8) {
		*high = (uint32_t)(1000 + (frame * 37 + i * 111) % 1000 - 300);
	} else {
		uint32_t used = 0;
		for (size_t j = 0; j < 8; j++)
			used += 1000 + (frame * 37 + j * 111) % 1000;
		*high = 20000 - used - 300;
	}
}

/*
 * The bursts: levels of 10..41 us (SBUS's bit is 10 us, the fastest RC signal
 * there is), each pair saying which it is, so a pair made of two shows.
 */
static void burst_pair(size_t k, uint32_t *low, uint32_t *high)
{
	*low = (uint32_t)(10 + k % 32);
	*high = (uint32_t)(10 + (k * 7 + 3) % 32);
}

static void spin_until_us(uint64_t t_us)
{
	while (mono_us() < t_us)
		;
}

/* Plays pairs (low, high) on the pin, then one more low to end the last high. */
static void *fw_run(void *arg)
{
	struct fw_thread *f = arg;
	const struct pru_ring_fw *fw = f->r->fw;
	uint64_t t = f->t0_us;

	for (size_t k = 0; k < f->pairs && !atomic_load(&f->stop); k++) {
		uint32_t low, high;
		if (f->burst) {
			if (k % BURST_PAIRS == 0) {
				t += BURST_GAP_US;
				sleep_until_us(t);
			}
			burst_pair(k, &low, &high);
			t += low;
			spin_until_us(t);
			fw->level(f->r, false, low);
			t += high;
			spin_until_us(t);
			fw->level(f->r, true, high);
			continue;
		}
		ppm_pair(k, &low, &high);
		t += low;
		sleep_until_us(t);
		fw->level(f->r, false, low);
		t += high;
		sleep_until_us(t);
		/*
		 * A reader that has fallen most of a ring behind: the
		 * transmitter's sync gap grows (up to PPM_GAP_MAX_US in all) until
		 * it catches up, and the PRU, timing the level, records its true
		 * length. (A loaded host that kept this thread waiting longer
		 * would have wrapped rcinpru0's 16 bits to a short one.)
		 */
		if (k % 9 == 8) {
			uint64_t end = t + PPM_GAP_MAX_US - high;
			while ((k + 1 - atomic_load(&f->taken)) * fw->entries_per_pair >= PPM_BEHIND_MAX &&
			       !atomic_load(&f->stop) && mono_us() < end)
				sleep_until_us(mono_us() + 200);
			uint64_t now = mono_us();
			if (now > t) {
				uint64_t gap = high + (now - t);
				high = (uint32_t)(gap < PPM_GAP_MAX_US ? gap : PPM_GAP_MAX_US);
				t = now;
			}
		}
		fw->level(f->r, true, high);
	}
	/* The AioPRU shows a high only with the low after it. */
	t += 300;
	sleep_until_us(t);
	fw->level(f->r, false, 300);
	atomic_store(&f->done, true);
	return NULL;
}

static void fw_thread_start(struct pru_ram *r, struct fw_thread *f)
{
	f->r = r;
	assert_int_equal(pthread_create(&f->th, NULL, fw_run, f), 0);
	r->live = f;
}

static void fw_thread_stop(struct pru_ram *r)
{
	if (!r->live)
		return;
	atomic_store(&r->live->stop, true);
	pthread_join(r->live->th, NULL);
	r->live = NULL;
}

void test_pru_ring_follows_a_live_ppm_stream_around_the_ring(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[64];
	/* Not on this stack: a failed assertion leaves the thread for teardown to stop. */
	static struct fw_thread f;
	size_t k = 0, close_stamps = 0, nf = 0, stale = 0;
	uint64_t nominal = 0, last_t = 0, slack = 0;
	struct rc_input dec;

	memset(&f, 0, sizeof f);
	f.pairs = 9 * LIVE_FRAMES;
	rc_input_init(&dec);
	/* A firmware that has run a while: the stream wraps the ring early on. */
	r->fw->run_at(r, 250);
	struct rcin *in = pru_ram_open(r);
	f.t0_us = mono_us() + 2000;
	nominal = f.t0_us;
	fw_thread_start(r, &f);
	/* The rcin thread at 1 kHz, on absolute deadlines. */
	for (uint64_t tick = mono_us(); k < f.pairs; tick += 1000) {
		sleep_until_us(tick);
		bool done = atomic_load(&f.done);
		uint64_t now = mono_us();
		int n = rcin_read(in, p, 64, now);
		/*
		 * An edge that came between now and the ring's tail being read
		 * is stamped at now, that much early, and the stamps after it
		 * keep the offset.
		 */
		if (mono_us() - now > slack)
			slack = mono_us() - now;
		assert_true(n >= 0);
		for (int i = 0; i < n; i++, k++) {
			uint32_t low, high;
			ppm_pair(k, &low, &high);
			assert_int_equal(p[i].low_us, low);
			if (k % 9 == 8) {      /* a sync gap: longer where the reader fell behind */
				assert_true(p[i].high_us >= high);
				high = p[i].high_us;
				/* so long that the decoder drops the frame it ends as
				 * stale; the first sync ends none (seen long under
				 * qemu-arm at load 11, the reader late from the start) */
				stale += k > 8 && low + high > RC_STALE_US;
			} else {
				assert_int_equal(p[i].high_us, high);
			}
			nominal += (uint64_t)low + high;
			/* Not before the edge (but for that), not after the read, not backwards. */
			assert_true(p[i].t_us + slack >= nominal);
			assert_true(p[i].t_us <= now);
			assert_true(p[i].t_us >= last_t);
			last_t = p[i].t_us;
			if (p[i].t_us - nominal <= 2000)
				close_stamps++;
			/* The frame a sync ends: the 8 channels of that frame. */
			struct rc_frame fr;
			if (rc_input_pulse(&dec, p[i].low_us, p[i].high_us, p[i].t_us, &fr)) {
				uint16_t ch[8];
				for (size_t j = 0; j < 8; j++) {
					ppm_pair(k - 8 + j, &low, &high);
					ch[j] = (uint16_t)(low + high);
				}
				assert_int_equal(k % 9, 8);
				assert_channels(&fr, RC_PROTOCOL_PPM, ch, 8);
				nf++;
			}
		}
		atomic_store(&f.taken, k);
		if (done && n == 0 && k < f.pairs)
			fail_msg("the ring lost pairs: %zu of %zu", k, f.pairs);
	}
	fw_thread_stop(r);
	assert_int_equal(k, f.pairs);
	/* The ring went round. */
	assert_true(f.pairs * r->fw->entries_per_pair > ENTRIES);
	assert_int_equal(rcin_stats(in)->bad + rcin_stats(in)->overruns, 0);
	/* How close the stamps came depends on how busy the host is: a figure, not a verdict. */
	print_message("live stream: %zu of %zu stamps within 2 ms of the edge, %zu frames, "
		      "%zu stale\n", close_stamps, f.pairs, nf, stale);
	/*
	 * Every frame is accounted for, whatever the host's load did to the
	 * gaps: the 40 syncs end 39 frames (the first sync only starts one).
	 * The first is refused, as a channel count not yet seen twice; each
	 * other is decoded or dropped as stale. How many decoded ones came out
	 * depends on locking, which a stall of more than RC_INPUT_LOCK_TIMEOUT_US
	 * undoes: a figure, above, and not none.
	 */
	const struct rc_stats *ppm = rc_input_stats(&dec, RC_PROTOCOL_PPM);
	assert_int_equal(ppm->rejected[RC_REJECT_CHANNELS], 1);
	assert_int_equal(rc_stats_rejected(ppm), 1);
	assert_int_equal(ppm->stale_frames, stale);
	assert_int_equal(ppm->frames + ppm->stale_frames + 1, LIVE_FRAMES - 1);
	assert_true(nf > 0 && nf <= ppm->frames);
	rcin_close(in);
}

void test_pru_ring_survives_bursts_that_overflow_the_ring(void **state)
{
	struct pru_ram *r = *state;
	struct rcin_pulse p[ENTRIES];
	static struct fw_thread f;   /* not on this stack, as above */
	size_t got = 0, mixed = 0, captures = 0;
	uint64_t last_t = 0;

	memset(&f, 0, sizeof f);
	f.pairs = 12 * BURST_PAIRS;
	f.burst = true;
	r->fw->run_at(r, 7);
	struct rcin *in = pru_ram_open(r);
	f.t0_us = mono_us();
	fw_thread_start(r, &f);
	/* Read too slowly for SBUS: the ring overflows between two reads. */
	for (uint64_t tick = mono_us();; tick += r->fw->burst_poll_us) {
		sleep_until_us(tick);
		bool done = atomic_load(&f.done);
		uint64_t now = mono_us();
		int n = rcin_read(in, p, ENTRIES, now);
		assert_true(n >= 0 && (unsigned int)n <= r->fw->pairs_per_read_max);
		for (int i = 0; i < n; i++) {
			uint32_t low = p[i].low_us, high;
			assert_true(low >= 10 && low < 42);
			assert_true(p[i].high_us >= 10 && p[i].high_us < 42);
			burst_pair((size_t)(low - 10), &low, &high);
			/* A low and a high either side of a lap the ring cannot show. */
			if (p[i].high_us != high)
				mixed++;
			assert_true(p[i].t_us <= now);
			assert_true(p[i].t_us >= last_t);
			last_t = p[i].t_us;
		}
		captures += n > 0;
		got += (size_t)n;
		if (done && n == 0)
			break;
	}
	fw_thread_stop(r);
	print_message("bursts: %zu of %zu pairs read in %zu reads, %zu joined across a lap, "
		      "%llu overruns seen\n", got, f.pairs, captures, mixed,
		      (unsigned long long)rcin_stats(in)->overruns);
	/* The ring overflowed, and what came through is almost all whole pairs. */
	assert_true(got > 0 && got < f.pairs);
	assert_true(mixed * 10 <= got);
	assert_int_equal(rcin_stats(in)->bad, 0);
	rcin_close(in);
}
