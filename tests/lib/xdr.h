/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sFlow datagrams are XDR: 32-bit big-endian words. The one writer of a word
 * that tests/unit/test_sflow.c and bench/sflow_bench.c build datagrams with.
 */
#ifndef ROCETOP_TESTS_XDR_H
#define ROCETOP_TESTS_XDR_H

#include <stddef.h>
#include <linux/types.h>

/* v as one XDR word at d + *n; *n moves past it. */
static inline void xdr_w32(__u8 *d, size_t *n, __u32 v)
{
	d[(*n)++] = (__u8)(v >> 24);
	d[(*n)++] = (__u8)(v >> 16);
	d[(*n)++] = (__u8)(v >> 8);
	d[(*n)++] = (__u8)v;
}

#endif
