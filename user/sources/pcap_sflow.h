/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sFlow datagrams inside a capture (-r of a pcap or pcapng holding UDP to
 * port 6343): the same collector as --sflow (sflow.c), fed the datagrams in
 * capture time, so a capture of what switches sent gives the fabric view,
 * CSV and findings a live collector fed the same datagrams gives.
 *
 * The source reads a packet ahead of the interval it counts, so a datagram
 * is queued when it is read and handed to the collector when the interval
 * its time falls in ends (rt_pcap_sflow_merge()).
 */
#ifndef RT_PCAP_SFLOW_H
#define RT_PCAP_SFLOW_H

#include <stddef.h>
#include <linux/types.h>
#include "snapshot.h"
#include "sources.h"

struct rt_pcap_sflow;

/* A queue for a capture read with c; no collector until its first datagram.
 * NULL without memory. */
struct rt_pcap_sflow *rt_pcap_sflow_new(const struct rt_file_cfg *c);
/*
 * The Ethernet frame f (cap bytes captured) at capture time ts: when it is a
 * UDP datagram to port 6343 (IPv4 unfragmented, or IPv6 with UDP as the
 * first next header; up to two VLAN tags), its payload is queued. 1 when
 * queued, 0 when not sFlow, -ENOMEM.
 */
int rt_pcap_sflow_take(struct rt_pcap_sflow *ps, const __u8 *f, size_t cap, __u64 ts);
/* The queued datagrams before end handed to the collector, and its tables
 * added to snap as the live collector adds them. 0 or -ENOMEM. */
int rt_pcap_sflow_merge(struct rt_pcap_sflow *ps, __u64 end, struct rt_snapshot *snap);
/* Forget everything (the capture is read again from its start). */
void rt_pcap_sflow_reset(struct rt_pcap_sflow *ps);
void rt_pcap_sflow_free(struct rt_pcap_sflow *ps);

#endif
