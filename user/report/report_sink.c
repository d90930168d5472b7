// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop report as a sink of the one loop (user/core/loop.c): the loop
 * steps the file source and keeps the snapshot cycle (user/core/stream.c),
 * this sink adds each interval to the aggregation (report_agg.c) and runs
 * the findings' rules with the report's host, link speed and interval
 * lengths. The loop leaves its own findings to it (rt_loop_cfg's
 * sink_findings, user/core/loop.h). A rotated set's files go through one
 * such sink behind a chain (rt_rep_chain), which gives each later file's
 * first interval its length.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filter.h"
#include "fmt.h"
#include "log.h"
#include "report_agg.h"
#include "sink.h"
#include "source.h"

struct rsink {
	struct rt_sink s;
	struct rt_rep_run *out;
	struct rt_findings F;
	const char *path;
	const struct rt_filter *filter;
	struct rt_flow_delta *fl;	/* the flows the filter keeps */
	size_t flcap;
	int recording;
};

static void rsink_start(struct rt_sink *s, const struct rt_source *src)
{
	struct rsink *k = s->priv;
	const char *path = k->path, *base = strrchr(path, '/');

	k->recording = !strcmp(src->name, "recording");
	k->out->kind = k->recording ? "recording" : "capture";
	snprintf(k->out->host, sizeof(k->out->host), "%s",
		 src->host && src->host[0] ? src->host : base ? base + 1 : path);
	snprintf(k->F.host, sizeof(k->F.host), "%s", k->out->host);
	snprintf(k->out->version, sizeof(k->out->version), "%s", src->version ? src->version : "");
	snprintf(k->out->kernel, sizeof(k->out->kernel), "%s", src->kernel ? src->kernel : "");
	snprintf(k->out->options, sizeof(k->out->options), "%s", src->options ? src->options : "");
	k->out->started = 1;
}

static int rsink_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct rsink *k = s->priv;
	struct rt_delta dd = *d, kept;
	int err;

	/* Every interval's length is the loop's (user/core/loop.c), a
	 * recording's first included: the one its run rated it over, or in
	 * older files the second's. */
	err = rt_filter_delta(k->filter, cur, &dd, &kept, &k->fl, &k->flcap);
	if (!err)
		err = rt_rep_take(&k->out->agg, cur, &kept);
	if (!err)
		rt_tune_take(&k->out->tune, cur, &kept);
	if (!err)
		err = rt_rep_probes_take(&k->out->probes, cur);
	if (err)
		return err;
	err = rt_findings_eval(&k->F, cur, &dd);
	if (!err)
		err = rt_flog_take(&k->out->flog, &k->F);
	return err;
}

/* The findings the filter keeps, in their order. */
static void keep_findings(struct rt_flog *L, const struct rt_filter *flt)
{
	size_t i, n = 0;

	for (i = 0; flt && i < L->n; i++)
		if (rt_finding_filter(flt, &L->f[i]))
			L->f[n++] = L->f[i];
	if (flt)
		L->n = n;
}

static void rsink_close(struct rt_sink *s)
{
	struct rsink *k = s->priv;

	rt_findings_finish(&k->F);
	k->out->err = rt_flog_take(&k->out->flog, &k->F);
	rt_flog_sort(&k->out->flog);
	keep_findings(&k->out->flog, k->filter);
	rt_findings_free(&k->F);
	free(k->fl);
	free(k);
}

struct rt_sink *rt_report_sink_new(struct rt_rep_run *out, const struct rt_rep_sink_cfg *cfg)
{
	struct rsink *k = calloc(1, sizeof(*k));

	memset(out, 0, sizeof(*out));
	if (!k || rt_rep_init(&out->agg, cfg->top) || rt_findings_init(&k->F, &cfg->find, &rt_rules)) {
		pr_warn("out of memory.\n");
		free(k);
		return NULL;
	}
	k->out = out;
	out->agg.speed_given = cfg->find.speed_mbps;
	k->path = cfg->path;
	k->filter = cfg->filter;
	rt_sink_init(&k->s, "report", rsink_emit, rsink_close, k);
	k->s.start = rsink_start;
	return &k->s;
}

void rt_rep_run_free(struct rt_rep_run *run)
{
	rt_rep_free(&run->agg);
	rt_flog_free(&run->flog);
	rt_rep_probes_free(&run->probes);
}

static int chain_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct rt_rep_chain *ch = s->priv;
	struct rt_delta dd = *d;

	if (ch->fresh && ch->last_ns && cur->time_ns > ch->last_ns)
		dd.secs = (double)(cur->time_ns - ch->last_ns) / 1e9;
	else if (ch->fresh && ch->last_ns && cur->time_ns < ch->last_ns)
		pr_info("note: %s begins %s before %s ends: its times go backwards (a clock set back?); "
			"the files are read in the order they were created.\n", ch->file,
			RT_DUR((double)(ch->last_ns - cur->time_ns) / 1e9), ch->prev);
	ch->fresh = 0;
	ch->last_ns = cur->time_ns;
	return ch->inner->emit(ch->inner, cur, &dd);
}

static void chain_start(struct rt_sink *s, const struct rt_source *src)
{
	struct rt_rep_chain *ch = s->priv;

	ch->inner->start(ch->inner, src);
}

static void chain_close(struct rt_sink *s)
{
	(void)s;	/* the report's sink is closed after the last file */
}

void rt_rep_chain_init(struct rt_rep_chain *ch, struct rt_sink *inner)
{
	memset(ch, 0, sizeof(*ch));
	rt_sink_init(&ch->s, "report", chain_emit, chain_close, ch);
	ch->s.start = chain_start;
	ch->inner = inner;
}

void rt_rep_chain_next(struct rt_rep_chain *ch, const char *file, const char *prev)
{
	ch->file = file;
	ch->prev = prev;
	ch->fresh = 1;
}
