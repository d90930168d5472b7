/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probe mesh's rules (rules_probe.c), run from rules.c's table over the
 * interval's probe rows (probe_row.h): each a function of the interval's
 * state (rules_int.h) calling rt_findings_match(); 0 or -ENOMEM. rt_probe_evidence adds what the probes to a flow's peer show to
 * the evidence of the flow's congestion, loss and victim findings.
 */
#ifndef RT_RULES_PROBE_H
#define RT_RULES_PROBE_H

#include "rules_int.h"

int rt_rule_path_down(struct rt_rule_ctx *c);
int rt_rule_path_loss(struct rt_rule_ctx *c);
int rt_rule_path_latency(struct rt_rule_ctx *c);
int rt_rule_host_stall(struct rt_rule_ctx *c);
/* The rules' rows in rules.c's table (severity and when are what README.md's
 * rules table says, make options). */
#define RT_PROBE_RULE_ROWS \
	{ "path-down", rt_rule_path_down, "critical", \
	  "every probe of every size on a path to a peer lost over the mesh's window (`--probe`; subject `peer`, `dst`, `path`, `flow_label`)" }, \
	{ "path-loss", rt_rule_path_loss, "warning", \
	  "probes on a path lost beyond the mesh's threshold; names the sizes when only some die (the large ones: an MTU mismatch, a bad optic)" }, \
	{ "path-latency", rt_rule_path_latency, "warning", \
	  "a path's network time (the round trip less the responder's time) above the mesh's threshold or far above the path's own baseline" }, \
	{ "host-stall", rt_rule_host_stall, "warning", \
	  "the peer's responder time high while the network's is as usual: the peer host, not the fabric (subject `peer`, `dst`)" },

/* After the rules of an interval: the open findings of this interval that
 * name a peer the mesh probes get one sentence on the probes to it. */
void rt_probe_evidence(struct rt_findings *F, const struct rt_snapshot *cur);

#endif
