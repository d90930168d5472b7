// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "table.h"

int rt_grow_to(void **arr, size_t *cap, size_t n, size_t sz)
{
	void *p;

	if (n <= *cap)
		return 0;
	p = realloc(*arr, n * sz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

int rt_grow_for(void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t want = *cap ? *cap : 16;

	if (n <= *cap)
		return 0;
	while (want < n) {
		if (want > SIZE_MAX / 2)
			return -ENOMEM;
		want *= 2;
	}
	if (sz && want > SIZE_MAX / sz)
		return -ENOMEM;
	return rt_grow_to(arr, cap, want, sz);
}

void *rt_append(void **arr, size_t *n, size_t *cap, size_t sz)
{
	char *row;

	if (*n == *cap && rt_grow_to(arr, cap, *cap ? *cap * 2 : 16, sz))
		return NULL;
	row = (char *)*arr + (*n)++ * sz;
	memset(row, 0, sz);
	return row;
}

__u32 rt_hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	__u64 h = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return (__u32)(h ^ (h >> 32));
}

void rt_htab_init(struct rt_htab *t, size_t esz, size_t ksz, size_t max)
{
	memset(t, 0, sizeof(*t));
	t->esz = esz;
	t->ksz = ksz;
	t->max = max;
}

void rt_htab_free(struct rt_htab *t)
{
	free(t->slots);
	free(t->hash);
	free(t->used);
	rt_htab_init(t, t->esz, t->ksz, t->max);
}

void rt_htab_clear(struct rt_htab *t)
{
	if (t->used)
		memset(t->used, 0, t->cap);
	t->n = 0;
}

int rt_htab_grow(struct rt_htab *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 1024, i, j;
	unsigned char *slots = malloc(ncap * t->esz);
	__u32 *hash = malloc(ncap * sizeof(*hash));
	__u8 *used = calloc(ncap, 1);

	if (!slots || !hash || !used) {
		free(slots);
		free(hash);
		free(used);
		errno = ENOMEM;
		return -ENOMEM;
	}
	for (i = 0; i < t->cap; i++) {
		if (!t->used[i])
			continue;
		for (j = t->hash[i] & (ncap - 1); used[j]; j = (j + 1) & (ncap - 1))
			;
		used[j] = 1;
		hash[j] = t->hash[i];
		memcpy(slots + j * t->esz, rt_htab_at(t, i), t->esz);
	}
	free(t->slots);
	free(t->hash);
	free(t->used);
	t->slots = slots;
	t->hash = hash;
	t->used = used;
	t->cap = ncap;
	return 0;
}
