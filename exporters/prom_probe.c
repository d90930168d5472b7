// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe mesh's families (user/core/probe_row.h: a row per peer, path and
 * probe size): probes sent, answered and lost since the start as counters,
 * the last interval's round trip p50 and p99, its network and responder
 * p50 and the path's usual network time as gauges in seconds (absent with
 * no sample), and a series for each row with a finding. Labels: peer, addr,
 * path, flow_label, udp_sport, size, clock; a peer's name is text from a
 * file or a QP table, escaped and made valid UTF-8 here. At most
 * RT_PROM_PROBE_ROWS rows are exported: those with a finding first, then the
 * most lost since the start; rocetop_probe_rows_unexported counts the rest.
 * Names: exporters/README.md. No I/O.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prom.h"
#include "prom_out.h"
#include "table.h"

/* A row is label values: its bytes made valid UTF-8 (a byte that starts no
 * whole character becomes '?'), as the exposition formats want. */
static void utf8_clean(const char *s, char *out, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t j = 0;

	while (*u && j + 5 < len) {
		int n = *u < 0x80 ? 1 : (*u & 0xe0) == 0xc0 && *u >= 0xc2 ? 2 : (*u & 0xf0) == 0xe0 ? 3 :
			(*u & 0xf8) == 0xf0 && *u <= 0xf4 ? 4 : 0;
		int ok = n > 0;

		for (int k = 1; ok && k < n; k++)
			ok = (u[k] & 0xc0) == 0x80;
		/* overlong forms, UTF-16 surrogates and code points past U+10FFFF */
		if (ok && n == 3)
			ok = !(u[0] == 0xe0 && u[1] < 0xa0) && !(u[0] == 0xed && u[1] >= 0xa0);
		if (ok && n == 4)
			ok = !(u[0] == 0xf0 && u[1] < 0x90) && !(u[0] == 0xf4 && u[1] >= 0x90);
		if (!ok) {
			out[j++] = '?';
			u++;
			continue;
		}
		memcpy(out + j, u, (size_t)n);
		j += (size_t)n;
		u += n;
	}
	out[j] = 0;
}

static void row_labels(const struct rt_probe_row *r, char *set, size_t len)
{
	char v[sizeof(r->peer) + 8];

	set[0] = 0;
	utf8_clean(r->peer, v, sizeof(v));
	prom_label(set, len, "peer", v);
	utf8_clean(r->addr, v, sizeof(v));
	prom_label(set, len, "addr", v);
	snprintf(v, sizeof(v), "%u", r->path);
	prom_label(set, len, "path", v);
	snprintf(v, sizeof(v), "%u", r->flow_label);
	prom_label(set, len, "flow_label", v);
	snprintf(v, sizeof(v), "%u", r->udp_sport);
	prom_label(set, len, "udp_sport", v);
	snprintf(v, sizeof(v), "%u", r->size);
	prom_label(set, len, "size", v);
	prom_label(set, len, "clock", rt_probe_clock_name(r->clock));
}

/* Export order of the rows when they are more than the bound: a finding
 * first (path-down, path-loss, path-latency, host-stall), then more lost
 * since the start, then the table's order. */
static int cmp_rank(const void *a, const void *b, void *rows)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct rt_probe_row *x = (const struct rt_probe_row *)rows + i, *y = (const struct rt_probe_row *)rows + j;
	unsigned fx = x->finding ? x->finding : RT_PF__N, fy = y->finding ? y->finding : RT_PF__N;

	if (fx != fy)
		return fx < fy ? -1 : 1;
	if (x->lost_total != y->lost_total)
		return x->lost_total > y->lost_total ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int cmp_index(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	return i < j ? -1 : i > j;
}

/* The rows to export, in the table's order: all of them up to the bound. */
static size_t pick_rows(const struct rt_snapshot *cur, size_t **order, size_t *cap)
{
	size_t n = cur->nprobes;

	if (rt_grow_to((void **)order, cap, n, sizeof(**order)))
		return (size_t)-1;
	for (size_t i = 0; i < n; i++)
		(*order)[i] = i;
	if (n <= RT_PROM_PROBE_ROWS)
		return n;
	qsort_r(*order, n, sizeof(**order), cmp_rank, cur->probes);
	qsort(*order, RT_PROM_PROBE_ROWS, sizeof(**order), cmp_index);
	return RT_PROM_PROBE_ROWS;
}

static const struct {
	const char *name, *help;
	size_t off;
	int zero_none;		/* 0 is no value yet (the baseline) */
} counters[] = {
	{ "rocetop_probe_sent", "Probes sent to the peer on the path at the size since the start.",
	  offsetof(struct rt_probe_row, sent_total), 0 },
	{ "rocetop_probe_answered", "Probes answered in time since the start.",
	  offsetof(struct rt_probe_row, answered_total), 0 },
	{ "rocetop_probe_lost", "Probes lost (not answered within the probe timeout) since the start.",
	  offsetof(struct rt_probe_row, lost_total), 0 },
}, gauges[] = {
	{ "rocetop_probe_rtt_p50_seconds", "The round trip's median over the last interval's answered probes.",
	  offsetof(struct rt_probe_row, rtt_p50_us), 0 },
	{ "rocetop_probe_rtt_p99_seconds", "The round trip's 99th percentile over the last interval.",
	  offsetof(struct rt_probe_row, rtt_p99_us), 0 },
	{ "rocetop_probe_net_p50_seconds", "The network's part of the round trip (less the responder's time), median.",
	  offsetof(struct rt_probe_row, net_p50_us), 0 },
	{ "rocetop_probe_resp_p50_seconds", "The responder's time between the probe and its answer, median.",
	  offsetof(struct rt_probe_row, resp_p50_us), 0 },
	{ "rocetop_probe_net_base_seconds", "The path's usual network time, the baseline path-latency compares with.",
	  offsetof(struct rt_probe_row, net_base_us), 1 },
};

#define N_(a) (sizeof(a) / sizeof((a)[0]))
#define LABELS_LEN 1024

/* Every family over the picked rows; a gauge's row without a sample (a time
 * below 0, or a baseline of 0) has no series. */
static void probe_families(struct out *w, const struct rt_snapshot *cur, const size_t *order, size_t n)
{
	char set[LABELS_LEN];

	for (size_t f = 0; f < N_(counters); f++) {
		prom_family(w, counters[f].name, M_COUNTER, NULL, counters[f].help);
		for (size_t i = 0; i < n; i++) {
			const struct rt_probe_row *r = &cur->probes[order[i]];

			row_labels(r, set, sizeof(set));
			prom_sample_u(w, counters[f].name, M_COUNTER, set,
				      *(const __u64 *)((const char *)r + counters[f].off));
		}
	}
	for (size_t f = 0; f < N_(gauges); f++) {
		prom_family(w, gauges[f].name, M_GAUGE, "seconds", gauges[f].help);
		for (size_t i = 0; i < n; i++) {
			const struct rt_probe_row *r = &cur->probes[order[i]];
			double us = *(const double *)((const char *)r + gauges[f].off);

			if (us < 0 || (gauges[f].zero_none && us == 0))
				continue;
			row_labels(r, set, sizeof(set));
			prom_sample_d(w, gauges[f].name, M_GAUGE, set, us / 1e6);
		}
	}
	prom_family(w, "rocetop_probe_finding", M_GAUGE, NULL,
		    "1 for each path and size whose last interval supports a finding (label finding).");
	for (size_t i = 0; i < n; i++) {
		const struct rt_probe_row *r = &cur->probes[order[i]];

		if (!r->finding)
			continue;
		row_labels(r, set, sizeof(set));
		prom_label(set, sizeof(set), "finding", rt_probe_finding_name(r->finding));
		prom_sample_u(w, "rocetop_probe_finding", M_GAUGE, set, 1);
	}
}

int rt_prom_render_probes(struct out *w, const struct rt_snapshot *cur, size_t **order, size_t *cap)
{
	size_t n = pick_rows(cur, order, cap);

	if (n == (size_t)-1)
		return -ENOMEM;
	prom_family(w, "rocetop_probe_rows", M_GAUGE, NULL,
		    "Rows of the probe table now: one per peer, path and probe size.");
	prom_sample_u(w, "rocetop_probe_rows", M_GAUGE, "", cur->nprobes);
	prom_family(w, "rocetop_probe_rows_unexported", M_GAUGE, NULL,
		    "Rows left out of the rocetop_probe_* families by their bound.");
	prom_sample_u(w, "rocetop_probe_rows_unexported", M_GAUGE, "", cur->nprobes - n);
	probe_families(w, cur, *order, n);
	return 0;
}
