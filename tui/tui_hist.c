// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The live view's per-flow histories (tui_hist.h): a flow's samples, packed,
 * behind the 2 s / 10 s / 40 s averages and the detail's sparklines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
#include "tui_hist.h"

const double tui_windows[TUI_NWIN] = { 2, 10, 40 };

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
