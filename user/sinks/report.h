/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * rocetop report's engine: a sink of the one loop that aggregates every
 * interval of a file (user/sinks/report_agg.c), then one printer for text
 * and JSON (user/sinks/report_print.c). The command line is user/cmd/report.c.
 */
#ifndef RT_REPORT_H
#define RT_REPORT_H

#include "print.h"
#include "sink.h"

struct report;

/* path: the file (for the header); top: rows per table (0: all);
 * speed_mbps: link speed for paused time, 0 to look it up (sysfs, else
 * 100 Gb/s). NULL without memory. */
struct report *rt_report_new(const char *path, int top, __u64 speed_mbps);
/* The sink that feeds it; owned by the report (its close does nothing). */
struct rt_sink *rt_report_sink(struct report *r);
/* Intervals taken so far. */
size_t rt_report_intervals(const struct report *r);
/* After the last interval: rankings, host pairs, the link speed. capture_interval:
 * a capture's interval length (its one-interval files have no step). 0 or -ENOMEM. */
int rt_report_finish(struct report *r, double capture_interval);
void rt_report_print(struct report *r, struct rt_printer *p);
void rt_report_free(struct report *r);

#endif
