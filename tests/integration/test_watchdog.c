// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The watchdog's negative case, with the test playing systemd: fulmard runs
 * with a notify socket and WATCHDOG_USEC/WATCHDOG_PID as a Type=notify
 * service with WatchdogSec= gets them. Once it pets regularly, the test stops
 * exactly one of its threads ("main", the flight loop) from outside by
 * ptrace-attaching to that thread alone (PTRACE_SEIZE + PTRACE_INTERRUPT:
 * the other threads and the leader keep running; SIGSTOP would stop the whole
 * process). The leader must notice, say which thread stopped, and stop
 * petting, so that the watchdog fires one period after the last pet; then
 * the test sends SIGABRT, as systemd does, and the daemon must die of it.
 *   test_watchdog FULMARD LOCK_MEMORY(true|false)
 * Exit status 0 passed, 1 failed, 2 could not run, 77 skipped (no ptrace).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "notify_peer.h"

/*
 * systemd's WatchdogSec=2: fulmard pets every half period (about 1 s). Every
 * wait below is several periods long, so a loaded machine slows the test
 * without changing its verdict.
 */
#define WATCHDOG_USEC 2000000LL
#define WD_MS (WATCHDOG_USEC / 1000)
#define STALLED_THREAD "main"

static const char *const thread_names[] = { "timer", "main", "rcin", "uart", "tone", "io" };
#define THREAD_COUNT ((int)(sizeof(thread_names) / sizeof(thread_names[0])))

static int failures, passes;

static void check(bool ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "FAIL", what);
	fflush(stdout);
	if (ok)
		passes++;
	else
		failures++;
}


static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}


/* The whole of a small file, NUL-terminated, in a static buffer ("" if unreadable). */
static const char *slurp(const char *path)
{
	static char buf[1 << 20];
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t r;
		while (n < sizeof(buf) - 1 && (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
			n += (size_t)r;
		close(fd);
	}
	buf[n] = '\0';
	return buf;
}

/* The scheduler state letter of one thread from /proc ('?' if unreadable). */
static char task_state(pid_t pid, pid_t tid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	const char *s = strrchr(slurp(path), ')');
	return s && s[1] == ' ' && s[2] ? s[2] : '?';
}

/* The tids of the process's threads with their names; returns how many. */
static int list_threads(pid_t pid, pid_t *tids, char (*names)[16], int max)
{
	char dir[64];
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	struct dirent *de;
	while (n < max && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		char path[384];
		snprintf(path, sizeof(path), "%s/%s/comm", dir, de->d_name);
		const char *comm = slurp(path);
		tids[n] = (pid_t)atoi(de->d_name);
		snprintf(names[n], 16, "%.*s", (int)strcspn(comm, "\n"), comm);
		n++;
	}
	closedir(d);
	return n;
}

/*
 * The loop counts of the nth timing report (1-based) in the daemon's log:
 * 0 when all six thread lines are there, -1 if not (yet).
 */
static int report_loops(const char *log, int nth, unsigned long long loops[THREAD_COUNT])
{
	const char *p = log;
	for (int i = 0; i < nth; i++) {
		p = strstr(p, "timing report (");
		if (!p)
			return -1;
		p++;
	}
	int found = 0;
	/* Its lines follow the header; another thread's line may come between them. */
	for (int line = 0; line < 16 && found != (1 << THREAD_COUNT) - 1 && (p = strchr(p, '\n')); line++) {
		p++;
		const char *body = strstr(p, "fulmard: ");
		const char *eol = strchr(p, '\n');
		if (!eol)
			return -1;
		if (!body || body > eol)
			continue;
		char name[16];
		unsigned int hz;
		int prio;
		unsigned long long n;
		if (sscanf(body + 9, "%15s %u %d %llu |", name, &hz, &prio, &n) != 4)
			continue;
		for (int t = 0; t < THREAD_COUNT; t++)
			if (strcmp(name, thread_names[t]) == 0) {
				loops[t] = n;
				found |= 1 << t;
			}
	}
	return found == (1 << THREAD_COUNT) - 1 ? 0 : -1;
}

/* Asks for a timing report (SIGUSR1) and reads it: 0, or -1 if none came. */
static int take_report(pid_t pid, const char *log_path, int nth, unsigned long long loops[THREAD_COUNT])
{
	if (kill(pid, SIGUSR1) < 0)
		return -1;
	for (long long end = now_ms() + 5 * WD_MS; now_ms() < end; sleep_ms(20))
		if (report_loops(slurp(log_path), nth, loops) == 0)
			return 0;
	return -1;
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

/*
 * Reaps the daemon: the traced thread (ours to reap as its tracer) and the
 * process. Kills it first when kill_first. Returns the process's wait status,
 * or -1 if it had not died after timeout_ms (it is then killed and reaped).
 */
static int reap(pid_t pid, bool kill_first, long long timeout_ms)
{
	if (kill_first)
		kill(pid, SIGKILL);
	long long end = now_ms() + timeout_ms;
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, WNOHANG | __WALL);
		if (w == pid)
			return st;
		if (w < 0 && errno == ECHILD)
			return -1;
		if (w > 0)
			continue;
		if (now_ms() >= end) {
			kill(pid, SIGKILL);
			while ((w = waitpid(-1, &st, __WALL)) > 0 && w != pid)
				;
			return -1;
		}
		sleep_ms(10);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_watchdog FULMARD LOCK_MEMORY\n");
		return 2;
	}
	int status = 2;
	char dir[] = "/tmp/fulmar-watchdog-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	char conf[96], log_path[96], hil[64];
	snprintf(conf, sizeof(conf), "%s/fulmard.conf", dir);
	snprintf(log_path, sizeof(log_path), "%s/fulmard.log", dir);

	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", dir);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("notify socket");
		goto out_dir;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("notify socket");
		goto out_fd;
	}
	/*
	 * The sim board's HIL link goes to a port this test holds and never
	 * answers, not to 14560 where someone's simulator may be listening:
	 * without a simulator the flight thread runs on its pace time-out.
	 */
	int hil_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (hil_fd < 0) {
		perror("HIL socket");
		goto out_fd;
	}
	struct sockaddr_in hs = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t hl = sizeof(hs);
	if (bind(hil_fd, (struct sockaddr *)&hs, sizeof(hs)) < 0 || getsockname(hil_fd, (struct sockaddr *)&hs, &hl) < 0) {
		perror("HIL socket");
		goto out_hil;
	}
	snprintf(hil, sizeof(hil), "udp:127.0.0.1:%u", (unsigned int)ntohs(hs.sin_port));
	FILE *cf = fopen(conf, "w");
	if (!cf) {
		perror(conf);
		goto out_hil;
	}
	/* Its own state directory and port: nothing of the machine's is touched. */
	fprintf(cf, "[daemon]\nstate_dir = %s/state\nlog_dir = %s/logs\n[sched]\nlock_memory = %s\n"
		"[mavlink]\nlink0 = udp-server:127.0.0.1:0\n", dir, dir, argv[2]);
	if (fclose(cf) != 0) {
		perror(conf);
		goto out_hil;
	}
	int log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log_fd < 0) {
		perror(log_path);
		goto out_hil;
	}

	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		close(log_fd);
		goto out_hil;
	}
	if (pid == 0) {
		/* Dies with the test, even if the test is killed; no core file of it here. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		dup2(log_fd, STDOUT_FILENO);
		dup2(log_fd, STDERR_FILENO);
		char pidbuf[32], usec[32];
		snprintf(pidbuf, sizeof(pidbuf), "%d", (int)getpid());
		snprintf(usec, sizeof(usec), "%lld", WATCHDOG_USEC);
		setenv("NOTIFY_SOCKET", sa.sun_path, 1);
		setenv("WATCHDOG_PID", pidbuf, 1);
		setenv("WATCHDOG_USEC", usec, 1);
		execl(argv[1], argv[1], "--config", conf, "--hil", hil, (char *)NULL);
		_exit(127);
	}
	close(log_fd);
	status = 1;

	char msg[512];
	bool ready = false;
	long long t0 = now_ms();
	for (long long end = t0 + 10 * WD_MS; !ready && now_ms() < end;)
		if (next_msg(fd, msg, sizeof(msg), end - now_ms()) && strstr(msg, "READY=1"))
			ready = true;
	printf("# READY=1 after %lld ms\n", now_ms() - t0);
	check(ready, "READY=1 once the threads run");
	if (!ready)
		goto out_kill;

	/* Regular pets first: three, none a whole period after the one before. */
	int pets = 0;
	long long last_pet = now_ms(), worst = 0;
	for (long long end = now_ms() + 5 * WD_MS; pets < 3 && now_ms() < end;) {
		if (!next_msg(fd, msg, sizeof(msg), end - now_ms()) || !strstr(msg, "WATCHDOG=1"))
			continue;
		long long t = now_ms();
		if (t - last_pet > worst)
			worst = t - last_pet;
		last_pet = t;
		pets++;
	}
	printf("# %d pets, longest gap %lld ms (the watchdog period is %lld ms)\n", pets, worst, WD_MS);
	check(pets == 3 && worst < WD_MS, "WATCHDOG=1 regularly while every thread loops");
	if (pets < 3)
		goto out_kill;

	pid_t tids[64];
	char names[64][16];
	int nt = list_threads(pid, tids, names, 64);
	pid_t tid = 0;
	int named = 0;
	for (int i = 0; i < nt; i++)
		if (strcmp(names[i], STALLED_THREAD) == 0) {
			tid = tids[i];
			named++;
		}
	check(named == 1 && tid != pid, "one thread named " STALLED_THREAD ", not the leader");
	if (named != 1 || tid == pid)
		goto out_kill;

	/* Stall it: the tracer's stop holds that one thread, whatever it was doing. */
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0) {
		if (errno == EPERM) {
			printf("# SKIP: ptrace is not permitted here (kernel.yama.ptrace_scope or a "
			       "seccomp filter): %s\n", strerror(errno));
			status = 77;
		} else {
			check(false, "PTRACE_SEIZE of the thread");
		}
		goto out_kill;
	}
	int wst = 0;
	bool stopped = ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) == 0 && waitpid(tid, &wst, __WALL) == tid &&
		       WIFSTOPPED(wst) && (wst >> 16) == PTRACE_EVENT_STOP;
	long long t_stall = now_ms();
	check(stopped, "thread " STALLED_THREAD " stopped by PTRACE_INTERRUPT");
	if (!stopped)
		goto out_kill;
	bool others_run = task_state(pid, tid) == 't';
	for (int i = 0; i < nt; i++)
		if (tids[i] != tid && strchr("tTZX?", task_state(pid, tids[i])))
			others_run = false;
	check(others_run, "only that thread is stopped, the leader and the other threads are not");

	/*
	 * Systemd's part: the watchdog fires WATCHDOG_USEC after the last pet.
	 * At most two pets may still come: one sent before the stall and read
	 * after it, and one from the leader's first check after it, which
	 * rightly counts the loops made before it.
	 */
	int late = 0;
	long long last_late = 0;
	bool fired = false;
	for (long long end = t_stall + 6 * WD_MS; !fired && now_ms() < end;) {
		long long wait = last_pet + WD_MS - now_ms();
		if (wait <= 0) {
			fired = true;
		} else if (next_msg(fd, msg, sizeof(msg), wait) && strstr(msg, "WATCHDOG=1")) {
			last_pet = last_late = now_ms();
			late++;
		}
	}
	printf("# %d pets after the stall", late);
	if (late)
		printf(", the last %lld ms after it", last_late - t_stall);
	printf("; the watchdog %s %lld ms after the stall\n", fired ? "fired" : "had not fired", now_ms() - t_stall);
	check(fired, "the pets stop: a whole watchdog period without WATCHDOG=1 (the watchdog fires)");
	check(late <= 2 && (!late || last_late - t_stall < WD_MS), "no pet a watchdog period after the stall");
	check(strstr(slurp(log_path), "thread " STALLED_THREAD " has stopped looping: not petting the watchdog"),
	      "the leader says which thread stopped looping");

	/* The leader still answers, and every thread but the stalled one still loops. */
	unsigned long long a[THREAD_COUNT], b[THREAD_COUNT];
	bool reports = take_report(pid, log_path, 1, a) == 0;
	sleep_ms(WD_MS / 4);
	reports = reports && take_report(pid, log_path, 2, b) == 0;
	check(reports, "the leader answers SIGUSR1 with the timing report");
	if (reports) {
		bool only = true;
		for (int t = 0; t < THREAD_COUNT; t++) {
			bool is_stalled = strcmp(thread_names[t], STALLED_THREAD) == 0;
			printf("# %-5s loops %llu -> %llu\n", thread_names[t], a[t], b[t]);
			if (is_stalled ? b[t] != a[t] : b[t] <= a[t])
				only = false;
		}
		check(only, "the stalled thread made no loop, every other thread did");
	}

	/* Systemd's WatchdogSignal: SIGABRT, the stalled thread still held. */
	if (kill(pid, SIGABRT) < 0) {
		check(false, "SIGABRT sent");
		goto out_kill;
	}
	long long t_abrt = now_ms();
	int st = reap(pid, false, 5 * WD_MS);
	pid = 0;
	printf("# died %lld ms after SIGABRT\n", now_ms() - t_abrt);
	check(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "the daemon dies of SIGABRT");
	status = failures ? 1 : 0;

out_kill:
	if (pid > 0) {
		/* Killing the process frees the traced thread too; reap both. */
		reap(pid, true, 5 * WD_MS);
	}
	if (status == 1 || getenv("WATCHDOG_TEST_VERBOSE")) {
		printf("# fulmard's output:\n");
		const char *s = slurp(log_path);
		while (*s) {
			int n = (int)strcspn(s, "\n");
			printf("#   %.*s\n", n, s);
			s += n + (s[n] == '\n');
		}
	}
	if (status != 77)
		printf("%d passed, %d failed\n", passes, failures);
out_hil:
	close(hil_fd);
out_fd:
	close(fd);
out_dir:
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return status;
}
