/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sFlow version 5 datagrams, decoded without I/O (user/sources/sflow.c feeds
 * it from a UDP socket, tests and the fuzzer feed it bytes). Layouts: sflow.org's
 * "sFlow Version 5" (datagram, flow samples formats 1 and 3, counter samples
 * formats 2 and 4, raw packet header 1, extended switch 1001, generic interface
 * counters 1, Ethernet counters 2) and its extensions "sFlow Dropped Packet
 * Notification Structures" (sample format 5) and "sFlow Transit Delay and Queue
 * Depth" (1036 egress queue, 1039 transit delay, 1040 queue depth). Every
 * field is XDR: big-endian 32-bit words; opaque data is padded to 4 bytes.
 *
 * Every read is checked against the end of its container (the datagram, the
 * sample, the record). A sample that does not fit, or whose records do not fit
 * in it, ends the decoding of the datagram: the samples before it were
 * handed on, the rest is skipped and the error returned. Records and samples
 * of other formats or enterprises are skipped by their length.
 */
#ifndef RT_SFLOW_DECODE_H
#define RT_SFLOW_DECODE_H

#include <stddef.h>
#include <linux/types.h>

#define RT_SF_PORT_DEFAULT	6343

/* What rt_sf_decode() says of a datagram; RT_SF_OK is 0. */
enum rt_sf_err {
	RT_SF_OK = 0,
	RT_SF_E_SHORT,		/* shorter than a datagram header */
	RT_SF_E_VERSION,	/* not version 5 (another sFlow version or protocol) */
	RT_SF_E_AGENT,		/* agent address of an unknown type */
	RT_SF_E_SAMPLE,		/* a sample runs past the datagram, or lies about its count */
	RT_SF_E_RECORD,		/* a record runs past its sample, or lies about its count */
	RT_SF_E_TRAILING,	/* bytes after the samples the header announced */
	RT_SF_E__COUNT
};

const char *rt_sf_err_name(int err);

struct rt_sf_dgram {
	__u32 version;
	__u8  agent_family;	/* 4 or 6 */
	__u8  agent[16];	/* IPv4: first 4 bytes */
	__u32 sub_agent;
	__u32 seq;
	__u32 uptime_ms;
	__u32 nsamples;		/* as announced */
};

/* A flow sample (formats 1 and 3) or a dropped-packet notification (format 5). */
struct rt_sf_flow {
	__u32 format;		/* 1, 3 or 5 */
	__u32 seq;
	__u32 ds_class, ds_index;	/* the data source: class 0 is an ifIndex */
	__u32 rate;		/* sampling rate; 0 for a drop notification */
	__u32 pool, dropped;	/* sample pool; samples the agent dropped (flow); drops (format 5) */
	__u32 input, output;	/* ifIndex values (format bits removed); 0: unknown */
	__u32 out_multi;	/* output names several ports */
	__u32 reason;		/* format 5: the drop reason code */
	__u8  has_hdr, has_switch, has_queue, has_depth, has_transit;
	__u32 hdr_proto;	/* 1: Ethernet */
	__u32 frame_len;	/* original length, as the agent reports it */
	__u32 stripped;		/* bytes the agent removed (the FCS, usually) */
	__u32 hdr_len;
	const __u8 *hdr;	/* hdr_len bytes inside the datagram */
	__u32 in_vlan, in_prio, out_vlan, out_prio;	/* 1001 */
	__u32 queue;		/* 1036: egress queue index */
	__u32 transit_ns;	/* 1039 */
	__u32 depth;		/* 1040: queue depth in bytes */
};

/* A counter sample (formats 2 and 4): what rocetop keeps of records 1 and 2. */
struct rt_sf_ctr {
	__u32 format;
	__u32 seq;
	__u32 ds_class, ds_index;
	__u8  has_if, has_eth;
	/* 1: generic interface counters */
	__u32 if_index, if_type;
	__u64 if_speed;		/* bits per second */
	__u32 if_direction, if_status;
	__u64 in_octets;
	__u32 in_ucast, in_mcast, in_bcast, in_discards, in_errors, in_unknown;
	__u64 out_octets;
	__u32 out_ucast, out_mcast, out_bcast, out_discards, out_errors, promisc;
	/* 2: Ethernet counters (dot3Stats*), in the order the spec lists them */
	__u32 eth[13];
};

struct rt_sf_stats {
	__u64 flow_samples, drop_samples, ctr_samples, other_samples;
	__u64 records_skipped;	/* records of formats rocetop does not read */
};

struct rt_sf_cb {
	void (*flow)(void *arg, const struct rt_sf_dgram *d, const struct rt_sf_flow *f);
	void (*ctr)(void *arg, const struct rt_sf_dgram *d, const struct rt_sf_ctr *c);
	void *arg;
};

/*
 * Decode one datagram. d is filled as far as the header could be read: the
 * agent is known when d->agent_family is not 0, whatever the return. Samples
 * go to cb (either callback may be NULL) as they are decoded; st (may be NULL)
 * is added to. Returns RT_SF_OK or the first error, after which nothing more
 * of the datagram was read.
 */
int rt_sf_decode(const __u8 *buf, size_t len, struct rt_sf_dgram *d, const struct rt_sf_cb *cb,
		 struct rt_sf_stats *st);

/* The name of a drop reason code: user/core/sf_drop.h. */

#endif
