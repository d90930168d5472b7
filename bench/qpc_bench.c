// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench/qpc_bench: CPU time of one interval of the NIC source (rt_nic_collect)
 * on a hardware host with N QPs, each bound to a counter of its own with five
 * hardware counters (out_of_sequence, packet_seq_err and the three optional
 * cc_* ones), at N = 1000 and 10000.
 *
 * The host is a --sysfs-root tree written to a temporary directory: one mlx5
 * port with its hw_counters, and the kernel's rdma netlink answers as bytes
 * (the device, the N QPs with their CM IDs, and the statistics dump of the N
 * counters). The baseline, measured in the same run and alternating with it,
 * is the same tree without the statistics dump: what one interval cost before
 * per-QP counters (ports, QP table, join). The difference is what per-QP
 * counters add: parsing the dump, the ports table's qp rows and two flows per
 * QP, then the sort. Reported as CPU time per interval
 * (CLOCK_PROCESS_CPUTIME_ID) and the ratio to the baseline. Exit 0 when it ran.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include "nic.h"
#include "source.h"

struct buf {
	unsigned char *b;
	size_t n, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	size_t pad = NLA_ALIGN(n) - n;

	if (b->n + n + pad > b->cap) {
		b->cap = (b->cap + n + pad) * 2;
		b->b = realloc(b->b, b->cap);
		if (!b->b)
			exit(1);
	}
	memcpy(b->b + b->n, p, n);
	memset(b->b + b->n + n, 0, pad);
	b->n += n + pad;
}

static size_t nest_begin(struct buf *b, unsigned short type)
{
	struct nlattr a = { .nla_len = 0, .nla_type = type };
	size_t at = b->n;

	put(b, &a, sizeof(a));
	return at;
}

static void nest_end(struct buf *b, size_t at)
{
	((struct nlattr *)(b->b + at))->nla_len = (unsigned short)(b->n - at);
}

static void attr(struct buf *b, unsigned short type, const void *p, size_t n)
{
	struct nlattr a = { .nla_len = (unsigned short)(NLA_HDRLEN + n), .nla_type = type };

	put(b, &a, sizeof(a));
	put(b, p, n);
}

static void u32a(struct buf *b, unsigned short t, __u32 v) { attr(b, t, &v, 4); }
static void u64a(struct buf *b, unsigned short t, __u64 v) { attr(b, t, &v, 8); }
static void stra(struct buf *b, unsigned short t, const char *s) { attr(b, t, s, strlen(s) + 1); }

static size_t msg_begin(struct buf *b, int op)
{
	struct nlmsghdr h = { .nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op), .nlmsg_flags = NLM_F_MULTI };
	size_t at = b->n;

	put(b, &h, sizeof(h));
	return at;
}

static void msg_end(struct buf *b, size_t at)
{
	((struct nlmsghdr *)(b->b + at))->nlmsg_len = (__u32)(b->n - at);
}

static void done(struct buf *b)
{
	struct nlmsghdr h = { .nlmsg_len = NLMSG_LENGTH(4), .nlmsg_type = NLMSG_DONE };
	int z = 0;

	put(b, &h, sizeof(h));
	put(b, &z, 4);
}

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void mkdirs(const char *path)
{
	char tmp[512];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	mkdir(tmp, 0755);
}

static void tree(const char *root, int nqp, int with_stat)
{
	static const char *const names[] = { "out_of_sequence", "packet_seq_err", "cc_rx_ce_pkts",
					     "cc_rx_cnp_pkts", "cc_tx_cnp_pkts" };
	char d[512];
	struct buf b = { 0 };
	size_t m, t, e;

	snprintf(d, sizeof(d), "%s/sys/class/infiniband/mlx5_0/ports/1/hw_counters", root);
	mkdirs(d);
	write_file(d, "np_cnp_sent", "100\n", 4);
	write_file(d, "rp_cnp_handled", "100\n", 4);
	snprintf(d, sizeof(d), "%s/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs", root);
	mkdirs(d);
	write_file(d, "0", "eth2\n", 5);
	snprintf(d, sizeof(d), "%s/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types", root);
	mkdirs(d);
	write_file(d, "0", "RoCE v2\n", 8);
	snprintf(d, sizeof(d), "%s/rdma-netlink", root);
	mkdirs(d);
	m = msg_begin(&b, RDMA_NLDEV_CMD_GET);
	u32a(&b, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	stra(&b, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
	msg_end(&b, m);
	done(&b);
	write_file(d, "dev", b.b, b.n);
	b.n = 0;
	m = msg_begin(&b, RDMA_NLDEV_CMD_RES_QP_GET);
	u32a(&b, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	stra(&b, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
	t = nest_begin(&b, RDMA_NLDEV_ATTR_RES_QP);
	for (int q = 0; q < nqp; q++) {
		e = nest_begin(&b, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
		u32a(&b, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
		u32a(&b, RDMA_NLDEV_ATTR_RES_LQPN, 100 + q);
		u32a(&b, RDMA_NLDEV_ATTR_RES_RQPN, 50000 + q);
		u32a(&b, RDMA_NLDEV_ATTR_RES_PID, 1000 + q % 64);
		nest_end(&b, e);
		if (b.n - m > 60000 || q == nqp - 1) {	/* messages of a recv buffer's size */
			nest_end(&b, t);
			msg_end(&b, m);
			if (q == nqp - 1)
				break;
			m = msg_begin(&b, RDMA_NLDEV_CMD_RES_QP_GET);
			u32a(&b, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
			stra(&b, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
			t = nest_begin(&b, RDMA_NLDEV_ATTR_RES_QP);
		}
	}
	done(&b);
	write_file(d, "res_qp", b.b, b.n);
	b.n = 0;
	done(&b);
	write_file(d, "res_cm_id", b.b, b.n);
	if (with_stat) {
		b.n = 0;
		for (int q = 0; q < nqp; q++) {
			m = msg_begin(&b, RDMA_NLDEV_CMD_STAT_GET);
			u32a(&b, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
			u32a(&b, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
			u32a(&b, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, (__u32)q + 1);
			t = nest_begin(&b, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
			for (int k = 0; k < 5; k++) {
				e = nest_begin(&b, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
				stra(&b, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, names[k]);
				u64a(&b, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, (__u64)(q * 7 + k));
				nest_end(&b, e);
			}
			nest_end(&b, t);
			t = nest_begin(&b, RDMA_NLDEV_ATTR_RES_QP);
			e = nest_begin(&b, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
			u32a(&b, RDMA_NLDEV_ATTR_RES_LQPN, 100 + (__u32)q);
			nest_end(&b, e);
			nest_end(&b, t);
			msg_end(&b, m);
		}
		done(&b);
		write_file(d, "stat_qp", b.b, b.n);
	}
	free(b.b);
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds of one rt_nic_collect on root, the median of reps. */
static double collect_cost(struct rt_nic *n, struct rt_snapshot *s, const char *root)
{
	double t0;

	rt_nic_set_root(n, root);
	rt_snapshot_clear(s);
	t0 = cpu_now();
	rt_nic_collect(n, s);
	return cpu_now() - t0;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	static const int sizes[] = { 1000, 10000 };
	char base[] = "/tmp/rt-qpc-bench-XXXXXX", with[600], without[600], cmd[700];
	struct rt_nic_cfg c = { 0 };

	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		enum { REPS = 21 };
		double a[REPS], b[REPS];
		struct rt_snapshot s;
		struct rt_nic *n;
		size_t nflows = 0, nports = 0;

		snprintf(with, sizeof(with), "%s/with%d", base, sizes[si]);
		snprintf(without, sizeof(without), "%s/without%d", base, sizes[si]);
		tree(with, sizes[si], 1);
		tree(without, sizes[si], 0);
		c.sysfs_root = with;
		n = rt_nic_new(&c);
		rt_snapshot_init(&s);
		if (!n)
			return 1;
		collect_cost(n, &s, with);	/* warm: accumulators, caches */
		collect_cost(n, &s, without);
		for (int r = 0; r < REPS; r++) {
			a[r] = collect_cost(n, &s, with);
			if (r == 0) {
				nflows = s.nflows;
				nports = s.nports;
			}
			b[r] = collect_cost(n, &s, without);
		}
		qsort(a, REPS, sizeof(a[0]), dcmp);
		qsort(b, REPS, sizeof(b[0]), dcmp);
		printf("%5d QPs: per-QP counters %.2f ms per interval (%zu NIC flows, %zu counter rows), "
		       "baseline without them %.2f ms; ratio %.2f; added %.2f us per QP\n", sizes[si],
		       a[REPS / 2] * 1e3, nflows, nports, b[REPS / 2] * 1e3, a[REPS / 2] / b[REPS / 2],
		       (a[REPS / 2] - b[REPS / 2]) * 1e6 / sizes[si]);
		rt_snapshot_free(&s);
		rt_nic_free(n);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	if (system(cmd))
		return 1;
	return 0;
}
