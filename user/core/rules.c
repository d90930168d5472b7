// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules: how an operator reads RoCE congestion numbers, as plain
 * functions of (the engine's previous state, this interval's delta), given
 * to the engine (findings.c) as a table (rt_rules, at the end). This file
 * holds the table, the interval's state every rule reads (rules_begin, the
 * pauses and their episodes; rules_int.h), how findings name a flow, the
 * pause rules (pfc-storm, pause-without-ecn, victim), the sFlow switch and
 * doctor rules, and the end of an interval; the others sit beside it:
 * rules_jobs.c (congestion, incast, job-throttled), rules_flow.c (loss,
 * receiver-not-ready, ecn-without-cnp, cnp-ignored), rules_health.c (the
 * NIC's health counters) and rules_probe.c (the probe mesh). Each calls
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
		rt_rules_job_set_add(jobs, rt_snapshot_job(cur, f));
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

void rt_rules_flow_subject(struct rt_subject *s, const struct rt_rule_ctx *c, const struct rt_flow *f)
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
void rt_rules_involve_subject(struct rt_rule_ctx *c, const struct rt_subject *s, const struct rt_flow *f, int paused)
{
	struct rt_finding *x = rt_findings_get(c->F, c->F->rule, s);

	if (x)
		rt_finding_add_flow(x, c->cur, f, paused);
}

void rt_rules_counter_subject(struct rt_subject *s, const struct rt_port_ctr *pc)
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

/* " (job slurm:4711.0 rank 3)": the job and rank of a flow's owner, "" when not known. */
const char *rt_rules_flow_job(const struct rt_snapshot *s, const struct rt_flow *f, char *buf, size_t len)
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
const char *rt_rules_flow_name(const struct rt_snapshot *s, const struct rt_flow *f, char *buf, size_t len)
{
	char a[RT_ADDR_STRLEN], b[RT_ADDR_STRLEN];
	size_t n;

	snprintf(buf, len, "%s -> %s QP %u%s", rt_fmt_addr(f->k.family, f->k.src, a, sizeof(a)),
		 rt_fmt_addr(f->k.family, f->k.dst, b, sizeof(b)), f->k.dqpn,
		 f->k.ifindex >= RT_SFLOW_IFBASE ? " (sFlow estimates)" : "");
	n = strlen(buf);
	rt_rules_flow_job(s, f, buf + n, len - n);
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
			rt_rules_job_set_text(&js, "its flows: ", jt, sizeof(jt)), (unsigned long long)q->frames,
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
		rt_rules_counter_subject(&s, pc);
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
			rt_rules_job_set_text(&js, "", jt, sizeof(jt)),
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
		rt_rules_flow_subject(&s, c, f);
		s.has |= RT_SUBJ_PRIO;
		s.prio = prio;
		rt_prio_name(prio, pn, sizeof(pn));
		err |= rt_findings_match(F, RT_SEV_WARNING, &s, 1, (double)xoff, "pause frames",
			"Head-of-line blocking: this flow is slowed by someone else's congestion on its priority; find the culprit (pfc-storm, congestion findings on the priority) or move the traffic to another priority.",
			"%s on %s priority %s: %llu data packets, not one CE mark, while the priority was paused by %llu pause frames (%s paused of %s)",
			rt_rules_flow_name(c->cur, f, fn, sizeof(fn)), ifn, pn, (unsigned long long)dp, (unsigned long long)xoff,
			RT_DUR(paused), RT_DUR(c->d->secs));
		rt_rules_involve_subject(c, &s, f, 1);
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
	struct rt_rule_ctx *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	/* p[] is written entry by entry as pauses are found (pause_get): the rest
	 * is zeroed, not the 57 KB of the whole (a calloc of it every interval
	 * was a third of report's time on a file of 1 ms intervals). */
	memset(c, 0, offsetof(struct rt_rule_ctx, p));
	c->np = 0;
	c->err = 0;
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

	rt_rules_flow_name(cur, fl, fn, sizeof(fn));
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
	{ "congestion", rt_rule_congestion, "warning",
	  "a flow with at least 10 CE marks and 5% of its ECN-capable packets CE" },
	{ "incast", rt_rule_incast, "warning",
	  "3 or more sources congested towards one destination at once" },
	{ "job-throttled", rt_rule_job_throttled, "warning",
	  "2 or more data flows of one job congested or slowed by CNPs at once (subject `job=slurm:4711`)" },
	{ "loss", rt_rule_loss, "warning",
	  "NAKs for PSN sequence errors, or `out_of_sequence`, `packet_seq_err`, `implied_nak_seq_err`, `local_ack_timeout_err` moving; not the sequence NAKs of a host pair with RNR NAKs in the same interval (rxe sends both for an RNR)" },
	{ "receiver-not-ready", rt_rule_rnr, "warning",
	  "RNR NAKs, or `rnr_nak_retry_err`, `out_of_buffer` moving: the application, not the network" },
	{ "cnp-ignored", rt_rule_cnp_ignored, "warning",
	  "`rp_cnp_ignored` moving: congestion control off at the sender" },
	{ "ecn-without-cnp", rt_rule_ecn_without_cnp, "warning",
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
