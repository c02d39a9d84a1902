/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * NXP PCA9685 16-channel PWM controller on I2C, as a servo/ESC output (the
 * Navio's RC outputs).
 *
 * Set-up is a state machine over a caller-owned struct pca9685 (no sleeps,
 * no clock; calls take now_us): outputs disabled and all channels full-off,
 * sleep (the prescaler can only be written asleep), prescaler, switch to
 * the external clock if there is one (EXTCLK is sticky until power-off),
 * wake, the 500 us the oscillator needs, restart, read-back check, and the
 * output-enable line turned on. Outputs are low (full-off) until written.
 *
 * PWM frequency: prescale = ceil(osc / (4096 * freq)) - 1, rounded up so
 * the period is never shorter than asked for (an ESC or servo given a
 * 2000 us pulse must see a gap); the frequency actually made is
 * osc / (4096 * (prescale + 1)). With the Navio's 24.576 MHz clock, 50 Hz
 * and 400 Hz come out exact. Pulse widths are converted with the actual
 * frequency: counts = round(us * osc / ((prescale + 1) * 1e6)), the output
 * high from count 0 (LEDn_ON = 0) to count LEDn_OFF; 0 us is full-off;
 * pulses of a whole period or more are clamped to 4095 counts.
 *
 * The internal oscillator is nominally 25 MHz and known to run several
 * percent off; a board that measured its chip passes that rate as osc_hz.
 *
 * Thread: the one that owns the I2C handle (the main thread, which
 * computes outputs). If another thread uses the same bus (a barometer on
 * the timer thread), it opens its own handle: the kernel serialises
 * transfers on one adapter. Errors are returned and counted; a failed
 * write leaves the outputs at their previous values, which the chip keeps
 * producing on its own.
 */
#ifndef FULMAR_DRIVERS_PCA9685_H
#define FULMAR_DRIVERS_PCA9685_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct i2c_bus;
struct gpio_line;

#define PCA9685_I2C_ADDR 0x40
#define PCA9685_CHANNELS 16
#define PCA9685_INTERNAL_OSC_HZ 25000000u

struct pca9685_config {
	struct i2c_bus *bus;
	uint8_t addr;                     /* 0: PCA9685_I2C_ADDR */
	uint32_t osc_hz;                  /* internal oscillator's rate; 0: 25 MHz nominal */
	uint32_t ext_clock_hz;            /* clock on EXTCLK (Navio: 24576000); 0: none */
	uint8_t channel_offset;           /* chip output used as channel 0 (Navio: 3) */
	uint16_t freq_hz;                 /* PWM frequency; 0: 50 Hz */
	/*
	 * Output enable, logical 1 = outputs on. The chip's /OE pin is active
	 * low: request the line with active_low set. NULL when not wired.
	 */
	struct gpio_line *output_enable;
};

struct pca9685_stats {
	uint32_t bus_errors;
	uint32_t gpio_errors;
	uint32_t writes;                  /* successful output updates */
	uint32_t setups;
	uint32_t config_errors;           /* prescaler that did not read back */
};

struct pca9685 {
	struct pca9685_config cfg;
	int state;
	uint64_t next_us;
	uint32_t clock_hz;
	uint8_t prescale;
	uint8_t mode1;                    /* AI, and EXTCLK when used */
	uint8_t attempts;
	struct pca9685_stats stats;
};

/*
 * No bus traffic. -EINVAL for a NULL bus, a channel offset of 16 or more,
 * or a frequency the prescaler cannot make (3..255: about 24 Hz to 1.5 kHz
 * at 25 MHz).
 */
int pca9685_init(struct pca9685 *p, const struct pca9685_config *cfg);
/*
 * Advances set-up: 0 while it goes on (or nothing to do yet), 1 once ready,
 * -errno from the bus or GPIO (retried on the next call after 10 ms), and
 * -ENODEV when the prescaler never read back as written (5 tries).
 */
int pca9685_poll(struct pca9685 *p, uint64_t now_us);
bool pca9685_is_ready(const struct pca9685 *p);
uint64_t pca9685_next_poll_us(const struct pca9685 *p);

/*
 * Sets channel ch (0 is the chip's output channel_offset) to pulse_us. One
 * 3-byte I2C write (only LEDn_OFF changes). -EAGAIN before set-up finished,
 * -EINVAL for a channel past the chip's last output.
 */
int pca9685_write_us(struct pca9685 *p, unsigned int ch, uint16_t pulse_us);
/* Channels first .. first + n - 1 in one I2C write (auto-increment). */
int pca9685_write_range_us(struct pca9685 *p, unsigned int first, const uint16_t *pulse_us,
			   size_t n);
/* Drives the output-enable line (no-op without one); outputs keep their values. */
int pca9685_set_outputs_enabled(struct pca9685 *p, bool on);

/* The frequency actually made, in Hz. */
float pca9685_freq_hz(const struct pca9685 *p);
uint8_t pca9685_prescale(const struct pca9685 *p);
const struct pca9685_stats *pca9685_stats(const struct pca9685 *p);

/* Pure helpers, any thread. */
/* ceil(osc / (4096 * freq)) - 1, unclamped (the chip forces at least 3). */
uint32_t pca9685_prescale_for(uint32_t osc_hz, uint32_t freq_hz);
/* Counts for pulse_us at that clock and prescale, clamped to 4095. */
uint16_t pca9685_us_to_counts(uint32_t osc_hz, uint8_t prescale, uint32_t pulse_us);

#endif
