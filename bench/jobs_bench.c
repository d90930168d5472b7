// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench/jobs_bench: the jobs' cache (user/nic/jobs.h) under process churn.
 * 10,000 short-lived processes, 500 an interval for 20 intervals, each
 * asked for once (its job read from /proc: cgroup, environ, stat) and gone
 * before the next interval; then 4,200 processes alive at once, past the
 * cache's bound of RT_JOBS_MAX pids. Prints the time per pid read, the pids
 * cached and the cache's bytes after each stage, and this process's peak
 * RSS: the memory stays bounded by RT_JOBS_MAX whatever the churn.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "cpu.h"
#include "jobs.h"

#define CHURN		10000
#define PER_INTERVAL	500
#define ALIVE		4200

/* n children that wait for their pipe to close, then exit. */
static int spawn(pid_t *pids, int n, int *wfd)
{
	int p[2];

	if (pipe(p))
		return -1;
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return -1;
		if (!pids[i]) {
			char c;

			close(p[1]);
			(void)!read(p[0], &c, 1);
			_exit(0);
		}
	}
	close(p[0]);
	*wfd = p[1];
	return 0;
}

static void reap(pid_t *pids, int n, int wfd)
{
	close(wfd);
	for (int i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
}

static long peak_rss_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = atol(line + 6);
	if (f)
		fclose(f);
	return kb;
}

/* One interval: each pid's row asked for; the CPU ms it took. */
static double interval(struct rt_jobs *J, struct rt_snapshot *s, const pid_t *pids, int n)
{
	double t0 = cpu_ms();

	rt_jobs_interval(J);
	rt_snapshot_clear(s);
	for (int i = 0; i < n; i++)
		rt_jobs_row(J, (__u32)pids[i], s);
	return cpu_ms() - t0;
}

int main(void)
{
	static pid_t pids[ALIVE];
	struct rt_jobs *J = rt_jobs_new(NULL, NULL);
	struct rt_snapshot s;
	size_t bytes, n;
	double ms = 0;
	int wfd, i;

	if (!J)
		return 1;
	rt_snapshot_init(&s);
	for (i = 0; i < CHURN / PER_INTERVAL; i++) {
		if (spawn(pids, PER_INTERVAL, &wfd)) {
			perror("fork");
			return 1;
		}
		ms += interval(J, &s, pids, PER_INTERVAL);
		reap(pids, PER_INTERVAL, wfd);
	}
	/* the last interval's pids stay one more; then none is asked for: all forgotten */
	interval(J, &s, pids, 0);
	interval(J, &s, pids, 0);
	n = rt_jobs_cached(J, &bytes);
	printf("churn: %d short-lived processes, %d an interval: %.1f us CPU a pid read; after them %zu pids "
	       "cached, the cache %zu KiB\n", CHURN, PER_INTERVAL, ms * 1e3 / CHURN, n, bytes / 1024);
	if (spawn(pids, ALIVE, &wfd)) {
		perror("fork");
		return 1;
	}
	ms = interval(J, &s, pids, ALIVE);
	n = rt_jobs_cached(J, &bytes);
	printf("alive: %d processes at once: %.1f us CPU a pid; %zu pids cached (bound %d), the cache %zu KiB, "
	       "%zu job rows\n", ALIVE, ms * 1e3 / ALIVE, n, RT_JOBS_MAX, bytes / 1024, s.njobs);
	ms = interval(J, &s, pids, ALIVE);
	printf("alive, again: %.1f us CPU a pid (cached ones only checked against their start time)\n",
	       ms * 1e3 / ALIVE);
	reap(pids, ALIVE, wfd);
	printf("peak RSS of this process: %ld KiB\n", peak_rss_kb());
	rt_jobs_free(J);
	rt_snapshot_free(&s);
	return 0;
}
