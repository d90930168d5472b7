// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The exposition's sFlow families: per switch port and direction the
 * samples, the estimated packets, bytes, CE and CNPs, the drop notifications
 * and the deepest queue and longest transit delay of the interval; the
 * switch's own interface counters; drops by port and reason; and what each
 * agent sent. Nothing when no agent was heard (exporters/prom_render.c calls
 * this with the loop's delta).
 */
#include <stddef.h>
#include <stdio.h>
#include "fmt.h"
#include "prom_out.h"
#include "sf_drop.h"
#include "snapshot.h"

/* The labels of a switch port (sFlow): agent and port, and its direction
 * when dir is not NULL. */
static void swport_labels(char *set, size_t len, const char *agent, unsigned int port, const char *dir)
{
	char pn[16];

	set[0] = 0;
	snprintf(pn, sizeof(pn), "%u", port);
	prom_label(set, len, "agent", agent);
	prom_label(set, len, "port", pn);
	if (dir)
		prom_label(set, len, "direction", dir);
}

/*
 * sFlow: per switch port and direction (bounded by the collector's port
 * table), the drops per port and reason, and what each agent sent. The
 * est_ families are estimates (each sample stands for its sampling rate).
 */
static void sflow_ports(struct out *w, const struct rt_delta *d)
{
	/* the counters' table: one row each, alike in shape only */
	static const struct {
		const char *name;
		size_t off;
		const char *help;
	} ctr[] = {
		{ "rocetop_sflow_port_samples", offsetof(struct rt_swport_ctr, samples),
		  "sFlow flow samples taken at the switch port in the direction." },
		{ "rocetop_sflow_port_est_packets", offsetof(struct rt_swport_ctr, est_pkts),
		  "Packets through the switch port, estimated from sFlow: the sum of the samples' sampling rates." },
		{ "rocetop_sflow_port_est_bytes", offsetof(struct rt_swport_ctr, est_bytes),
		  "Bytes through the switch port, estimated from sFlow (rate x frame length, no FCS)." },
		{ "rocetop_sflow_port_est_ce_packets", offsetof(struct rt_swport_ctr, est_ce),
		  "CE-marked RoCEv2 packets through the switch port, estimated from sFlow." },
		{ "rocetop_sflow_port_est_cnp_packets", offsetof(struct rt_swport_ctr, est_cnp),
		  "RoCEv2 CNPs through the switch port, estimated from sFlow." },
		{ "rocetop_sflow_port_drop_notifications", offsetof(struct rt_swport_ctr, drops),
		  "sFlow dropped-packet notifications of the switch port." },
	};
	/* the largest queue depth (bytes), then transit delay (ns, shown in seconds) */
	static const struct { const char *name, *unit, *help; } gauge[2] = {
		{ "rocetop_sflow_port_queue_max_bytes", "bytes",
		  "Largest egress queue depth (sFlow 1040) sampled at the switch port in the last interval." },
		{ "rocetop_sflow_port_transit_delay_max_seconds", "seconds",
		  "Largest transit delay (sFlow 1039) sampled at the switch port in the last interval." },
	};
	char set[LSET];
	size_t i, k;

	for (k = 0; k < sizeof(ctr) / sizeof(ctr[0]); k++) {
		prom_family(w, ctr[k].name, M_COUNTER, NULL, ctr[k].help);
		for (i = 0; i < d->nswports; i++) {
			const struct rt_swport *p = d->swports[i].p;

			swport_labels(set, sizeof(set), p->agent, p->port, rt_dir_name(p->dir));
			prom_sample_u(w, ctr[k].name, M_COUNTER, set, *(const __u64 *)((const char *)&p->c + ctr[k].off));
		}
	}
	for (k = 0; k < 2; k++) {
		prom_family(w, gauge[k].name, M_GAUGE, gauge[k].unit, gauge[k].help);
		for (i = 0; i < d->nswports; i++) {
			const struct rt_swport *p = d->swports[i].p;

			if (!(k ? d->swports[i].d.transit_n : d->swports[i].d.depth_n))
				continue;	/* none sampled in the interval */
			swport_labels(set, sizeof(set), p->agent, p->port, rt_dir_name(p->dir));
			if (k)
				prom_sample_d(w, gauge[k].name, M_GAUGE, set, p->max_transit / 1e9);
			else
				prom_sample_u(w, gauge[k].name, M_GAUGE, set, p->max_depth);
		}
	}
}

/* The switch's own interface counters (counter samples), once per port. */
static void sflow_ifctr(struct out *w, const struct rt_delta *d)
{
	static const struct {
		const char *name, *help;
		enum mtype type;
	} ifc[] = {
		{ "rocetop_sflow_port_speed_bytes_per_second",
		  "The switch port's speed, from its sFlow counter samples (ifSpeed / 8).", M_GAUGE },
		{ "rocetop_sflow_port_interface_discards",
		  "The switch port's discarded packets (ifInDiscards, ifOutDiscards) as its agent counts them.", M_COUNTER },
		{ "rocetop_sflow_port_interface_errors",
		  "The switch port's packets in error (ifInErrors, ifOutErrors) as its agent counts them.", M_COUNTER },
	};
	char set[LSET], more[LSET];
	size_t i, k;

	for (k = 0; k < sizeof(ifc) / sizeof(ifc[0]); k++) {
		prom_family(w, ifc[k].name, ifc[k].type, k ? NULL : "bytes_per_second", ifc[k].help);
		for (i = 0; i < d->nswports; i++) {
			const struct rt_swport *p = d->swports[i].p;

			if (!p->has_ifctr || (i && d->swports[i - 1].p->ifindex == p->ifindex))
				continue;
			swport_labels(set, sizeof(set), p->agent, p->port, NULL);
			if (k == 0) {
				prom_sample_u(w, ifc[k].name, M_GAUGE, set, p->speed_bps / 8);
				continue;
			}
			for (int side = 0; side < 2; side++) {
				snprintf(more, sizeof(more), "%s", set);
				prom_label(more, sizeof(more), "side", side ? "out" : "in");
				prom_sample_u(w, ifc[k].name, M_COUNTER, more,
					 k == 1 ? (side ? p->out_discards : p->in_discards)
						: (side ? p->out_errors : p->in_errors));
			}
		}
	}
}

/* Drops by port and reason, and what each agent sent. */
static void sflow_agents(struct out *w, const struct rt_delta *d)
{
	char set[LSET];
	size_t i, k;

	prom_family(w, "rocetop_sflow_drops", M_COUNTER, NULL,
	       "sFlow dropped-packet notifications by switch port and reason (the name sFlow gives the code).");
	for (i = 0; i < d->nswdrops; i++) {
		const struct rt_swdrop *p = d->swdrops[i].p;
		const char *name = rt_sf_drop_reason(p->reason);
		char code[16];

		swport_labels(set, sizeof(set), p->agent, p->port, NULL);
		snprintf(code, sizeof(code), "%u", p->reason);
		prom_label(set, sizeof(set), "reason", name ? name : "unknown_code");
		prom_label(set, sizeof(set), "reason_code", code);
		prom_sample_u(w, "rocetop_sflow_drops", M_COUNTER, set, p->drops);
	}
	prom_family(w, "rocetop_sflow_datagrams", M_COUNTER, NULL,
	       "sFlow datagrams by agent and outcome: decoded (errors included), lost (sequence gaps), error (the rest of the datagram skipped), rejected (not allowed, or not sFlow v5).");
	for (i = 0; i < d->nsfagents; i++) {
		const struct rt_sfagent *a = d->sfagents[i].a;
		const __u64 v[4] = { a->datagrams, a->lost, a->errors, a->rejected };
		static const char *const outcome[4] = { "decoded", "lost", "error", "rejected" };

		for (k = 0; k < 4; k++) {
			set[0] = 0;
			prom_label(set, sizeof(set), "agent", a->agent);
			prom_label(set, sizeof(set), "outcome", outcome[k]);
			prom_sample_u(w, "rocetop_sflow_datagrams", M_COUNTER, set, v[k]);
		}
	}
	prom_family(w, "rocetop_sflow_bad_samples", M_COUNTER, NULL,
	       "sFlow flow samples whose frame length (over 64 KiB) or sampling rate (above the sample pool) cannot be true, by agent: bounded before use.");
	for (i = 0; i < d->nsfagents; i++) {
		const struct rt_sfagent *a = d->sfagents[i].a;

		set[0] = 0;
		prom_label(set, sizeof(set), "agent", a->agent);
		prom_sample_u(w, "rocetop_sflow_bad_samples", M_COUNTER, set, a->bad_samples);
	}
}

void rt_prom_render_sflow(struct out *w, const struct rt_delta *d)
{
	if (!d->nsfagents)
		return;
	sflow_ports(w, d);
	sflow_ifctr(w, d);
	sflow_agents(w, d);
}
