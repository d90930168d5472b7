/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* An IPv4 flow key from its parts, for the unit tests that build flows. */
#ifndef RT_TEST_FLOWKEY_H
#define RT_TEST_FLOWKEY_H
#include <string.h>
#include <arpa/inet.h>
#include "snapshot.h"

static inline struct rt_flow_key key4(const char *src, const char *dst, __u32 ifindex, __u8 dir, __u32 qp)
{
	struct rt_flow_key k;

	memset(&k, 0, sizeof(k));
	k.ifindex = ifindex;
	k.dir = dir;
	k.family = 4;
	inet_pton(AF_INET, src, k.src);
	inet_pton(AF_INET, dst, k.dst);
	k.dqpn = qp;
	return k;
}

#endif
