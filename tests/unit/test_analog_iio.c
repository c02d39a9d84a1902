// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The libiio backend against three kinds of context:
 * - the local one, which on a test machine has no such ADC (often no IIO);
 * - XML files written here, which libiio 0.2x parses into devices and
 *   channels but cannot read attributes from (every read is -ENOSYS), so they
 *   test the lookups and their failures;
 * - a fake iiod on 127.0.0.1 speaking just enough of the 0.2x text protocol
 *   (PRINT, TIMEOUT, READ) to serve those XML devices with values, so that
 *   "ip:" contexts test the scale and offset arithmetic end to end and count
 *   what is read when.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "linux/hal_linux.h"

/* libxml2 complains on stderr about a context without its DTD. */
#define IIO_XML_HEAD \
	"<?xml version=\"1.0\" encoding=\"utf-8\"?>" \
	"<!DOCTYPE context [" \
	"<!ELEMENT context (device | context-attribute)*>" \
	"<!ELEMENT context-attribute EMPTY>" \
	"<!ELEMENT device (channel | attribute | debug-attribute | buffer-attribute)*>" \
	"<!ELEMENT channel (scan-element?, attribute*)>" \
	"<!ELEMENT attribute EMPTY>" \
	"<!ELEMENT scan-element EMPTY>" \
	"<!ELEMENT debug-attribute EMPTY>" \
	"<!ELEMENT buffer-attribute EMPTY>" \
	"<!ATTLIST context name CDATA #REQUIRED description CDATA #IMPLIED>" \
	"<!ATTLIST context-attribute name CDATA #REQUIRED value CDATA #REQUIRED>" \
	"<!ATTLIST device id CDATA #REQUIRED name CDATA #IMPLIED label CDATA #IMPLIED>" \
	"<!ATTLIST channel id CDATA #REQUIRED type (input|output) #REQUIRED name CDATA #IMPLIED>" \
	"<!ATTLIST scan-element index CDATA #REQUIRED format CDATA #REQUIRED scale CDATA #IMPLIED>" \
	"<!ATTLIST attribute name CDATA #REQUIRED filename CDATA #IMPLIED value CDATA #IMPLIED>" \
	"<!ATTLIST debug-attribute name CDATA #REQUIRED>" \
	"<!ATTLIST buffer-attribute name CDATA #REQUIRED>" \
	"]>"

/*
 * An ADS1015 as the kernel driver shows it, plus the cases the backend must
 * tell apart: voltage2 has raw, scale and offset; voltage3 raw only; voltage4
 * a label; voltage5 no raw; voltage1 is an output.
 */
#define ADS1015_XML \
	IIO_XML_HEAD \
	"<context name=\"test\">" \
	"<device id=\"iio:device0\" name=\"ads1015\">" \
	"<channel id=\"voltage2\" type=\"input\">" \
	"<attribute name=\"raw\" filename=\"in_voltage2_raw\"/>" \
	"<attribute name=\"scale\" filename=\"in_voltage2_scale\"/>" \
	"<attribute name=\"offset\" filename=\"in_voltage2_offset\"/>" \
	"</channel>" \
	"<channel id=\"voltage3\" type=\"input\">" \
	"<attribute name=\"raw\" filename=\"in_voltage3_raw\"/>" \
	"</channel>" \
	"<channel id=\"voltage4\" type=\"input\">" \
	"<attribute name=\"raw\" filename=\"in_voltage4_raw\"/>" \
	"<attribute name=\"label\" filename=\"in_voltage4_label\"/>" \
	"</channel>" \
	"<channel id=\"voltage5\" type=\"input\">" \
	"<attribute name=\"scale\" filename=\"in_voltage5_scale\"/>" \
	"</channel>" \
	"<channel id=\"voltage1\" type=\"output\">" \
	"<attribute name=\"raw\" filename=\"out_voltage1_raw\"/>" \
	"</channel>" \
	"</device>" \
	"</context>"

/* Stands in for *out, which a failed open must leave alone. */
static struct analog_in sentinel_in;

static int open_rc(const char *uri, const char *device, const char *channel)
{
	const struct analog_config cfg = { .device = device, .channel = channel };
	struct analog_in *in = &sentinel_in;
	int rc = analog_iio_open_uri(uri, &cfg, &in);

	if (rc == 0)
		analog_close(in);
	else
		assert_ptr_equal(in, &sentinel_in);
	return rc;
}

/* ---- XML contexts ---- */

struct xml_file {
	char path[64];
	char uri[80];
};

static int xml_setup(void **state)
{
	static struct xml_file x;

	snprintf(x.path, sizeof(x.path), "/tmp/fulmar-test-iio-XXXXXX");
	int fd = mkstemp(x.path);
	if (fd < 0)
		return -1;
	const char xml[] = ADS1015_XML;
	ssize_t w = write(fd, xml, sizeof(xml) - 1);
	close(fd);
	if (w != (ssize_t)sizeof(xml) - 1)
		return -1;
	snprintf(x.uri, sizeof(x.uri), "xml:%s", x.path);
	*state = &x;
	return 0;
}

static int xml_teardown(void **state)
{
	struct xml_file *x = *state;

	unlink(x->path);
	return 0;
}

static void test_analog_open_finds_no_such_adc_in_the_local_context(void **state)
{
	const struct analog_config cfg = { .device = "fulmar-test-no-such-adc", .channel = "voltage0" };
	struct analog_in *in = &sentinel_in;

	/* With no IIO in the kernel at all, libiio's ENOENT also comes back as -ENODEV. */
	assert_int_equal(analog_iio_open(&cfg, &in), -ENODEV);
	assert_ptr_equal(in, &sentinel_in);
}

static void test_analog_open_refuses_a_config_without_device_or_channel(void **state)
{
	struct xml_file *x = *state;

	assert_int_equal(open_rc(x->uri, NULL, "voltage2"), -EINVAL);
	assert_int_equal(open_rc(x->uri, "ads1015", NULL), -EINVAL);
}

static void test_analog_open_of_a_missing_device_gives_enodev(void **state)
{
	struct xml_file *x = *state;

	assert_int_equal(open_rc(x->uri, "ads1115", "voltage2"), -ENODEV);
	assert_int_equal(open_rc(x->uri, "iio:device1", "voltage2"), -ENODEV);
}

static void test_analog_open_of_a_missing_channel_gives_enodev(void **state)
{
	struct xml_file *x = *state;

	assert_int_equal(open_rc(x->uri, "ads1015", "voltage7"), -ENODEV);
	assert_int_equal(open_rc(x->uri, "ads1015", "no-such-label"), -ENODEV);
}

static void test_analog_open_does_not_take_an_output_channel(void **state)
{
	struct xml_file *x = *state;

	assert_int_equal(open_rc(x->uri, "ads1015", "voltage1"), -ENODEV);
}

static void test_analog_open_does_not_take_a_channel_without_raw(void **state)
{
	struct xml_file *x = *state;

	assert_int_equal(open_rc(x->uri, "ads1015", "voltage5"), -ENODEV);
}

static void test_analog_open_fails_cleanly_when_scale_cannot_be_read(void **state)
{
	struct xml_file *x = *state;

	/* XML contexts list scale but cannot read it (libiio 0.24: -ENOSYS). */
	int rc = open_rc(x->uri, "ads1015", "voltage2");
	assert_true(rc < 0 && rc != -ENODEV);
}

static void test_analog_read_error_comes_back_and_leaves_the_value_alone(void **state)
{
	struct xml_file *x = *state;
	const struct analog_config cfg = { .device = "iio:device0", .channel = "voltage3" };
	struct analog_in *in = NULL;

	/* Found by device id; no scale or offset to read, so open succeeds. */
	assert_int_equal(analog_iio_open_uri(x->uri, &cfg, &in), 0);
	double v = 42.0;
	int rc = analog_read(in, &v);
	assert_true(rc < 0);
	assert_true(v == 42.0);
	analog_close(in);
}

static void test_analog_open_of_a_bad_uri_fails_cleanly(void **state)
{
	assert_true(open_rc("xml:/nonexistent/fulmar.xml", "ads1015", "voltage2") < 0);
	assert_true(open_rc("nosuchbackend:", "ads1015", "voltage2") < 0);
}

static void test_analog_close_of_null_does_nothing(void **state)
{
	analog_close(NULL);
}

/* ---- a fake iiod ---- */

struct fake_attr {
	const char *chn;
	const char *attr;
	char value[32];         /* "" answers -EIO */
	unsigned int reads;
};

struct fake_iiod {
	int listen_fd;
	char uri[48];
	pthread_t thread;
	pthread_mutex_t lock;   /* attrs: the test changes values while served */
	struct fake_attr attrs[6];
	char buf[512];          /* received, not yet a whole line */
	size_t len;
};

/* Long enough for a slow CI machine, short enough that a bug fails rather than hangs. */
#define FAKE_IIOD_TIMEOUT_MS 5000

static int fake_send(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t w = send(fd, s, len, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		len -= (size_t)w;
	}
	return 0;
}

static int fake_sendf(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fake_sendf(int fd, const char *fmt, ...)
{
	char out[64];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(out, sizeof(out), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(out))
		return -1;
	return fake_send(fd, out, (size_t)n);
}

/* One line without its "\r\n" into line; -1 on EOF, error or timeout. */
static int fake_read_line(struct fake_iiod *f, int fd, char *line, size_t cap)
{
	for (;;) {
		char *nl = memchr(f->buf, '\n', f->len);
		if (nl) {
			size_t n = (size_t)(nl - f->buf);
			size_t used = n + 1;
			if (n > 0 && f->buf[n - 1] == '\r')
				n--;
			if (n >= cap)
				return -1;
			memcpy(line, f->buf, n);
			line[n] = '\0';
			memmove(f->buf, f->buf + used, f->len - used);
			f->len -= used;
			return 0;
		}
		if (f->len == sizeof(f->buf))
			return -1;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		if (poll(&pfd, 1, FAKE_IIOD_TIMEOUT_MS) <= 0)
			return -1;
		ssize_t r = recv(fd, f->buf + f->len, sizeof(f->buf) - f->len, 0);
		if (r <= 0)
			return -1;
		f->len += (size_t)r;
	}
}

static int fake_answer_read(struct fake_iiod *f, int fd, const char *chn, const char *attr)
{
	char value[32] = "";
	bool found = false;

	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < sizeof(f->attrs) / sizeof(f->attrs[0]); i++) {
		struct fake_attr *a = &f->attrs[i];
		if (a->chn && strcmp(a->chn, chn) == 0 && strcmp(a->attr, attr) == 0) {
			a->reads++;
			memcpy(value, a->value, sizeof(value));
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&f->lock);

	if (!found)
		return fake_sendf(fd, "%d\n", -ENOENT);
	if (value[0] == '\0')
		return fake_sendf(fd, "%d\n", -EIO);
	/* The length, then the value and a newline that the length leaves out. */
	return fake_sendf(fd, "%zu\n%s\n", strlen(value), value);
}

/* Serves one client connection, then returns. */
static void *fake_iiod_serve(void *arg)
{
	struct fake_iiod *f = arg;
	struct pollfd pfd = { .fd = f->listen_fd, .events = POLLIN };

	if (poll(&pfd, 1, FAKE_IIOD_TIMEOUT_MS) <= 0)
		return NULL;
	int fd = accept(f->listen_fd, NULL, NULL);
	if (fd < 0)
		return NULL;

	char line[256];
	while (fake_read_line(f, fd, line, sizeof(line)) == 0) {
		char dev[32], dir[16], chn[32], attr[32];
		int rc;

		if (line[0] == '\0') {
			continue;       /* libiio sends a bare "\r\n" before it hangs up */
		} else if (strcmp(line, "PRINT") == 0) {
			const char xml[] = ADS1015_XML;
			rc = fake_sendf(fd, "%zu\n", sizeof(xml) - 1);
			if (rc == 0)
				rc = fake_send(fd, xml, sizeof(xml) - 1);
			if (rc == 0)
				rc = fake_send(fd, "\n", 1);
		} else if (strncmp(line, "TIMEOUT ", 8) == 0) {
			rc = fake_sendf(fd, "0\n");
		} else if (sscanf(line, "READ %31s %15s %31s %31s", dev, dir, chn, attr) == 4 &&
			   strcmp(dev, "iio:device0") == 0 && strcmp(dir, "INPUT") == 0) {
			rc = fake_answer_read(f, fd, chn, attr);
		} else if (strcmp(line, "EXIT") == 0) {
			break;
		} else {
			rc = fake_sendf(fd, "%d\n", -EINVAL);
		}
		if (rc < 0)
			break;
	}
	close(fd);
	return NULL;
}

static int fake_iiod_setup(void **state)
{
	static struct fake_iiod f;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sa_len = sizeof(sa);

	memset(&f, 0, sizeof(f));
	f.attrs[0] = (struct fake_attr){ .chn = "voltage2", .attr = "raw", .value = "1000" };
	f.attrs[1] = (struct fake_attr){ .chn = "voltage2", .attr = "scale", .value = "0.5" };
	f.attrs[2] = (struct fake_attr){ .chn = "voltage2", .attr = "offset", .value = "-24" };
	f.attrs[3] = (struct fake_attr){ .chn = "voltage3", .attr = "raw", .value = "-17" };
	f.attrs[4] = (struct fake_attr){ .chn = "voltage4", .attr = "raw", .value = "2047" };
	f.attrs[5] = (struct fake_attr){ .chn = "voltage4", .attr = "label", .value = "vbat" };
	if (pthread_mutex_init(&f.lock, NULL) != 0)
		return -1;

	/* Port 0: the kernel picks a free one, so parallel test runs do not collide. */
	f.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (f.listen_fd < 0)
		return -1;
	if (bind(f.listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(f.listen_fd, 1) < 0 ||
	    getsockname(f.listen_fd, (struct sockaddr *)&sa, &sa_len) < 0)
		goto err_close;
	snprintf(f.uri, sizeof(f.uri), "ip:127.0.0.1:%u", (unsigned int)ntohs(sa.sin_port));
	if (pthread_create(&f.thread, NULL, fake_iiod_serve, &f) != 0)
		goto err_close;
	*state = &f;
	return 0;

err_close:
	close(f.listen_fd);
	return -1;
}

static int fake_iiod_teardown(void **state)
{
	struct fake_iiod *f = *state;

	pthread_join(f->thread, NULL);
	close(f->listen_fd);
	pthread_mutex_destroy(&f->lock);
	return 0;
}

static unsigned int fake_reads(struct fake_iiod *f, size_t i)
{
	pthread_mutex_lock(&f->lock);
	unsigned int n = f->attrs[i].reads;
	pthread_mutex_unlock(&f->lock);
	return n;
}

static void fake_set_value(struct fake_iiod *f, size_t i, const char *value)
{
	pthread_mutex_lock(&f->lock);
	snprintf(f->attrs[i].value, sizeof(f->attrs[i].value), "%s", value);
	pthread_mutex_unlock(&f->lock);
}

static void test_analog_read_applies_offset_then_scale(void **state)
{
	struct fake_iiod *f = *state;
	const struct analog_config cfg = { .device = "ads1015", .channel = "voltage2" };
	struct analog_in *in = NULL;
	double v;

	assert_int_equal(analog_iio_open_uri(f->uri, &cfg, &in), 0);
	assert_int_equal(analog_read(in, &v), 0);
	assert_true(v == (1000.0 - 24.0) * 0.5);
	analog_close(in);
}

static void test_analog_read_rereads_raw_but_not_scale_or_offset(void **state)
{
	struct fake_iiod *f = *state;
	const struct analog_config cfg = { .device = "ads1015", .channel = "voltage2" };
	struct analog_in *in = NULL;
	double v;

	assert_int_equal(analog_iio_open_uri(f->uri, &cfg, &in), 0);
	assert_int_equal(fake_reads(f, 1), 1);
	assert_int_equal(fake_reads(f, 2), 1);

	fake_set_value(f, 0, "2000");
	fake_set_value(f, 1, "100");  /* not looked at again: fetched at open */
	assert_int_equal(analog_read(in, &v), 0);
	assert_true(v == (2000.0 - 24.0) * 0.5);
	fake_set_value(f, 0, "24");
	assert_int_equal(analog_read(in, &v), 0);
	assert_true(v == 0.0);

	assert_int_equal(fake_reads(f, 0), 2);
	assert_int_equal(fake_reads(f, 1), 1);
	assert_int_equal(fake_reads(f, 2), 1);
	analog_close(in);
}

static void test_analog_read_without_scale_or_offset_gives_raw(void **state)
{
	struct fake_iiod *f = *state;
	const struct analog_config cfg = { .device = "ads1015", .channel = "voltage3" };
	struct analog_in *in = NULL;
	double v;

	assert_int_equal(analog_iio_open_uri(f->uri, &cfg, &in), 0);
	assert_int_equal(analog_read(in, &v), 0);
	assert_true(v == -17.0);
	analog_close(in);
}

/* The am335x ADC's case: no scale from the driver, the board's millivolts per count. */
static void test_analog_read_without_a_driver_scale_takes_the_boards_mv_per_count(void **state)
{
	struct fake_iiod *f = *state;
	const struct analog_config cfg = { .device = "ads1015", .channel = "voltage3",
					   .raw_mv_per_count = 0.5 };
	struct analog_in *in = NULL;
	double v;

	assert_int_equal(analog_iio_open_uri(f->uri, &cfg, &in), 0);
	assert_int_equal(analog_read(in, &v), 0);
	assert_true(v == -17.0 * 0.5);
	analog_close(in);
}

static void test_analog_read_takes_a_driver_scale_over_the_boards(void **state)
{
	struct fake_iiod *f = *state;
	const struct analog_config cfg = { .device = "ads1015", .channel = "voltage2",
					   .raw_mv_per_count = 3.0 };
	struct analog_in *in = NULL;
	double v;

	assert_int_equal(analog_iio_open_uri(f->uri, &cfg, &in), 0);
	assert_int_equal(analog_read(in, &v), 0);
	assert_true(v == (1000.0 - 24.0) * 0.5);
	analog_close(in);
}

static void test_analog_open_finds_a_channel_by_its_label(void **state)
{
	struct fake_iiod *f = *state;
	const struct analog_config cfg = { .device = "ads1015", .channel = "vbat" };
	struct analog_in *in = NULL;
	double v;

	assert_int_equal(analog_iio_open_uri(f->uri, &cfg, &in), 0);
	assert_int_equal(analog_read(in, &v), 0);
	assert_true(v == 2047.0);
	analog_close(in);
}

static void test_analog_read_passes_a_driver_error_through(void **state)
{
	struct fake_iiod *f = *state;
	const struct analog_config cfg = { .device = "ads1015", .channel = "voltage2" };
	struct analog_in *in = NULL;
	double v = 42.0;

	assert_int_equal(analog_iio_open_uri(f->uri, &cfg, &in), 0);
	fake_set_value(f, 0, "");  /* the fake answers -EIO */
	assert_int_equal(analog_read(in, &v), -EIO);
	assert_true(v == 42.0);
	fake_set_value(f, 0, "1000");
	assert_int_equal(analog_read(in, &v), 0);
	assert_true(v == (1000.0 - 24.0) * 0.5);
	analog_close(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analog_open_finds_no_such_adc_in_the_local_context),
		cmocka_unit_test(test_analog_close_of_null_does_nothing),
		cmocka_unit_test(test_analog_open_of_a_bad_uri_fails_cleanly),
		cmocka_unit_test_setup_teardown(test_analog_open_refuses_a_config_without_device_or_channel,
						xml_setup, xml_teardown),
		cmocka_unit_test_setup_teardown(test_analog_open_of_a_missing_device_gives_enodev,
						xml_setup, xml_teardown),
		cmocka_unit_test_setup_teardown(test_analog_open_of_a_missing_channel_gives_enodev,
						xml_setup, xml_teardown),
		cmocka_unit_test_setup_teardown(test_analog_open_does_not_take_an_output_channel,
						xml_setup, xml_teardown),
		cmocka_unit_test_setup_teardown(test_analog_open_does_not_take_a_channel_without_raw,
						xml_setup, xml_teardown),
		cmocka_unit_test_setup_teardown(test_analog_open_fails_cleanly_when_scale_cannot_be_read,
						xml_setup, xml_teardown),
		cmocka_unit_test_setup_teardown(test_analog_read_error_comes_back_and_leaves_the_value_alone,
						xml_setup, xml_teardown),
		cmocka_unit_test_setup_teardown(test_analog_read_applies_offset_then_scale,
						fake_iiod_setup, fake_iiod_teardown),
		cmocka_unit_test_setup_teardown(test_analog_read_rereads_raw_but_not_scale_or_offset,
						fake_iiod_setup, fake_iiod_teardown),
		cmocka_unit_test_setup_teardown(test_analog_read_without_scale_or_offset_gives_raw,
						fake_iiod_setup, fake_iiod_teardown),
		cmocka_unit_test_setup_teardown(
			test_analog_read_without_a_driver_scale_takes_the_boards_mv_per_count,
			fake_iiod_setup, fake_iiod_teardown),
		cmocka_unit_test_setup_teardown(test_analog_read_takes_a_driver_scale_over_the_boards,
						fake_iiod_setup, fake_iiod_teardown),
		cmocka_unit_test_setup_teardown(test_analog_open_finds_a_channel_by_its_label,
						fake_iiod_setup, fake_iiod_teardown),
		cmocka_unit_test_setup_teardown(test_analog_read_passes_a_driver_error_through,
						fake_iiod_setup, fake_iiod_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
