// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --filter for the sinks that print flows (--batch, --json, --csv): a sink
 * in front of another that hands it each interval with only the flows the
 * filter keeps (their totals summed again: user/core/filter.h,
 * rt_filter_delta) and only the findings whose flows it keeps
 * (rt_finding_filter). The findings are the engine's, judged on every flow.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "filter.h"
#include "findings.h"
#include "log.h"
#include "sinks.h"
#include "table.h"

struct fsink {
	struct rt_sink *inner;
	struct rt_filter *F;
	struct rt_flow_delta *fl;
	size_t flcap;
	struct rt_findings fc;		/* the engine's, with its tables filtered */
	struct rt_finding *tab;
	struct rt_fev *ev;
	size_t tabcap, evcap;
};

/* The findings (and this interval's events) the filter keeps; NULL: out of memory. */
static const struct rt_findings *keep_findings(struct fsink *k, const struct rt_findings *in)
{
	size_t i;

	if (rt_grow_to((void **)&k->tab, &k->tabcap, in->n ? in->n : 1, sizeof(*k->tab)) ||
	    rt_grow_to((void **)&k->ev, &k->evcap, in->nev ? in->nev : 1, sizeof(*k->ev)))
		return NULL;
	k->fc = *in;
	k->fc.tab = k->tab;
	k->fc.ev = k->ev;
	k->fc.n = k->fc.nev = 0;
	for (i = 0; i < in->n; i++)
		if (rt_finding_filter(k->F, &in->tab[i]))
			k->tab[k->fc.n++] = in->tab[i];
	for (i = 0; i < in->nev; i++)
		if (rt_finding_filter(k->F, &in->ev[i].f))
			k->ev[k->fc.nev++] = in->ev[i];
	return &k->fc;
}

static int fsink_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct fsink *k = s->priv;
	struct rt_delta fd;

	if (rt_filter_delta(k->F, cur, d, &fd, &k->fl, &k->flcap))
		return -ENOMEM;
	if (d->findings && !(fd.findings = keep_findings(k, d->findings)))
		return -ENOMEM;
	return k->inner->emit(k->inner, cur, &fd);
}

static void fsink_start(struct rt_sink *s, const struct rt_source *src)
{
	struct fsink *k = s->priv;

	if (k->inner->start)
		k->inner->start(k->inner, src);
}

static void fsink_signal(struct rt_sink *s, int signo)
{
	struct fsink *k = s->priv;

	if (k->inner->on_signal)
		k->inner->on_signal(k->inner, signo);
}

static void fsink_close(struct rt_sink *s)
{
	struct fsink *k = s->priv;

	k->inner->close(k->inner);
	rt_filter_free(k->F);
	free(k->fl);
	free(k->tab);
	free(k->ev);
	rt_sink_free(s);
}

struct rt_sink *rt_filtered_sink_new(struct rt_sink *inner, const char *expr)
{
	struct rt_sink *s;
	struct fsink *k;
	char err[200];

	if (!inner || !expr || !*expr)
		return inner;
	s = rt_sink_new(inner->name, sizeof(struct fsink), fsink_emit, fsink_close);
	if (!s) {
		inner->close(inner);
		return NULL;
	}
	k = s->priv;
	k->inner = inner;
	if (rt_filter_parse(expr, &k->F, err, sizeof(err))) {
		pr_warn("--filter: %s.\n", err);
		fsink_close(s);
		return NULL;
	}
	s->start = fsink_start;
	s->on_signal = fsink_signal;
	return s;
}
