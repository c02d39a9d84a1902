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

#define WATCHDOG_USEC 200000

static int failures;

static void check(int ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		failures++;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The next notify message within timeout_ms into buf, or 0 on timeout. */
static int next_msg(int fd, char *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, timeout_ms) <= 0)
		return 0;
	ssize_t n = recv(fd, buf, len - 1, 0);
	if (n < 0)
		return 0;
	buf[n] = '\0';
	return 1;
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
	long long deadline = now_ms() + 10000;
	while (!ready && now_ms() < deadline)
		if (next_msg(fd, msg, sizeof(msg), 1000) && strstr(msg, "READY=1"))
			ready = 1;
	check(ready, "READY=1 once the threads run");

	/* Over one second: at least four pets, none further apart than the period. */
	int pets = 0;
	long long last = now_ms(), worst = 0, end = now_ms() + 1000;
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
	printf("# %d pets in 1 s, longest gap %lld ms\n", pets, worst);
	check(pets >= 4, "WATCHDOG=1 at least every half period");
	check(worst < WATCHDOG_USEC / 1000, "no gap as long as the watchdog period");

	kill(pid, SIGTERM);
	int stopping = 0;
	deadline = now_ms() + 5000;
	while (!stopping && now_ms() < deadline)
		if (next_msg(fd, msg, sizeof(msg), 1000) && strstr(msg, "STOPPING=1"))
			stopping = 1;
	check(stopping, "STOPPING=1 on SIGTERM");
	int status = 0;
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status 0");

	unlink(sa.sun_path);
	unlink(conf);
	char state[64];
	snprintf(state, sizeof(state), "%s/state", dir);
	rmdir(state);
	rmdir(dir);
	printf("%d passed, %d failed\n", 5 - failures, failures);
	return failures ? 1 : 0;
}
