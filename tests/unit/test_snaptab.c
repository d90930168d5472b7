// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The persistent flow table (user/core/snapshot_flows.c) under churn: flows appear,
 * count, and go (rt_snapshot_remove, as evictions and files' --flow-timeout
 * do) at random over many intervals. The oracle is a model kept by the test
 * alone: an array indexed by flow number holding whether the flow lives and
 * its packet count, and the increments of the interval. Every interval:
 *  - every live flow is found with its exact count, no dead one is;
 *  - the changed-only delta (rt_delta_changes) names exactly the flows the
 *    model touched, in key order, each with the model's increment;
 *  - the kept key order (rt_snapshot_key_order) and rt_snapshot_copy_sorted
 *    equal qsort of the model's live keys, with their counts.
 * And rt_sortkeys_sort (the delta's own sort, on keys turned into words)
 * against qsort of the keys themselves by rt_flow_key_cmp, the order the
 * delta promises, on shapes that trouble a quicksort.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "snapshot.h"

#define NF	3000	/* flow numbers */
#define ROUNDS	150

struct model {
	int live;
	__u64 pkts;	/* since it (last) appeared */
	__u64 inc;	/* this interval */
	int touched;
};

static void key_of(struct rt_flow_key *k, int i)
{
	memset(k, 0, sizeof(*k));
	k->ifindex = 1 + (__u32)(i % 3);
	k->dir = (__u8)(i & 1);
	k->family = 4;
	k->src[0] = 10;
	k->src[3] = (__u8)(i % 50);
	k->dst[0] = 10;
	k->dst[3] = (__u8)(i % 7);	/* 350 host pairs, each shared by several flows */
	k->dqpn = (__u32)i;		/* the flow's number, for the test */
}

static int key_qcmp(const void *a, const void *b)
{
	return rt_flow_key_cmp(a, b);
}

/* track: with the rows' index places kept (tab->pos, which the first
 * rt_snapshot_expire turns on), so removals go by them, not by probes. */
static void test_churn(int track)
{
	static struct model m[NF];
	static struct rt_flow_key want[NF];
	struct rt_snapshot s, sorted;
	struct rt_delta d = { 0 };
	unsigned int seed = 7;
	int bad_find = 0, bad_delta = 0, bad_order = 0, bad_copy = 0;
	size_t removed = 0, added = 0;

	memset(m, 0, sizeof(m));	/* static: each run starts from no flow */
	rt_snapshot_init(&s);
	rt_snapshot_init(&sorted);
	CHECK(rt_snapshot_make_table(&s) == 0, "a table");
	for (int round = 0; round < ROUNDS; round++) {
		size_t nlive = 0, nw = 0, ntouched = 0;

		if (track && round == 5) {	/* an expiry that removes nothing (no
						 * row is older than 0): from now on,
						 * the places of the rows there are kept */
			CHECK(rt_snapshot_expire(&s, 0, NULL) == 0, "nothing expires");
			CHECK(s.tab->pos != NULL && s.nflows > 0, "places kept, %zu rows", s.nflows);
		}

		rt_snapshot_next_interval(&s);
		for (int i = 0; i < NF; i++) {
			m[i].inc = 0;
			m[i].touched = 0;
		}
		/* counts: a few hundred packets on random flows (new ones appear) */
		for (int p = 0; p < 400; p++) {
			int i = (int)(rand_r(&seed) % NF);
			struct rt_flow_key k;
			struct rt_flow *f;
			int fresh;

			key_of(&k, i);
			f = rt_snapshot_flow(&s, &k, &fresh);
			if (!f)
				continue;
			if (fresh != !m[i].live)
				bad_find++;
			if (!m[i].live) {
				m[i].live = 1;
				m[i].pkts = 0;
				added++;
			}
			rt_snapshot_touch(&s, f);	/* before the counters move */
			f->v.pkts++;
			if (i % 4 == 0)
				f->v.cnp++;
			m[i].pkts++;
			m[i].inc++;
			m[i].touched = 1;
			if (i % 4 == 0)
				rt_snapshot_note_cnp(&s, f);
		}
		/* goes: flows untouched this interval, at random (never one in the delta) */
		for (int i = 0; i < NF; i++) {
			struct rt_flow_key k;
			int fresh;
			struct rt_flow *f;

			if (!m[i].live || m[i].touched || rand_r(&seed) % 8)
				continue;
			key_of(&k, i);
			f = rt_snapshot_flow(&s, &k, &fresh);
			if (!f || fresh) {
				bad_find++;
				continue;
			}
			rt_snapshot_remove(&s, (size_t)(f - s.flows));
			m[i].live = 0;
			removed++;
		}
		s.time_ns = s.mono_ns = (__u64)(round + 1) * 1000000000ULL;
		CHECK(rt_delta_changes(&d, NULL, &s) == 0, "delta");

		for (int i = 0; i < NF; i++) {
			struct rt_flow_key k;
			int fresh = 0;
			const struct rt_flow *f = NULL;

			if (m[i].touched)
				ntouched++;
			if (!m[i].live)
				continue;
			nlive++;
			key_of(&k, i);
			want[nw++] = k;
			f = rt_snapshot_flow(&s, &k, &fresh);
			if (!f || fresh || f->v.pkts != m[i].pkts)
				bad_find++;
		}
		CHECK(s.nflows == nlive, "round %d: %zu rows, the model %zu live", round, s.nflows, nlive);
		/* the indexes: at most half full, a quarter once rows expire
		 * (struct rt_flow_table's spread; round 5 expired, then rows came) */
		{
			size_t per = track && round > 5 ? 4 : 2;

			CHECK(s.tab->nslot >= per * s.nflows && s.tab->npslot >= per * s.tab->npairs,
			      "round %d: %zu index slots for %zu rows, %zu pair slots for %zu pairs",
			      round, s.tab->nslot, s.nflows, s.tab->npslot, s.tab->npairs);
		}
		qsort(want, nw, sizeof(*want), key_qcmp);

		/* the delta: the touched flows, in key order, with their increments */
		if (d.nflows != ntouched)
			bad_delta++;
		for (size_t j = 0; j < d.nflows; j++) {
			const struct rt_flow_key *k = &d.flows[j].f->k;
			int i = (int)k->dqpn;

			if (!m[i].touched || d.flows[j].d.pkts != m[i].inc ||
			    (j && rt_flow_key_cmp(&d.flows[j - 1].f->k, k) >= 0))
				bad_delta++;
		}

		/* the kept key order, every few rounds (so several rounds of adds
		 * and removals merge in at once) and at the end */
		if (round % 3 == 0 || round == ROUNDS - 1) {
			const __u32 *o = rt_snapshot_key_order(&s);

			for (size_t j = 0; o && j < nw; j++)
				if (rt_flow_key_cmp(&s.flows[o[j]].k, &want[j]))
					bad_order++;
			CHECK(o != NULL, "key order");
			CHECK(rt_snapshot_copy_sorted(&sorted, &s) == 0, "sorted copy");
			CHECK(sorted.nflows == nw && !sorted.tab, "sorted copy: %zu rows", sorted.nflows);
			for (size_t j = 0; j < sorted.nflows && j < nw; j++) {
				const struct rt_flow *f = &sorted.flows[j];
				int i = (int)f->k.dqpn;

				if (rt_flow_key_cmp(&f->k, &want[j]) || f->v.pkts != m[i].pkts)
					bad_copy++;
			}
		}
	}
	CHECK(added > 1000 && removed > 500, "churn: %zu appeared, %zu went", added, removed);
	CHECK(!bad_find, "%d lookups disagree with the model", bad_find);
	CHECK(!bad_delta, "%d delta entries disagree with the model", bad_delta);
	CHECK(!bad_order, "%d places of the kept key order differ from qsort's", bad_order);
	CHECK(!bad_copy, "%d rows of the sorted copy differ from the model", bad_copy);
	rt_delta_free(&d);
	rt_snapshot_free(&s);
	rt_snapshot_free(&sorted);
	TEST_END(track ? "flow table churn, rows' index places kept: lookups, changed-only delta, kept key order" :
		 "flow table churn: lookups, changed-only delta, kept key order");
}

/*
 * rt_snapshot_apply (whole snapshots folded into the table: recordings, the
 * NIC's whole-snapshot path) under churn, its per-row marks in an array of
 * their own (tab->ap) that rows carry when they move. The oracle is the
 * snapshot the test builds each interval, in an order of its own: after each
 * apply the table holds exactly its flows (no other), each with its counts,
 * a CNP row's throttles naming the row of the key the test named, and the
 * delta names exactly the flows whose counts the test moved or that are new.
 * The table starts with rows put in place (rt_snapshot_flow), as a source
 * switched to whole snapshots would leave them: those not applied go.
 */
static void test_apply(void)
{
	enum { NA = NF - 200 };	/* flow numbers applied; the 200 above: put in place */
	static int in[NA + 1], moved[NA], target[NF], nrows[NF];
	static size_t row[NF];
	static __u64 pkts[NA], inc[NA];
	struct rt_snapshot s, src;
	struct rt_delta d = { 0 };
	unsigned int seed = 11;
	int bad = 0, bad_delta = 0, bad_thr = 0;

	rt_snapshot_init(&s);
	rt_snapshot_init(&src);
	CHECK(rt_snapshot_make_table(&s) == 0, "a table");
	for (int i = 0; i < 200; i++) {	/* rows put in place before any apply */
		struct rt_flow_key k;
		int fresh;

		key_of(&k, NA + i);
		CHECK(rt_snapshot_flow(&s, &k, &fresh) && fresh, "row %d", i);
	}
	for (int round = 0; round < 60; round++) {
		size_t nin = 0;
		int start = (int)(rand_r(&seed) % NA);

		rt_snapshot_next_interval(&s);
		rt_snapshot_clear(&src);
		for (int i = 0; i < NA; i++) {
			int was = in[i];

			/* about half the flows in each snapshot, a tenth of them moving */
			in[i] = !round ? (int)(rand_r(&seed) % 2) :
			       was ? rand_r(&seed) % 6 != 0 : rand_r(&seed) % 6 == 0;
			moved[i] = in[i] && (!was || rand_r(&seed) % 10 == 0);
			inc[i] = 0;
			if (!in[i])
				pkts[i] = 0;	/* gone: its row goes, a return starts at 0 */
			else if (moved[i])
				pkts[i] += (inc[i] = 1 + (__u64)(i % 5));
		}
		/* the source's rows in an order of its own (a rotation of flow
		 * numbers), CNP rows (every fourth) throttling the flow one above */
		for (int j = 0; j < NA; j++) {
			int i = (start + j) % NA;
			struct rt_flow *f;

			if (!in[i])
				continue;
			f = rt_snapshot_add_flow(&src);
			if (!f) {
				CHECK(0, "memory");
				break;
			}
			key_of(&f->k, i);
			f->v.pkts = pkts[i];
			f->throttles = -1;
			if (i % 4 == 0)
				f->v.cnp = pkts[i];
			target[i] = -1;
		}
		for (size_t r = 0; r < src.nflows; r++)	/* src's row of each flow */
			target[src.flows[r].k.dqpn] = (int)r;
		for (size_t r = 0; r < src.nflows; r++) {
			int i = (int)src.flows[r].k.dqpn;

			if (i % 4 == 0 && i + 1 < NA && in[i + 1])
				src.flows[r].throttles = (__s32)target[i + 1];
		}
		CHECK(rt_snapshot_apply(&s, &src, 1) == 0, "apply");
		CHECK(rt_delta_changes(&d, NULL, &s) == 0, "delta");
		/* the rows of each flow number, read without a lookup */
		memset(nrows, 0, sizeof(nrows));
		for (size_t r = 0; r < s.nflows; r++)
			if (s.flows[r].k.dqpn < NF) {
				nrows[s.flows[r].k.dqpn]++;
				row[s.flows[r].k.dqpn] = r;
			}
		for (int i = 0; i < NF; i++) {
			const struct rt_flow *f;

			if (i >= NA || !in[i]) {	/* not applied: no row */
				bad += nrows[i] != 0;
				continue;
			}
			nin++;
			f = &s.flows[row[i]];
			if (nrows[i] != 1 || f->v.pkts != pkts[i]) {
				bad++;
				continue;
			}
			if (i % 4 == 0 && i + 1 < NA && in[i + 1]) {
				if (nrows[i + 1] != 1 || f->throttles != (__s32)row[i + 1])
					bad_thr++;
			} else if (f->throttles != -1) {
				bad_thr++;
			}
		}
		if (s.nflows != nin)
			bad++;
		/* the delta: every new or moved flow; besides them only CNP rows
		 * (their throttles follow their target's row when rows move) */
		{
			static int named[NA];

			memset(named, 0, sizeof(named));
			for (size_t j = 0; j < d.nflows; j++) {
				int i = (int)d.flows[j].f->k.dqpn;

				if (i >= NA || !in[i] || (!moved[i] && i % 4)) {
					bad_delta++;
					continue;
				}
				named[i] = 1;
				if (d.flows[j].d.pkts != inc[i])	/* 0: a CNP row's throttles moved */
					bad_delta++;
			}
			for (int i = 0; i < NA; i++)
				if (moved[i] && !named[i])
					bad_delta++;
		}
	}
	CHECK(bad == 0, "%d rows differ from the applied snapshots", bad);
	CHECK(bad_thr == 0, "%d throttles differ", bad_thr);
	CHECK(bad_delta == 0, "%d delta entries wrong or missing", bad_delta);
	rt_delta_free(&d);
	rt_snapshot_free(&s);
	rt_snapshot_free(&src);
	TEST_END("snaptab_apply_churn_side_marks");
}

/* Key number i of shape `shape` among n (duplicates allowed in some shapes). */
static void shaped_key(struct rt_flow_key *k, int shape, size_t i, size_t n, unsigned *seed)
{
	size_t v;

	switch (shape) {
	case 0: v = i; break;				/* ascending */
	case 1: v = n - i; break;			/* descending */
	case 2: v = i < n / 2 ? i : n - i; break;	/* organ pipe */
	case 3: v = (size_t)rand_r(seed) % 4; break;	/* few distinct keys */
	case 4: v = i % 2 ? i : n; break;		/* sawtooth */
	default: v = (size_t)rand_r(seed); break;	/* random */
	}
	memset(k, 0, sizeof(*k));
	k->ifindex = 1 + (__u32)(shape == 5 ? v % 3 : 0);
	k->family = 4;
	k->src[0] = 10;
	k->src[15] = (__u8)(v >> 24);	/* words differing in their last byte */
	k->dst[7] = (__u8)(v >> 16);
	k->dst[8] = (__u8)(v >> 8);
	k->dqpn = (__u32)v;
	k->mirror_id = (__u32)(v & 1);
}

static void test_sortkeys(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 15, 16, 17, 31, 100, 1000, 4099, 20000 };
	struct rt_flow_key *keys = malloc(20000 * sizeof(*keys)), *want = malloc(20000 * sizeof(*keys));
	struct rt_sortkey *sk = malloc(20000 * sizeof(*sk));
	unsigned char *seen = malloc(20000);
	unsigned seed = 7;
	int bad = 0, runs = 0;

	CHECK(keys && want && sk && seen, "memory");
	for (int shape = 0; keys && want && sk && seen && shape < 6; shape++)
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			size_t n = sizes[z];

			for (size_t i = 0; i < n; i++) {
				shaped_key(&keys[i], shape, i, n, &seed);
				rt_sortkey_make(&sk[i], &keys[i], i);
			}
			memcpy(want, keys, n * sizeof(*keys));
			qsort(want, n, sizeof(*want), key_qcmp);
			rt_sortkeys_sort(sk, n);
			memset(seen, 0, n);
			for (size_t i = 0; i < n; i++) {
				size_t r = (size_t)sk[i].row;

				if (r >= n || seen[r] || memcmp(&keys[r], &want[i], sizeof(*want))) {
					if (bad++ < 5)
						printf("  shape %d, %zu keys: place %zu holds row %zu\n", shape, n, i, r);
					break;
				}
				seen[r] = 1;
			}
			runs++;
		}
	CHECK(!bad, "%d of %d sorts differ from qsort's order", bad, runs);
	CHECK_EQ(runs, 72);
	free(keys);
	free(want);
	free(sk);
	free(seen);
	TEST_END("snaptab_sortkeys_as_qsort");
}

int main(void)
{
	test_churn(0);
	test_churn(1);
	test_apply();
	test_sortkeys();
	return TEST_EXIT();
}
