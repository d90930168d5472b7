/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the rules (rules.c, rules_jobs.c, rules_flow.c, rules_health.c and
 * rules_probe.c, one module): the interval's state every rule of the table
 * reads, struct rt_rule_ctx, which rules.c's begin makes; the helpers the
 * files share (a flow's subject and name, rules.c; job sets, rules_jobs.c);
 * and the rules of the other files that rules.c's table lists beside its
 * own. Each rule is a function of the state calling rt_findings_match()
 * (findings.h); 0 or -ENOMEM.
 */
#ifndef RT_RULES_INT_H
#define RT_RULES_INT_H

#include <net/if.h>
#include "derive.h"
#include "findings.h"

/* Pauses on one interface, direction and priority over the interval. */
struct pause {
	char  ifname[IF_NAMESIZE];
	__u8  dir;
	__u8  prio;
	__u64 xoff;		/* pause frames with a non-zero time */
	__u64 frames, quanta;
	double secs;		/* paused time: the frames' (rt_paused_secs), or the NIC's duration counter */
	int   nic;		/* counted by the NIC (ethtool), not on the wire */
	int   est;		/* the frames' time estimated from quanta (an old recording) */
};

#define MAX_PAUSE (2 * RT_MAX_IFACES * RT_NPRIO)

/* The interval's state the rules share (findings.h: the rule table's begin). */
struct rt_rule_ctx {
	struct rt_findings *F;
	const struct rt_snapshot *cur;
	const struct rt_delta *d;
	const struct rt_flow_val **dv;	/* per flow of cur: its delta, or NULL (only while c->np) */
	struct pause p[MAX_PAUSE];
	size_t np;
	int err;		/* -ENOMEM from begin's own steps, returned by end */
};

/* Packets that carry data: not CNPs, ACKs or NAKs (derive.h). */
static inline __u64 data_pkts(const struct rt_flow_val *v)
{
	return rt_data_pkts(v);
}

/* A job and the ranks of it seen (the first 16) among some flows, and
 * their data packets (where the caller counts them). */
struct job_ranks {
	const struct rt_job *job;
	__s32 ranks[16];
	size_t nranks;
	__u64 pkts;
};

/* The jobs of a priority's flows (the first JOBSET_MAX), for an episode's evidence. */
#define JOBSET_MAX 4
struct job_set {
	struct job_ranks j[JOBSET_MAX];
	size_t n;
	int more;		/* a job past JOBSET_MAX */
};

#define RT_FLOW_NAME	300	/* a flow's name in a finding, its job included */

/* rules.c: a flow's subject; the flow behind a finding that just matched,
 * kept with it; a NIC counter's subject; a flow as findings name it, and
 * its owner's job and rank alone. */
void rt_rules_flow_subject(struct rt_subject *s, const struct rt_rule_ctx *c, const struct rt_flow *f);
void rt_rules_involve_subject(struct rt_rule_ctx *c, const struct rt_subject *s, const struct rt_flow *f,
			      int paused);
void rt_rules_counter_subject(struct rt_subject *s, const struct rt_port_ctr *pc);
const char *rt_rules_flow_name(const struct rt_snapshot *s, const struct rt_flow *f, char *buf, size_t len);
const char *rt_rules_flow_job(const struct rt_snapshot *s, const struct rt_flow *f, char *buf, size_t len);

/* rules_jobs.c: a job (and its rank) into a set, and the set as evidence. */
void rt_rules_job_set_add(struct job_set *s, const struct rt_job *j);
const char *rt_rules_job_set_text(struct job_set *s, const char *pre, char *buf, size_t len);

/* The rules of rules_jobs.c and rules_flow.c. */
int rt_rule_congestion(struct rt_rule_ctx *c);
int rt_rule_incast(struct rt_rule_ctx *c);
int rt_rule_job_throttled(struct rt_rule_ctx *c);
int rt_rule_loss(struct rt_rule_ctx *c);
int rt_rule_rnr(struct rt_rule_ctx *c);
int rt_rule_ecn_without_cnp(struct rt_rule_ctx *c);
int rt_rule_cnp_ignored(struct rt_rule_ctx *c);

/* rules_health.c */
int rt_rule_link_flap(struct rt_rule_ctx *c);
int rt_rule_fec_degrading(struct rt_rule_ctx *c);
int rt_rule_link_errors(struct rt_rule_ctx *c);
int rt_rule_buffer_discard(struct rt_rule_ctx *c);
int rt_rule_slow_receiver(struct rt_rule_ctx *c);
int rt_rule_pcie(struct rt_rule_ctx *c);

#endif
