// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* sFlow v5 decoding: see sflow_decode.h for the formats and the error rules. */
#include <string.h>
#include "sflow_decode.h"

/* A window of the datagram: reads never go past end. */
struct cur {
	const __u8 *p, *end;
};

static size_t left(const struct cur *c)
{
	return (size_t)(c->end - c->p);
}

static int u32(struct cur *c, __u32 *v)
{
	if (left(c) < 4)
		return -1;
	*v = (__u32)c->p[0] << 24 | (__u32)c->p[1] << 16 | (__u32)c->p[2] << 8 | c->p[3];
	c->p += 4;
	return 0;
}

static int u64(struct cur *c, __u64 *v)
{
	__u32 hi = 0, lo = 0;

	if (u32(c, &hi) || u32(c, &lo))
		return -1;
	*v = (__u64)hi << 32 | lo;
	return 0;
}

/* A sub-window of n bytes; the parent moves past it. */
static int sub(struct cur *c, __u32 n, struct cur *out)
{
	if (left(c) < n)
		return -1;
	out->p = c->p;
	out->end = c->p + n;
	c->p += n;
	return 0;
}

/* Each field of a structure in order; -1 as soon as one does not fit. */
static int u32s(struct cur *c, __u32 **v, int n)
{
	for (int i = 0; i < n; i++)
		if (u32(c, v[i]))
			return -1;
	return 0;
}

static const char *const err_names[RT_SF_E__COUNT] = {
	[RT_SF_OK] = "ok",
	[RT_SF_E_SHORT] = "short",
	[RT_SF_E_VERSION] = "version",
	[RT_SF_E_AGENT] = "agent",
	[RT_SF_E_SAMPLE] = "sample",
	[RT_SF_E_RECORD] = "record",
	[RT_SF_E_TRAILING] = "trailing",
};

const char *rt_sf_err_name(int err)
{
	return err >= 0 && err < RT_SF_E__COUNT ? err_names[err] : "?";
}

/* A record of one word: the word into *v, *has set; 0, or -1 when cut short. */
static int u32_seen(struct cur *r, __u32 *v, __u8 *has)
{
	if (u32(r, v))
		return -1;
	*has = 1;
	return 0;
}

/* Flow records (also inside drop notifications). 0 or -1 (bad record). */
static int flow_record(__u32 type, struct cur *r, void *arg, struct rt_sf_stats *st)
{
	struct rt_sf_flow *f = arg;
	__u32 a, b, c, d;

	if (type >> 12) {	/* another enterprise */
		st->records_skipped++;
		return 0;
	}
	switch (type) {
	case 1:		/* raw packet header */
		if (u32s(r, (__u32 *[]){ &f->hdr_proto, &f->frame_len, &f->stripped, &f->hdr_len }, 4))
			return -1;
		/* The header bytes, padded to 4, must be inside the record. */
		if (f->hdr_len > left(r) || ((f->hdr_len + 3) & ~3u) > left(r))
			return -1;
		f->hdr = r->p;
		f->has_hdr = 1;
		return 0;
	case 1001:	/* extended switch */
		if (u32s(r, (__u32 *[]){ &a, &b, &c, &d }, 4))
			return -1;
		f->in_vlan = a;
		f->in_prio = b;
		f->out_vlan = c;
		f->out_prio = d;
		f->has_switch = 1;
		return 0;
	case 1036:	/* extended egress queue: its index */
		return u32_seen(r, &f->queue, &f->has_queue);
	case 1039:	/* extended transit delay, ns */
		return u32_seen(r, &f->transit_ns, &f->has_transit);
	case 1040:	/* extended queue depth, bytes */
		return u32_seen(r, &f->depth, &f->has_depth);
	default:
		st->records_skipped++;
		return 0;
	}
}

/* A sample's records, each (its type and its bytes) to one(): 0, or -1
 * when one is cut short or one() finds it bad. */
static int records(struct cur *s, int (*one)(__u32 type, struct cur *r, void *arg, struct rt_sf_stats *st),
		   void *arg, struct rt_sf_stats *st)
{
	__u32 n, i;

	if (u32(s, &n))
		return -1;
	for (i = 0; i < n; i++) {
		struct cur r;
		__u32 type, len;

		if (u32(s, &type) || u32(s, &len) || sub(s, len, &r))
			return -1;
		if (one(type, &r, arg, st))
			return -1;
	}
	return 0;
}

static int flow_sample(__u32 format, struct cur *s, struct rt_sf_flow *f, struct rt_sf_stats *st)
{
	__u32 src, in, out;

	memset(f, 0, sizeof(*f));
	f->format = format;
	if (format == 1) {
		if (u32s(s, (__u32 *[]){ &f->seq, &src, &f->rate, &f->pool, &f->dropped, &in, &out }, 7))
			return -1;
		f->ds_class = src >> 24;
		f->ds_index = src & 0xffffff;
		/* Top two bits: the format of the value (0 an ifIndex, 1 a drop
		 * reason, 2 several ports); the low 30 bits: the value. */
		f->input = in >> 30 == 0 ? in & 0x3fffffff : 0;
		f->out_multi = out >> 30 == 2 || out >> 31;
		f->output = out >> 30 == 0 ? out & 0x3fffffff : 0;
	} else if (format == 3) {
		__u32 infmt, outfmt;

		if (u32s(s, (__u32 *[]){ &f->seq, &f->ds_class, &f->ds_index, &f->rate, &f->pool,
					 &f->dropped, &infmt, &in, &outfmt, &out }, 10))
			return -1;
		f->input = infmt == 0 ? in : 0;
		f->out_multi = outfmt == 2;
		f->output = outfmt == 0 ? out : 0;
	} else {	/* 5: dropped packet */
		if (u32s(s, (__u32 *[]){ &f->seq, &f->ds_class, &f->ds_index, &f->dropped, &in, &out,
					 &f->reason }, 7))
			return -1;
		f->input = in;
		f->output = out;
	}
	return records(s, flow_record, f, st);
}

/* Counter records: generic interface (1) and Ethernet (2); others skipped. */
static int ctr_record(__u32 type, struct cur *r, void *arg, struct rt_sf_stats *st)
{
	struct rt_sf_ctr *c = arg;

	if (type == 1) {
		if (u32(r, &c->if_index) || u32(r, &c->if_type) || u64(r, &c->if_speed) ||
		    u32(r, &c->if_direction) || u32(r, &c->if_status) || u64(r, &c->in_octets) ||
		    u32s(r, (__u32 *[]){ &c->in_ucast, &c->in_mcast, &c->in_bcast, &c->in_discards,
					 &c->in_errors, &c->in_unknown }, 6) ||
		    u64(r, &c->out_octets) ||
		    u32s(r, (__u32 *[]){ &c->out_ucast, &c->out_mcast, &c->out_bcast,
					 &c->out_discards, &c->out_errors, &c->promisc }, 6))
			return -1;
		c->has_if = 1;
	} else if (type == 2) {
		for (int k = 0; k < 13; k++)
			if (u32(r, &c->eth[k]))
				return -1;
		c->has_eth = 1;
	} else {
		st->records_skipped++;
	}
	return 0;
}

static int ctr_sample(__u32 format, struct cur *s, struct rt_sf_ctr *c, struct rt_sf_stats *st)
{
	__u32 src;

	memset(c, 0, sizeof(*c));
	c->format = format;
	if (format == 2) {
		if (u32(s, &c->seq) || u32(s, &src))
			return -1;
		c->ds_class = src >> 24;
		c->ds_index = src & 0xffffff;
	} else if (u32(s, &c->seq) || u32(s, &c->ds_class) || u32(s, &c->ds_index)) {
		return -1;
	}
	return records(s, ctr_record, c, st);
}

int rt_sf_decode(const __u8 *buf, size_t len, struct rt_sf_dgram *d, const struct rt_sf_cb *cb,
		 struct rt_sf_stats *st)
{
	struct cur c = { buf, buf + len };
	struct rt_sf_stats dummy;
	__u32 atype, i;

	if (!st)
		st = &dummy;
	memset(d, 0, sizeof(*d));
	if (u32(&c, &d->version))
		return RT_SF_E_SHORT;
	if (d->version != 5)
		return RT_SF_E_VERSION;
	if (u32(&c, &atype))
		return RT_SF_E_SHORT;
	if (atype == 1) {
		if (left(&c) < 4)
			return RT_SF_E_SHORT;
		memcpy(d->agent, c.p, 4);
		c.p += 4;
		d->agent_family = 4;
	} else if (atype == 2) {
		if (left(&c) < 16)
			return RT_SF_E_SHORT;
		memcpy(d->agent, c.p, 16);
		c.p += 16;
		d->agent_family = 6;
	} else {
		return RT_SF_E_AGENT;
	}
	if (u32s(&c, (__u32 *[]){ &d->sub_agent, &d->seq, &d->uptime_ms, &d->nsamples }, 4))
		return RT_SF_E_SHORT;	/* the agent is known: the error counts against it */
	for (i = 0; i < d->nsamples; i++) {
		struct cur s;
		__u32 type, slen;

		if (u32(&c, &type) || u32(&c, &slen) || sub(&c, slen, &s))
			return RT_SF_E_SAMPLE;
		if (type >> 12) {	/* another enterprise */
			st->other_samples++;
			continue;
		}
		if (type == 1 || type == 3 || type == 5) {
			struct rt_sf_flow f;

			if (flow_sample(type, &s, &f, st))
				return RT_SF_E_RECORD;
			if (type == 5)
				st->drop_samples++;
			else
				st->flow_samples++;
			if (cb && cb->flow)
				cb->flow(cb->arg, d, &f);
		} else if (type == 2 || type == 4) {
			struct rt_sf_ctr k;

			if (ctr_sample(type, &s, &k, st))
				return RT_SF_E_RECORD;
			st->ctr_samples++;
			if (cb && cb->ctr)
				cb->ctr(cb->arg, d, &k);
		} else {
			st->other_samples++;
		}
	}
	return left(&c) ? RT_SF_E_TRAILING : RT_SF_OK;
}
