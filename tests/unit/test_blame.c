// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Who is hurt, and by whom: the culprit and victim shares of
 * user/core/jobagg.h worked out by hand, and the job-throttled rule.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "findings.h"
#include "jobagg.h"

/* A flow of job `job` (NULL: none), rank rank, into 10.0.0.dst, data
 * packets, ce of them CE-marked; its index. */
static size_t flow(struct rt_snapshot *s, const char *job, int rank, int dir, int src, int dst, __u64 data,
		   __u64 ce)
{
	struct rt_flow *f = rt_snapshot_add_flow(s);

	f->k.family = 4, f->k.dir = (__u8)dir, f->k.dqpn = (__u32)(100 + s->nflows);
	f->k.src[0] = 10, f->k.src[3] = (__u8)src, f->k.dst[0] = 10, f->k.dst[3] = (__u8)dst;
	f->v.pkts = data, f->v.ecn[RT_ECN_CE] = ce, f->v.ecn[RT_ECN_ECT0] = data - ce;
	f->throttles = -1;
	if (job) {
		struct rt_job *j = rt_snapshot_add_job(s);

		j->kind = RT_JOB_SLURM, j->rank = rank, j->size = 8;
		snprintf(j->job, sizeof(j->job), "%s", job);
		f->job = (__u32)s->njobs;
	}
	return s->nflows - 1;
}

/* cnp CNPs in a flow from 10.0.0.src to 10.0.0.dst throttling flows[t]. */
static void cnps(struct rt_snapshot *s, int src, int dst, __u64 cnp, size_t t)
{
	size_t i = flow(s, NULL, -1, RT_DIR_INGRESS, src, dst, 0, 0);

	s->flows[i].v.pkts = s->flows[i].v.cnp = cnp;
	s->flows[i].throttles = (__s32)t;
}

static struct rt_jobsum *sum(struct rt_jobagg *a, const char *key)
{
	char k[RT_JOB_KEY_LEN] = { 0 };

	snprintf(k, sizeof(k), "%s", key);
	return rt_htab_find(&a->t, k, rt_job_key_hash(k));
}

#define NEAR(a, b) (fabs((a) - (b)) < 1e-12)

/*
 * Two points. p1 = 10.0.0.2, a receiver's (CE seen): A 90 data packets (18
 * CE), B 10 (2 CE), a flow of no job 100 (0 CE); the receiver's CNPs back to
 * A's sender (7) are not counted again, nor are the NIC's per-QP counts of
 * the same packets (B 1000 CE). p2 = 10.0.0.3, a sender's (no CE): A 50 data
 * packets throttled by 5 CNPs, B 50 not. p3 = 10.0.0.4: C 40 data packets,
 * no mark. M(p1) = 20, M(p2) = 5.
 *   culprit A = (20*90/200 + 5*50/100) / 25 = 11.5/25, B = (1 + 2.5)/25,
 *   no job 10/25, C 0;
 *   victim A = (18*(1-90/200) + 5*(1-50/100)) / (18 + 5) = 12.4/23,
 *   B = 2*(1-10/200) / 2 = 0.95, C and no job (no CE got) undefined.
 */
static void test_shares(void)
{
	struct rt_snapshot s;
	struct rt_jobagg a;
	struct rt_jobsum *g;
	size_t fa, fa2, nic;

	rt_snapshot_init(&s);
	fa = flow(&s, "A", 0, RT_DIR_INGRESS, 20, 2, 90, 18);
	flow(&s, "B", 1, RT_DIR_INGRESS, 21, 2, 10, 2);
	flow(&s, NULL, -1, RT_DIR_INGRESS, 22, 2, 100, 0);
	nic = flow(&s, "B", 1, RT_DIR_INGRESS, 21, 2, 1000, 1000);
	s.flows[nic].k.origin = RT_ORIGIN_NIC;
	cnps(&s, 2, 20, 7, fa);			/* the receiver's CNPs: CE at p1 counts */
	fa2 = flow(&s, "A", 0, RT_DIR_EGRESS, 2, 3, 50, 0);
	flow(&s, "B", 1, RT_DIR_EGRESS, 2, 3, 50, 0);
	cnps(&s, 3, 2, 5, fa2);			/* the sender gets 5 CNPs for A's p2 flow */
	flow(&s, "C", 2, RT_DIR_EGRESS, 2, 4, 40, 0);
	rt_jobagg_init(&a, RT_GROUP_JOB);
	for (size_t i = 0; i < s.nflows; i++)
		CHECK(!rt_jobagg_add(&a, &s, &s.flows[i], &s.flows[i].v), "add %zu", i);
	CHECK(!rt_jobagg_close(&a), "close");
	CHECK(NEAR(a.marks, 25), "marks %g", a.marks);
	g = sum(&a, "slurm:A");
	CHECK(g && NEAR(rt_jobsum_culprit(&a, g), 11.5 / 25), "A culprit %g", g ? rt_jobsum_culprit(&a, g) : -1);
	CHECK(g && NEAR(rt_jobsum_victim(g), 12.4 / 23), "A victim %g", g ? rt_jobsum_victim(g) : -1);
	g = sum(&a, "slurm:B");
	CHECK(g && NEAR(rt_jobsum_culprit(&a, g), 3.5 / 25), "B culprit %g", g ? rt_jobsum_culprit(&a, g) : -1);
	CHECK(g && NEAR(rt_jobsum_victim(g), 0.95), "B victim %g", g ? rt_jobsum_victim(g) : -1);
	g = sum(&a, "-");
	CHECK(g && NEAR(rt_jobsum_culprit(&a, g), 10.0 / 25), "no job culprit %g", g ? rt_jobsum_culprit(&a, g) : -1);
	CHECK(g && isnan(rt_jobsum_victim(g)), "no job victim %g", g ? rt_jobsum_victim(g) : -1);
	g = sum(&a, "slurm:C");
	CHECK(g && rt_jobsum_culprit(&a, g) == 0, "C culprit %g", g ? rt_jobsum_culprit(&a, g) : -1);
	CHECK(g && isnan(rt_jobsum_victim(g)), "C victim %g", g ? rt_jobsum_victim(g) : -1);
	/* a second interval, the same flows: the same shares (sums of both) */
	for (size_t i = 0; i < s.nflows; i++)
		CHECK(!rt_jobagg_add(&a, &s, &s.flows[i], &s.flows[i].v), "add %zu", i);
	rt_jobagg_sorted(&a);
	g = sum(&a, "slurm:A");
	CHECK(NEAR(a.marks, 50) && g && NEAR(rt_jobsum_culprit(&a, g), 11.5 / 25) &&
	      NEAR(rt_jobsum_victim(g), 12.4 / 23), "two intervals: marks %g", a.marks);
	rt_jobagg_free(&a);
	rt_snapshot_free(&s);
	TEST_END("blame: culprit and victim shares over two points (CE at one, CNPs at the other), no-job load, "
		 "no marks, nothing counted twice");
}

/*
 * The example of rocetop(8): at one queue a culprit job with 90% of the load,
 * a victim with 10%: CULPRIT 90/10, VICTIM 10/90. Then no marks at all: every
 * share undefined. Then the NIC's per-QP counts alone at a point: they count.
 */
static void test_example(void)
{
	struct rt_snapshot s;
	struct rt_jobagg a;
	struct rt_jobsum *c, *v;

	rt_snapshot_init(&s);
	flow(&s, "culprit", 0, RT_DIR_INGRESS, 20, 2, 900, 90);
	flow(&s, "victim", 0, RT_DIR_INGRESS, 21, 2, 100, 10);
	rt_jobagg_init(&a, RT_GROUP_JOB);
	for (size_t i = 0; i < s.nflows; i++)
		rt_jobagg_add(&a, &s, &s.flows[i], &s.flows[i].v);
	rt_jobagg_sorted(&a);
	c = sum(&a, "slurm:culprit"), v = sum(&a, "slurm:victim");
	CHECK(c && v && NEAR(rt_jobsum_culprit(&a, c), 0.9) && NEAR(rt_jobsum_culprit(&a, v), 0.1), "culprit");
	CHECK(c && v && NEAR(rt_jobsum_victim(c), 0.1) && NEAR(rt_jobsum_victim(v), 0.9), "victim");
	rt_jobagg_clear(&a);
	s.flows[0].v.ecn[RT_ECN_CE] = s.flows[1].v.ecn[RT_ECN_CE] = 0;
	for (size_t i = 0; i < s.nflows; i++)
		rt_jobagg_add(&a, &s, &s.flows[i], &s.flows[i].v);
	rt_jobagg_sorted(&a);
	c = sum(&a, "slurm:culprit");
	CHECK(c && isnan(rt_jobsum_culprit(&a, c)) && isnan(rt_jobsum_victim(c)), "no marks: undefined");
	rt_jobagg_clear(&a);
	s.flows[0].v.ecn[RT_ECN_CE] = 90, s.flows[1].v.ecn[RT_ECN_CE] = 10;
	s.flows[0].k.origin = s.flows[1].k.origin = RT_ORIGIN_NIC;
	for (size_t i = 0; i < s.nflows; i++)
		rt_jobagg_add(&a, &s, &s.flows[i], &s.flows[i].v);
	rt_jobagg_sorted(&a);
	v = sum(&a, "slurm:victim");
	CHECK(v && NEAR(rt_jobsum_victim(v), 0.9), "the NIC's counts alone");
	rt_jobagg_free(&a);
	rt_snapshot_free(&s);
	TEST_END("blame: 90% of the load is 90% culprit, 10% victim; no marks, no shares; the NIC's counts alone count");
}

/* Open findings of rule in F's events: their count, the last one's evidence in ev. */
static int opened(const struct rt_findings *F, const char *rule, char *ev, size_t len, struct rt_subject *sj)
{
	int n = 0;

	for (size_t i = 0; i < F->nev; i++)
		if (F->ev[i].event == RT_FEV_OPEN && !strcmp(F->ev[i].f.rule, rule)) {
			snprintf(ev, len, "%s", F->ev[i].f.evidence);
			*sj = F->ev[i].f.subj;
			n++;
		}
	return n;
}

/*
 * job-throttled: job 4711 ranks 8-9 with two flows, one congested (CE 600 of
 * 8,000), one throttled by 1,234 CNPs (its 900 data packets, no CE); job
 * 4712 one congested flow only; a flow of no job. One finding, on 4711.
 * With job-flows=3: none.
 */
static void test_rule(void)
{
	struct rt_find_cfg cfg;
	char ev[256], txt[256];
	struct rt_subject sj;

	rt_find_cfg_defaults(&cfg);
	cfg.speed_mbps = 100000;
	for (int round = 0; round < 2; round++) {
		struct rt_snapshot s;
		struct rt_delta d = { 0 };
		struct rt_findings F;
		size_t t;

		if (round)
			CHECK(!rt_find_cfg_set(&cfg, "job-flows=3"), "job-flows=3");
		rt_findings_init(&F, &cfg, &rt_rules);
		rt_snapshot_init(&s);
		flow(&s, "4711", 8, RT_DIR_INGRESS, 20, 2, 8000, 600);
		t = flow(&s, "4711", 9, RT_DIR_EGRESS, 2, 3, 900, 0);
		cnps(&s, 3, 2, 1234, t);
		flow(&s, "4712", 0, RT_DIR_INGRESS, 21, 2, 1000, 500);
		flow(&s, NULL, -1, RT_DIR_INGRESS, 22, 2, 1000, 500);
		CHECK(!rt_delta_compute(&d, NULL, &s), "delta");
		d.secs = 1;
		CHECK(!rt_findings_eval(&F, &s, &d), "eval");
		if (!round) {
			CHECK(opened(&F, "job-throttled", ev, sizeof(ev), &sj) == 1, "one finding");
			CHECK(!strcmp(ev, "job slurm:4711 ranks 8-9 throttled: 2 flows, 1,234 CNPs, "
				  "CE on 600 of 8,900 packets (6.7%)"), "%s", ev);
			CHECK(!strcmp(rt_subject_text(&sj, txt, sizeof(txt)), "job=slurm:4711"), "%s", txt);
			CHECK(!strcmp(rt_subject_json(&sj, txt, sizeof(txt)), "{\"job\":\"slurm:4711\"}"), "%s", txt);
			for (size_t i = 0; i < F.n; i++)
				if (!strcmp(F.tab[i].rule, "job-throttled"))
					CHECK(F.tab[i].nflows == 2, "its flows: %u", F.tab[i].nflows);
		} else {
			CHECK(opened(&F, "job-throttled", ev, sizeof(ev), &sj) == 0, "job-flows=3: none");
		}
		rt_findings_free(&F);
		rt_delta_free(&d);
		rt_snapshot_free(&s);
	}
	TEST_END("blame: job-throttled opens one finding per job with several flows congested or throttled");
}

int main(void)
{
	test_shares();
	test_example();
	test_rule();
	return TEST_EXIT();
}
