// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe mesh's findings (user/core/rules_probe.c) on hand-built probe
 * rows, as the mesh would have judged them: which episodes open and close,
 * when, their subjects and their evidence word for word; and the sentence a
 * congestion finding gets about the probes to its flow's peer. Expected
 * values are worked out from the rows this test writes.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check.h"
#include "findings.h"

#define NS 1000000000ULL
#define T0 (1700000000ULL * NS)

struct iv {
	struct rt_snapshot s;
	struct rt_delta d;
	struct rt_flow_delta fd[4];
};

static void iv_init(struct iv *v, int k)
{
	memset(v, 0, sizeof(*v));
	rt_snapshot_init(&v->s);
	rt_snapshot_add_iface(&v->s, 1, "eth3", "file");
	v->s.time_ns = v->s.mono_ns = T0 + (__u64)k * NS;
	v->d.secs = 1.0;
	v->d.flows = v->fd;
}

/* A row to peer name/addr on path p (flow label 0x100 + p), size bytes. */
static struct rt_probe_row *row(struct iv *v, const char *name, const char *addr, int p, __u32 size, int finding,
				__u64 sent, __u64 lost, const char *why)
{
	struct rt_probe_row *r = rt_snapshot_add_probe(&v->s);

	snprintf(r->peer, sizeof(r->peer), "%s", name);
	snprintf(r->addr, sizeof(r->addr), "%s", addr);
	r->path = (__u8)p;
	r->flow_label = 0x100u + (unsigned)p;
	r->udp_sport = (__u16)(49152 + p);
	r->size = size;
	r->finding = (__u8)finding;
	r->sent = sent;
	r->lost = lost;
	r->answered = sent - lost;
	r->net_p50_us = 38;
	r->resp_p50_us = 12;
	r->net_base_us = 37;
	r->rtt_p50_us = 50;
	snprintf(r->why, sizeof(r->why), "%s", why);
	return r;
}

/* A congested data flow 10.0.0.1 -> 10.0.0.dst (20 CE of 120). */
static void congested_flow(struct iv *v, int dst)
{
	struct rt_flow *f = rt_snapshot_add_flow(&v->s);
	struct rt_flow_delta *x = &v->fd[v->d.nflows++];

	f->k.ifindex = 1;
	f->k.family = 4;
	f->k.src[0] = 10; f->k.src[3] = 1;
	f->k.dst[0] = 10; f->k.dst[3] = (__u8)dst;
	f->k.dqpn = 0x201;
	f->v.dscp = 26;
	f->v.pcp = RT_PCP_NONE;
	f->throttles = -1;
	f->v.ecn[RT_ECN_ECT0] = 100;
	f->v.ecn[RT_ECN_CE] = 20;
	f->v.pkts = 120;
	f->v.last_ns = v->s.mono_ns;
	x->f = f;
	x->d = f->v;
}

static int eval(struct rt_findings *F, struct iv *v)
{
	for (size_t i = 0; i < v->d.nflows; i++)
		v->fd[i].f = &v->s.flows[i];
	return rt_findings_eval(F, &v->s, &v->d);
}

static int count_ev(const struct rt_findings *F, int event, const char *rule)
{
	int n = 0;

	for (size_t i = 0; i < F->nev; i++)
		n += F->ev[i].event == event && (!rule || !strcmp(F->ev[i].f.rule, rule));
	return n;
}

static const struct rt_fev *find_ev(const struct rt_findings *F, int event, const char *rule)
{
	for (size_t i = 0; i < F->nev; i++)
		if (F->ev[i].event == event && !strcmp(F->ev[i].f.rule, rule))
			return &F->ev[i];
	return NULL;
}

static void check_text(const char *what, const char *got, const char *want)
{
	CHECK(!strcmp(got, want), "%s:\n    got  %s\n    want %s", what, got, want);
}

static void start(struct rt_findings *F)
{
	struct rt_find_cfg c;

	rt_find_cfg_defaults(&c);
	rt_findings_init(F, &c, &rt_rules);
}

/* Only the large probes die on a path: path-loss names the size; it closes
 * after close_after (2) quiet intervals and close_secs (10 s) of quiet. */
static void test_loss_by_size(void)
{
	struct rt_findings F;
	struct iv v;
	const struct rt_fev *e;
	char subj[256];
	int k, closed_at = 0;

	start(&F);
	iv_init(&v, 1);
	row(&v, "node-b", "10.0.0.2", 0, 64, RT_PF_NONE, 10, 0, "");
	row(&v, "node-b", "10.0.0.2", 0, 1024, RT_PF_PATH_LOSS, 10, 4,
	    "4 of 10 probes lost (40.0%) in the last 5 intervals");
	row(&v, "node-b", "10.0.0.2", 1, 64, RT_PF_NONE, 10, 0, "");	/* another path, clean */
	row(&v, "node-b", "10.0.0.2", 1, 1024, RT_PF_NONE, 10, 0, "");
	CHECK_EQ(eval(&F, &v), 0);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, NULL), 1);
	e = find_ev(&F, RT_FEV_OPEN, "path-loss");
	CHECK(e != NULL, "path-loss opened");
	if (e) {
		check_text("evidence", e->f.evidence,
			   "only the 1024-byte probes die (4 of 10 probes lost (40.0%) in the last 5 intervals), the "
			   "64-byte ones on the same path lose none; peer node-b (10.0.0.2) path 0, flow label 0x00100, "
			   "UDP sport 49152");
		check_text("subject", rt_subject_json(&e->f.subj, subj, sizeof(subj)),
			   "{\"dst\":\"10.0.0.2\",\"peer\":\"node-b\",\"path\":0,\"flow_label\":256}");
		check_text("short subject", rt_subject_short(&e->f.subj, subj, sizeof(subj)),
			   "10.0.0.2 peer node-b path 0");
		CHECK(e->f.score == 0.4, "score %g, want 4/10", e->f.score);
		CHECK_EQ(e->f.sev, RT_SEV_WARNING);
		CHECK(e->f.next && strstr(e->f.next, "MTU") && strstr(e->f.next, "ECMP path"), "%s", e->f.next);
	}
	rt_snapshot_free(&v.s);
	for (k = 2; k <= 12 && !closed_at; k++) {
		iv_init(&v, k);
		row(&v, "node-b", "10.0.0.2", 0, 64, RT_PF_NONE, 10, 0, "");
		row(&v, "node-b", "10.0.0.2", 0, 1024, RT_PF_NONE, 10, 0, "");
		CHECK_EQ(eval(&F, &v), 0);
		CHECK_EQ(count_ev(&F, RT_FEV_OPEN, NULL), 0);
		if (count_ev(&F, RT_FEV_CLOSE, "path-loss")) {
			closed_at = k;
			e = find_ev(&F, RT_FEV_CLOSE, "path-loss");
			CHECK_EQ(e->f.start_ns, T0);
			CHECK_EQ(e->f.end_ns, T0 + NS);
		}
		rt_snapshot_free(&v.s);
	}
	CHECK_EQ(closed_at, 11);	/* 10 s after its last interval ended at T0 + 1 s */
	rt_findings_free(&F);
	TEST_END("rules_probe: path-loss names the size when only the large probes die, closes after its quiet");
}

/* Every size down: path-down (critical), not path-loss; every size losing:
 * path-loss with the sizes; latency on one path; a stall on both paths of a
 * peer: one host-stall episode. */
static void test_down_latency_stall(void)
{
	struct rt_findings F;
	struct iv v;
	const struct rt_fev *e;
	char subj[256];

	start(&F);
	iv_init(&v, 1);
	row(&v, "b", "10.0.0.2", 0, 64, RT_PF_PATH_DOWN, 5, 5, "all 25 probes of the last 5 intervals lost");
	row(&v, "b", "10.0.0.2", 0, 1024, RT_PF_PATH_DOWN, 5, 5, "all 25 probes of the last 5 intervals lost");
	row(&v, "b", "10.0.0.2", 1, 64, RT_PF_PATH_LOSS, 10, 2, "2 of 10 probes lost (20.0%) in the last 5 intervals");
	row(&v, "b", "10.0.0.2", 1, 1024, RT_PF_PATH_LOSS, 10, 3, "3 of 10 probes lost (30.0%) in the last 5 intervals");
	row(&v, "c", "10.0.0.3", 2, 64, RT_PF_PATH_LATENCY, 10, 0,
	    "network time p50 5200 us (usually 40 us), responder 12 us")->net_p50_us = 5200;
	row(&v, "d", "10.0.0.4", 0, 64, RT_PF_HOST_STALL, 10, 0,
	    "responder time p50 41000 us while the network's is 38 us as usual: the peer host stalls")->resp_p50_us = 41000;
	row(&v, "d", "10.0.0.4", 1, 64, RT_PF_HOST_STALL, 10, 0,
	    "responder time p50 40000 us while the network's is 38 us as usual: the peer host stalls");
	CHECK_EQ(eval(&F, &v), 0);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, NULL), 4);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "path-down"), 1);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "path-loss"), 1);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "path-latency"), 1);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "host-stall"), 1);
	if ((e = find_ev(&F, RT_FEV_OPEN, "path-down"))) {
		CHECK_EQ(e->f.sev, RT_SEV_CRITICAL);
		CHECK_EQ(e->f.subj.path, 0);
		check_text("path-down", e->f.evidence,
			   "all 25 probes of the last 5 intervals lost; peer b (10.0.0.2) path 0, flow label 0x00100, "
			   "UDP sport 49152, 64 and 1024-byte probes");
		CHECK(e->f.score == 10, "path-down score %g, want 10 lost", e->f.score);
	}
	if ((e = find_ev(&F, RT_FEV_OPEN, "path-loss"))) {
		CHECK_EQ(e->f.subj.path, 1);
		check_text("path-loss", e->f.evidence,
			   "2 of 10 probes lost (20.0%) in the last 5 intervals; peer b (10.0.0.2) path 1, flow label "
			   "0x00101, UDP sport 49153, 64 and 1024-byte probes");
		CHECK(e->f.score == 0.25, "path-loss score %g, want 5/20", e->f.score);
	}
	if ((e = find_ev(&F, RT_FEV_OPEN, "path-latency"))) {
		check_text("path-latency", e->f.evidence,
			   "network time p50 5200 us (usually 40 us), responder 12 us; peer c (10.0.0.3) path 2, flow "
			   "label 0x00102, UDP sport 49154, 64-byte probes");
		CHECK(e->f.score == 5200, "latency score %g", e->f.score);
		CHECK(strstr(e->f.next, "switch queues") && strstr(e->f.next, "PFC"), "%s", e->f.next);
	}
	if ((e = find_ev(&F, RT_FEV_OPEN, "host-stall"))) {
		check_text("host-stall subject", rt_subject_json(&e->f.subj, subj, sizeof(subj)),
			   "{\"dst\":\"10.0.0.4\",\"peer\":\"d\"}");
		check_text("host-stall", e->f.evidence,
			   "responder time p50 41000 us while the network's is 38 us as usual: the peer host stalls; "
			   "on 2 of 2 paths to the peer, peer d (10.0.0.4) path 0, flow label 0x00100, UDP sport 49152, "
			   "64-byte probes");
		CHECK(strstr(e->f.next, "cgroup") && strstr(e->f.next, "IRQ affinity"), "%s", e->f.next);
	}
	rt_snapshot_free(&v.s);
	rt_findings_free(&F);
	TEST_END("rules_probe: path-down, path-loss, path-latency and host-stall from the rows' findings");
}

/* A congestion finding whose flow's peer the mesh probes says what the
 * probes show; one whose peer it does not probe says nothing of probes. */
static void test_peer_evidence(void)
{
	struct rt_findings F;
	struct iv v;
	const struct rt_fev *e;
	char want[256];
	int n = 0;

	start(&F);
	iv_init(&v, 1);
	congested_flow(&v, 9);
	congested_flow(&v, 8);
	row(&v, "nine", "10.0.0.9", 0, 64, RT_PF_HOST_STALL, 10, 0,
	    "responder time p50 41000 us while the network's is 38 us as usual: the peer host stalls")->resp_p50_us = 41000;
	row(&v, "nine", "10.0.0.9", 1, 64, RT_PF_NONE, 10, 0, "");
	CHECK_EQ(eval(&F, &v), 0);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "congestion"), 2);
	for (size_t i = 0; i < F.nev; i++) {
		e = &F.ev[i];
		if (strcmp(e->f.rule, "congestion"))
			continue;
		n++;
		if (e->f.subj.dst[3] == 9) {
			snprintf(want, sizeof(want), "%s", "; probes to 10.0.0.9: network RTT 38.0 us as usual, responder "
				 "41.0 ms: the peer host stalls");
			CHECK(strlen(e->f.evidence) > strlen(want) &&
			      !strcmp(e->f.evidence + strlen(e->f.evidence) - strlen(want), want),
			      "evidence %s", e->f.evidence);
			CHECK(rt_findings_get(&F, "congestion", &e->f.subj) &&
			      !strcmp(rt_findings_get(&F, "congestion", &e->f.subj)->evidence, e->f.evidence),
			      "the finding's evidence is its event's");
		} else
			CHECK(!strstr(e->f.evidence, "probes"), "no probes to 10.0.0.8: %s", e->f.evidence);
	}
	CHECK_EQ(n, 2);
	rt_snapshot_free(&v.s);
	/* The next interval: the path slow now (the evidence of the peak stays). */
	iv_init(&v, 2);
	congested_flow(&v, 9);
	v.s.flows[0].v.ecn[RT_ECN_CE] = v.fd[0].d.ecn[RT_ECN_CE] = 60;	/* a higher share: a new peak */
	row(&v, "nine", "10.0.0.9", 0, 64, RT_PF_PATH_LATENCY, 10, 0, "")->net_p50_us = 5200;
	CHECK_EQ(eval(&F, &v), 0);
	e = find_ev(&F, RT_FEV_UPDATE, "congestion");
	CHECK(e && strstr(e->f.evidence, "; probes to 10.0.0.9: network p50 5.20 ms against 37.0 us usual: the path"),
	      "update's evidence %s", e ? e->f.evidence : "(no update)");
	CHECK(e && !strstr(strstr(e->f.evidence, "probes to") + 1, "probes to"), "one note only");
	rt_snapshot_free(&v.s);
	rt_findings_free(&F);
	TEST_END("rules_probe: a congestion finding's evidence says what the probes to its peer show");
}

/* 100 peers of 4 paths and 2 sizes (800 rows): every peer's responder
 * stalls on its paths, path 3 of every other peer loses its large probes;
 * 100 host-stall and 50 path-loss episodes; the interval's cost printed. */
static void test_mesh_of_100(void)
{
	struct rt_findings F;
	struct iv v;
	char name[16], addr[16];
	struct timespec a, b;

	start(&F);
	iv_init(&v, 1);
	for (int p = 0; p < 100; p++)
		for (int path = 0; path < 4; path++)
			for (int k = 0; k < 2; k++) {
				int loss = path == 3 && k == 1 && p % 2 == 0;

				snprintf(name, sizeof(name), "n%d", p);
				snprintf(addr, sizeof(addr), "10.0.%d.%d", p / 200, 1 + p % 200);
				row(&v, name, addr, path, k ? 4096 : 64, loss ? RT_PF_PATH_LOSS : RT_PF_HOST_STALL, 10,
				    loss ? 5 : 0, loss ? "5 of 10 probes lost" : "the peer host stalls");
			}
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK_EQ(eval(&F, &v), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "host-stall"), 100);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, "path-loss"), 50);
	CHECK_EQ(count_ev(&F, RT_FEV_OPEN, NULL), 150);
	printf("  800 probe rows judged in %.2f ms\n", (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
	rt_snapshot_free(&v.s);
	rt_findings_free(&F);
	TEST_END("rules_probe: a mesh of 100 peers, 4 paths, 2 sizes: one host-stall a peer, one path-loss a lossy path");
}

int main(void)
{
	test_mesh_of_100();
	test_loss_by_size();
	test_down_latency_stall();
	test_peer_evidence();
	return TEST_EXIT();
}
