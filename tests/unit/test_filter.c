// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The filter language (user/core/filter.c) on hand-built flows: each term,
 * and, or, not and parentheses against the flows the test says match, the
 * bare word's old meaning, parse errors as one sentence, the kinds of rows
 * an expression can judge, the filtered delta's totals summed by hand, and a
 * finding kept by its involved flows.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "filter.h"
#include "findings.h"

static struct rt_snapshot S;
static struct rt_flow fl[4];

static void flow(struct rt_flow *f, const char *src, const char *dst, __u32 dqpn, __u32 ifindex)
{
	memset(f, 0, sizeof(*f));
	f->k.family = 4;
	f->k.ifindex = ifindex;
	inet_pton(AF_INET, src, f->k.src);
	inet_pton(AF_INET, dst, f->k.dst);
	f->k.dqpn = dqpn;
	f->v.pcp = 0xff;	/* untagged: DSCP / 8 */
	f->throttles = -1;
}

static void setup(void)
{
	rt_snapshot_init(&S);
	rt_snapshot_add_iface(&S, 2, "eth0", "file");
	rt_snapshot_add_iface(&S, 3, "eth1", "file");
	/* 0: 10.0.0.1 -> 10.0.0.2 QP 100 eth0, DSCP 26 (prio 3), CE, owned by ib_write_bw 77 */
	flow(&fl[0], "10.0.0.1", "10.0.0.2", 100, 2);
	fl[0].v.dscp = 26;
	fl[0].v.pkts = 10;
	fl[0].v.ecn[RT_ECN_CE] = 4;
	fl[0].lqpn = 300;
	fl[0].rqpn = 100;
	fl[0].pid = 77;
	memcpy(fl[0].comm, "ib_write_bw", 12);
	/* 1: 10.0.0.2 -> 10.0.0.1 QP 300 eth0, CNPs, prio 3 */
	flow(&fl[1], "10.0.0.2", "10.0.0.1", 300, 2);
	fl[1].v.dscp = 26;
	fl[1].v.pkts = 3;
	fl[1].v.cnp = 3;
	/* 2: 10.1.0.5 -> 10.1.0.6 QP 0x200 eth1, DSCP 48 (prio 6), NAKs and RNR */
	flow(&fl[2], "10.1.0.5", "10.1.0.6", 0x200, 3);
	fl[2].v.dscp = 48;
	fl[2].v.pkts = 7;
	fl[2].v.nak_seq = 2;
	fl[2].v.rnr_nak = 1;
	/* 3: 10.1.0.7 -> 10.0.0.2 QP 101 eth1, nothing special */
	flow(&fl[3], "10.1.0.7", "10.0.0.2", 101, 3);
	fl[3].v.pkts = 5;
}

/* The flows text keeps, as a bit mask (bit i: fl[i]); -1 on a parse error. */
static int keeps(const char *text)
{
	struct rt_filter *F;
	char err[200];
	int m = 0;

	if (rt_filter_parse(text, &F, err, sizeof(err)))
		return -1;
	for (int i = 0; i < 4; i++)
		if (rt_filter_flow(F, &S, &fl[i], NULL, NULL))
			m |= 1 << i;
	rt_filter_free(F);
	return m;
}

/* The flows each expression keeps (bit i: fl[i]), and the test it is of. */
static const struct keep_case {
	const char *test;
	const char *text;
	int want;
} keep_cases[] = {
	{ "filter_terms", "", 0xf },
	{ "filter_terms", "host 10.0.0.2", 0xb },
	{ "filter_terms", "src 10.0.0.2", 0x2 },
	{ "filter_terms", "dst 10.0.0.2", 0x9 },
	{ "filter_terms", "host 10.1.0.0/16", 0xc },
	{ "filter_terms", "src 10.0.0.0/31", 0x1 },	/* .0 and .1 */
	{ "filter_terms", "host fd00::1", 0 },
	{ "filter_terms", "qp 100", 0x1 },	/* dqpn (and remote QP) of 0 */
	{ "filter_terms", "qp 300", 0x3 },	/* ... local QP of 0, dqpn of 1 */
	{ "filter_terms", "qp 0x200", 0x4 },
	{ "filter_terms", "qp 0300", 0x3 },	/* decimal 300, not octal 192 */
	{ "filter_terms", "qp 0X200", 0x4 },
	{ "filter_terms", "if eth1", 0xc },
	{ "filter_terms", "if eth", 0 },	/* a name is whole */
	{ "filter_terms", "proc ib_write_bw", 0x1 },
	{ "filter_terms", "pid 77", 0x1 },
	{ "filter_terms", "prio 3", 0x3 },
	{ "filter_terms", "prio 6", 0x4 },
	{ "filter_terms", "ce", 0x1 },
	{ "filter_terms", "cnp", 0x2 },
	{ "filter_terms", "nak", 0x4 },
	{ "filter_terms", "rnr", 0x4 },
	{ "filter_logic", "ce or cnp", 0x3 },
	{ "filter_logic", "host 10.0.0.2 and not ce", 0xa },
	{ "filter_logic", "not (ce or cnp) and if eth1", 0xc },
	{ "filter_logic", "if eth0 or if eth1 and nak", 0x7 },	/* and binds tighter */
	{ "filter_logic", "(if eth0 or if eth1) and nak", 0x4 },
	{ "filter_logic", "not not ce", 0x1 },
	{ "filter_logic", "((qp 101))", 0x8 },
	/* A bare word keeps the view's old meaning. */
	{ "filter_bare_word", "10.1.0", 0xc },
	{ "filter_bare_word", "eth0", 0x3 },
	{ "filter_bare_word", "write_bw", 0x1 },
	{ "filter_bare_word", "0x200", 0x4 },
	{ "filter_bare_word", "512", 0x4 },
	{ "filter_bare_word", "0512", 0x4 },	/* decimal, not octal 330 */
	{ "filter_bare_word", "10.0.0.2 and eth1", 0x8 },
};

/* Each test's expressions, one TEST_END a test. */
static void test_keeps(void)
{
	size_t i, n = sizeof(keep_cases) / sizeof(keep_cases[0]);

	for (i = 0; i < n; i++) {
		const struct keep_case *c = &keep_cases[i];
		int m = keeps(c->text);

		CHECK(m == c->want, "'%s' keeps 0x%x, expected 0x%x", c->text, m, c->want);
		if (i + 1 == n || strcmp(c->test, c[1].test))
			TEST_END(c->test);
	}
}

static void expect_error(const char *text, const char *want)
{
	struct rt_filter *F = (struct rt_filter *)1;
	char err[200] = "";

	CHECK_EQ(rt_filter_parse(text, &F, err, sizeof(err)), -EINVAL);
	CHECK(F == NULL, "%s: a filter came back", text);
	CHECK(!strcmp(err, want), "'%s': '%s', expected '%s'", text, err, want);
}

static void test_errors(void)
{
	expect_error("src", "the filter's 'src' needs an address (10.0.0.1, fd00::1, 10.0.0.0/24) after it");
	expect_error("src 10.0.0.300", "the filter's 'src 10.0.0.300' is not an address (10.0.0.1, fd00::1, 10.0.0.0/24)");
	expect_error("host 10.0.0.0/33", "the filter's 'host 10.0.0.0/33' is not an address (10.0.0.1, fd00::1, 10.0.0.0/24)");
	expect_error("qp -1", "the filter's 'qp -1' is not a number from 0 to 16777215");
	expect_error("prio 8", "the filter's 'prio 8' is not a number from 0 to 7");
	/* numbers: decimal or 0x hex, nothing else */
	expect_error("qp +1", "the filter's 'qp +1' is not a number from 0 to 16777215");
	expect_error("qp 0x", "the filter's 'qp 0x' is not a number from 0 to 16777215");
	expect_error("qp 0x-1", "the filter's 'qp 0x-1' is not a number from 0 to 16777215");
	expect_error("pid 18446744073709551616", "the filter's 'pid 18446744073709551616' is not a number from 0 to 4294967295");
	expect_error("host 10.0.0.0/-0", "the filter's 'host 10.0.0.0/-0' is not an address (10.0.0.1, fd00::1, 10.0.0.0/24)");
	expect_error("host 10.0.0.0/+8", "the filter's 'host 10.0.0.0/+8' is not an address (10.0.0.1, fd00::1, 10.0.0.0/24)");
	expect_error("host 10.0.0.0/", "the filter's 'host 10.0.0.0/' is not an address (10.0.0.1, fd00::1, 10.0.0.0/24)");
	expect_error("(ce", "the filter has a '(' without its ')'");
	expect_error("ce)", "the filter has a ')' without its '('");
	expect_error("ce cnp", "the filter has 'cnp' where 'and', 'or' or its end should be");
	expect_error("ce and", "the filter ends where a term should be");
	expect_error("and ce", "the filter has 'and' where a term should be");
	expect_error("if (", "the filter's 'if' needs a name after it");
	TEST_END("filter_errors");
}

/* text made of n copies of open, then mid, then n copies of close */
static char *nest(const char *open, const char *mid, const char *close, int n)
{
	size_t lo = strlen(open), lc = strlen(close), lm = strlen(mid);
	char *s = malloc((size_t)n * (lo + lc) + lm + 1), *p = s;

	if (!s)
		abort();
	for (int i = 0; i < n; i++, p += lo)
		memcpy(p, open, lo);
	memcpy(p, mid, lm);
	p += lm;
	for (int i = 0; i < n; i++, p += lc)
		memcpy(p, close, lc);
	*p = '\0';
	return s;
}

/* Nesting is bounded (32 levels), and a deeper filter is refused in one
 * sentence: 60,000 '(' or 'not' overflowed the stack before. */
static void test_depth(void)
{
	static const char deep[] = "the filter nests '(' and 'not' too deep (32 levels at most)";
	char *s;

	s = nest("(", "ce", ")", 32);
	CHECK(keeps(s) == 0x1, "32 parentheses around 'ce' keep 0x%x", keeps(s));
	free(s);
	s = nest("not ", "ce", "", 32);
	CHECK(keeps(s) == 0x1, "32 'not' before 'ce' keep 0x%x", keeps(s));
	free(s);
	s = nest("(", "ce", ")", 33);
	expect_error(s, deep);
	free(s);
	s = nest("not (", "ce", ")", 17);	/* 34 levels */
	expect_error(s, deep);
	free(s);
	s = nest("(", "ce", ")", 60000);
	expect_error(s, deep);
	free(s);
	s = nest("(", "", "", 60000);		/* never closed */
	expect_error(s, deep);
	free(s);
	s = nest("not ", "ce", "", 60000);
	expect_error(s, deep);
	free(s);
	TEST_END("filter_depth");
}

/* What an expression can judge: 'if' and bare words judge NIC counters too. */
static void test_kinds(void)
{
	struct rt_filter *F;
	struct rt_port_ctr pc = { .dev = "mlx5_0", .netdev = "eth1", .name = "np_cnp_sent" };
	struct rt_fsubj s = { .kind = RT_FK_PORT, .port = &pc, .paused = -1 };
	char err[200] = "";

	CHECK_EQ(rt_filter_parse("if eth1 or mlx5", &F, err, sizeof(err)), 0);
	CHECK_EQ(rt_filter_kinds(F), RT_FK_FLOW | RT_FK_PORT);
	CHECK_EQ(rt_filter_check(F, RT_FK_PORT, "the NIC ports view", err, sizeof(err)), 0);
	CHECK_EQ(rt_filter_match(F, &s), 1);
	rt_filter_free(F);
	CHECK_EQ(rt_filter_parse("if eth1 and qp 5", &F, err, sizeof(err)), 0);
	CHECK_EQ(rt_filter_kinds(F), RT_FK_FLOW);
	CHECK_EQ(rt_filter_check(F, RT_FK_PORT, "the NIC ports view", err, sizeof(err)), -EINVAL);
	CHECK(!strcmp(err, "the filter's 'qp' judges flows, and the NIC ports view has none (only 'if NAME' applies to it)"),
	      "%s", err);
	CHECK_EQ(rt_filter_check(F, RT_FK_FLOW, "the flows", err, sizeof(err)), 0);
	rt_filter_free(F);
	TEST_END("filter_kinds");
}

/* paused: the flow's priority paused (XOFF) on its interface in the delta. */
static void test_paused_and_delta(void)
{
	struct rt_ifdir ifd = { .k = { .ifindex = 3, .dir = RT_DIR_INGRESS } };
	struct rt_ifdir_delta id = { .s = &ifd };
	struct rt_flow_delta fd[4];
	struct rt_delta d = { .secs = 1, .ifs = &id, .nifs = 1, .flows = fd, .nflows = 4 };
	struct rt_delta out;
	struct rt_flow_delta *buf = NULL;
	size_t cap = 0;
	struct rt_filter *F;
	char err[200];

	id.d.pfc_frames[6] = 5;
	id.d.pfc_xon[6] = 1;
	for (int i = 0; i < 4; i++) {
		fd[i].f = &fl[i];
		fd[i].d = fl[i].v;
	}
	CHECK_EQ(rt_filter_parse("paused", &F, err, sizeof(err)), 0);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(rt_filter_flow(F, &S, &fl[i], &fd[i].d, &d), i == 2);
	rt_filter_free(F);
	CHECK_EQ(rt_filter_parse("dst 10.0.0.2", &F, err, sizeof(err)), 0);
	CHECK_EQ(rt_filter_delta(F, &S, &d, &out, &buf, &cap), 0);
	CHECK_EQ(out.nflows, 2);
	CHECK(out.flows[0].f == &fl[0] && out.flows[1].f == &fl[3], "the flows kept");
	CHECK_EQ(out.flow_tot.pkts, 15);	/* 10 + 5 */
	CHECK_EQ(out.flow_tot.ecn[RT_ECN_CE], 4);
	CHECK_EQ(out.nifs, 1);
	rt_filter_free(F);
	free(buf);
	TEST_END("filter_paused_delta");
}

/* A finding is kept by its flows; without flows, by its interface. */
static void test_finding(void)
{
	struct rt_finding f;
	struct rt_filter *F;
	char err[200];

	memset(&f, 0, sizeof(f));
	rt_finding_add_flow(&f, &S, &fl[0], 0);
	rt_finding_add_flow(&f, &S, &fl[2], 1);
	rt_finding_add_flow(&f, &S, &fl[0], 0);	/* once */
	CHECK_EQ(f.nflows, 2);
	CHECK(!strcmp(f.flows[1].ifname, "eth1") && f.flows[1].prio == 6, "flow 2 as kept");
	const char *yes[] = { "proc ib_write_bw", "qp 300", "paused and if eth1", "rnr", "ce and src 10.0.0.1" };
	const char *no[] = { "cnp", "paused and if eth0", "src 10.1.0.7", "ce and if eth1" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		CHECK_EQ(rt_filter_parse(yes[i], &F, err, sizeof(err)), 0);
		CHECK(rt_finding_filter(F, &f) == 1, "%s keeps it", yes[i]);
		rt_filter_free(F);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		CHECK_EQ(rt_filter_parse(no[i], &F, err, sizeof(err)), 0);
		CHECK(rt_finding_filter(F, &f) == 0, "%s drops it", no[i]);
		rt_filter_free(F);
	}
	memset(&f, 0, sizeof(f));	/* a NIC counter's finding on eth1 */
	f.subj.has = RT_SUBJ_IFNAME | RT_SUBJ_DEVICE | RT_SUBJ_COUNTER;
	memcpy(f.subj.ifname, "eth1", 5);
	memcpy(f.subj.device, "mlx5_0", 7);
	CHECK_EQ(rt_filter_parse("if eth1", &F, err, sizeof(err)), 0);
	CHECK_EQ(rt_finding_filter(F, &f), 1);
	rt_filter_free(F);
	CHECK_EQ(rt_filter_parse("qp 5 or if eth0", &F, err, sizeof(err)), 0);
	CHECK_EQ(rt_finding_filter(F, &f), 0);
	rt_filter_free(F);
	TEST_END("filter_finding");
}

int main(void)
{
	setup();
	test_keeps();
	test_errors();
	test_depth();
	test_kinds();
	test_paused_and_delta();
	test_finding();
	rt_snapshot_free(&S);
	return TEST_EXIT();
}
