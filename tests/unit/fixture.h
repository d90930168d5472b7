/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Snapshot parts built from a few values, for the unit tests that make snapshots. */
#ifndef RT_TEST_FIXTURE_H
#define RT_TEST_FIXTURE_H
#include <stdio.h>
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

/* A NIC counter of port 1 of device dev (netdev nd) added to s. */
static inline struct rt_port_ctr *add_port_ctr(struct rt_snapshot *s, const char *dev, const char *nd,
					       const char *name, __u64 value, int bits)
{
	struct rt_port_ctr *c = rt_snapshot_add_port(s);

	snprintf(c->dev, sizeof(c->dev), "%s", dev);
	c->port = 1;
	snprintf(c->netdev, sizeof(c->netdev), "%s", nd);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->value = value;
	c->bits = (__u8)bits;
	return c;
}

#endif
