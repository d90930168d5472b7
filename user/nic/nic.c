// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The NIC's own view, added to every live snapshot:
 *  - RDMA devices and ports: libibverbs first, sysfs for what verbs cannot open;
 *  - their counters from sysfs (ports/<p>/hw_counters, ports/<p>/counters,
 *    <dev>/hw_counters): rows of snap->ports, scope saying which;
 *  - the ethtool statistics (PFC, pause, ECN, CNP, discards, the link's and
 *    PCIe's health) of each netdev behind an RDMA port and of each -i
 *    interface: scope RT_SCOPE_ETHTOOL; its carrier_changes: RT_SCOPE_NETDEV;
 *  - the QP table from rdma netlink, joined into the flows (user/core/join.c);
 *  - the counters bound to QPs (rdma netlink statistics, user/nic/nic_stat.c):
 *    rows of snap->ports of scope RT_SCOPE_QP, and flows of origin
 *    RT_ORIGIN_NIC, one per QP and direction (nic_qpc.c);
 *  - with --qp-counters, automatic per-QP binding for the run (nic_qpc.c),
 *    put back at the end (rt_nic_free) or, after a kill -9, at the next start.
 * With --sysfs-root DIR everything is read below DIR instead: the RDMA tree
 * at DIR/sys/class/infiniband, ethtool statistics from DIR/ethtool/<netdev>
 * (as `ethtool -S` prints them), the kernel's rdma netlink answers from
 * DIR/rdma-netlink/{dev,res_qp,res_cm_id,stat_qp} (the bytes of the dumps);
 * no verbs and no netlink socket then.
 * Whatever is missing or fails becomes a note on the snapshot, never an error.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nic_doctor.h"
#include "jobs.h"
#include "log.h"
#include "nic_int.h"

#define DOC_EVERY 10

const struct rt_doc_findings *rt_nic_doctor(const struct rt_nic *n)
{
	return n ? n->doc_out : NULL;
}

void rt_nic_set_root(struct rt_nic *n, const char *root)
{
	snprintf(n->root_given, sizeof(n->root_given), "%s", root ? root : "");
	snprintf(n->root, sizeof(n->root), "%s", n->root_given);
}

/* A root given as a symbolic link is followed once an interval: every read
 * of the interval is of one tree, even when the link moves meanwhile (a
 * fixture's next state put in place while rocetop runs). */
static void resolve_root(struct rt_nic *n)
{
	char *r;

	if (!n->root_given[0] || !(r = realpath(n->root_given, NULL)))
		return;
	snprintf(n->root, sizeof(n->root), "%s", r);
	free(r);
}

struct rt_nic *rt_nic_new(const struct rt_nic_cfg *c)
{
	struct rt_nic *n = calloc(1, sizeof(*n));

	if (!n) {
		pr_warn("out of memory for the NIC's counters; going on without them.\n");
		return NULL;
	}
	rt_htab_init(&n->acc, sizeof(struct qpc_acc), offsetof(struct qpc_acc, last), 0);
	rt_nic_set_root(n, c->sysfs_root);
	for (int i = 0; i < c->nifaces && i < RT_NIC_MAX_IFACES; i++)
		n->ifaces[n->nifaces++] = c->ifaces[i];
	rt_nl_io_socket(&n->io);
	n->qp_counters = c->qp_counters;
	if (!n->root[0]) {
		char msg[256];
		int r = rt_qpc_recover(&n->io, msg, sizeof(msg));

		/* A rocetop killed with -9 left a binding mode to put back. */
		if (r > 0)
			pr_info("%s.\n", msg);
		else if (r < 0 && (r != -EBUSY || c->qp_counters))
			pr_warn("%s.\n", msg);
		if (r == -EBUSY && c->qp_counters) {
			pr_warn("--qp-counters left to that process: this run only reads.\n");
			n->qp_counters = 0;
		}
		n->verbs_ndev = rt_verbs_discover(&n->verbs, n->verbs_why, sizeof(n->verbs_why));
		if (n->verbs_why[0])
			pr_debug("%s\n", n->verbs_why);
	}
	return n;
}

/* the NIC's own buffers and tables, freed as each sink's close frees its own */
void rt_nic_free(struct rt_nic *n)
{
	if (!n)
		return;
	if (n->ctl && n->ctl->active) {
		int r = rt_qpc_restore(n->ctl);

		if (r)
			pr_warn("could not put back the NIC's per-QP counter mode (%s); the next rocetop "
				"start tries again.\n", strerror(-r));
	}
	free(n->ctl);
	free(n->qpc_old);
	free(n->qps_dump);
	free(n->cm_dump);
	free(n->cm_last);
	free(n->nk);
	free(n->nk_prev);
	free(n->qps_last);
	rt_htab_free(&n->acc);
	free(n->qp_by);
	free(n->nl);
	free(n->doc[0]);
	free(n->doc[1]);
	free(n->doc_out);
	rt_nl_io_close(&n->io);
	rt_qpc_table_free(&n->qpc);
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
	if (rt_sysfs_netdev_counters(n->root, netdev, dev, port, snap) < 0)
		return -ENOMEM;
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
			int f = rt_ethtool_read_fec_nl(netdev, &n->st);

			if (!p || !f)
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

/* A file of the fixture tree's rdma-netlink/ directory, whole (nic_int.h). */
long rt_nic_read_nl_file(struct rt_nic *n, const char *name)
{
	char path[PATH_MAX + 64];
	size_t len = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/rdma-netlink/%s", n->root, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t k;

		if (len == n->nl_cap) {
			size_t cap = n->nl_cap ? n->nl_cap * 2 : 1 << 16;
			void *p = cap <= (256u << 20) ? realloc(n->nl, cap) : NULL;

			if (!p) {
				close(fd);
				return -EFBIG;
			}
			n->nl = p;
			n->nl_cap = cap;
		}
		k = read(fd, n->nl + len, n->nl_cap - len);
		if (k < 0) {
			k = -errno;
			close(fd);
			return k;
		}
		if (!k)
			break;
		len += (size_t)k;
	}
	close(fd);
	return (long)len;
}


/* The QP table from the fixture's recorded answers; 0, or -ENOENT without them. */
static int fixture_qps(struct rt_nic *n)
{
	static const char *const files[] = { "dev", "res_qp", "res_cm_id" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		long len = rt_nic_read_nl_file(n, files[i]);
		int r;

		if (len < 0)
			return (int)len;
		r = rt_rdma_nl_parse(n->nl, (size_t)len, &n->qps);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * A process that exits takes its QPs out of the next dump, though its flows
 * moved in the interval it exited in: the QPs of the last dump that this one
 * lacks stay for this interval, so those flows keep their owner (join.c
 * looks owners up in the table as it is now).
 */
static void keep_gone(struct rt_nic *n)
{
	size_t nraw = n->qps.n, ncm = n->qps.ncm;
	struct rt_qp *raw = malloc((nraw ? nraw : 1) * sizeof(*raw));
	struct rt_qp *cm = malloc((ncm ? ncm : 1) * sizeof(*cm));

	if (!raw || !cm) {
		free(raw);
		free(cm);
		return;
	}
	if (nraw)
		memcpy(raw, n->qps.q, nraw * sizeof(*raw));
	if (ncm)
		memcpy(cm, n->qps.cm, ncm * sizeof(*cm));
	rt_qp_table_keep_gone(&n->qps, n->qps_dump, n->nqps_dump);
	rt_qp_table_keep_gone_cm(&n->qps, n->cm_dump, n->ncm_dump);
	free(n->qps_dump);
	free(n->cm_dump);
	n->qps_dump = raw;
	n->nqps_dump = nraw;
	n->cm_dump = cm;
	n->ncm_dump = ncm;
}

void rt_nic_set_jobs(struct rt_nic *n, struct rt_jobs *J)
{
	if (n)
		n->jobs = J;
}

/* Each QP's owner's job, a row of snap's jobs table (one per pid), in the
 * QP table's order: the same table gives the same rows (join.c compares). */
static void qp_jobs(struct rt_nic *n, struct rt_snapshot *snap)
{
	if (!n->jobs)
		return;
	rt_jobs_interval(n->jobs);
	for (size_t i = 0; i < n->qps.n; i++) {
		struct rt_qp *q = &n->qps.q[i];

		q->job = q->pid ? rt_jobs_row(n->jobs, q->pid, snap) : 0;
	}
	for (size_t i = 0; i < n->qps.ncm; i++) {
		struct rt_qp *q = &n->qps.cm[i];

		q->job = q->pid ? rt_jobs_row(n->jobs, q->pid, snap) : 0;
	}
}

static void collect_qps(struct rt_nic *n, struct rt_snapshot *snap)
{
	int r;

	rt_qp_table_clear(&n->qps);
	if (!n->ports.n)
		return;
	if (n->root[0]) {
		r = fixture_qps(n);
		if (r == -ENOENT) {
			rt_qp_table_clear(&n->qps);
			return;
		}
	} else {
		r = rt_rdma_nl_dump(&n->qps);
	}
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
	keep_gone(n);
	qp_jobs(n, snap);
}

int rt_nic_failed(const struct rt_nic *n)
{
	return n ? n->qpc_fail : 0;
}

static void view_collect(void *nic, struct rt_snapshot *snap)
{
	rt_nic_collect(nic, snap);
}

static int view_failed(const void *nic)
{
	return rt_nic_failed(nic);
}

static const struct rt_doc_findings *view_doctor(const void *nic)
{
	return rt_nic_doctor(nic);
}

struct rt_nic_view rt_nic_view(struct rt_nic *n)
{
	return (struct rt_nic_view){
		.nic = n, .collect = view_collect, .failed = view_failed, .doctor = view_doctor, .qps = n ? &n->qps : NULL,
	};
}

int rt_nic_end(struct rt_nic *n)
{
	if (!n || !n->qp_counters || n->qpc_fail || n->qpc_read || !n->ctl)
		return n ? n->qpc_fail : 0;
	if (!n->qpc_new)	/* else said when seen (rt_nic_qpc_check_bound) */
		pr_warn("--qp-counters: auto mode set on %s, but no QP was created while rocetop ran "
			"(those made before are not bound): no per-QP counter was read.\n", n->qpc_ports);
	return -ENODATA;
}

/* The priorities the wire flows of netdev were seen on: their PCP, else
 * their DSCP through the netdev's APP table when it trusts DSCP. */
static unsigned int seen_prios(const struct rt_snapshot *snap, const struct rt_doc_netdev *d)
{
	unsigned int m = 0;

	for (size_t i = 0; i < snap->nflows; i++) {
		const struct rt_flow *f = &snap->flows[i];
		int p = -1;

		if (f->k.origin != RT_ORIGIN_WIRE || !f->v.pkts ||
		    strcmp(rt_snapshot_ifname(snap, f->k.ifindex), d->netdev))
			continue;
		if (f->v.pcp != RT_PCP_NONE)
			p = f->v.pcp & 7;
		else if (d->dcb.ok && rt_dcb_trust_dscp(&d->dcb))
			p = rt_dcb_app_prio(&d->dcb, f->v.dscp);
		if (p >= 0)
			m |= 1u << p;
	}
	return m;
}

/* Every DOC_EVERY intervals on a host with RDMA ports, the doctor's checks;
 * the first failure stays a note of every snapshot until the next run. */
static void doctor_line(struct rt_nic *n, struct rt_snapshot *snap)
{
	struct rt_doc_host *prev, *cur;
	unsigned int seen = 0;

	if (!n->ports.n)
		return;
	if (n->doc_tick++ % DOC_EVERY == 0) {
		if (!n->doc[0] && (!(n->doc[0] = calloc(1, sizeof(*n->doc[0]))) ||
				   !(n->doc[1] = calloc(1, sizeof(*n->doc[1]))) ||
				   !(n->doc_out = calloc(1, sizeof(*n->doc_out))))) {
			free(n->doc[0]);
			free(n->doc[1]);
			n->doc[0] = n->doc[1] = NULL;
			return;
		}
		prev = n->doc[(n->doc_tick / DOC_EVERY) % 2];
		cur = n->doc[(n->doc_tick / DOC_EVERY + 1) % 2];
		rt_doctor_read(n->root, NULL, cur);
		n->doc_last = cur;
		for (size_t i = 0; i < cur->n; i++)
			seen |= seen_prios(snap, &cur->nd[i]);
		rt_doctor_check(n->doc_tick > 1 ? prev : NULL, cur, seen, n->doc_out);
		n->doc_line[0] = '\0';
		for (size_t i = 0; i < n->doc_out->n; i++)
			if (n->doc_out->f[i].severity == RT_DOC_FAIL) {
				snprintf(n->doc_line, sizeof(n->doc_line), "doctor: %s%s",
					 n->doc_out->failed > 1 ? "(and more: rocetop doctor) " : "",
					 n->doc_out->f[i].sentence);
				break;
			}
	}
	if (n->doc_line[0])
		rt_snapshot_note(snap, "%s", n->doc_line);
	/* The settings of the last reading go with every snapshot (recordings keep them). */
	snap->ncfgs = 0;
	for (size_t i = 0; n->doc_last && i < n->doc_last->n && snap->ncfgs < RT_MAX_CFGS; i++)
		rt_doctor_hostcfg(&n->doc_last->nd[i], &snap->cfgs[snap->ncfgs++]);
}

void rt_nic_collect(struct rt_nic *n, struct rt_snapshot *snap)
{
	char ib[PATH_MAX], bad[PATH_MAX + 64];
	int nbad = 0, r;

	if (!n)
		return;
	resolve_root(n);
	/* Ports: verbs' (found once), the netdevs RDMA netlink names, then
	 * sysfs for the rest, every interval. */
	n->ports.n = 0;
	for (size_t i = 0; i < n->verbs.n; i++) {
		struct rt_rdma_port *p = rt_rdma_ports_add(&n->ports);

		if (p)
			*p = n->verbs.p[i];
	}
	if (!n->root[0])
		rt_rdma_nl_port_netdevs(&n->ports);
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
	if (n->qp_counters && !n->qpc_tried)
		rt_nic_qpc_enable(n, snap);
	rt_nic_collect_qpc(n, snap);
	if (!n->root[0])
		rt_nic_qpc_check_bound(n, snap);
	if (snap->tab)
		rt_nic_flows_gone(n, snap);
	doctor_line(n, snap);
	rt_snapshot_sort(snap);
	/* a whole snapshot is joined whole; the loop's table only where it changed */
	if (snap->tab)
		rt_join_changed(snap, &n->qps, rt_nic_qps_changed(n));
	else
		rt_join(snap, &n->qps);
}
