// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Tuning from a recording (see tune.h): the per-priority tally and the
 * rules. Each rule needs both a setting the recording carries and a number
 * of the recording that shows it matters, so a healthy recording, or one
 * without settings, gives no recommendation. rocetop(8) TUNING lists them.
 */
#include <stdio.h>
#include <string.h>
#include "linkspeed.h"
#include "tune.h"

/* The settings row of a flow's interface (the only row when there is one). */
static const struct rt_hostcfg *cfg_of(const struct rt_tune *t, const char *ifname)
{
	for (size_t i = 0; i < t->ncfg; i++)
		if (!strcmp(t->cfg[i].netdev, ifname))
			return &t->cfg[i];
	return t->ncfg == 1 ? &t->cfg[0] : NULL;
}

/* The priority a flow's packets take: the DSCP map where the host trusts
 * DSCP, else the VLAN PCP, else (untagged) DSCP / 8, the findings' rule
 * (user/core/derive.h): of its last packet. */
static int flow_prio(const struct rt_hostcfg *c, const struct rt_flow *f)
{
	int p = c ? rt_hostcfg_dscp_prio(c, f->v.dscp) : -1;

	if (p >= 0 && p < 8)
		return p;
	return f->v.pcp != RT_PCP_NONE ? f->v.pcp & 7 : (f->v.dscp & 63) >> 3;
}

static void depth_add(struct rt_tune_depth *d, __u32 v)
{
	if (!d->n || v < d->lo)
		d->lo = v;
	if (!d->n || v > d->hi)
		d->hi = v;
	d->n++;
}

/* Congestion episodes per priority: one opens at an interval with CE or
 * PFC on it and closes after an interval with neither; it began with PFC
 * when its first interval had pause frames and no CE mark. Where sFlow
 * reported the priority's queue depth in the interval marking (or pausing)
 * first came in an episode, that depth is kept (depth[q], has[q]). */
static void episodes(struct rt_tune *t, const __u64 ce[8], const __u64 pause[8], const __u32 depth[8],
		     const int has[8])
{
	for (int q = 0; q < 8; q++) {
		struct rt_tune_prio *p = &t->p[q];

		if (!ce[q] && !pause[q]) {
			p->open = 0;
			continue;
		}
		if (!p->open) {
			p->open = 1;
			p->marked = p->paused = 0;
			p->episodes++;
			if (pause[q] && !ce[q])
				p->pause_first++;
		}
		if (ce[q] && !p->marked) {
			p->marked = 1;
			if (has[q])
				depth_add(&p->mark_depth, depth[q]);
		}
		if (pause[q] && !p->paused) {
			p->paused = 1;
			if (has[q])
				depth_add(&p->pause_depth, depth[q]);
		}
	}
}

/* The interval's greatest queue depth per priority from sFlow: the switch
 * ports that reported a depth (1040) in it and whose last egress queue
 * index (1036) is the priority. */
static void sflow_depths(const struct rt_delta *d, __u32 depth[8], int has[8])
{
	for (size_t i = 0; i < d->nswports; i++) {
		const struct rt_swport *p = d->swports[i].p;
		__u32 q = p->queue;

		if (!d->swports[i].d.depth_n || !p->has_queue || q > 7)
			continue;
		if (!has[q] || p->max_depth > depth[q])
			depth[q] = p->max_depth;
		has[q] = 1;
	}
}

/* One interval's data bytes per interface, direction and priority. */
struct ifbytes {
	__u32 ifindex;
	__u8 dir;
	__u64 bytes[8];
};

static void add_bytes(struct ifbytes *b, size_t *n, size_t max, const struct rt_flow *f, int q, __u64 bytes)
{
	size_t i;

	for (i = 0; i < *n && (b[i].ifindex != f->k.ifindex || b[i].dir != f->k.dir); i++)
		;
	if (i == *n) {
		if (*n == max)
			return;
		memset(&b[i], 0, sizeof(b[i]));
		b[i].ifindex = f->k.ifindex;
		b[i].dir = f->k.dir;
		(*n)++;
	}
	b[i].bytes[q] += bytes;
}

/* The interval's data rate on each interface and direction against its link
 * speed, where the speed is known (recorded, not assumed): each priority
 * keeps its busiest. */
static void peaks(struct rt_tune *t, const struct rt_snapshot *cur, double secs, const struct ifbytes *b, size_t n)
{
	for (size_t i = 0; secs > 0 && i < n; i++) {
		const char *ifname = rt_snapshot_ifname(cur, b[i].ifindex), *from = NULL;
		__u64 mbps = rt_link_speed_quiet(cur, ifname, 0, &from);

		if (!strcmp(from, "assumed"))
			continue;
		for (int q = 0; q < 8; q++) {
			struct rt_tune_prio *p = &t->p[q];
			double bps = (double)b[i].bytes[q] * 8 / secs, share = bps / ((double)mbps * 1e6);

			if (!b[i].bytes[q] || (p->rated && share <= p->peak_share))
				continue;
			p->rated = 1;
			p->peak_share = share;
			p->peak_bps = bps;
			p->peak_mbps = mbps;
			snprintf(p->peak_if, sizeof(p->peak_if), "%s", ifname);
		}
	}
}

void rt_tune_take(struct rt_tune *t, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	__u64 ce[8] = { 0 }, pause[8] = { 0 };
	__u32 depth[8] = { 0 };
	int has[8] = { 0 };
	struct ifbytes b[16];
	size_t nb = 0;

	if (cur->ncfgs) {
		memcpy(t->cfg, cur->cfgs, cur->ncfgs * sizeof(cur->cfgs[0]));
		t->ncfg = cur->ncfgs;
	}
	for (size_t i = 0; i < d->nflows; i++) {
		const struct rt_flow_delta *x = &d->flows[i];
		int q = flow_prio(cfg_of(t, rt_snapshot_ifname(cur, x->f->k.ifindex)), x->f);
		__u64 ctl;

		if (x->f->estimate)
			continue;
		/* data: what is neither a CNP nor an ACK or NAK */
		ctl = x->d.cnp + x->d.ack + x->d.nak_seq + x->d.nak_other + x->d.rnr_nak;
		t->p[q].cnp += x->d.cnp;
		t->p[q].pkts += x->d.pkts - (ctl < x->d.pkts ? ctl : x->d.pkts);
		t->p[q].ce += x->d.ecn[RT_ECN_CE];
		if (!x->f->k.mirror && !x->f->k.origin && x->f->k.dir == RT_DIR_INGRESS)
			t->p[q].ce_in += x->d.ecn[RT_ECN_CE];
		if (!x->f->k.mirror && !x->f->k.origin && x->f->k.dir == RT_DIR_EGRESS)
			t->cnp_out += x->d.cnp;
		ce[q] += x->d.ecn[RT_ECN_CE];
		if (ctl < x->d.pkts)	/* a flow that carries data: its bytes */
			add_bytes(b, &nb, sizeof(b) / sizeof(b[0]), x->f, q, x->d.bytes);
	}
	peaks(t, cur, d->secs, b, nb);
	for (size_t i = 0; i < d->nifs; i++)
		for (int q = 0; q < 8; q++) {
			t->p[q].pause += d->ifs[i].d.pfc_frames[q];
			pause[q] += d->ifs[i].d.pfc_frames[q];
		}
	for (size_t i = 0; i < d->nports; i++) {
		const char *n = d->ports[i].c->name;
		__u64 v = d->ports[i].d;

		if (d->ports[i].c->scope != RT_SCOPE_HW_PORT)
			continue;
		if (!strcmp(n, "np_ecn_marked_roce_packets"))
			t->np_marked += v;
		else if (!strcmp(n, "np_cnp_sent"))
			t->np_cnp_sent += v;
		else if (!strcmp(n, "rp_cnp_handled"))
			t->rp_handled += v;
		else if (!strcmp(n, "rp_cnp_ignored"))
			t->rp_ignored += v;
	}
	sflow_depths(d, depth, has);
	episodes(t, ce, pause, depth, has);
}

void rt_tune_take_nic(struct rt_tune *t, const struct rt_hostcfg *c, const struct rt_tune_nic *n, double secs)
{
	int q = c->roce_prio;

	if (t->ncfg < RT_MAX_CFGS)
		t->cfg[t->ncfg++] = *c;
	t->nic = 1;
	t->nic_secs = secs;
	t->np_marked += n->np_marked;
	t->np_cnp_sent += n->np_cnp_sent;
	t->rp_handled += n->rp_handled;
	t->rp_ignored += n->rp_ignored;
	for (int k = 0; k < 8; k++)
		t->p[k].pause += n->pause[k];
	if (q < 0 || q > 7 || !(n->np_marked || n->np_cnp_sent || n->rp_handled || n->rp_ignored))
		return;
	t->p[q].nic_ran = 1;
	t->p[q].ce += n->np_marked;
}

/* ---- the rules ---- */

/* RoCE ran on priority q: data packets in the recording, or the NIC's counters. */
static int ran(const struct rt_tune *t, int q)
{
	return t->p[q].pkts || t->p[q].nic_ran;
}

struct out {
	struct rt_tune_rec *r;
	size_t n, max;
};

static struct rt_tune_rec *add(struct out *o, const char *setting, const char *conf)
{
	struct rt_tune_rec *r;

	if (o->n == o->max)
		return NULL;
	r = &o->r[o->n++];
	memset(r, 0, sizeof(*r));
	snprintf(r->kind, sizeof(r->kind), "change");
	snprintf(r->setting, sizeof(r->setting), "%s", setting);
	snprintf(r->confidence, sizeof(r->confidence), "%s", conf);
	return r;
}

/* s as one shell word: as it is when every byte is safe, else in single
 * quotes (a netdev's name may hold '<', '$' or a quote). */
static const char *shell_word(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	if (s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:@%+=,-")] == 0)
		return s;
	buf[n++] = '\'';
	for (; *s && n + 5 < len; s++) {
		if (*s == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			buf[n++] = *s;
		}
	}
	buf[n++] = '\'';
	buf[n] = 0;
	return buf;
}

/* r's command: "echo V > FILE", FILE below the tree the settings were read
 * from (t->root, "" for the host's own /sys), quoted for a shell. */
static void cmd_write(struct rt_tune_rec *r, const struct rt_tune *t, long long v, const char *fmt, const char *name,
		      const char *leaf)
{
	char path[512], q[1100];

	if (!r)
		return;
	snprintf(path, sizeof(path), fmt, t->root, name, leaf);
	snprintf(r->command, sizeof(r->command), "echo %lld > %s", v, shell_word(path, q, sizeof(q)));
}

#define SAY(r, field, ...) do { if (r) snprintf((r)->field, sizeof((r)->field), __VA_ARGS__); } while (0)

/* CE marks on a priority whose notification point is off: no CNP answers
 * them. CNPs arriving for a priority whose reaction point is off: no rate
 * is cut. */
static void rule_np_rp(struct out *o, const struct rt_tune *t, const struct rt_hostcfg *c)
{
	struct rt_tune_rec *r;
	__u64 cnps = 0;

	for (int q = 0; q < 8; q++)
		cnps += t->p[q].cnp;
	if (t->nic)
		cnps = t->rp_handled;
	for (int q = 0; q < 8; q++) {
		char qs[4] = { (char)('0' + q), 0 };

		if (c->np_en[q] == 0 && t->p[q].ce) {
			r = add(o, "ecn/roce_np/enable", "high");
			SAY(r, scope, "%s priority %d", c->netdev, q);
			SAY(r, current, "0");
			SAY(r, recommended, "1");
			if (t->nic)
				SAY(r, evidence, "np_ecn_marked_roce_packets +%llu, np_cnp_sent +%llu in %.1f s; RoCE "
				    "takes priority %d (rdma_cm's default ToS)", (unsigned long long)t->p[q].ce,
				    (unsigned long long)t->np_cnp_sent, t->nic_secs, q);
			else
				SAY(r, evidence, "%llu CE-marked RoCE packets on priority %d, %llu CNPs sent (np_cnp_sent)",
				    (unsigned long long)t->p[q].ce, q, (unsigned long long)t->np_cnp_sent);
			cmd_write(r, t, 1, "%s/sys/class/net/%s/ecn/roce_np/enable/%s", c->netdev, qs);
		}
		if (c->rp_en[q] == 0 && ran(t, q) && (cnps || t->rp_ignored)) {
			r = add(o, "ecn/roce_rp/enable", "high");
			SAY(r, scope, "%s priority %d", c->netdev, q);
			SAY(r, current, "0");
			SAY(r, recommended, "1");
			if (t->nic)
				SAY(r, evidence, "rp_cnp_handled +%llu, rp_cnp_ignored +%llu in %.1f s; RoCE takes "
				    "priority %d (rdma_cm's default ToS)", (unsigned long long)cnps,
				    (unsigned long long)t->rp_ignored, t->nic_secs, q);
			else
				SAY(r, evidence, "%llu RoCE packets sent on priority %d; %llu CNPs seen, rp_cnp_ignored "
				    "+%llu", (unsigned long long)t->p[q].pkts, q, (unsigned long long)cnps,
				    (unsigned long long)t->rp_ignored);
			cmd_write(r, t, 1, "%s/sys/class/net/%s/ecn/roce_rp/enable/%s", c->netdev, qs);
		}
	}
}

/* CE marks this host received on a priority, no CNP left it, and its RDMA
 * device has no notification point to enable (no ecn/roce_np file on any
 * priority: Soft-RoCE's rxe, which sends no CNP). Packets the host saw are
 * its own device's only where the device is software (a hardware NIC takes
 * its RoCE before XDP), so the CE marks and the CNPs are counted as the host
 * received and sent them, never from mirror copies. An observation: there is
 * no file to write on this host. */
static void rule_no_np(struct out *o, const struct rt_tune *t, const struct rt_hostcfg *c)
{
	struct rt_tune_rec *r;

	if (t->nic || !c->dev[0] || t->cnp_out || t->np_cnp_sent)
		return;
	for (int q = 0; q < 8; q++)
		if (c->np_en[q] >= 0)
			return;
	for (int q = 0; q < 8; q++) {
		if (!t->p[q].ce_in)
			continue;
		r = add(o, "ecn/roce_np/enable", "high");
		if (!r)
			return;
		snprintf(r->kind, sizeof(r->kind), "observation");
		SAY(r, scope, "%s priority %d", c->netdev, q);
		SAY(r, current, "absent (%s has no notification point)", c->dev);
		SAY(r, recommended, "a notification point on priority %d: a RoCE device whose DCQCN sends CNPs (its "
		    "ecn/roce_np/enable/%d at 1); until then CE marks on priority %d slow no sender", q, q, q);
		SAY(r, evidence, "%llu CE-marked RoCE packets arrived on priority %d, 0 CNPs left (sent on the wire, "
		    "np_cnp_sent +0); %s has no ecn/roce_np/enable", (unsigned long long)t->p[q].ce_in, q, c->netdev);
	}
}

/* The priority the most RoCE data took (from the NIC's counters: the one
 * they were put on), -1 none. */
static int data_prio(const struct rt_tune *t)
{
	int best = -1;

	for (int q = 0; q < 8; q++)
		if (t->p[q].pkts && (best < 0 || t->p[q].pkts > t->p[best].pkts))
			best = q;
	for (int q = 0; best < 0 && q < 8; q++)
		if (t->p[q].nic_ran)
			best = q;
	return best;
}

/* The NP's CNPs on the priority the data takes (cc_params np_cnp_dscp, or
 * np_cnp_prio where the host classifies by PCP): CNPs wait behind the data
 * they should slow, and pause with it. */
static void rule_cnp_prio(struct out *o, const struct rt_tune *t, const struct rt_hostcfg *c, int dp)
{
	long long dscp = c->cc[RT_CC_NP_CNP_DSCP], prio = c->cc[RT_CC_NP_CNP_PRIO];
	int trust = c->app_known && c->trusts_dscp;
	int cq = trust && dscp >= 0 ? rt_hostcfg_dscp_prio(c, (unsigned int)dscp) : (int)prio;
	__u64 cnps = dp < 0 ? 0 : t->p[dp].cnp ? t->p[dp].cnp : t->np_cnp_sent;
	struct rt_tune_rec *r;

	if (dp < 0 || cq != dp || !cnps || !c->pci[0] || (trust ? dscp < 0 : prio < 0))
		return;
	r = add(o, trust ? "cc_params/np_cnp_dscp" : "cc_params/np_cnp_prio", "high");
	SAY(r, scope, "%s (%s) priority %d", c->netdev, c->pci, dp);
	SAY(r, current, "%lld", trust ? dscp : prio);
	SAY(r, recommended, "%d", trust ? 48 : 6);
	if (t->nic)
		SAY(r, evidence, "CNPs on priority %d, RoCE's (rdma_cm's default ToS): np_cnp_sent +%llu in %.1f s", dp,
		    (unsigned long long)cnps, t->nic_secs);
	else
		SAY(r, evidence, "CNPs on priority %d, the priority of %llu RoCE data packets: %llu %s", dp,
		    (unsigned long long)t->p[dp].pkts, (unsigned long long)cnps,
		    t->p[dp].cnp ? "CNPs seen on it" : "CNPs sent (np_cnp_sent)");
	cmd_write(r, t, trust ? 48 : 6, "%s/sys/kernel/debug/mlx5/%s/cc_params/%s", c->pci,
		  trust ? "np_cnp_dscp" : "np_cnp_prio");
}

/* RoCE data on a priority without PFC, and PFC on a priority no RoCE took
 * while RoCE ran on another. */
static void rule_pfc(struct out *o, const struct rt_tune *t, const struct rt_hostcfg *c, int dp)
{
	struct rt_tune_rec *r;
	char w[80];

	if (!c->pfc_known || dp < 0)
		return;
	for (int q = 0; q < 8; q++) {
		int on = !!(c->pfc_en & (1u << q));

		if (on == !!ran(t, q) || (on && t->nic))
			continue;	/* the port's counters cannot say a priority had no RoCE */
		if (on && (q == c->cc[RT_CC_NP_CNP_PRIO] || t->p[q].cnp))
			continue;	/* the CNPs' own priority */
		r = add(o, "pfc", on ? "medium" : "high");
		SAY(r, scope, "%s priority %d", c->netdev, q);
		SAY(r, current, "%s", on ? "on" : "off");
		SAY(r, recommended, "%s", on ? "off" : "on");
		if (on)
			SAY(r, evidence, "no RoCE packet on priority %d; %llu on priority %d", q,
			    (unsigned long long)t->p[dp].pkts, dp);
		else if (t->nic)
			SAY(r, evidence, "RoCE on priority %d (rdma_cm's default ToS; np_ecn_marked_roce_packets +%llu, "
			    "np_cnp_sent +%llu, rp_cnp_handled +%llu in %.1f s), PFC enabled on 0x%02x", q,
			    (unsigned long long)t->np_marked, (unsigned long long)t->np_cnp_sent,
			    (unsigned long long)t->rp_handled, t->nic_secs, c->pfc_en);
		else
			SAY(r, evidence, "%llu RoCE packets on priority %d, PFC enabled on 0x%02x",
			    (unsigned long long)t->p[q].pkts, q, c->pfc_en);
		SAY(r, command, "dcb pfc set dev %s prio-pfc %d:%s", shell_word(c->netdev, w, sizeof(w)), q,
		    on ? "off" : "on");
	}
}

/* PFC storm prevention off where PFC is on and RoCE ran. */
static void rule_storm(struct out *o, const struct rt_tune *t, const struct rt_hostcfg *c, int dp)
{
	struct rt_tune_rec *r;
	char w[80];

	if (!c->pfc_known || !c->pfc_en || c->pfc_tout != 0 || dp < 0)
		return;
	r = add(o, "pfc-prevention-tout", "high");
	SAY(r, scope, "%s", c->netdev);
	SAY(r, current, "0 (off)");
	SAY(r, recommended, "auto");
	if (t->nic)
		SAY(r, evidence, "PFC on 0x%02x, RoCE on priority %d (rdma_cm's default ToS); %llu PFC frames on it in "
		    "%.1f s", c->pfc_en, dp, (unsigned long long)t->p[dp].pause, t->nic_secs);
	else
		SAY(r, evidence, "PFC on 0x%02x carrying %llu RoCE packets; %llu PFC frames in the recording",
		    c->pfc_en, (unsigned long long)t->p[dp].pkts, (unsigned long long)t->p[dp].pause);
	SAY(r, command, "ethtool --set-tunable %s pfc-prevention-tout auto", shell_word(c->netdev, w, sizeof(w)));
}

/* The RDMA MTU below what the netdev's MTU allows. */
static void rule_mtu(struct out *o, const struct rt_hostcfg *c, int dp)
{
	int fits = c->mtu > 0 ? rt_roce_mtu_for(c->mtu) : -1;
	struct rt_tune_rec *r;
	char w[80];

	if (dp < 0 || c->active_mtu <= 0 || fits <= 0 || c->active_mtu >= fits)
		return;
	r = add(o, "rdma-mtu", "medium");
	SAY(r, scope, "%s (%s/%u)", c->netdev, c->dev, c->port);
	SAY(r, current, "%d", c->active_mtu);
	SAY(r, recommended, "%d", fits);
	SAY(r, evidence, "netdev MTU %d allows %d; RoCE ran at %d", c->mtu, fits, c->active_mtu);
	SAY(r, command, "ibv_devinfo -d %s -i %u | grep -E 'max_mtu|active_mtu'  (the port's or the peer's "
	    "max_mtu limits it; the application's path MTU follows)", shell_word(c->dev, w, sizeof(w)), c->port);
}

/* "150000 bytes in 1 episode", "150000..170000 bytes in 3 episodes", "not reported". */
static const char *depth_say(const struct rt_tune_depth *d, char *buf, size_t len)
{
	if (!d->n)
		snprintf(buf, len, "not reported");
	else if (d->lo == d->hi)
		snprintf(buf, len, "%u bytes in %llu episode%s", d->lo, (unsigned long long)d->n, d->n > 1 ? "s" : "");
	else
		snprintf(buf, len, "%u..%u bytes in %llu episodes", d->lo, d->hi, (unsigned long long)d->n);
	return buf;
}

/* PFC before ECN: most congestion episodes on a priority began with pause
 * frames and no CE mark. The switch's ECN thresholds are above its XOFF.
 * With sFlow's queue depths, the depths at which pausing and marking began. */
static void rule_pfc_first(struct out *o, const struct rt_tune *t)
{
	struct rt_tune_rec *r;

	for (int q = 0; q < 8; q++) {
		const struct rt_tune_prio *p = &t->p[q];

		if (p->episodes < 3 || p->pause_first * 2 <= p->episodes)
			continue;
		r = add(o, "switch ECN thresholds", "medium");
		SAY(r, scope, "switch, priority %d", q);
		SAY(r, current, "ECN marks after PFC XOFF");
		SAY(r, recommended, "Kmin/Kmax below the XOFF threshold");
		if (p->pause_depth.n || p->mark_depth.n) {
			char a[64], b[64];

			SAY(r, evidence, "%llu of %llu congestion episodes on priority %d began with PFC frames and no "
			    "CE mark; switch queue %d's depth (sFlow) when pausing began: %s, when marking began: %s",
			    (unsigned long long)p->pause_first, (unsigned long long)p->episodes, q, q,
			    depth_say(&p->pause_depth, a, sizeof(a)), depth_say(&p->mark_depth, b, sizeof(b)));
		} else {
			SAY(r, evidence, "%llu of %llu congestion episodes on priority %d began with PFC frames and no "
			    "CE mark", (unsigned long long)p->pause_first, (unsigned long long)p->episodes, q);
		}
		SAY(r, command, "on the switch: set the WRED/ECN Kmin and Kmax of priority %d's queue below its PFC "
		    "XOFF threshold (e.g. Kmin 100 KB, Kmax 400 KB at 25 Gb/s, scaled with the speed)", q);
	}
}

/* The reaction point may cut too hard: many CNPs (at least RT_TUNE_RP_CNPS,
 * and one per RT_TUNE_RP_PER data packets or more) while the data's busiest
 * interval stayed under half its link and no PFC frame paused its priority.
 * An observation, not a command: it names the DCQCN parameters to look at. */
#define RT_TUNE_RP_CNPS	100
#define RT_TUNE_RP_PER	20
static void rule_rp_cuts(struct out *o, const struct rt_tune *t, int dp)
{
	const struct rt_tune_prio *p = dp >= 0 ? &t->p[dp] : NULL;
	const struct rt_hostcfg *c = t->ncfg ? cfg_of(t, p ? p->peak_if : "") : NULL;
	__u64 cnps = 0;
	struct rt_tune_rec *r;

	for (int q = 0; q < 8; q++)
		cnps += t->p[q].cnp;
	if (!cnps)
		cnps = t->rp_handled;
	if (!p || !p->rated || p->pause || cnps < RT_TUNE_RP_CNPS || cnps * RT_TUNE_RP_PER < p->pkts ||
	    p->peak_share >= 0.5)
		return;
	r = add(o, "DCQCN reaction point rate cuts", "low");
	if (!r)
		return;
	snprintf(r->kind, sizeof(r->kind), "observation");
	SAY(r, scope, "%s priority %d", p->peak_if, dp);
	if (c && c->cc[RT_CC_RP_GD] >= 0 && c->cc[RT_CC_RP_MIN_DEC_FAC] >= 0)
		SAY(r, current, "rp_gd %lld, rp_min_dec_fac %lld, rp_ai_rate %lld", c->cc[RT_CC_RP_GD],
		    c->cc[RT_CC_RP_MIN_DEC_FAC], c->cc[RT_CC_RP_AI_RATE]);
	else
		SAY(r, current, "cc_params not recorded");
	/* no command: the parameters to look at, and where */
	SAY(r, recommended, "cc_params rp_gd, rp_min_dec_fac, rp_rate_reduce_monitor_period (how deep and "
	    "how often a CNP cuts), rp_ai_rate, rp_hai_rate, rp_time_reset, rp_byte_reset (how fast the rate "
	    "comes back) in %s%s%s", c && c->pci[0] ? "/sys/kernel/debug/mlx5/" : "the NIC's debugfs",
	    c && c->pci[0] ? c->pci : "", c && c->pci[0] ? "/cc_params" : "");
	SAY(r, evidence, "%llu CNPs for %llu RoCE data packets on priority %d, no PFC frame on it; its busiest "
	    "interval on %s was %.3f Gb/s, %.1f%% of the %llu Mb/s link", (unsigned long long)cnps,
	    (unsigned long long)p->pkts, dp, p->peak_if, p->peak_bps / 1e9, 100 * p->peak_share,
	    (unsigned long long)p->peak_mbps);
}

size_t rt_tune_rules(const struct rt_tune *t, struct rt_tune_rec *rec, size_t max)
{
	struct out o = { rec, 0, max };
	int dp = data_prio(t);

	for (size_t i = 0; i < t->ncfg; i++) {
		const struct rt_hostcfg *c = &t->cfg[i];

		rule_np_rp(&o, t, c);
		rule_no_np(&o, t, c);
		rule_cnp_prio(&o, t, c, dp);
		rule_pfc(&o, t, c, dp);
		rule_storm(&o, t, c, dp);
		rule_mtu(&o, c, dp);
	}
	rule_pfc_first(&o, t);
	rule_rp_cuts(&o, t, dp);
	return o.n;
}
