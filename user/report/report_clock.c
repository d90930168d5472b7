// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Several hosts' files on one clock (report_agg.h): a flow seen leaving one
 * host and arriving at another carries the same packets, so the difference
 * of its first (and last) packet's times on the two hosts is the difference
 * of their clocks, give or take the times' resolution (a capture's
 * timestamps; a live recording's flows are stamped per interval). The
 * median over the flows two hosts share is their offset; hosts are chained
 * to the reference (the first) through the pairs that share most flows.
 * Two files of one named host (recordings name it) are on one clock.
 *
 * Two flows are taken as one only with about as many packets (within 10%)
 * over about as long (within 10%, plus the longest interval of the two
 * files: a late snapshot stamps a live flow late): the same addresses and
 * QP in two unrelated runs are not one flow.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report_agg.h"

/* One host's view of a flow: its addresses and QP, whichever interface and
 * direction saw it (the earliest first packet, the latest last). */
struct seen {
	__u8 family;
	__u8 src[16], dst[16];
	__u32 dqpn;
	__u64 first, last, pkts;
};

static int seen_cmp(const void *x, const void *y)
{
	const struct seen *a = x, *b = y;
	int c = memcmp(a->src, b->src, 16);

	if (!c)
		c = memcmp(a->dst, b->dst, 16);
	if (!c)
		c = (a->dqpn > b->dqpn) - (a->dqpn < b->dqpn);
	if (!c)
		c = (a->family > b->family) - (a->family < b->family);
	return c;
}

/* r's wire flows with packets, sorted, one row per addresses and QP. */
static struct seen *seen_list(const struct rt_rep *r, size_t *out)
{
	struct seen *s = calloc(r->n + 1, sizeof(*s));
	size_t i, n = 0;

	if (!s)
		return NULL;
	for (i = 0; i < r->n; i++) {
		const struct rt_rep_flow *f = r->flows[i];

		if (!f->v.pkts || !f->first_wall || f->k.origin)
			continue;
		s[n].family = f->k.family;
		memcpy(s[n].src, f->k.src, 16);
		memcpy(s[n].dst, f->k.dst, 16);
		s[n].dqpn = f->k.dqpn;
		s[n].first = f->first_wall;
		s[n].last = f->last_wall;
		s[n].pkts = f->v.pkts;
		n++;
	}
	qsort(s, n, sizeof(*s), seen_cmp);
	for (i = 0, *out = 0; i < n; i++) {
		struct seen *o = *out ? &s[*out - 1] : NULL;

		if (o && !seen_cmp(o, &s[i])) {
			o->first = s[i].first < o->first ? s[i].first : o->first;
			o->last = s[i].last > o->last ? s[i].last : o->last;
			o->pkts = s[i].pkts > o->pkts ? s[i].pkts : o->pkts;
		} else {
			s[(*out)++] = s[i];
		}
	}
	return s;
}

static int near(__u64 a, __u64 b, __u64 slack)
{
	__u64 d = a > b ? a - b : b - a, m = a > b ? a : b;

	return d <= m / 10 + slack;
}

static int s64_cmp(const void *x, const void *y)
{
	__s64 a = *(const __s64 *)x, b = *(const __s64 *)y;

	return (a > b) - (a < b);
}

/* Host b's clock less host a's, from the flows they share: c->flows 0 when none. */
static int pair(const struct seen *a, size_t na, const struct seen *b, size_t nb, __u64 slack,
		struct rt_rep_clock *c)
{
	__s64 *d = malloc(2 * (na < nb ? na : nb) * sizeof(*d) + 1);
	size_t i = 0, j = 0, n = 0;

	if (!d)
		return -ENOMEM;
	memset(c, 0, sizeof(*c));
	while (i < na && j < nb) {
		int x = seen_cmp(&a[i], &b[j]);

		if (x) {
			x < 0 ? i++ : j++;
			continue;
		}
		if (near(a[i].pkts, b[j].pkts, 1) && near(a[i].last - a[i].first, b[j].last - b[j].first, slack)) {
			d[n++] = (__s64)(b[j].first - a[i].first);
			d[n++] = (__s64)(b[j].last - a[i].last);
			c->flows++;
		}
		i++, j++;
	}
	if (n) {
		qsort(d, n, sizeof(*d), s64_cmp);
		/* n is even: the mean of the two middle ones */
		c->offset_ns = d[n / 2 - 1] + (d[n / 2] - d[n / 2 - 1]) / 2;
		c->lo_ns = d[0];
		c->hi_ns = d[n - 1];
	}
	free(d);
	return 0;
}

/* Every pair's measurement, p[i * n + j]: host j's clock less host i's. */
static int pairs(const struct rt_rep *const *rs, const char *const *host0, int n, struct rt_rep_clock *p)
{
	struct seen **s = calloc((size_t)n, sizeof(*s));
	size_t *ns = calloc((size_t)n, sizeof(*ns));
	int i, j, err = s && ns ? 0 : -ENOMEM;

	for (i = 0; !err && i < n; i++)
		if (!(s[i] = seen_list(rs[i], &ns[i])))
			err = -ENOMEM;
	for (i = 0; !err && i < n; i++)
		for (j = i + 1; !err && j < n; j++) {
			__u64 slack = rs[i]->max_step_ns > rs[j]->max_step_ns ? rs[i]->max_step_ns : rs[j]->max_step_ns;

			/* one named host's files: one clock */
			if (host0[i][0] && !strcmp(host0[i], host0[j])) {
				p[i * n + j] = p[j * n + i] = (struct rt_rep_clock){ .same_host = 1 };
				continue;
			}
			err = pair(s[i], ns[i], s[j], ns[j], slack, &p[i * n + j]);
			p[j * n + i] = p[i * n + j];
			p[j * n + i].offset_ns = -p[i * n + j].offset_ns;
			p[j * n + i].lo_ns = -p[i * n + j].hi_ns;
			p[j * n + i].hi_ns = -p[i * n + j].lo_ns;
		}
	for (i = 0; s && i < n; i++)
		free(s[i]);
	free(s);
	free(ns);
	return err;
}

/* How much a measurement is worth: one host's own files first, then flows. */
static __u64 link_rank(const struct rt_rep_clock *c)
{
	return c->same_host ? ~0ULL : c->flows;
}

int rt_rep_clocks(const struct rt_rep *const *rs, const char *const *host0, int n, struct rt_rep_clock *out)
{
	struct rt_rep_clock *p = calloc((size_t)n * (size_t)n + 1, sizeof(*p));
	int i, err;

	if (!p)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		out[i] = (struct rt_rep_clock){ .against = -1 };
	err = pairs(rs, host0, n, p);
	for (i = 0; i < n * n; i++)
		out[i / n].shares += p[i].flows > 0 || p[i].same_host;
	out[0].known = 1;
	/* Chain: each round adds another file of a known host, else the host
	 * that shares most flows with a known one. */
	while (!err) {
		int bu = -1, bv = -1, u, v;

		for (u = 0; u < n; u++)
			for (v = 0; out[u].known && v < n; v++)
				if (!out[v].known && (p[u * n + v].flows || p[u * n + v].same_host) &&
				    (bu < 0 || link_rank(&p[u * n + v]) > link_rank(&p[bu * n + bv])))
					bu = u, bv = v;
		if (bu < 0)
			break;
		i = out[bv].shares;
		out[bv] = p[bu * n + bv];
		out[bv].shares = i;
		out[bv].known = 1;
		out[bv].against = bu;
		out[bv].offset_ns += out[bu].offset_ns;
		out[bv].lo_ns += out[bu].offset_ns;
		out[bv].hi_ns += out[bu].offset_ns;
	}
	free(p);
	return err;
}

static void shift(__u64 *t, __s64 ns)
{
	if (*t)
		*t = ns < 0 && (__u64)-ns > *t ? 0 : (__u64)((__s64)*t + ns);
}

static void shift_top(struct rt_rep_top *t, __s64 ns)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		shift(&t->m[i].time_ns, ns);
}

void rt_rep_shift(struct rt_rep_run *run, __s64 ns)
{
	struct rt_rep *r = &run->agg;
	size_t i;

	shift(&r->first_ns, ns);
	shift(&r->last_ns, ns);
	shift(&r->first.time_ns, ns);
	shift_top(&r->ce_peaks, ns);
	shift_top(&r->pfc_peaks, ns);
	for (i = 0; i < r->nports; i++)
		shift(&r->ports[i].peak_t, ns);
	for (i = 0; i < r->npeps; i++) {
		shift(&r->peps[i].start_ns, ns);
		shift(&r->peps[i].first_ns, ns);
		shift(&r->peps[i].end_ns, ns);
	}
	for (i = 0; i < r->n; i++) {
		shift(&r->flows[i]->first_wall, ns);
		shift(&r->flows[i]->last_wall, ns);
	}
	for (i = 0; i < run->flog.n; i++) {
		shift(&run->flog.f[i].start_ns, ns);
		shift(&run->flog.f[i].end_ns, ns);
		shift(&run->flog.f[i].opened_ns, ns);
	}
	rt_rep_probes_shift(&run->probes, ns);
}
