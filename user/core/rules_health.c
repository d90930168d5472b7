// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The link's and the host's health from the NIC's own counters, as rules of
 * rules.c's table (each a function of the interval's delta): link flaps,
 * FEC and symbol errors, buffer discards, PCIe trouble, and the slow
 * receiver that sends PFC without receiving any. The counters' names and
 * meaning are mlx5's (the kernel's Documentation/networking/device_drivers/
 * ethernet/mellanox/mlx5/counters.rst): ethtool statistics of the netdev,
 * the RDMA port's hw_counters, and the netdev's sysfs carrier_changes
 * (user/nic/). Rows are matched to a netdev by name; every delta row of the
 * snapshot is there, moved or not (a counter that exists but did not move
 * has a row with 0).
 */
#include <stdio.h>
#include <string.h>
#include "findings.h"
#include "fmt.h"
#include "linkspeed.h"
#include "rules_int.h"

/* The delta row of counter name on netdev, or NULL when there is none. */
static const struct rt_port_delta *on(const struct rt_delta *d, const char *netdev, const char *name)
{
	for (size_t i = 0; i < d->nports; i++)
		if (d->ports[i].c->scope != RT_SCOPE_QP && !strcmp(d->ports[i].c->name, name) &&
		    !strcmp(d->ports[i].c->netdev, netdev))
			return &d->ports[i];
	return NULL;
}

static __u64 moved(const struct rt_delta *d, const char *netdev, const char *name)
{
	const struct rt_port_delta *p = on(d, netdev, name);

	return p ? p->d : 0;
}

/* A netdev's counter (and priority, when prio >= 0) as a subject. */
static void subject(struct rt_subject *s, const char *netdev, int prio, const char *counter)
{
	memset(s, 0, sizeof(*s));
	s->has = RT_SUBJ_IFNAME | RT_SUBJ_COUNTER | (prio >= 0 ? RT_SUBJ_PRIO : 0);
	snprintf(s->ifname, sizeof(s->ifname), "%s", netdev);
	s->prio = prio >= 0 ? (__u8)prio : 0;
	snprintf(s->counter, sizeof(s->counter), "%s", counter);
}

static const char *plural(__u64 n)
{
	return n == 1 ? "" : "s";
}

/* A rule's look at one delta row p that moved at least its minimum and has
 * a netdev; s is the row's counter on its netdev (no priority). 0, or the
 * error of rt_findings_match. */
typedef int (*port_fn)(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d,
		       const struct rt_port_delta *p, struct rt_subject *s);

/* fn on each of the delta's rows that moved min or more on a netdev. */
static int each_port(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d,
		     __u64 min, port_fn fn)
{
	int err = 0;

	for (size_t i = 0; i < d->nports; i++) {
		const struct rt_port_ctr *c = d->ports[i].c;
		struct rt_subject s;

		if (d->ports[i].d < min || !c->netdev[0])
			continue;
		subject(&s, c->netdev, -1, c->name);
		err |= fn(F, cur, d, &d->ports[i], &s);
	}
	return err;
}

/* "rx_prio3_buf_discard" with prefix "rx_prio" and suffix "_buf_discard" -> 3, else -1. */
static int name_prio(const char *name, const char *prefix, const char *suffix)
{
	size_t n = strlen(prefix);

	if (strncmp(name, prefix, n) || name[n] < '0' || name[n] > '7' || strcmp(name + n + 1, suffix))
		return -1;
	return name[n] - '0';
}

/* What to do next, the rules' own words: one each, two for buffer-discard
 * (a lossless priority or a lossy one) and for pcie (signal or stalls). */
enum next_id {
	NX_LINK_FLAP, NX_FEC_DEGRADING, NX_LINK_ERRORS, NX_LOSSLESS, NX_LOSSY, NX_SLOW_RECEIVER, NX_PCIE_SIGNAL, NX_PCIE_STALL,
};

static const char *const next_step[] = {
	[NX_LINK_FLAP] =
		"The link flaps: each flap drops what is in flight and stalls the QPs on it until they retransmit (or fail with local_ack_timeout_err). Check the cable or transceiver and the switch port's log; ip -s link show IF and ethtool IF show the link, ethtool -m IF the module.",
	[NX_FEC_DEGRADING] =
		"The link's raw bit error rate is high: FEC still corrects it, but its margin shrinks and errors past FEC (link-errors) follow. Clean or replace the cable or transceiver, check the module (ethtool -m IF: power, temperature) and the switch side's FEC counters; ethtool -I --show-fec IF shows the FEC mode and blocks.",
	[NX_LINK_ERRORS] =
		"Errors get past FEC: packets are lost on this link and RoCE retransmits them (go-back-N: a whole window each time). Replace the cable or transceiver or move the port; check that both ends use the same FEC mode (ethtool --show-fec IF against the switch's).",
	[NX_LOSSLESS] =
		"Packets are dropped on a priority PFC should keep lossless: the receive buffer of the priority overflowed before its pause took effect. Check the port's buffer sizes and xoff threshold (dcb buffer show dev IF, or mlnx_qos -i IF), the headroom for the cable's length, and that the switch honours PFC on the priority (its pause counters).",
	[NX_LOSSY] =
		"The NIC drops received packets for lack of buffers: the host cannot take the traffic as fast as it comes. If RoCE uses this priority, enable PFC on it (dcb pfc set dev IF prio-pfc N:on) or let ECN slow the senders sooner; check the receiving application and out_of_buffer.",
	[NX_SLOW_RECEIVER] =
		"A slow receiver: this host sends PFC on the priority while it receives none, and its receive buffers run out or PCIe stalls: the host, not the fabric, is the pause source. Look at the receiving application (CPU, receives posted), the PCIe slot's width and speed (lspci -vv), IOMMU and NUMA placement; the switch ports it pauses are victims, not culprits.",
	[NX_PCIE_SIGNAL] =
		"The NIC's PCIe link has signal integrity errors and retrains: move the card to another slot to rule the slot out, and update the NIC's firmware and the server's BIOS; lspci -vv shows the link's width and speed.",
	[NX_PCIE_STALL] =
		"The host does not take what the NIC has for it over PCIe: check the slot's width and speed (lspci -vv against the card's), IOMMU and NUMA placement, and the receiving application; the NIC sends pauses and drops when this lasts.",
};

/* ---- link-flap: carrier_changes (sysfs) or link_down_events_phy moving ---- */
static int link_flap(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d,
		     const struct rt_port_delta *p, struct rt_subject *s)
{
	const struct rt_port_ctr *c = p->c;
	__u64 n = p->d;

	(void)cur;
	if (!strcmp(c->name, "carrier_changes") && c->scope == RT_SCOPE_NETDEV)
		return rt_findings_match(F, RT_SEV_WARNING, s, 1, (double)n, "carrier changes", next_step[NX_LINK_FLAP],
			"%s: carrier_changes +%llu in %s: the link lost its carrier %llu time%s (a flap is a down and an up)",
			c->netdev, (unsigned long long)n, RT_DUR(d->secs), (unsigned long long)(n + 1) / 2,
			plural((n + 1) / 2));
	if (!strcmp(c->name, "link_down_events_phy"))
		return rt_findings_match(F, RT_SEV_WARNING, s, 1, (double)n, "link downs", next_step[NX_LINK_FLAP],
			"%s: link_down_events_phy +%llu in %s: the port went down %llu time%s",
			c->netdev, (unsigned long long)n, RT_DUR(d->secs), (unsigned long long)n, plural(n));
	return 0;
}

/* The bits a port received in the interval: rx_bits_phy's increase where the
 * NIC counts it, else the link speed times the interval (*how says which). */
static double bits_in(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d,
		      const char *netdev, char *how, size_t len)
{
	const struct rt_port_delta *b = on(d, netdev, "rx_bits_phy");
	const char *from = NULL;
	__u64 mbps;

	if (b && b->d) {
		snprintf(how, len, "rx_bits_phy +%llu", (unsigned long long)b->d);
		return (double)b->d;
	}
	mbps = rt_link_speed(cur, netdev, F->cfg.speed_mbps, &from);
	snprintf(how, len, "%llu Mb/s (%s) for %s", (unsigned long long)mbps, from ? from : "assumed",
		 RT_DUR(d->secs));
	return (double)mbps * 1e6 * d->secs;
}

/* The lane with the most raw errors this interval: " (most on rx_err_lane_N_phy +K)". */
static void worst_lane(const struct rt_delta *d, const char *netdev, char *buf, size_t len)
{
	const struct rt_port_delta *w = NULL;

	buf[0] = '\0';
	for (size_t i = 0; i < d->nports; i++)
		if (!strncmp(d->ports[i].c->name, "rx_err_lane_", 12) && d->ports[i].d &&
		    !strcmp(d->ports[i].c->netdev, netdev) && (!w || d->ports[i].d > w->d))
			w = &d->ports[i];
	if (w)
		snprintf(buf, len, "; most raw errors on %s +%llu", w->c->name, (unsigned long long)w->d);
}

/* ---- fec-degrading: the bits FEC corrected over the bits received ---- */
static int fec_degrading(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d,
			 const struct rt_port_delta *p, struct rt_subject *s)
{
	const struct rt_port_ctr *c = p->c;
	char how[96], lane[96];
	double ber;

	/* mlx5's own counter, else the standard one (ethtool netlink) */
	if (strcmp(c->name, "rx_corrected_bits_phy") && (strcmp(c->name, "fec_stat_corrected_bits") ||
	    on(d, c->netdev, "rx_corrected_bits_phy")))
		return 0;
	ber = (double)p->d / bits_in(F, cur, d, c->netdev, how, sizeof(how));
	if (ber < F->cfg.fec_ber)
		return 0;
	worst_lane(d, c->netdev, lane, sizeof(lane));
	return rt_findings_match(F, RT_SEV_WARNING, s, 1, ber, RT_UNIT_BER, next_step[NX_FEC_DEGRADING],
		"%s: %s +%llu over %s: pre-FEC bit error rate %.2e (fec-ber %.0e)%s",
		c->netdev, c->name, (unsigned long long)p->d, how, ber, F->cfg.fec_ber, lane);
}

/* ---- link-errors: symbol errors FEC did not correct, packets lost for them ---- */
static int link_errors(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d,
		       const struct rt_port_delta *p, struct rt_subject *s)
{
	const struct rt_port_ctr *c = p->c;
	__u64 n = p->d;
	char how[96];

	if (!strcmp(c->name, "rx_pcs_symbol_err_phy")) {
		double ber = (double)n / bits_in(F, cur, d, c->netdev, how, sizeof(how));

		return rt_findings_match(F, RT_SEV_CRITICAL, s, 1, (double)n, "symbol errors", next_step[NX_LINK_ERRORS],
			"%s: rx_pcs_symbol_err_phy +%llu over %s: bit error rate after FEC %.2e (symbol errors FEC did not correct)",
			c->netdev, (unsigned long long)n, how, ber);
	}
	if (!strcmp(c->name, "rx_symbol_err_phy") || !strcmp(c->name, "fec_stat_uncorrectable_blocks"))
		return rt_findings_match(F, RT_SEV_CRITICAL, s, 1, (double)n,
			c->name[0] == 'r' ? "symbol errors" : "uncorrectable blocks", next_step[NX_LINK_ERRORS],
			"%s: %s +%llu in %s (%s)", c->netdev, c->name, (unsigned long long)n, RT_DUR(d->secs),
			c->name[0] == 'r' ? "received packets dropped for symbol errors" :
					    "FEC blocks it could not correct");
	return 0;
}

/* ---- buffer-discard: the NIC drops received packets for lack of buffers; on
 * a priority with PFC (mlx5 has rx_prioN_pause only where PFC is on) that
 * is a lossless priority losing packets ---- */
static int buffer_discard(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d,
			  const struct rt_port_delta *p, struct rt_subject *s)
{
	const struct rt_port_ctr *c = p->c;
	int prio = name_prio(c->name, "rx_prio", "_buf_discard"), pfc;
	char pause[32], tx[32];

	(void)cur;
	if (prio < 0)
		return strcmp(c->name, "rx_discards_phy") ? 0 :
			rt_findings_match(F, RT_SEV_WARNING, s, 1, (double)p->d, "discarded packets", next_step[NX_LOSSY],
				"%s: rx_discards_phy +%llu in %s (received packets dropped for lack of buffers on the port)",
				c->netdev, (unsigned long long)p->d, RT_DUR(d->secs));
	snprintf(pause, sizeof(pause), "rx_prio%d_pause", prio);
	snprintf(tx, sizeof(tx), "tx_prio%d_pause", prio);
	pfc = on(d, c->netdev, pause) != NULL;
	subject(s, c->netdev, prio, c->name);
	return rt_findings_match(F, pfc ? RT_SEV_CRITICAL : RT_SEV_WARNING, s, 1,
		(double)p->d, "discarded packets", next_step[pfc ? NX_LOSSLESS : NX_LOSSY],
		"%s priority %d: %s +%llu in %s on a %s priority (%s %s; %s +%llu)",
		c->netdev, prio, c->name, (unsigned long long)p->d, RT_DUR(d->secs), pfc ? "lossless" : "lossy",
		pause, pfc ? "is counted: PFC is on" : "is not counted: PFC is off", tx,
		(unsigned long long)moved(d, c->netdev, tx));
}

/* The host-side signs that it cannot drain on netdev: receive queues out of
 * buffers (ethtool rx_out_of_buffer, the RDMA port's out_of_buffer) and PCIe
 * stalls; listed into buf, their sum returned. */
static __u64 host_signs(const struct rt_delta *d, const char *netdev, char *buf, size_t len)
{
	static const char *const names[] = {
		"rx_out_of_buffer", "out_of_buffer", "outbound_pci_stalled_rd_events",
		"outbound_pci_stalled_wr_events", "outbound_pci_buffer_overflow",
	};
	size_t k = 0;
	__u64 sum = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct rt_port_delta *p = on(d, netdev, names[i]);
		int w;

		if (!p || !p->d)
			continue;
		sum += p->d;
		w = snprintf(buf + k, len - k, "%s%s +%llu", k ? ", " : "", names[i], (unsigned long long)p->d);
		if (w > 0 && (size_t)w < len - k)
			k += (size_t)w;
		/* the stall's share of the last second, where the NIC says it */
		if (!strncmp(names[i], "outbound_pci_stalled_", 21) && (p = on(d, netdev, names[i][21] == 'r' ?
		    "outbound_pci_stalled_rd" : "outbound_pci_stalled_wr")) != NULL) {
			w = snprintf(buf + k, len - k, " (%s now %llu%%)", p->c->name, (unsigned long long)p->c->value);
			if (w > 0 && (size_t)w < len - k)
				k += (size_t)w;
		}
	}
	return sum;
}

/* ---- slow-receiver: this host sends PFC on a priority while it receives
 * none there, and its receive queues run dry or PCIe stalls: the pauses
 * start here ---- */
static int slow_receiver(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d,
			 const struct rt_port_delta *p, struct rt_subject *s)
{
	const struct rt_port_ctr *c = p->c;
	int prio = name_prio(c->name, "tx_prio", "_pause");
	char rx[32], signs[320];

	(void)cur;
	if (prio < 0)
		return 0;
	snprintf(rx, sizeof(rx), "rx_prio%d_pause", prio);
	if (moved(d, c->netdev, rx) || !host_signs(d, c->netdev, signs, sizeof(signs)))
		return 0;
	subject(s, c->netdev, prio, c->name);
	return rt_findings_match(F, RT_SEV_CRITICAL, s, 1, (double)p->d, "pause frames sent", next_step[NX_SLOW_RECEIVER],
		"%s sent %llu PFC pauses on priority %d and received none (%s +0) in %s, while %s",
		c->netdev, (unsigned long long)p->d, prio, rx, RT_DUR(d->secs), signs);
}

/* ---- pcie: the NIC's PCIe link retrains (signal integrity), or stalls and
 * overflows (the host does not take what the NIC has for it) ---- */
static int pcie(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d,
		const struct rt_port_delta *p, struct rt_subject *s)
{
	const struct rt_port_ctr *c = p->c;
	int sig = strstr(c->name, "pci_signal_integrity") != NULL;

	(void)cur;
	if (!sig && strcmp(c->name, "outbound_pci_stalled_rd_events") &&
	    strcmp(c->name, "outbound_pci_stalled_wr_events") && strcmp(c->name, "outbound_pci_buffer_overflow"))
		return 0;
	return rt_findings_match(F, RT_SEV_WARNING, s, 1, (double)p->d, "events",
		next_step[sig ? NX_PCIE_SIGNAL : NX_PCIE_STALL],
		"%s: %s +%llu in %s (%s)", c->netdev, c->name, (unsigned long long)p->d, RT_DUR(d->secs),
		sig ? "PCIe transitions to recovery" : strstr(c->name, "buffer_overflow") ?
		"packets dropped: the PCIe buffer overflowed" : "seconds with the outbound PCIe requests stalled over 30% of the time");
}

/* The rules of rules.c's table: each its look at a port row, over the rows
 * that moved its minimum (an expression that may read the rule's F). */
#define PORT_RULE(name, fn, min) \
	int name(struct rt_rule_ctx *c) \
	{ struct rt_findings *F = c->F; return each_port(F, c->cur, c->d, (min), fn); }
PORT_RULE(rt_rule_link_flap, link_flap, F->cfg.flap_min)
PORT_RULE(rt_rule_fec_degrading, fec_degrading, 1)
PORT_RULE(rt_rule_link_errors, link_errors, F->cfg.link_err_min)
PORT_RULE(rt_rule_buffer_discard, buffer_discard, F->cfg.discard_min)
PORT_RULE(rt_rule_slow_receiver, slow_receiver, 1)
PORT_RULE(rt_rule_pcie, pcie, F->cfg.pcie_min)
