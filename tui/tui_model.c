// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The pure parts of the live view: data, history, rows, columns, layout. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
#include "linkspeed.h"
#include "tui_model.h"

const double tui_windows[TUI_NWIN] = { 2, 10, 40 };

/* ---------------------------------------------------------------- history */

void tui_hist_push(struct tui_hist *h, double t_end, double secs, const struct rt_flow_val *d)
{
	struct tui_sample *s = &h->s[h->head];

	s->t_end = t_end;
	s->secs = secs;
	s->c[TM_PKTS] = d->pkts;
	s->c[TM_BYTES] = d->bytes;
	s->c[TM_CE] = d->ecn[RT_ECN_CE];
	s->c[TM_CNP] = d->cnp;
	s->c[TM_NAK] = rt_nak(d);
	s->c[TM_RNR] = d->rnr_nak;
	h->head = (h->head + 1) % TUI_HIST;
	if (h->n < TUI_HIST)
		h->n++;
}

const struct tui_sample *tui_hist_at(const struct tui_hist *h, unsigned int i)
{
	if (!h || i >= h->n)
		return NULL;
	return &h->s[(h->head + TUI_HIST - 1 - i) % TUI_HIST];
}

double tui_hist_sum(const struct tui_hist *h, double now, double window, __u64 sum[TM_N])
{
	double covered = 0;
	unsigned int i;

	for (i = 0; h && i < h->n; i++) {
		const struct tui_sample *s = tui_hist_at(h, i);

		/* 1 ms of slack for timers that fire a little late */
		if (i > 0 && s->t_end - s->secs < now - window - 1e-3)
			break;
		for (int m = 0; m < TM_N; m++)
			sum[m] += s->c[m];
		covered += s->secs;
	}
	return covered;
}

/*
 * The packed samples of a flow (struct tui_hrec's p), oldest first. A sample
 * is: the intervals from the older sample to it (0 for the oldest, which is
 * interval first), a byte
 * saying which of the TM_N counts are not zero, then those counts, each as
 * an unsigned LEB128 number (7 bits a byte, low first, the top bit set on
 * every byte but the last): exact to 64 bits, one byte for a count below 128.
 */
#define TUI_SAMPLE_MAX	(10 + 1 + TM_N * 10)

static size_t put_uleb(__u8 *p, __u64 v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (__u8)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (__u8)v;
	return n;
}

static size_t get_uleb(const __u8 *p, __u64 *v)
{
	size_t n = 0;
	unsigned int sh = 0;

	*v = 0;
	do {
		*v |= (__u64)(p[n] & 0x7f) << sh;
		sh += 7;
	} while (p[n++] & 0x80);
	return n;
}

/* Decode the sample at p: *gap, c[] (zero where not counted); its length. */
static size_t get_sample(const __u8 *p, __u32 *gap, __u64 c[TM_N])
{
	size_t o;
	__u64 g;
	__u8 mask;

	o = get_uleb(p, &g);
	*gap = (__u32)g;
	mask = p[o++];
	for (int m = 0; m < TM_N; m++) {
		c[m] = 0;
		if (mask & (1u << m))
			o += get_uleb(p + o, &c[m]);
	}
	return o;
}

/* Samples held for a flow: one per interval since it came, at most TUI_HIST. */
static unsigned int hrec_n(const struct tui_hists *H, const struct tui_hrec *r)
{
	__u32 n = H->niv - r->start;

	return n < TUI_HIST ? n : TUI_HIST;
}

static void hrec_free(struct tui_hrec *r)
{
	if (r->cap)
		free(r->p);
	r->p = NULL;
	r->len = r->cap = 0;
}

/* Drop the oldest sample: the next one's gap becomes 0, its interval first.
 * A memmove of what is left, no decoding of it. */
static void hrec_drop_oldest(struct tui_hrec *r)
{
	__u8 *p = r->cap ? r->p : r->in;
	__u64 c[TM_N], g;
	__u32 gap;
	size_t l0 = get_sample(p, &gap, c), gl;

	if (l0 >= r->len) {
		hrec_free(r);
		return;
	}
	gl = get_uleb(p + l0, &g);
	r->first += (__u32)g;
	memmove(p + 1, p + l0 + gl, r->len - l0 - gl);
	p[0] = 0;
	r->len = (__u16)(1 + r->len - l0 - gl);
}

int tui_hists_push(struct tui_hists *H, size_t i, const struct rt_flow_val *d)
{
	const __u64 c[TM_N] = { d->pkts, d->bytes, d->ecn[RT_ECN_CE], d->cnp, rt_nak(d), d->rnr_nak };
	__u8 s[TUI_SAMPLE_MAX];
	struct tui_hrec *r;
	size_t n, old;
	__u8 mask = 0;

	if (i >= H->n || !H->pushed)
		return 0;
	for (int m = 0; m < TM_N; m++)
		if (c[m])
			mask |= (__u8)(1u << m);
	if (!mask)	/* nothing counted: a zero sample, which is not kept */
		return 0;
	r = &H->rec[i];
	while (r->len && H->niv - r->first >= TUI_HIST)	/* out of the history */
		hrec_drop_oldest(r);
	if (!r->len)
		r->first = H->niv;
	n = put_uleb(s, (__u64)(r->len ? H->niv - r->last : 0));
	s[n++] = mask;
	for (int m = 0; m < TM_N; m++)
		if (c[m])
			n += put_uleb(s + n, c[m]);
	old = r->len;
	if (!r->cap && n + old <= sizeof(r->in)) {	/* it still fits in place of the pointer */
		memcpy(r->in + old, s, n);
	} else {
		size_t cap = r->cap ? r->cap : 16;

		while (cap < n + old)
			cap *= 2;
		if (cap > r->cap) {
			__u8 *p = realloc(r->cap ? r->p : NULL, cap);

			if (!p)
				return -ENOMEM;
			if (!r->cap)	/* the bytes held in place move out */
				memcpy(p, r->in, old);
			r->p = p;
			r->cap = (__u16)cap;
		}
		memcpy(r->p + old, s, n);
	}
	r->len = (__u16)(n + old);
	r->last = H->niv;
	return 0;
}

void tui_hists_sums(const struct tui_hists *H, size_t i, __u64 sum[TUI_NWIN][TM_N], double secs[TUI_NWIN])
{
	const struct tui_hrec *r;
	unsigned int n, m[TUI_NWIN], w;
	__u32 v, age, gap;
	__u64 c[TM_N];

	for (w = 0; w < TUI_NWIN; w++)
		secs[w] = 0;
	if (i >= H->n)
		return;
	r = &H->rec[i];
	n = hrec_n(H, r);
	for (w = 0; w < TUI_NWIN; w++) {
		m[w] = n < H->win_n[w] ? n : H->win_n[w];
		secs[w] = H->cov[m[w]];
	}
	if (!r->len || H->niv - r->last >= m[TUI_NWIN - 1])	/* nothing in the windows */
		return;
	v = r->first;
	for (size_t o = 0; o < r->len;) {	/* oldest first */
		o += get_sample(tui_hrec_bytes(r) + o, &gap, c);
		v += gap;
		age = H->niv - v;
		for (w = 0; w < TUI_NWIN; w++)
			if (age < m[w])
				for (int k = 0; k < TM_N; k++)
					sum[w][k] += c[k];
	}
}

const struct tui_hist *tui_hists_get(const struct tui_hists *H, size_t i)
{
	static const struct rt_flow_val zero;
	struct tui_hist *h = H->dec;
	const struct tui_hrec *r;
	unsigned int n;
	__u32 v, age, gap;
	__u64 c[TM_N];

	if (i >= H->n || !h)
		return NULL;
	r = &H->rec[i];
	n = hrec_n(H, r);
	memset(h, 0, sizeof(*h));
	/* oldest first, so that the newest ends at the head */
	for (unsigned int j = n; j-- > 0;) {
		__u32 iv = H->niv - j;

		tui_hist_push(h, H->ring_t[iv % TUI_HIST], H->ring_s[iv % TUI_HIST], &zero);
	}
	/* then the counts of the kept samples into their places */
	v = r->first;
	for (size_t o = 0; o < r->len;) {	/* oldest first */
		o += get_sample(tui_hrec_bytes(r) + o, &gap, c);
		v += gap;
		age = H->niv - v;
		if (age < n)
			memcpy(h->s[(h->head + TUI_HIST - 1 - age) % TUI_HIST].c, c, sizeof(c));
	}
	return h;
}

void tui_hists_interval(struct tui_hists *H, double now, double secs)
{
	if (now < H->last_t) {		/* seek back: histories start again */
		for (size_t i = 0; i < H->n; i++)
			hrec_free(&H->rec[i]);
		H->n = 0;
	}
	H->last_t = now;
	H->pushed = secs > 0;
	if (H->pushed) {
		H->niv++;
		H->ring_t[H->niv % TUI_HIST] = now;
		H->ring_s[H->niv % TUI_HIST] = secs;
	}
}

int tui_hists_remap(struct tui_hists *H, size_t n, const __u32 *from)
{
	size_t cap = H->cap2, i;

	if (!H->dec && !(H->dec = malloc(sizeof(*H->dec))))
		return -ENOMEM;
	if (rt_grow_to((void **)&H->rec2, &cap, n ? n : 1, sizeof(*H->rec2)))
		return -ENOMEM;
	H->cap2 = cap;
	for (i = 0; i < n; i++) {
		struct tui_hrec *r = &H->rec2[i];
		__u32 f = from ? from[i] : (__u32)i + 1;

		if (f && f - 1 < H->n) {	/* from[] names each old flow once at most */
			*r = H->rec[f - 1];
			H->rec[f - 1].p = NULL;
			H->rec[f - 1].cap = H->rec[f - 1].len = 0;
		} else {
			memset(r, 0, sizeof(*r));
			/* its first sample is this interval's */
			r->start = H->niv - (H->pushed ? 1 : 0);
		}
	}
	for (i = 0; i < H->n; i++)	/* the flows that went */
		hrec_free(&H->rec[i]);
	/* the old array goes: a second one would cost as much again */
	free(H->rec);
	H->rec = H->rec2;
	H->cap = H->cap2;
	H->rec2 = NULL;
	H->cap2 = 0;
	H->n = n;
	return 0;
}

void tui_hists_done(struct tui_hists *H)
{
	double now = H->last_t;
	size_t i, k;

	/* the windows: how many of the newest intervals each takes (the same
	 * for every flow, which has a sample for each interval since it came),
	 * and the seconds they cover, summed newest first as tui_hist_sum does */
	H->cov[0] = 0;
	for (i = 0; i < TUI_HIST; i++) {
		__u32 iv = H->niv - (__u32)i;

		H->cov[i + 1] = H->cov[i] + (i < H->niv ? H->ring_s[iv % TUI_HIST] : 0);
	}
	for (int w = 0; w < TUI_NWIN; w++) {
		H->win_n[w] = H->niv ? 1 : 0;
		for (i = 1; i < TUI_HIST && i < H->niv; i++) {
			__u32 iv = H->niv - (__u32)i;

			if (H->ring_t[iv % TUI_HIST] - H->ring_s[iv % TUI_HIST] < now - tui_windows[w] - 1e-3)
				break;
			H->win_n[w]++;
		}
	}
	/* A flow that did not move within the last TUI_HIST intervals keeps no
	 * samples: a few of the flows are looked at each interval, all of them
	 * within TUI_HIST intervals. */
	for (k = H->n / (TUI_HIST / 2) + 1; k-- > 0 && H->n;) {
		struct tui_hrec *r;

		if (H->sweep >= H->n)
			H->sweep = 0;
		r = &H->rec[H->sweep++];
		if (r->len && H->niv - r->last >= TUI_HIST)
			hrec_free(r);
	}
}

void tui_hists_free(struct tui_hists *H)
{
	for (size_t i = 0; i < H->n; i++)
		hrec_free(&H->rec[i]);
	free(H->rec);
	free(H->rec2);
	free(H->dec);
	memset(H, 0, sizeof(*H));
}

/* ---------------------------------------------------------------- data */

void tui_data_init(struct tui_data *t)
{
	memset(t, 0, sizeof(*t));
	rt_snapshot_init(&t->snap);
}

void tui_data_free(struct tui_data *t)
{
	rt_snapshot_free(&t->snap);
	rt_delta_free(&t->iv);
	rt_delta_free(&t->since);
	tui_hists_free(&t->hists);
	free(t->from);
	free(t->ivd);
	free(t->ivr);
	free(t->ivix);
}

/* Where key k is among fl[from..n) (in key order), or n: galloping from
 * `from`, so a walk over keys in order costs O(log gap) a key. */
static size_t find_from(const struct rt_flow *fl, size_t n, size_t from, const struct rt_flow_key *k)
{
	size_t lo = from, hi = from, step = 1;

	if (from < n && !rt_flow_key_cmp(&fl[from].k, k))	/* the next one: every flow changed */
		return from;
	while (hi < n && rt_flow_key_cmp(&fl[hi].k, k) < 0) {
		lo = hi + 1;
		hi = from + step;
		step *= 2;
	}
	hi = hi < n ? hi + 1 : n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rt_flow_key_cmp(&fl[mid].k, k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !rt_flow_key_cmp(&fl[lo].k, k) ? lo : n;
}

/* The counters of v added to (sign 1) or taken from (sign -1) sum, modulo
 * 2^64 as the sums themselves are. */
static void val_count(struct rt_flow_val *sum, const struct rt_flow_val *v, int sign)
{
	const __u64 *a = (const __u64 *)v;
	__u64 *o = (__u64 *)sum;

	for (size_t i = 0; i < offsetof(struct rt_flow_val, first_ns) / 8; i++)
		o[i] += sign > 0 ? a[i] : -a[i];
}

/* Totals over flows keep counters only: the view shows no first or last
 * time of a total, and those could not follow the flows that changed. */
static void tot_counters(struct rt_flow_val *v)
{
	struct rt_flow_val c = { 0 };

	val_count(&c, v, 1);
	*v = c;
}

/*
 * The snapshot has the same flows as the view's copy, only d's changed:
 * their places in the copy (key order) into t->from. 1: so; 0: not so (a
 * flow came or went, or the last snapshot was not taken this way), nothing
 * changed; -ENOMEM.
 */
static int take_plan(struct tui_data *t, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	size_t n = t->snap.nflows, at = 0;

	if (!cur->tab || !t->table_ok || cur->nflows != n || t->nivix != n ||
	    t->hists.n != n || cur->time_ns / 1e9 < t->hists.last_t)
		return 0;
	if (rt_grow_to((void **)&t->from, &t->from_cap, d->nflows ? d->nflows : 1, sizeof(*t->from)))
		return -ENOMEM;
	for (size_t i = 0; i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		size_t r = find_from(t->snap.flows, n, at, &f->k);

		if (r == n)	/* a new flow (and then one went) */
			return 0;
		t->from[i] = (__u32)r;
		at = r + 1;
		/* a CNP flow's data flow by its place in the copy */
		if (f->throttles >= 0 && (size_t)f->throttles < n &&
		    find_from(t->snap.flows, n, 0, &cur->flows[f->throttles].k) == n)
			return 0;
	}
	return 1;
}

void tui_flow_d(const struct tui_data *t, int totals, size_t i, struct rt_flow_val *out)
{
	const struct rt_flow *f = &t->snap.flows[i];

	if (totals)	/* as rt_delta_compute from nothing: the counters themselves */
		*out = f->v;
	else if (i < t->nivix && t->ivix[i] == TUI_IVIX_OWN)
		*out = f->v;	/* counted from nothing in the interval (a new flow) */
	else if (i < t->nivix && t->ivix[i])
		*out = t->ivd[t->ivix[i] - 1].d;
	else {		/* as rt_delta_expand: the counters 0 (v - v), the rest the flow's */
		*out = f->v;
		memset(out, 0, offsetof(struct rt_flow_val, first_ns));
	}
}

/* The interval's changed flows (d's, in key order) at places at[i] of the
 * copy (at NULL: d's entries are the copy's flows in order). */
static int set_changed(struct tui_data *t, const struct rt_delta *d, const __u32 *at)
{
	size_t n = t->snap.nflows;

	size_t nd = 0;

	for (size_t i = 0; i < t->nivr; i++)	/* the last interval's: zero again */
		t->ivix[t->ivr[i]] = 0;
	t->nivd = t->nivr = 0;
	for (size_t i = 0; i < d->nflows; i++)	/* those counted from something */
		nd += memcmp(&d->flows[i].d, &d->flows[i].f->v, offsetof(struct rt_flow_val, first_ns)) != 0;
	if (rt_grow_to((void **)&t->ivd, &t->ivd_cap, nd ? nd : 1, sizeof(*t->ivd)) ||
	    rt_grow_to((void **)&t->ivr, &t->ivr_cap, d->nflows ? d->nflows : 1, sizeof(*t->ivr)))
		return -ENOMEM;
	for (size_t i = 0; i < d->nflows; i++) {
		size_t r = at ? at[i] : i;

		if (r >= n)
			continue;
		t->ivr[t->nivr++] = (__u32)r;
		/* a delta equal to the flow's own counters (its other fields are
		 * the flow's too, rt_flow_val_delta) is not copied: the first
		 * interval's flows, all new, cost no copy of their counts */
		if (!memcmp(&d->flows[i].d, &d->flows[i].f->v, offsetof(struct rt_flow_val, first_ns))) {
			t->ivix[r] = TUI_IVIX_OWN;
		} else {
			t->ivd[t->nivd] = d->flows[i];
			t->ivd[t->nivd].f = &t->snap.flows[r];
			t->ivix[r] = (__u32)++t->nivd;
		}
		if (tui_hists_push(&t->hists, r, &d->flows[i].d))
			return -ENOMEM;
	}
	t->iv.flow_tot = d->flow_tot;
	t->iv.est_tot = d->est_tot;
	return 0;
}

/* The fast way (take_plan said so): O(k log(N / k)) for k changed flows. */
static int take_changed(struct tui_data *t, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	size_t n = t->snap.nflows, i;

	if (rt_snapshot_copy_small(&t->snap, cur))
		return -ENOMEM;
	for (i = 0; i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		struct rt_flow *o = &t->snap.flows[t->from[i]];

		val_count(o->estimate ? &t->sest : &t->stot, &o->v, -1);
		val_count(f->estimate ? &t->sest : &t->stot, &f->v, 1);
		t->nowned += (f->comm[0] != 0) - (o->comm[0] != 0);	/* keys stay: v6, mirror too */
		*o = *f;
		if (o->throttles >= 0 && (size_t)o->throttles < n)
			o->throttles = (__s32)find_from(t->snap.flows, n, 0, &cur->flows[o->throttles].k);
	}
	return set_changed(t, d, t->from);
}

/* The whole way: a sorted copy, the histories carried over, O(N). */
static int take_all(struct tui_data *t, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	const __u32 *ko = NULL;
	size_t i, j, n = cur->nflows;

	/* The histories follow their flows from the last snapshot (in key
	 * order) to cur's (in key order: the table's kept order). */
	if (cur->tab && n && !(ko = rt_snapshot_key_order(cur)))
		return -ENOMEM;
	if (rt_grow_to((void **)&t->from, &t->from_cap, n ? n : 1, sizeof(*t->from)))
		return -ENOMEM;
	for (i = j = 0; i < n; i++) {
		const struct rt_flow_key *k = &cur->flows[ko ? ko[i] : i].k;
		int r = 1;

		while (j < t->snap.nflows && (r = rt_flow_key_cmp(&t->snap.flows[j].k, k)) < 0)
			j++;
		t->from[i] = j < t->snap.nflows && r == 0 ? (__u32)++j : 0;
	}
	if (tui_hists_remap(&t->hists, n, t->from))
		return -ENOMEM;

	/* The view shows every flow: a copy in key order. */
	t->table_ok = 0;
	t->nivd = t->nivr = 0;
	if ((cur->tab ? rt_snapshot_copy_sorted(&t->snap, cur) : rt_snapshot_copy(&t->snap, cur)) ||
	    rt_grow_to((void **)&t->ivix, &t->ivix_cap, n ? n : 1, sizeof(*t->ivix)))
		return -ENOMEM;
	memset(t->ivix, 0, (n ? n : 1) * sizeof(*t->ivix));
	t->nivix = n;
	if (cur->tab) {	/* d's flows are rows of cur: their places in key order */
		for (i = 0; i < d->nflows; i++) {
			size_t row = (size_t)(d->flows[i].f - cur->flows);

			t->from[i] = row < n ? cur->tab->kpos[row] : (__u32)n;
		}
	}
	if (set_changed(t, d, cur->tab ? t->from : NULL))
		return -ENOMEM;
	memset(&t->stot, 0, sizeof(t->stot));
	memset(&t->sest, 0, sizeof(t->sest));
	t->nv6 = t->nowned = t->nmirror = 0;
	t->one_if = 1;
	for (i = 0; i < n; i++) {
		const struct rt_flow *f = &t->snap.flows[i];

		t->one_if &= f->k.ifindex == t->snap.flows[0].k.ifindex &&
			     f->k.origin == t->snap.flows[0].k.origin;

		val_count(f->estimate ? &t->sest : &t->stot, &f->v, 1);
		t->nv6 += f->k.family == 6;
		t->nowned += f->comm[0] != 0;
		t->nmirror += f->k.mirror != 0;
	}
	t->table_ok = cur->tab != NULL;
	return 0;
}

int tui_data_take(struct tui_data *t, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct rt_delta *iv = &t->iv;
	size_t i;
	int r = t->no_fast ? 0 : take_plan(t, cur, d);

	if (r < 0)
		return r;
	tui_hists_interval(&t->hists, cur->time_ns / 1e9, d->secs);
	t->nfast += r;
	r = r ? take_changed(t, cur, d) : take_all(t, cur, d);
	if (r) {
		t->table_ok = 0;	/* the next one the whole way */
		return r;
	}
	tot_counters(&iv->flow_tot);
	tot_counters(&iv->est_tot);
	{	/* since the start: the small tables from nothing; the flows'
		 * counts are the flows' own (tui_flow_d), their sums kept */
		struct rt_snapshot sm = t->snap;

		sm.nflows = 0;
		sm.tab = NULL;
		if (rt_delta_compute(&t->since, NULL, &sm))
			return -ENOMEM;
		t->since.flow_tot = t->stot;
		t->since.est_tot = t->sest;
	}
	if (rt_grow_to((void **)&iv->ifs, &iv->ifs_cap, d->nifs, sizeof(*iv->ifs)) ||
	    rt_grow_to((void **)&iv->ports, &iv->ports_cap, d->nports, sizeof(*iv->ports)) ||
	    rt_grow_to((void **)&iv->swports, &iv->swports_cap, d->nswports, sizeof(*iv->swports)) ||
	    rt_grow_to((void **)&iv->swdrops, &iv->swdrops_cap, d->nswdrops, sizeof(*iv->swdrops)) ||
	    rt_grow_to((void **)&iv->sfagents, &iv->sfagents_cap, d->nsfagents, sizeof(*iv->sfagents)))
		return -ENOMEM;
	for (i = 0; i < d->nifs && i < t->snap.nifs; i++) {
		iv->ifs[i].s = &t->snap.ifs[i];
		iv->ifs[i].d = d->ifs[i].d;
	}
	iv->nifs = i;
	for (i = 0; i < d->nports && i < t->snap.nports; i++) {
		iv->ports[i].c = &t->snap.ports[i];
		iv->ports[i].d = d->ports[i].d;
	}
	iv->nports = i;
	/* sFlow's tables, the same way */
	for (i = 0; i < d->nswports && i < t->snap.nswports; i++) {
		iv->swports[i] = d->swports[i];
		iv->swports[i].p = &t->snap.swports[i];
	}
	iv->nswports = i;
	for (i = 0; i < d->nswdrops && i < t->snap.nswdrops; i++) {
		iv->swdrops[i] = d->swdrops[i];
		iv->swdrops[i].p = &t->snap.swdrops[i];
	}
	iv->nswdrops = i;
	for (i = 0; i < d->nsfagents && i < t->snap.nsfagents; i++) {
		iv->sfagents[i] = d->sfagents[i];
		iv->sfagents[i].a = &t->snap.sfagents[i];
	}
	iv->nsfagents = i;
	iv->secs = d->secs;
	iv->if_tot = d->if_tot;
	iv->evicted = d->evicted;
	if (!t->nsnaps++ || t->snap.time_ns < t->first_time_ns)
		t->first_time_ns = t->snap.time_ns;
	tui_hists_done(&t->hists);
	return 0;
}

/* ---------------------------------------------------------------- columns */

const struct tui_col tui_cols[C_NCOLS] = {
	[C_IFACE] = { "IFACE", "IFACE", "iface", 6, 24, 7, TUI_COL_LEFT | TUI_COL_TEXT },
	[C_DIR]   = { "DIR", "DIR", "dir", 3, 3, 5, TUI_COL_LEFT | TUI_COL_TEXT },
	[C_SRC]   = { "SRC", "SRC", "src", 15, 39, 1, TUI_COL_LEFT | TUI_COL_TEXT },
	[C_DST]   = { "DST", "DST", "dst", 15, 39, 1, TUI_COL_LEFT | TUI_COL_TEXT },
	[C_DQPN]  = { "DQPN", "DQPN", "dqpn", 8, 8, 2, TUI_COL_TEXT },
	[C_PRIO]  = { "DSCP/P", "DSCP/P", "prio", 6, 6, 8, 0 },
	[C_FLOWS] = { "QPS", "QPS", "flows", 4, 4, 4, 0 },
	[C_PKTS]  = { "PKT/s", "PKTS", "pkts", 6, 7, 3, 0 },
	[C_GBPS]  = { "Gb/s", "BYTES", "bytes", 6, 7, 6, 0 },
	[C_CE]    = { "CE%", "CE", "ce", 6, 6, 2, 0 },
	[C_CNP]   = { "CNP/s", "CNP", "cnp", 6, 6, 3, 0 },
	[C_NAK]   = { "NAK/s", "NAK", "nak", 6, 6, 4, 0 },
	[C_RNR]   = { "RNR/s", "RNR", "rnr", 6, 6, 6, 0 },
	[C_GB2]   = { "Gb2s", "Gb2s", "gb2s", 6, 6, 9, TUI_COL_AVG },
	[C_GB10]  = { "Gb10s", "Gb10s", "gb10s", 6, 6, 9, TUI_COL_AVG },
	[C_GB40]  = { "Gb40s", "Gb40s", "gb40s", 6, 6, 9, TUI_COL_AVG },
	[C_CE2]   = { "CE2s", "CE2s", "ce2s", 6, 6, 5, TUI_COL_AVG },
	[C_CE10]  = { "CE10s", "CE10s", "ce10s", 6, 6, 5, TUI_COL_AVG },
	[C_CE40]  = { "CE40s", "CE40s", "ce40s", 6, 6, 5, TUI_COL_AVG },
	[C_CNP2]  = { "CNP2s", "CNP2s", "cnp2s", 6, 6, 5, TUI_COL_AVG },
	[C_CNP10] = { "CNP10s", "CNP10s", "cnp10s", 6, 6, 5, TUI_COL_AVG },
	[C_CNP40] = { "CNP40s", "CNP40s", "cnp40s", 6, 6, 5, TUI_COL_AVG },
	[C_IDLE]  = { "IDLE", "IDLE", "idle", 5, 5, 8, 0 },
	[C_AGE]   = { "AGE", "AGE", "age", 5, 5, 9, 0 },
	[C_PROC]  = { "PROCESS", "PROCESS", "process", 7, 24, 9, TUI_COL_LEFT | TUI_COL_TEXT | TUI_COL_PROC },
	[C_MIRROR] = { "MIRROR", "MIRROR", "mirror", 6, 22, 7,
		       TUI_COL_LEFT | TUI_COL_TEXT | TUI_COL_MIRROR },
	[C_CONG]  = { "", "", "congestion", 0, 0, 0, TUI_COL_HIDDEN },
};

const enum tui_colid tui_flow_cols[] = {
	C_SRC, C_DST, C_DQPN, C_DIR, C_IFACE, C_PRIO, C_PKTS, C_GBPS, C_CE, C_CNP, C_NAK, C_RNR,
	C_GB2, C_GB10, C_GB40, C_CE2, C_CE10, C_CE40, C_CNP2, C_CNP10, C_CNP40, C_IDLE, C_AGE, C_PROC,
	C_MIRROR,	/* only when some flow came inside a mirror copy */
};
const size_t tui_nflow_cols = sizeof(tui_flow_cols) / sizeof(tui_flow_cols[0]);

const enum tui_colid tui_pair_cols[] = {
	C_SRC, C_DST, C_FLOWS, C_PKTS, C_GBPS, C_CE, C_CNP, C_NAK, C_RNR,
	C_GB2, C_GB10, C_GB40, C_CE2, C_CE10, C_CE40, C_CNP2, C_CNP10, C_CNP40, C_IDLE, C_AGE,
};
const size_t tui_npair_cols = sizeof(tui_pair_cols) / sizeof(tui_pair_cols[0]);

int tui_col_by_name(const char *name)
{
	for (int c = 0; c < C_NCOLS; c++)
		if (!strcasecmp(name, tui_cols[c].name))
			return c;
	if (!strcasecmp(name, "gbps") || !strcasecmp(name, "gb"))
		return C_GBPS;
	if (!strcasecmp(name, "qp"))
		return C_DQPN;
	return -1;
}

/* ---------------------------------------------------------------- filter */

static int qp_number(const char *s, __u32 *out)
{
	char *end;
	unsigned long v;

	if (!*s)
		return 0;
	v = strtoul(s, &end, 0);
	if (*end || v > 0xffffff)
		return 0;
	*out = (__u32)v;
	return 1;
}

int tui_flow_match(const struct rt_snapshot *s, const struct rt_flow *f, const char *filter)
{
	char a[RT_ADDR_STRLEN];
	__u32 qp;

	if (!filter || !*filter)
		return 1;
	if (qp_number(filter, &qp) &&
	    (f->k.dqpn == qp || (f->lqpn && f->lqpn == qp) || (f->rqpn && f->rqpn == qp)))
		return 1;
	if (strstr(rt_fmt_addr(f->k.family, f->k.src, a, sizeof(a)), filter) ||
	    strstr(rt_fmt_addr(f->k.family, f->k.dst, a, sizeof(a)), filter))
		return 1;
	if (strstr(rt_snapshot_ifname(s, f->k.ifindex), filter))
		return 1;
	if (f->k.mirror && strstr(rt_fmt_mirror(&f->k, a, sizeof(a)), filter))
		return 1;
	return f->comm[0] && strstr(f->comm, filter);
}

/* ---------------------------------------------------------------- rows */

static int grow_rows(struct tui_row **rows, size_t *cap, size_t n)
{
	return rt_grow_to((void **)rows, cap, n ? n : 1, sizeof(**rows));
}

static void fill_avgs(struct tui_row *r, const __u64 sum[TUI_NWIN][TM_N], const double secs[TUI_NWIN])
{
	for (int w = 0; w < TUI_NWIN; w++) {
		const __u64 *c = sum[w];
		double s = secs[w];

		r->avg[w][0] = s > 0 ? c[TM_PKTS] / s : 0;
		r->avg[w][1] = s > 0 ? c[TM_BYTES] * 8.0 / s : 0;
		r->avg[w][2] = rt_pct((double)c[TM_CE], (double)c[TM_PKTS]);
		r->avg[w][3] = s > 0 ? c[TM_CNP] / s : 0;
	}
	r->avg_ok = secs[0] > 0;
}

/* Time from `then` to the snapshot, on the flows' clock; 0 for "not known". */
static __u64 since(const struct rt_snapshot *s, __u64 then)
{
	return then && s->mono_ns > then ? s->mono_ns - then : 0;
}

void tui_row_avgs(const struct tui_data *t, struct tui_row *r)
{
	__u64 sum[TUI_NWIN][TM_N] = { { 0 } };
	double secs[TUI_NWIN];

	if (!r->avg_todo)
		return;
	r->avg_todo = 0;
	tui_hists_sums(&t->hists, (size_t)r->idx, sum, secs);
	fill_avgs(r, (const __u64 (*)[TM_N])sum, secs);
}

int tui_flow_rows_ex(const struct tui_data *t, int totals, const char *filter, int avgs,
		     struct tui_row **rows, size_t *cap)
{
	size_t i, n = 0;
	const char *last_name = NULL;
	__u32 last_if = 0;
	int n_if = 0;

	if (grow_rows(rows, cap, t->snap.nflows))
		return -ENOMEM;
	for (i = 0; i < t->snap.nflows; i++) {
		const struct rt_flow *f = &t->snap.flows[i];
		struct tui_row *r;

		if (!tui_flow_match(&t->snap, f, filter))
			continue;
		/* rates: flows silent over the interval still show (IDLE tells how long) */
		r = &(*rows)[n++];
		memset(r, 0, sizeof(*r));
		r->f = f;
		r->idx = (int)i;
		tui_flow_d(t, totals, i, &r->d);
		r->secs = totals ? 0 : t->iv.secs;
		r->idle_ns = since(&t->snap, f->v.last_ns);
		r->age_ns = since(&t->snap, f->v.first_ns);
		r->nflows = 1;
		if (!n_if || f->k.ifindex != last_if) {	/* rows of one interface come in runs */
			last_name = rt_snapshot_ifname(&t->snap, f->k.ifindex);
			last_if = f->k.ifindex;
			n_if = 1;
		}
		r->ifname = last_name;
		r->avg_todo = 1;
		if (avgs)
			tui_row_avgs(t, r);
	}
	return (int)n;
}

int tui_flow_rows(const struct tui_data *t, int totals, const char *filter,
		  struct tui_row **rows, size_t *cap)
{
	return tui_flow_rows_ex(t, totals, filter, 1, rows, cap);
}

/* Host pairs in the RT_HP_DIRECTED scope of derive.h: src -> dst over
 * interfaces and directions. */
static int pair_key_cmp(const struct rt_flow *a, const struct rt_flow *b)
{
	struct rt_hostpair x, y;

	rt_hostpair_of(&x, &a->k, RT_HP_DIRECTED);
	rt_hostpair_of(&y, &b->k, RT_HP_DIRECTED);
	return rt_hostpair_cmp(&x, &y);
}

static int pair_qcmp(const void *a, const void *b)
{
	const struct tui_row *x = a, *y = b;
	int r = pair_key_cmp(x->f, y->f);

	return r ? r : tui_spaceship_u64((__u64)x->idx, (__u64)y->idx);
}

int tui_pair_rows(const struct tui_data *t, int totals, const char *filter,
		  struct tui_row **rows, size_t *cap)
{
	int n = tui_flow_rows_ex(t, totals, filter, 0, rows, cap);
	int i, out = 0;

	if (n <= 0)
		return n;
	qsort(*rows, (size_t)n, sizeof(**rows), pair_qcmp);
	for (i = 0; i < n;) {
		struct tui_row acc = (*rows)[i];
		__u64 sum[TUI_NWIN][TM_N] = { { 0 } };
		double secs[TUI_NWIN] = { 0 };
		int j;

		acc.avg_todo = 0;
		acc.nflows = 0;
		memset(&acc.d, 0, sizeof(acc.d));
		for (j = i; j < n && !pair_key_cmp((*rows)[j].f, acc.f); j++) {
			const struct tui_row *m = &(*rows)[j];

			double ms[TUI_NWIN];

			struct rt_flow_val md;

			tui_flow_d(t, totals, (size_t)m->idx, &md);
			rt_flow_val_add(&acc.d, &md);
			acc.nflows++;
			if (m->idle_ns < acc.idle_ns)	/* the pair is as idle as its busiest flow */
				acc.idle_ns = m->idle_ns;
			if (m->age_ns > acc.age_ns)	/* and as old as its oldest */
				acc.age_ns = m->age_ns;
			tui_hists_sums(&t->hists, (size_t)m->idx, sum, ms);
			for (int w = 0; w < TUI_NWIN; w++)
				if (ms[w] > secs[w])
					secs[w] = ms[w];
		}
		fill_avgs(&acc, (const __u64 (*)[TM_N])sum, secs);
		(*rows)[out++] = acc;
		i = j;
	}
	return out;
}

/* ---------------------------------------------------------------- sorting */

static double per(__u64 n, double secs)
{
	return secs > 0 ? n / secs : (double)n;
}

double tui_row_num(const struct tui_row *r, enum tui_colid c)
{
	const struct rt_flow_val *d = &r->d;

	switch (c) {
	case C_DQPN: return r->f->k.dqpn;
	case C_PRIO: return r->f->v.dscp * 256.0 + r->f->v.pcp;
	case C_FLOWS: return r->nflows;
	case C_PKTS: return per(d->pkts, r->secs);
	case C_GBPS: return per(d->bytes, r->secs);
	case C_CE: return d->pkts ? (double)d->ecn[RT_ECN_CE] / d->pkts : 0;
	case C_CNP: return per(d->cnp, r->secs);
	case C_NAK: return per(rt_nak(d), r->secs);
	case C_RNR: return per(d->rnr_nak, r->secs);
	case C_GB2: case C_GB10: case C_GB40: return r->avg[c - C_GB2][1];
	case C_CE2: case C_CE10: case C_CE40: return r->avg[c - C_CE2][2];
	case C_CNP2: case C_CNP10: case C_CNP40: return r->avg[c - C_CNP2][3];
	case C_IDLE: return (double)r->idle_ns;
	case C_AGE: return (double)r->age_ns;
	case C_CONG: return (double)rt_congestion(d);
	default: return 0;
	}
}

static int addr_cmp(__u8 fa, const __u8 *a, __u8 fb, const __u8 *b)
{
	int r = tui_spaceship_u64(fa, fb);

	return r ? r : memcmp(a, b, 16);
}

/* tui_row_cmp without its last word (the flow key): 0 on a tie. */
static int row_cmp_value(const struct tui_row *a, const struct tui_row *b, enum tui_colid c, int invert)
{
	int r;

	switch (c) {
	case C_IFACE: r = strcmp(a->ifname ? a->ifname : "", b->ifname ? b->ifname : ""); break;
	case C_DIR: r = tui_spaceship_u64(a->f->k.dir, b->f->k.dir); break;
	case C_SRC: r = addr_cmp(a->f->k.family, a->f->k.src, b->f->k.family, b->f->k.src); break;
	case C_DST: r = addr_cmp(a->f->k.family, a->f->k.dst, b->f->k.family, b->f->k.dst); break;
	case C_MIRROR: {
		char ma[RT_MIRROR_STRLEN], mb[RT_MIRROR_STRLEN];

		r = strcmp(rt_fmt_mirror(&a->f->k, ma, sizeof(ma)), rt_fmt_mirror(&b->f->k, mb, sizeof(mb)));
		break;
	}
	case C_PROC: r = strcmp(a->f->comm, b->f->comm);
		if (!r)
			r = tui_spaceship_u64(a->f->pid, b->f->pid);
		break;
	case C_CONG:
		r = tui_spaceship_u64(rt_congestion(&a->d), rt_congestion(&b->d));
		if (!r)
			r = tui_spaceship_u64(a->d.pkts, b->d.pkts);
		break;
	default: r = tui_spaceship_dbl(tui_row_num(a, c), tui_row_num(b, c)); break;
	}
	r = r < 0 ? -1 : r > 0;
	/* Numbers: biggest first; text: A to Z first. I flips either. */
	if (!(tui_cols[c].flags & TUI_COL_TEXT))
		r = -r;
	if (invert)
		r = -r;
	return r;
}

int tui_row_cmp(const struct tui_row *a, const struct tui_row *b, enum tui_colid c, int invert)
{
	int r = row_cmp_value(a, b, c, invert);

	if (!r)
		r = rt_flow_key_cmp(&a->f->k, &b->f->k);
	return r < 0 ? -1 : r > 0;
}

/* A row's value by a numeric column: C_CONG's two counts, or the number. */
struct row_key {
	__u64 a, b;
	double x;
};

static void row_key(const struct tui_row *r, enum tui_colid c, struct row_key *k)
{
	if (c == C_CONG) {
		k->a = rt_congestion(&r->d);
		k->b = r->d.pkts;
		k->x = 0;
	} else {
		k->a = k->b = 0;
		k->x = tui_row_num(r, c);
	}
}

struct sort_ctx {
	enum tui_colid c;
	int invert;
	struct row_key *keys;	/* NULL: compare the rows */
};

static int row_qcmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *ctx = arg;

	return tui_row_cmp(a, b, ctx->c, ctx->invert);
}

void tui_rows_sort(struct tui_row *rows, size_t n, enum tui_colid c, int invert)
{
	struct sort_ctx ctx = { c, invert, NULL };

	if (n > 1)
		qsort_r(rows, n, sizeof(*rows), row_qcmp, &ctx);
}

/*
 * tui_row_cmp for rows built by tui_flow_rows / tui_pair_rows: their idx (the
 * flow's place in the view's copy, which is in key order; a pair's first
 * flow) orders them as their keys do, so ties are broken without reading
 * keys. In an interval where few flows moved, most rows tie on the value.
 */
static int ord_cmp(const struct tui_row *rows, __u32 a, __u32 b, const struct sort_ctx *cx)
{
	int r;

	if (cx->keys) {	/* row_cmp_value on the kept values */
		const struct row_key *x = &cx->keys[a], *y = &cx->keys[b];

		if (cx->c == C_CONG) {
			r = tui_spaceship_u64(x->a, y->a);
			if (!r)
				r = tui_spaceship_u64(x->b, y->b);
		} else {
			r = tui_spaceship_dbl(x->x, y->x);
		}
		r = -r;		/* numbers: biggest first */
		if (cx->invert)
			r = -r;
	} else {
		r = row_cmp_value(&rows[a], &rows[b], cx->c, cx->invert);
	}

	if (!r)
		r = tui_spaceship_u64((__u64)rows[a].idx, (__u64)rows[b].idx);
	return r;
}

struct ord_ctx {
	const struct tui_row *rows;
	const struct sort_ctx *cx;
};

static int ord_qcmp(const void *a, const void *b, void *arg)
{
	const struct ord_ctx *o = arg;

	return ord_cmp(o->rows, *(const __u32 *)a, *(const __u32 *)b, o->cx);
}

static void ord_swap(__u32 *o, size_t a, size_t b)
{
	__u32 t = o[a];

	o[a] = o[b];
	o[b] = t;
}

/* Quicksort of ord[l..r) that goes only into the parts overlapping [lo, hi);
 * past a depth of about 2 log2 n it sorts the part whole (qsort_r). */
static void order_part(__u32 *o, const struct tui_row *rows, size_t l, size_t r, size_t lo, size_t hi,
		       const struct sort_ctx *cx, int depth)
{
	while (r - l > 12 && l < hi && r > lo) {
		size_t m = l + (r - l) / 2, i, p;

		if (depth-- <= 0) {
			struct ord_ctx oc = { rows, cx };

			qsort_r(o + l, r - l, sizeof(*o), ord_qcmp, &oc);
			return;
		}
		/* median of three as the pivot, kept at r - 1 */
		if (ord_cmp(rows, o[m], o[l], cx) < 0)
			ord_swap(o, m, l);
		if (ord_cmp(rows, o[r - 1], o[l], cx) < 0)
			ord_swap(o, r - 1, l);
		if (ord_cmp(rows, o[m], o[r - 1], cx) < 0)
			ord_swap(o, m, r - 1);
		for (i = p = l; i < r - 1; i++)
			if (ord_cmp(rows, o[i], o[r - 1], cx) < 0)
				ord_swap(o, i, p++);
		ord_swap(o, p, r - 1);
		/* [l, p) before the pivot at p, (p, r) after it: go on into the
		 * sides that overlap the page, the smaller one by recursion */
		if (p > lo && p + 1 < hi) {
			if (p - l < r - p - 1) {
				order_part(o, rows, l, p, lo, hi, cx, depth);
				l = p + 1;
			} else {
				order_part(o, rows, p + 1, r, lo, hi, cx, depth);
				r = p;
			}
		} else if (p > lo) {
			r = p;
		} else if (p + 1 < hi) {
			l = p + 1;
		} else {
			return;		/* the page is the pivot alone */
		}
	}
	if (l < hi && r > lo)	/* a few left: insertion sort */
		for (size_t i = l + 1; i < r; i++)
			for (size_t j = i; j > l && ord_cmp(rows, o[j], o[j - 1], cx) < 0; j--)
				ord_swap(o, j, j - 1);
}

void tui_rows_order(__u32 *ord, const struct tui_row *rows, size_t n, size_t lo, size_t hi,
		    enum tui_colid c, int invert)
{
	struct sort_ctx cx = { c, invert, NULL };
	int depth = 8;

	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	if (hi > n)
		hi = n;
	if (lo >= hi)
		return;
	/* numbers: each row's value once, in an array that stays in cache,
	 * compared as row_cmp_value compares the rows */
	if (!(tui_cols[c].flags & TUI_COL_TEXT) && n > 64 && (cx.keys = malloc(n * sizeof(*cx.keys)))) {
		for (size_t i = 0; i < n; i++)
			row_key(&rows[i], c, &cx.keys[i]);
	}
	order_part(ord, rows, 0, n, lo, hi, &cx, depth);
	free(cx.keys);
}

size_t tui_rows_rank(const struct tui_row *rows, size_t n, size_t i, enum tui_colid c, int invert)
{
	size_t rank = 0;

	struct sort_ctx cx = { c, invert, NULL };

	for (size_t j = 0; j < n; j++)
		if (j != i && ord_cmp(rows, (__u32)j, (__u32)i, &cx) < 0)
			rank++;
	return rank;
}

int tui_rows_want(const struct tui_row *rows, size_t n, enum tui_colid c, int minw, int maxw)
{
	const char *last_if = NULL;
	int m = minw, last_origin = -1;
	char cell[64];

	for (size_t r = 0; r < n && m < maxw; r++) {
		const struct tui_row *row = &rows[r];
		const struct rt_flow *f = row->f;

		switch (c) {
		case C_SRC:
		case C_DST:	/* a dotted quad is at most 15 characters */
			if (f->k.family != 6 && minw >= 15)
				continue;
			break;
		case C_IFACE:	/* rows of one interface in a run */
			if (row->ifname == last_if && f->k.origin == last_origin)
				continue;
			last_if = row->ifname;
			last_origin = f->k.origin;
			break;
		case C_PROC:	/* "-" or "nic" without an owner */
			if (!f->comm[0] && minw >= 3)
				continue;
			break;
		case C_MIRROR:	/* "-" when not mirrored */
			if (!f->k.mirror && minw >= 1)
				continue;
			break;
		default:
			break;
		}
		tui_row_cell(row, c, cell, sizeof(cell));
		if ((int)strlen(cell) > m)
			m = (int)strlen(cell);
	}
	return m < maxw ? m : maxw;
}

int tui_rows_want_t(const struct tui_data *t, const struct tui_row *rows, size_t n, enum tui_colid c,
		    int minw, int maxw)
{
	/* rows of t's flows: none can be longer than minw when no flow is */
	if (((c == C_SRC || c == C_DST) && !t->nv6 && minw >= 15) || (c == C_PROC && !t->nowned && minw >= 3) ||
	    (c == C_MIRROR && !t->nmirror && minw >= 1))
		return minw < maxw ? minw : maxw;
	if (c == C_IFACE && t->one_if && n)	/* every flow's interface is the first row's */
		return tui_rows_want(rows, 1, c, minw, maxw);
	return tui_rows_want(rows, n, c, minw, maxw);
}

void tui_rows_have(const struct tui_data *t, const struct tui_row *rows, size_t n, int *owned, int *mirror)
{
	*owned = *mirror = 0;
	for (size_t i = 0; i < n && ((t->nowned && !*owned) || (t->nmirror && !*mirror)); i++) {
		if (rows[i].f->comm[0])
			*owned = 1;
		if (rows[i].f->k.mirror)
			*mirror = 1;
	}
}

/* ---------------------------------------------------------------- cells */

static void fmt_rate(double v, char *buf, size_t len)
{
	rt_fmt_si(v, buf, len);
}

static void fmt_gb(double bytes_per, double secs, char *buf, size_t len)
{
	if (secs > 0)
		rt_fmt_gbps(bytes_per * 8 / 1e9, tui_cols[C_GBPS].maxw, buf, len);
	else	/* counts: bytes */
		rt_fmt_si(bytes_per, buf, len);
}

static void fmt_age(__u64 ns, char *buf, size_t len)
{
	double s = ns / 1e9;

	if (s < 10)
		snprintf(buf, len, "%.1fs", s);
	else if (s < 3600)
		snprintf(buf, len, "%.0fs", s);
	else
		snprintf(buf, len, "%.0fh", s / 3600);
}

static void cell(const struct tui_row *r, enum tui_colid c, char *buf, size_t len);

/* Estimates (sFlow samples, each standing for its sampling rate) say so: ~. */
void tui_row_cell(const struct tui_row *r, enum tui_colid c, char *buf, size_t len)
{
	cell(r, c, buf, len);
	if (r->f && r->f->estimate && len > 1 &&
	    (c == C_PKTS || c == C_GBPS || c == C_CE || c == C_CNP || c == C_NAK || c == C_RNR)) {
		size_t n = strlen(buf);

		if (n + 2 > len)
			n = len - 2;
		memmove(buf + 1, buf, n);
		buf[0] = '~';
		buf[n + 1] = '\0';
	}
}

static void cell(const struct tui_row *r, enum tui_colid c, char *buf, size_t len)
{
	const struct rt_flow *f = r->f;
	const struct rt_flow_val *d = &r->d;

	switch (c) {
	case C_IFACE:
		/* the NIC's per-QP flows say so where every view shows it */
		snprintf(buf, len, "%s%s", f->k.origin == RT_ORIGIN_NIC ? "nic:" : "",
			 r->ifname ? r->ifname : "?");
		break;
	case C_DIR: snprintf(buf, len, "%s", f->k.dir == RT_DIR_EGRESS ? "out" : "in"); break;
	case C_SRC: rt_fmt_addr(f->k.family, f->k.src, buf, len); break;
	case C_DST: rt_fmt_addr(f->k.family, f->k.dst, buf, len); break;
	case C_DQPN: snprintf(buf, len, "0x%06x", f->k.dqpn); break;
	case C_PRIO:
		if (f->v.pcp == RT_PCP_NONE)
			snprintf(buf, len, "%u/-", f->v.dscp);
		else
			snprintf(buf, len, "%u/%u", f->v.dscp, f->v.pcp);
		break;
	case C_FLOWS: snprintf(buf, len, "%u", r->nflows); break;
	case C_PKTS: case C_CNP: case C_NAK: case C_RNR:
		if (r->secs > 0)
			fmt_rate(tui_row_num(r, c), buf, len);
		else	/* exact counts since the start */
			snprintf(buf, len, "%llu", (unsigned long long)tui_row_num(r, c));
		break;
	case C_GBPS: fmt_gb((double)d->bytes / (r->secs > 0 ? r->secs : 1), r->secs, buf, len); break;
	case C_CE:
		if (r->secs > 0 || !d->pkts)
			snprintf(buf, len, "%.2f", rt_ce_pct(d));
		else
			snprintf(buf, len, "%llu", (unsigned long long)d->ecn[RT_ECN_CE]);
		break;
	case C_GB2: case C_GB10: case C_GB40:
		if (r->avg_ok)
			snprintf(buf, len, "%.3f", tui_row_num(r, c) / 1e9);
		else
			snprintf(buf, len, "-");
		break;
	case C_CE2: case C_CE10: case C_CE40:
		if (r->avg_ok)
			snprintf(buf, len, "%.2f", tui_row_num(r, c));
		else
			snprintf(buf, len, "-");
		break;
	case C_CNP2: case C_CNP10: case C_CNP40:
		if (r->avg_ok)
			fmt_rate(tui_row_num(r, c), buf, len);
		else
			snprintf(buf, len, "-");
		break;
	case C_MIRROR:
		if (f->k.mirror)
			rt_fmt_mirror(&f->k, buf, len);
		else
			snprintf(buf, len, "-");
		break;
	case C_IDLE:
		if (f->k.origin == RT_ORIGIN_NIC)	/* counters, not packets: no last one */
			snprintf(buf, len, "-");
		else
			fmt_age(r->idle_ns, buf, len);
		break;
	case C_AGE:
		if (!r->age_ns && !f->v.first_ns)	/* never told when it was first seen */
			snprintf(buf, len, "-");
		else
			fmt_age(r->age_ns, buf, len);
		break;
	case C_PROC:
		/* Flows from the NIC's per-QP counters say so, as the NIC view does. */
		if (f->comm[0])
			snprintf(buf, len, "%s%s/%u", f->k.origin == RT_ORIGIN_NIC ? "nic:" : "", f->comm,
				 f->pid);
		else
			snprintf(buf, len, "%s", f->k.origin == RT_ORIGIN_NIC ? "nic" : "-");
		break;
	default: snprintf(buf, len, "%s", ""); break;
	}
}

/* ---------------------------------------------------------------- layout */

int tui_layout(const short *minw, const short *want, const unsigned char *prio, int n, int width,
	       int *x, int *w)
{
	int i, used = 0, shown = 0, pos = 0;

	for (i = 0; i < n; i++) {
		w[i] = minw[i] > 0 ? minw[i] : 0;
		if (w[i]) {
			used += w[i] + (shown ? 1 : 0);
			shown++;
		}
	}
	while (used > width && shown > 0) {
		int drop = -1;

		for (i = 0; i < n; i++)		/* highest prio, rightmost on ties */
			if (w[i] && (drop < 0 || prio[i] >= prio[drop]))
				drop = i;
		used -= w[drop] + (shown > 1 ? 1 : 0);
		w[drop] = 0;
		shown--;
	}
	for (i = 0; i < n && used < width; i++) {
		int more;

		if (!w[i] || want[i] <= w[i])
			continue;
		more = want[i] - w[i];
		if (more > width - used)
			more = width - used;
		w[i] += more;
		used += more;
	}
	for (i = 0; i < n; i++) {
		x[i] = pos;
		if (w[i])
			pos += w[i] + 1;
	}
	return shown;
}

/* ---------------------------------------------------------------- misc */

void tui_sparkline(const double *v, int n, int utf8, char *buf, size_t len)
{
	static const char *const blocks[] = { "\u2581", "\u2582", "\u2583", "\u2584", "\u2585",
					      "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = "_.-:=+*#";
	double max = 0;
	size_t off = 0;
	int i;

	for (i = 0; i < n; i++)
		if (v[i] > max)
			max = v[i];
	if (len)
		buf[0] = '\0';
	for (i = 0; i < n; i++) {
		int lvl = max > 0 ? (int)(v[i] / max * 7.0 + 0.5) : 0;
		const char *s;
		char one[2] = { 0, 0 };

		if (lvl < 0)
			lvl = 0;
		if (lvl > 7)
			lvl = 7;
		if (utf8) {
			s = blocks[lvl];
		} else {
			one[0] = v[i] > 0 ? ascii[lvl] : '_';
			s = one;
		}
		if (off + strlen(s) + 1 > len)
			break;
		memcpy(buf + off, s, strlen(s) + 1);
		off += strlen(s);
	}
}

double tui_interval_step(double cur, int up)
{
	static const double ladder[] = { 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60 };
	const int n = sizeof(ladder) / sizeof(ladder[0]);
	int i;

	if (up) {
		for (i = 0; i < n; i++)
			if (ladder[i] > cur + 1e-9)
				return ladder[i];
		return ladder[n - 1];
	}
	for (i = n - 1; i >= 0; i--)
		if (ladder[i] < cur - 1e-9)
			return ladder[i];
	return ladder[0];
}

/* ------------------------------------------------- header and detail arithmetic */

void tui_pfc_prios(const struct rt_snapshot *s, const struct rt_delta *D, double secs,
		   __u64 speed_given, struct tui_pfc_prio out[RT_NPRIO])
{
	for (unsigned int p = 0; p < RT_NPRIO; p++) {
		struct tui_pfc_prio *o = &out[p];

		memset(o, 0, sizeof(*o));
		o->share = -1;
		for (size_t i = 0; i < D->nifs; i++) {
			const struct rt_if_val *v = &D->ifs[i].d;
			__u64 sp;
			double ps;

			if (!v->pfc_frames[p])
				continue;
			o->frames += v->pfc_frames[p];
			o->xon += v->pfc_xon[p];
			sp = rt_link_speed(s, rt_snapshot_ifname(s, D->ifs[i].s->k.ifindex), speed_given, NULL);
			ps = rt_pause_seconds(v->pfc_quanta[p], sp);
			o->paused += ps;
			if (rt_share_pct(ps, secs) > o->share)
				o->share = rt_share_pct(ps, secs);
			else if (secs <= 0)
				o->share = 0;
		}
	}
}

static const char *const nic_key[] = { "np_ecn_marked_roce_packets", "np_cnp_sent",
				       "rp_cnp_handled", "out_of_sequence", "packet_seq_err" };
static const char *const nic_short[] = { "ecn_marked", "cnp_sent", "cnp_handled", "oos", "seq_err" };
#define NKEY (sizeof(nic_key) / sizeof(nic_key[0]))

size_t tui_nic_sums(const struct rt_delta *D, int totals, struct tui_nic_sum *out, size_t max)
{
	size_t n = 0;

	for (size_t pass = 0; pass <= NKEY && n < max; pass++) {
		for (size_t i = 0; i < D->nports && n < max; i++) {
			const struct rt_port_ctr *pc = D->ports[i].c;
			const char *name = pc->name;
			__u64 v = 0;
			int dup = 0;

			/* the ports' counters: the QPs' are parts of them */
			if (!pc->congestion || pc->scope == RT_SCOPE_QP)
				continue;
			if (pass < NKEY ? strcmp(name, nic_key[pass]) : 0)
				continue;
			/* each name once: its first row sums every port's */
			for (size_t j = 0; j < i; j++)
				dup |= !strcmp(D->ports[j].c->name, name);
			if (pass == NKEY) {	/* the rest: only if it moved */
				for (size_t k = 0; k < NKEY; k++)
					dup |= !strcmp(name, nic_key[k]);
				if (!totals && !D->ports[i].d)
					dup = 1;
			}
			if (dup)
				continue;
			for (size_t j = i; j < D->nports; j++)
				if (!strcmp(D->ports[j].c->name, name) && D->ports[j].c->scope != RT_SCOPE_QP)
					v += totals ? D->ports[j].c->value : D->ports[j].d;
			out[n].name = pass < NKEY ? nic_short[pass] : name;
			out[n].v = v;
			n++;
		}
	}
	return n;
}

void tui_detail_rates(const struct tui_data *t, size_t idx, struct tui_detail *out)
{
	static const int tm[TUI_DM_N] = { TM_PKTS, TM_BYTES, TM_CE, TM_CNP, TM_NAK };
	struct rt_flow_val tv, ivv;
	const struct rt_flow_val *tot = &tv, *iv = &ivv;
	double ws[TUI_NWIN];
	__u64 sum[TUI_NWIN][TM_N], ivc[TUI_DM_N];

	tui_flow_d(t, 1, idx, &tv);
	tui_flow_d(t, 0, idx, &ivv);
	ivc[TUI_DM_PKTS] = iv->pkts;
	ivc[TUI_DM_GBPS] = iv->bytes;
	ivc[TUI_DM_CE] = iv->ecn[RT_ECN_CE];
	ivc[TUI_DM_CNP] = iv->cnp;
	ivc[TUI_DM_NAK] = rt_nak(iv);
	memset(sum, 0, sizeof(sum));
	tui_hists_sums(&t->hists, idx, sum, ws);
	out->total[TUI_DM_PKTS] = tot->pkts;
	out->total[TUI_DM_GBPS] = tot->bytes;
	out->total[TUI_DM_CE] = tot->ecn[RT_ECN_CE];
	out->total[TUI_DM_CNP] = tot->cnp;
	out->total[TUI_DM_NAK] = rt_nak(tot);
	for (int m = 0; m < TUI_DM_N; m++) {
		for (int w = -1; w < TUI_NWIN; w++) {
			double s = w < 0 ? t->iv.secs : ws[w];
			double pk = w < 0 ? (double)iv->pkts : (double)sum[w][TM_PKTS];
			double cnt = w < 0 ? (double)ivc[m] : (double)sum[w][tm[m]];
			double *v = &out->v[m][w + 1];

			if (s <= 0)
				*v = NAN;
			else if (m == TUI_DM_CE)
				*v = rt_pct(cnt, pk);
			else if (m == TUI_DM_GBPS)
				*v = cnt * 8 / 1e9 / s;
			else
				*v = cnt / s;
		}
	}
}

int tui_detail_series(const struct tui_hist *h, int metric, int n, double *v, double *max)
{
	int k = 0;

	*max = 0;
	for (int i = n - 1; i >= 0; i--) {
		const struct tui_sample *s = tui_hist_at(h, (unsigned int)i);

		if (!s)
			continue;
		v[k] = metric == 0 ? rt_pct((double)s->c[TM_CE], (double)s->c[TM_PKTS])
				   : (s->secs > 0 ? s->c[TM_CNP] / s->secs : 0);
		if (v[k] > *max)
			*max = v[k];
		k++;
	}
	return k;
}
