// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop report FILE: an offline summary of a recording or a capture, for
 * tuning runs and post-mortems. Text for people, --json for machines: one
 * printer (user/core/print.h) writes both from the same calls.
 *
 * Each file runs through the one loop (rt_run: user/cmd/run.c) with the
 * report's sink (user/report/report_sink.c), which adds every interval to the
 * aggregation (user/report/report_agg.c) and runs the findings' rules. This
 * file holds the command line, the plan (which files are one host, read in
 * which order) and the run; user/report/report_print.c prints.
 *
 * Several files: a file given twice (the same device and inode)
 * is read once; recordings of one host with one recording id (a -w FILE and
 * the files rotated from it, record.h) are one host, read in the order they
 * were created through one aggregation, and a copy of one of them (same
 * creation time) is read once; CNPs are matched only to data flows of
 * another host; every host's label is distinct.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "cmd.h"
#include "filter.h"
#include "findings.h"
#include "fmt.h"
#include "outfile.h"
#include "log.h"
#include "num.h"
#include "main_opts.h"
#include "record.h"
#include "report_agg.h"
#include "report_print.h"
#include "report_viz.h"
#include "sink.h"
#include "source.h"
#include "sources.h"

/* A file's episodes shown by default (--episodes), most severe first. */
#define RT_REP_EPISODES 10

struct report_args {
	struct rt_opts o;
	struct rt_find_cfg cfg;
	int json, text, top, episodes, tune;
	__u64 speed;
	const char *speed_from;
	const char *html, *perfetto;	/* --html, --perfetto: the paths */
	const char *filter;		/* --filter EXPR */
	struct rt_filter *flt;
};

static int on_link_speed(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_max_flows(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_threshold(void *ctx, const struct rt_opt *opt, const char *arg);

#define A struct report_args

static const struct rt_opt report_opts[] = {
	{ 256, "json", NULL, "machine-readable output", RT_SET_FLAG(A, json) },
	{ 'd', "interval", "S", "captures: length of the intervals in seconds (default 1)",
	  RT_SET_REAL(A, o.interval, RT_NUM_SECONDS, 0.001, 86400, "give seconds between 0.001 and 86400") },
	{ 257, "top", "N", "rows per table (default 10, 0: all)",
	  RT_SET_INT(A, top, 0, INT_MAX, "give a number of rows, 0 for all") },
	{ 263, "episodes", "N", "a file's findings shown, most severe first (default 10,\n"
		"0: all); the rest are counted",
	  RT_SET_INT(A, episodes, 0, INT_MAX, "give a number of episodes, 0 for all") },
	{ 258, "link-speed", "SPEED", "link speed for paused time, e.g. 25G, 100G, 400G, 40000M\n"
		"(default: the speed recorded for the interface, else 100G)",
	  RT_CALL(on_link_speed), .values = "10G 25G 40G 50G 100G 200G 400G 800G" },
	{ 259, "max-flows", "N", "keep at most N flows of a capture (default: all)", RT_CALL(on_max_flows) },
	{ 260, "threshold", "NAME=VALUE", "a rule's threshold (the names: rocetop -h)", RT_CALL(on_threshold) },
	{ 261, "html", "FILE", "also write a self-contained HTML page of the timeline\n"
		"to FILE (open it in a browser; '-': standard output)", RT_SET_STR(A, html) },
	{ 262, "perfetto", "FILE", "also write a Chrome Trace Event JSON to FILE\n"
		"(open it in ui.perfetto.dev; '-': standard output)", RT_SET_STR(A, perfetto) },
	{ 264, "text", NULL, "with --html or --perfetto to a file, print the report\n"
		"too (without, one line says where each went)", RT_SET_FLAG(A, text) },
	{ 265, "tune", NULL, "also say what to change in the host's ECN, PFC and CNP\n"
		"settings, with the evidence and the command (see\n"
		"TUNING in rocetop(8))", RT_SET_FLAG(A, tune) },
	{ 340, "filter", "EXPR", "only the flows EXPR keeps, the host pairs of those flows\n"
		"and the findings that involve them (the language of\n"
		"rocetop --filter; see FILTERS in rocetop(8))", RT_SET_STR(A, filter) },
	RT_OPT_HELP_ENTRY,
	RT_OPT_END,
};

static const struct rt_cli report_cli = {
	.prog = "rocetop report",
	.usage =
"Usage: rocetop report FILE [FILE ...] [--json] [--interval S] [--top N] [--episodes N]\n"
"                      [--link-speed SPEED] [--filter EXPR] [--html FILE] [--perfetto FILE] [--text]\n"
"                      [--tune]\n"
"Summarise rocetop recordings or pcap/pcapng captures: the findings' episodes\n"
"first, most severe first, then duration and totals, the top flows by CE, CNP\n"
"and NAK, the moments of peak CE rate and PFC pauses, paused time per priority,\n"
"host pairs ranked, and the data flows CNPs throttled. Several files (recordings\n"
"from several hosts) merge into one timeline naming each host, with CNPs on\n"
"one host matched to the data flows they throttle on another, and where each\n"
"priority's pause storm started: the host that paused first without being\n"
"paused, and the hosts it spread to.\n",
	.opts = report_opts,
	.width = 20,
	.long_indent = 2,
};

static int on_link_speed(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct report_args *a = ctx;

	(void)opt;
	if (rt_parse_speed(arg, &a->speed)) {
		pr_warn("--link-speed '%s' is not valid: give a speed such as 25G, 100G or 40000M.\n", arg);
		return -EINVAL;
	}
	a->speed_from = "given";
	return 0;
}

static int on_max_flows(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct report_args *a = ctx;
	double v;

	(void)opt;
	if (rt_parse_num(arg, RT_NUM_INT, 16, 1 << 24, &v)) {
		pr_warn("--max-flows '%s' is not valid: give a number between 16 and 16777216.\n", arg);
		return -EINVAL;
	}
	a->o.max_flows = (__u32)v;
	a->o.max_flows_set = 1;
	return 0;
}

static int on_threshold(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct report_args *a = ctx;

	(void)opt;
	return rt_find_cfg_set(&a->cfg, arg) ? -EINVAL : 0;
}


/* Run R's files through the one loop into R->run; 0, or 1 after saying why. */
static int run_files(struct rt_rep_file *R, struct rt_opts *o, struct rt_sink *sink)
{
	struct rt_rep_chain ch;
	int k, err = 0;

	rt_rep_chain_init(&ch, sink);
	for (k = 0; k < R->nfiles; k++) {
		o->read_file = R->files[k];
		rt_rep_chain_next(&ch, R->files[k], k ? R->files[k - 1] : NULL);
		o->sink = R->nfiles > 1 ? &ch.s : sink;
		o->sink_findings = 1;
		R->run.started = 0;
		err = rt_run(o);
		o->sink = NULL;
		if (!R->run.started)
			break;	/* the source said why */
		if (err < 0) {
			pr_warn("cannot finish the report of %s: %s.\n", R->files[k], strerror(-err));
			break;
		}
	}
	if (R->nfiles > 1)
		sink->close(sink);	/* finishes the findings */
	if (k < R->nfiles)
		return 1;
	if (R->run.err < 0) {
		pr_warn("cannot finish the report of %s: %s.\n", R->path, strerror(-R->run.err));
		return 1;
	}
	return 0;
}

/* Read R's files into R through the one loop; 0, or 1 after saying why. */
static int load_file(struct rt_rep_file *R, struct rt_opts *o, const struct rt_find_cfg *cfg)
{
	struct rt_rep_sink_cfg sc = { .path = R->files[0], .top = R->top, .find = *cfg, .filter = R->filter };
	struct rt_sink *sink;
	struct rt_rep *r;

	if (R->speed_mbps)	/* for the report, and for a capture's paused time */
		sc.find.speed_mbps = o->find.speed_mbps = R->speed_mbps;
	sink = rt_report_sink_new(&R->run, &sc);
	R->a = r = &R->run.agg;
	if (!sink)
		return 1;
	if (run_files(R, o, sink))
		return 1;
	if (!r->intervals) {
		pr_warn("%s holds no interval to report on.\n", R->path);
		return 1;
	}
	if (rt_rep_finish(r, strcmp(R->run.kind, "capture") ? 0 : o->interval)) {
		pr_warn("out of memory.\n");
		return 1;
	}
	return 0;
}

/* What report knows of a file given before reading it. */
struct given {
	const char *path;
	struct stat st;
	int regular;
	char host[64], id[RT_REC_ID_LEN + 1], writer[16];
	__u64 created_ns;
	int entry;		/* the report it goes to */
};

static int by_created(const void *a, const void *b)
{
	const struct given *x = *(const struct given *const *)a, *y = *(const struct given *const *)b;

	return x->created_ns < y->created_ns ? -1 : x->created_ns > y->created_ns;
}

/*
 * The files given, as reports: a file given twice once, a rotated set (one
 * host, one recording id) as one report with its files in creation order, a
 * copy of one of its files once. Fills rs[0..*n) (files and path malloc'ed);
 * 0 or -ENOMEM.
 */
static int plan(char **paths, int npaths, struct rt_rep_file *rs, int *n)
{
	struct given *g = calloc((size_t)npaths, sizeof(*g));
	const struct given **members = calloc((size_t)npaths, sizeof(*members));
	int i, j, k, nr = 0, err = -ENOMEM;

	if (!g || !members)
		goto out;
	for (i = 0; i < npaths; i++) {
		g[i].path = paths[i];
		g[i].entry = -1;
		g[i].regular = strcmp(paths[i], "-") && !stat(paths[i], &g[i].st) && S_ISREG(g[i].st.st_mode);
		for (j = 0; g[i].regular && j < i; j++)
			if (g[j].entry >= 0 && g[j].regular && g[j].st.st_dev == g[i].st.st_dev &&
			    g[j].st.st_ino == g[i].st.st_ino)
				break;
		if (g[i].regular && j < i) {
			pr_info("%s is %s again (the same file): it is read once.\n", paths[i], paths[j]);
			continue;
		}
		if (!g[i].regular || rt_rec_peek(paths[i], g[i].host, sizeof(g[i].host), g[i].id, &g[i].created_ns,
						 g[i].writer, sizeof(g[i].writer)))
			g[i].host[0] = g[i].id[0] = '\0';
		/* one host's recording, by its id: the report of its set */
		for (j = 0; g[i].id[0] && j < i; j++)
			if (g[j].entry >= 0 && !strcmp(g[j].id, g[i].id) && !strcmp(g[j].host, g[i].host))
				break;
		if (g[i].id[0] && j < i) {
			for (k = 0; k < i; k++)
				if (g[k].entry == g[j].entry && g[k].created_ns == g[i].created_ns)
					break;
			if (k < i) {
				pr_info("%s is a copy of %s (one host, recording id and creation time): it is read once.\n",
					paths[i], paths[k]);
				continue;
			}
			g[i].entry = g[j].entry;
		} else {
			g[i].entry = nr++;
		}
	}
	for (i = 0; i < nr; i++) {
		int m = 0;
		size_t len = 1;

		for (j = 0; j < npaths; j++)
			if (g[j].entry == i)
				members[m++] = &g[j];
		if (m > 1)
			qsort(members, (size_t)m, sizeof(*members), by_created);
		rs[i].files = calloc((size_t)m, sizeof(*rs[i].files));
		if (!rs[i].files)
			goto out;
		for (j = 0; j < m; j++) {
			rs[i].files[j] = members[j]->path;
			len += strlen(members[j]->path) + 2;
		}
		rs[i].nfiles = m;
		snprintf(rs[i].host0, sizeof(rs[i].host0), "%s", members[0]->host);
		if (m == 1) {
			rs[i].path = rs[i].files[0];
			continue;
		}
		{
			char *shown = malloc(len);

			if (!shown)
				goto out;
			shown[0] = '\0';
			for (j = 0; j < m; j++)
				strcat(strcat(shown, j ? ", " : ""), rs[i].files[j]);
			rs[i].path = shown;
		}
	}
	*n = nr;
	err = 0;
out:
	free(g);
	free(members);
	return err;
}

/* Labels that tell the reports apart: the host, else the file's name, else
 * the path, else with #K added. */
static void distinct_labels(struct rt_rep_file *rs, int n)
{
	int i, j, k;

	for (i = 1; i < n; i++) {
		for (int step = 0; step < 3; step++) {
			for (j = 0; j < i; j++)
				if (!strcmp(rs[i].run.host, rs[j].run.host))
					break;
			if (j == i)
				break;
			if (step == 0) {
				const char *b = strrchr(rs[i].files[0], '/');

				snprintf(rs[i].run.host, sizeof(rs[i].run.host), "%s", b ? b + 1 : rs[i].files[0]);
			} else if (step == 1) {
				snprintf(rs[i].run.host, sizeof(rs[i].run.host), "%s", rs[i].path);
			} else {
				char h[sizeof(rs[i].run.host)];

				for (k = 2;; k++) {
					snprintf(h, sizeof(h), "%.50s #%d", rs[i].host0[0] ? rs[i].host0 : rs[i].run.host, k);
					for (j = 0; j < i && strcmp(h, rs[j].run.host); j++)
						;
					if (j == i)
						break;
				}
				snprintf(rs[i].run.host, sizeof(rs[i].run.host), "%s", h);
			}
		}
		for (size_t f = 0; f < rs[i].run.flog.n; f++)
			snprintf(rs[i].run.flog.f[f].host, sizeof(rs[i].run.flog.f[f].host), "%s", rs[i].run.host);
	}
}

/* An output of --html or --perfetto: standard output for "-", else opened as
 * --csv files are (outfile.h), never one of the files read. NULL after saying why. */
static FILE *viz_open(const char *path, const char *what, char **in, int nin)
{
	struct stat a, b;
	int i, fd;

	if (!strcmp(path, "-"))
		return stdout;
	for (i = 0; i < nin && !stat(path, &a); i++)
		if (!stat(in[i], &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			pr_warn("%s %s is one of the files being read; writing it would destroy it: choose another name.\n",
				what, path);
			return NULL;
		}
	fd = rt_out_open(path, what, 0);
	return fd < 0 ? NULL : fdopen(fd, "w");
}

/* Close an output; 0, or 1 after saying why. */
static int viz_close(FILE *f, const char *what, const char *path, int err)
{
	if (f != stdout && fclose(f) && !err)
		err = -errno;
	if (err)
		pr_warn("writing %s %s failed: %s.\n", what, path, strerror(-err));
	return err ? 1 : 0;
}

/* --html and --perfetto: not both on standard output, and every input a
 * file that can be read twice. 0, or 1 after saying why. */
static int viz_args_bad(const struct report_args *ra, char **in, int nin)
{
	struct stat st;
	int i;

	if (ra->html && ra->perfetto && !strcmp(ra->html, "-") && !strcmp(ra->perfetto, "-")) {
		pr_warn("--html and --perfetto cannot both write to standard output: give one a file.\n");
		return 1;
	}
	if ((ra->text || ra->json) && ((ra->html && !strcmp(ra->html, "-")) ||
				       (ra->perfetto && !strcmp(ra->perfetto, "-")))) {
		pr_warn("%s and %s - cannot both write to standard output: give the %s a file.\n",
			ra->json ? "--json" : "--text", ra->html && !strcmp(ra->html, "-") ? "--html" : "--perfetto",
			ra->html && !strcmp(ra->html, "-") ? "page" : "trace");
		return 1;
	}

	for (i = 0; (ra->html || ra->perfetto) && i < nin; i++)
		if (!strcmp(in[i], "-") || (!stat(in[i], &st) && !S_ISREG(st.st_mode))) {
			pr_warn("--html and --perfetto read each file twice, and %s cannot be read twice: save it to a file first.\n",
				strcmp(in[i], "-") ? in[i] : "standard input");
			return 1;
		}
	return 0;
}

/* Host i's clock for the drawings: the second run's times are as the host
 * recorded them, so its offset is added to them (the report's are moved). */
static void viz_clock(struct rt_viz_host *hs, int n, const struct rt_rep_file *rs, int i)
{
	const struct rt_rep_clock *c = &rs[i].clock;
	int k;

	for (k = i; k < 2 * n; k += n) {
		hs[k].offset_known = c->known;
		hs[k].offset_ns = c->known ? -c->offset_ns : 0;
		hs[k].offset_flows = c->flows;
		hs[k].offset_same = c->same_host;
		hs[k].offset_against = c->against >= 0 ? rs[c->against].run.host : NULL;
		hs[k].offset_why = rt_rep_clock_why(c);
		hs[k].offset_margin_ns = rt_rep_clock_margin(rs, n, i);
	}
}

/* --html and --perfetto: a second run over each host's files fills the
 * series of the flows the report found (report_viz.h); 0, or 1 after saying why. */
static int viz_out(struct rt_rep_file *rs, int n, struct rt_opts *o, const struct report_args *ra, FILE *fh, FILE *ft)
{
	struct rt_viz_host *hs = calloc(2 * (size_t)n, sizeof(*hs));
	char *json = NULL;
	size_t len = 0;
	int i, rc = 1;

	for (i = 0; hs && i < n; i++) {
		if ((fh && rt_viz_host_init(&hs[i], &rs[i].run, rs[i].run.host, ra->top, RT_VIZ_HTML_POINTS)) ||
		    (ft && rt_viz_host_init(&hs[n + i], &rs[i].run, rs[i].run.host, ra->top, RT_VIZ_TRACE_POINTS)))
			break;
		viz_clock(hs, n, rs, i);
	}
	if (!hs || i < n || rt_viz_link(hs, n) || rt_viz_link(hs + n, n))
		goto nomem;
	for (i = 0; i < n; i++) {
		struct rt_viz_host *ph[2];
		int np = 0;
		struct rt_sink *sink;

		if (fh)
			ph[np++] = &hs[i];
		if (ft)
			ph[np++] = &hs[n + i];
		sink = rt_viz_sink_new(ph, np, &rs[i].run.started);
		if (!sink)
			goto nomem;
		if (run_files(&rs[i], o, sink))
			goto out;
	}
	if (fh) {
		FILE *m = open_memstream(&json, &len);

		if (!m || rt_rep_print_all(m, rs, n, 1, ra->top) || fclose(m))
			goto nomem;
		i = viz_close(fh, "the HTML report", ra->html, rt_report_html_write(fh, hs, n, json));
		fh = NULL;
		if (i)
			goto out;
	}
	if (ft) {
		i = viz_close(ft, "the Perfetto trace", ra->perfetto, rt_report_trace_write(ft, hs + n, n));
		ft = NULL;
		if (i)
			goto out;
	}
	rc = 0;
	goto out;
nomem:
	pr_warn("out of memory.\n");
out:
	if (fh && fh != stdout)
		fclose(fh);
	if (ft && ft != stdout)
		fclose(ft);
	for (i = 0; hs && i < 2 * n; i++)
		rt_viz_host_free(&hs[i]);
	free(hs);
	free(json);
	return rc;
}

/* Where --html and --perfetto went, a line each: on standard output when
 * it holds nothing else, else on standard error. 0, or 1 after saying why. */
static int viz_said(const struct report_args *ra)
{
	FILE *f = ra->text || ra->json ? stderr : stdout;

	if (ra->html)
		fprintf(f, "rocetop report: the HTML page is in %s (open it in a browser)\n", ra->html);
	if (ra->perfetto)
		fprintf(f, "rocetop report: the Perfetto trace is in %s (open it in ui.perfetto.dev)\n", ra->perfetto);
	errno = 0;
	if (f == stdout && (fflush(stdout) || ferror(stdout))) {
		pr_warn("writing to standard output failed: %s.\n", strerror(errno ? errno : EIO));
		return 1;
	}
	return 0;
}

/* --filter parses, and applies to every output asked for. */
static int filter_args_bad(struct report_args *ra)
{
	char err[200];

	if (!ra->filter)
		return 0;
	if (rt_filter_parse(ra->filter, &ra->flt, err, sizeof(err))) {
		pr_warn("--filter: %s.\n", err);
		return 1;
	}
	if (ra->html || ra->perfetto) {
		pr_warn("--filter applies to the report's text and JSON, and %s draws every flow: drop one of them.\n",
			ra->html ? "--html" : "--perfetto");
		return 1;
	}
	return 0;
}

int rt_report_main(int argc, char **argv)
{
	struct rt_rep_file *rs = NULL;
	struct report_args ra = { .top = 10, .episodes = RT_REP_EPISODES };
	FILE *fh = NULL, *ft = NULL;
	int nfiles, nrep = 0, i, rc = 1, first, err;

	rt_opts_defaults(&ra.o);
	rt_find_cfg_defaults(&ra.cfg);
	ra.o.daemon = 1;	/* no view: keeps the capture reader's progress meter honest */
	err = rt_cli_parse(&report_cli, argc, argv, NULL, &ra, &first);
	if (err)
		return err > 0 ? 0 : 2;
	nfiles = argc - first;
	if (nfiles < 1) {
		pr_warn("report takes one file or more: rocetop report FILE [FILE ...] [--json].\n");
		return 2;
	}
	if (viz_args_bad(&ra, argv + first, nfiles) || filter_args_bad(&ra))
		return 2;
	rs = calloc((size_t)nfiles, sizeof(*rs));
	if (!rs || plan(argv + first, nfiles, rs, &nrep)) {
		pr_warn("out of memory.\n");
		goto out;
	}
	for (i = 0; i < nrep; i++) {
		rs[i].top = ra.top;
		rs[i].episodes = ra.episodes;
		rs[i].speed_mbps = ra.speed;
		rs[i].speed_from = ra.speed_from;
		rs[i].multi = nrep > 1;
		rs[i].tune = ra.tune;
		rs[i].filter = ra.flt;
		if (load_file(&rs[i], &ra.o, &ra.cfg))
			goto out;
	}
	distinct_labels(rs, nrep);
	if (nrep > 1 && rt_rep_clocks_apply(rs, nrep)) {
		pr_warn("out of memory.\n");
		goto out;
	}
	/* opened once the files read well: a bad input leaves no output behind */
	if ((ra.html && !(fh = viz_open(ra.html, "the HTML report", argv + first, nfiles))) ||
	    (ra.perfetto && !(ft = viz_open(ra.perfetto, "the Perfetto trace", argv + first, nfiles))))
		goto out;
	if (fh || ft) {
		rc = viz_out(rs, nrep, &ra.o, &ra, fh, ft);
		fh = ft = NULL;	/* closed */
		if (rc || (ra.html && !strcmp(ra.html, "-")) || (ra.perfetto && !strcmp(ra.perfetto, "-")))
			goto out;
		rc = viz_said(&ra);
		if (rc || !(ra.text || ra.json))
			goto out;
		rc = 1;
	}
	if (rt_rep_print_all(stdout, rs, nrep, ra.json, ra.top)) {
		pr_warn("out of memory.\n");
		goto out;
	}
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		pr_warn("writing the report to standard output failed: %s.\n", strerror(errno ? errno : EIO));
		rc = 1;
	} else {
		rc = 0;
	}
out:
	if (fh && fh != stdout)
		fclose(fh);
	if (ft && ft != stdout)
		fclose(ft);
	for (i = 0; rs && i < nfiles; i++) {
		rt_rep_run_free(&rs[i].run);
		if (rs[i].nfiles > 1)
			free((char *)rs[i].path);
		free(rs[i].files);
	}
	free(rs);
	rt_filter_free(ra.flt);
	return rc;
}
