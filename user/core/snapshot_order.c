// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Flow keys in order: the table's kept key order, a sorted copy of a
 * snapshot, and the sort of key words that both use. */
#include <errno.h>
#include <stdlib.h>
#include "snapshot.h"

static int row_key_cmp(const struct rt_snapshot *s, __u32 a, __u32 b)
{
	return rt_flow_key_cmp(&s->flows[a].k, &s->flows[b].k);
}

static int perm_cmp(const void *a, const void *b, void *arg)
{
	const struct rt_flow *f = arg;

	return rt_flow_key_cmp(&f[*(const __u32 *)a].k, &f[*(const __u32 *)b].k);
}

const __u32 *rt_snapshot_key_order(const struct rt_snapshot *s)
{
	struct rt_flow_table *t = s->tab;
	size_t i, j, o, n = s->nflows, nn = 0;

	if (rt_grow_to((void **)&t->korder, &t->korder_cap, n, sizeof(*t->korder)) ||
	    (t->ko_valid && rt_grow_to((void **)&t->sk, &t->sk_cap, t->nknew, sizeof(*t->sk))))
		return NULL;
	if (!t->ko_valid) {	/* the first time: sort them all, as row numbers (4 bytes
				 * a row to sort, not a sort key's 56 and a copy of them) */
		for (i = 0; i < n; i++)
			t->korder[i] = (__u32)i;
		if (n > 1)
			qsort_r(t->korder, n, sizeof(*t->korder), perm_cmp, (void *)s->flows);
		for (i = 0; i < n; i++)
			t->kpos[t->korder[i]] = (__u32)i;
		t->nkorder = n;
		t->nknew = t->ndead = 0;
		t->ko_valid = 1;
		return t->korder;
	}
	if (!t->nknew && !t->ndead)
		return t->korder;
	/* the rows added since, sorted; then merged with the kept order */
	for (i = 0; i < t->nknew; i++)
		if (t->knew[i] != RT_KO_DEAD)
			rt_sortkey_make(&t->sk[nn++], &s->flows[t->knew[i]].k, t->knew[i]);
	rt_sortkeys_sort(t->sk, nn);
	/* In place (no second order array, 4 bytes a row): the places of the
	 * rows gone closed up front to back, then the new rows merged in from
	 * the back (o + nn <= n: korder holds them). */
	for (i = o = 0; i < t->nkorder; i++)
		if (t->korder[i] != RT_KO_DEAD)
			t->korder[o++] = t->korder[i];
	for (i = o, j = nn, o += nn; j > 0;) {
		__u32 r;

		if (i > 0 && row_key_cmp(s, t->korder[i - 1], (__u32)t->sk[j - 1].row) > 0)
			r = t->korder[--i];
		else
			r = (__u32)t->sk[--j].row;
		t->korder[i + j] = r;
	}
	for (i = 0; i < o; i++)
		t->kpos[t->korder[i]] = (__u32)i;
	t->nkorder = o;
	t->nknew = t->ndead = 0;
	return t->korder;
}

int rt_snapshot_copy_sorted(struct rt_snapshot *dst, const struct rt_snapshot *src)
{
	const __u32 *order = NULL, *pos = NULL;
	__u32 *perm = NULL, *inv;
	size_t i, n = src->nflows;
	int err;

	err = rt_snapshot_copy(dst, src);
	if (err || n < 2)
		return err;
	if (src->tab) {	/* the table's kept key order: no sort of N */
		order = rt_snapshot_key_order(src);
		if (!order)
			return -ENOMEM;
		pos = src->tab->kpos;
	} else {
		perm = malloc(n * 2 * sizeof(*perm));
		if (!perm)
			return -ENOMEM;
		inv = perm + n;
		for (i = 0; i < n; i++)
			perm[i] = (__u32)i;
		qsort_r(perm, n, sizeof(*perm), perm_cmp, (void *)src->flows);
		for (i = 0; i < n; i++)
			inv[perm[i]] = (__u32)i;
		order = perm;
		pos = inv;
	}
	for (i = 0; i < n; i++) {
		struct rt_flow *f = &dst->flows[i];

		*f = src->flows[order[i]];
		if (f->throttles >= 0 && (size_t)f->throttles < n)
			f->throttles = (__s32)pos[f->throttles];
	}
	free(perm);
	return 0;
}

void rt_sortkey_make(struct rt_sortkey *o, const struct rt_flow_key *k, size_t row)
{
	__u64 w[6];

	__builtin_memcpy(w, k, sizeof(w));
	for (int i = 0; i < 6; i++)
		o->w[i] = __builtin_bswap64(w[i]);	/* memcmp order on a little-endian host */
	o->row = row;
}

static int sortkey_cmp(const void *a, const void *b)
{
	const __u64 *x = ((const struct rt_sortkey *)a)->w, *y = ((const struct rt_sortkey *)b)->w;

	for (int i = 0; i < 6; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* a < b, inline (no call per comparison as qsort makes). */
static inline int sortkey_less(const struct rt_sortkey *a, const struct rt_sortkey *b)
{
	for (int i = 0; i < 5; i++)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i];
	return a->w[5] < b->w[5];
}

static inline void sortkey_swap(struct rt_sortkey *a, struct rt_sortkey *b)
{
	struct rt_sortkey t = *a;

	*a = *b;
	*b = t;
}

/*
 * Quicksort (median of three, insertion sort below 16 keys) with the
 * comparison inline: glibc's qsort sorts keys this large through pointers
 * and a compare call each (msort and sortkey_cmp were 5-10% of bench/pcap.sh's
 * 100k-flow profiles). A part that recurses deeper than 2 log2 n (a shape
 * that defeats the median) is left to qsort, so the worst case stays
 * O(n log n).
 */
static void sortkeys_qs(struct rt_sortkey *k, size_t n, int depth)
{
	while (n > 16) {
		struct rt_sortkey *m = &k[n / 2], *e = &k[n - 1], piv;
		size_t i, j;

		if (!depth--) {
			qsort(k, n, sizeof(*k), sortkey_cmp);
			return;
		}
		if (sortkey_less(m, k))
			sortkey_swap(m, k);
		if (sortkey_less(e, m)) {
			sortkey_swap(e, m);
			if (sortkey_less(m, k))
				sortkey_swap(m, k);
		}
		/* k[0] <= pivot <= k[n - 1]: both ends stop the scans below */
		piv = *m;
		i = 0;
		j = n - 1;
		for (;;) {
			do
				i++;
			while (sortkey_less(&k[i], &piv));
			do
				j--;
			while (sortkey_less(&piv, &k[j]));
			if (i >= j)
				break;
			sortkey_swap(&k[i], &k[j]);
		}
		/* [0, j] <= pivot <= [j + 1, n): the smaller part recursed into */
		if (j + 1 < n - j - 1) {
			sortkeys_qs(k, j + 1, depth);
			k += j + 1;
			n -= j + 1;
		} else {
			sortkeys_qs(k + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct rt_sortkey x = k[i];
		size_t j = i;

		for (; j > 0 && sortkey_less(&x, &k[j - 1]); j--)
			k[j] = k[j - 1];
		k[j] = x;
	}
}

void rt_sortkeys_sort(struct rt_sortkey *k, size_t n)
{
	int depth = 0;

	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	if (n > 1)
		sortkeys_qs(k, n, depth);
}
