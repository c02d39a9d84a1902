/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Servo outputs on the kernel's PWM class (/sys/class/pwm/pwmchipN): any
 * board whose PWM controller has a kernel driver, e.g. the Navio2, whose
 * RCIO co-processor registers its outputs as pwmchip0. Seen by board files
 * and tests only; the rest of fulmar uses include/fulmar/rcout.h. Owned by
 * the main thread, like every rcout.
 */
#ifndef FULMAR_RCOUT_PWM_SYSFS_H
#define FULMAR_RCOUT_PWM_SYSFS_H

#include <stddef.h>
#include <stdint.h>

#include "fulmar/rcout.h"

/* rcout_set_rate takes a 32-bit mask. */
#define RCOUT_PWM_SYSFS_MAX_CHANNELS 32u
/* Channels that share one pulse rate: 0-3, 4-7, ... (see rcout_set_rate below). */
#define RCOUT_PWM_SYSFS_GROUP 4u
/* rcout_pwm_sysfs_refresh rewrites every channel once this much time has passed. */
#define RCOUT_PWM_SYSFS_REFRESH_US 40000u

/* Counts since open; only ever grow. */
struct rcout_pwm_sysfs_stats {
	uint64_t refused;       /* widths that did not fit 0..period, rates that did not fit a width */
	uint64_t write_errors;  /* sysfs writes that failed in flight (retried by the refresh) */
	uint64_t read_errors;   /* read-backs that failed or did not hold a number */
	uint64_t refreshes;     /* refreshes that rewrote every channel */
};

/*
 * Opens channels 0..channels-1 of the PWM chip at chip_dir
 * ("/sys/class/pwm/pwmchip0"; tests give a tree of their own): exports each,
 * then disables it, sets 50 Hz, a width of 0 (no pulses), normal polarity,
 * and enables it. Every output sends no pulses until rcout_write.
 * Returns 0 and writes *out, or -errno and a sentence in err (which may be
 * NULL), leaving *out alone and every channel it exported unexported:
 *   -ENODEV  chip_dir is not there (the PWM driver is not loaded);
 *   -EINVAL  channels is 0, above RCOUT_PWM_SYSFS_MAX_CHANNELS or above the
 *            chip's npwm;
 *   -EIO     a channel would not export (err names each and counts them), or
 *            npwm or a channel's period held something other than a number;
 *   other    a write the kernel refused (err names the file).
 *
 * rcout_set_rate(mask) sets the period of whole groups of
 * RCOUT_PWM_SYSFS_GROUP channels: on the Navio2's RCIO the rate is per group
 * of four (0-3, 4-7, 8-11, 12-15) and only a change written to a group's
 * first channel counts, so every channel of a group named in the mask gets the
 * new period, the first channel first. A chip with a rate per channel takes
 * the same writes. -EINVAL (counted) when a channel of those groups has a
 * width that does not fit the new period.
 * rcout_write refuses (-EINVAL, counted) a width that does not fit the
 * channel's period; a failed sysfs write returns -errno, is counted, and the
 * next rcout_pwm_sysfs_refresh tries it again.
 * rcout_read reads duty_cycle back from sysfs.
 * rcout_close writes width 0 and enable 0 to every channel, then unexports it.
 */
int rcout_pwm_sysfs_open(const char *chip_dir, unsigned int channels, struct rcout **out,
			 char *err, size_t err_len);

/*
 * Some PWM drivers need their outputs rewritten: the Navio2's RCIO module
 * stops sending the outputs to the co-processor when neither duty_cycle nor
 * period has been written for 100 ms. Call this from the main thread at least
 * every 10 ms (now_us: CLOCK_MONOTONIC): it rewrites every channel's width,
 * unchanged, once RCOUT_PWM_SYSFS_REFRESH_US have passed since it last did
 * (so at least every 50 ms), and at every call rewrites the channels whose
 * last write failed. Returns 0, or -EIO when a write failed (counted).
 * out must come from rcout_pwm_sysfs_open.
 */
int rcout_pwm_sysfs_refresh(struct rcout *out, uint64_t now_us);

/* The counts of a handle from rcout_pwm_sysfs_open; valid until rcout_close. */
const struct rcout_pwm_sysfs_stats *rcout_pwm_sysfs_stats(const struct rcout *out);

#endif
