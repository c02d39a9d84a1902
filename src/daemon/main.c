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
#include <unistd.h>

#include "daemon/board_io.h"
#include "daemon/config.h"
#include "daemon/devices.h"
#include "daemon/flight.h"
#include "daemon/flightlog.h"
#include "daemon/hil.h"
#include "daemon/notify.h"
#include "daemon/pm_qos.h"
#include "daemon/sensors.h"
#include "daemon/scheduler.h"
#include "daemon/services.h"
#include "mavlink/gcs.h"
#include "fulmar/board.h"
#include "fulmar/clock.h"
#include "param/param.h"
#include "util/log.h"
#include "util/spin.h"

#if !defined(FULMAR_VERSION) || !defined(FULMAR_CAPABILITIES)
#error "meson defines FULMAR_VERSION and FULMAR_CAPABILITIES"
#endif

/* Leader-thread state; too big for the stack. */
static struct config cfg;
static struct devices devs;
static struct sched sched;
static struct sensor_hub hub;
static struct hil hil;
static struct board_io bio;       /* the board's own sensors and outputs (no --hil) */
static const char *hil_url;       /* NULL: the board's own sensors and outputs */
static bool lockstep;
/*
 * Lock-step: how long to read the link without blocking before sleeping in
 * poll, at most (--spin-us). The simulator answers within microseconds when
 * it has a CPU of its own, and a process that blocked waits for the kernel to
 * wake it (on a virtual machine, a halted virtual CPU's wake-up: tens of
 * microseconds), twice in every frame. UDP only: a serial line brings a frame
 * in milliseconds.
 */
#define LOCKSTEP_SPIN_US 200u
static unsigned int lockstep_spin_us = LOCKSTEP_SPIN_US;
static struct { uint32_t us; uint64_t from_us, to_us; } test_burn[FLIGHT_TEST_BURNS];  /* --test-burn */
static unsigned int n_test_burn;
static const char *histogram_path;  /* --timing-histogram */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fulmard [OPTION]...\n"
		"Flies a fixed-wing aircraft or a multicopter from a Linux flight board.\n\n"
		"  -c, --config FILE   read settings from FILE (default: built-in defaults)\n"
		"      --load-params FILE  set parameters from a NAME,VALUE file and save them\n"
		"                      (up to %d, applied in order: the last file's value wins)\n"
		"      --load-mission FILE replace the mission with a QGC WPL 110 file and save it\n"
		"      --save-params FILE  write the saved parameters as NAME,VALUE and exit\n"
		"      --save-mission FILE write the saved mission as QGC WPL 110 and exit\n"
		"      --hil URL       sensors from and outputs to a simulator: udp:HOST:PORT\n"
		"                      or serial:DEVICE:BAUD (the sim board: %s)\n"
		"      --lockstep      time is the simulator's: run each sensor step as it\n"
		"                      comes (no real-time threads); needs a HIL link\n"
		"      --spin-us US    lock-step over UDP: read the simulator without blocking\n"
		"                      for up to US microseconds before sleeping (default %u;\n"
		"                      0 sleeps at once, as on a host with one CPU to share)\n"
		"      --board-info    print the board this fulmard is built for and exit\n"
		"      --timing-histogram FILE  at exit, also write each thread's wake-up\n"
		"                      latency and run time histograms to FILE, for tools\n"
		"                      that merge runs (tools/bench-timing)\n"
		"      --test-burn US,FROM,TO  for tests of overload shedding only: burn US\n"
		"                      microseconds of CPU in every main loop from FROM to TO\n"
		"                      seconds on the clock of the log's lines (docs/design.md);\n"
		"                      up to %d times\n"
		"  -v, --verbose       debug messages\n"
		"  -V, --version       print the version and exit\n"
		"  -h, --help          this text\n\n"
		"Signals: SIGTERM/SIGINT stop cleanly, SIGUSR1 prints the timing report.\n"
		"Exit status: 0 stopped cleanly; %d bad command line; %d configuration file\n"
		"missing or unreadable; %d bad configuration; %d board cannot fly (a part\n"
		"fulmar has no driver for yet); %d a device could not be opened; %d the\n"
		"operating system refused (threads, memory); %d a ground station asked\n"
		"for a reboot (systemd's Restart=on-failure starts fulmard again); %d a\n"
		"--save-* file could not be written; in HIL, %d also when the simulator\n"
		"started a new flight.\n",
		SERVICES_LOAD_PARAMS_MAX,
		board_get()->hil_default ? board_get()->hil_default : "none by default",
		LOCKSTEP_SPIN_US, FLIGHT_TEST_BURNS, EX_USAGE, EX_NOINPUT, EX_CONFIG, EX_UNAVAILABLE, EX_IOERR, EX_OSERR, EX_TEMPFAIL,
		EX_CANTCREAT, EX_TEMPFAIL);
}

static void board_info(const struct board *b)
{
	static char buf[8192];
	printf("board: %s\n%s\n", b->name, b->description);
	printf("imu rate: %u Hz, main loop: %u Hz\n", b->imu_rate_hz, b->main_rate_hz);
	printf("capabilities: %s\n", FULMAR_CAPABILITIES);
	if (b->hil_default)
		printf("HIL: %s unless --hil names another simulator (fulmar-sim listens on "
		       "0.0.0.0:14560 unless --listen says otherwise)\n", b->hil_default);
	else
		printf("HIL: only with --hil (the board's own sensors and servos otherwise)\n");
	devices_describe(b, buf, sizeof(buf));
	printf("devices:\n%s", buf);
	if (devices_missing(b, buf, sizeof(buf)))
		printf("cannot fly yet: %s\n", buf);
	const char *qos = access(PM_QOS_CPU_DMA_LATENCY, F_OK) != 0 ? "absent here"
			  : access(PM_QOS_CPU_DMA_LATENCY, W_OK) != 0 ? "not writable here"
			  : "writable here";
	printf("PM QoS: [sched] cpu_dma_latency_us (0 by default, -1 leaves it alone) is held on "
	       "%s while fulmard runs; %s\n", PM_QOS_CPU_DMA_LATENCY, qos);
}

/* The configured PM QoS request, held until pm_qos_release: its fd, or -1. */
static int hold_pm_qos(int32_t latency_us)
{
	if (latency_us < 0) {
		log_info("PM QoS: cpu_dma_latency_us = -1: the CPUs' idle states are left alone");
		return -1;
	}
	int fd = pm_qos_hold(PM_QOS_CPU_DMA_LATENCY, latency_us);
	if (fd < 0)
		log_warn("PM QoS: cannot hold %s at %d us (%s): every wake-up may pay for a deep "
			 "idle state", PM_QOS_CPU_DMA_LATENCY, (int)latency_us, strerror(-fd));
	else
		log_info("PM QoS: holding %s at %d us while running", PM_QOS_CPU_DMA_LATENCY,
			 (int)latency_us);
	return fd;
}

static void report(void)
{
	static char buf[8192];
	sched_report(&sched, buf, sizeof(buf));
	log_info("timing report (%s):", sched.fifo ? "SCHED_FIFO" : "normal scheduling");
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		log_info("  %s", line);
	/*
	 * What the main loop achieved, from its first start to its last on the
	 * scheduler's clock (simulated seconds in lock-step), and its load: the
	 * figures SYS_STATUS and the log's PM records give.
	 */
	struct sched_figures f;
	sched_figures_read(&sched, SCHED_MAIN, &f);
	double span_s;
	double hz = sched_rate_hz(NULL, &f, &span_s);
	uint32_t load = sched_load_permille(&sched, SCHED_MAIN, NULL, &f);
	if (span_s >= 1.0)
		log_info("main loop: %.1f loops a %s over %.1f s (configured %u Hz), load %u.%u %%",
			 hz, lockstep ? "simulated second" : "second", span_s,
			 cfg.sched.thread[SCHED_MAIN].rate_hz, load / 10u, load % 10u);
}

/*
 * Every thread's histograms for --timing-histogram: lines "THREAD wake|run max
 * NS" and "THREAD wake|run UPPER_NS COUNT" (hist_write), in nanoseconds.
 */
static void write_histograms(const char *path)
{
	FILE *f = fopen(path, "w");
	int rc = f ? 0 : -errno;
	for (int i = SCHED_TIMER; i < SCHED_THREAD_COUNT && !rc; i++) {
		char prefix[32];
		const char *name = sched_thread_name((enum sched_thread_id)i);
		snprintf(prefix, sizeof(prefix), "%s wake", name);
		rc = hist_write(&sched.th[i].stats.wake_latency, prefix, f);
		snprintf(prefix, sizeof(prefix), "%s run", name);
		if (!rc)
			rc = hist_write(&sched.th[i].stats.run_time, prefix, f);
	}
	if (f && fclose(f) && !rc)
		rc = -errno;
	if (rc)
		log_err("--timing-histogram %s: %s", path, strerror(-rc));
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

static void pace_main(void *ctx)
{
	sched_pace_signal(ctx, SCHED_MAIN);
}

/* timer thread, real-time HIL: what the simulator sent, within a millisecond of its coming. */
static void hil_in_task(void *ctx, uint64_t now_us)
{
	(void)now_us;
	int rc = hil_receive(ctx, 0, NULL, NULL);
	if (rc == -ECONNRESET)
		log_warn("HIL: carrying on; restart fulmard for the new flight");
}

/* main thread, real-time HIL: the outputs to the simulator, every loop. */
static void hil_out_task(void *ctx, uint64_t now_us)
{
	(void)now_us;
	hil_send_outputs(ctx, flight_armed(), flight_servo_params());
}

/* Sensors, the flight work and the services on their threads. Returns 0 or an exit status. */
static int setup_tasks(const struct board *board)
{
	int rc = sched_init(&sched, &cfg.sched);
	if (rc) {
		log_err("scheduler configuration rejected: %s", strerror(-rc));
		return EX_CONFIG;
	}
	uint32_t main_hz = cfg.sched.thread[SCHED_MAIN].rate_hz;
	uint32_t imu_hz = board->imu_rate_hz > main_hz ? board->imu_rate_hz : main_hz;
	/*
	 * Main is paced by the IMU's samples on a board, and by the simulator's
	 * steps in lock-step. In real-time HIL the samples come in bursts, a
	 * frame's steps in one datagram whenever the simulator (on a busy host,
	 * late) sends it: main runs on its own period instead and takes what has
	 * come, and the link is read on the timer thread, which has no other work
	 * in HIL, so bursts are taken in as they arrive.
	 */
	bool paced = !hil_url || lockstep;
	sensors_init(&hub, imu_hz, main_hz, paced ? pace_main : NULL, &sched);
	flight_init(&hub, hil_url ? hil_rcout(&hil) : board_io_rcout(&bio));
	for (unsigned int i = 0; i < n_test_burn; i++) {
		log_warn("--test-burn: every main loop burns %u us from %.1f s to %.1f s (a test fault)",
			 test_burn[i].us, (double)test_burn[i].from_us * 1e-6,
			 (double)test_burn[i].to_us * 1e-6);
		flight_test_burn(test_burn[i].us, test_burn[i].from_us, test_burn[i].to_us);
	}
	if (paced)
		sched_set_paced(&sched, SCHED_MAIN);
	rc = flight_add_work(&sched);
	const struct sched_task tasks[] = {
		{ "flight", SCHED_MAIN, 0, flight_task, NULL },
		{ "hil-out", SCHED_MAIN, 0, hil_out_task, &hil },
		{ "hil-in", SCHED_TIMER, 0, hil_in_task, &hil },
	};
	/* In lock-step the leader reads and answers the simulator itself. */
	size_t n = !hil_url ? 1 : lockstep ? 1 : 3;
	for (size_t i = 0; i < n && !rc; i++)
		rc = sched_add_task(&sched, &tasks[i]);
	if (!rc && !hil_url)
		rc = board_io_add_tasks(&bio, &sched);
	if (!rc)
		rc = services_add_tasks(&sched, &hub, hil_url ? NULL : &bio);
	const struct sched_task log_task = { "log", SCHED_IO, 0, flightlog_task, &sched };
	if (!rc)
		rc = sched_add_task(&sched, &log_task);
	if (rc) {
		log_err("cannot register the flight tasks: %s", strerror(-rc));
		return EX_SOFTWARE;
	}
	return 0;
}

/* Takes a signal if one is pending (or waits up to wait_ns for one); returns 0 to go on or an exit status. */
static int take_signal(const sigset_t *set, uint64_t wait_ns, bool *stop)
{
	struct timespec ts = { .tv_sec = (time_t)(wait_ns / 1000000000u),
			       .tv_nsec = (long)(wait_ns % 1000000000u) };
	int sig = sigtimedwait(set, NULL, &ts);
	if (sig == SIGTERM || sig == SIGINT) {
		log_info("%s: stopping", strsignal(sig));
		*stop = true;
	} else if (sig == SIGUSR1) {
		report();
	} else if (sig == SIGHUP) {
		log_info("SIGHUP ignored: restart fulmard to apply a new configuration");
	} else if (sig < 0 && errno != EAGAIN && errno != EINTR) {
		log_err("sigtimedwait: %s", strerror(errno));
		*stop = true;
		return EX_OSERR;
	}
	int req = services_exit_request();
	if (req == GCS_EXIT_REBOOT || req == GCS_EXIT_SHUTDOWN) {
		log_info("ground station asked for a %s: stopping",
			 req == GCS_EXIT_REBOOT ? "reboot" : "shutdown");
		*stop = true;
		return req == GCS_EXIT_REBOOT ? EX_TEMPFAIL : 0;
	}
	return 0;
}

/* The leader's lock-step state: the spin bound, and where its wall time goes. */
struct lockstep {
	struct spin_judge spin;    /* util/spin.h: --spin-us over UDP */
	uint64_t frames;           /* answers after the first */
	uint64_t spun;             /* ... whose sensor steps came while spinning */
	uint64_t spin_lost_ns;     /* spinning that found nothing */
	uint64_t tasks_ns;         /* running the tasks due, after the first answer */
	uint64_t send_ns;          /* sending those answers */
	uint64_t wall_ns;          /* from the first answer to the last */
};

static int lockstep_advance(void *ctx, uint64_t t_us)
{
	struct lockstep *ls = ctx;
	uint64_t t0 = clock_mono_ns();
	int rc = sched_lockstep_run_until(&sched, t_us);
	ls->tasks_ns += clock_mono_ns() - t0;
	return rc;
}

/*
 * Takes what the simulator sent: reads without blocking for up to
 * ls->spin.spin_ns, then waits in poll for up to timeout_ms. Returns what
 * hil_receive returns; *spun says whether the spinning found it.
 */
static int lockstep_receive(struct lockstep *ls, int timeout_ms, bool *spun)
{
	*spun = false;
	if (!hil.sock)
		return hil_receive(&hil, timeout_ms, lockstep_advance, ls);
	uint64_t t0 = clock_mono_ns(), spun_ns = 0;
	do {
		int rc = hil_receive(&hil, 0, lockstep_advance, ls);
		if (rc != 0) {
			*spun = rc > 0;
			return rc;
		}
		spun_ns = clock_mono_ns() - t0;
	} while (spun_ns < ls->spin.spin_ns);
	int rc = hil_receive(&hil, timeout_ms, lockstep_advance, ls);
	if (rc > 0)
		ls->spin_lost_ns += spun_ns;
	return rc;
}

static void lockstep_report(const struct lockstep *ls)
{
	if (!ls->frames)
		return;
	double n = (double)ls->frames;
	double other_ns = (double)(ls->wall_ns - ls->tasks_ns - ls->send_ns);
	log_info("lock-step: %llu answers in %.3f s, per answer %.1f us: tasks %.1f us, sending "
		 "%.1f us, reading and waiting for the simulator %.1f us; %.0f %% caught spinning "
		 "(up to %u us, turned off %llu times), %.1f us a frame spun in vain",
		 (unsigned long long)ls->frames, (double)ls->wall_ns * 1e-9,
		 (double)ls->wall_ns * 1e-3 / n, (double)ls->tasks_ns * 1e-3 / n,
		 (double)ls->send_ns * 1e-3 / n, other_ns * 1e-3 / n, 100.0 * (double)ls->spun / n,
		 (unsigned int)(ls->spin.bound_ns / 1000u), (unsigned long long)ls->spin.offs,
		 (double)ls->spin_lost_ns * 1e-3 / n);
}

/*
 * Lock-step HIL: no threads. The leader takes each sensor step from the
 * simulator, runs every task due up to its time, and answers with the outputs.
 */
static int run_lockstep(const sigset_t *set)
{
	log_info("running: lock-step with the simulator, tasks on the leader thread");
	notify_send("READY=1");
	uint64_t wd_ns = notify_watchdog_usec() * 500;
	uint64_t last_pet_ns = 0, silent_said_ns = 0, first_answer_ns = 0, signals_ns = 0;
	struct lockstep ls = { 0 };
	spin_judge_init(&ls.spin, hil.sock ? (uint64_t)lockstep_spin_us * 1000u : 0u);
	int status = 0;
	bool stop = false;
	while (!stop) {
		bool spun;
		int rc = lockstep_receive(&ls, 100, &spun);
		if (rc < 0) {
			if (hil.event == HIL_EVENT_RESTART) {
				log_info("stopping: the simulator started a new flight (exit %d to be "
					 "started again)", EX_TEMPFAIL);
				status = EX_TEMPFAIL;
			} else {
				log_err("HIL link: %s", strerror(-rc));
				status = EX_IOERR;
			}
			break;
		}
		uint64_t now_ns = clock_mono_ns();
		if (rc > 0 || !hil.heard)
			hil_send_outputs(&hil, flight_armed(), flight_servo_params());
		if (rc > 0) {
			/* Timed from the first answer: before it, fulmard waited for the simulator to start. */
			uint64_t sent_ns = clock_mono_ns();
			if (!first_answer_ns) {
				first_answer_ns = sent_ns;
				ls.tasks_ns = 0;
				ls.spin_lost_ns = 0;
			} else {
				ls.frames++;
				ls.spun += spun;
				spin_judge_frame(&ls.spin, spun);
				ls.send_ns += sent_ns - now_ns;
				ls.wall_ns = sent_ns - first_answer_ns;
			}
			now_ns = sent_ns;
		}
		if (hil.heard && rc == 0 && now_ns - hil.heard_ns > 1000000000ull &&
		    now_ns - silent_said_ns > 10000000000ull) {
			log_warn("HIL: simulator silent for %.0f s; time stands still at %.3f s",
				 (double)(now_ns - hil.heard_ns) * 1e-9, (double)sched.vt_us * 1e-6);
			silent_said_ns = now_ns;
		}
		/* The leader is the one doing the flight's work here: alive while it loops. */
		if (wd_ns && now_ns - last_pet_ns >= wd_ns) {
			notify_send("WATCHDOG=1");
			last_pet_ns = now_ns;
		}
		/* Each look is a system call, dear on a virtual machine: once a millisecond is enough. */
		if (rc == 0 || now_ns - signals_ns >= 1000000u) {
			status = take_signal(set, 0, &stop);
			signals_ns = now_ns;
		}
	}
	lockstep_report(&ls);
	return status;
}

/* Real time: the six threads; the leader waits for signals and pets the watchdog. */
static int run_threads(const sigset_t *set)
{
	int rc = sched_start(&sched);
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
	/* Half the watchdog period, and often enough to answer a reboot request. */
	uint64_t tick_ns = wd_usec ? wd_usec * 500 : 200000000ull;
	if (tick_ns > 200000000ull)
		tick_ns = 200000000ull;
	uint64_t last_check_ns = 0;
	uint64_t last[SCHED_THREAD_COUNT] = { 0 };
	int status = 0;
	bool stop = false;
	while (!stop) {
		status = take_signal(set, tick_ns, &stop);
		const char *stalled = NULL;
		uint64_t now_ns = clock_mono_ns();
		/* Liveness over at least half the watchdog period (or a second). */
		uint64_t check_ns = wd_usec ? wd_usec * 500 : 1000000000ull;
		if (!stop && now_ns - last_check_ns >= check_ns - check_ns / 10) {
			last_check_ns = now_ns;
			if (threads_alive(last, &stalled))
				notify_send("WATCHDOG=1");
			else
				log_err("thread %s has stopped looping: not petting the watchdog",
					stalled);
		}
	}
	return status;
}

static int run(const struct board *board)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGHUP);
	/* Blocked before the threads exist, so they inherit it and only the leader takes signals. */
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	int status = setup_tasks(board);
	if (status)
		return status;
	/* In lock-step too: each simulated step is two process wake-ups. */
	int qos_fd = hold_pm_qos(cfg.sched.cpu_dma_latency_us);
	status = lockstep ? run_lockstep(&set) : run_threads(&set);
	pm_qos_release(qos_fd);
	notify_send("STOPPING=1");
	sched_stop(&sched);
	flightlog_close(lockstep ? sched.vt_us : clock_mono_ns() / 1000u);
	report();
	if (histogram_path)
		write_histograms(histogram_path);
	return status;
}

int main(int argc, char **argv)
{
	enum { OPT_BOARD_INFO = 256, OPT_LOAD_PARAMS, OPT_LOAD_MISSION, OPT_SAVE_PARAMS,
	       OPT_SAVE_MISSION, OPT_HIL, OPT_LOCKSTEP, OPT_SPIN_US, OPT_TEST_BURN, OPT_HISTOGRAM };
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "board-info", no_argument, NULL, OPT_BOARD_INFO },
		{ "load-params", required_argument, NULL, OPT_LOAD_PARAMS },
		{ "load-mission", required_argument, NULL, OPT_LOAD_MISSION },
		{ "save-params", required_argument, NULL, OPT_SAVE_PARAMS },
		{ "save-mission", required_argument, NULL, OPT_SAVE_MISSION },
		{ "hil", required_argument, NULL, OPT_HIL },
		{ "lockstep", no_argument, NULL, OPT_LOCKSTEP },
		{ "spin-us", required_argument, NULL, OPT_SPIN_US },
		{ "test-burn", required_argument, NULL, OPT_TEST_BURN },
		{ "timing-histogram", required_argument, NULL, OPT_HISTOGRAM },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *config_path = NULL, *load_mission = NULL;
	const char *load_params[SERVICES_LOAD_PARAMS_MAX];
	int n_load_params = 0;
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
			if (n_load_params == SERVICES_LOAD_PARAMS_MAX) {
				fprintf(stderr, "fulmard: --load-params '%s': up to %d files\n", optarg,
					SERVICES_LOAD_PARAMS_MAX);
				return EX_USAGE;
			}
			load_params[n_load_params++] = optarg;
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
		case OPT_HIL:
			hil_url = optarg;
			break;
		case OPT_LOCKSTEP:
			lockstep = true;
			break;
		case OPT_SPIN_US: {
			char *end;
			errno = 0;
			unsigned long us = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || us > 100000) {
				fprintf(stderr, "fulmard: --spin-us '%s': wanted 0-100000 microseconds\n",
					optarg);
				return EX_USAGE;
			}
			lockstep_spin_us = (unsigned int)us;
			break;
		}
		case OPT_HISTOGRAM:
			histogram_path = optarg;
			break;
		case OPT_TEST_BURN: {
			double from_s, to_s;
			unsigned int us;
			char end;
			if (sscanf(optarg, "%u,%lf,%lf%c", &us, &from_s, &to_s, &end) != 3 ||
			    us == 0 || us > 100000 || !(from_s >= 0.0) || !(to_s > from_s) ||
			    to_s > 1e6 || n_test_burn == FLIGHT_TEST_BURNS) {
				fprintf(stderr, "fulmard: --test-burn '%s': wanted US,FROM,TO (1-100000 "
					"us, 0 <= FROM < TO seconds), up to %d times\n", optarg,
					FLIGHT_TEST_BURNS);
				return EX_USAGE;
			}
			test_burn[n_test_burn].us = us;
			test_burn[n_test_burn].from_us = (uint64_t)(from_s * 1e6);
			test_burn[n_test_burn].to_us = (uint64_t)(to_s * 1e6);
			n_test_burn++;
			break;
		}
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
	bool hil_from_board = !hil_url && board->hil_default;
	if (!hil_url)
		hil_url = board->hil_default;
	struct link_spec hil_spec;
	if (hil_url && hil_spec_parse(hil_url, &hil_spec)) {
		fprintf(stderr, "fulmard: --hil %s: not udp:HOST:PORT or serial:DEVICE:BAUD\n",
			hil_url);
		return EX_USAGE;
	}
	if (lockstep && !hil_url) {
		fprintf(stderr, "fulmard: --lockstep needs a simulator (--hil)\n");
		return EX_USAGE;
	}
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
	if (hil_from_board)
		log_info("HIL: no --hil given: the %s board's simulator link, %s", board->name, hil_url);

	static char missing[4096];
	if (hil_url) {
		/* the simulator stands in for every sensor and output (devices_open) */
		if (board->n_devs)
			log_info("HIL: the %s board's devices stay closed unless [devices] names them",
				 board->name);
	} else if (devices_missing(board, missing, sizeof(missing))) {
		log_err("board %s cannot fly: fulmar has no driver yet for %s", board->name, missing);
		return EX_UNAVAILABLE;
	} else if (board->notice) {
		log_warn("%s", board->notice);
	}
	int rc = devices_open(&devs, board, &cfg, hil_url != NULL, err, sizeof(err));
	if (rc) {
		log_err("%s", err);
		return rc == -EINVAL ? EX_CONFIG : EX_IOERR;
	}
	rc = services_params(&cfg, load_params, n_load_params, err, sizeof(err));
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
	if (!hil_url) {
		/* The rangefinder RNGFND1_TYPE names, now that the parameters are in (docs/boards.md) */
		int rng_type = (int)param_get_by_name("RNGFND1_TYPE");
		const char *rng_name = NULL;
		rc = devices_open_rangefinder(&devs, rng_type, (int)param_get_by_name("RNGFND1_ADDR"),
					      &rng_name, err, sizeof(err));
		if (rc < 0) {
			log_err("%s", err);
			devices_close(&devs);
			return EX_IOERR;
		}
		if (rc > 0)
			log_info("rangefinder: RNGFND1_TYPE %d, the board's '%s'", rng_type, rng_name);
		else if (rng_type == 10)
			log_warn("RNGFND1_TYPE 10 (MAVLink): only a HIL simulator's DISTANCE_SENSOR is "
				 "read; flying without a rangefinder");
		else if (rng_type != 0)
			log_warn("RNGFND1_TYPE %d: board %s places no such rangefinder (fulmard "
				 "--board-info lists them); flying without", rng_type, board->name);
	}
	rc = services_links(&cfg, err, sizeof(err));
	if (rc) {
		log_err("%s", err);
		devices_close(&devs);
		return rc == -EINVAL ? EX_CONFIG : EX_IOERR;
	}
	if (!hil_url) {
		rc = board_io_open(&bio, &devs, &hub, NULL, err, sizeof(err));
		if (rc) {
			log_err("%s", err);
			services_close();
			devices_close(&devs);
			return EX_IOERR;
		}
	}
	if (hil_url) {
		rc = hil_open(&hil, &hil_spec, &hub, lockstep, err, sizeof(err));
		if (rc) {
			log_err("%s", err);
			services_close();
			devices_close(&devs);
			return EX_IOERR;
		}
		/* RNGFND1_TYPE 10: the simulator's DISTANCE_SENSOR is the rangefinder (docs/hil.md) */
		int rng_type = (int)param_get_by_name("RNGFND1_TYPE");
		hil.rangefinder = rng_type == 10;
		if (hil.rangefinder)
			log_info("HIL: the simulator's DISTANCE_SENSOR is the rangefinder (RNGFND1_TYPE 10)");
		else if (rng_type != 0)
			log_warn("RNGFND1_TYPE %d: in HIL the rangefinder is the simulator's "
				 "DISTANCE_SENSOR, RNGFND1_TYPE 10; flying without", rng_type);
		/* the simulator hears what flies (docs/hil.md) */
		hil.mav_type = vehicle_mav_type(cfg.vehicle, cfg.vehicle == VEHICLE_COPTER ?
						(int)param_get_by_name("FRAME_CLASS") : 0);
	}
	char version[96];
	snprintf(version, sizeof(version), "fulmar %s board %s%s", FULMAR_VERSION, board->name,
		 hil_url ? " HIL" : "");
	flightlog_open(cfg.log_dir, version);
	int status = run(board);
	board_io_close(&bio);
	hil_close(&hil);
	services_close();
	devices_close(&devs);
	if (status == 0)
		log_info("stopped cleanly");
	return status;
}
