// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* sFlow datagrams inside a capture: see pcap_sflow.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "pcap_sflow.h"
#include "sflow.h"
#include "sflow_decode.h"

/* One queued datagram; its bytes follow, padded to 8. */
struct qent {
	__u64 ts;
	struct sockaddr_storage from;
	__u32 len;
	__u32 pad;
};

struct rt_pcap_sflow {
	struct rt_sflow_cfg cfg;	/* the collector's: the capture's table size and timeout */
	struct rt_sflow *sf;	/* made at the first datagram */
	__u8 *q;		/* queued entries: [head, len) */
	size_t head, len, cap;
};

static __u16 be16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

struct rt_pcap_sflow *rt_pcap_sflow_new(const struct rt_file_cfg *c)
{
	struct rt_pcap_sflow *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->cfg.max_flows = c->max_flows;
	ps->cfg.flow_timeout = c->flow_timeout;
	ps->cfg.fd = -1;
	return ps;
}

/* The UDP payload to port 6343 in frame f and its source; NULL when not one. */
static const __u8 *udp_payload(const __u8 *f, size_t cap, size_t *n, struct sockaddr_storage *from)
{
	size_t off = 12, ul;
	__u16 proto;
	const __u8 *u;
	int tags;

	for (tags = 0; tags <= 2; tags++) {
		if (cap < off + 2)
			return NULL;
		proto = be16(f + off);
		if (proto != 0x8100 && proto != 0x88a8)
			break;
		off += 4;
	}
	off += 2;
	memset(from, 0, sizeof(*from));
	if (proto == 0x0800 && cap >= off + 20 && (f[off] >> 4) == 4) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)from;
		size_t ihl = (size_t)(f[off] & 15) * 4;

		if (f[off + 9] != IPPROTO_UDP || ihl < 20 || (be16(f + off + 6) & 0x3fff))
			return NULL;	/* not UDP, or a fragment */
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, f + off + 12, 4);
		off += ihl;
	} else if (proto == 0x86dd && cap >= off + 40 && (f[off] >> 4) == 6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)from;

		if (f[off + 6] != IPPROTO_UDP)
			return NULL;
		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, f + off + 8, 16);
		off += 40;
	} else {
		return NULL;
	}
	if (cap < off + 8 || be16(f + off + 2) != RT_SF_PORT_DEFAULT)
		return NULL;
	u = f + off;
	ul = be16(u + 4);
	/* UDP's own length, bounded by what was captured (a cut datagram is
	 * decoded as far as it goes, its error counted, as a short read live) */
	if (ul < 8)
		return NULL;
	*n = ul - 8 < cap - off - 8 ? ul - 8 : cap - off - 8;
	return u + 8;
}

int rt_pcap_sflow_take(struct rt_pcap_sflow *ps, const __u8 *f, size_t cap, __u64 ts)
{
	struct sockaddr_storage from;
	const __u8 *pl;
	size_t n, need;
	struct qent *e;

	pl = udp_payload(f, cap, &n, &from);
	if (!pl)
		return 0;
	need = sizeof(*e) + ((n + 7) & ~(size_t)7);
	if (ps->head && ps->head == ps->len)
		ps->head = ps->len = 0;
	if (ps->len + need > ps->cap) {
		size_t nc = ps->cap ? ps->cap : 65536;
		__u8 *q;

		while (nc < ps->len + need)
			nc *= 2;
		q = realloc(ps->q, nc);
		if (!q)
			return -ENOMEM;
		ps->q = q;
		ps->cap = nc;
	}
	e = (struct qent *)(ps->q + ps->len);
	e->ts = ts;
	e->from = from;
	e->len = (__u32)n;
	memcpy(e + 1, pl, n);
	ps->len += need;
	return 1;
}

int rt_pcap_sflow_merge(struct rt_pcap_sflow *ps, __u64 end, struct rt_snapshot *snap)
{
	while (ps->head < ps->len) {
		const struct qent *e = (const struct qent *)(ps->q + ps->head);

		if (e->ts >= end)
			break;
		if (!ps->sf && !(ps->sf = rt_sflow_new(&ps->cfg)))
			return -ENOMEM;
		rt_sflow_datagram(ps->sf, e + 1, e->len, (const struct sockaddr *)&e->from, e->ts);
		ps->head += sizeof(*e) + ((e->len + 7) & ~(__u32)7);
	}
	/* keep the rest at the front, so the queue holds about an interval */
	if (ps->head) {
		memmove(ps->q, ps->q + ps->head, ps->len - ps->head);
		ps->len -= ps->head;
		ps->head = 0;
	}
	if (!ps->sf)
		return 0;
	rt_sflow_clock(ps->sf, end);
	return rt_sflow_collect(ps->sf, snap);
}

void rt_pcap_sflow_reset(struct rt_pcap_sflow *ps)
{
	rt_sflow_free(ps->sf);
	ps->sf = NULL;
	ps->head = ps->len = 0;
}

void rt_pcap_sflow_free(struct rt_pcap_sflow *ps)
{
	if (!ps)
		return;
	rt_sflow_free(ps->sf);
	free(ps->q);
	free(ps);
}
