// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The exposition's interface families: whether each watched interface is
 * there, the frames and bytes the BPF programs saw per interface and
 * direction, the parser's outcomes, PFC per priority with the paused time it
 * asked, and the link speeds that time was reckoned at. Totals since the
 * start, as the snapshot holds them (exporters/prom_render.c calls this).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "derive.h"
#include "fmt.h"
#include "linkspeed.h"
#include "prom_out.h"
#include "snapshot.h"

/* Counters of struct rt_if_val, each a family: one table, one loop. */
struct if_fam {
	const char *name, *unit, *help;
	size_t off;	/* offsetof(struct rt_if_val, ...): a __u64, or __u64[RT_NPRIO] */
};

#define IF_CTR(v, off) ((const __u64 *)((const char *)(v) + (off)))
#define IF_ROWS (RT_MAX_IFACES * 2 + 1)

/* The labels of an interface and direction row of cur->ifs. */
static void if_labels(const struct rt_snapshot *cur, size_t i, char *set, size_t len)
{
	set[0] = 0;
	prom_label(set, len, "interface", rt_snapshot_ifname(cur, cur->ifs[i].k.ifindex));
	prom_label(set, len, "direction", rt_dir_name(cur->ifs[i].k.dir));
}

/* set with the priority label added, into more. */
static void prio_labels(const char *set, unsigned int p, char *more, size_t len)
{
	char pn[8];

	snprintf(more, len, "%s", set);
	prom_label(more, len, "priority", rt_prio_name(p, pn, sizeof(pn)));
}

/* Each row's link speed for the paused time; known[i]: not assumed. Returns the rows. */
static size_t if_speeds(__u64 speed_given, const struct rt_snapshot *cur, __u64 *speed, int *known)
{
	size_t i, n = cur->nifs;
	const char *from;
	unsigned int p;

	if (n > IF_ROWS - 1)
		n = IF_ROWS - 1;
	for (i = 0; i < n; i++) {
		const char *ifn = rt_snapshot_ifname(cur, cur->ifs[i].k.ifindex);
		int frames = 0;

		for (p = 0; p < RT_NPRIO; p++)
			frames |= cur->ifs[i].v.pfc_frames[p] != 0;
		/* said (if assumed) only where pause frames make it matter */
		speed[i] = frames ? rt_link_speed(cur, ifn, speed_given, &from) :
				    rt_link_speed_quiet(cur, ifn, speed_given, &from);
		known[i] = strcmp(from, "assumed") != 0;
	}
	return n;
}

/* Whether each watched interface is there, its frame counters and the parser's outcomes. */
static void render_if_counters(struct out *w, const struct rt_snapshot *cur, size_t n)
{
	static const char *const outcome[] = {
		"roce", "not_roce", "truncated", "malformed", "pause", "table_full", "v6_unparsed",
	};
	static const struct if_fam if_fams[] = {
		{ "rocetop_interface_frames", NULL, "Frames the BPF programs saw, per interface and direction.",
		  offsetof(struct rt_if_val, pkts) },
		{ "rocetop_interface_bytes", "bytes", "Bytes of the frames the BPF programs saw.",
		  offsetof(struct rt_if_val, bytes) },
		{ "rocetop_interface_mirrored_frames", NULL,
		  "Mirror copies (GRE + ERSPAN II/III, GRE TEB, VXLAN) decapsulated; the frames inside are counted as if seen on the mirrored wire.",
		  offsetof(struct rt_if_val, mirrored) },
	};
	char set[LSET], more[LSET + 64];
	size_t i, f;
	unsigned int o;

	/* A watched interface deleted (live_attach.c's link watcher) is 0 until it returns. */
	prom_family(w, "rocetop_interface_up", M_GAUGE, NULL,
	       "1 while a watched interface exists and is attached, 0 after it was deleted (until it returns).");
	for (i = 0; i < cur->nifaces; i++) {
		set[0] = 0;
		prom_label(set, sizeof(set), "interface", cur->ifaces[i].name);
		prom_sample_u(w, "rocetop_interface_up", M_GAUGE, set, strcmp(cur->ifaces[i].mode, "gone") != 0);
	}
	/* One family per counter of the interface and direction. */
	for (f = 0; f < sizeof(if_fams) / sizeof(if_fams[0]); f++) {
		prom_family(w, if_fams[f].name, M_COUNTER, if_fams[f].unit, if_fams[f].help);
		for (i = 0; i < n; i++) {
			if_labels(cur, i, set, sizeof(set));
			prom_sample_u(w, if_fams[f].name, M_COUNTER, set, *IF_CTR(&cur->ifs[i].v, if_fams[f].off));
		}
	}
	prom_family(w, "rocetop_parser_frames", M_COUNTER, NULL,
	       "Frames by parser outcome: roce, not_roce, truncated, malformed, pause (PFC and 802.3x), table_full (flow table full), v6_unparsed.");
	for (i = 0; i < n; i++) {
		const struct rt_if_val *v = &cur->ifs[i].v;
		const __u64 val[] = { v->roce, v->not_roce, v->truncated, v->malformed, v->mac_ctrl,
				      v->flow_full, v->v6_unparsed };

		if_labels(cur, i, set, sizeof(set));
		for (o = 0; o < sizeof(val) / sizeof(val[0]); o++) {
			snprintf(more, sizeof(more), "%s", set);
			prom_label(more, sizeof(more), "outcome", outcome[o]);
			prom_sample_u(w, "rocetop_parser_frames", M_COUNTER, more, val[o]);
		}
	}
}

/* PFC per priority, the paused time it asked and the link speeds it was reckoned at. */
static void render_pfc(struct out *w, const struct rt_snapshot *cur, size_t n, const __u64 *speed,
		       const int *known, __u64 speed_given)
{
	static const struct if_fam pfc_fams[] = {
		{ "rocetop_pfc_frames", NULL,
		  "PFC frames with the priority enabled, XON included (priority all: 802.3x global pause).",
		  offsetof(struct rt_if_val, pfc_frames) },
		{ "rocetop_pfc_xon_frames", NULL, "PFC frames of the priority with a pause time of 0 (XON, resume).",
		  offsetof(struct rt_if_val, pfc_xon) },
		{ "rocetop_pfc_pause_quanta", NULL, "Sum of the PFC pause times asked, in quanta of 512 bit times.",
		  offsetof(struct rt_if_val, pfc_quanta) },
	};
	char set[LSET], more[LSET + 64];
	size_t i, f;
	unsigned int p;

	/* One family per counter of the priority, on each interface and direction. */
	for (f = 0; f < sizeof(pfc_fams) / sizeof(pfc_fams[0]); f++) {
		prom_family(w, pfc_fams[f].name, M_COUNTER, pfc_fams[f].unit, pfc_fams[f].help);
		for (i = 0; i < n; i++) {
			if_labels(cur, i, set, sizeof(set));
			for (p = 0; p < RT_NPRIO; p++) {
				prio_labels(set, p, more, sizeof(more));
				prom_sample_u(w, pfc_fams[f].name, M_COUNTER, more, IF_CTR(&cur->ifs[i].v, pfc_fams[f].off)[p]);
			}
		}
	}
	prom_family(w, "rocetop_pfc_paused_seconds", M_COUNTER, "seconds",
	       "Time paused by PFC frames: the union of the pause intervals, each quanta x 512 bit times at the link speed (--link-speed, else the interface's, else 100G assumed) from its frame, a later frame restarting it, XON ending it.");
	for (i = 0; i < n; i++) {
		if_labels(cur, i, set, sizeof(set));
		for (p = 0; p < RT_NPRIO; p++) {
			prio_labels(set, p, more, sizeof(more));
			prom_sample_d(w, "rocetop_pfc_paused_seconds", M_COUNTER, more,
				 rt_paused_secs(cur, &cur->ifs[i], &cur->ifs[i].v, p, 0, speed_given));
		}
	}
	prom_family(w, "rocetop_link_speed_bytes_per_second", M_GAUGE, "bytes_per_second",
	       "Link speed of the interface where it is known.");
	for (i = 0; i < n; i++) {
		if (!known[i] || (i && cur->ifs[i - 1].k.ifindex == cur->ifs[i].k.ifindex && known[i - 1]))
			continue;
		set[0] = 0;
		prom_label(set, sizeof(set), "interface", rt_snapshot_ifname(cur, cur->ifs[i].k.ifindex));
		prom_sample_u(w, "rocetop_link_speed_bytes_per_second", M_GAUGE, set, speed[i] * 1000000ULL / 8);
	}
}

void rt_prom_render_ifaces(struct out *w, const struct rt_snapshot *cur, __u64 speed_given)
{
	__u64 speed[IF_ROWS];
	int known[IF_ROWS];	/* not assumed */
	size_t n = if_speeds(speed_given, cur, speed, known);

	render_if_counters(w, cur, n);
	render_pfc(w, cur, n, speed, known, speed_given);
}
