// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A RoCE host's congestion configuration, read and judged: the part of
 * `rocetop doctor` (user/cmd/doctor.c) that the live view (a line in its
 * header, user/nic/nic.c) and the findings call too. What is read from where
 * is listed in user/cmd/doctor.c; nic_doctor.h has the types.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <infiniband/verbs.h>
#include <linux/dcbnl.h>
#include "nic_doctor.h"
#include "nic.h"

/* ---- reading ---- */

/* snprintf that may cut (paths and names are bounded by their buffers). */
static void sfmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void sfmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int read_ll(const char *path, long long *v)
{
	char buf[64], *end;

	if (read_text(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	*v = strtoll(buf, &end, 0);
	return errno || end == buf ? -1 : 0;
}

static long long ll_at(long long dflt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static long long ll_at(long long dflt, const char *fmt, ...)
{
	char path[PATH_MAX];
	long long v;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return read_ll(path, &v) ? dflt : v;
}

static int active_mtu_verbs(const char *dev, __u32 port)
{
	struct ibv_device **list;
	int n, mtu = -1;

	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n; i++) {
		struct ibv_context *ctx;
		struct ibv_port_attr pa;

		if (strcmp(ibv_get_device_name(list[i]), dev) || !(ctx = ibv_open_device(list[i])))
			continue;
		if (!ibv_query_port(ctx, (uint8_t)port, &pa))
			mtu = 128 << pa.active_mtu;	/* IBV_MTU_256 = 1 ... IBV_MTU_4096 = 5 */
		ibv_close_device(ctx);
	}
	if (list)
		ibv_free_device_list(list);
	return mtu;
}

static int cc_cmp(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);	/* name comes first */
}

static void read_netdev(const char *root, struct rt_doc_netdev *d)
{
	const char *r = root ? root : "";
	char path[PATH_MAX], link[PATH_MAX], buf[1 << 16];
	struct rt_ethtool_stats st = { 0 };
	ssize_t k;
	DIR *dir;
	int e;

	d->mtu = (int)ll_at(-1, "%s/sys/class/net/%s/mtu", r, d->netdev);
	snprintf(path, sizeof(path), "%s/sys/class/net/%s/device", r, d->netdev);
	k = readlink(path, link, sizeof(link) - 1);
	if (k > 0) {
		link[k] = '\0';
		sfmt(d->pci, sizeof(d->pci), "%s", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	}
	/* PFC storm prevention (ethtool tunable; a fixture's in
	 * DIR/ethtool-tunable/IF/pfc-prevention-tout), and the trust mode where
	 * the driver has a file for it (MLNX_OFED's mlx5: qos/trust) */
	if (r[0]) {
		d->pfc_tout = (int)ll_at(-1, "%s/ethtool-tunable/%s/pfc-prevention-tout", r, d->netdev);
	} else {
		e = rt_ethtool_pfc_prevention_tout(d->netdev);
		d->pfc_tout = e < 0 ? -1 : e;
	}
	snprintf(path, sizeof(path), "%s/sys/class/net/%s/qos/trust", r, d->netdev);
	if (!read_text(path, buf, sizeof(d->trust)) && (!strcmp(buf, "pcp") || !strcmp(buf, "dscp")))
		sfmt(d->trust, sizeof(d->trust), "%s", buf);
	for (int p = 0; p < 8; p++) {
		d->np_en[p] = (int)ll_at(-1, "%s/sys/class/net/%s/ecn/roce_np/enable/%d", r, d->netdev, p);
		d->rp_en[p] = (int)ll_at(-1, "%s/sys/class/net/%s/ecn/roce_rp/enable/%d", r, d->netdev, p);
	}
	/* DCB */
	if (r[0]) {
		int fd;

		snprintf(path, sizeof(path), "%s/dcbnl/%s", r, d->netdev);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0) {
			d->dcb_err = -errno;
		} else {
			k = read(fd, buf, sizeof(buf));
			close(fd);
			e = k < 0 ? -errno : rt_dcb_parse(buf, (size_t)k, &d->dcb);
			d->dcb_err = e < 0 ? e : d->dcb.ok ? 0 : -EBADMSG;
		}
	} else {
		d->dcb_err = rt_dcb_query(d->netdev, &d->dcb);
	}
	/* DCQCN parameters (mlx5 debugfs) */
	if (d->pci[0]) {
		snprintf(path, sizeof(path), "%s/sys/kernel/debug/mlx5/%s/cc_params", r, d->pci);
		if ((dir = opendir(path))) {
			struct dirent *de;

			while ((de = readdir(dir)) && d->ncc < RT_DOC_MAX_PARAMS) {
				char f[PATH_MAX + 300];
				long long v;

				if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(d->cc[0].name))
					continue;
				snprintf(f, sizeof(f), "%s/%s", path, de->d_name);
				if (read_ll(f, &v))
					continue;
				snprintf(d->cc[d->ncc].name, sizeof(d->cc[0].name), "%s", de->d_name);
				d->cc[d->ncc++].v = v;
			}
			closedir(dir);
			qsort(d->cc, d->ncc, sizeof(d->cc[0]), cc_cmp);
		}
	}
	/* ethtool: pause frames per priority */
	if (r[0]) {
		snprintf(path, sizeof(path), "%s/ethtool/%s", r, d->netdev);
		e = rt_ethtool_read_file(path, &st);
	} else {
		e = rt_ethtool_read_ioctl(d->netdev, &st);
	}
	if (!e) {
		for (size_t i = 0; i < st.n; i++) {
			unsigned int p;
			char tail[32];

			if (sscanf(st.s[i].name, "rx_prio%u_%31s", &p, tail) == 2 && p < 8 &&
			    !strcmp(tail, "pause")) {
				d->rx_pause[p] = st.s[i].value;
				d->has_ethtool = 1;
			} else if (sscanf(st.s[i].name, "tx_prio%u_%31s", &p, tail) == 2 && p < 8 &&
				   !strcmp(tail, "pause")) {
				d->tx_pause[p] = st.s[i].value;
				d->has_ethtool = 1;
			}
		}
	}
	rt_ethtool_stats_free(&st);
}

/* Which optional counters the port has, and which are on: STAT_GET_STATUS
 * (under a root, the answer's bytes in DIR/rdma-netlink/status). */
static void read_optional(const char *root, struct rt_doc_netdev *d)
{
	struct rt_stat_status *st = calloc(1, sizeof(*st));
	int r;

	if (!st)
		return;
	if (root && *root) {
		char path[PATH_MAX];
		static char buf[1 << 16];
		ssize_t k;
		int fd;

		sfmt(path, sizeof(path), "%s/rdma-netlink/status", root);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0) {
			r = -errno;
		} else {
			k = read(fd, buf, sizeof(buf));
			r = k < 0 ? -errno : rt_stat_status_parse(buf, (size_t)k, st);
			close(fd);
		}
	} else {
		struct rt_nl_io io;

		rt_nl_io_socket(&io);
		r = rt_stat_status_of(&io, d->dev, d->port, st);
		rt_nl_io_close(&io);
	}
	d->opt_err = r < 0 ? r : 0;
	for (size_t i = 0; r >= 0 && i < st->n && d->nopt < sizeof(d->opt) / sizeof(d->opt[0]); i++) {
		if (!st->c[i].optional)
			continue;
		sfmt(d->opt[d->nopt].name, sizeof(d->opt[0].name), "%s", st->c[i].name);
		d->opt[d->nopt++].enabled = st->c[i].enabled;
	}
	free(st);
}

static void read_rdma(const char *root, struct rt_doc_netdev *d)
{
	const char *r = root ? root : "";
	char ib[PATH_MAX], path[PATH_MAX + 128], cm[PATH_MAX + 16], buf[64];
	long long a, b, c;

	rt_sysfs_driver(root, d->dev, d->driver, sizeof(d->driver));
	rt_sysfs_ib_dir(root, ib, sizeof(ib));
	snprintf(path, sizeof(path), "%s/%s/ports/%u/hw_counters", ib, d->dev, d->port);
	a = ll_at(-1, "%s/np_cnp_sent", path);
	b = ll_at(-1, "%s/rp_cnp_handled", path);
	c = ll_at(-1, "%s/rp_cnp_ignored", path);
	if (a >= 0 && b >= 0) {
		d->has_cnp = 1;
		d->np_cnp_sent = (__u64)a;
		d->rp_cnp_handled = (__u64)b;
		d->rp_cnp_ignored = c >= 0 ? (__u64)c : 0;
		c = ll_at(-1, "%s/np_ecn_marked_roce_packets", path);
		d->np_ecn_marked = c >= 0 ? (__u64)c : 0;
	}
	d->active_mtu = r[0] ? (int)ll_at(-1, "%s/verbs/%s/%u/active_mtu", r, d->dev, d->port) :
			       active_mtu_verbs(d->dev, d->port);
	read_optional(root, d);
	/* rdma_cm defaults: the device's directory exists once someone made it */
	d->roce_tos = -1;
	snprintf(cm, sizeof(cm), "%s/sys/kernel/config/rdma_cm", r);
	if (access(cm, F_OK))
		return;		/* configfs or rdma_cm not there: unknown */
	snprintf(path, sizeof(path), "%s/%s/ports/%u", cm, d->dev, d->port);
	if (access(path, F_OK)) {
		/* Never set: the kernel's defaults, RoCE v2 and ToS 0. */
		d->cm_default = 1;
		snprintf(d->roce_mode, sizeof(d->roce_mode), "RoCE v2");
		d->roce_tos = 0;
		return;
	}
	sfmt(cm, sizeof(cm), "%s/default_roce_mode", path);
	if (!read_text(cm, buf, sizeof(buf)))
		sfmt(d->roce_mode, sizeof(d->roce_mode), "%s", buf);
	d->roce_tos = (int)ll_at(-1, "%s/default_roce_tos", path);
}

int rt_doctor_read(const char *root, const char *only, struct rt_doc_host *h)
{
	struct rt_rdma_ports ps = { 0 };
	char ib[PATH_MAX];
	int r;

	memset(h, 0, sizeof(*h));
	/* The port's netdev as RDMA netlink names it, else from the GID table. */
	if (!root || !*root)
		rt_rdma_nl_port_netdevs(&ps);
	r = rt_sysfs_discover(root, &ps);
	for (size_t i = 0; i < ps.n && h->n < RT_DOC_MAX_NETDEVS; i++) {
		const struct rt_rdma_port *p = &ps.p[i];
		struct rt_doc_netdev *d;
		size_t j;

		if (!p->netdev[0] || (only && strcmp(only, p->netdev)))
			continue;
		for (j = 0; j < h->n && strcmp(h->nd[j].netdev, p->netdev); j++)
			;
		if (j < h->n)
			continue;
		d = &h->nd[h->n++];
		snprintf(d->netdev, sizeof(d->netdev), "%s", p->netdev);
		snprintf(d->dev, sizeof(d->dev), "%s", p->dev);
		d->port = p->port;
		read_rdma(root, d);
		read_netdev(root, d);
	}
	if (only && !h->n) {
		struct rt_doc_netdev *d = &h->nd[h->n++];

		snprintf(d->netdev, sizeof(d->netdev), "%s", only);
		d->active_mtu = -1;
		d->roce_tos = -1;
		read_netdev(root, d);
		snprintf(h->note, sizeof(h->note), "%s is behind no RDMA device: only its netdev settings are judged",
			 only);
	}
	if (!h->n) {
		rt_sysfs_ib_dir(root, ib, sizeof(ib));
		if (ps.n)
			sfmt(h->note, sizeof(h->note), "no RDMA port with a netdev (%s, RDMA netlink): "
			     "nothing to judge", ib);
		else
			sfmt(h->note, sizeof(h->note), "no RDMA device on this host (%s: %s): nothing to "
			     "judge; load the NIC's RDMA driver (Soft-RoCE: rdma link add rxe0 type rxe "
			     "netdev IF)", ib, r < 0 ? strerror(-r) : "empty");
	}
	rt_rdma_ports_free(&ps);
	return 0;
}

/* ---- judging ---- */

static struct rt_doc_finding *add(struct rt_doc_findings *o, const char *id, int sev,
				  const char *netdev)
{
	struct rt_doc_finding *f;

	if (o->n == RT_DOC_MAX_FINDINGS)
		return NULL;
	f = &o->f[o->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->id, sizeof(f->id), "%s", id);
	snprintf(f->netdev, sizeof(f->netdev), "%s", netdev);
	f->severity = sev;
	if (sev == RT_DOC_FAIL)
		o->failed++;
	return f;
}

#define SAY(f, field, ...) do { if (f) snprintf((f)->field, sizeof((f)->field), __VA_ARGS__); } while (0)

void rt_doc_prio_list(unsigned int mask, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int p = 0; p < 8 && n + 3 < len; p++)
		if (mask & (1u << p))
			n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", p);
	if (!n)
		snprintf(buf, len, "none");
}

static const struct rt_doc_netdev *find_nd(const struct rt_doc_host *h, const char *netdev)
{
	for (size_t i = 0; h && i < h->n; i++)
		if (!strcmp(h->nd[i].netdev, netdev))
			return &h->nd[i];
	return NULL;
}

/* 1 when the NIC trusts DSCP: its qos/trust file where it has one, else
 * DSCP entries in the APP table (mlx5 upstream switches to DSCP with them). */
static int trusts_dscp(const struct rt_doc_netdev *d)
{
	if (d->trust[0])
		return !strcmp(d->trust, "dscp");
	return rt_dcb_trust_dscp(&d->dcb);
}

/* The priority RoCE traffic of rdma_cm takes, -1 unknown; how, in why. */
static int roce_prio(const struct rt_doc_netdev *d, char *why, size_t len)
{
	int dscp, p;

	if (d->roce_tos < 0 || !d->dcb.ok)
		return -1;
	dscp = d->roce_tos >> 2;
	if (!trusts_dscp(d))
		return -1;
	p = rt_dcb_app_prio(&d->dcb, (unsigned int)dscp);
	if (p >= 0) {
		snprintf(why, len, "rdma_cm default ToS %d%s = DSCP %d, mapped to priority %d by the APP table",
			 d->roce_tos, d->cm_default ? " (never set)" : "", dscp, p);
		return p;
	}
	/* Not in the APP table: mlx5's default DSCP map puts DSCP d on priority d >> 3. */
	snprintf(why, len, "rdma_cm default ToS %d%s = DSCP %d, not in the APP table: priority %d by default",
		 d->roce_tos, d->cm_default ? " (never set)" : "", dscp, dscp >> 3);
	return dscp >> 3;
}

/* The DCB answer's PFC: *pfc 1 when there is one, and the priorities it is on. */
static unsigned int pfc_on(const struct rt_doc_netdev *d, int *pfc)
{
	*pfc = d->dcb.ok && d->dcb.has_pfc;
	return *pfc ? d->dcb.pfc_en : 0;
}

/* PFC against the priority RoCE takes: off everywhere, off on RoCE's
 * priority, PCP trusted with no PFC on 0, off where RoCE was seen. */
static void check_pfc(struct rt_doc_findings *o, const struct rt_doc_netdev *d, unsigned int seen_prios)
{
	const char *nd = d->netdev;
	struct rt_doc_finding *f;
	char l1[32], l2[32], why[160];
	int pfc, p;
	unsigned int en = pfc_on(d, &pfc);

	if (pfc && !en) {
		f = add(o, "pfc-off", RT_DOC_WARN, nd);
		SAY(f, sentence, "%s: PFC is off on every priority: RoCE runs lossy, which needs ECN "
		    "marking and the NIC's lossy-RoCE support; enable PFC on RoCE's priority otherwise.", nd);
		SAY(f, evidence, "DCB IEEE PFC pfc_en 0x00 (pfc_cap %u)", d->dcb.pfc_cap);
	}
	p = roce_prio(d, why, sizeof(why));
	if (pfc && en && p >= 0 && !(en & (1u << p))) {
		rt_doc_prio_list(en, l1, sizeof(l1));
		f = add(o, "roce-prio-no-pfc", RT_DOC_FAIL, nd);
		SAY(f, sentence, "%s: RoCE traffic goes on priority %d, which has no PFC (PFC is on %s): "
		    "set rdma_cm's default_roce_tos or the DSCP map to a PFC priority, or enable PFC on %d.",
		    nd, p, l1, p);
		SAY(f, evidence, "%s; DCB IEEE PFC pfc_en 0x%02x", why, en);
	}
	if (pfc && en && !trusts_dscp(d) && (d->trust[0] || d->dcb.has_app) && !(en & 1u)) {
		rt_doc_prio_list(en, l1, sizeof(l1));
		f = add(o, "trust-pcp", RT_DOC_WARN, nd);
		SAY(f, sentence, "%s trusts PCP, not DSCP (%s): untagged RoCE traffic goes on priority 0, "
		    "which has no PFC; trust DSCP (dcb app add dev %s dscp-prio DSCP:PRIO, or mlnx_qos -i %s "
		    "--trust dscp) or tag the traffic.", nd, d->trust[0] ? "its qos/trust file" :
		    "no DSCP entry in the APP table", nd, nd);
		if (d->trust[0])
			SAY(f, evidence, "/sys/class/net/%s/qos/trust = %s; PFC on %s", nd, d->trust, l1);
		else
			SAY(f, evidence, "DCB APP table: %zu entries, none with selector DSCP (5); PFC on %s",
			    d->dcb.napp, l1);
		SAY(f, check, d->trust[0] ? "cat /sys/class/net/%s/qos/trust" : "dcb app show dev %s", nd);
	}
	if (pfc && en && (seen_prios & ~en & 0xff)) {
		rt_doc_prio_list(seen_prios & ~en, l1, sizeof(l1));
		rt_doc_prio_list(en, l2, sizeof(l2));
		f = add(o, "seen-prio-no-pfc", RT_DOC_FAIL, nd);
		SAY(f, sentence, "%s: RoCE packets were seen on priority %s, which has no PFC.", nd, l1);
		SAY(f, evidence, "wire PCP/DSCP of the flows; PFC on %s", l2);
	}
}

/* Pause frames (ethtool's per-priority counters, their growth since before
 * when there is a before) on priorities where this host has PFC off. */
static void check_pauses(struct rt_doc_findings *o, const struct rt_doc_netdev *d,
			 const struct rt_doc_netdev *b)
{
	const char *nd = d->netdev;
	struct rt_doc_finding *f;
	char l1[32], l2[32];
	int pfc, q;
	unsigned int en = pfc_on(d, &pfc), pauses = 0;

	for (q = 0; q < 8 && d->has_ethtool; q++) {
		__u64 rx = d->rx_pause[q], tx = d->tx_pause[q];

		if (b && b->has_ethtool) {
			rx = rx >= b->rx_pause[q] ? rx - b->rx_pause[q] : rx;
			tx = tx >= b->tx_pause[q] ? tx - b->tx_pause[q] : tx;
		}
		if (rx || tx)
			pauses |= 1u << q;
	}
	if (!pfc || !(pauses & ~en))
		return;
	q = __builtin_ctz(pauses & ~en);
	rt_doc_prio_list(pauses & ~en, l1, sizeof(l1));
	rt_doc_prio_list(en, l2, sizeof(l2));
	f = add(o, "pause-prio-no-pfc", RT_DOC_FAIL, nd);
	SAY(f, sentence, "%s: PFC pause frames %s on priority %s, where this host has PFC off "
	    "(on: %s): the switch and the host disagree on the lossless priority.", nd,
	    b ? "are moving" : "were counted", l1, l2);
	SAY(f, evidence, "ethtool rx_prio%d_pause %llu, tx_prio%d_pause %llu%s", q,
	    (unsigned long long)d->rx_pause[q], q, (unsigned long long)d->tx_pause[q],
	    b ? " (growing)" : "");
}

/* PFC storm prevention on a netdev with PFC: off (0), a host that stops
 * draining pauses its switch port, and the fabric behind it, without end. */
static void check_storm(struct rt_doc_findings *o, const struct rt_doc_netdev *d)
{
	const char *nd = d->netdev;
	struct rt_doc_finding *f;
	char l1[32];
	int pfc;
	unsigned int en = pfc_on(d, &pfc);

	if (!en || d->pfc_tout != PFC_STORM_PREVENTION_DISABLE)
		return;
	rt_doc_prio_list(en, l1, sizeof(l1));
	f = add(o, "pfc-storm-prevention-off", RT_DOC_FAIL, nd);
	SAY(f, sentence, "%s: PFC on %s but PFC storm prevention off: a host that stops draining "
	    "pauses the fabric behind its switch port for as long as it is stuck; turn it on: "
	    "ethtool --set-tunable %s pfc-prevention-tout auto", nd, l1, nd);
	SAY(f, evidence, "ethtool tunable pfc-prevention-tout = 0 (off); DCB IEEE PFC pfc_en 0x%02x", en);
	SAY(f, check, "ethtool --get-tunable %s pfc-prevention-tout", nd);
}

/* ECN's notification and reaction points on every priority with PFC. */
static void check_ecn(struct rt_doc_findings *o, const struct rt_doc_netdev *d)
{
	const char *nd = d->netdev;
	struct rt_doc_finding *f;
	int pfc;
	unsigned int en = pfc_on(d, &pfc);

	for (int q = 0; q < 8; q++) {
		if (!(en & (1u << q)) || (d->np_en[q] != 0 && d->rp_en[q] != 0))
			continue;
		f = add(o, "pfc-ecn-off", RT_DOC_FAIL, nd);
		SAY(f, sentence, "%s: priority %d has PFC but ECN is off for the %s: congestion will "
		    "pause the fabric instead of slowing the sender; echo 1 > the enable file(s).", nd, q,
		    d->np_en[q] == 0 && d->rp_en[q] == 0 ? "notification and reaction points" :
		    d->np_en[q] == 0 ? "notification point (no CNPs sent)" :
		    "reaction point (CNPs ignored: DCQCN off)");
		SAY(f, evidence, "ecn/roce_np/enable/%d = %d, ecn/roce_rp/enable/%d = %d", q, d->np_en[q], q,
		    d->rp_en[q]);
		SAY(f, check, "cat /sys/class/net/%s/ecn/roce_np/enable/%d /sys/class/net/%s/ecn/roce_rp/enable/%d",
		    nd, q, nd, q);
	}
}

/* The host's CNPs over its ports, for cnp-unhandled. */
struct cnp_tally {
	__u64 sent, handled;
	int all;		/* every RDMA port's hw_counters were read */
};

/* CNPs received and ignored (DCQCN off at this sender); the port's CNPs
 * sent and handled added to t. */
static void check_cnp(struct rt_doc_findings *o, const struct rt_doc_netdev *d,
		      const struct rt_doc_netdev *b, struct cnp_tally *t)
{
	const char *nd = d->netdev;
	struct rt_doc_finding *f;
	__u64 ign = d->rp_cnp_ignored, grew = 0;

	if (!d->has_cnp) {
		if (d->dev[0])
			t->all = 0;
		return;
	}
	if (b && b->has_cnp)
		grew = ign >= b->rp_cnp_ignored ? ign - b->rp_cnp_ignored : ign;
	if (grew || (!b && ign)) {
		f = add(o, "cnp-ignored", b ? RT_DOC_FAIL : RT_DOC_WARN, nd);
		SAY(f, sentence, "%s (%s/%u) %s CNPs it received: congestion control is off at this "
		    "sender (ecn/roce_rp/enable, or DCQCN disabled in the firmware).", nd, d->dev,
		    d->port, b ? "keeps ignoring" : "has ignored");
		SAY(f, evidence, "hw_counters rp_cnp_ignored %llu%s", (unsigned long long)ign,
		    b ? "" : " (one reading)");
		if (b && f)
			snprintf(f->evidence + strlen(f->evidence), sizeof(f->evidence) - strlen(f->evidence),
				 " (+%llu since the first reading)", (unsigned long long)grew);
	}
	t->sent += b && b->has_cnp ? d->np_cnp_sent - (d->np_cnp_sent >= b->np_cnp_sent ?
						       b->np_cnp_sent : 0) : d->np_cnp_sent;
	t->handled += d->rp_cnp_handled;
}

/* rdma_cm's RoCE mode, and the RDMA MTU against the netdev's. */
static void check_roce(struct rt_doc_findings *o, const struct rt_doc_netdev *d)
{
	const char *nd = d->netdev;
	struct rt_doc_finding *f;

	if (d->roce_mode[0] && strstr(d->roce_mode, "v1") && !strstr(d->roce_mode, "v2")) {
		f = add(o, "roce-v1", RT_DOC_FAIL, nd);
		SAY(f, sentence, "%s (%s/%u): rdma_cm's default RoCE mode is v1, which is not routable "
		    "and carries no ECN: write \"RoCE v2\" to default_roce_mode.", nd, d->dev, d->port);
		SAY(f, evidence, "configfs rdma_cm/%s/ports/%u/default_roce_mode = \"%s\"", d->dev, d->port,
		    d->roce_mode);
	}
	/* Too big: not even the fewest headers (rxe's 80 bytes) fit under the netdev's MTU. */
	if (d->active_mtu > 0 && d->mtu > 0 && (d->active_mtu < rt_roce_mtu_for(d->mtu) ||
						 d->active_mtu + 80 > d->mtu)) {
		int fits = rt_roce_mtu_for(d->mtu);

		f = add(o, "rdma-mtu", RT_DOC_FAIL, nd);
		if (d->active_mtu < fits)
			SAY(f, sentence, "%s (%s/%u): the RDMA MTU is %d while the netdev's MTU %d allows %d: "
			    "messages take more packets than they need (check the peers' MTU too).", nd, d->dev,
			    d->port, d->active_mtu, d->mtu, fits);
		else
			SAY(f, sentence, "%s (%s/%u): the RDMA MTU %d does not fit the netdev's MTU %d (%d with "
			    "RoCE's 96 bytes of headers): raise the netdev's MTU (ip link set %s mtu %d) or expect "
			    "drops of full-size packets.", nd, d->dev, d->port, d->active_mtu, d->mtu,
			    fits, nd, d->active_mtu + 96);
		SAY(f, evidence, "active_mtu %d, /sys/class/net/%s/mtu %d", d->active_mtu, nd, d->mtu);
		SAY(f, check, "ibv_devinfo -d %s -i %u | grep active_mtu; ip link show %s", d->dev, d->port, nd);
	}
}

void rt_doctor_check(const struct rt_doc_host *before, const struct rt_doc_host *now,
		     unsigned int seen_prios, struct rt_doc_findings *o)
{
	struct cnp_tally t = { .all = now->n > 0 };

	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < now->n; i++) {
		const struct rt_doc_netdev *d = &now->nd[i];
		const struct rt_doc_netdev *b = find_nd(before, d->netdev);

		check_pfc(o, d, seen_prios);
		check_pauses(o, d, b);
		check_ecn(o, d);
		check_storm(o, d);
		check_cnp(o, d, b, &t);
		check_roce(o, d);
	}
	if (now->n && t.all && t.sent && !t.handled) {
		struct rt_doc_finding *f = add(o, "cnp-unhandled", RT_DOC_WARN, "");

		SAY(f, sentence, "this host sent %llu CNPs and no port of it handled one: if the senders "
		    "are hosts of this fabric, check that their reaction point (DCQCN) is on.",
		    (unsigned long long)t.sent);
		SAY(f, evidence, "hw_counters np_cnp_sent %llu%s, rp_cnp_handled 0 on every port",
		    (unsigned long long)t.sent, before ? " (since the first reading)" : "");
	}
}

/* ---- the settings a snapshot and a recording carry (user/core/hostcfg.h) ---- */

void rt_doctor_hostcfg(const struct rt_doc_netdev *d, struct rt_hostcfg *c)
{
	char why[160];

	rt_hostcfg_init(c);
	snprintf(c->netdev, sizeof(c->netdev), "%s", d->netdev);
	snprintf(c->dev, sizeof(c->dev), "%s", d->dev);
	snprintf(c->pci, sizeof(c->pci), "%s", d->pci);
	c->port = d->port;
	c->mtu = d->mtu;
	c->active_mtu = d->active_mtu;
	c->pfc_known = d->dcb.ok && d->dcb.has_pfc;
	c->pfc_en = c->pfc_known ? d->dcb.pfc_en : 0;
	c->app_known = d->dcb.ok || d->trust[0];
	c->trusts_dscp = (__u8)trusts_dscp(d);
	for (unsigned int q = 0; q < 64; q++) {
		int p = d->dcb.ok ? rt_dcb_app_prio(&d->dcb, q) : -1;

		c->dscp_prio[q] = p >= 0 && p < 8 ? (__u8)p : 0xff;
	}
	for (int q = 0; q < 8; q++) {
		c->np_en[q] = (__s8)(d->np_en[q] < 0 ? -1 : d->np_en[q] > 0);
		c->rp_en[q] = (__s8)(d->rp_en[q] < 0 ? -1 : d->rp_en[q] > 0);
	}
	c->pfc_tout = d->pfc_tout;
	c->roce_tos = d->roce_tos;
	c->roce_prio = roce_prio(d, why, sizeof(why));
	for (size_t i = 0; i < d->ncc; i++)
		for (int k = 0; k < RT_CC__N; k++)
			if (!strcmp(d->cc[i].name, rt_cc_param_names[k]))
				c->cc[k] = d->cc[i].v;
}
