// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop report FILE: an offline summary of a recording or a capture, for
 * tuning runs and post-mortems. The command line; the file runs through the
 * one loop (user/core/loop.c) into the report's sink (user/sinks/report_agg.c)
 * and is printed as text or --json by one printer (user/sinks/report_print.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "log.h"
#include "num.h"
#include "opts.h"
#include "print.h"
#include "report.h"
#include "source.h"

enum { R_JSON = 256, R_TOP, R_LINK_SPEED, R_MAX_FLOWS };

static const struct rt_opt report_opts[] = {
	{ R_JSON, "json", NULL, "machine-readable output" },
	{ 'd', "interval", "S", "captures: length of the intervals in seconds (default 1)" },
	{ R_TOP, "top", "N", "rows per table (default 10, 0: all)" },
	{ R_LINK_SPEED, "link-speed", "S", "link speed for paused time, e.g. 25G, 100G, 400G, 40000M\n"
					  "(default: the interface's speed in sysfs, else 100G)" },
	{ R_MAX_FLOWS, "max-flows", "N", "flow table size for captures (default 16384)" },
	{ 'h', "help", NULL, "this text" },
	RT_OPT_END,
};

static const struct rt_cli report_cli = {
	.prog = "rocetop report",
	.usage =
"Usage: rocetop report FILE [--json] [--interval S] [--top N] [--link-speed SPEED]\n"
"Summarise a rocetop recording or a pcap/pcapng capture: duration and totals,\n"
"the top flows by CE, CNP and NAK, the moments of peak CE rate and PFC pauses,\n"
"paused time per priority, host pairs ranked, and the data flows CNPs throttled.\n",
	.opts = report_opts,
	.width = 20,
	.long_indent = 2,
};

struct report_args {
	struct rt_opts *o;
	int json, top;
	__u64 speed_mbps;
};

static int report_opt(void *ctx, int id, const char *arg)
{
	struct report_args *a = ctx;
	double v;

	switch (id) {
	case R_JSON:
		a->json = 1;
		return 0;
	case 'd':
		if (rt_parse_num(arg, RT_NUM_SECONDS, 0.001, 86400, &a->o->interval)) {
			pr_warn("--interval '%s' is not valid: give seconds between 0.001 and 86400.\n", arg);
			return -EINVAL;
		}
		return 0;
	case R_TOP:
		if (rt_parse_num(arg, RT_NUM_INT, 0, INT_MAX, &v)) {
			pr_warn("--top '%s' is not valid: give a number of rows, 0 for all.\n", arg);
			return -EINVAL;
		}
		a->top = (int)v;
		return 0;
	case R_LINK_SPEED:
		if (rt_parse_num(arg, RT_NUM_SPEED, 1, 1e7, &v)) {
			pr_warn("--link-speed '%s' is not valid: give a speed such as 25G, 100G or 40000M.\n", arg);
			return -EINVAL;
		}
		a->speed_mbps = (__u64)v;
		return 0;
	case R_MAX_FLOWS:
		if (rt_parse_num(arg, RT_NUM_INT, 16, 1 << 24, &v)) {
			pr_warn("--max-flows '%s' is not valid: give a number between 16 and 16777216.\n", arg);
			return -EINVAL;
		}
		a->o->max_flows = (__u32)v;
		return 0;
	case 'h':
		rt_cli_help(&report_cli, stdout);
		return 1;
	}
	return -EINVAL;
}

int rt_report_main(int argc, char **argv)
{
	struct rt_opts o;
	struct report_args a = { .o = &o, .top = 10 };
	struct rt_printer pr;
	struct report *r;
	const char *path;
	int first, err, rc = 1;

	rt_opts_defaults(&o);
	o.daemon = 1;	/* no view: keeps the capture reader's progress meter honest */
	err = rt_cli_parse(&report_cli, argc, argv, report_opt, &a, &first);
	if (err)
		return err > 0 ? 0 : 2;
	if (first != argc - 1) {
		pr_warn("report takes one file: rocetop report FILE [--json].\n");
		return 2;
	}
	o.read_file = path = argv[first];
	r = rt_report_new(path, a.top, a.speed_mbps);
	if (!r) {
		pr_warn("out of memory.\n");
		return 1;
	}
	o.sink = rt_report_sink(r);
	err = rt_run(&o);
	if (err < 0) {
		/* The source said why when it could not open the file. */
		if (rt_report_intervals(r))
			pr_warn("cannot finish the report of %s: %s.\n", path, strerror(-err));
		goto out;
	}
	if (!rt_report_intervals(r)) {
		pr_warn("%s holds no interval to report on.\n", path);
		goto out;
	}
	if (rt_report_finish(r, o.interval)) {
		pr_warn("out of memory.\n");
		goto out;
	}
	rt_pr_init(&pr, stdout, a.json);
	rt_report_print(r, &pr);
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		pr_warn("writing the report to standard output failed: %s.\n", strerror(errno ? errno : EIO));
		rc = 1;
	} else {
		rc = 0;
	}
out:
	rt_report_free(r);
	return rc;
}
