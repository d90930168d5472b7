// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <string.h>
#include "join.h"
#include "log.h"
#include "stream.h"

int rt_stream_init(struct rt_stream *st, struct rt_source *src, const struct rt_nic_view *nic)
{
	memset(st, 0, sizeof(*st));
	st->src = src;
	if (nic)
		st->nic = *nic;
	rt_snapshot_init(&st->cur);
	rt_snapshot_init(&st->prev);
	rt_snapshot_init(&st->scratch);
	if (rt_snapshot_make_table(&st->cur))
		return -ENOMEM;
	st->cur.tab->max_flows = src->max_flows;
	return 0;
}

int rt_stream_step(struct rt_stream *st)
{
	int have_nic = st->nic.nic != NULL;
	struct rt_snapshot *snap;
	int r;

	/* A live source with the NIC's counters or sFlow merged in is read into
	 * the table in place too: the NIC updates its own flows there and joins
	 * only what changed (nic.c, join.c), sFlow's merge updates its estimated
	 * rows in place (sflow.c). */
	if ((have_nic || st->merge) && st->src->live)
		st->src->incremental = 1;
	rt_snapshot_next_interval(&st->cur);
	if (st->src->incremental) {
		snap = &st->cur;
	} else {
		snap = &st->scratch;
		rt_snapshot_clear(snap);
	}
	r = st->src->collect(st->src, snap);
	if (r > 0 && st->merge)
		r = st->merge(st->merge_arg, snap);
	if (r <= 0) {
		if (r == -ENOMEM)
			pr_warn("out of memory.\n");
		return r;
	}
	/* The NIC's counters and flows, and its join with the QP table: on the
	 * table for an incremental source (rows updated in place, the join on
	 * the rows that changed), else on the whole snapshot a source took;
	 * without a NIC, live CNPs are attributed from ACKs and host pairs on the
	 * table, looking only at the pairs that changed (join.c). */
	if (have_nic)
		st->nic.collect(st->nic.nic, snap);
	if (snap != &st->cur &&
	    rt_snapshot_apply(&st->cur, snap, have_nic || !st->src->live)) {
		pr_warn("out of memory.\n");
		return -ENOMEM;
	}
	if (!have_nic && st->src->live)
		rt_join(&st->cur, NULL);
	if (st->probes && (r = st->probes(st->probes_arg, &st->cur)) < 0)
		return r;
	if (rt_delta_changes(&st->delta, st->have_prev ? &st->prev : NULL, &st->cur) ||
	    rt_snapshot_copy_small(&st->prev, &st->cur)) {
		pr_warn("out of memory computing rates.\n");
		return -ENOMEM;
	}
	st->have_prev = 1;
	return 1;
}

void rt_stream_restart(struct rt_stream *st)
{
	rt_snapshot_clear(&st->cur);
	st->have_prev = 0;
}

void rt_stream_free(struct rt_stream *st)
{
	rt_delta_free(&st->delta);
	rt_snapshot_free(&st->cur);
	rt_snapshot_free(&st->prev);
	rt_snapshot_free(&st->scratch);
}
