/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the user-space CPU benches (bench/collect_cpu.c, bench/table_bench.c)
 * share: the process's CPU time in ms (user + system), the load average, the
 * median of a set of figures, and the removal of the CSV sink's temporary
 * directory. One
 * copy, so both benches measure, summarise and clean up alike.
 */
#ifndef ROCETOP_BENCH_CPU_H
#define ROCETOP_BENCH_CPU_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "median.h"

static inline double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The 1-minute load average, printed beside the figures (-1: unknown). */
static inline double load_avg(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double la = -1;

	if (f) {
		if (fscanf(f, "%lf", &la) != 1)
			la = -1;
		fclose(f);
	}
	return la;
}

/* median(v, n) of doubles; sorts v. */
BENCH_MEDIAN(double)

/* Remove the files a bench's CSV sink wrote into dir (mkdtemp's), then dir. */
static inline void rm_csv(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

#endif
