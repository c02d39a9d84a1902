// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * fulmard under a stand-in for systemd: a notify socket and a watchdog
 * period in its environment, as systemd gives a Type=notify service. It must
 * say READY=1 once its threads run, WATCHDOG=1 at least every half period
 * while they loop, and STOPPING=1 on SIGTERM, then exit 0.
 *   test_notify FULMARD LOCK_MEMORY(true|false)
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "notify_peer.h"

/* systemd's WatchdogSec=2: fulmard pets every half period, about 1 s; the checks
 * below have whole periods of slack, so a busy host does not decide them. */
#define WATCHDOG_USEC 2000000

static int failures;

static void check(int ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		failures++;
}



int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_notify FULMARD LOCK_MEMORY\n");
		return 2;
	}
	char dir[] = "/tmp/fulmar-notify-XXXXXX";
	if (!mkdtemp(dir))
		return 2;
	char conf[64];
	snprintf(conf, sizeof(conf), "%s/fulmard.conf", dir);
	FILE *cf = fopen(conf, "w");
	if (!cf)
		return 2;
	/* Its own state directory and port: nothing of the machine's is touched. */
	fprintf(cf, "[daemon]\nstate_dir = %s/state\nlog_dir = %s/logs\n[sched]\nlock_memory = %s\n"
		"[mavlink]\nlink0 = udp-server:127.0.0.1:0\n", dir, dir, argv[2]);
	fclose(cf);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", dir);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("notify socket");
		return 2;
	}

	pid_t pid = fork();
	if (pid == 0) {
		char pidbuf[32], usec[32];
		snprintf(pidbuf, sizeof(pidbuf), "%d", (int)getpid());
		snprintf(usec, sizeof(usec), "%d", WATCHDOG_USEC);
		setenv("NOTIFY_SOCKET", sa.sun_path, 1);
		setenv("WATCHDOG_PID", pidbuf, 1);
		setenv("WATCHDOG_USEC", usec, 1);
		execl(argv[1], argv[1], "--config", conf, (char *)NULL);
		_exit(127);
	}

	char msg[512];
	int ready = 0;
	long long deadline = now_ms() + 60000;   /* hang checks: generous for a busy host */
	while (!ready && now_ms() < deadline)
		if (next_msg(fd, msg, sizeof(msg), 1000) && strstr(msg, "READY=1"))
			ready = 1;
	check(ready, "READY=1 once the threads run");

	/* Over 3.5 s: at least three pets, none further apart than the period. */
	int pets = 0;
	long long last = now_ms(), worst = 0, end = now_ms() + 3500;
	while (now_ms() < end) {
		if (!next_msg(fd, msg, sizeof(msg), 50))
			continue;
		if (strstr(msg, "WATCHDOG=1")) {
			long long t = now_ms();
			if (t - last > worst)
				worst = t - last;
			last = t;
			pets++;
		}
	}
	printf("# %d pets in 3.5 s, longest gap %lld ms\n", pets, worst);
	check(pets >= 3, "WATCHDOG=1 about every half period");
	check(worst < WATCHDOG_USEC / 1000, "no gap as long as the watchdog period");

	kill(pid, SIGTERM);
	int stopping = 0;
	deadline = now_ms() + 30000;
	while (!stopping && now_ms() < deadline)
		if (next_msg(fd, msg, sizeof(msg), 1000) && strstr(msg, "STOPPING=1"))
			stopping = 1;
	check(stopping, "STOPPING=1 on SIGTERM");
	int status = 0;
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status 0");

	unlink(sa.sun_path);
	unlink(conf);
	/* fulmard made state/ and state/ftp (the FTP root); log_dir stays unmade
	 * while nothing is logged. Anything else left behind says so. */
	static const char *const made[] = { "state/ftp", "state", "" };
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		char path[96];
		snprintf(path, sizeof(path), "%s/%s", dir, made[i]);
		if (rmdir(path) != 0 && errno != ENOENT)
			fprintf(stderr, "left behind: %s: %s\n", path, strerror(errno));
	}
	printf("%d passed, %d failed\n", 5 - failures, failures);
	return failures ? 1 : 0;
}
