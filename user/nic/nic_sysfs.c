// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * RDMA devices, ports and counters from sysfs:
 *   <root>/sys/class/infiniband/<dev>/ports/<p>/{link_layer,state,rate}
 *   <root>/sys/class/infiniband/<dev>/ports/<p>/gid_attrs/{ndevs,types}/<index>
 *   <root>/sys/class/infiniband/<dev>/ports/<p>/hw_counters/<name>   64-bit
 *   <root>/sys/class/infiniband/<dev>/ports/<p>/counters/<name>      IB PortCounters
 *   <root>/sys/class/infiniband/<dev>/hw_counters/<name>             device-level
 *   <root>/sys/class/net/<netdev>/carrier_changes                    the netdev's
 * One decimal number per counter file. A missing file is normal; a file that
 * cannot be read or holds no number is counted and reported, never fatal.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdarg.h>
#include "nic.h"

/* snprintf that may truncate without a word: names and paths are bounded by
 * their buffers, and a truncated path merely fails to open. */
__attribute__((format(printf, 3, 4)))
static int fmt_to(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return r;
}

void rt_rdma_ports_free(struct rt_rdma_ports *ps)
{
	free(ps->p);
	memset(ps, 0, sizeof(*ps));
}

struct rt_rdma_port *rt_rdma_ports_add(struct rt_rdma_ports *ps)
{
	return rt_append((void **)&ps->p, &ps->n, &ps->cap, sizeof(*ps->p));
}

struct rt_rdma_port *rt_rdma_ports_find(struct rt_rdma_ports *ps, const char *dev, __u32 port)
{
	for (size_t i = 0; i < ps->n; i++)
		if (ps->p[i].port == port && !strcmp(ps->p[i].dev, dev))
			return &ps->p[i];
	return NULL;
}

void rt_sysfs_ib_dir(const char *root, char *buf, size_t len)
{
	fmt_to(buf, len, "%s/sys/class/infiniband", root && *root ? root : "");
}

/*
 * Read a small file into buf without its trailing white space. Length or
 * -errno. A hostile --sysfs-root must not stall the collector: no link is
 * followed at the last step (sysfs attributes are regular files), a FIFO is
 * not waited for (O_NONBLOCK), anything but a regular file is refused, and
 * one read of at most len - 1 bytes is all that is taken.
 */
static int read_small(const char *path, char *buf, size_t len)
{
	struct stat st;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	r = read(fd, buf, len - 1);
	if (r < 0) {
		r = -errno;
		close(fd);
		return (int)r;
	}
	close(fd);
	while (r > 0 && (buf[r - 1] == '\n' || buf[r - 1] == ' ' || buf[r - 1] == '\t'))
		r--;
	buf[r] = '\0';
	return (int)r;
}

/* One decimal counter. 0, or -errno (-EINVAL: not a number). */
static int read_counter(const char *path, __u64 *v)
{
	char buf[64], *end;
	unsigned long long x;
	int r = read_small(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	if (!r || buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(buf, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

static int is_number(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * The netdev behind a port from sysfs: the ndev of its first RoCE v2 GID,
 * else of its first GID with any. Every entry of the GID table is looked at:
 * rxe's has 1024, almost all unused, and the used ones may sit anywhere in it
 * (tests/fixtures/sysfs/rxe-host: at 370 and 928). Reading an unused entry
 * fails (EINVAL) on real hosts. RDMA netlink's port query names the netdev
 * directly (rt_rdma_nl_port_netdevs); this is the way without it.
 */
static void port_netdev(const char *pdir, char *out, size_t outlen)
{
	char path[PATH_MAX], nd[64], ty[64];
	unsigned long *idx = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	int pass;
	DIR *d;

	fmt_to(path, sizeof(path), "%s/gid_attrs/ndevs", pdir);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!is_number(de->d_name) || strlen(de->d_name) > 9)
			continue;
		if (n == cap) {
			unsigned long *x = realloc(idx, (cap ? cap * 2 : 64) * sizeof(*idx));

			if (!x)
				break;	/* what was read so far is looked at */
			idx = x;
			cap = cap ? cap * 2 : 64;
		}
		idx[n++] = strtoul(de->d_name, NULL, 10);
	}
	closedir(d);
	if (n)
		qsort(idx, n, sizeof(idx[0]), cmp_ulong);
	for (pass = 0; pass < 2 && !*out; pass++)
		for (i = 0; i < n && !*out; i++) {
			fmt_to(path, sizeof(path), "%s/gid_attrs/ndevs/%lu", pdir, idx[i]);
			if (read_small(path, nd, sizeof(nd)) <= 0)
				continue;
			if (!pass) {
				fmt_to(path, sizeof(path), "%s/gid_attrs/types/%lu", pdir, idx[i]);
				if (read_small(path, ty, sizeof(ty)) <= 0 || strcasecmp(ty, "RoCE v2"))
					continue;
			}
			fmt_to(out, outlen, "%s", nd);
		}
	free(idx);
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int rt_sysfs_discover(const char *root, struct rt_rdma_ports *ps)
{
	char ib[PATH_MAX], path[PATH_MAX], buf[64];
	struct dirent *de, *pe;
	int ndev = 0;
	DIR *d, *pd;

	rt_sysfs_ib_dir(root, ib, sizeof(ib));
	d = opendir(ib);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(ps->p[0].dev))
			continue;
		fmt_to(path, sizeof(path), "%s/%s/ports", ib, de->d_name);
		if (!is_dir(path))
			continue;
		ndev++;
		pd = opendir(path);
		if (!pd)
			continue;
		while ((pe = readdir(pd))) {
			char pdir[PATH_MAX];
			struct rt_rdma_port *p;
			__u32 pn;

			if (!is_number(pe->d_name))
				continue;
			pn = (__u32)strtoul(pe->d_name, NULL, 10);
			p = rt_rdma_ports_find(ps, de->d_name, pn);
			if (!p && !(p = rt_rdma_ports_add(ps)))
				break;
			fmt_to(p->dev, sizeof(p->dev), "%s", de->d_name);
			p->port = pn;
			if (fmt_to(pdir, sizeof(pdir), "%s/%s", path, pe->d_name) >= (int)sizeof(pdir))
				continue;
			if (!p->link_layer[0]) {
				char f[PATH_MAX + 16];

				fmt_to(f, sizeof(f), "%s/link_layer", pdir);
				if (read_small(f, buf, sizeof(buf)) > 0)
					fmt_to(p->link_layer, sizeof(p->link_layer), "%s", buf);
			}
			if (!p->state[0]) {
				char f[PATH_MAX + 16], *c;

				/* "4: ACTIVE" */
				fmt_to(f, sizeof(f), "%s/state", pdir);
				if (read_small(f, buf, sizeof(buf)) > 0) {
					c = strchr(buf, ':');
					c = c ? c + 1 : buf;
					while (*c == ' ')
						c++;
					fmt_to(p->state, sizeof(p->state), "%s", c);
				}
			}
			if (!p->rate[0]) {
				char f[PATH_MAX + 16];

				fmt_to(f, sizeof(f), "%s/rate", pdir);
				if (read_small(f, buf, sizeof(buf)) > 0)
					fmt_to(p->rate, sizeof(p->rate), "%s", buf);
			}
			if (!p->netdev[0])
				port_netdev(pdir, p->netdev, sizeof(p->netdev));
		}
		closedir(pd);
	}
	closedir(d);
	return ndev;
}

/* counters/ holds the classic 32-bit PortCounters (the small error counters
 * of 4-16 bits saturate rather than wrap); whether a driver's reload or a
 * wrap brought one down is told by the plausibility rule (RT_BITS_NIC). */
static const char *const ext_only[] = {
	"unicast_xmit_packets", "unicast_rcv_packets",
	"multicast_xmit_packets", "multicast_rcv_packets",
};

/*
 * hw_counters whose width the driver is known to keep. mlx5 reads its Q
 * counters (per port, and per bound QP counter) from a block of 32-bit
 * fields, and its congestion and op counters from 64-bit ones. A name of
 * neither list, or of another driver, is RT_BITS_NIC: wrapped only when
 * plausible (man/rocetop.8, NIC COUNTERS).
 */
struct width_rule {
	const char *driver;	/* prefix of the driver's (or device's) name */
	unsigned int bits;
	const char *const *names;
};

static const char *const mlx5_q32[] = {
	"rx_write_requests", "rx_read_requests", "rx_atomic_requests", "rx_dct_connect",
	"out_of_buffer", "out_of_sequence", "duplicate_request", "rnr_nak_retry_err",
	"packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err",
	"resp_local_length_error", "resp_cqe_error", "req_cqe_error",
	"req_remote_invalid_request", "req_remote_access_errors", "resp_remote_access_errors",
	"resp_cqe_flush_error", "req_cqe_flush_error", "roce_adp_retrans", "roce_adp_retrans_to",
	"roce_slow_restart", "roce_slow_restart_cnps", "roce_slow_restart_trans",
	"rx_icrc_encapsulated", "req_transport_retries_exceeded", "req_rnr_retries_exceeded",
	NULL,
};

static const char *const mlx5_64[] = {
	"rp_cnp_ignored", "rp_cnp_handled", "np_ecn_marked_roce_packets", "np_cnp_sent",
	"cc_rx_ce_pkts", "cc_rx_cnp_pkts", "cc_tx_cnp_pkts", "rdma_tx_packets", "rdma_tx_bytes",
	"rdma_rx_packets", "rdma_rx_bytes", NULL,
};

static const struct width_rule width_rules[] = {
	{ "mlx5", RT_BITS_32, mlx5_q32 },
	{ "mlx5", RT_BITS_64, mlx5_64 },
};

unsigned int rt_nic_ctr_bits(const char *driver, int scope, const char *name, __u64 value)
{
	if (scope == RT_SCOPE_ETHTOOL)
		return RT_BITS_64;
	if (scope == RT_SCOPE_PORT) {
		for (size_t i = 0; i < sizeof(ext_only) / sizeof(ext_only[0]); i++)
			if (!strcmp(name, ext_only[i]))
				return RT_BITS_64;
		/* A device with PortCountersExtended shows the 64-bit port_xmit_data &c.
		 * under the same names: a value past 32 bits gives it away. */
		return value > 0xffffffffULL ? RT_BITS_64 : RT_BITS_NIC;
	}
	for (size_t i = 0; driver && i < sizeof(width_rules) / sizeof(width_rules[0]); i++) {
		const struct width_rule *w = &width_rules[i];

		if (strncmp(driver, w->driver, strlen(w->driver)))
			continue;
		for (size_t j = 0; w->names[j]; j++)
			if (!strcmp(name, w->names[j]))
				return w->bits;
	}
	return RT_BITS_NIC;
}

void rt_sysfs_driver(const char *root, const char *dev, char *out, size_t len)
{
	char ib[PATH_MAX], path[PATH_MAX + 64], link[PATH_MAX];
	ssize_t n;

	rt_sysfs_ib_dir(root, ib, sizeof(ib));
	fmt_to(path, sizeof(path), "%s/%s/device/driver", ib, dev);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		const char *b;

		link[n] = '\0';
		b = strrchr(link, '/');
		fmt_to(out, len, "%s", b ? b + 1 : link);
		return;
	}
	/* No link (a fixture, or a device without a bus): the kernel's name for
	 * the device starts with its driver's (mlx5_0, bnxt_re0, irdma0, rxe0). */
	fmt_to(out, len, "%s", dev);
}

static const char *const congestion_names[] = {
	/* mlx5, ARCHITECTURE.md's list */
	"np_cnp_sent", "np_ecn_marked_roce_packets", "rp_cnp_handled", "rp_cnp_ignored",
	"out_of_sequence", "packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err",
	"rnr_nak_retry_err", "roce_adp_retrans", "roce_adp_retrans_to",
	/* their kin in other drivers (bnxt_re, irdma) */
	"seq_err_naks_rcvd", "rnr_naks_rcvd", "to_retransmits",
};

int rt_nic_is_congestion(const char *name)
{
	for (size_t i = 0; i < sizeof(congestion_names) / sizeof(congestion_names[0]); i++)
		if (!strcmp(name, congestion_names[i]))
			return 1;
	if (!strncmp(name, "roce_slow_restart", 17))
		return 1;
	/* ethtool: PFC and pause (rx_prio3_pause, tx_pause_storm_*, *_pause_ctrl_phy) */
	if (strstr(name, "pause"))
		return 1;
	return strcasestr(name, "cnp") || strcasestr(name, "ecn");
}

static void bad_ctr(int *nbad, char *bad, size_t badlen, const char *path, int err)
{
	if (!(*nbad)++)
		fmt_to(bad, badlen, "%s: %s", path, strerror(-err));
}

/* Every counter file of one directory. Returns counters added or -ENOMEM. */
static int read_dir(const char *dir, const char *dev, const char *driver, __u32 port,
		    const char *netdev, int scope, struct rt_snapshot *s, int *nbad, char *bad,
		    size_t badlen)
{
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;	/* no such set of counters on this device: normal */
	while ((de = readdir(d))) {
		struct rt_port_ctr *c;
		__u64 v;
		int r;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "lifespan"))
			continue;	/* lifespan: the hw_counters cache time in ms, not a counter */
		if (strlen(de->d_name) >= sizeof(c->name))
			continue;
		fmt_to(path, sizeof(path), "%s/%s", dir, de->d_name);
		r = read_counter(path, &v);
		if (r) {
			bad_ctr(nbad, bad, badlen, path, r);
			continue;
		}
		c = rt_snapshot_add_port(s);
		if (!c) {
			closedir(d);
			return -ENOMEM;
		}
		fmt_to(c->dev, sizeof(c->dev), "%s", dev);
		c->port = port;
		fmt_to(c->netdev, sizeof(c->netdev), "%s", netdev);
		fmt_to(c->name, sizeof(c->name), "%s", de->d_name);
		c->value = v;
		c->scope = (__u8)scope;
		c->bits = (__u8)rt_nic_ctr_bits(driver, scope, c->name, v);
		c->congestion = (__u8)rt_nic_is_congestion(c->name);
		n++;
	}
	closedir(d);
	return n;
}

int rt_sysfs_read_counters(const char *root, const struct rt_rdma_ports *ps,
			   struct rt_snapshot *s, int *nbad, char *bad, size_t badlen)
{
	char ib[PATH_MAX], dir[PATH_MAX + 64];
	int total = 0, r;
	size_t i, j;

	rt_sysfs_ib_dir(root, ib, sizeof(ib));
	for (i = 0; i < ps->n; i++) {
		const struct rt_rdma_port *p = &ps->p[i];
		int first_of_dev = 1;
		char drv[64];

		rt_sysfs_driver(root, p->dev, drv, sizeof(drv));
		fmt_to(dir, sizeof(dir), "%s/%s/ports/%u/hw_counters", ib, p->dev, p->port);
		if ((r = read_dir(dir, p->dev, drv, p->port, p->netdev, RT_SCOPE_HW_PORT, s, nbad, bad, badlen)) < 0)
			return r;
		total += r;
		fmt_to(dir, sizeof(dir), "%s/%s/ports/%u/counters", ib, p->dev, p->port);
		if ((r = read_dir(dir, p->dev, drv, p->port, p->netdev, RT_SCOPE_PORT, s, nbad, bad, badlen)) < 0)
			return r;
		total += r;
		for (j = 0; j < i; j++)
			if (!strcmp(ps->p[j].dev, p->dev))
				first_of_dev = 0;
		if (!first_of_dev)
			continue;
		fmt_to(dir, sizeof(dir), "%s/%s/hw_counters", ib, p->dev);
		if ((r = read_dir(dir, p->dev, drv, 0, "", RT_SCOPE_HW_DEV, s, nbad, bad, badlen)) < 0)
			return r;
		total += r;
	}
	/* Name the bad counter from the device on: the root is on the screen already. */
	if (*nbad && !strncmp(bad, ib, strlen(ib)) && bad[strlen(ib)] == '/')
		memmove(bad, bad + strlen(ib) + 1, strlen(bad + strlen(ib) + 1) + 1);
	return total;
}

/* The netdev's own counters in sysfs (scope RT_SCOPE_NETDEV): carrier_changes,
 * one per carrier transition (a flap is a down and an up: 2). Loopback
 * (type 772, ARPHRD_LOOPBACK) has no carrier to lose: none read. */
int rt_sysfs_netdev_counters(const char *root, const char *netdev, const char *dev, __u32 port,
			     struct rt_snapshot *s)
{
	static const char *const names[] = { "carrier_changes" };
	char path[PATH_MAX];
	struct rt_port_ctr *c;
	__u64 v;
	int n = 0;

	fmt_to(path, sizeof(path), "%s/sys/class/net/%s/type", root ? root : "", netdev);
	if (!read_counter(path, &v) && v == 772)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		fmt_to(path, sizeof(path), "%s/sys/class/net/%s/%s", root ? root : "", netdev, names[i]);
		if (read_counter(path, &v))
			continue;	/* not there (an old kernel, a fixture without it) */
		if (!(c = rt_snapshot_add_port(s)))
			return -ENOMEM;
		fmt_to(c->dev, sizeof(c->dev), "%s", dev);
		c->port = port;
		fmt_to(c->netdev, sizeof(c->netdev), "%s", netdev);
		fmt_to(c->name, sizeof(c->name), "%s", names[i]);
		c->value = v;
		c->scope = RT_SCOPE_NETDEV;
		c->bits = RT_BITS_32;	/* an unsigned int in struct net_device */
		n++;
	}
	return n;
}
