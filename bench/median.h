/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The median of a set of figures, one definition for each type a bench
 * summarises: cpu.h's of doubles (CPU ms), frames.h's of longs (ns).
 */
#ifndef ROCETOP_BENCH_MEDIAN_H
#define ROCETOP_BENCH_MEDIAN_H

#include <stdlib.h>

/* BENCH_MEDIAN(T): static T median(T *v, int n), which sorts v. */
#define BENCH_MEDIAN(T)								\
static inline int cmp_##T(const void *a, const void *b)			\
{										\
	T x = *(const T *)a, y = *(const T *)b;					\
										\
	return (x > y) - (x < y);						\
}										\
										\
static inline T median(T *v, int n)						\
{										\
	qsort(v, (size_t)n, sizeof(*v), cmp_##T);				\
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;		\
}

#endif
