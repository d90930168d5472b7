// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: sFlow datagrams, untrusted bytes from the network, through the
 * decoder and the collector (which hands sampled headers to the one parser).
 * Beyond "no crash, no read past the datagram": a sample handed on points
 * inside the datagram, and the collector's tables stay consistent.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include "sflow.h"
#include "sflow_decode.h"
#include "snapshot.h"

static const __u8 *lo, *hi;

static void on_flow(void *arg, const struct rt_sf_dgram *d, const struct rt_sf_flow *f)
{
	(void)arg;
	(void)d;
	if (f->has_hdr && (f->hdr < lo || f->hdr + f->hdr_len > hi))
		abort();	/* a header outside the datagram */
}

static struct rt_sflow *sf;
static __u64 now = 1, n;

int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	struct rt_sf_cb cb = { on_flow, NULL, NULL };
	struct sockaddr_in from = { .sin_family = AF_INET, .sin_addr = { htonl(0x7f000001) } };
	struct rt_sf_dgram d;
	struct rt_sf_stats st = { 0 };
	__u8 *buf = malloc(size ? size : 1);
	int r;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	lo = buf;
	hi = buf + size;
	r = rt_sf_decode(buf, size, &d, &cb, &st);
	if (r < 0 || r >= RT_SF_E__COUNT)
		abort();
	if (!sf) {
		struct rt_sflow_cfg c = { .fd = -1, .have_fd = 1, .max_flows = 4096, .flow_timeout = 60 };

		sf = rt_sflow_new(&c);
		if (!sf)
			abort();
	}
	/* Time moves on by the first byte's seconds, so that the loss rule
	 * (uptime against the time passed) and forgetting (--flow-timeout 60)
	 * meet every case; every 256th datagram the tables are collected (and
	 * swept) and their bounds checked. */
	now += (size ? data[0] : 0) * 1000000000ULL;
	rt_sflow_datagram(sf, buf, size, (const struct sockaddr *)&from, now);
	if (!(++n % 256)) {
		struct rt_snapshot s;

		rt_snapshot_init(&s);
		if (rt_sflow_collect(sf, &s) || s.nsfagents > 4096 + 1 || s.nflows > 4096)
			abort();
		for (size_t i = 0; i < s.nsfagents; i++)
			if (s.sfagents[i].lost > (__u64)n * 0xffffffffULL)
				abort();
		rt_snapshot_free(&s);
	}
	free(buf);
	return 0;
}
