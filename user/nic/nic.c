// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The NIC's own view, added to every live snapshot:
 *  - RDMA devices and ports: libibverbs first, sysfs for what verbs cannot open;
 *  - their counters from sysfs (ports/<p>/hw_counters, ports/<p>/counters,
 *    <dev>/hw_counters): rows of snap->ports, scope saying which;
 *  - the ethtool statistics (PFC, pause, ECN, CNP, discards) of each netdev
 *    behind an RDMA port and of each -i interface: scope RT_SCOPE_ETHTOOL;
 *  - the QP table from rdma netlink, joined into the flows (user/core/join.c).
 * With --sysfs-root DIR everything is read below DIR instead: the RDMA tree
 * at DIR/sys/class/infiniband, ethtool statistics from DIR/ethtool/<netdev>
 * (as `ethtool -S` prints them); no verbs and no netlink then.
 * Whatever is missing or fails becomes a note on the snapshot, never an error.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "nic.h"
#include "source.h"

struct rt_nic {
	char root[PATH_MAX];		/* "" for the real host */
	const char *ifaces[RT_MAX_SRC_IFACES];
	int nifaces;
	struct rt_rdma_ports verbs;	/* found once by libibverbs */
	int verbs_ndev;
	char verbs_why[128];
	struct rt_rdma_ports ports;	/* this interval's: verbs + sysfs */
	struct rt_qp_table qps;
	struct rt_ethtool_stats st;
	int told_netlink;
};

void rt_nic_set_root(struct rt_nic *n, const char *root)
{
	snprintf(n->root, sizeof(n->root), "%s", root ? root : "");
}

struct rt_nic *rt_nic_new(const struct rt_opts *o)
{
	struct rt_nic *n = calloc(1, sizeof(*n));

	if (!n) {
		pr_warn("out of memory for the NIC's counters; going on without them.\n");
		return NULL;
	}
	rt_nic_set_root(n, o->sysfs_root);
	for (int i = 0; i < o->nifaces && i < RT_MAX_SRC_IFACES; i++)
		n->ifaces[n->nifaces++] = o->ifaces[i];
	if (!n->root[0]) {
		n->verbs_ndev = rt_verbs_discover(&n->verbs, n->verbs_why, sizeof(n->verbs_why));
		if (n->verbs_why[0])
			pr_debug("%s\n", n->verbs_why);
	}
	return n;
}

void rt_nic_free(struct rt_nic *n)
{
	if (!n)
		return;
	rt_rdma_ports_free(&n->verbs);
	rt_rdma_ports_free(&n->ports);
	rt_qp_table_free(&n->qps);
	rt_ethtool_stats_free(&n->st);
	free(n);
}

/* Ethtool statistics of one netdev into snap; 0 or -errno worth a note. */
static int ethtool_netdev(struct rt_nic *n, struct rt_snapshot *snap, const char *netdev,
			  const char *dev, __u32 port, int asked)
{
	char path[PATH_MAX + 32];
	int r;

	n->st.n = 0;
	if (n->root[0]) {
		snprintf(path, sizeof(path), "%s/ethtool/%s", n->root, netdev);
		r = rt_ethtool_read_file(path, &n->st);
		/* No fixture for a real -i interface: ask the real one. */
		if (r == -ENOENT && asked)
			r = rt_ethtool_read_ioctl(netdev, &n->st);
	} else {
		r = rt_ethtool_read_ioctl(netdev, &n->st);
		if (!r || r == -EOPNOTSUPP) {
			int p = rt_ethtool_read_pause_nl(netdev, &n->st);

			if (!p)
				r = 0;
		}
	}
	/* A netdev without statistics (lo), or a fixture netdev not here: nothing to show. */
	if (r == -EOPNOTSUPP || r == -ENOENT || (r == -ENODEV && n->root[0]))
		return 0;
	if (r)
		return r;
	for (size_t i = 0; i < n->st.n; i++) {
		const struct rt_ethtool_stat *e = &n->st.s[i];
		struct rt_port_ctr *c;

		if (!rt_ethtool_keep(e->name) || strlen(e->name) >= sizeof(c->name))
			continue;
		if (!(c = rt_snapshot_add_port(snap)))
			return -ENOMEM;
		snprintf(c->dev, sizeof(c->dev), "%s", dev);
		c->port = port;
		snprintf(c->netdev, sizeof(c->netdev), "%s", netdev);
		snprintf(c->name, sizeof(c->name), "%s", e->name);
		c->value = e->value;
		c->bits = 64;
		c->scope = RT_SCOPE_ETHTOOL;
		c->congestion = (__u8)rt_nic_is_congestion(e->name);
	}
	return 0;
}

static void collect_ethtool(struct rt_nic *n, struct rt_snapshot *snap)
{
	const char *failed = NULL;
	int nfail = 0, first_err = 0;
	size_t i, j;

	for (i = 0; i < n->ports.n; i++) {
		const struct rt_rdma_port *p = &n->ports.p[i];
		int r;

		if (!p->netdev[0])
			continue;
		for (j = 0; j < i && strcmp(n->ports.p[j].netdev, p->netdev); j++)
			;
		if (j < i)
			continue;	/* one netdev behind two ports: read once */
		r = ethtool_netdev(n, snap, p->netdev, p->dev, p->port, 0);
		if (r && !nfail++) {
			failed = p->netdev;
			first_err = r;
		}
	}
	for (int k = 0; k < n->nifaces; k++) {
		int r;

		for (j = 0; j < n->ports.n && strcmp(n->ports.p[j].netdev, n->ifaces[k]); j++)
			;
		if (j < n->ports.n)
			continue;	/* already read as an RDMA port's netdev */
		r = ethtool_netdev(n, snap, n->ifaces[k], "", 0, 1);
		if (r && !nfail++) {
			failed = n->ifaces[k];
			first_err = r;
		}
	}
	if (nfail)
		rt_snapshot_note(snap, "ethtool statistics of %s%s unreadable: %s", failed,
				 nfail > 1 ? " and others" : "", strerror(-first_err));
}

static void collect_qps(struct rt_nic *n, struct rt_snapshot *snap)
{
	int r;

	rt_qp_table_clear(&n->qps);
	if (n->root[0] || !n->ports.n)
		return;
	r = rt_rdma_nl_dump(&n->qps);
	if (r) {
		rt_qp_table_clear(&n->qps);
		rt_snapshot_note(snap, "rdma netlink QP table unavailable (%s): flows have no process; "
				 "CNPs attributed from ACKs or per host pair", strerror(-r));
		if (!n->told_netlink++)
			pr_debug("rdma netlink: %s\n", strerror(-r));
		return;
	}
	for (size_t i = 0; i < n->qps.n; i++) {
		struct rt_qp *q = &n->qps.q[i];
		const struct rt_rdma_port *p = rt_rdma_ports_find(&n->ports, q->dev, q->port);

		if (p)
			snprintf(q->netdev, sizeof(q->netdev), "%s", p->netdev);
	}
}

void rt_nic_collect(struct rt_nic *n, struct rt_snapshot *snap)
{
	char ib[PATH_MAX], bad[PATH_MAX + 64];
	int nbad = 0, r;

	if (!n)
		return;
	/* Ports: verbs' (found once), then sysfs for the rest, every interval. */
	n->ports.n = 0;
	for (size_t i = 0; i < n->verbs.n; i++) {
		struct rt_rdma_port *p = rt_rdma_ports_add(&n->ports);

		if (p)
			*p = n->verbs.p[i];
	}
	r = rt_sysfs_discover(n->root, &n->ports);
	rt_sysfs_ib_dir(n->root, ib, sizeof(ib));
	if (!n->ports.n)
		rt_snapshot_note(snap, "no RDMA device: %s: %s%s%s; NIC counters from ethtool only", ib,
				 r < 0 ? strerror(-r) : "empty", n->verbs_why[0] ? "; " : "", n->verbs_why);
	r = rt_sysfs_read_counters(n->root, &n->ports, snap, &nbad, bad, sizeof(bad));
	if (r == -ENOMEM)
		rt_snapshot_note(snap, "out of memory reading the RDMA counters");
	if (nbad)
		rt_snapshot_note(snap, "%d RDMA counter%s unreadable, e.g. %s", nbad, nbad > 1 ? "s" : "",
				 bad);
	collect_ethtool(n, snap);
	collect_qps(n, snap);
	rt_snapshot_sort(snap);
	rt_join(snap, &n->qps);
}
