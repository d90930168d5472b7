// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --qp-counters and the counters bound to QPs (rdma netlink statistics,
 * nic_stat.c) as the NIC's own flows: binding asked for once and checked
 * (the QPs made since must get a counter), each bound counter's raw value
 * kept with a total since first seen, and per QP and direction a flow of
 * origin RT_ORIGIN_NIC carrying what a wire flow has where the NIC counts it
 * (CE: cc_rx_ce_pkts; CNPs: cc_rx_cnp_pkts in, cc_tx_cnp_pkts out; packets
 * and bytes: rdma_{rx,tx}_{packets,bytes}); rows of counters gone leave the
 * loop's table. nic.c calls it each interval; the state is nic_int.h's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "nic_int.h"

static void qpc_remember_old(struct rt_nic *n);

/* --qp-counters: once, when the ports and devices are known. */
void rt_nic_qpc_enable(struct rt_nic *n, struct rt_snapshot *snap)
{
	int r;

	n->qpc_tried = 1;
	(void)snap;
	if (n->root[0]) {
		snprintf(n->qpc_why, sizeof(n->qpc_why), "--qp-counters changes nothing under --sysfs-root");
		return;
	}
	if (!n->ports.n || !n->qps.ndevs) {
		snprintf(n->qpc_why, sizeof(n->qpc_why), "--qp-counters: %s",
			 n->ports.n ? "rdma netlink lists no device" : "no RDMA port to bind");
		return;
	}
	if (!(n->ctl = calloc(1, sizeof(*n->ctl)))) {
		snprintf(n->qpc_why, sizeof(n->qpc_why), "--qp-counters: out of memory");
		return;
	}
	r = rt_qpc_enable(n->ctl, &n->io, &n->ports, &n->qps, n->qp_counters == 2, n->qpc_why,
			  sizeof(n->qpc_why));
	if (r <= 0) {
		/* One sentence and a non-zero exit (the loop asks rt_nic_failed). */
		n->qpc_fail = r < 0 ? r : -EOPNOTSUPP;
		if (!n->qpc_why[0])
			snprintf(n->qpc_why, sizeof(n->qpc_why), "no RDMA port takes automatic per-QP binding");
		pr_warn("--qp-counters: %s: no per-QP counter can be read.\n", n->qpc_why);
		return;
	}
	qpc_remember_old(n);
	pr_info("per-QP counters: automatic binding by QP type on %s until rocetop exits (QPs "
		"created from now on are bound).\n", n->qpc_ports);
	if (n->qpc_why[0])
		pr_warn("%s.\n", n->qpc_why);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* The QPs there are as binding starts (the kernel binds only those made
 * after), and the names of the ports that bind. */
static void qpc_remember_old(struct rt_nic *n)
{
	size_t k = 0;

	free(n->qpc_old);
	n->nqpc_old = 0;
	n->qpc_old = malloc((n->qps.n ? n->qps.n : 1) * sizeof(*n->qpc_old));
	for (size_t i = 0; n->qpc_old && i < n->qps.n; i++)
		n->qpc_old[n->nqpc_old++] = (__u64)n->qps.q[i].dev_index << 32 | n->qps.q[i].lqpn;
	if (n->nqpc_old)
		qsort(n->qpc_old, n->nqpc_old, sizeof(*n->qpc_old), cmp_u64);
	n->qpc_ports[0] = '\0';
	for (size_t i = 0; i < n->ctl->n; i++) {
		const struct rt_qpc_port *p = &n->ctl->p[i];
		int w = snprintf(n->qpc_ports + k, sizeof(n->qpc_ports) - k, "%s%s/%u", k ? ", " : "",
				 p->dev, p->port);

		if (w < 0 || (size_t)w >= sizeof(n->qpc_ports) - k)
			break;
		k += (size_t)w;
	}
}

/* After a read of the bound counters: with binding on and none bound, the
 * user QPs made since binding began (a driver such as rxe takes auto mode
 * but binds no counter). Said once. */
void rt_nic_qpc_check_bound(struct rt_nic *n, struct rt_snapshot *snap)
{
	size_t made = 0;

	if (!n->qp_counters || n->qpc_fail || !n->qpc_tried || !n->ctl)
		return;
	if (n->qpc.ncounters) {
		n->qpc_read = 1;
		return;
	}
	if (n->qpc_read)
		return;
	for (size_t i = 0; i < n->qps.n; i++) {
		__u64 key = (__u64)n->qps.q[i].dev_index << 32 | n->qps.q[i].lqpn;

		if (!n->qps.q[i].pid || !n->qps.q[i].state || !n->qps.q[i].port)
			continue;	/* kernel QPs (QP1) are not bound; a QP is bound on
					 * its way to INIT, with its port: not in RESET */
		if (n->qpc_old && bsearch(&key, n->qpc_old, n->nqpc_old, sizeof(key), cmp_u64))
			continue;
		made++;
	}
	if (made && !n->qpc_new)
		pr_warn("--qp-counters: auto mode set on %s, but the driver bound no counter to any QP "
			"(%zu QP%s created since).\n", n->qpc_ports, made, made == 1 ? "" : "s");
	if (made > n->qpc_new)
		n->qpc_new = made;
	if (n->qpc_new)
		rt_snapshot_note(snap, "--qp-counters: auto mode set on %s, but the driver bound no "
				 "counter to any QP", n->qpc_ports);
}

static int qp_cmp(const void *a, const void *b)
{
	const struct rt_qp *x = *(const struct rt_qp *const *)a, *y = *(const struct rt_qp *const *)b;

	if (x->dev_index != y->dev_index)
		return x->dev_index < y->dev_index ? -1 : 1;
	return x->lqpn < y->lqpn ? -1 : x->lqpn > y->lqpn;
}

/* The QP table by device and lqpn, for qp_of(). */
static void index_qps(struct rt_nic *n)
{
	n->nqp_by = 0;
	if (rt_grow_to((void **)&n->qp_by, &n->qp_by_cap, n->qps.n, sizeof(*n->qp_by)))
		return;
	for (size_t i = 0; i < n->qps.n; i++)
		n->qp_by[n->nqp_by++] = &n->qps.q[i];
	if (n->nqp_by > 1)
		qsort(n->qp_by, n->nqp_by, sizeof(*n->qp_by), qp_cmp);
}

static const struct rt_qp *qp_of(const struct rt_nic *n, __u32 dev_index, __u32 lqpn)
{
	size_t lo = 0, hi = n->nqp_by;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct rt_qp *q = n->qp_by[mid];

		if (q->dev_index < dev_index || (q->dev_index == dev_index && q->lqpn < lqpn))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n->nqp_by && n->qp_by[lo]->dev_index == dev_index && n->qp_by[lo]->lqpn == lqpn)
		return n->qp_by[lo];
	return NULL;
}

/* What a bound counter counted since rocetop first saw it (wraps and resets
 * as rt_ctr_delta tells them). */
/* Keep the accumulators seen this interval, forget the others. */
static void acc_forget_unseen(struct rt_nic *n)
{
	struct rt_htab keep;
	size_t i, gone = 0;

	for (i = 0; i < n->acc.cap; i++)
		if (n->acc.used[i])
			gone += !((struct qpc_acc *)rt_htab_at(&n->acc, i))->seen;
	if (gone) {
		rt_htab_init(&keep, n->acc.esz, n->acc.ksz, 0);
		for (i = 0; i < n->acc.cap; i++) {
			struct qpc_acc *a = rt_htab_at(&n->acc, i), *e;

			if (!n->acc.used[i] || !a->seen)
				continue;
			e = rt_htab_get(&keep, a, rt_hash_bytes(a, keep.ksz), NULL);
			if (!e) {	/* no memory: keep them all */
				rt_htab_free(&keep);
				gone = 0;
				break;
			}
			*e = *a;
		}
		if (gone) {
			rt_htab_free(&n->acc);
			n->acc = keep;
		}
	}
	for (i = 0; i < n->acc.cap; i++)
		if (n->acc.used[i])
			((struct qpc_acc *)rt_htab_at(&n->acc, i))->seen = 0;
}

static __u64 qpc_total(struct rt_nic *n, const struct rt_qpc_row *r, unsigned int bits)
{
	struct qpc_acc key, *a;
	int fresh;

	memset(&key, 0, sizeof(key));
	key.dev_index = r->dev_index;
	key.counter_id = r->counter_id;
	snprintf(key.name, sizeof(key.name), "%s", r->name);
	a = rt_htab_get(&n->acc, &key, rt_hash_bytes(&key, n->acc.ksz), &fresh);
	if (!a)
		return 0;
	if (fresh)
		a->last = r->value;
	a->total += rt_ctr_delta(a->last, r->value, bits);
	a->last = r->value;
	a->seen = 1;
	return a->total;
}

static void qp_name_info(struct rt_nic *n, const char *drv, const char *name, __u8 *bits, __u8 *cong)
{
	size_t i;

	if (strcmp(n->memo_drv, drv)) {
		snprintf(n->memo_drv, sizeof(n->memo_drv), "%s", drv);
		n->nmemo = 0;
	}
	for (i = 0; i < n->nmemo && strcmp(n->memo[i].name, name); i++)
		;
	if (i == n->nmemo) {
		/* value 0: the width by name alone */
		__u8 b = (__u8)rt_nic_ctr_bits(drv, RT_SCOPE_QP, name, 0);
		__u8 c = (__u8)(rt_nic_is_congestion(name) || !strncmp(name, "cc_", 3));

		if (i == sizeof(n->memo) / sizeof(n->memo[0])) {
			*bits = b;
			*cong = c;
			return;
		}
		snprintf(n->memo[i].name, sizeof(n->memo[i].name), "%s", name);
		n->memo[i].bits = b;
		n->memo[i].congestion = c;
		n->nmemo++;
	}
	*bits = n->memo[i].bits;
	*cong = n->memo[i].congestion;
}

static __u64 qpc_value(struct rt_nic *n, size_t from, size_t to, const char *drv, const char *name,
			int *has)
{
	for (size_t i = from; i < to; i++)
		if (!strcmp(n->qpc.r[i].name, name)) {
			__u8 bits, cong;

			*has = 1;
			qp_name_info(n, drv, name, &bits, &cong);
			return qpc_total(n, &n->qpc.r[i], bits);
		}
	return 0;
}

/* The flows of one bound counter (rows [from, to) of n->qpc). */
/*
 * A NIC flow into snap: appended to a whole snapshot; over a persistent
 * table, its row updated in place and counted as changed only if something
 * moved, its key kept for rt_nic_flows_gone. 0 or -ENOMEM.
 */
static int nic_flow_put(struct rt_nic *n, struct rt_snapshot *snap, const struct rt_flow *nf)
{
	struct rt_flow_key *k;
	struct rt_flow *f;
	int fresh;

	if (!snap->tab) {
		if (!(f = rt_snapshot_add_flow(snap)))
			return -ENOMEM;
		*f = *nf;
		return 0;
	}
	if (!(k = rt_append((void **)&n->nk, &n->nnk, &n->nk_cap, sizeof(*k))))
		return -ENOMEM;
	*k = nf->k;
	if (!(f = rt_snapshot_flow(snap, &nf->k, &fresh)))
		return -ENOMEM;
	if (fresh || memcmp(&f->v, &nf->v, sizeof(f->v)) || f->lqpn != nf->lqpn || f->rqpn != nf->rqpn ||
	    f->pid != nf->pid || f->job != nf->job || memcmp(f->comm, nf->comm, sizeof(f->comm))) {
		rt_snapshot_touch(snap, f);	/* first: it keeps the old counters */
		f->v = nf->v;
		f->lqpn = nf->lqpn;
		f->rqpn = nf->rqpn;
		f->pid = nf->pid;
		f->job = nf->job;
		memcpy(f->comm, nf->comm, sizeof(f->comm));
	}
	return 0;
}

static int key_qcmp(const void *a, const void *b)
{
	return rt_flow_key_cmp(a, b);
}

/* Over a persistent table: remove the NIC flows of the last interval that
 * this one did not report (counters unbound, QPs destroyed), as a whole
 * snapshot would not have them. */
void rt_nic_flows_gone(struct rt_nic *n, struct rt_snapshot *snap)
{
	struct rt_flow_key *t;
	size_t tc;

	if (n->nnk > 1)
		qsort(n->nk, n->nnk, sizeof(*n->nk), key_qcmp);
	for (size_t i = 0; i < n->nnk_prev; i++) {
		struct rt_flow *f;
		int fresh;

		if (n->nnk && bsearch(&n->nk_prev[i], n->nk, n->nnk, sizeof(*n->nk), key_qcmp))
			continue;
		f = rt_snapshot_flow(snap, &n->nk_prev[i], &fresh);
		if (f)
			rt_snapshot_remove(snap, (size_t)(f - snap->flows));
	}
	t = n->nk_prev;
	n->nk_prev = n->nk;
	n->nk = t;
	tc = n->nk_prev_cap;
	n->nk_prev_cap = n->nk_cap;
	n->nk_cap = tc;
	n->nnk_prev = n->nnk;
	n->nnk = 0;
}

/* Whether the QP table differs from the one of the last join (and keep it). */
int rt_nic_qps_changed(struct rt_nic *n)
{
	size_t sz = n->qps.n * sizeof(*n->qps.q), csz = n->qps.ncm * sizeof(*n->qps.cm);

	if (n->joined && n->qps.n == n->nqps_last && (!sz || !memcmp(n->qps.q, n->qps_last, sz)) &&
	    n->qps.ncm == n->ncm_last && (!csz || !memcmp(n->qps.cm, n->cm_last, csz)))
		return 0;
	if (rt_grow_to((void **)&n->qps_last, &n->qps_last_cap, n->qps.n ? n->qps.n : 1,
		       sizeof(*n->qps_last)) ||
	    rt_grow_to((void **)&n->cm_last, &n->cm_last_cap, n->qps.ncm ? n->qps.ncm : 1,
		       sizeof(*n->cm_last))) {
		n->joined = 0;		/* no copy: the next join looks at everything again */
		return 1;
	}
	if (sz)
		memcpy(n->qps_last, n->qps.q, sz);
	if (csz)
		memcpy(n->cm_last, n->qps.cm, csz);
	n->nqps_last = n->qps.n;
	n->ncm_last = n->qps.ncm;
	n->joined = 1;
	return 1;
}

static void qpc_flows(struct rt_nic *n, struct rt_snapshot *snap, size_t from, size_t to,
		      const char *netdev, const char *drv)
{
	const struct rt_qpc_row *r0 = &n->qpc.r[from];
	const struct rt_qp *q = qp_of(n, r0->dev_index, r0->lqpn);
	__u32 ifindex = netdev[0] ? if_nametoindex(netdev) : 0;
	int has_ce = 0, has_rcnp = 0, has_tcnp = 0, has_rp = 0, has_tp = 0, x = 0;
	__u64 ce = qpc_value(n, from, to, drv, "cc_rx_ce_pkts", &has_ce);
	__u64 rcnp = qpc_value(n, from, to, drv, "cc_rx_cnp_pkts", &has_rcnp);
	__u64 tcnp = qpc_value(n, from, to, drv, "cc_tx_cnp_pkts", &has_tcnp);
	__u64 rp = qpc_value(n, from, to, drv, "rdma_rx_packets", &has_rp);
	__u64 tp = qpc_value(n, from, to, drv, "rdma_tx_packets", &has_tp);
	__u64 rb = qpc_value(n, from, to, drv, "rdma_rx_bytes", &x);
	__u64 tb = qpc_value(n, from, to, drv, "rdma_tx_bytes", &x);

	(void)x;

	/* A netdev not on this host (a fixture's): a name of its own, in a space
	 * below sFlow's (RT_SFLOW_IFBASE) and above any real ifindex. */
	if (!ifindex)
		ifindex = RT_NIC_IFBASE | (r0->dev_index & 0xffff) << 8 | (r0->port & 0xff);
	if (!strcmp(rt_snapshot_ifname(snap, ifindex), "?"))
		rt_snapshot_add_iface(snap, ifindex, netdev[0] ? netdev : r0->dev, "nic");
	for (int dir = 0; dir < 2; dir++) {
		int in = dir == 0;
		struct rt_flow nf, *f = &nf;

		if (in ? !(has_ce || has_rcnp || has_rp) : !(has_tcnp || has_tp))
			continue;
		memset(&nf, 0, sizeof(nf));
		nf.throttles = -1;
		f->k.ifindex = ifindex;
		f->k.dir = in ? RT_DIR_INGRESS : RT_DIR_EGRESS;
		f->k.origin = RT_ORIGIN_NIC;
		if (q && q->family) {
			f->k.family = q->family;
			memcpy(f->k.src, in ? q->dst : q->src, 16);
			memcpy(f->k.dst, in ? q->src : q->dst, 16);
		}
		/* In: data and CNPs to our QP; out: CNPs (and data) to the peer's. */
		f->k.dqpn = in ? r0->lqpn : (q ? q->rqpn : 0);
		f->v.ecn[RT_ECN_CE] = in ? ce : 0;
		f->v.cnp = in ? rcnp : tcnp;
		/* Packets the NIC counted for the flow: all of them where it says,
		 * else at least the CE-marked ones and the CNPs. */
		f->v.pkts = in ? (has_rp ? rp : ce + rcnp) : (has_tp ? tp : tcnp);
		f->v.bytes = in ? rb : tb;
		f->v.pcp = RT_PCP_NONE;
		f->lqpn = r0->lqpn;
		if (q) {
			f->rqpn = q->rqpn;
			f->pid = q->pid;
			f->job = q->job;
			memcpy(f->comm, q->comm, sizeof(f->comm));
		}
		if (nic_flow_put(n, snap, &nf))
			return;
	}
}

/* The counters bound to QPs, as rows of snap->ports and as flows. */
void rt_nic_collect_qpc(struct rt_nic *n, struct rt_snapshot *snap)
{
	int r = 0, nerr = 0;
	char drv[64] = "", drv_of[32] = "";

	n->qpc.n = 0;
	n->qpc.ncounters = 0;
	n->qpc.nb = 0;
	if (n->qpc_why[0])
		rt_snapshot_note(snap, "%s", n->qpc_why);
	if (!n->ports.n)
		return;
	if (n->root[0]) {
		long len = rt_nic_read_nl_file(n, "stat_qp");

		if (len == -ENOENT)
			return;
		r = len < 0 ? (int)len : rt_qpc_parse(n->nl, (size_t)len, &n->qpc);
		if (r > 0)
			r = 0;
		else if (!r)
			r = -EBADMSG;	/* a recorded dump ends with NLMSG_DONE */
		nerr = r < 0;
	} else {
		/* per port, as `rdma statistic qp show link DEV/PORT` asks */
		for (size_t i = 0; i < n->ports.n; i++) {
			const struct rt_rdma_port *p = &n->ports.p[i];
			size_t d;
			int e;

			for (d = 0; d < n->qps.ndevs && strcmp(n->qps.dev_name[d], p->dev); d++)
				;
			if (d == n->qps.ndevs)
				continue;
			e = rt_qpc_read(&n->io, n->qps.dev_index[d], p->port, &n->qpc);
			if (e && !nerr++)
				r = e;
		}
	}
	if (nerr)
		rt_snapshot_note(snap, "per-QP counters (rdma netlink statistics) unavailable: %s",
				 strerror(-r));
	index_qps(n);
	for (size_t i = 0, j; i < n->qpc.n; i = j) {
		const struct rt_qpc_row *r0 = &n->qpc.r[i];
		const struct rt_rdma_port *p = rt_rdma_ports_find(&n->ports, r0->dev, r0->port);
		const char *netdev = p ? p->netdev : "";
		/* one device's counters come together: its driver read once */
		if (strcmp(drv_of, r0->dev)) {
			rt_sysfs_driver(n->root, r0->dev, drv, sizeof(drv));
			snprintf(drv_of, sizeof(drv_of), "%s", r0->dev);
		}
		for (j = i; j < n->qpc.n && n->qpc.r[j].counter_id == r0->counter_id &&
		     n->qpc.r[j].dev_index == r0->dev_index; j++) {
			const struct rt_qpc_row *q = &n->qpc.r[j];
			struct rt_port_ctr *c = rt_snapshot_add_port(snap);

			if (!c)
				return;
			snprintf(c->dev, sizeof(c->dev), "%s", q->dev);
			c->port = q->port;
			snprintf(c->netdev, sizeof(c->netdev), "%s", netdev);
			snprintf(c->name, sizeof(c->name), "%s", q->name);
			c->value = q->value;
			c->scope = RT_SCOPE_QP;
			qp_name_info(n, drv, q->name, &c->bits, &c->congestion);
			c->qpn = q->lqpn;
			c->nqps = (__u8)(q->nqps > 255 ? 255 : q->nqps);
		}
		qpc_flows(n, snap, i, j, netdev, drv);
	}
	/* Forget the counters gone (QPs destroyed, binding off). */
	acc_forget_unseen(n);
}
