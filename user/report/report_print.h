// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop report's printing (report_print.c): what the command
 * (user/cmd/report.c) hands it, one struct rt_rep_file per host read
 * through the one loop, and the calls that put several hosts on one clock
 * and print them, text or JSON.
 */
#ifndef RT_REPORT_PRINT_H
#define RT_REPORT_PRINT_H

#include <stdio.h>
#include "filter.h"
#include "report_agg.h"

/* One host's report: its files, how to print it, and what reading them made. */
struct rt_rep_file {
	const char *path;	/* what the report names: the file, or a rotated set's files */
	const char **files;	/* what is read, in time order */
	int nfiles;
	char host0[64];		/* the host its header names ("" for captures): CNP matches skip it */
	int top;
	int episodes;		/* --episodes: shown of a file's, 0 all */
	__u64 speed_mbps;
	const char *speed_from;
	int multi;		/* one of several files: name hosts */
	int tune;		/* --tune: the tuning section */
	const struct rt_filter *filter;	/* --filter, or NULL */
	struct rt_rep_run run;	/* the aggregation, the findings, host and kind */
	struct rt_rep *a;	/* &run.agg */
	struct rt_rep_clock clock;	/* against the first host (several files) */
};

/* Several hosts on the first one's clock: estimated, then every time of
 * each run moved. 0 or -ENOMEM. */
int rt_rep_clocks_apply(struct rt_rep_file *rs, int n);

/* How far host i's clock can be off the reference's (0: one host's files). */
__u64 rt_rep_clock_margin(const struct rt_rep_file *rs, int n, int i);

/* Why a host's clock was not estimated, in a few words. */
const char *rt_rep_clock_why(const struct rt_rep_clock *c);

/* The report of rs (nrep hosts: merged when more than one) on f, text or
 * JSON, each file's flows and findings at most top; 0 or -ENOMEM. */
int rt_rep_print_all(FILE *f, struct rt_rep_file *rs, int nrep, int json, int top);

#endif
