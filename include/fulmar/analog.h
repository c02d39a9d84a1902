/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Analog inputs (battery voltage and current, board voltage), found by
 * device and channel name and read with the driver's scale applied.
 * A handle belongs to one thread. Functions return 0 or -errno.
 */
#ifndef FULMAR_ANALOG_H
#define FULMAR_ANALOG_H

struct analog_in;

struct analog_config {
	const char *device;     /* IIO device name ("ads1015") or id ("iio:device0") */
	const char *channel;    /* IIO channel id ("voltage2") or its label */
	/*
	 * Millivolts per count, for a driver that gives its channel no scale
	 * (the BeagleBone's am335x ADC: the board knows its 1.8 V over 4095
	 * counts); 0: none, raw counts. Where the driver gives a scale, that wins.
	 */
	double raw_mv_per_count;
};

/*
 * (raw + offset) * scale as the IIO ABI defines it: millivolts for voltage
 * channels, milliamps for current channels. A driver that gives no scale
 * (the BeagleBone's am335x ADC) gives raw counts times the configuration's
 * raw_mv_per_count, or raw counts when that is 0. Each read is a sysfs read: for the io or main
 * thread at housekeeping rates, not the timer thread. Written only on success.
 */
int analog_read(struct analog_in *in, double *value);
/* NULL is a no-op. */
void analog_close(struct analog_in *in);

/* For backends only. */
struct analog_ops {
	int (*read)(struct analog_in *in, double *value);
	void (*close)(struct analog_in *in);
};

struct analog_in {
	const struct analog_ops *ops;
};

#endif
