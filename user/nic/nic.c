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
 *    RT_ORIGIN_NIC, one per QP and direction, carrying what a wire flow has
 *    where the NIC counts it (CE: cc_rx_ce_pkts; CNPs: cc_rx_cnp_pkts in,
 *    cc_tx_cnp_pkts out; packets and bytes: rdma_{rx,tx}_{packets,bytes});
 *  - with --qp-counters, automatic per-QP binding for the run, put back at
 *    the end (rt_nic_free) or, after a kill -9, at the next start.
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
#include "nic.h"

struct qpc_acc {
	__u32 dev_index, counter_id;
	char name[64];			/* zero-padded: the key ends here */
	__u64 last, total;
	int seen;
};

struct rt_nic {
	char root[PATH_MAX];		/* "" for the real host */
	const char *ifaces[RT_NIC_MAX_IFACES];
	int nifaces;
	struct rt_rdma_ports verbs;	/* found once by libibverbs */
	int verbs_ndev;
	char verbs_why[128];
	struct rt_rdma_ports ports;	/* this interval's: verbs + sysfs */
	struct rt_qp_table qps;
	struct rt_ethtool_stats st;
	int told_netlink;
	struct rt_qpc_table qpc;	/* this interval's per-QP counters */
	struct rt_nl_io io;
	int qp_counters;		/* --qp-counters: 1, =cc: 2 */
	int qpc_tried;			/* binding asked for once */
	char qpc_why[200];		/* what --qp-counters could not do */
	struct rt_qpc_ctl *ctl;
	/* --qp-counters' outcome: qpc_fail < 0 when no port binds QPs by type
	 * (the run ends, non-zero); once binding is on, the QPs there were then
	 * (the kernel binds only QPs made after), whether a bound counter was
	 * ever read, and QPs made since that got none (rxe binds none at all). */
	int qpc_fail, qpc_read;
	__u64 *qpc_old;			/* dev_index << 32 | lqpn, sorted */
	size_t nqpc_old;
	size_t qpc_new;			/* user QPs made since, none bound */
	char qpc_ports[96];		/* "rxe0/1" ..., the ports binding by type */
	/* Per bound counter and name: the NIC flows count from rocetop's start,
	 * as wire flows do, so each keeps the raw value last seen and a total. */
	/* What each bound counter counted since first seen, keyed by device,
	 * counter and name (the first bytes of struct qpc_acc). */
	struct rt_htab acc;
	const struct rt_qp **qp_by;	/* n->qps by device and lqpn, this interval */
	size_t nqp_by, qp_by_cap;
	/* What the width table and the congestion list say of a QP counter's
	 * name, for the driver memo_drv: a bound counter has a handful of names. */
	char memo_drv[64];
	struct { char name[64]; __u8 bits, congestion; } memo[32];
	size_t nmemo;
	char *nl;			/* a fixture's netlink answer */
	size_t nl_cap;
	/* The doctor's checks (user/nic/nic_doctor.c), every DOC_EVERY intervals:
	 * the first failing one is a line of the view's header. */
	struct rt_doc_host *doc[2];
	struct rt_doc_findings *doc_out;
	const struct rt_doc_host *doc_last;	/* the last reading, for the snapshots' settings */
	unsigned int doc_tick;
	char doc_line[160];
	/* Over the loop's persistent table (stream.c): the NIC flows' keys of
	 * this interval and of the last (the rows of counters gone are removed),
	 * and the QP table of the last join (the same one again: only the rows
	 * that changed are joined, join.c). */
	struct rt_flow_key *nk, *nk_prev;
	size_t nnk, nk_cap, nnk_prev, nk_prev_cap;
	struct rt_qp *qps_last;
	size_t nqps_last, qps_last_cap;
	/* The last dump as the kernel gave it: its QPs gone from the next
	 * dump are kept for that interval (rt_qp_table_keep_gone). */
	struct rt_qp *qps_dump;
	size_t nqps_dump;
	struct rt_qp *cm_dump, *cm_last;	/* the same of its CM IDs without a QP */
	size_t ncm_dump, ncm_last, cm_last_cap;
	int joined;
	struct rt_jobs *jobs;		/* the owners' jobs, NULL: none (rt_nic_set_jobs) */
};

#define DOC_EVERY 10

const struct rt_doc_findings *rt_nic_doctor(const struct rt_nic *n)
{
	return n ? n->doc_out : NULL;
}

void rt_nic_set_root(struct rt_nic *n, const char *root)
{
	snprintf(n->root, sizeof(n->root), "%s", root ? root : "");
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

/* A file of the fixture tree's rdma-netlink/ directory, whole, into n->nl
 * (grown as needed, up to 256 MiB); its length, or -errno. */
static long read_nl_file(struct rt_nic *n, const char *name)
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
		long len = read_nl_file(n, files[i]);
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

static void qpc_remember_old(struct rt_nic *n);

/* --qp-counters: once, when the ports and devices are known. */
static void qpc_enable(struct rt_nic *n, struct rt_snapshot *snap)
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
static void qpc_check_bound(struct rt_nic *n, struct rt_snapshot *snap)
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
	if (!n->qpc_new)	/* else said when seen (qpc_check_bound) */
		pr_warn("--qp-counters: auto mode set on %s, but no QP was created while rocetop ran "
			"(those made before are not bound): no per-QP counter was read.\n", n->qpc_ports);
	return -ENODATA;
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
 * moved, its key kept for nic_flows_gone. 0 or -ENOMEM.
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
static void nic_flows_gone(struct rt_nic *n, struct rt_snapshot *snap)
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
static int qps_changed(struct rt_nic *n)
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
static void collect_qpc(struct rt_nic *n, struct rt_snapshot *snap)
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
		long len = read_nl_file(n, "stat_qp");

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
		qpc_enable(n, snap);
	collect_qpc(n, snap);
	if (!n->root[0])
		qpc_check_bound(n, snap);
	if (snap->tab)
		nic_flows_gone(n, snap);
	doctor_line(n, snap);
	rt_snapshot_sort(snap);
	/* a whole snapshot is joined whole; the loop's table only where it changed */
	if (snap->tab)
		rt_join_changed(snap, &n->qps, qps_changed(n));
	else
		rt_join(snap, &n->qps);
}
