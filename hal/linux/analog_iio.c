// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Analog inputs through libiio (0.2x API). Each handle owns its own context,
 * so handles share nothing and two threads may each hold one.
 *
 * "scale" and "offset" are read once at open: on the ADCs we use they change
 * only when someone writes them (a gain or range change), which fulmar never
 * does in flight, and reading them every time would triple the sysfs (or
 * network) round trips per sample. "raw" is read on every analog_read, and
 * one read is an open/read/close of a sysfs file (a round trip to iiod for
 * "ip:"), so this is for the low-rate housekeeping thread, not the timer.
 */
#include "linux/hal_linux.h"

#include <assert.h>
#include <errno.h>
#include <iio.h>
#include <stdlib.h>
#include <string.h>

struct analog_iio {
	struct analog_in in;            /* first: the HAL hands out &in */
	struct iio_context *ctx;        /* owns chn */
	const struct iio_channel *chn;
	double scale;
	double offset;
};

/*
 * in is the first member of a struct analog_iio from calloc, so it is aligned
 * for one; the cast through void * says so to -Wcast-align on armhf, where
 * the doubles make struct analog_iio stricter than struct analog_in.
 */
static struct analog_iio *analog_iio_of(struct analog_in *in)
{
	return (struct analog_iio *)(void *)in;
}

static int analog_iio_read(struct analog_in *in, double *value)
{
	struct analog_iio *a = analog_iio_of(in);
	long long raw;

	/* libiio returns -errno itself. */
	int rc = iio_channel_attr_read_longlong(a->chn, "raw", &raw);
	if (rc < 0)
		return rc;
	*value = ((double)raw + a->offset) * a->scale;
	return 0;
}

static void analog_iio_close(struct analog_in *in)
{
	struct analog_iio *a = analog_iio_of(in);

	iio_context_destroy(a->ctx);
	free(a);
}

static const struct analog_ops analog_iio_ops = {
	.read = analog_iio_read,
	.close = analog_iio_close,
};

/* The IIO ABI makes scale and offset optional: absent means 1 and 0. */
static int analog_iio_read_optional(const struct iio_channel *chn, const char *attr,
				    double absent, double *value)
{
	if (!iio_channel_find_attr(chn, attr)) {
		*value = absent;
		return 0;
	}
	return iio_channel_attr_read_double(chn, attr, value);
}

/*
 * A channel's "label" attribute (in_voltage2_label, where the driver has one) is what a
 * device tree names a channel, but libiio 0.2x matches only ids and the
 * extend_name, so labels are looked up by reading each input's label.
 */
static const struct iio_channel *analog_iio_find_by_label(const struct iio_device *dev,
							   const char *label)
{
	unsigned int n = iio_device_get_channels_count(dev);

	for (unsigned int i = 0; i < n; i++) {
		const struct iio_channel *chn = iio_device_get_channel(dev, i);
		char buf[128];

		if (!chn || iio_channel_is_output(chn) || !iio_channel_find_attr(chn, "label"))
			continue;
		ssize_t len = iio_channel_attr_read(chn, "label", buf, sizeof(buf));
		if (len <= 0)
			continue;
		size_t end = strnlen(buf, sizeof(buf) - 1);
		buf[end] = '\0';
		/* sysfs ends its values with a newline; some backends keep it. */
		if (end > 0 && buf[end - 1] == '\n')
			buf[end - 1] = '\0';
		if (strcmp(buf, label) == 0)
			return chn;
	}
	return NULL;
}

int analog_iio_open_uri(const char *uri, const struct analog_config *cfg, struct analog_in **out)
{
	assert(cfg && out);
	if (!cfg->device || !cfg->channel)
		return -EINVAL;

	struct analog_iio *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;

	int rc;
	errno = 0;
	a->ctx = uri ? iio_create_context_from_uri(uri) : iio_create_local_context();
	if (!a->ctx) {
		/*
		 * The local backend says ENOENT when the kernel has no IIO at all
		 * (no /sys/bus/iio): to the caller that is a missing device.
		 */
		rc = errno > 0 && errno != ENOENT ? -errno : -ENODEV;
		goto err_free;
	}

	/* Matches the id ("iio:device0"), the label or the driver's name. */
	const struct iio_device *dev = iio_context_find_device(a->ctx, cfg->device);
	if (!dev) {
		rc = -ENODEV;
		goto err_ctx;
	}
	/* output=false: an ADC channel is an input in IIO's terms. */
	a->chn = iio_device_find_channel(dev, cfg->channel, false);
	if (!a->chn)
		a->chn = analog_iio_find_by_label(dev, cfg->channel);
	/* A channel without "raw" (buffer-only, or processed "input" only) is not ours. */
	if (!a->chn || !iio_channel_find_attr(a->chn, "raw")) {
		rc = -ENODEV;
		goto err_ctx;
	}

	double board_scale = cfg->raw_mv_per_count > 0.0 ? cfg->raw_mv_per_count : 1.0;
	rc = analog_iio_read_optional(a->chn, "scale", board_scale, &a->scale);
	if (rc < 0)
		goto err_ctx;
	rc = analog_iio_read_optional(a->chn, "offset", 0.0, &a->offset);
	if (rc < 0)
		goto err_ctx;

	a->in.ops = &analog_iio_ops;
	*out = &a->in;
	return 0;

err_ctx:
	iio_context_destroy(a->ctx);
err_free:
	free(a);
	return rc;
}

int analog_iio_open(const struct analog_config *cfg, struct analog_in **out)
{
	return analog_iio_open_uri(NULL, cfg, out);
}
