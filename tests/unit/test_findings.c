// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The findings engine and each rule on hand-built deltas: the threshold edge
 * (just below: nothing; at it: a match), opening after the intervals a rule
 * needs, and closing after close_after quiet intervals, with the times.
 */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "nic_doctor.h"
#include "findings.h"
#include "fmt.h"

#define NS 1000000000ULL
#define T0 (1700000000ULL * NS)

/* One interval: a snapshot with the interface eth3 (ifindex 1) and rows
 * appended by the test, and a delta pointing at them. */
struct iv {
	struct rt_snapshot s;
	struct rt_delta d;
	struct rt_flow_delta fd[16];
	struct rt_ifdir_delta id[4];
	struct rt_port_delta pd[8];
};

static void iv_init(struct iv *v, int k)
{
	memset(v, 0, sizeof(*v));
	rt_snapshot_init(&v->s);
	rt_snapshot_add_iface(&v->s, 1, "eth3", "file");
	v->s.time_ns = v->s.mono_ns = T0 + (__u64)k * NS;
	v->d.secs = 1.0;
	v->d.flows = v->fd;
	v->d.ifs = v->id;
	v->d.ports = v->pd;
}

/* A data flow src 10.0.0.S -> 10.0.0.9, QP q, DSCP 26 (priority 3). */
static struct rt_flow_val *iv_flow(struct iv *v, int src, __u32 q, __u64 ect0, __u64 ce)
{
	struct rt_flow *f = rt_snapshot_add_flow(&v->s);
	struct rt_flow_delta *x = &v->fd[v->d.nflows++];

	f->k.ifindex = 1;
	f->k.dir = RT_DIR_INGRESS;
	f->k.family = 4;
	f->k.src[0] = 10; f->k.src[3] = (__u8)src;
	f->k.dst[0] = 10; f->k.dst[3] = 9;
	f->k.dqpn = q;
	f->v.dscp = 26;
	f->v.pcp = RT_PCP_NONE;
	f->throttles = -1;
	x->f = f;
	memset(&x->d, 0, sizeof(x->d));
	x->d.ecn[RT_ECN_ECT0] = ect0;
	x->d.ecn[RT_ECN_CE] = ce;
	x->d.pkts = ect0 + ce;
	/* Totals since the start: this interval's, seen at its end. */
	f->v.ecn[RT_ECN_ECT0] = ect0;
	f->v.ecn[RT_ECN_CE] = ce;
	f->v.pkts = ect0 + ce;
	f->v.last_ns = v->s.mono_ns;
	return &x->d;
}

/* Fix the flow pointers after the snapshot's table may have moved. */
static void iv_fix(struct iv *v)
{
	size_t i;

	for (i = 0; i < v->d.nflows; i++)
		v->fd[i].f = &v->s.flows[i];
	for (i = 0; i < v->d.nifs; i++)
		v->id[i].s = &v->s.ifs[i];
	for (i = 0; i < v->d.nports; i++)
		v->pd[i].c = &v->s.ports[i];
}

static void iv_pfc(struct iv *v, __u8 dir, int prio, __u64 frames, __u64 xon, __u64 quanta)
{
	struct rt_ifdir *x = rt_snapshot_add_ifdir(&v->s);
	struct rt_ifdir_delta *y = &v->id[v->d.nifs++];

	x->k.ifindex = 1;
	x->k.dir = dir;
	y->s = x;
	memset(&y->d, 0, sizeof(y->d));
	y->d.pfc_frames[prio] = frames;
	y->d.pfc_xon[prio] = xon;
	y->d.pfc_quanta[prio] = quanta;
	/* the time the source measured (bpf/pause.h): pauses that did not
	 * overlap, so the quanta at the tests' 100 Gb/s, 5.12 ns each */
	y->d.pfc_paused_ns[prio] = quanta * 512 / 100;
	y->d.mac_ctrl = frames;
}

static void iv_ctr(struct iv *v, const char *name, __u64 delta)
{
	struct rt_port_ctr *c = rt_snapshot_add_port(&v->s);
	struct rt_port_delta *y = &v->pd[v->d.nports++];

	snprintf(c->dev, sizeof(c->dev), "mlx5_0");
	c->port = 1;
	snprintf(c->netdev, sizeof(c->netdev), "eth3");
	snprintf(c->name, sizeof(c->name), "%s", name);
	y->c = c;
	y->d = delta;
}

/* Flow i of v (added by iv_flow) owned by a rank of a job: kind, job, rank. */
static void iv_job(struct iv *v, size_t i, int kind, const char *job, int rank)
{
	struct rt_job *j = rt_snapshot_add_job(&v->s);

	j->kind = (__u8)kind;
	j->rank = rank;
	j->size = j->local_rank = -1;
	snprintf(j->job, sizeof(j->job), "%s", job);
	v->s.flows[i].job = (__u32)v->s.njobs;
}

static int eval(struct rt_findings *F, struct iv *v)
{
	iv_fix(v);
	return rt_findings_eval(F, &v->s, &v->d);
}

static void iv_free(struct iv *v)
{
	rt_snapshot_free(&v->s);
}

static int count_ev(const struct rt_findings *F, int event, const char *rule)
{
	int n = 0;

	for (size_t i = 0; i < F->nev; i++)
		n += F->ev[i].event == event && !strcmp(F->ev[i].f.rule, rule);
	return n;
}

static const struct rt_fev *find_ev(const struct rt_findings *F, int event, const char *rule)
{
	for (size_t i = 0; i < F->nev; i++)
		if (F->ev[i].event == event && !strcmp(F->ev[i].f.rule, rule))
			return &F->ev[i];
	return NULL;
}

/* The subject of rule's (first) opening, as JSON, is want. */
static void check_subject(const struct rt_findings *F, const char *rule, const char *want)
{
	const struct rt_fev *e = find_ev(F, RT_FEV_OPEN, rule);
	char buf[512] = "";

	if (e)
		rt_subject_json(&e->f.subj, buf, sizeof(buf));
	CHECK(e && !strcmp(buf, want), "%s: subject %s", rule, e ? buf : "(not opened)");
}

static struct rt_find_cfg cfg100g(void)
{
	struct rt_find_cfg c;

	rt_find_cfg_defaults(&c);
	c.speed_mbps = 100000;
	return c;
}

/* An engine on cfg100g() and the first interval's data, empty. */
static void start(struct rt_findings *F, struct iv *v)
{
	struct rt_find_cfg c = cfg100g();

	rt_findings_init(F, &c, &rt_rules);
	iv_init(v, 1);
}

static void finish(struct rt_findings *F, struct iv *v)
{
	iv_free(v);
	rt_findings_free(F);
}

/* 20% of 1 s at 100 Gb/s: 0.2 * 1e11 / 512 = 39062500 quanta. */
#define Q20 39062500ULL

/* Interval k, with pauses of priority 3 for quanta in direction dir (none
 * when quanta is 0), evaluated: how many pfc-storm openings it says. */
static int pfc_interval(struct rt_findings *F, int k, __u8 dir, __u64 quanta)
{
	struct iv v;
	int n;

	iv_init(&v, k);
	if (quanta)
		iv_pfc(&v, dir, 3, 600, 0, quanta);
	eval(F, &v);
	n = count_ev(F, RT_FEV_OPEN, "pfc-storm");
	iv_free(&v);
	return n;
}

static void test_pfc_storm(void)
{
	struct rt_find_cfg c = cfg100g();
	struct rt_findings F;
	struct iv v;
	const struct rt_fev *e;
	int k = 1;

	/* Just below the share, for many intervals: nothing. */
	rt_findings_init(&F, &c, &rt_rules);
	for (; k <= 4; k++)
		CHECK_EQ(pfc_interval(&F, k, RT_DIR_INGRESS, Q20 - 1), 0);
	/* At the share: the first interval is pending, the second opens it
	 * with the start of the first. */
	CHECK_EQ(pfc_interval(&F, 5, RT_DIR_INGRESS, Q20), 0);
	pfc_interval(&F, 6, RT_DIR_INGRESS, 2 * Q20);
	e = find_ev(&F, RT_FEV_OPEN, "pfc-storm");
	CHECK(e != NULL, "pfc-storm opens on the second interval at 20%%");
	if (e) {
		CHECK_EQ(e->f.sev, RT_SEV_CRITICAL);
		CHECK_EQ(e->f.start_ns, T0 + 4 * NS);
		CHECK_EQ(e->f.end_ns, T0 + 6 * NS);
		CHECK_EQ(e->f.subj.has, RT_SUBJ_IFNAME | RT_SUBJ_DIR | RT_SUBJ_PRIO);
		CHECK_EQ(e->f.subj.prio, 3);
		CHECK(!strcmp(e->f.subj.ifname, "eth3"), "ifname %s", e->f.subj.ifname);
		CHECK(strstr(e->f.evidence, "paused 40%") != NULL, "evidence: %s", e->f.evidence);
		/* its peak, 2 x Q20 quanta of a 1-s interval: a share, 40.0% */
		CHECK(e->f.peak_unit && !strcmp(e->f.peak_unit, RT_UNIT_SHARE), "unit %s", e->f.peak_unit);
		CHECK(!strcmp(rt_fmt_peak(e->f.peak, e->f.peak_unit, (char[RT_PEAK_STRLEN]){ 0 }, RT_PEAK_STRLEN), "40.0%"),
		      "peak %g", e->f.peak);
	}
	/* Quiet for two intervals (2 s): still open; matching again it is the
	 * same episode (no new open); it closes only after close_after intervals
	 * and close_secs (10 s) without a match, ending at the last match. */
	for (k = 7; k <= 8; k++) {
		pfc_interval(&F, k, 0, 0);
		CHECK_EQ(F.nev, 0);
	}
	CHECK_EQ(pfc_interval(&F, 9, RT_DIR_INGRESS, Q20), 0);
	for (k = 10; k <= 18; k++) {
		pfc_interval(&F, k, 0, 0);
		CHECK_EQ(F.nev, 0);
	}
	pfc_interval(&F, 19, 0, 0);
	e = find_ev(&F, RT_FEV_CLOSE, "pfc-storm");
	CHECK(e != NULL, "pfc-storm closes after 10 quiet seconds");
	if (e)
		CHECK_EQ(e->f.end_ns, T0 + 9 * NS);
	CHECK_EQ(F.per_rule[0].opened, 1);

	/* A gap between two matching intervals starts the count again. */
	pfc_interval(&F, 20, RT_DIR_EGRESS, Q20);
	pfc_interval(&F, 21, 0, 0);
	CHECK_EQ(pfc_interval(&F, 22, RT_DIR_EGRESS, Q20), 0);

	/* The NIC's pause-storm counter opens one at once. */
	iv_init(&v, 12);
	iv_ctr(&v, "tx_pause_storm_warning_events", 1);
	eval(&F, &v);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "pfc-storm"), 1);
	iv_free(&v);
	rt_findings_free(&F);

	/* The NIC's pause duration (mlx5: microseconds) counts as paused time. */
	rt_findings_init(&F, &c, &rt_rules);
	for (k = 1; k <= 2; k++) {
		struct rt_port_ctr *pc;

		iv_init(&v, k);
		iv_ctr(&v, "rx_prio2_pause", 100);
		iv_ctr(&v, "rx_prio2_pause_duration", k == 1 ? 200000 : 199999);
		for (size_t i = 0; i < v.s.nports; i++) {
			pc = &v.s.ports[i];
			pc->scope = RT_SCOPE_ETHTOOL;
			pc->dev[0] = '\0';
		}
		eval(&F, &v);
		iv_free(&v);
	}
	CHECK_EQ(F.n, 0);	/* 199999 us: just below 20% in the second */
	rt_findings_free(&F);
	TEST_END("findings: pfc-storm at 20% of the time for 2 intervals, opens and closes with the right times");
}

/* Pauses on priority 3 for 2 intervals: a victim at once, pause-without-ecn after 2. */
static void pwe_and_victim(const struct rt_find_cfg *c)
{
	struct rt_findings F;
	struct iv v;
	const struct rt_fev *e;

	rt_findings_init(&F, c, &rt_rules);
	/* Pauses on priority 3 (sent by this host), a flow on 3 with no CE and
	 * 10 data packets (the victim minimum), a flow on priority 1 too. */
	for (int k = 1; k <= 2; k++) {
		iv_init(&v, k);
		iv_pfc(&v, RT_DIR_EGRESS, 3, 5, 1, 1000);
		iv_flow(&v, 1, 0x201, 10, 0);
		iv_flow(&v, 2, 0x202, 500, 0);
		v.s.flows[v.s.nflows - 1].v.dscp = 10;
		eval(&F, &v);
		if (k == 1) {
			CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "pause-without-ecn"), 0);
			e = find_ev(&F, RT_FEV_OPEN, "victim");
			CHECK(e != NULL, "a victim at once");
			if (e) {
				CHECK_EQ(e->f.subj.dqpn, 0x201);
				CHECK_EQ(e->f.subj.prio, 3);
				CHECK_EQ(e->f.subj.has, RT_SUBJ_IFNAME | RT_SUBJ_DIR | RT_SUBJ_SRC | RT_SUBJ_DST |
						    RT_SUBJ_DQPN | RT_SUBJ_PRIO);
			}
			CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "victim"), 1);	/* not the priority-1 flow */
		} else {
			e = find_ev(&F, RT_FEV_OPEN, "pause-without-ecn");
			CHECK(e != NULL, "pause-without-ecn after 2 intervals");
			if (e) {
				CHECK_EQ(e->f.subj.has, RT_SUBJ_IFNAME | RT_SUBJ_PRIO);
				CHECK_EQ(e->f.start_ns, T0);
				CHECK(strstr(e->f.evidence, "4 pause frames") != NULL, "%s", e->f.evidence);
			}
		}
		iv_free(&v);
	}
	rt_findings_free(&F);

}

/* A paused flow with no delta row: a victim when it moved lately before the pauses began. */
static void victim_paused_silent(const struct rt_find_cfg *c)
{
	struct rt_findings F;
	struct iv v;
	const struct rt_fev *e;

	/* A flow paused all interval long moves no packet (no delta row): still
	 * a victim when seen within 3 intervals before the pauses began (at 9 s,
	 * the start of the interval); not one idle for longer. */
	rt_findings_init(&F, c, &rt_rules);
	iv_init(&v, 10);
	iv_pfc(&v, RT_DIR_EGRESS, 3, 5, 0, 1000);
	iv_flow(&v, 1, 0x201, 100, 0);
	iv_flow(&v, 2, 0x202, 100, 0);
	v.s.flows[0].v.last_ns = T0 + 6 * NS;		/* 3 s before: recent */
	v.s.flows[1].v.last_ns = T0 + 6 * NS - 1;	/* just older */
	v.d.nflows = 0;
	eval(&F, &v);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "victim"), 1);
	e = find_ev(&F, RT_FEV_OPEN, "victim");
	if (e)
		CHECK_EQ(e->f.subj.dqpn, 0x201);
	iv_free(&v);
	/* The pauses go on: the paused flow stays a victim however long it has
	 * been silent, since it moved when the pauses began. */
	iv_init(&v, 30);
	iv_pfc(&v, RT_DIR_EGRESS, 3, 5, 0, 1000);
	iv_flow(&v, 1, 0x201, 100, 0);
	v.s.flows[0].v.last_ns = T0 + 6 * NS;
	v.d.nflows = 0;
	eval(&F, &v);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "victim") + count_ev(&F, RT_FEV_CLOSE, "victim"), 0);
	CHECK_EQ(F.tab[0].open, 1);
	CHECK_EQ(F.tab[0].end_ns, T0 + 30 * NS);
	iv_free(&v);
	rt_findings_free(&F);

}

/* Neither rule: below the victim minimum with a CE mark, XON only, no data packets. */
static void pwe_victim_not(const struct rt_find_cfg *c)
{
	struct rt_findings F;
	struct iv v;

	/* Below the victim minimum (9 packets), and with a CE mark on the
	 * priority: neither rule. */
	/* same loop as the victim case above: the priority and counts differ */
	rt_findings_init(&F, c, &rt_rules);
	for (int k = 1; k <= 3; k++) {
		iv_init(&v, k);
		iv_pfc(&v, RT_DIR_INGRESS, 3, 5, 0, 1000);
		iv_flow(&v, 1, 0x201, 9, 0);
		iv_flow(&v, 2, 0x202, 99, 1);
		eval(&F, &v);
		iv_free(&v);
	}
	CHECK_EQ(F.n, 0);
	rt_findings_free(&F);
	/* XON only is no pause. */
	rt_findings_init(&F, c, &rt_rules);
	iv_init(&v, 1);
	iv_pfc(&v, RT_DIR_INGRESS, 3, 5, 5, 0);
	iv_flow(&v, 1, 0x201, 100, 0);
	eval(&F, &v);
	CHECK_EQ(F.n, 0);
	iv_free(&v);
	rt_findings_free(&F);
	/* A priority paused for 3 intervals whose only flow, recent (it moved
	 * when the pauses began), carried 0 data packets in them: its sentence
	 * ("carried N data packets ... and not one CE mark") has no evidence, so
	 * no pause-without-ecn (it fired before). */
	rt_findings_init(&F, c, &rt_rules);
	for (int k = 10; k <= 12; k++) {
		iv_init(&v, k);
		iv_pfc(&v, RT_DIR_INGRESS, 3, 5, 0, 1000);
		iv_flow(&v, 1, 0x201, 100, 0);
		v.s.flows[0].v.last_ns = T0 + 9 * NS;
		v.d.nflows = 0;			/* no delta row: 0 packets this interval */
		eval(&F, &v);
		iv_free(&v);
		CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "pause-without-ecn"), 0);
	}
	for (size_t z = 0; z < F.n; z++)
		CHECK(strcmp(F.tab[z].rule, "pause-without-ecn") != 0, "%s", F.tab[z].evidence);
	rt_findings_free(&F);
}

static void test_pause_without_ecn_and_victim(void)
{
	struct rt_find_cfg c = cfg100g();

	pwe_and_victim(&c);
	victim_paused_silent(&c);
	pwe_victim_not(&c);
	TEST_END("findings: pause-without-ecn after 2 intervals, not without data packets; victim at 10 data packets with no CE");
}

static void test_congestion_incast(void)
{
	struct rt_find_cfg c = cfg100g();
	struct rt_findings F;
	struct iv v;
	const struct rt_fev *e;

	rt_findings_init(&F, &c, &rt_rules);
	iv_init(&v, 1);
	iv_flow(&v, 1, 0x201, 190, 10);	/* 10 of 200: 5%, the edge */
	iv_flow(&v, 2, 0x202, 191, 10);	/* 10 of 201: below */
	iv_flow(&v, 3, 0x203, 91, 9);	/* 9%, but 9 < ce-min 10 */
	eval(&F, &v);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "congestion"), 1);
	e = find_ev(&F, RT_FEV_OPEN, "congestion");
	if (e)
		CHECK_EQ(e->f.subj.dqpn, 0x201);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "incast"), 0);
	iv_free(&v);
	/* Three congested sources towards 10.0.0.9: incast (two are not). */
	iv_init(&v, 2);
	iv_flow(&v, 1, 0x201, 100, 20);
	iv_flow(&v, 2, 0x202, 100, 20);
	eval(&F, &v);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "incast"), 0);
	CHECK_EQ(count_ev(&F, RT_FEV_UPDATE, "congestion"), 1);	/* 5% -> 16.7% */
	iv_free(&v);
	iv_init(&v, 3);
	iv_flow(&v, 1, 0x201, 100, 20);
	iv_flow(&v, 2, 0x202, 100, 20);
	iv_flow(&v, 3, 0x203, 100, 20);
	iv_flow(&v, 3, 0x204, 100, 20);	/* the same source again */
	eval(&F, &v);
	e = find_ev(&F, RT_FEV_OPEN, "incast");
	CHECK(e != NULL, "incast of 3 sources");
	if (e) {
		CHECK_EQ(e->f.subj.has, RT_SUBJ_DST);
		CHECK_EQ(e->f.subj.dst[3], 9);
		CHECK(!strncmp(e->f.evidence, "3 sources", 9), "%s", e->f.evidence);
		CHECK_EQ(e->f.start_ns, T0 + 2 * NS);
	}
	iv_free(&v);
	rt_findings_free(&F);
	TEST_END("findings: congestion at 5% CE and 10 marks, incast at 3 sources");
}

static void test_loss_rnr_cnp(void)
{
	struct rt_findings F;
	struct iv v;
	char buf[512];

	start(&F, &v);
	iv_flow(&v, 1, 0x201, 0, 0)->nak_seq = 1;
	iv_flow(&v, 2, 0x202, 0, 0)->nak_other = 5;	/* not a sequence error */
	iv_flow(&v, 3, 0x203, 0, 0)->rnr_nak = 1;
	iv_ctr(&v, "out_of_sequence", 1);
	iv_ctr(&v, "out_of_buffer", 1);
	iv_ctr(&v, "rp_cnp_ignored", 1);
	iv_ctr(&v, "rp_cnp_handled", 100);
	for (size_t i = 0; i < v.d.nflows; i++)
		v.fd[i].d.pkts = v.fd[i].d.nak_seq + v.fd[i].d.nak_other + v.fd[i].d.rnr_nak;
	eval(&F, &v);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "loss"), 2);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "receiver-not-ready"), 2);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "cnp-ignored"), 1);
	CHECK_EQ(F.nev, 5);
	check_subject(&F, "cnp-ignored", "{\"device\":\"mlx5_0\",\"port\":1,\"counter\":\"rp_cnp_ignored\"}");
	for (size_t i = 0; i < F.nev; i++)
		if (F.ev[i].f.subj.has & RT_SUBJ_DQPN) {
			rt_subject_json(&F.ev[i].f.subj, buf, sizeof(buf));
			if (!strcmp(F.ev[i].f.rule, "loss"))
				CHECK(!strcmp(buf, "{\"ifname\":\"eth3\",\"dir\":\"ingress\",\"src\":\"10.0.0.1\",\"dst\":\"10.0.0.9\",\"dqpn\":513}"),
				      "%s", buf);
		}
	finish(&F, &v);
	TEST_END("findings: loss, receiver-not-ready and cnp-ignored at one count, wire and NIC");
}

/* An egress flow 10.0.0.9 -> 10.0.0.D, QP q (the host's ACKs and CNPs back). */
static struct rt_flow_val *iv_back(struct iv *v, int dst, __u32 q, __u64 ack, __u64 cnp)
{
	struct rt_flow_val *d = iv_flow(v, 9, q, 0, 0);
	struct rt_flow *f = &v->s.flows[v->s.nflows - 1];

	f->k.dir = RT_DIR_EGRESS;
	f->k.dst[3] = (__u8)dst;
	d->ack = f->v.ack = ack;
	d->cnp = f->v.cnp = cnp;
	d->pkts = f->v.pkts = ack + cnp;
	return d;
}

/*
 * rxe answers a receive-not-ready with a PSN sequence NAK as well: on the
 * pair 10.0.0.1 -> .9, QP 0x201 carries 3 RNR NAKs and 3 sequence NAKs, QP
 * 0x202 2 sequence NAKs; the pair 10.0.0.2 -> .9 has 1 sequence NAK alone.
 * Loss is the second pair only; receiver-not-ready the first, counting its
 * 3 + 2 sequence NAKs as part of the episode.
 */
static void test_rnr_not_loss(void)
{
	struct rt_findings F;
	struct iv v;
	const struct rt_fev *e;

	start(&F, &v);
	iv_flow(&v, 1, 0x201, 0, 0)->rnr_nak = 3;
	v.fd[0].d.nak_seq = 3;
	iv_flow(&v, 1, 0x202, 0, 0)->nak_seq = 2;
	iv_flow(&v, 2, 0x203, 0, 0)->nak_seq = 1;
	for (size_t i = 0; i < v.d.nflows; i++)
		v.fd[i].d.pkts = v.fd[i].d.nak_seq + v.fd[i].d.rnr_nak;
	eval(&F, &v);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "loss"), 1);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "receiver-not-ready"), 1);
	CHECK_EQ(F.nev, 2);
	check_subject(&F, "loss", "{\"ifname\":\"eth3\",\"dir\":\"ingress\",\"src\":\"10.0.0.2\",\"dst\":\"10.0.0.9\",\"dqpn\":515}");
	e = find_ev(&F, RT_FEV_OPEN, "receiver-not-ready");
	CHECK(e && strstr(e->f.evidence, "3 RNR NAKs") &&
	      strstr(e->f.evidence, "with them 5 sequence NAKs on the host pair, counted as part of the RNR episode"),
	      "evidence: %s", e ? e->f.evidence : "none");
	finish(&F, &v);
	TEST_END("findings: sequence NAKs on a host pair with RNR NAKs are the RNR episode, not loss");
}

/*
 * CE-marked data in, no CNP back: 10.0.0.1 -> .9 QP 0x301 with 50 CE of 140
 * while the host sends 40 ACKs and no CNP back to .1: the finding. .2 -> .9
 * gets 5 CNPs back: none. .3 -> .9 has nothing seen going back (egress not
 * watched): none. The NIC: np_ecn_marked_roce_packets +100 and np_cnp_sent
 * +0 on mlx5_0 port 1: the finding too.
 */
static void test_ecn_without_cnp(void)
{
	struct rt_findings F;
	struct iv v;
	const struct rt_fev *e = NULL;
	int nflow = 0, nctr = 0;

	start(&F, &v);
	iv_flow(&v, 1, 0x301, 90, 50);
	iv_back(&v, 1, 0x401, 40, 0);
	iv_flow(&v, 2, 0x302, 90, 50);
	iv_back(&v, 2, 0x402, 35, 5);
	iv_flow(&v, 3, 0x303, 90, 50);
	iv_ctr(&v, "np_ecn_marked_roce_packets", 100);
	iv_ctr(&v, "np_cnp_sent", 0);
	eval(&F, &v);
	for (size_t i = 0; i < F.nev; i++) {
		if (F.ev[i].event != RT_FEV_OPEN || strcmp(F.ev[i].f.rule, "ecn-without-cnp"))
			continue;
		if (F.ev[i].f.subj.has & RT_SUBJ_DQPN) {
			nflow++;
			e = &F.ev[i];
		} else {
			nctr++;
			CHECK(strstr(F.ev[i].f.evidence, "np_ecn_marked_roce_packets +100, np_cnp_sent +0"),
			      "evidence: %s", F.ev[i].f.evidence);
		}
	}
	CHECK_EQ(nflow, 1);
	CHECK_EQ(nctr, 1);
	check_subject(&F, "ecn-without-cnp",
		      "{\"ifname\":\"eth3\",\"dir\":\"ingress\",\"src\":\"10.0.0.1\",\"dst\":\"10.0.0.9\",\"dqpn\":769}");
	if (e) {
		CHECK(strstr(e->f.evidence, "ECN marks arrive for this flow but no CNPs go back: the notification point is off or not supported") &&
		      strstr(e->f.evidence, "(CE in: 50, CNPs out: 0, other packets out: 40, in 1.00 s)"),
		      "evidence: %s", e->f.evidence);
		CHECK(strstr(e->f.next, "/sys/class/net/IF/ecn/roce_np/enable/PRIO") && strstr(e->f.next, "rxe"),
		      "next: %s", e->f.next);
	}
	finish(&F, &v);

	/* The flow's owner's job and rank, when known, in its evidence. */
	start(&F, &v);
	iv_flow(&v, 1, 0x301, 90, 50);
	iv_back(&v, 1, 0x401, 40, 0);
	iv_job(&v, 0, RT_JOB_SLURM, "4711", 3);
	snprintf(v.s.jobs[0].step, sizeof(v.s.jobs[0].step), "0");
	eval(&F, &v);
	e = find_ev(&F, RT_FEV_OPEN, "ecn-without-cnp");
	CHECK(e && strstr(e->f.evidence, "ECN marks arrive for this flow (job slurm:4711.0 rank 3) but no CNPs go back"),
	      "evidence: %s", e ? e->f.evidence : "none");
	finish(&F, &v);
	TEST_END("findings: ecn-without-cnp when CE comes in and ACKs but no CNP go back, wire and NIC");
}

static void test_switch(void)
{
	struct rt_findings F;
	struct iv v;
	struct rt_swport *p;
	struct rt_swdrop *x;
	struct rt_swport_delta pd[2];
	struct rt_swdrop_delta dd[1];
	const struct rt_fev *e;

	start(&F, &v);
	p = rt_snapshot_add_swport(&v.s);
	snprintf(p->agent, sizeof(p->agent), "10.0.9.1");
	p->port = 7;
	p->dir = RT_DIR_EGRESS;
	p->max_depth = 1000000;			/* the default threshold */
	p = rt_snapshot_add_swport(&v.s);
	snprintf(p->agent, sizeof(p->agent), "10.0.9.1");
	p->port = 8;
	p->max_depth = 999999;			/* just below */
	x = rt_snapshot_add_swdrop(&v.s);
	snprintf(x->agent, sizeof(x->agent), "10.0.9.2");
	x->port = 3;
	x->reason = 1;
	memset(pd, 0, sizeof(pd));
	pd[0].p = &v.s.swports[0];
	pd[0].d.depth_n = 4;
	pd[0].d.depth_sum = 2000000;
	pd[1].p = &v.s.swports[1];
	pd[1].d.depth_n = 4;
	dd[0].p = &v.s.swdrops[0];
	dd[0].drops = 1;
	v.d.swports = pd;
	v.d.nswports = 2;
	v.d.swdrops = dd;
	v.d.nswdrops = 1;
	eval(&F, &v);
	CHECK_EQ(F.nev, 2);
	check_subject(&F, "deep-queue", "{\"agent\":\"10.0.9.1\",\"port\":7,\"dir\":\"egress\"}");
	e = find_ev(&F, RT_FEV_OPEN, "switch-drops");
	CHECK(e != NULL, "switch-drops at one notification");
	if (e)
		CHECK_EQ(e->f.subj.port, 3);
	v.d.swports = NULL;
	v.d.swdrops = NULL;
	finish(&F, &v);
	TEST_END("findings: deep-queue at 1 MB of queue, switch-drops at one notification (sFlow)");
}

static void test_doctor(void)
{
	struct rt_find_cfg c = cfg100g();
	static struct rt_doc_findings doc;
	struct rt_findings F;
	struct iv v;
	const struct rt_fev *e;
	int k;

	memset(&doc, 0, sizeof(doc));
	doc.n = 3;
	snprintf(doc.f[0].id, sizeof(doc.f[0].id), "pfc-ecn-off");
	doc.f[0].severity = RT_DOC_FAIL;
	snprintf(doc.f[0].netdev, sizeof(doc.f[0].netdev), "eth2");
	snprintf(doc.f[0].sentence, sizeof(doc.f[0].sentence), "eth2: ECN is off");
	snprintf(doc.f[1].id, sizeof(doc.f[1].id), "mtu-small");
	doc.f[1].severity = RT_DOC_WARN;
	snprintf(doc.f[2].id, sizeof(doc.f[2].id), "all-good");
	doc.f[2].severity = RT_DOC_OK;
	rt_findings_init(&F, &c, &rt_rules);
	F.doc = &doc;
	iv_init(&v, 1);
	eval(&F, &v);
	CHECK_EQ(F.nev, 2);
	e = find_ev(&F, RT_FEV_OPEN, "doctor");
	if (e) {
		CHECK_EQ(e->f.sev, RT_SEV_WARNING);
		CHECK(!strcmp(e->f.subj.counter, "doctor:pfc-ecn-off") && !strcmp(e->f.subj.ifname, "eth2"),
		      "%s %s", e->f.subj.counter, e->f.subj.ifname);
	}
	CHECK_EQ(F.nev > 1 ? F.ev[1].f.sev : 99, RT_SEV_INFO);
	iv_free(&v);
	/* The doctor's next run finds it fixed: closed after the quiet period
	 * (2 intervals and 10 s). */
	doc.n = 0;
	for (k = 2; k <= 11; k++) {
		iv_init(&v, k);
		eval(&F, &v);
		iv_free(&v);
	}
	CHECK_EQ(count_ev(&F, RT_FEV_CLOSE, "doctor"), 2);
	rt_findings_free(&F);
	TEST_END("findings: doctor's failed checks are warnings, doubtful ones info, OK ones nothing");
}

static void test_cfg(void)
{
	struct rt_find_cfg c;

	rt_find_cfg_defaults(&c);
	CHECK_EQ(rt_find_cfg_set(&c, "pfc-share=30%"), 0);
	CHECK(c.pfc_share > 0.2999 && c.pfc_share < 0.3001, "%g", c.pfc_share);
	CHECK_EQ(rt_find_cfg_set(&c, "pfc-share=0.5"), 0);
	CHECK(c.pfc_share == 0.5, "%g", c.pfc_share);
	CHECK_EQ(rt_find_cfg_set(&c, "incast-sources=4"), 0);
	CHECK_EQ(c.incast_sources, 4);
	CHECK(rt_find_cfg_set(&c, "incast-sources=1") < 0, "below the minimum");
	CHECK(rt_find_cfg_set(&c, "incast-sources=2.5") < 0, "not whole");
	CHECK(rt_find_cfg_set(&c, "pfc-share=") < 0, "empty");
	CHECK(rt_find_cfg_set(&c, "nosuch=1") < 0, "unknown");
	CHECK(rt_find_cfg_set(&c, "pfc-share") < 0, "no value");
	CHECK_EQ(rt_sev_from_name("critical"), RT_SEV_CRITICAL);
	CHECK_EQ(rt_sev_from_name("bad"), -1);
	TEST_END("findings: --threshold NAME=VALUE parsing and limits");
}

/* A NIC counter of eth3 of that scope moving by delta (iv_ctr's, scoped). */
static void iv_ctr_at(struct iv *v, const char *name, int scope, __u64 delta)
{
	iv_ctr(v, name, delta);
	v->s.ports[v->s.nports - 1].scope = (__u8)scope;
}

/* One interval of the health counters given as NAME=DELTA (ethtool scope,
 * carrier_changes of scope netdev) on a fresh engine: the evidence of
 * rule's only opening ("" when it does not open) into ev. */
static void health(const char *rule, char *ev, size_t len, const char *const *ctrs)
{
	struct rt_findings F;
	const struct rt_fev *e;
	struct iv v;

	start(&F, &v);
	for (; *ctrs; ctrs++) {
		char name[64];
		unsigned long long n;

		if (sscanf(*ctrs, "%63[^=]=%llu", name, &n) != 2)
			continue;
		iv_ctr_at(&v, name, strcmp(name, "carrier_changes") ? RT_SCOPE_ETHTOOL : RT_SCOPE_NETDEV, n);
	}
	eval(&F, &v);
	e = find_ev(&F, RT_FEV_OPEN, rule);
	CHECK(count_ev(&F, RT_FEV_OPEN, rule) <= 1, "%s opened more than once", rule);
	snprintf(ev, len, "%s", e ? e->f.evidence : "");
	finish(&F, &v);
}

#define HEALTH(rule, want, ...) do { \
	static const char *const c_[] = { __VA_ARGS__, NULL }; \
	health(rule, ev, sizeof(ev), c_); \
	CHECK(!strcmp(ev, want), "%s: \"%s\", want \"%s\"", rule, ev, want); \
} while (0)

/* Each health rule at its threshold (default) and just below it. */
static void test_health(void)
{
	char ev[256];

	HEALTH("link-flap", "", "carrier_changes=0");
	HEALTH("link-flap", "eth3: carrier_changes +1 in 1.00 s: the link lost its carrier 1 time (a flap is a down and an up)",
	       "carrier_changes=1");
	/* 99 corrected bits in 1e8 is 9.9e-7, below 1e-6; 100 is at it */
	HEALTH("fec-degrading", "", "rx_corrected_bits_phy=99", "rx_bits_phy=100000000");
	HEALTH("fec-degrading", "eth3: rx_corrected_bits_phy +100 over rx_bits_phy +100000000: pre-FEC bit error rate 1.00e-06 (fec-ber 1e-06)",
	       "rx_corrected_bits_phy=100", "rx_bits_phy=100000000");
	/* without rx_bits_phy: the link speed for the interval, 1e11 bits */
	HEALTH("fec-degrading", "", "rx_corrected_bits_phy=99999");
	HEALTH("fec-degrading", "eth3: rx_corrected_bits_phy +100000 over 100000 Mb/s (--link-speed) for 1.00 s: pre-FEC bit error rate 1.00e-06 (fec-ber 1e-06); most raw errors on rx_err_lane_2_phy +7",
	       "rx_corrected_bits_phy=100000", "rx_err_lane_0_phy=3", "rx_err_lane_2_phy=7");
	/* the standard counter (ethtool netlink) where mlx5's own is not there, not beside it */
	HEALTH("fec-degrading", "eth3: fec_stat_corrected_bits +100000 over 100000 Mb/s (--link-speed) for 1.00 s: pre-FEC bit error rate 1.00e-06 (fec-ber 1e-06)",
	       "fec_stat_corrected_bits=100000");
	HEALTH("fec-degrading", "eth3: rx_corrected_bits_phy +200000 over 100000 Mb/s (--link-speed) for 1.00 s: pre-FEC bit error rate 2.00e-06 (fec-ber 1e-06)",
	       "fec_stat_corrected_bits=200000", "rx_corrected_bits_phy=200000");
	HEALTH("link-errors", "eth3: fec_stat_uncorrectable_blocks +1 in 1.00 s (FEC blocks it could not correct)",
	       "fec_stat_uncorrectable_blocks=1");
	HEALTH("link-errors", "", "rx_pcs_symbol_err_phy=0", "rx_bits_phy=100");
	HEALTH("link-errors", "eth3: rx_pcs_symbol_err_phy +1 over rx_bits_phy +1000000000000: bit error rate after FEC 1.00e-12 (symbol errors FEC did not correct)",
	       "rx_pcs_symbol_err_phy=1", "rx_bits_phy=1000000000000");
	HEALTH("buffer-discard", "", "rx_prio3_buf_discard=0", "rx_prio3_pause=0");
	HEALTH("buffer-discard", "eth3 priority 3: rx_prio3_buf_discard +1 in 1.00 s on a lossless priority (rx_prio3_pause is counted: PFC is on; tx_prio3_pause +0)",
	       "rx_prio3_buf_discard=1", "rx_prio3_pause=0");
	HEALTH("buffer-discard", "eth3 priority 5: rx_prio5_buf_discard +1 in 1.00 s on a lossy priority (rx_prio5_pause is not counted: PFC is off; tx_prio5_pause +0)",
	       "rx_prio5_buf_discard=1", "rx_prio3_pause=0");
	/* a slow receiver needs all three: pauses sent, none received, a host sign */
	HEALTH("slow-receiver", "", "tx_prio3_pause=5", "rx_prio3_pause=1", "rx_out_of_buffer=1");
	HEALTH("slow-receiver", "", "tx_prio3_pause=5", "rx_prio3_pause=0", "rx_out_of_buffer=0");
	HEALTH("slow-receiver", "", "tx_prio3_pause=0", "rx_prio3_pause=0", "rx_out_of_buffer=9");
	HEALTH("slow-receiver", "eth3 sent 5 PFC pauses on priority 3 and received none (rx_prio3_pause +0) in 1.00 s, while rx_out_of_buffer +1",
	       "tx_prio3_pause=5", "rx_prio3_pause=0", "rx_out_of_buffer=1");
	HEALTH("slow-receiver", "eth3 sent 5 PFC pauses on priority 3 and received none (rx_prio3_pause +0) in 1.00 s, while outbound_pci_stalled_rd_events +1 (outbound_pci_stalled_rd now 0%)",
	       "tx_prio3_pause=5", "outbound_pci_stalled_rd_events=1", "outbound_pci_stalled_rd=0");
	/* the stall gauges (a share of the last second) are no events */
	HEALTH("pcie", "", "outbound_pci_stalled_rd=30", "outbound_pci_stalled_wr=30", "tx_pci_signal_integrity=0");
	HEALTH("pcie", "eth3: tx_pci_signal_integrity +1 in 1.00 s (PCIe transitions to recovery)",
	       "tx_pci_signal_integrity=1");
	TEST_END("findings: the health rules at their thresholds and just below, with their evidence");
}

/* An episode's evidence names the jobs of the flows it pauses and their
 * ranks: 8 flows of Slurm job 4711 (ranks 8-15), one of a pod (rank 1), one
 * of no job; then 6 jobs (4 named, then "..."); then none (no words). */
static void test_episode_jobs(void)
{
	static const char *const want_pfc[] = {
		"paused 40% of 1.00 s (its flows: job k8s:train/trainer-0 rank 1, job slurm:4711 ranks 8-15): 600 pause frames",
		"paused 40% of 1.00 s (its flows: job slurm:1 rank 0, job slurm:2 rank 0, job slurm:3 rank 0, job slurm:4 rank 0, ...): 600 pause frames",
		"paused 40% of 1.00 s: 600 pause frames",
	};
	static const char *const want_pwe[] = {
		"while its 10 RoCE flows (job k8s:train/trainer-0 rank 1, job slurm:4711 ranks 8-15) carried 1000 data packets",
		"while its 10 RoCE flows (job slurm:1 rank 0, job slurm:2 rank 0, job slurm:3 rank 0, job slurm:4 rank 0, ...) carried",
		"while its 10 RoCE flows carried 1000 data packets",
	};
	struct rt_find_cfg c = cfg100g();

	c.pfc_intervals = c.pwe_intervals = 1;
	for (int round = 0; round < 3; round++) {
		struct rt_findings F;
		const struct rt_fev *e;
		struct iv v;
		char name[16];

		rt_findings_init(&F, &c, &rt_rules);
		iv_init(&v, 1);
		iv_pfc(&v, RT_DIR_INGRESS, 3, 600, 0, 2 * Q20);
		for (int i = 0; i < 10; i++)
			iv_flow(&v, 1 + i, 0x300 + (__u32)i, 100, 0);
		for (int i = 0; i < 9 && round == 0; i++)
			iv_job(&v, (size_t)i, i < 8 ? RT_JOB_SLURM : RT_JOB_K8S, i < 8 ? "4711" : "train/trainer-0",
			       i < 8 ? 8 + i : 1);
		for (int i = 0; i < 6 && round == 1; i++) {
			snprintf(name, sizeof(name), "%d", 1 + i);
			iv_job(&v, (size_t)i, RT_JOB_SLURM, name, 0);
		}
		eval(&F, &v);
		e = find_ev(&F, RT_FEV_OPEN, "pfc-storm");
		CHECK(e && strstr(e->f.evidence, want_pfc[round]), "round %d: %s", round, e ? e->f.evidence : "none");
		e = find_ev(&F, RT_FEV_OPEN, "pause-without-ecn");
		CHECK(e && strstr(e->f.evidence, want_pwe[round]), "round %d: %s", round, e ? e->f.evidence : "none");
		finish(&F, &v);
	}
	TEST_END("findings: a pause episode names the jobs of the flows it pauses and their ranks");
}

/* A peak with its unit, each form on hand-written values. */
static void test_fmt_peak(void)
{
	char b[RT_PEAK_STRLEN];


	CHECK(!strcmp(rt_fmt_peak(0.750593, RT_UNIT_SHARE, b, sizeof(b)), "75.1%"), "%s", b);
	CHECK(!strcmp(rt_fmt_peak(1, RT_UNIT_SHARE, b, sizeof(b)), "100.0%"), "%s", b);
	CHECK(!strcmp(rt_fmt_peak(360, "pause frames", b, sizeof(b)), "360 pause frames"), "%s", b);
	CHECK(!strcmp(rt_fmt_peak(1.2e-5, RT_UNIT_BER, b, sizeof(b)), "1.20e-05 bit error rate"), "%s", b);
	CHECK(!strcmp(rt_fmt_peak(0.5, NULL, b, sizeof(b)), "0.5"), "%s", b);
	TEST_END("findings: a peak with its unit: 75.1%, 360 pause frames, 1.20e-05 bit error rate");
}

int main(void)
{
	test_fmt_peak();
	test_pfc_storm();
	test_episode_jobs();
	test_pause_without_ecn_and_victim();
	test_congestion_incast();
	test_loss_rnr_cnp();
	test_rnr_not_loss();
	test_ecn_without_cnp();
	test_switch();
	test_doctor();
	test_cfg();
	test_health();
	return TEST_EXIT();
}
