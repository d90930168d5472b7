// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe's wire format (user/probe/probe.h): a 48-byte header in network
 * byte order, then padding up to the probe's size. The responder answers a
 * request with the same bytes back (never more), its type turned to an answer
 * and its own time written in; anything else it receives is counted by why it
 * is not a probe and not answered. Also the UDP source port a path's frames
 * carry, which names the path on the wire.
 *
 *   0  magic "RTPB"      4  version  5 type  6 path (16)
 *   8  size (32)        12  clock (8), 3 bytes zero
 *  16  seq (64)         24  t_tx_ns (64)   32 resp_ns (64)   40 stall_ns (64)
 */
#include <string.h>
#include <endian.h>
#include "probe.h"

static void put16(uint8_t *p, uint16_t v) { v = htobe16(v); memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { v = htobe32(v); memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { v = htobe64(v); memcpy(p, &v, 8); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return be16toh(v); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return be32toh(v); }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return be64toh(v); }

void rt_probe_encode(const struct rt_probe_msg *m, void *buf, size_t len)
{
	uint8_t *p = buf;

	if (len < RT_PROBE_HDR)
		return;
	memset(p, 0, RT_PROBE_HDR);
	put32(p, RT_PROBE_MAGIC);
	p[4] = RT_PROBE_VERSION;
	p[5] = m->type;
	put16(p + 6, m->path);
	put32(p + 8, m->size);
	p[12] = m->clock;
	put64(p + 16, m->seq);
	put64(p + 24, m->t_tx_ns);
	put64(p + 32, m->resp_ns);
	put64(p + 40, m->stall_ns);
}

enum rt_probe_bad rt_probe_decode(const void *buf, size_t len, int expect, struct rt_probe_msg *m)
{
	const uint8_t *p = buf;

	if (len < RT_PROBE_HDR)
		return RT_PROBE_SHORT;
	if (get32(p) != RT_PROBE_MAGIC || p[4] != RT_PROBE_VERSION)
		return RT_PROBE_NOT_OURS;
	if (p[5] != expect)
		return RT_PROBE_BAD_TYPE;
	memset(m, 0, sizeof(*m));
	m->type = p[5];
	m->path = get16(p + 6);
	m->size = get32(p + 8);
	m->clock = p[12];
	m->seq = get64(p + 16);
	m->t_tx_ns = get64(p + 24);
	m->resp_ns = get64(p + 32);
	m->stall_ns = get64(p + 40);
	if (m->size != len || m->size > RT_PROBE_MAX)
		return RT_PROBE_BAD_SIZE;
	return RT_PROBE_OK;
}

const char *rt_probe_bad_name(enum rt_probe_bad b)
{
	static const char *const names[RT_PROBE_NBAD] = {
		[RT_PROBE_OK] = "ok",
		[RT_PROBE_SHORT] = "short",
		[RT_PROBE_NOT_OURS] = "not a rocetop probe",
		[RT_PROBE_BAD_TYPE] = "wrong type",
		[RT_PROBE_BAD_SIZE] = "size not as received",
	};
	return (unsigned)b < RT_PROBE_NBAD ? names[b] : "?";
}

uint16_t rt_probe_sport_flow_label(uint32_t fl)
{
	uint32_t lo = fl & 0x3fff, hi = (fl & 0xfc000) >> 14;

	return (uint16_t)((lo ^ hi) | 0xc000);
}

/* Soft-RoCE (drivers/infiniband/sw/rxe): 0xc000 plus the top 14 bits of the
 * QP number times the kernel's 32-bit golden ratio (hash_32(qpn, 14)). */
uint16_t rt_probe_sport_rxe(uint32_t qpn)
{
	return (uint16_t)(0xc000 + (((uint32_t)(qpn * 0x61C88647u) >> 18) & 0x3fff));
}
