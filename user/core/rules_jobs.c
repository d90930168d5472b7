// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules of rules.c's table that blame a destination or a job: congestion
 * (a flow's CE share), incast (several sources congested towards one
 * destination, with the jobs and ranks behind them) and job-throttled
 * (several flows of one job congested or slowed by CNPs at once); and the
 * job sets the pause rules of rules.c name in their evidence. Each rule is a
 * function of the interval's state (rules_int.h) calling rt_findings_match().
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "derive.h"
#include "findings.h"
#include "fmt.h"
#include "rules_int.h"
/* j's row of the first max of a[0..*n), added if new; NULL past max. */
static struct job_ranks *job_ranks_of(struct job_ranks *a, size_t *n, size_t max, const struct rt_job *j)
{
	size_t k;

	for (k = 0; k < *n && !rt_job_same(a[k].job, j); k++)
		;
	if (k == max)
		return NULL;
	if (k == *n) {
		memset(&a[k], 0, sizeof(a[k]));
		a[(*n)++].job = j;
	}
	return &a[k];
}

static void job_rank_add(struct job_ranks *r, __s32 rank)
{
	size_t k;

	for (k = 0; k < r->nranks && r->ranks[k] != rank; k++)
		;
	if (k == r->nranks && rank >= 0 && r->nranks < sizeof(r->ranks) / sizeof(r->ranks[0]))
		r->ranks[r->nranks++] = rank;
}

#define RANKS_LEN 96

/* r's ranks ("0-7") and its job's key ("slurm:4711", made printable). */
static void job_ranks_parts(struct job_ranks *r, char ranks[RANKS_LEN], char key[RT_JOB_KEY_LEN])
{
	rt_fmt_ranks(r->ranks, r->nranks, ranks, RANKS_LEN);
	rt_job_group_key(r->job, RT_GROUP_JOB, 0, "", key, RT_JOB_KEY_LEN);
	rt_fmt_safe(key, key, RT_JOB_KEY_LEN);
}

/* "job slurm:4711 ranks 0-7" ("rank 3" for one, no ranks when none are known). */
static const char *job_ranks_text(struct job_ranks *r, char *buf, size_t len)
{
	char ranks[RANKS_LEN], key[RT_JOB_KEY_LEN];

	job_ranks_parts(r, ranks, key);
	snprintf(buf, len, "job %.80s%s%s", key, r->nranks ? (r->nranks > 1 ? " ranks " : " rank ") : "", ranks);
	return buf;
}

void rt_rules_job_set_add(struct job_set *s, const struct rt_job *j)
{
	struct job_ranks *r;

	if (!s || !j || j->kind == RT_JOB_NONE)
		return;
	if (!(r = job_ranks_of(s->j, &s->n, JOBSET_MAX, j))) {
		s->more = 1;
		return;
	}
	job_rank_add(r, j->rank);
}

static int text_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* " (PRE job slurm:4711 ranks 8-15, job k8s:ns/pod rank 1)": the jobs in
 * the order of their names; "" without any. */
const char *rt_rules_job_set_text(struct job_set *s, const char *pre, char *buf, size_t len)
{
	char one[JOBSET_MAX][200];
	size_t i, n;

	buf[0] = '\0';
	if (!s->n)
		return buf;
	for (i = 0; i < s->n; i++)
		job_ranks_text(&s->j[i], one[i], sizeof(one[i]));
	qsort(one, s->n, sizeof(one[0]), text_cmp);
	n = (size_t)snprintf(buf, len, " (%s", pre);
	for (i = 0; i < s->n; i++)
		n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s", i ? ", " : "", one[i]);
	snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s)", s->more ? ", ..." : "");
	return buf;
}

/* ---- congestion and incast: CE share of a flow's ECN-capable packets ---- */
static int congested(const struct rt_find_cfg *cfg, const struct rt_flow_val *v, double *share)
{
	__u64 ect = v->ecn[RT_ECN_ECT0] + v->ecn[RT_ECN_ECT1] + v->ecn[RT_ECN_CE];
	__u64 ce = v->ecn[RT_ECN_CE];

	if (!ect || !data_pkts(v) || ce < cfg->ce_min)
		return 0;
	*share = (double)ce / (double)ect;
	return *share >= cfg->ce_share;
}

int rt_rule_congestion(struct rt_rule_ctx *c)
{
	struct rt_findings *F = c->F;
	const struct rt_delta *d = c->d;
	size_t i;
	int err = 0;

	for (i = 0; i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		const struct rt_flow_val *v = &d->flows[i].d;
		struct rt_subject s;
		double share;
		char fn[RT_FLOW_NAME];

		if (!congested(&F->cfg, v, &share))
			continue;
		rt_rules_flow_subject(&s, c, f);
		err |= rt_findings_match(F, RT_SEV_WARNING, &s, 1, share, RT_UNIT_SHARE,
			"The queue this flow crosses is marking: DCQCN slows its sender; if it persists, look for an incast or a slow receiver, and at rp_cnp_handled on the sender.",
			"%s: CE on %llu of %llu ECN-capable packets (%.1f%%) in %s",
			rt_rules_flow_name(c->cur, f, fn, sizeof(fn)), (unsigned long long)v->ecn[RT_ECN_CE],
			(unsigned long long)(v->ecn[RT_ECN_ECT0] + v->ecn[RT_ECN_ECT1] + v->ecn[RT_ECN_CE]),
			100 * share, RT_DUR(d->secs));
		rt_rules_involve_subject(c, &s, f, 0);
	}
	return err;
}

#define GROUP_JOBS 8	/* jobs kept per incast group (the evidence names 4) */

struct dst_group {
	__u8 family;
	__u8 dst[16];
	__u8 src[8][16];	/* distinct sources, the first 8 named */
	double share[8];
	const struct rt_flow *fl[8];
	__u32 nsrc;
	/* the flows' owners' jobs (on a receiver: the receiving ranks'), their
	 * data packets, and the group's */
	struct job_ranks jr[GROUP_JOBS];
	__u64 pkts;
	size_t njobs;
	int jobs_mixed;		/* a flow of no job, or past GROUP_JOBS */
	int egress;		/* a flow going out: a sender's view */
};

/* The owner's job of flow f into the group, its ranks and data packets. */
static void group_job(struct dst_group *x, const struct rt_flow *f, const struct rt_job *j, __u64 pkts)
{
	struct job_ranks *r;

	x->pkts += pkts;
	x->egress |= f->k.dir == RT_DIR_EGRESS;
	if (!j || j->kind == RT_JOB_NONE || !(r = job_ranks_of(x->jr, &x->njobs, GROUP_JOBS, j))) {
		x->jobs_mixed = 1;
		return;
	}
	r->pkts += pkts;
	job_rank_add(r, j->rank);
}

/* "rank 3 of job slurm:4712", "ranks 0-7 of job ...", "job ..." without ranks. */
static const char *onto_text(struct job_ranks *r, char *buf, size_t len)
{
	char ranks[RANKS_LEN], key[RT_JOB_KEY_LEN];

	job_ranks_parts(r, ranks, key);
	if (r->nranks)
		snprintf(buf, len, "%s %s of job %.80s", r->nranks > 1 ? "ranks" : "rank", ranks, key);
	else
		snprintf(buf, len, "job %.80s", key);
	return buf;
}

/*
 * Whom the group's flows are of. A sender's view (a flow going out): " (job
 * slurm:4711 ranks 0-7)" when they are one job's, else "". A receiver's (all
 * coming in, their owners the receiving ranks): " onto rank 3 of job
 * slurm:4712" for one job; for several, each with its ranks and its share of
 * the group's data packets, largest first, at most 4: " onto job slurm:4712
 * ranks 4-7 (92%), job slurm:4711 rank 1 (8%)".
 */
static const char *group_job_text(struct dst_group *x, char *buf, size_t len)
{
	char one[200];
	size_t i, k, n, idx[GROUP_JOBS];

	buf[0] = '\0';
	if (!x->njobs || (x->egress && (x->jobs_mixed || x->njobs > 1)))
		return buf;
	if (x->egress) {
		snprintf(buf, len, " (%.190s)", job_ranks_text(&x->jr[0], one, sizeof(one)));
		return buf;
	}
	if (x->njobs == 1 && !x->jobs_mixed) {
		snprintf(buf, len, " onto %.180s", onto_text(&x->jr[0], one, sizeof(one)));
		return buf;
	}
	for (i = 0; i < x->njobs; i++) {	/* largest share first, ties as seen */
		for (k = i; k > 0 && x->jr[idx[k - 1]].pkts < x->jr[i].pkts; k--)
			idx[k] = idx[k - 1];
		idx[k] = i;
	}
	n = (size_t)snprintf(buf, len, " onto");
	for (i = 0; i < x->njobs && i < 4; i++)
		n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s %s (%.0f%%)",
				      i ? "," : "", job_ranks_text(&x->jr[idx[i]], one, sizeof(one)),
				      rt_share_pct((double)x->jr[idx[i]].pkts, (double)x->pkts));
	if (x->njobs > 4)
		snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, ", ...");
	return buf;
}

int rt_rule_incast(struct rt_rule_ctx *c)
{
	struct rt_findings *F = c->F;
	const struct rt_delta *d = c->d;
	struct dst_group *g = NULL;
	size_t ng = 0, cap = 0, i, j, k;
	int err = 0;

	for (i = 0; i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		double share;
		struct dst_group *x = NULL;
		int known = 0;

		if (!congested(&F->cfg, &d->flows[i].d, &share))
			continue;
		for (j = 0; j < ng; j++)
			if (g[j].family == f->k.family && !memcmp(g[j].dst, f->k.dst, 16))
				x = &g[j];
		if (!x) {
			if (rt_grow_for((void **)&g, &cap, ng + 1, sizeof(*g))) {
				free(g);
				return -ENOMEM;
			}
			x = &g[ng++];
			memset(x, 0, sizeof(*x));
			x->family = f->k.family;
			memcpy(x->dst, f->k.dst, 16);
		}
		group_job(x, f, rt_snapshot_job(c->cur, f), data_pkts(&d->flows[i].d));
		for (k = 0; k < x->nsrc && k < 8; k++)
			if (!memcmp(x->src[k], f->k.src, 16))
				known = 1;
		/* Beyond 8 sources, a repeated one may count twice: the finding
		 * is already certain by then. */
		if (known)
			continue;
		if (x->nsrc < 8) {
			memcpy(x->src[x->nsrc], f->k.src, 16);
			x->share[x->nsrc] = share;
			x->fl[x->nsrc] = f;
		}
		x->nsrc++;
	}
	for (j = 0; j < ng; j++) {
		struct rt_subject s;
		char a[RT_ADDR_STRLEN], list[200], jt[400];
		size_t n = 0;

		if (g[j].nsrc < (__u32)F->cfg.incast_sources)
			continue;
		for (k = 0; k < g[j].nsrc && k < 8; k++)
			n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0, "%s%s (%.0f%%)",
					      k ? ", " : "", rt_fmt_addr(g[j].family, g[j].src[k], a, sizeof(a)),
					      100 * g[j].share[k]);
		memset(&s, 0, sizeof(s));
		s.has = RT_SUBJ_DST;
		s.family = g[j].family;
		memcpy(s.dst, g[j].dst, 16);
		err |= rt_findings_match(F, RT_SEV_WARNING, &s, 1, (double)g[j].nsrc, "sources",
			"Many senders converge on one receiver's port: spread or pace the collective, and check that DCQCN converges (rp_cnp_handled on the senders).",
			"%u sources CE-marked towards %s at once%s: %s%s", g[j].nsrc,
			rt_fmt_addr(g[j].family, g[j].dst, a, sizeof(a)), group_job_text(&g[j], jt, sizeof(jt)),
			list, g[j].nsrc > 8 ? ", ..." : "");
		for (k = 0; k < g[j].nsrc && k < 8; k++)
			rt_rules_involve_subject(c, &s, g[j].fl[k], 0);
	}
	free(g);
	return err;
}

/* ---- job-throttled: several flows of one job congested or slowed by CNPs
 * at once ---- */
struct jt_flow {
	size_t idx;		/* the data flow's, in cur->flows */
	__u64 data, ce, cnp;	/* its data packets and CE, the CNPs tied to it */
	int cong;		/* congested() */
	char key[RT_JOB_KEY_LEN];
};

static int jt_by_idx(const void *a, const void *b)
{
	return RT_SPACESHIP(((const struct jt_flow *)a)->idx, ((const struct jt_flow *)b)->idx);
}

static int jt_by_key(const void *a, const void *b)
{
	const struct jt_flow *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : RT_SPACESHIP(x->idx, y->idx);
}

/* "1,234" */
static const char *fmt_count(__u64 v, char *buf, size_t len)
{
	char d[32];
	size_t n = (size_t)snprintf(d, sizeof(d), "%llu", (unsigned long long)v), j = 0;

	for (size_t i = 0; i < n && j + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[j++] = ',';
		buf[j++] = d[i];
	}
	buf[j] = '\0';
	return buf;
}

/* Row n of r (room grown for it), zeroed but for its key; NULL without memory. */
static struct jt_flow *jt_row(struct jt_flow **r, size_t *n, size_t *cap, size_t idx)
{
	struct jt_flow *x;

	if (rt_grow_for((void **)r, cap, *n + 1, sizeof(**r)))
		return NULL;
	x = &(*r)[(*n)++];
	memset(x, 0, offsetof(struct jt_flow, key) + 1);
	x->idx = idx;
	return x;
}

static int jt_tied(const struct jt_flow *r, size_t n, size_t idx)
{
	struct jt_flow k = { .idx = idx };

	return n && bsearch(&k, r, n, sizeof(*r), jt_by_idx) != NULL;
}

/* The interval's data flows with CE or CNPs tied to them (their data packets
 * and CE, the CNPs), one row each, in *out: how many, or -ENOMEM. */
static long jt_collect(const struct rt_rule_ctx *c, struct jt_flow **out)
{
	const struct rt_snapshot *cur = c->cur;
	const struct rt_delta *d = c->d;
	struct jt_flow *r = NULL, *x;
	size_t n = 0, nt, cap = 0, i, m;

	for (i = 0; i < d->nflows; i++) {	/* the CNPs, by the flow they throttle */
		const struct rt_flow *f = d->flows[i].f;

		if (!d->flows[i].d.cnp || f->throttles < 0 || (size_t)f->throttles >= cur->nflows)
			continue;
		if (!(x = jt_row(&r, &n, &cap, (size_t)f->throttles)))
			goto nomem;
		x->cnp = d->flows[i].d.cnp;
	}
	if (n > 1)
		qsort(r, n, sizeof(*r), jt_by_idx);
	nt = n;
	for (i = 0; i < d->nflows; i++) {	/* the data flows with CE or CNPs */
		const struct rt_flow *f = d->flows[i].f;
		const struct rt_flow_val *v = &d->flows[i].d;
		size_t idx = (size_t)(f - cur->flows);
		double share;

		if (f < cur->flows || idx >= cur->nflows || !data_pkts(v) ||
		    (!v->ecn[RT_ECN_CE] && !jt_tied(r, nt, idx)))
			continue;
		if (!(x = jt_row(&r, &n, &cap, idx)))
			goto nomem;
		x->data = data_pkts(v), x->ce = v->ecn[RT_ECN_CE];
		x->cong = congested(&c->F->cfg, v, &share);
	}
	if (n > 1)
		qsort(r, n, sizeof(*r), jt_by_idx);
	for (i = 0, m = 0; i < n; i++) {	/* one row per data flow */
		if (m && r[m - 1].idx == r[i].idx) {
			r[m - 1].data += r[i].data, r[m - 1].ce += r[i].ce, r[m - 1].cnp += r[i].cnp;
			r[m - 1].cong |= r[i].cong;
		} else {
			r[m++] = r[i];
		}
	}
	*out = r;
	return (long)m;
nomem:
	free(r);
	return -ENOMEM;
}

static const char jt_next[] =
	"Several of this job's flows are slowed at once: its VICTIM and CULPRIT shares (the jobs view, --group-by job, the report's jobs table) say whether others' traffic fills the queues it crosses (separate them by priority, placement or time) or its own does (spread or pace its collectives); the incast and congestion findings say where.";

/* One job's flows r[0..n): a finding when job-flows of them qualify. */
static int jt_match(struct rt_rule_ctx *c, const struct jt_flow *r, size_t n)
{
	const struct rt_snapshot *cur = c->cur;
	struct job_ranks jr = { .job = rt_snapshot_job(cur, &cur->flows[r[0].idx]) };
	__u64 data = 0, ce = 0, cnp = 0;
	struct rt_subject s;
	char jt[200], b[3][32];
	size_t i;
	int err;

	if (n < (size_t)c->F->cfg.job_flows)
		return 0;
	for (i = 0; i < n; i++) {
		const struct rt_job *j = rt_snapshot_job(cur, &cur->flows[r[i].idx]);

		data += r[i].data, ce += r[i].ce, cnp += r[i].cnp;
		job_rank_add(&jr, j ? j->rank : -1);
	}
	memset(&s, 0, sizeof(s));
	s.has = RT_SUBJ_JOB;
	snprintf(s.job, sizeof(s.job), "%s", r[0].key);
	err = rt_findings_match(c->F, RT_SEV_WARNING, &s, 1, (double)n, "flows", jt_next,
		"%s throttled: %zu flows, %s CNPs, CE on %s of %s packets (%.1f%%)",
		job_ranks_text(&jr, jt, sizeof(jt)), n, fmt_count(cnp, b[0], sizeof(b[0])),
		fmt_count(ce, b[1], sizeof(b[1])), fmt_count(data, b[2], sizeof(b[2])),
		rt_share_pct((double)ce, (double)data));
	for (i = 0; i < n; i++)
		rt_rules_involve_subject(c, &s, &cur->flows[r[i].idx], 0);
	return err;
}

int rt_rule_job_throttled(struct rt_rule_ctx *c)
{
	const struct rt_snapshot *cur = c->cur;
	struct jt_flow *r;
	size_t i, j, m = 0;
	int err = 0;
	long n;

	/* No jobs (a capture, a host without a QP table): no flow has one
	 * (rt_snapshot_job), so none qualifies; the flows are not gathered. */
	if (!cur->njobs)
		return 0;
	n = jt_collect(c, &r);
	if (n < 0)
		return (int)n;
	for (i = 0; i < (size_t)n; i++) {	/* the flows that qualify, of a job */
		const struct rt_flow *f = &cur->flows[r[i].idx];
		const struct rt_job *jb = rt_snapshot_job(cur, f);

		if (!jb || jb->kind == RT_JOB_NONE || !data_pkts(&f->v) ||
		    !(r[i].cong || r[i].cnp >= c->F->cfg.ce_min))
			continue;
		r[m] = r[i];
		rt_job_group_key(jb, RT_GROUP_JOB, 0, "", r[m++].key, sizeof(r[0].key));
	}
	if (m > 1)
		qsort(r, m, sizeof(*r), jt_by_key);
	for (i = 0; i < m; i = j) {
		for (j = i + 1; j < m && !strcmp(r[j].key, r[i].key); j++)
			;
		err |= jt_match(c, r + i, j - i);
	}
	free(r);
	return err;
}

