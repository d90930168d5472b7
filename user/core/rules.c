// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules: how an operator reads RoCE congestion numbers, as plain
 * functions of (the engine's previous state, this interval's delta), given
 * to the engine (findings.c) as a table (rt_rules, at the end). Each calls
 * rt_findings_match() for the subjects that match this interval, which
 * names them after the rule's row; the engine opens, updates and closes
 * findings. Thresholds are the rows of RT_THRESHOLDS (findings.h), read as
 * F->cfg (--threshold NAME=VALUE).
 *
 * A flow's priority is its outer 802.1Q PCP when tagged, else DSCP / 8 (the
 * usual DSCP-to-priority map of RDMA NICs trusting DSCP: 26 -> 3, 48 -> 6).
 * A pause counted on an interface (either direction, or by the NIC's
 * rx/tx_prioN_pause counters) pauses the data flows of that priority there.
 * Only flows carrying data count as victims or congested: packets that are
 * not CNPs, ACKs or NAKs. A priority paused all interval long carries no
 * packet at all, so the flows of a paused priority are those of the snapshot
 * seen since RECENT_INTERVALS intervals before the pauses began (the engine
 * keeps when each priority's run of paused intervals started); a flow without
 * a delta row did not move (deltas may hold only the flows that changed). A
 * flow whose counters carry no time (the NIC's per-QP counters) is recent
 * when its data moved in this interval.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "derive.h"
#include "doc_findings.h"
#include "findings.h"
#include "fmt.h"
#include "rules_int.h"
#include "rules_probe.h"

#define RECENT_INTERVALS 3

static __u64 data_pkts(const struct rt_flow_val *v)
{
	return rt_data_pkts(v);
}

static __u8 flow_prio(const struct rt_flow *f)
{
	return rt_flow_prio(f);
}

static struct pause *pause_get(struct rt_rule_ctx *c, const char *ifname, __u8 dir, __u8 prio)
{
	size_t i;

	for (i = 0; i < c->np; i++)
		if (c->p[i].dir == dir && c->p[i].prio == prio && !strcmp(c->p[i].ifname, ifname))
			return &c->p[i];
	if (c->np == MAX_PAUSE)
		return NULL;
	memset(&c->p[c->np], 0, sizeof(c->p[0]));
	snprintf(c->p[c->np].ifname, IF_NAMESIZE, "%s", ifname);
	c->p[c->np].dir = dir;
	c->p[c->np].prio = prio;
	return &c->p[c->np++];
}

/* "rx_prio3_pause" -> dir ingress, prio 3, kind 0; "..._pause_duration" -> kind 1. */
static int ethtool_pause(const char *name, __u8 *dir, __u8 *prio, int *kind)
{
	int n = 0;
	unsigned int p;

	if (!strncmp(name, "rx_prio", 7))
		*dir = RT_DIR_INGRESS;
	else if (!strncmp(name, "tx_prio", 7))
		*dir = RT_DIR_EGRESS;
	else
		return 0;
	if (sscanf(name + 7, "%1u_pause%n", &p, &n) != 1 || !n || p > 7)
		return 0;
	*prio = (__u8)p;
	if (!name[7 + n])
		*kind = 0;
	else if (!strcmp(name + 7 + n, "_duration"))
		*kind = 1;
	else
		return 0;
	return 1;
}

static void collect_pauses(struct rt_rule_ctx *c)
{
	const struct rt_delta *d = c->d;
	size_t i;
	int p;

	for (i = 0; i < d->nifs; i++) {
		const struct rt_ifdir *x = d->ifs[i].s;
		const struct rt_if_val *v = &d->ifs[i].d;
		const char *ifn = rt_snapshot_ifname(c->cur, x->k.ifindex);

		for (p = 0; p < RT_NPRIO; p++) {
			struct pause *q;

			if (!rt_paused_any(v, (unsigned int)p))
				continue;
			q = pause_get(c, ifn, x->k.dir, (__u8)p);
			if (!q)
				return;
			q->frames += v->pfc_frames[p];
			q->xoff += v->pfc_frames[p] - (v->pfc_xon[p] < v->pfc_frames[p] ? v->pfc_xon[p] : v->pfc_frames[p]);
			q->quanta += v->pfc_quanta[p];
			q->secs += rt_paused_secs(c->cur, x, v, (unsigned int)p, d->secs, c->F->cfg.speed_mbps);
			q->est |= x->paused_est;
		}
	}
	for (i = 0; i < d->nports; i++) {
		const struct rt_port_ctr *pc = d->ports[i].c;
		__u8 dir, prio;
		struct pause *q;
		int kind;

		if (pc->scope != RT_SCOPE_ETHTOOL || !d->ports[i].d || !pc->netdev[0] ||
		    !ethtool_pause(pc->name, &dir, &prio, &kind))
			continue;
		q = pause_get(c, pc->netdev, dir, prio);
		if (!q)
			return;
		q->nic = 1;
		if (kind == 0) {
			q->frames += d->ports[i].d;
			q->xoff += d->ports[i].d;
		} else {
			q->secs += d->ports[i].d / 1e6;	/* mlx5 counts microseconds */
		}
	}
}

/* When the pauses of a priority on an interface began (flows' clock). */
static __u64 paused_since(const struct rt_rule_ctx *c, const char *ifname, __u8 prio)
{
	size_t i;

	for (i = 0; i < c->F->neps; i++)
		if (c->F->eps[i].prio == prio && !strcmp(c->F->eps[i].ifname, ifname))
			return c->F->eps[i].since_mono;
	return c->cur->mono_ns;
}

/* Keep the runs of paused intervals: a priority paused now continues or
 * starts one; one not paused now ends. 0 or -ENOMEM. */
static int track_episodes(struct rt_rule_ctx *c)
{
	struct rt_findings *F = c->F;
	__u64 start = c->cur->mono_ns - (__u64)(c->d->secs * 1e9 < (double)c->cur->mono_ns ? c->d->secs * 1e9 : 0);
	size_t i, j;

	for (j = 0; j < F->neps; j++)
		F->eps[j].seen = 0;
	for (i = 0; i < c->np; i++) {
		if (!c->p[i].xoff)
			continue;
		for (j = 0; j < F->neps; j++)
			if (F->eps[j].prio == c->p[i].prio && !strcmp(F->eps[j].ifname, c->p[i].ifname))
				break;
		if (j == F->neps) {
			if (rt_grow_for((void **)&F->eps, &F->epcap, F->neps + 1, sizeof(*F->eps)))
				return -ENOMEM;
			memset(&F->eps[j], 0, sizeof(F->eps[j]));
			snprintf(F->eps[j].ifname, IF_NAMESIZE, "%s", c->p[i].ifname);
			F->eps[j].prio = c->p[i].prio;
			F->eps[j].since_mono = start;
			F->neps++;
		}
		F->eps[j].seen = 1;
	}
	for (j = 0; j < F->neps;) {
		if (!F->eps[j].seen)
			F->eps[j] = F->eps[--F->neps];
		else
			j++;
	}
	return 0;
}

/* A job and the ranks of it seen (the first 16) among some flows, and
 * their data packets (where the caller counts them). */
struct job_ranks {
	const struct rt_job *job;
	__s32 ranks[16];
	size_t nranks;
	__u64 pkts;
};

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

/* The jobs of a priority's flows (the first JOBSET_MAX), for an episode's evidence. */
#define JOBSET_MAX 4
struct job_set {
	struct job_ranks j[JOBSET_MAX];
	size_t n;
	int more;		/* a job past JOBSET_MAX */
};

static void job_set_add(struct job_set *s, const struct rt_job *j)
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
static const char *job_set_text(struct job_set *s, const char *pre, char *buf, size_t len)
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

/* A data flow of the snapshot seen since a few intervals before `since`. */
static int recent_data_flow(const struct rt_rule_ctx *c, const struct rt_flow *f, __u64 since)
{
	__u64 recent = (__u64)(RECENT_INTERVALS * c->d->secs * 1e9);

	if (!data_pkts(&f->v))
		return 0;
	if (!f->v.last_ns) {	/* the NIC's per-QP counters carry no time: moved in this interval */
		const struct rt_flow_val *v = c->dv && f >= c->cur->flows && f < c->cur->flows + c->cur->nflows ?
					      c->dv[f - c->cur->flows] : NULL;

		return v && data_pkts(v);
	}
	return f->v.last_ns + recent >= since;
}

/* Data flows of a priority on an interface: packets, ECN-capable ones, CE;
 * in this interval, and (total) the flows' packets since they started. */
struct prio_flows {
	__u64 flows, pkts, ect, ce, ce_flows, total_ect;
};

/* jobs (or NULL): the jobs of those flows and their ranks. */
static void prio_flows(const struct rt_rule_ctx *c, const char *ifname, __u8 prio, struct prio_flows *out,
		       struct job_set *jobs)
{
	const struct rt_snapshot *cur = c->cur;
	__u64 since = paused_since(c, ifname, prio);
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < cur->nflows; i++) {
		const struct rt_flow *f = &cur->flows[i];
		const struct rt_flow_val *v = c->dv[i];

		if (flow_prio(f) != prio || !recent_data_flow(c, f, since) ||
		    strcmp(rt_snapshot_ifname(cur, f->k.ifindex), ifname))
			continue;
		out->flows++;
		job_set_add(jobs, rt_snapshot_job(cur, f));
		out->total_ect += f->v.ecn[RT_ECN_ECT0] + f->v.ecn[RT_ECN_ECT1] + f->v.ecn[RT_ECN_CE];
		if (!v)
			continue;
		out->pkts += data_pkts(v);
		out->ect += v->ecn[RT_ECN_ECT0] + v->ecn[RT_ECN_ECT1] + v->ecn[RT_ECN_CE];
		out->ce += v->ecn[RT_ECN_CE];
		out->ce_flows += v->ecn[RT_ECN_CE] > 0;
	}
}

static void prio_subject(struct rt_subject *s, const struct pause *q, int with_dir)
{
	memset(s, 0, sizeof(*s));
	s->has = RT_SUBJ_IFNAME | RT_SUBJ_PRIO | (with_dir ? RT_SUBJ_DIR : 0);
	snprintf(s->ifname, sizeof(s->ifname), "%s", q->ifname);
	s->prio = q->prio;
	s->dir = with_dir ? q->dir : 0;
}

static void flow_subject(struct rt_subject *s, const struct rt_rule_ctx *c, const struct rt_flow *f)
{
	memset(s, 0, sizeof(*s));
	s->has = RT_SUBJ_IFNAME | RT_SUBJ_DIR | RT_SUBJ_SRC | RT_SUBJ_DST | RT_SUBJ_DQPN;
	snprintf(s->ifname, sizeof(s->ifname), "%s", rt_snapshot_ifname(c->cur, f->k.ifindex));
	s->dir = f->k.dir;
	s->family = f->k.family;
	memcpy(s->src, f->k.src, 16);
	memcpy(s->dst, f->k.dst, 16);
	s->dqpn = f->k.dqpn;
}

/* The flow behind a finding that just matched (open, not pending): kept
 * with it for the view's jump and the filters (the running rule's finding
 * about s). */
static void involve_subject(struct rt_rule_ctx *c, const struct rt_subject *s, const struct rt_flow *f, int paused)
{
	struct rt_finding *x = rt_findings_get(c->F, c->F->rule, s);

	if (x)
		rt_finding_add_flow(x, c->cur, f, paused);
}

static void counter_subject(struct rt_subject *s, const struct rt_port_ctr *pc)
{
	memset(s, 0, sizeof(*s));
	s->has = RT_SUBJ_COUNTER;
	if (pc->dev[0]) {
		s->has |= RT_SUBJ_DEVICE | RT_SUBJ_PORT;
		snprintf(s->device, sizeof(s->device), "%s", pc->dev);
		s->port = pc->port;
	} else {
		s->has |= RT_SUBJ_DEVICE;
		snprintf(s->device, sizeof(s->device), "%s", pc->netdev);
	}
	snprintf(s->counter, sizeof(s->counter), "%s", pc->name);
}

/* Flows sampled by sFlow carry estimates: the evidence says so. */
#define RT_FLOW_NAME	300	/* a flow's name in a finding, its job included */

/* " (job slurm:4711.0 rank 3)": the job and rank of a flow's owner, "" when not known. */
static const char *flow_job(const struct rt_snapshot *s, const struct rt_flow *f, char *buf, size_t len)
{
	const struct rt_job *j = rt_snapshot_job(s, f);
	char lab[RT_JOB_NAME_LEN + RT_JOB_STEP_LEN + 16], rk[24] = "";

	buf[0] = '\0';
	if (!j || j->kind == RT_JOB_NONE)
		return buf;
	if (j->rank >= 0)
		snprintf(rk, sizeof(rk), " rank %d", j->rank);
	/* a job's name comes from a cgroup: made printable */
	snprintf(buf, len, " (job %.96s%s)", rt_fmt_safe(rt_job_label(j, lab, sizeof(lab)), lab, sizeof(lab)), rk);
	return buf;
}

/* A flow as findings name it, with its owner's job and rank when known
 * ("... QP 17 (job slurm:4711.0 rank 3)"). */
static const char *flow_name(const struct rt_snapshot *s, const struct rt_flow *f, char *buf, size_t len)
{
	char a[RT_ADDR_STRLEN], b[RT_ADDR_STRLEN];
	size_t n;

	snprintf(buf, len, "%s -> %s QP %u%s", rt_fmt_addr(f->k.family, f->k.src, a, sizeof(a)),
		 rt_fmt_addr(f->k.family, f->k.dst, b, sizeof(b)), f->k.dqpn,
		 f->k.ifindex >= RT_SFLOW_IFBASE ? " (sFlow estimates)" : "");
	n = strlen(buf);
	flow_job(s, f, buf + n, len - n);
	return buf;
}

/* ---- pfc-storm: a priority paused more than a share of the time, for
 * several intervals; or the NIC's pause-storm counters moving ---- */
static int rule_pfc_storm(struct rt_rule_ctx *c)
{
	struct rt_findings *F = c->F;
	size_t i;
	int err = 0;

	for (i = 0; i < c->np && c->d->secs > 0; i++) {
		const struct pause *q = &c->p[i];
		double share = q->secs / c->d->secs;
		struct job_set js = { .n = 0 };
		struct prio_flows pf;
		struct rt_subject s;
		char pn[8], jt[256];

		if (share < F->cfg.pfc_share || !q->xoff)
			continue;
		prio_flows(c, q->ifname, q->prio, &pf, &js);	/* the jobs of the flows it pauses */
		prio_subject(&s, q, 1);
		rt_prio_name(q->prio, pn, sizeof(pn));
		err |= rt_findings_match(F, RT_SEV_CRITICAL, &s, F->cfg.pfc_intervals,
			share > 1 ? 1 : share, RT_UNIT_SHARE,
			q->dir == RT_DIR_EGRESS ?
			"This host sends the pauses: it cannot drain what it receives (slow application, PCIe, receive buffers); check out_of_buffer and rx_discards_phy here and the switch's PFC watchdog." :
			"The peer pauses this host: find who cannot drain beyond the switch port (its pfc-storm and loss findings) and check the switch's PFC watchdog.",
			"priority %s on %s (%s) paused %.0f%% of %s%s: %llu pause frames (%llu XON)%s, %s paused%s",
			pn, q->ifname, q->dir == RT_DIR_EGRESS ? "sent by this host" : "received",
			100 * (share > 1 ? 1 : share), RT_DUR(c->d->secs),
			job_set_text(&js, "its flows: ", jt, sizeof(jt)), (unsigned long long)q->frames,
			(unsigned long long)(q->frames - q->xoff),
			q->nic ? " counted by the NIC" : "", RT_DUR(q->secs),
			q->nic ? "" : q->est ? " (estimated from quanta at the link speed: an old recording)" :
			" (the union of the pauses its frames asked)");
	}
	for (i = 0; i < c->d->nports; i++) {
		const struct rt_port_ctr *pc = c->d->ports[i].c;
		struct rt_subject s;

		if (!c->d->ports[i].d || strncmp(pc->name, "tx_pause_storm_", 15))
			continue;
		counter_subject(&s, pc);
		err |= rt_findings_match(F, RT_SEV_CRITICAL, &s, 1, (double)c->d->ports[i].d, "pause-storm events",
			"The NIC's pause-storm watchdog fired: the host stopped draining and kept sending pauses; check the application, PCIe and out_of_buffer.",
			"%s on %s moved by %llu in %s (%s)", pc->name, pc->netdev[0] ? pc->netdev : pc->dev,
			(unsigned long long)c->d->ports[i].d, RT_DUR(c->d->secs), strstr(pc->name, "error") ?
			"the NIC sent pauses until its timeout and stopped sending them: packets may have been dropped" :
			"the NIC has been sending pauses for a long time");
	}
	return err;
}

/* ---- pause-without-ecn and victim: pauses on a priority whose flows carry
 * no CE; each such flow is a head-of-line victim ---- */
static int rule_pause_without_ecn(struct rt_rule_ctx *c)
{
	struct rt_findings *F = c->F;
	size_t i, j;
	int err = 0;

	for (i = 0; i < c->np; i++) {
		const struct pause *q = &c->p[i];
		struct job_set js = { .n = 0 };
		struct prio_flows pf;
		struct rt_subject s;
		int dup = 0;
		char pn[8], jt[256];

		if (!q->xoff || q->prio == RT_PRIO_GLOBAL)
			continue;
		/* One finding per interface and priority, whichever direction paused. */
		for (j = 0; j < i; j++)
			if (c->p[j].xoff && c->p[j].prio == q->prio && !strcmp(c->p[j].ifname, q->ifname))
				dup = 1;
		if (dup)
			continue;
		prio_flows(c, q->ifname, q->prio, &pf, &js);
		/* no evidence without data packets in the interval that carried no CE */
		if (!pf.flows || !pf.pkts || pf.ce)
			continue;
		prio_subject(&s, q, 0);
		rt_prio_name(q->prio, pn, sizeof(pn));
		err |= rt_findings_match(F, RT_SEV_WARNING, &s, F->cfg.pwe_intervals,
			(double)q->xoff, "pause frames",
			pf.total_ect ? "ECN marks too late: set the switch's ECN (WRED) marking threshold for this priority below its PFC xoff threshold." :
				       "ECN is off: these packets are not ECN-capable; enable ECN (DCQCN) on the NICs and marking on the switch for this priority.",
			"priority %s on %s: %llu pause frames while its %llu RoCE flows%s carried %llu data packets (%llu ECN-capable) and not one CE mark",
			pn, q->ifname, (unsigned long long)q->xoff, (unsigned long long)pf.flows,
			job_set_text(&js, "", jt, sizeof(jt)),
			(unsigned long long)pf.pkts, (unsigned long long)pf.ect);
	}
	return err;
}

static int rule_victim(struct rt_rule_ctx *c)
{
	struct rt_findings *F = c->F;
	const struct rt_snapshot *cur = c->cur;
	size_t i, j;
	int err = 0;

	for (i = 0; i < cur->nflows && c->np; i++) {
		const struct rt_flow *f = &cur->flows[i];
		const struct rt_flow_val *v = c->dv[i];
		__u64 dp = v ? data_pkts(v) : 0, xoff = 0;
		const char *ifn;
		__u8 prio;
		double paused = 0;
		struct rt_subject s;
		char fn[RT_FLOW_NAME], pn[8];

		/* A flow that carried enough data to matter, lately, and no CE now. */
		if (data_pkts(&f->v) < F->cfg.victim_min_pkts || (v && v->ecn[RT_ECN_CE]))
			continue;
		ifn = rt_snapshot_ifname(cur, f->k.ifindex);
		prio = flow_prio(f);
		if (!recent_data_flow(c, f, paused_since(c, ifn, prio)))
			continue;
		for (j = 0; j < c->np; j++)
			if (c->p[j].prio == prio && !strcmp(c->p[j].ifname, ifn)) {
				xoff += c->p[j].xoff;
				if (c->p[j].secs > paused)
					paused = c->p[j].secs;
			}
		if (!xoff)
			continue;
		flow_subject(&s, c, f);
		s.has |= RT_SUBJ_PRIO;
		s.prio = prio;
		rt_prio_name(prio, pn, sizeof(pn));
		err |= rt_findings_match(F, RT_SEV_WARNING, &s, 1, (double)xoff, "pause frames",
			"Head-of-line blocking: this flow is slowed by someone else's congestion on its priority; find the culprit (pfc-storm, congestion findings on the priority) or move the traffic to another priority.",
			"%s on %s priority %s: %llu data packets, not one CE mark, while the priority was paused by %llu pause frames (%s paused of %s)",
			flow_name(c->cur, f, fn, sizeof(fn)), ifn, pn, (unsigned long long)dp, (unsigned long long)xoff,
			RT_DUR(paused), RT_DUR(c->d->secs));
		involve_subject(c, &s, f, 1);
	}
	return err;
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

static int rule_congestion(struct rt_rule_ctx *c)
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
		flow_subject(&s, c, f);
		err |= rt_findings_match(F, RT_SEV_WARNING, &s, 1, share, RT_UNIT_SHARE,
			"The queue this flow crosses is marking: DCQCN slows its sender; if it persists, look for an incast or a slow receiver, and at rp_cnp_handled on the sender.",
			"%s: CE on %llu of %llu ECN-capable packets (%.1f%%) in %s",
			flow_name(c->cur, f, fn, sizeof(fn)), (unsigned long long)v->ecn[RT_ECN_CE],
			(unsigned long long)(v->ecn[RT_ECN_ECT0] + v->ecn[RT_ECN_ECT1] + v->ecn[RT_ECN_CE]),
			100 * share, RT_DUR(d->secs));
		involve_subject(c, &s, f, 0);
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

static int rule_incast(struct rt_rule_ctx *c)
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
			involve_subject(c, &s, g[j].fl[k], 0);
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
		involve_subject(c, &s, &cur->flows[r[i].idx], 0);
	return err;
}

static int rule_job_throttled(struct rt_rule_ctx *c)
{
	const struct rt_snapshot *cur = c->cur;
	struct jt_flow *r;
	long n = jt_collect(c, &r);
	size_t i, j, m = 0;
	int err = 0;

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

/* ---- NIC counters that name a rule ---- */
static int counter_is(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return 1;
	return 0;
}

static int rule_counters(struct rt_rule_ctx *c, enum rt_sev sev, const char *const *names,
			 __u64 min, const char *next, const char *what)
{
	const struct rt_delta *d = c->d;
	size_t i;
	int err = 0;

	for (i = 0; i < d->nports; i++) {
		const struct rt_port_ctr *pc = d->ports[i].c;
		struct rt_subject s;

		if (d->ports[i].d < min || !counter_is(pc->name, names))
			continue;
		counter_subject(&s, pc);
		err |= rt_findings_match(c->F, sev, &s, 1, (double)d->ports[i].d, "counts", next,
			"%s on %s%s%.0u moved by %llu in %s (%s)", pc->name, pc->dev[0] ? pc->dev : pc->netdev,
			pc->dev[0] ? " port " : "", pc->dev[0] ? pc->port : 0,
			(unsigned long long)d->ports[i].d, RT_DUR(d->secs), what);
	}
	return err;
}

/*
 * A counter of each flow at or over min, then the NIC counters that say the
 * same thing: the shape of loss and receiver-not-ready. The evidence reads
 * "FLOW: N <count_what> in S s (<why>)".
 */
struct flow_ctr_rule {
	size_t off;			/* the counter: offsetof(struct rt_flow_val, ...) */
	const char *const *names;	/* the NIC's counters of the same meaning */
	const char *next;
	const char *count_what, *why;	/* the flow's evidence */
	const char *ctr_what;		/* the NIC counter's evidence */
	int rnr_episode;		/* loss: skip a pair with RNR NAKs; rnr: count its sequence NAKs */
};

/*
 * The flows of this interval that carry sequence or RNR NAKs (few: a
 * responder's ACK flows), for telling an RNR episode from loss: rxe answers
 * a receive-not-ready with a PSN sequence NAK as well as the RNR NAK, on the
 * same ACK flow or another QP of the same host pair.
 */
struct naks {
	const struct rt_flow_delta **e;
	size_t n;
};

static int naks_collect(const struct rt_rule_ctx *c, struct naks *k)
{
	const struct rt_delta *d = c->d;

	k->n = 0;
	k->e = NULL;
	for (size_t i = 0; i < d->nflows; i++) {
		const struct rt_flow_val *v = &d->flows[i].d;

		if (!v->nak_seq && !v->rnr_nak)
			continue;
		if (!k->e && !(k->e = malloc(d->nflows * sizeof(*k->e))))
			return -ENOMEM;
		k->e[k->n++] = &d->flows[i];
	}
	return 0;
}

static int same_pair(const struct rt_flow_key *a, const struct rt_flow_key *b)
{
	return a->ifindex == b->ifindex && a->dir == b->dir && a->family == b->family &&
	       a->origin == b->origin && !memcmp(a->src, b->src, 16) && !memcmp(a->dst, b->dst, 16);
}

/* This interval's sequence and RNR NAKs on f's host pair (interface, direction). */
static void pair_naks(const struct naks *k, const struct rt_flow *f, __u64 *seq, __u64 *rnr)
{
	*seq = *rnr = 0;
	for (size_t i = 0; i < k->n; i++)
		if (same_pair(&k->e[i]->f->k, &f->k)) {
			*seq += k->e[i]->d.nak_seq;
			*rnr += k->e[i]->d.rnr_nak;
		}
}

static int rule_flow_ctr(struct rt_rule_ctx *c, const struct flow_ctr_rule *r, __u64 min)
{
	const struct rt_delta *d = c->d;
	struct naks k = { 0 };
	size_t i;
	int err = 0;

	if (r->rnr_episode && naks_collect(c, &k))
		return -ENOMEM;
	for (i = 0; i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		__u64 n, seq = 0, rnr = 0;
		struct rt_subject s;
		char fn[RT_FLOW_NAME], with[160] = "";

		memcpy(&n, (const char *)&d->flows[i].d + r->off, sizeof(n));
		if (n < min)
			continue;
		if (r->rnr_episode)
			pair_naks(&k, f, &seq, &rnr);
		if (r->rnr_episode && r->off == offsetof(struct rt_flow_val, nak_seq) && rnr)
			continue;	/* part of an RNR episode: receiver-not-ready says it */
		if (r->rnr_episode && r->off == offsetof(struct rt_flow_val, rnr_nak) && seq)
			snprintf(with, sizeof(with), "; with them %llu sequence NAKs on the host pair, "
				 "counted as part of the RNR episode, not as loss", (unsigned long long)seq);
		flow_subject(&s, c, f);
		err |= rt_findings_match(c->F, RT_SEV_WARNING, &s, 1, (double)n, r->count_what, r->next,
			"%s: %llu %s in %s (%s%s)", flow_name(c->cur, f, fn, sizeof(fn)), (unsigned long long)n,
			r->count_what, RT_DUR(d->secs), r->why, with);
		involve_subject(c, &s, f, 0);
	}
	free(k.e);
	return err | rule_counters(c, RT_SEV_WARNING, r->names, min, r->next, r->ctr_what);
}

/* ---- loss: sequence NAKs on the wire (not those of an RNR episode on the
 * same host pair), or the NIC's loss counters ---- */
static int rule_loss(struct rt_rule_ctx *c)
{
	static const char *const names[] = { "out_of_sequence", "packet_seq_err", "implied_nak_seq_err",
					     "local_ack_timeout_err", NULL };
	static const struct flow_ctr_rule r = {
		.off = offsetof(struct rt_flow_val, nak_seq),
		.names = names,
		.next = "Packets are lost between sender and receiver: look for drops at the switch (buffer overflow, PFC off on this priority) and link errors; retransmissions cost the collective far more than the lost packets.",
		.count_what = "NAKs for PSN sequence errors",
		.why = "the responder saw gaps; the requester retransmits",
		.ctr_what = "packets lost or timed out",
		.rnr_episode = 1,
	};

	return rule_flow_ctr(c, &r, c->F->cfg.nak_min);
}

/* ---- receiver-not-ready: RNR NAKs, or rnr_nak_retry_err/out_of_buffer ---- */
static int rule_rnr(struct rt_rule_ctx *c)
{
	static const char *const names[] = { "rnr_nak_retry_err", "out_of_buffer", NULL };
	/* same shape as the loss rule above: the rules' table entries, each its own counter and words */
	static const struct flow_ctr_rule r = {
		.off = offsetof(struct rt_flow_val, rnr_nak),
		.names = names,
		.next = "The receiving application does not post receive buffers fast enough: not the network. Check the receiver's process (its CPU, its receive queue depth).",
		.count_what = "RNR NAKs",
		.why = "the responder had no receive buffer posted",
		.ctr_what = "no receive buffer posted",
		.rnr_episode = 1,
	};

	return rule_flow_ctr(c, &r, c->F->cfg.rnr_min);
}

/*
 * ---- ecn-without-cnp: CE-marked data comes in, and the host sends no CNP
 * back to its sender in the same interval, while other packets (ACKs) do go
 * back on that pair, so the way out is seen. The notification point (the
 * receiving NIC) is off for the priority (mlx5: ecn/roce_np/enable/PRIO) or
 * does not exist (rxe). Also the NIC's own np_ecn_marked_roce_packets moving
 * with np_cnp_sent still. ----
 */
static int rev_cmp(const void *a, const void *b)
{
	const struct rt_flow_key *x = &(*(const struct rt_flow_delta *const *)a)->f->k;
	const struct rt_flow_key *y = &(*(const struct rt_flow_delta *const *)b)->f->k;

	/* ifindex, family, origin, src, dst: as in struct rt_flow_key, without dir */
	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	if (x->family != y->family)
		return (int)x->family - (int)y->family;
	if (x->origin != y->origin)
		return (int)x->origin - (int)y->origin;
	if (memcmp(x->src, y->src, 16))
		return memcmp(x->src, y->src, 16);
	return memcmp(x->dst, y->dst, 16);
}

static const char ecn_no_cnp_next[] =
	"Enable the notification point for the flow's priority: on mlx5 echo 1 > /sys/class/net/IF/ecn/roce_np/enable/PRIO; rxe (Soft-RoCE) has none, so ECN never slows its senders.";

static int rule_ecn_without_cnp_ctrs(struct rt_rule_ctx *c)
{
	const struct rt_delta *d = c->d;
	int err = 0;

	for (size_t i = 0; i < d->nports; i++) {
		const struct rt_port_ctr *pc = d->ports[i].c;
		struct rt_subject s;
		int sent = -1;

		if (strcmp(pc->name, "np_ecn_marked_roce_packets") || d->ports[i].d < c->F->cfg.ce_min)
			continue;
		for (size_t j = 0; j < d->nports; j++) {
			const struct rt_port_ctr *q = d->ports[j].c;

			if (!strcmp(q->name, "np_cnp_sent") && q->port == pc->port && !strcmp(q->dev, pc->dev))
				sent = d->ports[j].d ? 1 : 0;
		}
		if (sent)
			continue;	/* CNPs go out, or np_cnp_sent is not there to say */
		counter_subject(&s, pc);
		err |= rt_findings_match(c->F, RT_SEV_WARNING, &s, 1, (double)d->ports[i].d,
			"CE-marked packets", ecn_no_cnp_next,
			"ECN marks arrive but no CNPs go back: the notification point is off or not supported "
			"(%s port %u: np_ecn_marked_roce_packets +%llu, np_cnp_sent +0, in %s)",
			pc->dev, pc->port, (unsigned long long)d->ports[i].d, RT_DUR(d->secs));
	}
	return err;
}

static int rule_ecn_without_cnp(struct rt_rule_ctx *c)
{
	const struct rt_delta *d = c->d;
	const struct rt_flow_delta **out = NULL;
	size_t nout = 0, i;
	int err = 0, any = 0;

	for (i = 0; i < d->nflows && !any; i++)
		any = d->flows[i].f->k.dir == RT_DIR_INGRESS && d->flows[i].d.ecn[RT_ECN_CE] >= c->F->cfg.ce_min;
	if (any) {
		/* the packets going out, by interface and addresses */
		if (!(out = malloc(d->nflows * sizeof(*out))))
			return -ENOMEM;
		for (i = 0; i < d->nflows; i++)
			if (d->flows[i].f->k.dir == RT_DIR_EGRESS && d->flows[i].d.pkts)
				out[nout++] = &d->flows[i];
		qsort(out, nout, sizeof(*out), rev_cmp);
	}
	for (i = 0; any && i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		const struct rt_flow_val *v = &d->flows[i].d;
		struct rt_flow_delta rk;
		struct rt_flow rf;
		const struct rt_flow_delta *key = &rk, **at;
		__u64 cnp = 0, back = 0;
		struct rt_subject s;
		char jt[RT_FLOW_NAME];

		if (f->k.dir != RT_DIR_INGRESS || v->ecn[RT_ECN_CE] < c->F->cfg.ce_min || !data_pkts(v))
			continue;
		/* the reverse pair: from the flow's destination back to its source */
		memset(&rf, 0, sizeof(rf));
		rf.k = f->k;
		memcpy(rf.k.src, f->k.dst, 16);
		memcpy(rf.k.dst, f->k.src, 16);
		rk.f = &rf;
		at = bsearch(&key, out, nout, sizeof(*out), rev_cmp);
		if (!at)
			continue;	/* nothing seen going back: the way out is not watched */
		while (at > out && !rev_cmp(at - 1, &key))
			at--;
		for (; at < out + nout && !rev_cmp(at, &key); at++) {
			cnp += (*at)->d.cnp;
			back += (*at)->d.pkts;
		}
		if (cnp)
			continue;
		flow_subject(&s, c, f);
		err |= rt_findings_match(c->F, RT_SEV_WARNING, &s, 1, (double)v->ecn[RT_ECN_CE],
			"CE-marked packets", ecn_no_cnp_next,
			"ECN marks arrive for this flow%s but no CNPs go back: the notification point is off or "
			"not supported (CE in: %llu, CNPs out: 0, other packets out: %llu, in %s)",
			flow_job(c->cur, f, jt, sizeof(jt)), (unsigned long long)v->ecn[RT_ECN_CE],
			(unsigned long long)back, RT_DUR(d->secs));
	}
	free(out);
	return err | rule_ecn_without_cnp_ctrs(c);
}

/* ---- cnp-ignored: rp_cnp_ignored moving; the evidence sets it against
 * rp_cnp_handled of the same port (the CNPs that did slow the sender) ---- */
static int rule_cnp_ignored(struct rt_rule_ctx *c)
{
	const struct rt_delta *d = c->d;
	int err = 0;

	for (size_t i = 0; i < d->nports; i++) {
		const struct rt_port_ctr *pc = d->ports[i].c;
		char handled[64] = "";
		struct rt_subject s;

		if (d->ports[i].d < c->F->cfg.cnp_ignored_min || strcmp(pc->name, "rp_cnp_ignored"))
			continue;
		for (size_t j = 0; j < d->nports; j++) {
			const struct rt_port_ctr *q = d->ports[j].c;

			if (!strcmp(q->name, "rp_cnp_handled") && q->port == pc->port && q->scope == pc->scope &&
			    !strcmp(q->dev, pc->dev) && !strcmp(q->netdev, pc->netdev))
				snprintf(handled, sizeof(handled), "; rp_cnp_handled +%llu",
					 (unsigned long long)d->ports[j].d);
		}
		counter_subject(&s, pc);
		err |= rt_findings_match(c->F, RT_SEV_WARNING, &s, 1, (double)d->ports[i].d, "CNPs ignored",
			"Congestion control is off at this sender: CNPs arrive but do not slow it. Enable DCQCN (roce_np/roce_rp in the NIC's ECN settings) for the priority.",
			"rp_cnp_ignored on %s%s%.0u moved by %llu in %s (CNPs received but not acted on%s)",
			pc->dev[0] ? pc->dev : pc->netdev, pc->dev[0] ? " port " : "", pc->dev[0] ? pc->port : 0,
			(unsigned long long)d->ports[i].d, RT_DUR(d->secs), handled);
	}
	return err;
}

/* ---- switch-drops and deep-queue: what sFlow agents say of their ports ---- */
static void swport_subject(struct rt_subject *s, const char *agent, __u32 port)
{
	memset(s, 0, sizeof(*s));
	s->has = RT_SUBJ_AGENT | RT_SUBJ_PORT;
	snprintf(s->agent, sizeof(s->agent), "%s", agent);
	s->port = port;
}

static int rule_switch_drops(struct rt_rule_ctx *c)
{
	struct rt_findings *F = c->F;
	const struct rt_delta *d = c->d;
	size_t i;
	int err = 0;

	for (i = 0; i < d->nswdrops; i++) {
		const struct rt_swdrop *p = d->swdrops[i].p;
		struct rt_subject s;

		if (d->swdrops[i].drops < F->cfg.drops_min)
			continue;
		swport_subject(&s, p->agent, p->port);
		s.has |= RT_SUBJ_COUNTER;
		snprintf(s.counter, sizeof(s.counter), "drop reason %u", p->reason);
		err |= rt_findings_match(F, RT_SEV_WARNING, &s, 1, (double)d->swdrops[i].drops, "drop notifications",
			"The switch drops packets on this port: RoCE needs a lossless class; check PFC on the priority, the buffer and the drop reason.",
			"switch %s port %u: %llu dropped-packet notifications (sFlow reason %u) in %s",
			p->agent, p->port, (unsigned long long)d->swdrops[i].drops, p->reason, RT_DUR(d->secs));
	}
	return err;
}

static int rule_deep_queue(struct rt_rule_ctx *c)
{
	struct rt_findings *F = c->F;
	const struct rt_delta *d = c->d;
	size_t i;
	int err = 0;

	for (i = 0; i < d->nswports; i++) {
		const struct rt_swport *p = d->swports[i].p;
		const struct rt_swport_ctr *v = &d->swports[i].d;
		struct rt_subject s;

		if (!v->depth_n || (double)p->max_depth < F->cfg.queue_bytes)
			continue;
		swport_subject(&s, p->agent, p->port);
		s.has |= RT_SUBJ_DIR;
		s.dir = p->dir;
		err |= rt_findings_match(F, RT_SEV_WARNING, &s, 1, (double)p->max_depth, "bytes of queue",
			"A queue builds up at this switch port: its ECN marking threshold may sit too high, or too many senders converge on it (incast).",
			"switch %s port %u (%s): queue up to %u bytes, %.0f on average over %llu sFlow samples in %s",
			p->agent, p->port, rt_dir_name(p->dir), p->max_depth, (double)v->depth_sum / (double)v->depth_n,
			(unsigned long long)v->depth_n, RT_DUR(d->secs));
	}
	return err;
}

/* ---- doctor: what `rocetop doctor` judges wrong in the host's configuration
 * (user/nic/nic_doctor.c), as long as its last run says so: a failed check
 * is a warning, a doubtful one information ---- */
static int rule_doctor(struct rt_rule_ctx *c)
{
	const struct rt_doc_findings *doc = c->F->doc;
	size_t i;
	int err = 0;

	for (i = 0; doc && i < doc->n && i < RT_DOC_MAX_FINDINGS; i++) {
		const struct rt_doc_finding *x = &doc->f[i];
		struct rt_subject s;

		if (x->severity < RT_DOC_WARN)
			continue;
		memset(&s, 0, sizeof(s));
		s.has = RT_SUBJ_COUNTER;
		if (x->netdev[0]) {
			s.has |= RT_SUBJ_IFNAME;
			snprintf(s.ifname, sizeof(s.ifname), "%s", x->netdev);
		}
		snprintf(s.counter, sizeof(s.counter), "doctor:%s", x->id);
		err |= rt_findings_match(c->F, x->severity == RT_DOC_FAIL ? RT_SEV_WARNING : RT_SEV_INFO,
			&s, 1, (double)x->severity, "(the doctor's level: 1 doubtful, 2 failed)",
			"Run rocetop doctor for the host's whole configuration and what to change.",
			"%.160s (%.90s)", x->sentence, x->evidence);
	}
	return err;
}

/*
 * The interval's shared state: the pauses of every interface, direction and
 * priority, and each flow's delta by row for the rules that walk every flow
 * of a paused priority (prio_flows, rule_victim): only when something is
 * paused, so an interval without pauses costs what changed in it, not an
 * array of every row (100k flows: 800 KB zeroed per interval). Then the
 * pause episodes under way. NULL: out of memory.
 */
static struct rt_rule_ctx *rules_begin(struct rt_findings *F, const struct rt_snapshot *cur,
				       const struct rt_delta *d)
{
	struct rt_rule_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->F = F;
	c->cur = cur;
	c->d = d;
	collect_pauses(c);
	if (c->np) {
		c->dv = calloc(cur->nflows ? cur->nflows : 1, sizeof(*c->dv));
		if (!c->dv) {
			free(c);
			return NULL;
		}
		for (size_t i = 0; i < d->nflows; i++) {
			const struct rt_flow *f = d->flows[i].f;

			if (f >= cur->flows && f < cur->flows + cur->nflows)
				c->dv[f - cur->flows] = &d->flows[i].d;
		}
	}
	c->err = track_episodes(c) ? -ENOMEM : 0;
	return c;
}

/* Add a flow to an episode's involved list, once. */
static void involve_flow(struct rt_finding *f, const struct rt_snapshot *cur, const struct rt_flow *fl)
{
	char fn[RT_FLOW_NAME], one[RT_FLOW_NAME + 40];
	size_t n = strlen(f->involved);

	flow_name(cur, fl, fn, sizeof(fn));
	if (fl->pid)
		snprintf(one, sizeof(one), "%s (%.16s pid %u)", fn, fl->comm, fl->pid);
	else
		snprintf(one, sizeof(one), "%s", fn);
	rt_fmt_safe(one, one, sizeof(one));	/* a process name */
	rt_finding_add_flow(f, cur, fl, 1);
	if (strstr(f->involved, one))
		return;
	if (n + strlen(one) + 3 > sizeof(f->involved)) {
		f->involved_more = 1;
		return;
	}
	snprintf(f->involved + n, sizeof(f->involved) - n, "%s%s", n ? "; " : "", one);
}

/*
 * The data flows of the priorities whose episodes matched this interval (as
 * prio_flows counts them: data lately on the interface and priority), added
 * to each episode's list: a walk of the flows for each such episode, at most
 * one per interface, direction and priority paused.
 */
static void involve(struct rt_rule_ctx *c)
{
	const struct rt_snapshot *cur = c->cur;
	struct rt_findings *F = c->F;
	size_t i, j;

	for (i = 0; i < F->n; i++) {
		struct rt_finding *f = &F->tab[i];
		__u64 since;

		if (!f->open || !f->seen || (f->subj.has & (RT_SUBJ_SRC | RT_SUBJ_COUNTER)) ||
		    !(f->subj.has & RT_SUBJ_PRIO))
			continue;
		since = paused_since(c, f->subj.ifname, f->subj.prio);
		for (j = 0; j < cur->nflows; j++) {
			const struct rt_flow *fl = &cur->flows[j];

			if (flow_prio(fl) == f->subj.prio && recent_data_flow(c, fl, since) &&
			    !strcmp(rt_snapshot_ifname(cur, fl->k.ifindex), f->subj.ifname))
				involve_flow(f, cur, fl);
		}
	}
}

static int rules_end(struct rt_rule_ctx *c)
{
	int err = c->err;

	if (c->np)
		involve(c);
	rt_probe_evidence(c->F, c->cur);	/* the probes to a finding's peer (rules_probe.c) */
	free(c->dv);
	free(c);
	return err;
}

/* The table the engine runs, in order; severity and when are what README.md's
 * rules table says of each (rocetop --dump-rules writes it: make options). */
static const struct rt_rule rules[] = {
	{ "pfc-storm", rule_pfc_storm, "critical",
	  "a priority paused at least 20% of the time (the union of its pauses, or the NIC's `rx/tx_prioN_pause_duration`) for 2 intervals, or the NIC's `tx_pause_storm_*` counters moving" },
	{ "pause-without-ecn", rule_pause_without_ecn, "warning",
	  "pauses on a priority whose RoCE flows carry no CE mark, 2 intervals in a row: ECN marks above the PFC threshold, or ECN is off" },
	{ "victim", rule_victim, "warning",
	  "a data flow on a paused priority with no CE of its own (head-of-line blocking)" },
	{ "congestion", rule_congestion, "warning",
	  "a flow with at least 10 CE marks and 5% of its ECN-capable packets CE" },
	{ "incast", rule_incast, "warning",
	  "3 or more sources congested towards one destination at once" },
	{ "job-throttled", rule_job_throttled, "warning",
	  "2 or more data flows of one job congested or slowed by CNPs at once (subject `job=slurm:4711`)" },
	{ "loss", rule_loss, "warning",
	  "NAKs for PSN sequence errors, or `out_of_sequence`, `packet_seq_err`, `implied_nak_seq_err`, `local_ack_timeout_err` moving; not the sequence NAKs of a host pair with RNR NAKs in the same interval (rxe sends both for an RNR)" },
	{ "receiver-not-ready", rule_rnr, "warning",
	  "RNR NAKs, or `rnr_nak_retry_err`, `out_of_buffer` moving: the application, not the network" },
	{ "cnp-ignored", rule_cnp_ignored, "warning",
	  "`rp_cnp_ignored` moving: congestion control off at the sender" },
	{ "ecn-without-cnp", rule_ecn_without_cnp, "warning",
	  "CE-marked data comes in but no CNP goes back to its sender while ACKs do (or `np_ecn_marked_roce_packets` moving, `np_cnp_sent` still): the notification point is off or not supported" },
	{ "switch-drops", rule_switch_drops, "warning",
	  "sFlow drop notifications at a switch port" },
	{ "deep-queue", rule_deep_queue, "warning",
	  "an sFlow queue depth of 1 MB or more at a switch port" },
	{ "doctor", rule_doctor, "warning / info",
	  "a check of `rocetop doctor` fails (warning) or is doubtful (info) on this host's configuration, while its last run (every 10 intervals, live with RDMA ports) says so" },
	{ "link-flap", rt_rule_link_flap, "warning",
	  "`carrier_changes` (a flap counts 2) or `link_down_events_phy` moving by flap-min (1): cable, transceiver or the switch port" },
	{ "fec-degrading", rt_rule_fec_degrading, "warning",
	  "the pre-FEC bit error rate (`rx_corrected_bits_phy`, else ethtool's `fec_stat_corrected_bits`, over the bits received) at fec-ber (1e-6) or more: FEC still corrects, its margin shrinks" },
	{ "link-errors", rt_rule_link_errors, "critical",
	  "errors FEC did not correct (`rx_pcs_symbol_err_phy`, `rx_symbol_err_phy`, `fec_stat_uncorrectable_blocks`) moving by link-err-min (1): packets are lost on the link" },
	{ "buffer-discard", rt_rule_buffer_discard, "critical / warning",
	  "`rx_prioN_buf_discard` moving by discard-min (1): critical on a lossless priority, a warning on a lossy one; `rx_discards_phy` moving (a warning)" },
	{ "slow-receiver", rt_rule_slow_receiver, "critical",
	  "this host sends PFC on a priority while it receives none there, and `rx_out_of_buffer`, `out_of_buffer` or the `outbound_pci_*` stall counters move in the same interval: the host, not the fabric, is the pause source" },
	{ "pcie", rt_rule_pcie, "warning",
	  "`rx/tx_pci_signal_integrity` (the PCIe link retrains), `outbound_pci_stalled_rd/wr_events` or `outbound_pci_buffer_overflow` moving by pcie-min (1)" },
	RT_PROBE_RULE_ROWS
};

const struct rt_ruleset rt_rules = {
	.begin = rules_begin,
	.end = rules_end,
	.rules = rules,
	.n = sizeof(rules) / sizeof(rules[0]),
};
