// SPDX-License-Identifier: GPL-3.0-or-later
/* fulmar-sim: the aircraft for fulmard's hardware-in-the-loop flights. The
 * shell around the pure world (tools/sim/world.c) and HIL framing (hil.c):
 * options, the UDP or serial link, the clock, the truth file, signals.
 * docs/simulator.md is the manual; docs/hil.md the wire. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "hil.h"
#include "perf.h"
#include "wmm_field.h"
#include "util/spin.h"

enum {
	EXIT_DONE = 0,       /* --duration reached, or stopped by a signal */
	EXIT_GONE = 1,       /* the autopilot went away, or the link failed */
	EXIT_USAGE = 2,      /* bad options or time-line */
	EXIT_CRASHED = 3,    /* the aircraft hit the ground too hard */
};

#define UDP_PAYLOAD_MAX 1400   /* under a 1500-byte MTU with headers to spare */
#define NAG_INTERVAL_NS 5000000000ull
#define PROBLEM_LINES 5        /* per kind, then only the count */

struct options {
	const char *listen;
	const char *serial;
	uint8_t sysid, compid;
	struct sim_world_config world;
	const char *faults_file;
	const char *truth_file;
	double truth_hz, status_hz, timeout_s, start_timeout_s, duration_s;
	double resend_s;           /* lock-step: send the frame again after this silence; 0 never */
	double end_landed_s;       /* end this long after a disarm on the ground; <0: never */
	bool crash_goes_on;        /* --on-crash continue: a crash is said, the flight goes on */
	bool wait, realtime;
	unsigned int frame_hz;
	bool all_fresh;
	long spin_us;              /* lock-step over UDP: read without blocking this long first */
	long cpu_dma_latency_us;   /* lock-step: held on /dev/cpu_dma_latency; -1: left alone */
	bool figures;              /* print the airframe's figures and stop */
};

struct link {
	int fd;
	bool udp;
	bool have_peer;
	struct sockaddr_storage peer;
	socklen_t peer_len;
	char name[320];
	uint64_t peer_changes, send_errors;
};

struct sim {
	struct options opt;
	struct sim_timeline tl;
	struct sim_world world;
	struct sim_hil hil;
	struct sim_hil_tx tx;
	struct link link;
	FILE *truth;
	uint64_t truth_period_us;
	char events[1024];           /* for the next truth row */
	size_t events_len;
	bool crashed;
	bool flown;                  /* has been in the air */
	uint64_t landed_us;          /* since then disarmed on the ground from (UINT64_MAX: not) */
	uint64_t problem_lines[SIM_HIL_PROBLEM_COUNT];
	uint64_t wall_start_ns, next_status_ns;
	/* Lock-step: where a frame's wall time goes. */
	uint64_t ls_frames, ls_spun, ls_step_ns, ls_send_ns, ls_wait_ns, ls_spin_lost_ns;
	uint64_t ls_resends;         /* frames sent again after --resend-s of silence */
	struct spin_judge spin;      /* lock-step over UDP: spin_for_answer's bound (util/spin.h) */
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fulmar-sim: %s\n", line);
}

/* ---- options ---- */

static void usage(FILE *f)
{
	fputs("usage: fulmar-sim [OPTION]...\n"
	      "The aircraft for fulmard's hardware-in-the-loop flights (docs/simulator.md).\n"
	      "Link:\n"
	      "  --listen ADDR:PORT     UDP, answer the first sender (default 0.0.0.0:14560;\n"
	      "                         port 0: any free one, named on stderr)\n"
	      "  --serial DEV:BAUD      a serial line instead (raw, 8N1)\n"
	      "  --sysid N --compid N   ids of the simulator's messages (default 1, 1)\n"
	      "Time:\n"
	      "  --realtime             step on the wall clock (default: lock-step)\n"
	      "  --imu-hz HZ            physics rate: the IMU samples every step (default 1000)\n"
	      "  --sensor-hz HZ         HIL_SENSOR messages a second, a divisor of --imu-hz\n"
	      "                         (default --imu-hz): each the mean of the IMU's samples\n"
	      "                         since the last, as an IMU decimating to that rate gives;\n"
	      "                         the slower sensors go out with them\n"
	      "  --frame-hz HZ          lock-step frames per second, a divisor of --sensor-hz\n"
	      "                         (default 250)\n"
	      "  --state-hz HZ          HIL_STATE_QUATERNION (the truth, for ground stations and\n"
	      "                         logs; no estimator uses it) a second (default 50; 0: none,\n"
	      "                         for a slow serial link)\n"
	      "  --spin-us US           lock-step over UDP: read the answer without blocking for\n"
	      "                         up to US us before sleeping (default 200, 0 off)\n"
	      "  --cpu-dma-latency US   lock-step: hold /dev/cpu_dma_latency at US us while\n"
	      "                         flying, so an idle CPU wakes promptly (default 0;\n"
	      "                         -1 leaves it alone)\n"
	      "  --all-fresh            mark every HIL_SENSOR field fresh in every message, the\n"
	      "                         slow sensors' last values again, as many simulators do\n"
	      "                         (default: only the fields a sensor has just measured)\n"
	      "  --duration S           end the flight after S simulated seconds (default: never)\n"
	      "  --end-landed S         end it S simulated seconds after the aircraft, having\n"
	      "                         flown, is disarmed on the ground (default: never)\n"
	      "  --on-crash end|continue  end the flight when the aircraft crashes (default), or\n"
	      "                         say it and go on simulating the wreck where it lies, for\n"
	      "                         what the autopilot does after it; exit status 3 either way\n"
	      "  --timeout S            autopilot gone after S s of silence (default 5)\n"
	      "  --resend-s S           lock-step: send the frame again after S s without its\n"
	      "                         answer, for a link that can lose one (default 1; 0 never)\n"
	      "  --wait                 keep waiting for a silent autopilot instead\n"
	      "  --start-timeout S      give up when no autopilot appears in S s (default: never)\n",
	      f);
	/* Two strings: C11 promises only 4095 characters in one. */
	fputs("Aircraft:\n"
	      "  --airframe NAME        skywalker (default: 2.3 kg, hand-launched), cub (6.6 kg\n"
	      "                         tail-dragger on wheels; takes off from the runway),\n"
	      "                         cub-caster (the cub with a castering tail wheel), quad\n"
	      "                         (1.5 kg 450 mm quad X) or hexa (2.0 kg 550 mm hexa X):\n"
	      "                         a multirotor's controls are its motors, ArduCopter's order\n"
	      "  --air-start ALT,SPEED  start flying ALT m above home at SPEED m/s of airspeed,\n"
	      "                         wings level, the nose along --heading, trimmed pitch\n"
	      "                         (a plane only)\n"
	      "  --figures              print the airframe's measured figures (stall, trim, glide,\n"
	      "                         roll rate, take-off run; a multirotor's hover) and exit\n"
	      "World:\n"
	      "  --seed N               random seed (default 1)\n"
	      "  --home LAT,LON,ALT     home (default the CMAC field, -35.363261,149.165230,584)\n"
	      "  --date DATE            the flight's date, YYYY-MM-DD or a decimal year, 2025.0-2030.0:\n"
	      "                         the earth's magnetic field is the World Magnetic Model's\n"
	      "                         (WMM2025) at home on it; 'today': today's, UTC (default\n"
	      "                         2026-12-04, fixed so that a command flies the same flight\n"
	      "                         on any day)\n"
	      "  --heading DEG          where the nose points at the start (default 0, north)\n"
	      "  --wind SPEED,FROM_DEG  steady wind\n"
	      "  --gusts MAX            random 1-cosine gusts up to MAX m/s\n"
	      "  --turbulence W20       Dryden turbulence, wind at 20 ft (7.7 light, 15.4 moderate)\n"
	      "  --gps-latency S        GPS report latency (default 0.15)\n"
	      "  --gps-hz HZ            GPS fixes per second, 1-10 (default 5)\n"
	      "  --throw-at T           hand launch at T s (held in the hand before)\n"
	      "  --rc-mode-pwm US       the mode switch (channel 8) at the start (default 1000)\n"
	      "  --faults FILE          time-line of faults and events\n"
	      "  --fault 'T EVENT ARGS' one event (repeatable)\n"
	      "A world that is not kind (docs/simulator.md):\n"
	      "  --field-alt M          a field M m above (or below, -M) home's ground\n"
	      "  --field-at N,E[,R[,B]] its centre N, E m from home, radius R (50), bank B (40)\n"
	      "  --field-slope DEG,TOWARDS_DEG  the field rises DEG degrees towards a true direction\n"
	      "  --rangefinder [KIND]   a downward rangefinder, sf11 (0.2-120 m, the default) or\n"
	      "                         tfmini (0.1-12 m), sent as DISTANCE_SENSOR at 20 Hz\n"
	      "  --baro-drift HPA_H[,PA_K[,WARM_K[,TAU_S]]]  the weather's pressure change (hPa/h)\n"
	      "                         and the barometer's warm-up error (1.5 Pa/K, 12 K, 300 s)\n"
	      "  --mag-current X,Y,Z    compass interference, mGauss per amp in body axes\n"
	      "  --battery-endless      the battery's charge never runs down (soaks: tools/soak)\n"
	      "Output:\n"
	      "  --truth FILE           ground truth CSV\n"
	      "  --truth-hz HZ          its rate (default 50)\n"
	      "  --status-hz HZ         one-line state summaries per wall second (default 1, 0 off)\n"
	      "Exit status: 0 flight ended (--duration, --end-landed or a signal), 1 autopilot gone or link\n"
	      "failed, 2 bad options, 3 the aircraft crashed.\n",
	      f);
}

static bool parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	if (end == s || *end != '\0' || errno || !isfinite(x) || x < lo || x > hi)
		return false;
	*out = x;
	return true;
}

/* "a,b[,c]": n numbers separated by commas. */
static bool parse_list(const char *s, int n, double *out)
{
	char buf[128];
	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	char *save = NULL, *tok = strtok_r(buf, ",", &save);
	for (int i = 0; i < n; i++) {
		if (!tok || !parse_num(tok, -1e9, 1e9, &out[i]))
			return false;
		tok = strtok_r(NULL, ",", &save);
	}
	return tok == NULL;
}

/* "YYYY-MM-DD" or a decimal year, within the magnetic model's life. */
/* Today (UTC) as a decimal year, held within the model's life. */
static double today_year(void)
{
	time_t now = time(NULL);
	struct tm tm;
	if (now == (time_t)-1 || !gmtime_r(&now, &tm))
		return SIM_WMM_FIRST_YEAR;
	double x = sim_wmm_decimal_year(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
	if (x < SIM_WMM_FIRST_YEAR)
		return SIM_WMM_FIRST_YEAR;
	return x > SIM_WMM_LAST_YEAR ? SIM_WMM_LAST_YEAR : x;
}

static bool parse_date(const char *s, double *year)
{
	int y, m, d;
	char end;
	double x;
	if (strcmp(s, "today") == 0)
		x = today_year();
	else if (sscanf(s, "%4d-%2d-%2d%c", &y, &m, &d, &end) == 3)
		x = sim_wmm_decimal_year(y, m, d);
	else if (!parse_num(s, 1900, 2200, &x))
		return false;
	if (!(x >= SIM_WMM_FIRST_YEAR && x <= SIM_WMM_LAST_YEAR))
		return false;
	*year = x;
	return true;
}

static int read_file(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		if (cap >= (1u << 24)) {
			free(buf);
			fclose(f);
			return -EFBIG;
		}
		char *b2 = realloc(buf, cap * 2);
		if (!b2) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = b2;
		cap *= 2;
	}
	int err = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!buf)
		return -ENOMEM;
	if (err) {
		free(buf);
		return err;
	}
	*text = buf;
	*len = n;
	return 0;
}

enum {
	OPT_LISTEN = 256, OPT_SERIAL, OPT_SYSID, OPT_COMPID, OPT_REALTIME, OPT_IMU_HZ, OPT_FRAME_HZ,
	OPT_DURATION, OPT_TIMEOUT, OPT_RESEND, OPT_WAIT, OPT_START_TIMEOUT, OPT_SEED, OPT_HOME, OPT_HEADING,
	OPT_WIND, OPT_GUSTS, OPT_TURB, OPT_GPS_LATENCY, OPT_THROW_AT, OPT_RC_MODE, OPT_FAULTS,
	OPT_FAULT, OPT_TRUTH, OPT_TRUTH_HZ, OPT_STATUS_HZ, OPT_ALL_FRESH, OPT_GPS_HZ, OPT_STATE_HZ, OPT_ON_CRASH, OPT_SPIN_US,
	OPT_CPU_DMA_LATENCY, OPT_END_LANDED, OPT_AIRFRAME, OPT_AIR_START, OPT_FIGURES, OPT_DATE,
	OPT_SENSOR_HZ, OPT_FIELD_ALT, OPT_FIELD_AT, OPT_FIELD_SLOPE, OPT_RANGEFINDER, OPT_BARO_DRIFT,
	OPT_MAG_CURRENT, OPT_BATTERY_ENDLESS, OPT_HELP,
};

/* Between lo and hi comma-separated numbers into out; their count, or -1. */
static int parse_upto(const char *s, int lo, int hi, double *out)
{
	char buf[128];
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	int n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == hi || !parse_num(tok, -1e9, 1e9, &out[n]))
			return -1;
		n++;
	}
	return n >= lo ? n : -1;
}

static int parse_options(struct sim *s, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "serial", required_argument, NULL, OPT_SERIAL },
		{ "sysid", required_argument, NULL, OPT_SYSID },
		{ "compid", required_argument, NULL, OPT_COMPID },
		{ "realtime", no_argument, NULL, OPT_REALTIME },
		{ "imu-hz", required_argument, NULL, OPT_IMU_HZ },
		{ "frame-hz", required_argument, NULL, OPT_FRAME_HZ },
		{ "sensor-hz", required_argument, NULL, OPT_SENSOR_HZ },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "end-landed", required_argument, NULL, OPT_END_LANDED },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "resend-s", required_argument, NULL, OPT_RESEND },
		{ "wait", no_argument, NULL, OPT_WAIT },
		{ "start-timeout", required_argument, NULL, OPT_START_TIMEOUT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "home", required_argument, NULL, OPT_HOME },
		{ "date", required_argument, NULL, OPT_DATE },
		{ "heading", required_argument, NULL, OPT_HEADING },
		{ "wind", required_argument, NULL, OPT_WIND },
		{ "gusts", required_argument, NULL, OPT_GUSTS },
		{ "turbulence", required_argument, NULL, OPT_TURB },
		{ "gps-latency", required_argument, NULL, OPT_GPS_LATENCY },
		{ "throw-at", required_argument, NULL, OPT_THROW_AT },
		{ "rc-mode-pwm", required_argument, NULL, OPT_RC_MODE },
		{ "faults", required_argument, NULL, OPT_FAULTS },
		{ "fault", required_argument, NULL, OPT_FAULT },
		{ "truth", required_argument, NULL, OPT_TRUTH },
		{ "truth-hz", required_argument, NULL, OPT_TRUTH_HZ },
		{ "status-hz", required_argument, NULL, OPT_STATUS_HZ },
		{ "all-fresh", no_argument, NULL, OPT_ALL_FRESH },
		{ "gps-hz", required_argument, NULL, OPT_GPS_HZ },
		{ "state-hz", required_argument, NULL, OPT_STATE_HZ },
		{ "on-crash", required_argument, NULL, OPT_ON_CRASH },
		{ "spin-us", required_argument, NULL, OPT_SPIN_US },
		{ "cpu-dma-latency", required_argument, NULL, OPT_CPU_DMA_LATENCY },
		{ "airframe", required_argument, NULL, OPT_AIRFRAME },
		{ "air-start", required_argument, NULL, OPT_AIR_START },
		{ "figures", no_argument, NULL, OPT_FIGURES },
		{ "field-alt", required_argument, NULL, OPT_FIELD_ALT },
		{ "field-at", required_argument, NULL, OPT_FIELD_AT },
		{ "field-slope", required_argument, NULL, OPT_FIELD_SLOPE },
		{ "rangefinder", optional_argument, NULL, OPT_RANGEFINDER },
		{ "baro-drift", required_argument, NULL, OPT_BARO_DRIFT },
		{ "mag-current", required_argument, NULL, OPT_MAG_CURRENT },
		{ "battery-endless", no_argument, NULL, OPT_BATTERY_ENDLESS },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct options *o = &s->opt;
	struct sim_world_config *wc = &o->world;
	o->listen = "0.0.0.0:14560";
	o->sysid = o->compid = 1;
	sim_world_config_default(wc);
	o->truth_hz = 50.0;
	o->end_landed_s = -1.0;
	o->status_hz = 1.0;
	o->timeout_s = 5.0;
	o->resend_s = 1.0;
	o->frame_hz = 250;
	o->spin_us = 200;
	sim_timeline_init(&s->tl);
	wc->mag_year = sim_wmm_decimal_year(2026, 12, 4);
	unsigned int n_fault = 0;
	char err[256];
	int c;
	double x, v[4];
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		const char *a = optarg;
		bool ok = true;
		switch (c) {
		case OPT_LISTEN: o->listen = a; o->serial = NULL; break;
		case OPT_SERIAL: o->serial = a; break;
		case OPT_SYSID:
		case OPT_COMPID:
			if ((ok = parse_num(a, 1, 255, &x)))
				*(c == OPT_SYSID ? &o->sysid : &o->compid) = (uint8_t)x;
			break;
		case OPT_REALTIME: o->realtime = true; break;
		case OPT_IMU_HZ:
			if ((ok = parse_num(a, 50, 8000, &x) && x == floor(x)))
				wc->imu_hz = (unsigned int)x;
			break;
		case OPT_FRAME_HZ:
			if ((ok = parse_num(a, 1, 8000, &x) && x == floor(x)))
				o->frame_hz = (unsigned int)x;
			break;
		case OPT_SENSOR_HZ:
			/* fulmard takes HIL_SENSOR at 50-2000 Hz (docs/hil.md) */
			if ((ok = parse_num(a, 50, 8000, &x) && x == floor(x)))
				wc->sensor_hz = (unsigned int)x;
			break;
		case OPT_DURATION: ok = parse_num(a, 0, 1e6, &o->duration_s); break;
		case OPT_END_LANDED: ok = parse_num(a, 0, 1e6, &o->end_landed_s); break;
		case OPT_TIMEOUT: ok = parse_num(a, 0.01, 1e6, &o->timeout_s); break;
		case OPT_RESEND: ok = parse_num(a, 0, 1e6, &o->resend_s); break;
		case OPT_WAIT: o->wait = true; break;
		case OPT_START_TIMEOUT: ok = parse_num(a, 0, 1e6, &o->start_timeout_s); break;
		case OPT_SEED:
			if ((ok = parse_num(a, 0, 9007199254740992.0, &x) && x == floor(x)))
				wc->seed = (uint64_t)x;
			break;
		case OPT_HOME:
			if ((ok = parse_list(a, 3, v) && fabs(v[0]) <= 89.0 && fabs(v[1]) <= 180.0 &&
				  v[2] > -500.0 && v[2] < 9000.0))
				wc->home = (struct sim_lla){ v[0], v[1], v[2] };
			break;
		case OPT_DATE: ok = parse_date(a, &wc->mag_year); break;
		case OPT_HEADING: ok = parse_num(a, -360, 360, &wc->heading_deg); break;
		case OPT_WIND:
			if ((ok = parse_list(a, 2, v) && v[0] >= 0.0 && v[0] <= 100.0)) {
				wc->wind.speed_m_s = v[0];
				wc->wind.from_deg = v[1];
			}
			break;
		case OPT_GUSTS: ok = parse_num(a, 0, 50, &wc->wind.gust_max_m_s); break;
		case OPT_TURB: ok = parse_num(a, 0, 50, &wc->wind.turb_w20_m_s); break;
		case OPT_GPS_LATENCY: ok = parse_num(a, 0, 1.0, &wc->sensors.gps_latency_s); break;
		case OPT_THROW_AT: {
			if (!(ok = parse_num(a, 0, 1e6, &x)))
				break;
			char line[64];
			snprintf(line, sizeof(line), "%.6f throw", x);
			if (sim_timeline_add_line(&s->tl, line, "--throw-at", 1, err, sizeof(err))) {
				say("%s", err);
				return -EINVAL;
			}
			break;
		}
		case OPT_RC_MODE:
			if ((ok = parse_num(a, 800, 2200, &x)))
				wc->rc_mode_pwm_us = (uint16_t)x;
			break;
		case OPT_FAULTS: o->faults_file = a; break;
		case OPT_FAULT:
			if (sim_timeline_add_line(&s->tl, a, "--fault", ++n_fault, err, sizeof(err))) {
				say("%s", err);
				return -EINVAL;
			}
			break;
		case OPT_TRUTH: o->truth_file = a; break;
		case OPT_TRUTH_HZ: ok = parse_num(a, 0.1, 1000, &o->truth_hz); break;
		case OPT_STATUS_HZ: ok = parse_num(a, 0, 100, &o->status_hz); break;
		case OPT_ALL_FRESH: o->all_fresh = true; break;
		case OPT_GPS_HZ: ok = parse_num(a, 1, 10, &wc->sensors.gps_rate_hz); break;
		case OPT_STATE_HZ: ok = parse_num(a, 0, 1000, &wc->state_rate_hz); break;
		case OPT_ON_CRASH:
			ok = strcmp(a, "end") == 0 || strcmp(a, "continue") == 0;
			o->crash_goes_on = strcmp(a, "continue") == 0;
			break;
		case OPT_SPIN_US:
			if ((ok = parse_num(a, 0, 100000, &x) && x == floor(x)))
				o->spin_us = (long)x;
			break;
		case OPT_CPU_DMA_LATENCY:
			if ((ok = parse_num(a, -1, 2000000000, &x) && x == floor(x)))
				o->cpu_dma_latency_us = (long)x;
			break;
		case OPT_AIRFRAME:
			if (sim_airframe_by_name(a, &wc->airframe)) {
				say("unknown airframe '%s' for --airframe (there are: %s)", a, sim_airframe_names());
				return -EINVAL;
			}
			break;
		case OPT_AIR_START:
			if ((ok = parse_list(a, 2, v) && v[0] >= 1.0 && v[0] <= 5000.0 && v[1] >= 1.0 &&
				  v[1] <= 100.0)) {
				wc->air_start = true;
				wc->air_start_alt_m = v[0];
				wc->air_start_speed_m_s = v[1];
			}
			break;
		case OPT_FIGURES: o->figures = true; break;
		case OPT_FIELD_ALT:
			if ((ok = parse_num(a, -100, 100, &wc->terrain.field_alt_m)))
				wc->terrain_on = true;
			break;
		case OPT_FIELD_AT: {
			int n = parse_upto(a, 2, 4, v);
			if ((ok = n >= 2 && fabs(v[0]) <= 1e5 && fabs(v[1]) <= 1e5 &&
				  (n < 3 || (v[2] > 0.0 && v[2] <= 1e4)) && (n < 4 || (v[3] >= 0.0 && v[3] <= 1e4)))) {
				wc->terrain.field_n_m = v[0];
				wc->terrain.field_e_m = v[1];
				if (n >= 3)
					wc->terrain.radius_m = v[2];
				if (n >= 4)
					wc->terrain.bank_m = v[3];
			}
			break;
		}
		case OPT_FIELD_SLOPE:
			if ((ok = parse_list(a, 2, v) && fabs(v[0]) <= 15.0 && fabs(v[1]) <= 360.0)) {
				wc->terrain.slope_deg = v[0];
				wc->terrain.slope_towards_deg = v[1];
				wc->terrain_on = true;
			}
			break;
		case OPT_RANGEFINDER:
			/* "--rangefinder KIND" as well as "--rangefinder=KIND": take the
			 * next word when it is a kind. */
			if (!a && optind < argc &&
			    sim_rangefinder_config_by_name(argv[optind], &wc->rangefinder) == 0)
				a = argv[optind++];
			ok = sim_rangefinder_config_by_name(a ? a : "sf11", &wc->rangefinder) == 0;
			break;
		case OPT_BARO_DRIFT: {
			int n = parse_upto(a, 1, 4, v);
			if ((ok = n >= 1 && fabs(v[0]) <= 100.0 && (n < 2 || fabs(v[1]) <= 100.0) &&
				  (n < 3 || (v[2] >= 0.0 && v[2] <= 100.0)) && (n < 4 || (v[3] > 0.0 && v[3] <= 1e5)))) {
				wc->baro_drift_on = true;
				wc->baro_weather_hpa_h = v[0];
				if (n >= 2)
					wc->baro_temp_pa_k = v[1];
				if (n >= 3)
					wc->baro_warm_k = v[2];
				if (n >= 4)
					wc->baro_warm_tau_s = v[3];
			}
			break;
		}
		case OPT_MAG_CURRENT:
			if ((ok = parse_list(a, 3, v) && fabs(v[0]) <= 1e4 && fabs(v[1]) <= 1e4 && fabs(v[2]) <= 1e4))
				wc->mag_current_mgauss_a = v3_make(v[0], v[1], v[2]);
			break;
		case OPT_BATTERY_ENDLESS:
			wc->batt_endless = true;
			break;
		case OPT_HELP: case 'h': usage(stdout); exit(EXIT_DONE);
		default: usage(stderr); return -EINVAL;
		}
		if (!ok) {
			/* the option's name by its value: lo's order need not be the enum's */
			const struct option *op = lo;
			while (op->name && op->val != c)
				op++;
			say("bad value '%s' for --%s (see --help)", a, op->name ? op->name : "?");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		say("unexpected argument '%s' (see --help)", argv[optind]);
		return -EINVAL;
	}
	if (1000000u % wc->imu_hz != 0) {
		say("--imu-hz %u does not divide a second into whole microseconds", wc->imu_hz);
		return -EINVAL;
	}
	if (wc->sensor_hz == 0) {
		wc->sensor_hz = wc->imu_hz;
	} else if (wc->sensor_hz > wc->imu_hz || wc->imu_hz % wc->sensor_hz != 0) {
		say("--sensor-hz %u: HIL_SENSOR must come every whole number of physics steps: "
		    "a divisor of --imu-hz %u", wc->sensor_hz, wc->imu_hz);
		return -EINVAL;
	}
	if (wc->imu_hz % o->frame_hz != 0 || wc->imu_hz / o->frame_hz > SIM_HIL_MAX_STEPS) {
		say("--frame-hz %u: a frame must be a whole number of steps (1-%d) of --imu-hz %u",
		    o->frame_hz, SIM_HIL_MAX_STEPS, wc->imu_hz);
		return -EINVAL;
	}
	/* A frame ends with a HIL_SENSOR, whose time the autopilot answers with. */
	if (wc->sensor_hz % o->frame_hz != 0) {
		say("--frame-hz %u: a frame must be a whole number of HIL_SENSOR messages of "
		    "--sensor-hz %u", o->frame_hz, wc->sensor_hz);
		return -EINVAL;
	}
	if (o->faults_file) {
		char *text = NULL;
		size_t len = 0;
		int r = read_file(o->faults_file, &text, &len);
		if (r) {
			say("%s: %s", o->faults_file, strerror(-r));
			return r;
		}
		r = sim_timeline_parse(&s->tl, text, len, o->faults_file, err, sizeof(err));
		free(text);
		if (r) {
			say("%s", err);
			return r;
		}
	}
	sim_timeline_sort(&s->tl);
	bool throws = false;
	for (unsigned int i = 0; i < s->tl.count; i++)
		throws = throws || s->tl.ev[i].kind == SIM_EV_THROW;
	if (throws && !wc->airframe.hand_launched) {
		say("the %s takes off from %s: no hand launch (--throw-at or a throw event) for it",
		    wc->airframe.name, wc->airframe.n_wheels > 0 ? "its wheels" : "the ground");
		return -EINVAL;
	}
	if (wc->air_start && wc->airframe.n_rotors > 0) {
		say("the %s starts on the ground: its motors are off until the autopilot arms (no --air-start)",
		    wc->airframe.name);
		return -EINVAL;
	}
	if (wc->terrain_on && !wc->air_start && sim_terrain_height_m(&wc->terrain, 0.0, 0.0) != 0.0) {
		say("the field (%.0f m across with a %.0f m bank, around %.1f m north, %.1f m east of home) "
		    "covers the start spot: home, where the aircraft arms, stays on its ground; move the "
		    "field with --field-at N,E[,RADIUS[,BANK]] to the land point", 2.0 * wc->terrain.radius_m,
		    wc->terrain.bank_m, wc->terrain.field_n_m, wc->terrain.field_e_m);
		return -EINVAL;
	}
	if (throws && wc->air_start) {
		say("--air-start starts the flight in the air: no hand launch (--throw-at or a throw event) with it");
		return -EINVAL;
	}
	return 0;
}

/* ---- --figures ---- */

/* A multirotor's figures: its hover, thrust and motors (tools/sim/perf.h). */
static int print_rotor_figures(const struct sim_world_config *wc, double rho)
{
	const struct sim_airframe *p = &wc->airframe;
	double arm = hypot(p->rotor[0].pos_body_m.x, p->rotor[0].pos_body_m.y);
	printf("airframe %s: %.2f kg, %d rotors on %.3f m arms (%.0f mm between opposite motors); ISA at %.0f m "
	       "(density %.4f kg/m^3), still air\n", p->name, p->mass_kg, p->n_rotors, arm, 2000.0 * arm,
	       wc->home.alt_m, rho);
	double d = p->prop_diam_m, d4 = d * d * d * d;
	printf("rotor: %.3f m propeller, k_T %.3e N/(rad/s)^2, k_Q %.3e N m/(rad/s)^2 (at %.4f kg/m^3; %.3e and "
	       "%.3e at sea level), motor %.0f kV %.2f ohm, time constant %.3f s\n", d,
	       rho * d4 * p->ct0 / (4.0 * M_PI * M_PI), rho * d4 * d * p->cq0 / (4.0 * M_PI * M_PI), rho,
	       SIM_RHO0_KG_M3 * d4 * p->ct0 / (4.0 * M_PI * M_PI),
	       SIM_RHO0_KG_M3 * d4 * d * p->cq0 / (4.0 * M_PI * M_PI), p->motor_kv_rpm_v, p->motor_r_ohm,
	       p->motor_tau_s);
	struct sim_perf_hover h;
	int err = sim_perf_hover(p, rho, &h);
	if (err) {
		printf("hover: none (%s)\n", strerror(-err));
		return 0;
	}
	printf("hover on a full pack: throttle %.3f (every motor), %.0f rpm, %.1f A at %.2f V\n", h.throttle,
	       h.motor_rad_s * 60.0 / (2.0 * M_PI), h.batt_current_a, h.batt_voltage_v);
	printf("full throttle: %.1f N of thrust, thrust/weight %.2f, %.0f A\n", h.thrust_max_n,
	       h.thrust_weight_max, h.batt_current_max_a);
	return 0;
}

/* The airframe's figures as docs/simulator.md tables them: at home's height
 * in the ISA, still air, measured from the model (tools/sim/perf.h). */
static int print_figures(const struct sim_world_config *wc)
{
	const struct sim_airframe *p = &wc->airframe;
	struct sim_atmos a;
	sim_atmos_isa(wc->home.alt_m, 0.0, &a);
	if (p->n_rotors > 0)
		return print_rotor_figures(wc, a.density_kg_m3);
	double rho = a.density_kg_m3, vs = 0.0, ld = 0.0, v_ld = 0.0, roll = 0.0;
	printf("airframe %s: %.2f kg, span %.2f m, wing %.3f m^2; ISA at %.0f m (density %.4f kg/m^3), still air\n",
	       p->name, p->mass_kg, p->span_m, p->wing_area_m2, wc->home.alt_m, rho);
	int err = sim_perf_stall_speed(p, rho, &vs);
	if (err == 0)
		printf("stall speed (power off, 1 g): %.2f m/s\n", vs);
	else
		printf("stall speed: none found (%s)\n", strerror(-err));
	for (int v = 15; v <= 25; v += 5) {
		struct sim_trim t;
		if (sim_trim_level(p, rho, v, &t) == 0)
			printf("level trim at %d m/s: throttle %.3f, pitch %.2f deg, elevator %+.3f of travel "
			       "(%+.3f on the wire)\n", v, t.throttle, t.alpha_rad * 180.0 / M_PI, t.elevator,
			       t.elevator / wc->surface_throw);
		else
			printf("level trim at %d m/s: none\n", v);
	}
	if (sim_perf_best_glide(p, rho, &ld, &v_ld) == 0)
		printf("best glide: %.2f at %.1f m/s\n", ld, v_ld);
	if (sim_perf_roll_rate(p, rho, 15.0, 1.0, &roll) == 0)
		printf("roll rate at full aileron at 15 m/s: %.1f deg/s (at a wire command of 1: ", roll);
	if (sim_perf_roll_rate(p, rho, 15.0, wc->surface_throw, &roll) == 0)
		printf("%.1f deg/s)\n", roll);
	struct sim_perf_takeoff to;
	if (err == 0 && sim_perf_takeoff(p, rho, 1.2 * vs, 0.4, &to) == 0)
		printf("take-off at full throttle (rotating at 1.2 stall speed, elevator 0.4): ground roll "
		       "%.1f m, %.2f s, lift-off at %.1f m/s, heading held within %.2f deg; at rest %.1f deg "
		       "nose up\n", to.ground_roll_m, to.time_s, to.liftoff_speed_m_s,
		       fabs(to.heading_change_max_deg), to.pitch_rest_deg);
	else
		printf("take-off: hand-launched, no wheels\n");
	return 0;
}

/* ---- the link ---- */

static int split_host_port(const char *spec, char *host, size_t host_len, const char **port)
{
	const char *colon = strrchr(spec, ':');
	if (!colon || colon == spec || (size_t)(colon - spec) >= host_len || !colon[1])
		return -EINVAL;
	memcpy(host, spec, (size_t)(colon - spec));
	host[colon - spec] = '\0';
	*port = colon + 1;
	return 0;
}

static int open_udp(struct link *l, const char *spec)
{
	char host[64];
	const char *port;
	if (split_host_port(spec, host, sizeof(host), &port)) {
		say("--listen %s: not ADDR:PORT", spec);
		return -EINVAL;
	}
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *ai;
	int r = getaddrinfo(host, port, &hints, &ai);
	if (r) {
		say("--listen %s: %s", spec, gai_strerror(r));
		return -EINVAL;
	}
	int fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		r = -errno;
		say("--listen %s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return r;
	}
	freeaddrinfo(ai);
	int buf = 1 << 20;
	/* Deep enough for a burst of frames at lock-step speed; best effort. */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	l->fd = fd;
	l->udp = true;
	/* The port bound, so that ADDR:0 (any free port) names the one it got. */
	struct sockaddr_in got;
	socklen_t got_len = sizeof(got);
	if (getsockname(fd, (struct sockaddr *)&got, &got_len) == 0 && got.sin_family == AF_INET)
		snprintf(l->name, sizeof(l->name), "udp %s:%u", host, ntohs(got.sin_port));
	else
		snprintf(l->name, sizeof(l->name), "udp %s", spec);
	return 0;
}

static int baud_constant(long baud, speed_t *out)
{
	static const struct {
		long baud;
		speed_t c;
	} t[] = {
		{ 9600, B9600 },     { 19200, B19200 },	  { 38400, B38400 },   { 57600, B57600 },
		{ 115200, B115200 }, { 230400, B230400 }, { 460800, B460800 }, { 500000, B500000 },
		{ 921600, B921600 }, { 1000000, B1000000 }, { 1500000, B1500000 },
		{ 2000000, B2000000 }, { 3000000, B3000000 }, { 4000000, B4000000 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (t[i].baud == baud) {
			*out = t[i].c;
			return 0;
		}
	}
	return -EINVAL;
}

static int open_serial(struct link *l, const char *spec)
{
	char dev[256];
	const char *bs;
	speed_t sp;
	char *end;
	if (split_host_port(spec, dev, sizeof(dev), &bs)) {
		say("--serial %s: not DEVICE:BAUD", spec);
		return -EINVAL;
	}
	long baud = strtol(bs, &end, 10);
	if (*end || baud_constant(baud, &sp)) {
		say("--serial %s: %s is not a baud rate this program knows (9600-4000000)", spec, bs);
		return -EINVAL;
	}
	int fd = open(dev, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int r = -errno;
		say("%s: %s", dev, strerror(errno));
		return r;
	}
	struct termios tio;
	if (tcgetattr(fd, &tio) < 0) {
		int r = -errno;
		say("%s: not a terminal: %s", dev, strerror(errno));
		close(fd);
		return r;
	}
	cfmakeraw(&tio);
	tio.c_cflag |= CLOCAL | CREAD;
	tio.c_cflag &= ~(tcflag_t)(CSTOPB | CRTSCTS);
	tio.c_cc[VMIN] = 0;
	tio.c_cc[VTIME] = 0;
	if (cfsetispeed(&tio, sp) < 0 || cfsetospeed(&tio, sp) < 0 || tcsetattr(fd, TCSANOW, &tio) < 0) {
		int r = -errno;
		say("%s: setting %ld baud raw: %s", dev, baud, strerror(errno));
		close(fd);
		return r;
	}
	tcflush(fd, TCIOFLUSH);
	l->fd = fd;
	l->udp = false;
	l->have_peer = true;
	snprintf(l->name, sizeof(l->name), "serial %s at %ld baud", dev, baud);
	return 0;
}

static void addr_text(const struct sockaddr_storage *a, char *buf, size_t len)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)a;
	char ip[INET_ADDRSTRLEN] = "?";
	inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
	snprintf(buf, len, "%s:%u", ip, ntohs(in->sin_port));
}

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	const struct sockaddr_in *x = (const struct sockaddr_in *)(const void *)a;
	const struct sockaddr_in *y = (const struct sockaddr_in *)(const void *)b;
	return x->sin_addr.s_addr == y->sin_addr.s_addr && x->sin_port == y->sin_port;
}

/*
 * Reads all that is waiting, or in lock-step over UDP until the answer has
 * come: the autopilot sends nothing more until the next frame, and each read
 * that finds nothing is a system call, dear on a virtual machine. Returns 1
 * when the peer changed (UDP), 0, or -errno.
 */
static int link_read(struct sim *s)
{
	struct link *l = &s->link;
	uint8_t buf[4096];
	int changed = 0;
	for (;;) {
		struct sockaddr_storage from;
		socklen_t from_len = sizeof(from);
		ssize_t n = l->udp ? recvfrom(l->fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &from_len)
				   : read(l->fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == ECONNREFUSED)
				return changed;
			if (!l->udp && errno == EIO)
				return changed;   /* a pty whose other side is closed */
			return -errno;
		}
		if (n == 0)
			return changed;
		unsigned int good = sim_hil_input(&s->hil, buf, (size_t)n);
		/* The simulator answers to where the last good datagram came from. */
		if (l->udp && good && from.ss_family == AF_INET) {
			if (l->have_peer && !same_addr(&from, &l->peer)) {
				char a[64], b[64];
				addr_text(&l->peer, a, sizeof(a));
				addr_text(&from, b, sizeof(b));
				say("the autopilot is now at %s (was %s): restarted?", b, a);
				l->peer_changes++;
				changed = 1;
			}
			if (!l->have_peer) {
				char b[64];
				addr_text(&from, b, sizeof(b));
				say("autopilot at %s", b);
			}
			l->peer = from;
			l->peer_len = from_len;
			l->have_peer = true;
		}
		if (l->udp && !s->opt.realtime && s->hil.answered && s->tx.n_sensor)
			return changed;
	}
}

static int write_all(struct sim *s, const uint8_t *p, size_t len)
{
	struct link *l = &s->link;
	uint64_t give_up = mono_ns() + (uint64_t)(s->opt.timeout_s * 1e9);
	while (len > 0) {
		ssize_t n = write(l->fd, p, len);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (stop_signal || mono_ns() > give_up)
			return -ETIMEDOUT;
		struct pollfd pf = { l->fd, POLLOUT, 0 };
		poll(&pf, 1, 100);
	}
	return 0;
}

static int link_send(struct sim *s, const struct sim_hil_tx *tx)
{
	struct link *l = &s->link;
	if (tx->len == 0 || !l->have_peer)
		return 0;
	if (!l->udp)
		return write_all(s, tx->buf, tx->len);
	/* Datagrams of whole messages. */
	size_t start = 0;
	for (unsigned int i = 0; i < tx->n_msgs; i++) {
		size_t end = tx->ends[i];
		bool last = i + 1 == tx->n_msgs;
		if (!last && tx->ends[i + 1] - start <= UDP_PAYLOAD_MAX)
			continue;
		if (sendto(l->fd, tx->buf + start, end - start, 0, (const struct sockaddr *)&l->peer,
			   l->peer_len) < 0 &&
		    l->send_errors++ == 0)
			say("sending to the autopilot: %s (counting from now on)", strerror(errno));
		start = end;
	}
	return 0;
}

/* ---- reports ---- */

static void report_problems(struct sim *s)
{
	struct sim_hil *h = &s->hil;
	for (int p = 1; p < SIM_HIL_PROBLEM_COUNT; p++) {
		if (!(h->fresh_problems & (1u << p)))
			continue;
		if (s->problem_lines[p]++ < PROBLEM_LINES)
			say("%s [%llu]%s", h->problem_text[p], (unsigned long long)h->st.problems[p],
			    s->problem_lines[p] == PROBLEM_LINES ? " (no more of these; counted)" : "");
	}
	h->fresh_problems = 0;
}

static void status_line(struct sim *s)
{
	const struct sim_world *w = &s->world;
	struct sim_lla p = sim_world_lla(w);
	double r, pi, y;
	quat_to_euler(w->st.att, &r, &pi, &y);
	double d = 180.0 / M_PI;
	printf("t=%.2f %s lat=%.7f lon=%.7f alt=%.1fm agl=%.1fm as=%.1fm/s rpy=%.1f/%.1f/%.1f thr=%.2f%s\n",
	       (double)sim_world_time_us(w) * 1e-6, sim_phase_name(sim_world_phase(w)), p.lat_deg, p.lon_deg,
	       p.alt_m, -w->st.pos_ned_m.z, w->st.airspeed_m_s, r * d, pi * d, y * d, w->applied.throttle,
	       w->armed ? " armed" : "");
	fflush(stdout);
}

/* The crash as the pilot would want it reported: when, how hard and where. */
static void say_crash(const struct sim_world *w, const char *then)
{
	struct sim_lla p = sim_world_lla(w);
	int c = w->st.crash_contact;
	char how[96];
	if (c >= 0 && c < SIM_CONTACTS && w->cfg.airframe.contact_name[c])
		snprintf(how, sizeof(how), "%s touched the ground (over at most %.1f m/s vertical)",
			 w->cfg.airframe.contact_name[c], w->st.impact_speed_max_m_s);
	else
		snprintf(how, sizeof(how), "hit the ground at %.1f m/s vertical", w->st.impact_speed_max_m_s);
	say("the aircraft CRASHED at %.3f s: %s, %.1f m/s in all, "
	    "%.1f m north %.1f m east of home (%.7f, %.7f)%s",
	    (double)sim_world_time_us(w) * 1e-6, how,
	    v3_norm(w->st.vel_ned_m_s), w->st.pos_ned_m.x, w->st.pos_ned_m.y, p.lat_deg, p.lon_deg,
	    then);
}

static void truth_row(struct sim *s, const struct sim_world *w)
{
	char row[1536];
	int n = sim_truth_csv_row(w, s->events, row, sizeof(row));
	if (n > 0)
		fwrite(row, 1, (size_t)n < sizeof(row) ? (size_t)n : sizeof(row) - 1, s->truth);
	s->events_len = 0;
	s->events[0] = '\0';
}

static void on_step(void *ctx, const struct sim_world *w, const struct sim_step_out *o)
{
	struct sim *s = ctx;
	for (unsigned int i = 0; i < o->n_notes; i++) {
		say("t=%s", o->notes[i]);
		size_t need = strlen(o->notes[i]) + 1;
		if (s->events_len + need + 1 < sizeof(s->events)) {
			s->events_len += (size_t)snprintf(s->events + s->events_len,
							  sizeof(s->events) - s->events_len, "%s%s",
							  s->events_len ? ";" : "", o->notes[i]);
		}
	}
	enum sim_phase ph = sim_world_phase(w);
	if (ph == SIM_PHASE_AIR)
		s->flown = true;
	if (!s->flown || ph != SIM_PHASE_GROUND || w->armed)
		s->landed_us = UINT64_MAX;
	else if (s->landed_us == UINT64_MAX)
		s->landed_us = o->t_us;
	bool crash_now = w->st.crashed && !s->crashed;
	if (crash_now) {
		s->crashed = true;
		if (s->opt.crash_goes_on)
			say_crash(w, "; the flight goes on (--on-crash continue)");
	}
	if (s->truth && (o->t_us % s->truth_period_us == 0 || crash_now))
		truth_row(s, w);
}

/* ---- the flight ---- */

enum end_reason { END_NONE, END_DURATION, END_LANDED, END_SIGNAL, END_GONE, END_CRASH, END_LINK };

static bool flight_over(struct sim *s, enum end_reason *why)
{
	if (stop_signal)
		*why = END_SIGNAL;
	else if (s->crashed && !s->opt.crash_goes_on)
		*why = END_CRASH;
	else if (s->opt.duration_s > 0.0 &&
		 (double)sim_world_time_us(&s->world) >= s->opt.duration_s * 1e6 - 0.5)
		*why = END_DURATION;
	else if (s->opt.end_landed_s >= 0.0 && s->landed_us != UINT64_MAX &&
		 (double)(sim_world_time_us(&s->world) - s->landed_us) >= s->opt.end_landed_s * 1e6 - 0.5)
		*why = END_LANDED;
	else
		return false;
	return true;
}

static void maybe_status(struct sim *s)
{
	if (s->opt.status_hz <= 0.0)
		return;
	uint64_t now = mono_ns();
	if (now < s->next_status_ns)
		return;
	s->next_status_ns = now + (uint64_t)(1e9 / s->opt.status_hz);
	status_line(s);
}

/* Waits up to until_ns (0: forever) for input; reads it. Returns 1 on input,
 * 0 on time-out, -errno, or -EINTR on a signal. */
static int wait_input(struct sim *s, uint64_t until_ns, int extra_fd)
{
	struct pollfd pf[2] = { { s->link.fd, POLLIN, 0 }, { extra_fd, POLLIN, 0 } };
	int timeout_ms = -1;
	if (until_ns) {
		uint64_t now = mono_ns();
		if (now >= until_ns)
			return 0;
		timeout_ms = (int)((until_ns - now + 999999) / 1000000);
	}
	int r = poll(pf, extra_fd >= 0 ? 2 : 1, timeout_ms);
	if (r < 0)
		return -errno;
	if (r == 0)
		return 0;
	if (pf[0].revents & (POLLIN | POLLERR | POLLHUP)) {
		int c = link_read(s);
		if (c < 0)
			return c;
		if (c == 1 && !s->hil.answered && s->tx.n_sensor) {
			/* A new autopilot never saw the frame it is expected to answer. */
			link_send(s, &s->tx);
		}
		report_problems(s);
		if (pf[0].revents & POLLHUP && !s->link.udp) {
			/* pty or tty hung up: do not spin on it */
			struct timespec ts = { 0, 10000000 };
			nanosleep(&ts, NULL);
		}
	}
	return 1;
}

static enum end_reason wait_for_autopilot(struct sim *s)
{
	say("waiting for the autopilot on %s", s->link.name);
	uint64_t start = mono_ns(), nag = start + NAG_INTERVAL_NS;
	uint64_t give_up = s->opt.start_timeout_s > 0.0 ? start + (uint64_t)(s->opt.start_timeout_s * 1e9) : 0;
	struct sim_hil_stats *st = &s->hil.st;
	while (st->heartbeats + st->controls + st->other_msgs == 0) {
		if (stop_signal)
			return END_SIGNAL;
		uint64_t until = give_up && give_up < nag ? give_up : nag;
		int r = wait_input(s, until, -1);
		if (r < 0 && r != -EINTR) {
			say("reading %s: %s", s->link.name, strerror(-r));
			return END_LINK;
		}
		uint64_t now = mono_ns();
		if (give_up && now >= give_up) {
			say("no autopilot appeared on %s in %.1f s", s->link.name, s->opt.start_timeout_s);
			return END_GONE;
		}
		if (now >= nag) {
			say("still waiting for the autopilot on %s", s->link.name);
			nag = now + NAG_INTERVAL_NS;
		}
	}
	return END_NONE;
}

/*
 * Lock-step over UDP: reads without blocking until the answer has come or
 * s->spin.spin_ns have passed. The autopilot answers within microseconds when it
 * has a CPU of its own, and a process that sleeps in poll waits for the
 * kernel to wake it (on a virtual machine, a halted virtual CPU's wake-up:
 * tens of microseconds), twice in every frame. Returns 0 or -errno.
 */
static int spin_for_answer(struct sim *s)
{
	if (s->spin.spin_ns == 0)
		return 0;
	uint64_t until = mono_ns() + s->spin.spin_ns;
	do {
		int c = link_read(s);
		if (c < 0)
			return c;
		if (c == 1 && !s->hil.answered && s->tx.n_sensor)
			link_send(s, &s->tx);   /* as wait_input does: a new autopilot */
		if (s->hil.answered) {
			s->ls_spun++;
			break;
		}
	} while (mono_ns() < until && !stop_signal);
	report_problems(s);
	return 0;
}

/* Lock-step: holds the configured PM QoS request; its descriptor, or -1. */
static int hold_pm_qos(long latency_us)
{
	static const char path[] = "/dev/cpu_dma_latency";
	if (latency_us < 0) {
		say("PM QoS: --cpu-dma-latency -1: the CPUs' idle states are left alone");
		return -1;
	}
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	/* The interface takes the value as a binary s32. */
	int32_t v = (int32_t)latency_us;
	if (fd >= 0 && write(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		int e = errno;
		close(fd);
		fd = -1;
		errno = e;
	}
	if (fd < 0)
		say("PM QoS: cannot hold %s at %ld us (%s): every wake-up may pay for a deep idle state",
		    path, latency_us, strerror(errno));
	else
		say("PM QoS: holding %s at %ld us while in lock-step", path, latency_us);
	return fd;
}

/* Lock-step: a frame, then its answer. */
static enum end_reason run_lockstep(struct sim *s, unsigned int steps)
{
	enum end_reason why = END_NONE;
	while (!flight_over(s, &why)) {
		uint64_t t0 = mono_ns();
		unsigned int n = sim_hil_frame(&s->hil, steps, &s->tx, on_step, s);
		uint64_t t1 = mono_ns();
		int r = link_send(s, &s->tx);
		if (r < 0) {
			say("sending on %s: %s", s->link.name, strerror(-r));
			return r == -ETIMEDOUT ? END_GONE : END_LINK;
		}
		uint64_t t2 = mono_ns();
		s->ls_step_ns += t1 - t0;
		s->ls_send_ns += t2 - t1;
		maybe_status(s);
		if (flight_over(s, &why))
			break;
		if (n == 0) {
			/* link down: nothing sent, nothing to wait for; drop what comes */
			if ((r = link_read(s)) < 0) {
				say("reading %s: %s", s->link.name, strerror(-r));
				return END_LINK;
			}
			continue;
		}
		uint64_t waited_from = mono_ns();
		uint64_t deadline = waited_from + (uint64_t)(s->opt.timeout_s * 1e9);
		if ((r = spin_for_answer(s)) < 0) {
			say("reading %s: %s", s->link.name, strerror(-r));
			return END_LINK;
		}
		if (stop_signal)
			return END_SIGNAL;   /* it came while spinning: poll would not see it */
		bool caught = s->hil.answered;
		uint64_t spun_ns = mono_ns() - waited_from;
		uint64_t resend_ns = (uint64_t)(s->opt.resend_s * 1e9);
		uint64_t resend_at = resend_ns ? waited_from + resend_ns : 0;
		while (!s->hil.answered) {
			bool resend = resend_at && resend_at < deadline;
			r = wait_input(s, resend ? resend_at : deadline, -1);
			if (stop_signal)
				return END_SIGNAL;
			if (r < 0 && r != -EINTR) {
				say("reading %s: %s", s->link.name, strerror(-r));
				return END_LINK;
			}
			if (r == 0 && !s->hil.answered && resend) {
				/*
				 * A frame or its answer lost on the way (a serial line's
				 * bytes, a datagram dropped by a full buffer): the same
				 * frame again, which the autopilot answers again.
				 */
				if (s->ls_resends++ == 0)
					say("no answer for %.3f s in %.1f s: sending the frame again (every "
					    "%.1f s of silence; counted)", (double)s->hil.last_sensor_us * 1e-6,
					    (double)(mono_ns() - waited_from) * 1e-9, s->opt.resend_s);
				if ((r = link_send(s, &s->tx)) < 0) {
					say("sending on %s: %s", s->link.name, strerror(-r));
					return r == -ETIMEDOUT ? END_GONE : END_LINK;
				}
				resend_at = mono_ns() + resend_ns;
				continue;
			}
			if (r == 0 && !s->hil.answered) {
				double silent = (double)(mono_ns() - waited_from) * 1e-9;
				if (!s->opt.wait) {
					say("the autopilot is gone: no HIL_ACTUATOR_CONTROLS for %.3f s in %.1f s",
					    (double)s->hil.last_sensor_us * 1e-6, silent);
					return END_GONE;
				}
				say("still waiting for the autopilot's answer for %.3f s (%.0f s)",
				    (double)s->hil.last_sensor_us * 1e-6, silent);
				deadline = mono_ns() + NAG_INTERVAL_NS;
			}
		}
		uint64_t waited_ns = mono_ns() - waited_from;
		s->ls_wait_ns += waited_ns;
		s->ls_frames++;
		if (!caught && s->spin.spin_ns)
			s->ls_spin_lost_ns += spun_ns;
		spin_judge_frame(&s->spin, caught);
	}
	return why;
}

/* Real time: frames on an absolute CLOCK_MONOTONIC timer; the latest
 * controls apply, nothing is waited for. */
static enum end_reason run_realtime(struct sim *s, unsigned int steps)
{
	enum end_reason why = END_NONE;
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (tfd < 0) {
		say("timerfd: %s", strerror(errno));
		return END_LINK;
	}
	uint64_t period_ns = 1000000000ull / s->opt.frame_hz;
	uint64_t t0 = mono_ns(), frame = 0, late_frames = 0;
	uint64_t last_heard_ns = t0, last_count = 0, nag = 0;
	while (!flight_over(s, &why)) {
		uint64_t due = t0 + (frame + 1) * period_ns;
		struct itimerspec its = { { 0, 0 }, { (time_t)(due / 1000000000ull), (long)(due % 1000000000ull) } };
		timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
		for (;;) {
			int r = wait_input(s, 0, tfd);
			if (stop_signal) {
				close(tfd);
				return END_SIGNAL;
			}
			if (r < 0 && r != -EINTR) {
				say("reading %s: %s", s->link.name, strerror(-r));
				close(tfd);
				return END_LINK;
			}
			uint64_t expirations;
			if (read(tfd, &expirations, sizeof(expirations)) == (ssize_t)sizeof(expirations))
				break;
		}
		uint64_t now = mono_ns();
		/* More than a quarter of a second behind the wall clock: say so and
		 * start again from now rather than racing to catch up. */
		if (now > due + 250000000ull) {
			uint64_t behind = (now - due) / period_ns;
			say("fell %.3f s behind real time: skipping ahead", (double)(now - due) * 1e-9);
			late_frames += behind;
			t0 += behind * period_ns;
		}
		frame++;
		sim_hil_frame(&s->hil, steps, &s->tx, on_step, s);
		int r = link_send(s, &s->tx);
		if (r < 0) {
			say("sending on %s: %s", s->link.name, strerror(-r));
			close(tfd);
			return END_LINK;
		}
		maybe_status(s);
		uint64_t heard = s->hil.st.controls + s->hil.st.heartbeats + s->hil.st.other_msgs;
		if (heard != last_count) {
			last_count = heard;
			last_heard_ns = now;
			nag = 0;
		} else if (s->hil.link_up && now - last_heard_ns > (uint64_t)(s->opt.timeout_s * 1e9)) {
			if (!s->opt.wait) {
				say("the autopilot is gone: silent for %.1f s", (double)(now - last_heard_ns) * 1e-9);
				close(tfd);
				return END_GONE;
			}
			if (now >= nag) {
				say("the autopilot has been silent for %.0f s", (double)(now - last_heard_ns) * 1e-9);
				nag = now + NAG_INTERVAL_NS;
			}
		} else if (!s->hil.link_up) {
			last_heard_ns = now;   /* no answers expected over a lost link */
		}
	}
	if (late_frames)
		say("%llu frames were late and skipped", (unsigned long long)late_frames);
	close(tfd);
	return why;
}

static void summary(struct sim *s, enum end_reason why)
{
	const struct sim_world *w = &s->world;
	double t = (double)sim_world_time_us(w) * 1e-6;
	double wall = (double)(mono_ns() - s->wall_start_ns) * 1e-9;
	switch (why) {
	case END_DURATION: say("end of the flight at %.3f s (--duration)", t); break;
	case END_LANDED:
		say("end of the flight at %.3f s: disarmed on the ground since %.3f s (--end-landed)", t,
		    (double)s->landed_us * 1e-6);
		break;
	case END_SIGNAL: say("stopped by %s at %.3f s", stop_signal == SIGINT ? "SIGINT" : "SIGTERM", t); break;
	case END_GONE: say("stopping at %.3f s: the autopilot is gone", t); break;
	case END_LINK: say("stopping at %.3f s: the link failed", t); break;
	case END_CRASH: say_crash(w, ""); break;
	default: break;
	}
	const struct sim_hil_stats *st = &s->hil.st;
	const struct mavlink_parse_stats *ps = &s->hil.parser.stats;
	struct rusage ru;
	double cpu = 0.0;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	say("simulated %.3f s in %.3f s (%.1fx real time), %.3f s of CPU (%.1fx); %llu frames, %llu messages, %llu bytes sent; "
	    "%llu controls, %llu heartbeats, %llu other messages taken",
	    t, wall, wall > 0.0 ? t / wall : 0.0, cpu, cpu > 0.0 ? t / cpu : 0.0, (unsigned long long)st->frames,
	    (unsigned long long)st->msgs_sent, (unsigned long long)st->bytes_sent,
	    (unsigned long long)st->controls, (unsigned long long)st->heartbeats,
	    (unsigned long long)st->other_msgs);
	if (s->ls_frames) {
		double n = (double)s->ls_frames;
		say("lock-step, per frame: %.1f us stepping and framing, %.1f us sending, %.1f us waiting "
		    "for the answer; %.0f %% caught spinning (up to %ld us, turned off %llu times), "
		    "%.1f us a frame spun in vain; %llu frames sent again",
		    (double)s->ls_step_ns * 1e-3 / n, (double)s->ls_send_ns * 1e-3 / n,
		    (double)s->ls_wait_ns * 1e-3 / n, 100.0 * (double)s->ls_spun / n,
		    s->link.udp ? s->opt.spin_us : 0L, (unsigned long long)s->spin.offs,
		    (double)s->ls_spin_lost_ns * 1e-3 / n, (unsigned long long)s->ls_resends);
	}
	say("rejected: nonfinite=%llu out_of_range=%llu backwards=%llu future=%llu bad_crc=%llu bad_len=%llu "
	    "unknown_id=%llu bad_flags=%llu garbage_bytes=%llu link_down_bytes=%llu peer_changes=%llu "
	    "send_errors=%llu",
	    (unsigned long long)st->problems[SIM_HIL_NONFINITE], (unsigned long long)st->problems[SIM_HIL_RANGE],
	    (unsigned long long)st->problems[SIM_HIL_BACKWARDS],
	    (unsigned long long)st->problems[SIM_HIL_FUTURE], (unsigned long long)ps->bad_crc,
	    (unsigned long long)ps->bad_len, (unsigned long long)ps->unknown_id,
	    (unsigned long long)ps->bad_flags, (unsigned long long)ps->skipped_bytes,
	    (unsigned long long)st->link_down_bytes, (unsigned long long)s->link.peer_changes,
	    (unsigned long long)s->link.send_errors);
}

int main(int argc, char **argv)
{
	static struct sim sim;   /* large: the time-line and the transmit buffer */
	struct sim *s = &sim;
	s->link.fd = -1;
	s->landed_us = UINT64_MAX;
	if (parse_options(s, argc, argv))
		return EXIT_USAGE;
	if (s->opt.figures)
		return print_figures(&s->opt.world) ? EXIT_USAGE : EXIT_DONE;
	if (sim_world_init(&s->world, &s->opt.world, &s->tl)) {
		say("bad world configuration");
		return EXIT_USAGE;
	}
	{
		const struct sim_sensors_config *sc = &s->world.cfg.sensors;
		say("earth field at home (World Magnetic Model WMM2025, %.3f): declination %.2f deg, "
		    "inclination %.2f deg, %.4f gauss", s->opt.world.mag_year, sc->mag_declination_deg,
		    sc->mag_inclination_deg, sc->mag_field_gauss);
	}
	sim_hil_init(&s->hil, &s->world, s->opt.sysid, s->opt.compid);
	s->hil.all_fresh = s->opt.all_fresh;

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;   /* no SA_RESTART: a signal wakes poll */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	int r = s->opt.serial ? open_serial(&s->link, s->opt.serial) : open_udp(&s->link, s->opt.listen);
	if (r)
		return EXIT_USAGE;
	if (s->opt.truth_file) {
		s->truth = fopen(s->opt.truth_file, "w");
		if (!s->truth) {
			say("%s: %s", s->opt.truth_file, strerror(errno));
			close(s->link.fd);
			return EXIT_USAGE;
		}
		static char truth_buf[1 << 16];
		setvbuf(s->truth, truth_buf, _IOFBF, sizeof(truth_buf));
		char h[1024];
		int n = sim_truth_csv_header(&s->world, h, sizeof(h));
		fwrite(h, 1, (size_t)n < sizeof(h) ? (size_t)n : sizeof(h) - 1, s->truth);
		/*
		 * The airframe that flies and its stall speed as --figures measures
		 * it, as the first row's first event, so that a scorer holds the
		 * flight to this model's stall, not a copy; a line of its own would
		 * break readers that take the first line for the column names.
		 */
		struct sim_atmos isa;
		double stall_m_s;
		struct sim_perf_hover hover;
		sim_atmos_isa(s->world.cfg.home.alt_m, 0.0, &isa);
		/* A multirotor has no stall: its hover throttle as --figures measures it. */
		if (s->world.cfg.airframe.n_rotors > 0 &&
		    sim_perf_hover(&s->world.cfg.airframe, isa.density_kg_m3, &hover) == 0)
			s->events_len = (size_t)snprintf(s->events, sizeof(s->events),
							 "%.3f airframe %s hover throttle %.3f",
							 (double)sim_world_time_us(&s->world) * 1e-6,
							 s->world.cfg.airframe.name, hover.throttle);
		else if (s->world.cfg.airframe.n_rotors == 0 &&
			 sim_perf_stall_speed(&s->world.cfg.airframe, isa.density_kg_m3, &stall_m_s) == 0)
			s->events_len = (size_t)snprintf(s->events, sizeof(s->events),
							 "%.3f airframe %s stall %.2f m/s",
							 (double)sim_world_time_us(&s->world) * 1e-6,
							 s->world.cfg.airframe.name, stall_m_s);
		uint64_t per = (uint64_t)llround(1e6 / s->opt.truth_hz);
		uint64_t dt = 1000000u / s->opt.world.imu_hz;
		s->truth_period_us = per < dt ? dt : per / dt * dt;
	}
	unsigned int steps = s->opt.world.imu_hz / s->opt.frame_hz;
	say("%s, %u Hz physics, %u Hz HIL_SENSOR, %s%s; seed %llu; %u time-line events", s->link.name,
	    s->opt.world.imu_hz, s->opt.world.sensor_hz, s->opt.realtime ? "real time" : "lock-step",
	    s->opt.realtime ? "" : (steps > 1 ? " frames" : ""),
	    (unsigned long long)s->opt.world.seed, s->tl.count);

	/* Before the wait, so that the autopilot's first frames are as prompt as the rest. */
	int qos_fd = s->opt.realtime ? -1 : hold_pm_qos(s->opt.cpu_dma_latency_us);
	spin_judge_init(&s->spin, s->link.udp && s->opt.spin_us > 0 ?
					  (uint64_t)s->opt.spin_us * 1000u : 0u);
	enum end_reason why = wait_for_autopilot(s);
	s->wall_start_ns = mono_ns();
	if (why == END_NONE)
		why = s->opt.realtime ? run_realtime(s, steps) : run_lockstep(s, steps);
	if (qos_fd >= 0)
		close(qos_fd);
	report_problems(s);
	summary(s, why);
	if (s->truth) {
		if (why != END_CRASH && sim_world_time_us(&s->world) % s->truth_period_us != 0)
			truth_row(s, &s->world);   /* the last moment */
		if (fclose(s->truth) != 0) {
			say("%s: %s", s->opt.truth_file, strerror(errno));
			why = why == END_CRASH ? why : END_LINK;
		}
	}
	close(s->link.fd);
	switch (why) {
	case END_DURATION:
	case END_LANDED:
	case END_SIGNAL: return s->crashed ? EXIT_CRASHED : EXIT_DONE;
	case END_CRASH: return EXIT_CRASHED;
	default: return EXIT_GONE;
	}
}
