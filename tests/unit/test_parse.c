// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The parser (bpf/parse.h) and what a frame adds to the counters (bpf/count.h),
 * on the scapy-built corpus of tests/parser/packets.py: every field exact, every
 * prefix of every frame classified exactly (truncated below the length the
 * headers need, identical to the whole frame above it), and every prefix read
 * from a buffer of exactly its size so the sanitizer build catches a read past
 * data_end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
/* parse.h unrolls its loops for the BPF target; gcc has no use for the hint. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include "../../bpf/count.h"
#pragma GCC diagnostic pop
#include "../parser/corpus.h"

static const char *kind_name(int k)
{
	static const char *n[] = { "other", "roce", "pfc", "pause", "trunc", "malformed" };

	return k >= 0 && k < 6 ? n[k] : "?";
}

static int parse_buf(const __u8 *data, size_t n, __u64 frame_len, struct rt_pkt *p)
{
	memset(p, 0, sizeof(*p));
	return rt_parse(data, data + n, frame_len, p);
}

#define FIELD(flag, f) do { \
	if ((pc->have & (flag)) && got->f != pc->e.f) { \
		printf("  %s: %s = %llu, expected %llu\n", pc->name, #f, \
		       (unsigned long long)got->f, (unsigned long long)pc->e.f); \
		bad++; \
	} } while (0)

/* The fields the corpus line gives, against what the parser found. */
static int compare_fields(const struct pcase *pc, const struct rt_pkt *got)
{
	int bad = 0;

	if (got->kind != pc->kind) {
		printf("  %s: kind %s, expected %s\n", pc->name, kind_name(got->kind),
		       kind_name(pc->kind));
		return 1;
	}
	FIELD(F_NVLAN, nvlan);
	FIELD(F_PCP, pcp);
	FIELD(F_FAMILY, family);
	FIELD(F_TOS, tos);
	FIELD(F_SPORT, sport);
	FIELD(F_OPCODE, opcode);
	FIELD(F_DQPN, dqpn);
	FIELD(F_PSN, psn);
	FIELD(F_FECN, fecn);
	FIELD(F_BECN, becn);
	FIELD(F_ACKREQ, ackreq);
	FIELD(F_AETH, has_aeth);
	FIELD(F_SYND, syndrome);
	FIELD(F_CEV, pfc_cev);
	FIELD(F_MIRROR, mirror_dir);
	FIELD(F_MIRROR, mirror_id);
	FIELD(F_MIRROR, inner_off);
	FIELD(F_MIRROR, inner_len);
	/* mirror is 0 (seen directly) unless the line says otherwise */
	if (got->mirror != pc->e.mirror) {
		printf("  %s: mirror = %u, expected %u\n", pc->name, got->mirror, pc->e.mirror);
		bad++;
	}
	/* v6_unparsed is 0 unless the line says otherwise */
	if (pc->kind != RT_K_TRUNC && got->v6_unparsed != pc->e.v6_unparsed) {
		printf("  %s: v6_unparsed = %u, expected %u\n", pc->name, got->v6_unparsed,
		       pc->e.v6_unparsed);
		bad++;
	}
	if ((pc->have & F_SRC) && memcmp(got->src, pc->e.src, 16)) {
		printf("  %s: src differs\n", pc->name);
		bad++;
	}
	if ((pc->have & F_DST) && memcmp(got->dst, pc->e.dst, 16)) {
		printf("  %s: dst differs\n", pc->name);
		bad++;
	}
	if (pc->have & F_PAUSE)
		for (int i = 0; i < 8; i++)
			if (got->pause[i] != pc->e.pause[i]) {
				printf("  %s: pause[%d] = %u, expected %u\n", pc->name, i,
				       got->pause[i], pc->e.pause[i]);
				bad++;
			}
	return bad;
}

/* The corpus must hold what packets.py promises, so a broken generator cannot
 * make the other tests pass vacuously. */
static void test_corpus_shape(const struct corpus *co)
{
	size_t kinds[6] = { 0 }, mk[6] = { 0 }, types[RT_MIRROR_MAX + 1] = { 0 };
	size_t ack_cuts = 0, pfc_cuts = 0, v6u = 0, plat = 0;

	FOR_EACH_CASE(pc, co) {
		if (pc->e.mirror) {
			mk[pc->kind]++;
			if (pc->e.mirror <= RT_MIRROR_MAX)
				types[pc->e.mirror]++;
			plat += !strncmp(pc->name, "erspan3p_", 9);
		} else {
			kinds[pc->kind]++;
		}
		ack_cuts += !strncmp(pc->name, "ack_cut_", 8);
		pfc_cuts += !strncmp(pc->name, "pfc_cut_", 8);
		v6u += pc->e.v6_unparsed;
		CHECK(pc->kind != RT_K_ROCE || (pc->have & 0x7fff) == 0x7fff,
		      "%s: RoCE line lacks fields", pc->name);
		CHECK(pc->kind != RT_K_PFC || (pc->have & (F_CEV | F_PAUSE)) == (F_CEV | F_PAUSE),
		      "%s: PFC line lacks fields", pc->name);
	}
	/* frames seen directly */
	CHECK_EQ(kinds[RT_K_ROCE], 34);
	CHECK_EQ(kinds[RT_K_PFC], 4);
	CHECK_EQ(kinds[RT_K_PAUSE], 2);
	CHECK_EQ(kinds[RT_K_MALFORMED], 6);
	CHECK_EQ(kinds[RT_K_OTHER], 10 + 8);	/* + 8 refused encapsulations */
	CHECK_EQ(ack_cuts, 62);		/* 14 + 20 + 8 + 12 + 4 header bytes, no payload */
	CHECK_EQ(pfc_cuts, 34);		/* 14 + 2 + 2 + 16 */
	CHECK_EQ(kinds[RT_K_TRUNC], 62 + 34 + 3);	/* + 3 outer headers cut by their IP/UDP */
	CHECK_EQ(v6u, 2 * 7);		/* each well-formed direct frame is mirrored 6 times */
	/* mirror copies: the 56 well-formed direct frames in 6 wrappings, 3 nested
	 * encapsulations, inner ACKs cut at each of 62 bytes twice, a PFC frame at 34 */
	CHECK_EQ(mk[RT_K_ROCE], 6 * 34);
	CHECK_EQ(mk[RT_K_PFC], 6 * 4);
	CHECK_EQ(mk[RT_K_PAUSE], 6 * 2);
	CHECK_EQ(mk[RT_K_MALFORMED], 6 * 6);
	CHECK_EQ(mk[RT_K_OTHER], 6 * 10 + 3);
	CHECK_EQ(mk[RT_K_TRUNC], 2 * 62 + 34);
	CHECK_EQ(types[RT_MIRROR_ERSPAN2], 56 + 1 + 34);
	CHECK_EQ(types[RT_MIRROR_ERSPAN3], 2 * 56 + 62);
	CHECK_EQ(types[RT_MIRROR_GRE], 56 + 1);
	CHECK_EQ(types[RT_MIRROR_VXLAN], 56 + 1 + 62);
	CHECK_EQ(types[RT_MIRROR_ERSPAN1], 56);
	CHECK_EQ(plat, 56);
	TEST_END("parse_corpus_shape");
}

static void test_fields(const struct corpus *co)
{
	FOR_EACH_CASE(pc, co) {
		struct rt_pkt p;

		parse_buf(pc->data, pc->len, pc->len, &p);
		check_failed += compare_fields(pc, &p);
	}
	TEST_END("parse_fields");
}

/* rt_count_if: every frame lands in exactly its outcome, PFC per class. */
static void test_count_if(const struct corpus *co)
{
	FOR_EACH_CASE(pc, co) {
		struct rt_if_val got = { 0 }, exp = { 0 };
		struct rt_pkt p;

		parse_buf(pc->data, pc->len, pc->len, &p);
		rt_count_if(&got, &p, pc->len);
		CHECK(!corpus_expect_if(&exp, pc, pc->len), "%s: bad ifout", pc->name);
		for (size_t j = 0; j < sizeof(got) / 8; j++)
			CHECK(((__u64 *)&got)[j] == ((__u64 *)&exp)[j], "%s: %s = %llu, expected %llu",
			      pc->name, corpus_if_field(j), (unsigned long long)((__u64 *)&got)[j],
			      (unsigned long long)((__u64 *)&exp)[j]);
	}
	TEST_END("parse_count_if");
}

/* rt_count_flow: the same RoCE frame twice into a fresh flow. */
static void test_count_flow(const struct corpus *co)
{
	size_t nroce = 0;

	FOR_EACH_CASE(pc, co) {
		struct rt_flow_val got = { 0 }, exp = { 0 };
		struct rt_pkt p;
		__u64 *c;

		if (pc->kind != RT_K_ROCE)
			continue;
		nroce++;
		parse_buf(pc->data, pc->len, pc->len, &p);
		rt_count_flow(&got, &p, pc->len, 1000);
		rt_count_flow(&got, &p, pc->len, 2500);
		exp.pkts = 2;
		exp.bytes = 2 * (pc->e.mirror ? pc->e.inner_len : pc->len);
		exp.ecn[pc->e.tos & 3] = 2;
		c = corpus_flow_ctr(&exp, pc->flowctr);
		if (c)
			*c = 2;
		exp.first_ns = 1000;
		exp.last_ns = 2500;
		exp.sport = pc->e.sport;
		exp.dscp = pc->e.tos >> 2;
		exp.pcp = pc->e.pcp;
		exp.opcode = pc->e.opcode;
		/* every packet's DSCP and priority (the PCP, else DSCP / 8) */
		exp.dscps = 1ULL << (pc->e.tos >> 2);
		exp.prios = (__u8)(1u << (pc->e.pcp != RT_PCP_NONE ? pc->e.pcp & 7 : pc->e.tos >> 5));
		CHECK(!memcmp(&got, &exp, sizeof(got)),
		      "%s: flow pkts %llu bytes %llu ecn %llu/%llu/%llu/%llu cnp %llu ack %llu "
		      "nak %llu/%llu rnr %llu first %llu last %llu sport %u dscp %u pcp %u op %u "
		      "(expected %s += 2, ecn[%d] = 2)", pc->name,
		      (unsigned long long)got.pkts, (unsigned long long)got.bytes,
		      (unsigned long long)got.ecn[0], (unsigned long long)got.ecn[1],
		      (unsigned long long)got.ecn[2], (unsigned long long)got.ecn[3],
		      (unsigned long long)got.cnp, (unsigned long long)got.ack,
		      (unsigned long long)got.nak_seq, (unsigned long long)got.nak_other,
		      (unsigned long long)got.rnr_nak, (unsigned long long)got.first_ns,
		      (unsigned long long)got.last_ns, got.sport, got.dscp, got.pcp, got.opcode,
		      pc->flowctr, pc->e.tos & 3);
	}
	CHECK_EQ(nroce, 34 + 6 * 34);
	TEST_END("parse_count_flow");
}

/* A prefix of n bytes of pc's frame, parsed as kind k into p: trunc below
 * limit, from there on exactly the whole frame's parse (full). */
static void check_prefix(const struct pcase *pc, const char *what, size_t n, size_t limit, int k,
			 const struct rt_pkt *p, const struct rt_pkt *full)
{
	if (n < limit)
		CHECK(k == RT_K_TRUNC, "%s %s %zu/%zu: kind %s, expected trunc",
		      pc->name, what, n, pc->len, kind_name(k));
	else
		CHECK(!memcmp(p, full, sizeof(*p)),
		      "%s %s %zu/%zu: kind %s, differs from the whole frame (%s)",
		      pc->name, what, n, pc->len, kind_name(k), kind_name(full->kind));
}

/*
 * Every prefix of every frame, from a heap buffer of exactly that size: as a
 * capture cut at a snap length (frame_len the whole frame) and as a frame that
 * really is that short. Below the length its headers need a frame is trunc,
 * from there on it parses exactly like the whole frame.
 */
static void test_prefixes(const struct corpus *co)
{
	size_t runs = 0, cut_roce = 0;

	FOR_EACH_CASE(pc, co) {
		struct rt_pkt full, p;

		parse_buf(pc->data, pc->len, pc->len, &full);
		for (size_t n = 0; n <= pc->len; n++) {
			__u8 *b = malloc(n ? n : 1);
			int k;

			if (!b) {
				CHECK(0, "out of memory");
				return;
			}
			memcpy(b, pc->data, n);

			k = parse_buf(b, n, pc->len, &p);
			check_prefix(pc, "snap", n, pc->snap, k, &p, &full);

			k = parse_buf(b, n, n, &p);
			if (k == RT_K_ROCE && n < pc->len && n < pc->minlen)
				cut_roce++;
			check_prefix(pc, "short", n, pc->minlen, k, &p, &full);
			free(b);
			runs += 2;
		}
	}
	CHECK(runs > 10000, "only %zu prefixes parsed", runs);
	TEST_END("parse_prefixes");
	CHECK_EQ(cut_roce, 0);
	TEST_END("parse_cut_frame_never_roce");
}

/* A frame with headers beyond data_end but inside frame_len (XDP multi-buffer):
 * never read past data_end, and a RoCE frame whose BTH is not readable is trunc. */
static void test_frags(const struct corpus *co)
{
	FOR_EACH_CASE(pc, co) {
		struct rt_pkt p;

		if (pc->kind != RT_K_ROCE)
			continue;
		/* headers readable, frame longer than what is readable */
		__u8 *b = malloc(pc->snap);

		if (!b)
			return;
		memcpy(b, pc->data, pc->snap);
		CHECK(parse_buf(b, pc->snap, pc->len + 4000, &p) == RT_K_ROCE,
		      "%s: kind %s with frame_len beyond the buffer", pc->name, kind_name(p.kind));
		CHECK(parse_buf(b, pc->snap - 1, pc->len + 4000, &p) == RT_K_TRUNC,
		      "%s: kind %s with the last header byte missing", pc->name, kind_name(p.kind));
		free(b);
	}
	TEST_END("parse_headers_past_data_end");
}

/* The whole corpus through one interface's counters and a flow table, against
 * totals worked out from scapy's fields. */
static void test_totals(const struct corpus *co)
{
	static struct corpus_flows exp, got;
	struct rt_if_val ig = { 0 }, ie = { 0 };
	size_t j;

	memset(&exp, 0, sizeof(exp));
	memset(&got, 0, sizeof(got));
	FOR_EACH_CASE(pc, co) {
		struct rt_flow_key k;
		struct rt_pkt p;

		CHECK(!corpus_expect_if(&ie, pc, pc->len), "%s", pc->name);
		CHECK(!corpus_expect_flow(&exp, pc, pc->len, 3, RT_DIR_INGRESS), "%s", pc->name);
		parse_buf(pc->data, pc->len, pc->len, &p);
		rt_count_if(&ig, &p, pc->len);
		if (p.kind != RT_K_ROCE)
			continue;
		rt_flow_key_init(&k, &p, 3, RT_DIR_INGRESS);
		for (j = 0; j < got.n; j++)
			if (!memcmp(&got.k[j], &k, sizeof(k)))
				break;
		if (j == got.n) {
			if (got.n == CORPUS_MAX_FLOWS)
				break;
			got.k[got.n++] = k;
		}
		rt_count_flow(&got.v[j], &p, pc->len, 0);
	}
	for (j = 0; j < sizeof(ie) / 8; j++)
		CHECK(((__u64 *)&ig)[j] == ((__u64 *)&ie)[j], "%s = %llu, expected %llu",
		      corpus_if_field(j), (unsigned long long)((__u64 *)&ig)[j],
		      (unsigned long long)((__u64 *)&ie)[j]);
	/* numbers worked out by hand from packets.py, beside the tally above: each
	 * well-formed direct frame is seen once directly and in 6 mirror copies */
	CHECK_EQ(ig.roce, 7 * 34);
	CHECK_EQ(ig.mac_ctrl, 7 * 6);
	CHECK_EQ(ig.pfc_frames[3], 7 * 3);
	CHECK_EQ(ig.pfc_xon[3], 7 * 1);
	CHECK_EQ(ig.pfc_quanta[3], 7 * (0xffff + 3));
	CHECK_EQ(ig.pfc_frames[7], 7 * 2);
	CHECK_EQ(ig.pfc_quanta[7], 7 * 509);
	CHECK_EQ(ig.pfc_frames[6], 7 * 1);	/* pfc_3_5_0's class 6 time is not enabled */
	CHECK_EQ(ig.pfc_quanta[6], 7 * 0x8000);
	CHECK_EQ(ig.pfc_frames[RT_PRIO_GLOBAL], 7 * 2);
	CHECK_EQ(ig.pfc_xon[RT_PRIO_GLOBAL], 7 * 1);
	CHECK_EQ(ig.pfc_quanta[RT_PRIO_GLOBAL], 7 * 0x1234);
	CHECK_EQ(ig.mirrored, 6 * 56 + 3 + 2 * 62 + 34);
	CHECK_EQ(ig.truncated, 62 + 34 + 3 + 6 * 0 + 2 * 62 + 34);

	CHECK_EQ(got.n, exp.n);
	for (j = 0; j < exp.n; j++) {
		size_t m;

		for (m = 0; m < got.n; m++)
			if (!memcmp(&got.k[m], &exp.k[j], sizeof(exp.k[j])))
				break;
		CHECK(m < got.n, "expected flow %zu (dqpn %u) missing", j, exp.k[j].dqpn);
		if (m == got.n)
			continue;
		got.v[m].first_ns = got.v[m].last_ns = 0;
		CHECK(!memcmp(&got.v[m], &exp.v[j], sizeof(exp.v[j])),
		      "flow dqpn %u family %u: pkts %llu/%llu bytes %llu/%llu ce %llu/%llu cnp %llu/%llu",
		      exp.k[j].dqpn, exp.k[j].family, (unsigned long long)got.v[m].pkts,
		      (unsigned long long)exp.v[j].pkts, (unsigned long long)got.v[m].bytes,
		      (unsigned long long)exp.v[j].bytes, (unsigned long long)got.v[m].ecn[3],
		      (unsigned long long)exp.v[j].ecn[3], (unsigned long long)got.v[m].cnp,
		      (unsigned long long)exp.v[j].cnp);
	}
	TEST_END("parse_corpus_totals");
}

int main(void)
{
	struct corpus co;
	char why[160];

	if (corpus_load(&co, why, sizeof(why))) {
		printf("SKIP parse_corpus: %s\n", why);
		return 0;
	}
	test_corpus_shape(&co);
	test_fields(&co);
	test_count_if(&co);
	test_count_flow(&co);
	test_prefixes(&co);
	test_frags(&co);
	test_totals(&co);
	corpus_free(&co);
	return TEST_EXIT();
}
