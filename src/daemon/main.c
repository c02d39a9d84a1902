// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * fulmard: start-up, the leader thread and shutdown.
 *
 * The leader reads the configuration, checks the board, opens its devices and
 * starts the six flight threads; then it only waits for signals, pets the
 * systemd watchdog while every thread keeps looping, and prints the timing
 * report. It is not real-time itself, so it may format and write.
 */
#define LOG_TAG "fulmard"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include "daemon/config.h"
#include "daemon/devices.h"
#include "daemon/notify.h"
#include "daemon/scheduler.h"
#include "daemon/services.h"
#include "mavlink/gcs.h"
#include "fulmar/board.h"
#include "fulmar/clock.h"
#include "util/log.h"

#if !defined(FULMAR_VERSION) || !defined(FULMAR_CAPABILITIES)
#error "meson defines FULMAR_VERSION and FULMAR_CAPABILITIES"
#endif

/* Leader-thread state; too big for the stack. */
static struct config cfg;
static struct devices devs;
static struct sched sched;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fulmard [OPTION]...\n"
		"Flies a fixed-wing aircraft from a Linux flight board.\n\n"
		"  -c, --config FILE   read settings from FILE (default: built-in defaults)\n"
		"      --load-params FILE  set parameters from a NAME,VALUE file and save them\n"
		"      --load-mission FILE replace the mission with a QGC WPL 110 file and save it\n"
		"      --save-params FILE  write the saved parameters as NAME,VALUE and exit\n"
		"      --save-mission FILE write the saved mission as QGC WPL 110 and exit\n"
		"      --board-info    print the board this fulmard is built for and exit\n"
		"  -v, --verbose       debug messages\n"
		"  -V, --version       print the version and exit\n"
		"  -h, --help          this text\n\n"
		"Signals: SIGTERM/SIGINT stop cleanly, SIGUSR1 prints the timing report.\n"
		"Exit status: 0 stopped cleanly; %d bad command line; %d configuration file\n"
		"missing or unreadable; %d bad configuration; %d board cannot fly (a part\n"
		"fulmar has no driver for yet); %d a device could not be opened; %d the\n"
		"operating system refused (threads, memory); %d a ground station asked\n"
		"for a reboot (systemd's Restart=on-failure starts fulmard again); %d a\n"
		"--save-* file could not be written.\n",
		EX_USAGE, EX_NOINPUT, EX_CONFIG, EX_UNAVAILABLE, EX_IOERR, EX_OSERR, EX_TEMPFAIL,
		EX_CANTCREAT);
}

static void board_info(const struct board *b)
{
	static char buf[8192];
	printf("board: %s\n%s\n", b->name, b->description);
	printf("imu rate: %u Hz, main loop: %u Hz\n", b->imu_rate_hz, b->main_rate_hz);
	printf("capabilities: %s\n", FULMAR_CAPABILITIES);
	devices_describe(b, buf, sizeof(buf));
	printf("devices:\n%s", buf);
	if (devices_missing(b, buf, sizeof(buf)))
		printf("cannot fly yet: %s\n", buf);
}

static void report(void)
{
	static char buf[4096];
	sched_report(&sched, buf, sizeof(buf));
	log_info("timing report (%s):", sched.fifo ? "SCHED_FIFO" : "normal scheduling");
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		log_info("  %s", line);
}

/* Whether every thread looped since the last call; names the first that did not. */
static bool threads_alive(uint64_t *last, const char **stalled)
{
	bool ok = true;
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++) {
		uint64_t n = sched_loops(&sched, (enum sched_thread_id)i);
		if (n == last[i] && ok) {
			*stalled = sched_thread_name((enum sched_thread_id)i);
			ok = false;
		}
		last[i] = n;
	}
	return ok;
}

static int run(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGHUP);
	/* Blocked before the threads exist, so they inherit it and only the leader takes signals. */
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	int rc = sched_init(&sched, &cfg.sched);
	if (rc) {
		log_err("scheduler configuration rejected: %s", strerror(-rc));
		return EX_CONFIG;
	}
	rc = services_add_tasks(&sched);
	if (rc) {
		log_err("cannot register the flight tasks: %s", strerror(-rc));
		return EX_SOFTWARE;
	}
	rc = sched_start(&sched);
	if (rc)
		return EX_OSERR;
	char prios[128];
	int n = 0;
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT; i++)
		n += snprintf(prios + n, sizeof(prios) - (size_t)n, " %s=%d",
			      sched_thread_name((enum sched_thread_id)i), sched.th[i].priority);
	log_info("running: six threads, %s,%s%s", sched.fifo ? "SCHED_FIFO" : "normal scheduling",
		 prios, sched.memory_locked ? ", memory locked" : "");
	notify_send("READY=1");

	uint64_t wd_usec = notify_watchdog_usec();
	/* Half the watchdog period, as sd_watchdog_enabled(3) advises; else a 1 s check. */
	/* Half the watchdog period, and often enough to answer a reboot request. */
	uint64_t tick_ns = wd_usec ? wd_usec * 500 : 200000000ull;
	if (tick_ns > 200000000ull)
		tick_ns = 200000000ull;
	uint64_t last_check_ns = 0;
	uint64_t last[SCHED_THREAD_COUNT] = { 0 };
	int status = 0;
	for (;;) {
		struct timespec ts = { .tv_sec = (time_t)(tick_ns / 1000000000u),
				       .tv_nsec = (long)(tick_ns % 1000000000u) };
		int sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGTERM || sig == SIGINT) {
			log_info("%s: stopping", strsignal(sig));
			break;
		}
		if (sig == SIGUSR1) {
			report();
			continue;
		}
		if (sig == SIGHUP) {
			log_info("SIGHUP ignored: restart fulmard to apply a new configuration");
			continue;
		}
		if (sig < 0 && errno != EAGAIN && errno != EINTR) {
			log_err("sigtimedwait: %s", strerror(errno));
			status = EX_OSERR;
			break;
		}
		int req = services_exit_request();
		if (req == GCS_EXIT_REBOOT || req == GCS_EXIT_SHUTDOWN) {
			log_info("ground station asked for a %s: stopping",
				 req == GCS_EXIT_REBOOT ? "reboot" : "shutdown");
			status = req == GCS_EXIT_REBOOT ? EX_TEMPFAIL : 0;
			break;
		}
		const char *stalled = NULL;
		uint64_t now_ns = clock_mono_ns();
		/* Liveness over at least half the watchdog period (or a second). */
		uint64_t check_ns = wd_usec ? wd_usec * 500 : 1000000000ull;
		if (sig < 0 && errno == EAGAIN && now_ns - last_check_ns >= check_ns - check_ns / 10) {
			last_check_ns = now_ns;
			if (threads_alive(last, &stalled))
				notify_send("WATCHDOG=1");
			else
				log_err("thread %s has stopped looping: not petting the watchdog",
					stalled);
		}
	}
	notify_send("STOPPING=1");
	sched_stop(&sched);
	report();
	return status;
}

int main(int argc, char **argv)
{
	enum { OPT_BOARD_INFO = 256, OPT_LOAD_PARAMS, OPT_LOAD_MISSION, OPT_SAVE_PARAMS,
	       OPT_SAVE_MISSION };
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "board-info", no_argument, NULL, OPT_BOARD_INFO },
		{ "load-params", required_argument, NULL, OPT_LOAD_PARAMS },
		{ "load-mission", required_argument, NULL, OPT_LOAD_MISSION },
		{ "save-params", required_argument, NULL, OPT_SAVE_PARAMS },
		{ "save-mission", required_argument, NULL, OPT_SAVE_MISSION },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *config_path = NULL, *load_params = NULL, *load_mission = NULL;
	const char *save_params = NULL, *save_mission = NULL;
	bool verbose = false;
	int c;
	while ((c = getopt_long(argc, argv, "c:vVh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config_path = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 'V':
			printf("fulmard %s (board %s)\n", FULMAR_VERSION, board_get()->name);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_LOAD_PARAMS:
			load_params = optarg;
			break;
		case OPT_LOAD_MISSION:
			load_mission = optarg;
			break;
		case OPT_SAVE_PARAMS:
			save_params = optarg;
			break;
		case OPT_SAVE_MISSION:
			save_mission = optarg;
			break;
		case OPT_BOARD_INFO:
			board_info(board_get());
			return 0;
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fulmard: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return EX_USAGE;
	}

	const struct board *board = board_get();
	config_defaults(&cfg, board);
	static char err[PATH_MAX + 512];
	if (config_path) {
		int rc = config_load(&cfg, config_path, board, err, sizeof(err));
		if (rc) {
			log_err("%s", err);
			return rc == -EINVAL ? EX_CONFIG : EX_NOINPUT;
		}
	}
	log_set_level(verbose ? LOG_LEVEL_DEBUG : cfg.log_level);
	log_info("fulmard %s on board %s", FULMAR_VERSION, board->name);

	static char missing[4096];
	if (devices_missing(board, missing, sizeof(missing))) {
		log_err("board %s cannot fly: fulmar has no driver yet for %s", board->name, missing);
		return EX_UNAVAILABLE;
	}
	if (board->notice)
		log_warn("%s", board->notice);
	int rc = devices_open(&devs, board, &cfg, err, sizeof(err));
	if (rc) {
		log_err("%s", err);
		return rc == -EINVAL ? EX_CONFIG : EX_IOERR;
	}
	rc = services_params(&cfg, load_params, err, sizeof(err));
	if (rc) {
		log_err("%s", err);
		devices_close(&devs);
		return rc == -EINVAL ? EX_CONFIG : EX_NOINPUT;
	}
	rc = services_mission(&cfg, load_mission, err, sizeof(err));
	if (rc) {
		log_err("%s", err);
		devices_close(&devs);
		return rc == -EINVAL ? EX_CONFIG : EX_NOINPUT;
	}
	if (save_params || save_mission) {
		/* Write what is saved and stop: no threads, no links. */
		rc = save_params ? services_save_params(save_params, err, sizeof(err)) : 0;
		if (!rc && save_mission)
			rc = services_save_mission(save_mission, err, sizeof(err));
		if (rc)
			log_err("%s", err);
		devices_close(&devs);
		return rc ? EX_CANTCREAT : 0;
	}
	rc = services_links(&cfg, err, sizeof(err));
	if (rc) {
		log_err("%s", err);
		devices_close(&devs);
		return rc == -EINVAL ? EX_CONFIG : EX_IOERR;
	}
	int status = run();
	services_close();
	devices_close(&devs);
	if (status == 0)
		log_info("stopped cleanly");
	return status;
}
