// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The libiio analog backend (hal/linux/analog_iio.c) against the kernel's IIO
 * core and its dummy driver inside the kernel-test guest; the guest script
 * makes an iio_dummy device named adc0. Expected values are computed from the
 * IIO sysfs files directly (raw, offset, scale as the IIO ABI defines them),
 * not from libiio, so the backend's channel lookup and arithmetic are checked
 * against the kernel itself.
 */
#include <dirent.h>
#include <math.h>

#include "ktest.h"
#include "linux/hal_linux.h"

#define DEVICE_NAME "adc0"

static char dev_id[32];         /* "iio:deviceN" of adc0 */

static int find_device(void)
{
	DIR *d = opendir("/sys/bus/iio/devices");
	struct dirent *e;
	int rc = -ENODEV;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char path[300], name[64];

		if (strncmp(e->d_name, "iio:device", 10) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/iio/devices/%s/name", e->d_name);
		if (ktest_read(path, name, sizeof(name)) >= 0 && strcmp(name, DEVICE_NAME) == 0) {
			int n = snprintf(dev_id, sizeof(dev_id), "%s", e->d_name);
			rc = n > 0 && (size_t)n < sizeof(dev_id) ? 0 : -ENAMETOOLONG;
			break;
		}
	}
	closedir(d);
	return rc;
}

/* attr of adc0 ("in_voltage0_raw"); absent reads as dflt, as the IIO ABI says. */
static double sysfs_attr(const char *attr, double dflt)
{
	char path[128];
	double v;

	snprintf(path, sizeof(path), "/sys/bus/iio/devices/%s/%s", dev_id, attr);
	return ktest_read_double(path, &v) == 0 ? v : dflt;
}

static bool close_to(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

static void test_iio_dummy_device_is_there(void)
{
	KT_CHECK_OK(find_device());
	printf("#   %s is %s\n", DEVICE_NAME, dev_id);
}

/*
 * voltage0 by device name and channel id: (raw + offset) * scale. The dummy
 * has an offset and a scale that are not 0 and 1, and an output channel with
 * the same id, so a lookup of the wrong direction or a skipped term shows.
 */
static void test_iio_channel_by_name_applies_offset_and_scale(void)
{
	struct analog_in *in;
	double v = 0;
	double raw = sysfs_attr("in_voltage0_raw", (double)NAN);
	double offset = sysfs_attr("in_voltage0_offset", 0.0);
	double scale = sysfs_attr("in_voltage0_scale", 1.0);

	KT_CHECK(!isnan(raw), "no in_voltage0_raw");
	KT_CHECK(offset != 0.0 && scale != 1.0, "the dummy's offset %g and scale %g do not discriminate",
		 offset, scale);
	KT_CHECK_OK(analog_iio_open(&(const struct analog_config){ .device = DEVICE_NAME, .channel = "voltage0" }, &in));
	KT_CHECK_OK(analog_read(in, &v));
	double want = (raw + offset) * scale;
	printf("#   voltage0: raw %g offset %g scale %g -> %.9g mV, backend %.9g mV\n", raw,
	       offset, scale, want, v);
	KT_CHECK(close_to(v, want), "read %.9g mV, want %.9g", v, want);
	analog_close(in);
}

/* The same channel found by the device's id rather than its name. */
static void test_iio_device_by_id_finds_the_same_channel(void)
{
	struct analog_in *in;
	double v = 0;
	double want = (sysfs_attr("in_voltage0_raw", (double)NAN) + sysfs_attr("in_voltage0_offset", 0.0)) *
		      sysfs_attr("in_voltage0_scale", 1.0);

	KT_CHECK_OK(analog_iio_open(&(const struct analog_config){ .device = dev_id, .channel = "voltage0" }, &in));
	KT_CHECK_OK(analog_read(in, &v));
	KT_CHECK(close_to(v, want), "read %.9g, want %.9g", v, want);
	analog_close(in);
}

/* A differential channel whose scale the driver shares by type (in_voltage-voltage_scale). */
static void test_iio_differential_channel_gets_its_shared_scale(void)
{
	struct analog_in *in;
	double v = 0;
	double raw = sysfs_attr("in_voltage1-voltage2_raw", (double)NAN);
	double scale = sysfs_attr("in_voltage-voltage_scale", 1.0);

	KT_CHECK(!isnan(raw) && scale != 1.0, "raw %g scale %g", raw, scale);
	KT_CHECK_OK(analog_iio_open(&(const struct analog_config){ .device = DEVICE_NAME, .channel = "voltage1-voltage2" },
				    &in));
	KT_CHECK_OK(analog_read(in, &v));
	printf("#   voltage1-voltage2: raw %g scale %g -> %.9g, backend %.9g\n", raw, scale,
	       raw * scale, v);
	KT_CHECK(close_to(v, raw * scale), "read %.9g, want %.9g", v, raw * scale);
	analog_close(in);
}

/* A channel without scale or offset (accel_x has neither) gives raw counts. */
static void test_iio_channel_without_scale_gives_raw_counts(void)
{
	struct analog_in *in;
	double v = 0;
	double raw = sysfs_attr("in_accel_x_raw", (double)NAN);

	KT_CHECK(!isnan(raw), "no in_accel_x_raw");
	KT_CHECK_OK(analog_iio_open(&(const struct analog_config){ .device = DEVICE_NAME, .channel = "accel_x" }, &in));
	KT_CHECK_OK(analog_read(in, &v));
	KT_CHECK(close_to(v, raw), "read %g, want raw %g", v, raw);
	analog_close(in);
}

/* What is not there is -ENODEV: a missing device, channel, or a channel with no raw value. */
static void test_iio_missing_device_or_channel_gives_enodev(void)
{
	struct analog_in *in;

	int rc = analog_iio_open(&(const struct analog_config){ .device = "no-such-adc", .channel = "voltage0" }, &in);
	KT_CHECK(rc == -ENODEV, "missing device: %d", rc);
	rc = analog_iio_open(&(const struct analog_config){ .device = DEVICE_NAME, .channel = "voltage9" }, &in);
	KT_CHECK(rc == -ENODEV, "missing channel: %d", rc);
	/* The step counter is processed-only ("input", no "raw"). */
	rc = analog_iio_open(&(const struct analog_config){ .device = DEVICE_NAME, .channel = "steps" }, &in);
	KT_CHECK(rc == -ENODEV, "channel without raw: %d", rc);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	KT_RUN(test_iio_dummy_device_is_there);
	if (ktest.failed)
		return ktest_done();
	KT_RUN(test_iio_channel_by_name_applies_offset_and_scale);
	KT_RUN(test_iio_device_by_id_finds_the_same_channel);
	KT_RUN(test_iio_differential_channel_gets_its_shared_scale);
	KT_RUN(test_iio_channel_without_scale_gives_raw_counts);
	KT_RUN(test_iio_missing_device_or_channel_gives_enodev);
	return ktest_done();
}
