/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An address prefix as users write one: 10.0.0.1, fd00::1, 10.0.0.0/24
 * (an address alone is all its bits), and whether an address lies in it.
 * The filter language's host/src/dst and --sflow-allow read theirs here.
 */
#ifndef RT_PREFIX_H
#define RT_PREFIX_H

#include <linux/types.h>

struct rt_prefix {
	int family;		/* 4 or 6 */
	__u8 addr[16];
	int bits;		/* the prefix length: 0 to 32 or 128 */
};

/* s as ADDR or ADDR/LEN into *p: 0, or -1 if it is not one. */
int rt_prefix_parse(const char *s, struct rt_prefix *p);
/* 1 if the address of family (4 or 6) lies in p, else 0. */
int rt_prefix_has(const struct rt_prefix *p, int family, const __u8 *addr);

#endif
