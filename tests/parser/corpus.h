/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The scapy-built packet corpus of tests/parser/packets.py, read by the C tests
 * (tests/unit/test_parse.c, tests/unit/test_bpf.c), and the counters it must
 * produce, worked out from scapy's fields alone (never from rocetop's parser).
 *
 * The corpus is generated at test time: $RT_PACKETS names a file made by
 * packets.py, otherwise the script is run with $PYTHON (default /usr/bin/python3)
 * from the top of the tree, where tests/run starts the tests.
 */
#ifndef RT_TEST_CORPUS_H
#define RT_TEST_CORPUS_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../bpf/parse.h"

/* Which optional fields a line gave. */
enum {
	F_NVLAN = 1 << 0, F_PCP = 1 << 1, F_FAMILY = 1 << 2, F_TOS = 1 << 3,
	F_SRC = 1 << 4, F_DST = 1 << 5, F_SPORT = 1 << 6, F_OPCODE = 1 << 7,
	F_DQPN = 1 << 8, F_PSN = 1 << 9, F_FECN = 1 << 10, F_BECN = 1 << 11,
	F_ACKREQ = 1 << 12, F_AETH = 1 << 13, F_SYND = 1 << 14, F_V6U = 1 << 15,
	F_CEV = 1 << 16, F_PAUSE = 1 << 17, F_MIRROR = 1 << 18,
};

struct pcase {
	char name[48];
	int kind;		/* enum rt_kind */
	__u8 *data;
	size_t len;
	size_t snap, minlen;
	unsigned int have;	/* F_* */
	struct rt_pkt e;	/* the expected fields (kind included) */
	char ifout[16];		/* rt_if_val outcome counter */
	char flowctr[16];	/* rt_flow_val counter, or "none" */
};

struct corpus {
	struct pcase *c;
	size_t n;
};

/* Each case pc of the corpus co, in its order. */
#define FOR_EACH_CASE(pc, co) \
	for (const struct pcase *pc = (co)->c; pc < (co)->c + (co)->n; pc++)

static inline int corpus_kind(const char *s)
{
	static const char *k[] = { "other", "roce", "pfc", "pause", "trunc", "malformed" };

	for (int i = 0; i < 6; i++)
		if (!strcmp(s, k[i]))
			return i;
	return -1;
}

static inline int corpus_hex(const char *s, __u8 *out, size_t max)
{
	size_t n = strlen(s) / 2;

	if (strlen(s) % 2 || n > max)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned int b;

		if (sscanf(s + 2 * i, "%2x", &b) != 1)
			return -1;
		out[i] = (__u8)b;
	}
	return (int)n;
}

static inline int corpus_line(char *line, struct pcase *pc)
{
	char *save = NULL, *tok;
	static __u8 buf[65536];

	memset(pc, 0, sizeof(*pc));
	pc->kind = -1;
	pc->e.pcp = RT_PCP_NONE;
	for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		char *v = strchr(tok, '=');
		unsigned long x;

		if (!v)
			return -1;
		*v++ = '\0';
		x = strtoul(v, NULL, 0);
		if (!strcmp(tok, "name")) {
			snprintf(pc->name, sizeof(pc->name), "%s", v);
		} else if (!strcmp(tok, "kind")) {
			pc->kind = corpus_kind(v);
			pc->e.kind = (__u8)pc->kind;
		} else if (!strcmp(tok, "hex")) {
			int n = corpus_hex(v, buf, sizeof(buf));

			if (n < 0)
				return -1;
			pc->len = (size_t)n;
			pc->data = malloc(n ? (size_t)n : 1);
			if (!pc->data)
				return -1;
			memcpy(pc->data, buf, (size_t)n);
		} else if (!strcmp(tok, "snap")) {
			pc->snap = x;
		} else if (!strcmp(tok, "minlen")) {
			pc->minlen = x;
		} else if (!strcmp(tok, "ifout")) {
			snprintf(pc->ifout, sizeof(pc->ifout), "%s", v);
		} else if (!strcmp(tok, "flowctr")) {
			snprintf(pc->flowctr, sizeof(pc->flowctr), "%s", v);
		} else if (!strcmp(tok, "nvlan")) {
			pc->e.nvlan = (__u8)x, pc->have |= F_NVLAN;
		} else if (!strcmp(tok, "pcp")) {
			pc->e.pcp = (__u8)x, pc->have |= F_PCP;
		} else if (!strcmp(tok, "family")) {
			pc->e.family = (__u8)x, pc->have |= F_FAMILY;
		} else if (!strcmp(tok, "tos")) {
			pc->e.tos = (__u8)x, pc->have |= F_TOS;
		} else if (!strcmp(tok, "src")) {
			if (corpus_hex(v, pc->e.src, 16) != 16)
				return -1;
			pc->have |= F_SRC;
		} else if (!strcmp(tok, "dst")) {
			if (corpus_hex(v, pc->e.dst, 16) != 16)
				return -1;
			pc->have |= F_DST;
		} else if (!strcmp(tok, "sport")) {
			pc->e.sport = (__u16)x, pc->have |= F_SPORT;
		} else if (!strcmp(tok, "opcode")) {
			pc->e.opcode = (__u8)x, pc->have |= F_OPCODE;
		} else if (!strcmp(tok, "dqpn")) {
			pc->e.dqpn = (__u32)x, pc->have |= F_DQPN;
		} else if (!strcmp(tok, "psn")) {
			pc->e.psn = (__u32)x, pc->have |= F_PSN;
		} else if (!strcmp(tok, "fecn")) {
			pc->e.fecn = (__u8)x, pc->have |= F_FECN;
		} else if (!strcmp(tok, "becn")) {
			pc->e.becn = (__u8)x, pc->have |= F_BECN;
		} else if (!strcmp(tok, "ackreq")) {
			pc->e.ackreq = (__u8)x, pc->have |= F_ACKREQ;
		} else if (!strcmp(tok, "has_aeth")) {
			pc->e.has_aeth = (__u8)x, pc->have |= F_AETH;
		} else if (!strcmp(tok, "syndrome")) {
			pc->e.syndrome = (__u8)x, pc->have |= F_SYND;
		} else if (!strcmp(tok, "v6u")) {
			pc->e.v6_unparsed = (__u8)x, pc->have |= F_V6U;
		} else if (!strcmp(tok, "mirror")) {
			unsigned int t, id, d;

			if (sscanf(v, "%u:%u:%u", &t, &id, &d) != 3)
				return -1;
			pc->e.mirror = (__u8)t;
			pc->e.mirror_id = id;
			pc->e.mirror_dir = (__u8)d;
			pc->have |= F_MIRROR;
		} else if (!strcmp(tok, "ioff")) {
			pc->e.inner_off = (__u32)x;
		} else if (!strcmp(tok, "ilen")) {
			pc->e.inner_len = (__u32)x;
		} else if (!strcmp(tok, "cev")) {
			pc->e.pfc_cev = (__u16)x, pc->have |= F_CEV;
		} else if (!strcmp(tok, "pause")) {
			char *s2 = NULL, *t;
			int i = 0;

			for (t = strtok_r(v, ",", &s2); t && i < 8; t = strtok_r(NULL, ",", &s2))
				pc->e.pause[i++] = (__u16)strtoul(t, NULL, 0);
			if (i != 8)
				return -1;
			pc->have |= F_PAUSE;
		} else {
			return -1;
		}
	}
	if (pc->kind < 0 || !pc->data || !pc->name[0] || !pc->ifout[0] || !pc->flowctr[0])
		return -1;
	return 0;
}

static inline void corpus_free(struct corpus *co)
{
	for (size_t i = 0; i < co->n; i++)
		free(co->c[i].data);
	free(co->c);
	co->c = NULL;
	co->n = 0;
}

/* Returns 0, or -1 with a reason in why (then the test should SKIP or FAIL). */
static inline int corpus_load(struct corpus *co, char *why, size_t whylen)
{
	const char *file = getenv("RT_PACKETS"), *py = getenv("PYTHON");
	char cmd[512], *line = NULL;
	size_t cap = 0, lineno = 0;
	FILE *f;
	int rc = 0;

	memset(co, 0, sizeof(*co));
	if (file) {
		f = fopen(file, "r");
	} else {
		snprintf(cmd, sizeof(cmd), "%s tests/parser/packets.py",
			 py && *py ? py : "/usr/bin/python3");
		f = popen(cmd, "r");
	}
	if (!f) {
		snprintf(why, whylen, "cannot run or open the corpus generator");
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		struct pcase *nc;

		lineno++;
		nc = realloc(co->c, (co->n + 1) * sizeof(*co->c));
		if (!nc) {
			rc = -1;
			break;
		}
		co->c = nc;
		if (corpus_line(line, &co->c[co->n])) {
			snprintf(why, whylen, "bad corpus line %zu", lineno);
			free(co->c[co->n].data);
			rc = -1;
			break;
		}
		co->n++;
	}
	free(line);
	if (file)
		fclose(f);
	else if (pclose(f) != 0 && !rc) {
		snprintf(why, whylen, "tests/parser/packets.py failed (python3-scapy missing?)");
		rc = -1;
	}
	if (!rc && co->n == 0) {
		snprintf(why, whylen, "empty corpus");
		rc = -1;
	}
	if (rc)
		corpus_free(co);
	return rc;
}

/* ---- the counters the corpus must produce, from the fixture's fields ---- */

#define CORPUS_MAX_FLOWS 512

struct corpus_flows {
	struct rt_flow_key k[CORPUS_MAX_FLOWS];
	struct rt_flow_val v[CORPUS_MAX_FLOWS];
	size_t n;
};

/* A counter the corpus names: its name, whether it is a flow's (struct
 * rt_flow_val) or an interface's (struct rt_if_val), and where it is there. */
struct corpus_ctr {
	const char *name;
	int flow;
	size_t off;
};

#define CORPUS_IF(f)	{ #f, 0, offsetof(struct rt_if_val, f) }
#define CORPUS_FLOW(f)	{ #f, 1, offsetof(struct rt_flow_val, f) }

static const struct corpus_ctr corpus_ctrs[] = {
	CORPUS_IF(roce), CORPUS_IF(not_roce), CORPUS_IF(truncated), CORPUS_IF(malformed), CORPUS_IF(mac_ctrl),
	CORPUS_FLOW(cnp), CORPUS_FLOW(ack), CORPUS_FLOW(nak_seq), CORPUS_FLOW(nak_other), CORPUS_FLOW(rnr_nak),
};

/* The counter of that name in the flow's or the interface's counters at v, or NULL. */
static inline __u64 *corpus_ctr(void *v, int flow, const char *name)
{
	for (size_t i = 0; i < sizeof(corpus_ctrs) / sizeof(corpus_ctrs[0]); i++)
		if (corpus_ctrs[i].flow == flow && !strcmp(name, corpus_ctrs[i].name))
			return (__u64 *)((char *)v + corpus_ctrs[i].off);
	return NULL;
}

static inline __u64 *corpus_if_ctr(struct rt_if_val *v, const char *name)
{
	return corpus_ctr(v, 0, name);
}

static inline __u64 *corpus_flow_ctr(struct rt_flow_val *v, const char *name)
{
	return corpus_ctr(v, 1, name);
}

/* What one frame of the corpus adds to its interface's counters; -1 on a bad line. */
static inline int corpus_expect_if(struct rt_if_val *v, const struct pcase *pc, __u64 len)
{
	__u64 *c = corpus_if_ctr(v, pc->ifout);

	if (!c)
		return -1;
	v->pkts++;
	v->bytes += len;
	(*c)++;
	if (pc->e.mirror)
		v->mirrored++;
	if (pc->e.v6_unparsed)
		v->v6_unparsed++;
	if (pc->kind == RT_K_PFC) {
		for (int i = 0; i < 8; i++) {
			if (!((pc->e.pfc_cev >> i) & 1))
				continue;
			v->pfc_frames[i]++;
			v->pfc_quanta[i] += pc->e.pause[i];
			v->pfc_xon[i] += pc->e.pause[i] == 0;
		}
	} else if (pc->kind == RT_K_PAUSE) {
		v->pfc_frames[RT_PRIO_GLOBAL]++;
		v->pfc_quanta[RT_PRIO_GLOBAL] += pc->e.pause[0];
		v->pfc_xon[RT_PRIO_GLOBAL] += pc->e.pause[0] == 0;
	}
	return 0;
}

static inline void corpus_key(struct rt_flow_key *k, const struct pcase *pc, __u32 ifindex, __u8 dir)
{
	memset(k, 0, sizeof(*k));
	k->ifindex = ifindex;
	k->dir = dir;
	k->family = pc->e.family;
	memcpy(k->src, pc->e.src, 16);
	memcpy(k->dst, pc->e.dst, 16);
	k->dqpn = pc->e.dqpn;
	k->mirror = pc->e.mirror;
	k->mirror_id = pc->e.mirror_id | (pc->e.mirror_dir ? RT_MIRROR_EGRESS : 0);
}

/* What one RoCE frame adds to its flow (first_ns/last_ns left alone); -1 on a bad line.
 * len is the frame's length; a mirror copy's flow counts its inner frame's. */
static inline int corpus_expect_flow(struct corpus_flows *fl, const struct pcase *pc, __u64 len,
			      __u32 ifindex, __u8 dir)
{
	struct rt_flow_key k;
	struct rt_flow_val *v;
	size_t i;

	if (pc->kind != RT_K_ROCE)
		return 0;
	corpus_key(&k, pc, ifindex, dir);
	for (i = 0; i < fl->n; i++)
		if (!memcmp(&fl->k[i], &k, sizeof(k)))
			break;
	if (i == fl->n) {
		if (fl->n == CORPUS_MAX_FLOWS)
			return -1;
		fl->k[fl->n] = k;
		memset(&fl->v[fl->n], 0, sizeof(fl->v[0]));
		fl->n++;
	}
	v = &fl->v[i];
	v->pkts++;
	v->bytes += pc->e.mirror ? pc->e.inner_len : len;
	v->ecn[pc->e.tos & 3]++;
	if (strcmp(pc->flowctr, "none")) {
		__u64 *c = corpus_flow_ctr(v, pc->flowctr);

		if (!c)
			return -1;
		(*c)++;
	}
	v->sport = pc->e.sport;
	v->dscp = pc->e.tos >> 2;
	v->pcp = pc->e.pcp;
	v->opcode = pc->e.opcode;
	/* every frame's DSCP and priority (its PCP, else DSCP / 8) */
	v->dscps |= 1ULL << (pc->e.tos >> 2);
	v->prios |= (__u8)(1u << (pc->e.pcp != RT_PCP_NONE ? pc->e.pcp & 7 : pc->e.tos >> 5));
	return 0;
}

/* Names of the rt_if_val counters, in order, for messages. */
static inline const char *corpus_if_field(size_t i)
{
	static const char *names[] = { "pkts", "bytes", "roce", "not_roce", "truncated",
				       "malformed", "v6_unparsed", "mac_ctrl", "flow_full",
				       "mirrored" };
	static char buf[32];

	if (i < 10)
		return names[i];
	i -= 10;
	snprintf(buf, sizeof(buf), "pfc_%s[%zu]",
		 i < RT_NPRIO ? "frames" : i < 2 * RT_NPRIO ? "xon" : "quanta", i % RT_NPRIO);
	return buf;
}

#endif
