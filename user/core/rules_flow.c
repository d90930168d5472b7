// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules of rules.c's table on what a flow's own counters and the NIC's
 * say of its packets: loss (sequence NAKs, not those of an RNR episode),
 * receiver-not-ready (RNR NAKs), ecn-without-cnp (CE-marked data in, no CNP
 * back) and cnp-ignored (CNPs that do not slow the sender), each with the
 * NIC counters of the same meaning. Each is a function of the interval's
 * state (rules_int.h) calling rt_findings_match().
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "derive.h"
#include "findings.h"
#include "fmt.h"
#include "rules_int.h"
/* ---- NIC counters that name a rule ---- */
static int counter_is(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return 1;
	return 0;
}

static int rule_counters(struct rt_rule_ctx *c, enum rt_sev sev, const char *const *names,
			 __u64 min, const char *next, const char *what)
{
	const struct rt_delta *d = c->d;
	size_t i;
	int err = 0;

	for (i = 0; i < d->nports; i++) {
		const struct rt_port_ctr *pc = d->ports[i].c;
		struct rt_subject s;

		if (d->ports[i].d < min || !counter_is(pc->name, names))
			continue;
		rt_rules_counter_subject(&s, pc);
		err |= rt_findings_match(c->F, sev, &s, 1, (double)d->ports[i].d, "counts", next,
			"%s on %s%s%.0u moved by %llu in %s (%s)", pc->name, pc->dev[0] ? pc->dev : pc->netdev,
			pc->dev[0] ? " port " : "", pc->dev[0] ? pc->port : 0,
			(unsigned long long)d->ports[i].d, RT_DUR(d->secs), what);
	}
	return err;
}

/*
 * A counter of each flow at or over min, then the NIC counters that say the
 * same thing: the shape of loss and receiver-not-ready. The evidence reads
 * "FLOW: N <count_what> in S s (<why>)".
 */
struct flow_ctr_rule {
	size_t off;			/* the counter: offsetof(struct rt_flow_val, ...) */
	const char *const *names;	/* the NIC's counters of the same meaning */
	const char *next;
	const char *count_what, *why;	/* the flow's evidence */
	const char *ctr_what;		/* the NIC counter's evidence */
	int rnr_episode;		/* loss: skip a pair with RNR NAKs; rnr: count its sequence NAKs */
};

/*
 * The flows of this interval that carry sequence or RNR NAKs (few: a
 * responder's ACK flows), for telling an RNR episode from loss: rxe answers
 * a receive-not-ready with a PSN sequence NAK as well as the RNR NAK, on the
 * same ACK flow or another QP of the same host pair.
 */
struct naks {
	const struct rt_flow_delta **e;
	size_t n;
};

static int naks_collect(const struct rt_rule_ctx *c, struct naks *k)
{
	const struct rt_delta *d = c->d;

	k->n = 0;
	k->e = NULL;
	for (size_t i = 0; i < d->nflows; i++) {
		const struct rt_flow_val *v = &d->flows[i].d;

		if (!v->nak_seq && !v->rnr_nak)
			continue;
		if (!k->e && !(k->e = malloc(d->nflows * sizeof(*k->e))))
			return -ENOMEM;
		k->e[k->n++] = &d->flows[i];
	}
	return 0;
}

static int same_pair(const struct rt_flow_key *a, const struct rt_flow_key *b)
{
	return a->ifindex == b->ifindex && a->dir == b->dir && a->family == b->family &&
	       a->origin == b->origin && !memcmp(a->src, b->src, 16) && !memcmp(a->dst, b->dst, 16);
}

/* This interval's sequence and RNR NAKs on f's host pair (interface, direction). */
static void pair_naks(const struct naks *k, const struct rt_flow *f, __u64 *seq, __u64 *rnr)
{
	*seq = *rnr = 0;
	for (size_t i = 0; i < k->n; i++)
		if (same_pair(&k->e[i]->f->k, &f->k)) {
			*seq += k->e[i]->d.nak_seq;
			*rnr += k->e[i]->d.rnr_nak;
		}
}

static int rule_flow_ctr(struct rt_rule_ctx *c, const struct flow_ctr_rule *r, __u64 min)
{
	const struct rt_delta *d = c->d;
	struct naks k = { 0 };
	size_t i;
	int err = 0;

	if (r->rnr_episode && naks_collect(c, &k))
		return -ENOMEM;
	for (i = 0; i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		__u64 n, seq = 0, rnr = 0;
		struct rt_subject s;
		char fn[RT_FLOW_NAME], with[160];

		memcpy(&n, (const char *)&d->flows[i].d + r->off, sizeof(n));
		if (n < min)
			continue;
		with[0] = '\0';	/* here, not for every flow passed over */
		if (r->rnr_episode)
			pair_naks(&k, f, &seq, &rnr);
		if (r->rnr_episode && r->off == offsetof(struct rt_flow_val, nak_seq) && rnr)
			continue;	/* part of an RNR episode: receiver-not-ready says it */
		if (r->rnr_episode && r->off == offsetof(struct rt_flow_val, rnr_nak) && seq)
			snprintf(with, sizeof(with), "; with them %llu sequence NAKs on the host pair, "
				 "counted as part of the RNR episode, not as loss", (unsigned long long)seq);
		rt_rules_flow_subject(&s, c, f);
		err |= rt_findings_match(c->F, RT_SEV_WARNING, &s, 1, (double)n, r->count_what, r->next,
			"%s: %llu %s in %s (%s%s)", rt_rules_flow_name(c->cur, f, fn, sizeof(fn)), (unsigned long long)n,
			r->count_what, RT_DUR(d->secs), r->why, with);
		rt_rules_involve_subject(c, &s, f, 0);
	}
	free(k.e);
	return err | rule_counters(c, RT_SEV_WARNING, r->names, min, r->next, r->ctr_what);
}

/* ---- loss: sequence NAKs on the wire (not those of an RNR episode on the
 * same host pair), or the NIC's loss counters ---- */
int rt_rule_loss(struct rt_rule_ctx *c)
{
	static const char *const names[] = { "out_of_sequence", "packet_seq_err", "implied_nak_seq_err",
					     "local_ack_timeout_err", NULL };
	static const struct flow_ctr_rule r = {
		.off = offsetof(struct rt_flow_val, nak_seq),
		.names = names,
		.next = "Packets are lost between sender and receiver: look for drops at the switch (buffer overflow, PFC off on this priority) and link errors; retransmissions cost the collective far more than the lost packets.",
		.count_what = "NAKs for PSN sequence errors",
		.why = "the responder saw gaps; the requester retransmits",
		.ctr_what = "packets lost or timed out",
		.rnr_episode = 1,
	};

	return rule_flow_ctr(c, &r, c->F->cfg.nak_min);
}

/* ---- receiver-not-ready: RNR NAKs, or rnr_nak_retry_err/out_of_buffer ---- */
int rt_rule_rnr(struct rt_rule_ctx *c)
{
	static const char *const names[] = { "rnr_nak_retry_err", "out_of_buffer", NULL };
	/* same shape as the loss rule above: the rules' table entries, each its own counter and words */
	static const struct flow_ctr_rule r = {
		.off = offsetof(struct rt_flow_val, rnr_nak),
		.names = names,
		.next = "The receiving application does not post receive buffers fast enough: not the network. Check the receiver's process (its CPU, its receive queue depth).",
		.count_what = "RNR NAKs",
		.why = "the responder had no receive buffer posted",
		.ctr_what = "no receive buffer posted",
		.rnr_episode = 1,
	};

	return rule_flow_ctr(c, &r, c->F->cfg.rnr_min);
}

/*
 * ---- ecn-without-cnp: CE-marked data comes in, and the host sends no CNP
 * back to its sender in the same interval, while other packets (ACKs) do go
 * back on that pair, so the way out is seen. The notification point (the
 * receiving NIC) is off for the priority (mlx5: ecn/roce_np/enable/PRIO) or
 * does not exist (rxe). Also the NIC's own np_ecn_marked_roce_packets moving
 * with np_cnp_sent still. ----
 */
static int rev_cmp(const void *a, const void *b)
{
	const struct rt_flow_key *x = &(*(const struct rt_flow_delta *const *)a)->f->k;
	const struct rt_flow_key *y = &(*(const struct rt_flow_delta *const *)b)->f->k;

	/* ifindex, family, origin, src, dst: as in struct rt_flow_key, without dir */
	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	if (x->family != y->family)
		return (int)x->family - (int)y->family;
	if (x->origin != y->origin)
		return (int)x->origin - (int)y->origin;
	if (memcmp(x->src, y->src, 16))
		return memcmp(x->src, y->src, 16);
	return memcmp(x->dst, y->dst, 16);
}

static const char ecn_no_cnp_next[] =
	"Enable the notification point for the flow's priority: on mlx5 echo 1 > /sys/class/net/IF/ecn/roce_np/enable/PRIO; rxe (Soft-RoCE) has none, so ECN never slows its senders.";

static int rule_ecn_without_cnp_ctrs(struct rt_rule_ctx *c)
{
	const struct rt_delta *d = c->d;
	int err = 0;

	for (size_t i = 0; i < d->nports; i++) {
		const struct rt_port_ctr *pc = d->ports[i].c;
		struct rt_subject s;
		int sent = -1;

		if (strcmp(pc->name, "np_ecn_marked_roce_packets") || d->ports[i].d < c->F->cfg.ce_min)
			continue;
		for (size_t j = 0; j < d->nports; j++) {
			const struct rt_port_ctr *q = d->ports[j].c;

			if (!strcmp(q->name, "np_cnp_sent") && q->port == pc->port && !strcmp(q->dev, pc->dev))
				sent = d->ports[j].d ? 1 : 0;
		}
		if (sent)
			continue;	/* CNPs go out, or np_cnp_sent is not there to say */
		rt_rules_counter_subject(&s, pc);
		err |= rt_findings_match(c->F, RT_SEV_WARNING, &s, 1, (double)d->ports[i].d,
			"CE-marked packets", ecn_no_cnp_next,
			"ECN marks arrive but no CNPs go back: the notification point is off or not supported "
			"(%s port %u: np_ecn_marked_roce_packets +%llu, np_cnp_sent +0, in %s)",
			pc->dev, pc->port, (unsigned long long)d->ports[i].d, RT_DUR(d->secs));
	}
	return err;
}

int rt_rule_ecn_without_cnp(struct rt_rule_ctx *c)
{
	const struct rt_delta *d = c->d;
	const struct rt_flow_delta **out = NULL;
	size_t nout = 0, i;
	int err = 0, any = 0;

	for (i = 0; i < d->nflows && !any; i++)
		any = d->flows[i].f->k.dir == RT_DIR_INGRESS && d->flows[i].d.ecn[RT_ECN_CE] >= c->F->cfg.ce_min;
	if (any) {
		/* the packets going out, by interface and addresses */
		if (!(out = malloc(d->nflows * sizeof(*out))))
			return -ENOMEM;
		for (i = 0; i < d->nflows; i++)
			if (d->flows[i].f->k.dir == RT_DIR_EGRESS && d->flows[i].d.pkts)
				out[nout++] = &d->flows[i];
		qsort(out, nout, sizeof(*out), rev_cmp);
	}
	for (i = 0; any && i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		const struct rt_flow_val *v = &d->flows[i].d;
		struct rt_flow_delta rk;
		struct rt_flow rf;
		const struct rt_flow_delta *key = &rk, **at;
		__u64 cnp = 0, back = 0;
		struct rt_subject s;
		char jt[RT_FLOW_NAME];

		if (f->k.dir != RT_DIR_INGRESS || v->ecn[RT_ECN_CE] < c->F->cfg.ce_min || !data_pkts(v))
			continue;
		/* the reverse pair: from the flow's destination back to its source */
		memset(&rf, 0, sizeof(rf));
		rf.k = f->k;
		memcpy(rf.k.src, f->k.dst, 16);
		memcpy(rf.k.dst, f->k.src, 16);
		rk.f = &rf;
		at = bsearch(&key, out, nout, sizeof(*out), rev_cmp);
		if (!at)
			continue;	/* nothing seen going back: the way out is not watched */
		while (at > out && !rev_cmp(at - 1, &key))
			at--;
		for (; at < out + nout && !rev_cmp(at, &key); at++) {
			cnp += (*at)->d.cnp;
			back += (*at)->d.pkts;
		}
		if (cnp)
			continue;
		rt_rules_flow_subject(&s, c, f);
		err |= rt_findings_match(c->F, RT_SEV_WARNING, &s, 1, (double)v->ecn[RT_ECN_CE],
			"CE-marked packets", ecn_no_cnp_next,
			"ECN marks arrive for this flow%s but no CNPs go back: the notification point is off or "
			"not supported (CE in: %llu, CNPs out: 0, other packets out: %llu, in %s)",
			rt_rules_flow_job(c->cur, f, jt, sizeof(jt)), (unsigned long long)v->ecn[RT_ECN_CE],
			(unsigned long long)back, RT_DUR(d->secs));
	}
	free(out);
	return err | rule_ecn_without_cnp_ctrs(c);
}

/* ---- cnp-ignored: rp_cnp_ignored moving; the evidence sets it against
 * rp_cnp_handled of the same port (the CNPs that did slow the sender) ---- */
int rt_rule_cnp_ignored(struct rt_rule_ctx *c)
{
	const struct rt_delta *d = c->d;
	int err = 0;

	for (size_t i = 0; i < d->nports; i++) {
		const struct rt_port_ctr *pc = d->ports[i].c;
		char handled[64] = "";
		struct rt_subject s;

		if (d->ports[i].d < c->F->cfg.cnp_ignored_min || strcmp(pc->name, "rp_cnp_ignored"))
			continue;
		for (size_t j = 0; j < d->nports; j++) {
			const struct rt_port_ctr *q = d->ports[j].c;

			if (!strcmp(q->name, "rp_cnp_handled") && q->port == pc->port && q->scope == pc->scope &&
			    !strcmp(q->dev, pc->dev) && !strcmp(q->netdev, pc->netdev))
				snprintf(handled, sizeof(handled), "; rp_cnp_handled +%llu",
					 (unsigned long long)d->ports[j].d);
		}
		rt_rules_counter_subject(&s, pc);
		err |= rt_findings_match(c->F, RT_SEV_WARNING, &s, 1, (double)d->ports[i].d, "CNPs ignored",
			"Congestion control is off at this sender: CNPs arrive but do not slow it. Enable DCQCN (roce_np/roce_rp in the NIC's ECN settings) for the priority.",
			"rp_cnp_ignored on %s%s%.0u moved by %llu in %s (CNPs received but not acted on%s)",
			pc->dev[0] ? pc->dev : pc->netdev, pc->dev[0] ? " port " : "", pc->dev[0] ? pc->port : 0,
			(unsigned long long)d->ports[i].d, RT_DUR(d->secs), handled);
	}
	return err;
}
