// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The NIC source on fixture trees (tests/fixtures/sysfs, written by
 * make-fixtures.sh from hand-picked numbers): every expected delta and rate
 * below is worked out by hand from those numbers.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "check.h"
#include "derive.h"
#include "nic.h"
#include "source.h"

#define FIX "tests/fixtures/sysfs/"

static const struct rt_port_ctr *find(const struct rt_snapshot *s, const char *dev, __u32 port,
				      int scope, const char *name)
{
	for (size_t i = 0; i < s->nports; i++) {
		const struct rt_port_ctr *c = &s->ports[i];

		if (!strcmp(c->dev, dev) && c->port == port && c->scope == scope && !strcmp(c->name, name))
			return c;
	}
	return NULL;
}

/* The delta of one counter between the two snapshots of d, or ~0 if absent. */
static __u64 delta(const struct rt_delta *d, const char *dev, __u32 port, int scope, const char *name)
{
	for (size_t i = 0; i < d->nports; i++) {
		const struct rt_port_ctr *c = d->ports[i].c;

		if (!strcmp(c->dev, dev) && c->port == port && c->scope == scope && !strcmp(c->name, name))
			return d->ports[i].d;
	}
	return ~0ULL;
}

/* A counter's delta the fixture's files imply (~0: no row). */
struct want_delta {
	const char *dev;
	__u32 port;
	int scope;
	const char *name;
	__u64 delta;
};

static void check_deltas(const struct rt_delta *d, const struct want_delta *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		__u64 got = delta(d, w[i].dev, w[i].port, w[i].scope, w[i].name);

		CHECK(got == w[i].delta, "%s port %u %s: delta %llu, expected %llu", w[i].dev, w[i].port,
		      w[i].name, (unsigned long long)got, (unsigned long long)w[i].delta);
	}
}

static size_t count(const struct rt_snapshot *s, const char *dev, const char *netdev, int scope)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nports; i++)
		if ((!dev || !strcmp(s->ports[i].dev, dev)) &&
		    (!netdev || !strcmp(s->ports[i].netdev, netdev)) &&
		    (scope < 0 || s->ports[i].scope == scope))
			n++;
	return n;
}

static void collect(struct rt_nic *n, const char *root, struct rt_snapshot *s, __u64 t_s)
{
	rt_snapshot_clear(s);
	s->time_ns = t_s * 1000000000ULL;
	rt_nic_set_root(n, root);
	rt_nic_collect(n, s);
}

/* The NIC reader on the sysfs tree at root. */
static struct rt_nic *nic_at(const char *root)
{
	struct rt_nic_cfg c = { .sysfs_root = root };
	struct rt_nic *n;

	n = rt_nic_new(&c);
	CHECK(n != NULL, "rt_nic_new");
	return n;
}

static void test_mlx5_host(void)
{
	struct rt_snapshot s0, s1, s2;
	struct rt_delta d;
	const struct rt_port_ctr *c;
	struct rt_nic *n;

	memset(&d, 0, sizeof(d));
	rt_snapshot_init(&s0);
	rt_snapshot_init(&s1);
	rt_snapshot_init(&s2);
	n = nic_at(FIX "mlx5-host/t0");
	if (!n)
		return;
	/* t0 at 1000 s, t1 at 1002 s, t2 at 1006 s */
	collect(n, FIX "mlx5-host/t0", &s0, 1000);
	collect(n, FIX "mlx5-host/t1", &s1, 1002);
	collect(n, FIX "mlx5-host/t2", &s2, 1006);

	/* Rows: per port 21 hw_counters (14 steady + 7 that move; lifespan is no
	 * counter) and 13 counters (7 + 6); ethtool 12 kept of eth2's 15, 2 of
	 * eth3 and of eth4, none for eth5 (no fixture). mlx5_0 port 2 lacks
	 * rx_read_requests at t1. */
	CHECK_EQ(s0.nports, 4 * 21 + 4 * 13 + 12 + 2 + 2);
	CHECK_EQ(s1.nports, 4 * 21 + 4 * 13 + 12 + 2 + 2 - 1);
	CHECK_EQ(s2.nports, 4 * 21 + 4 * 13 + 12 + 2 + 2);
	CHECK_EQ(s0.nnotes, 0);
	CHECK_EQ(count(&s0, "mlx5_0", "eth2", RT_SCOPE_ETHTOOL), 12);
	CHECK_EQ(count(&s0, "mlx5_1", "eth5", -1), 21 + 13);
	CHECK_EQ(count(&s0, NULL, "eth5", RT_SCOPE_ETHTOOL), 0);
	CHECK(find(&s0, "mlx5_0", 1, RT_SCOPE_HW_PORT, "lifespan") == NULL, "lifespan is no counter");
	CHECK(find(&s0, "mlx5_0", 1, RT_SCOPE_ETHTOOL, "rx_packets") == NULL, "rx_packets filtered");
	CHECK(find(&s0, "mlx5_0", 1, RT_SCOPE_ETHTOOL, "tx_bytes_phy") == NULL, "tx_bytes_phy filtered");
	CHECK(find(&s0, "mlx5_0", 1, RT_SCOPE_ETHTOOL, "rx_prio3_packets") != NULL, "prio kept");

	c = find(&s0, "mlx5_0", 1, RT_SCOPE_HW_PORT, "np_cnp_sent");
	CHECK(c != NULL, "np_cnp_sent");
	if (c) {
		CHECK(!strcmp(c->netdev, "eth2"), "netdev %s", c->netdev);
		CHECK_EQ(c->value, 1000);
		CHECK_EQ(c->bits, 64);
		CHECK_EQ(c->congestion, 1);
	}
	/* The width table: mlx5's Q counters are 32-bit, its congestion
	 * counters 64-bit, another driver's unknown name RT_BITS_NIC. */
	c = find(&s0, "mlx5_0", 1, RT_SCOPE_HW_PORT, "out_of_sequence");
	CHECK(c && c->bits == RT_BITS_32, "mlx5 out_of_sequence is 32-bit");
	c = find(&s0, "mlx5_0", 1, RT_SCOPE_HW_PORT, "local_ack_timeout_err");
	CHECK(c && c->bits == RT_BITS_32, "mlx5 local_ack_timeout_err is 32-bit");
	c = find(&s0, "mlx5_0", 1, RT_SCOPE_HW_PORT, "rp_cnp_ignored");
	CHECK(c && c->bits == RT_BITS_64, "mlx5 rp_cnp_ignored is 64-bit");
	CHECK_EQ(rt_nic_ctr_bits("mlx5_core", RT_SCOPE_HW_PORT, "packet_seq_err", 5), RT_BITS_32);
	CHECK_EQ(rt_nic_ctr_bits("bnxt_re", RT_SCOPE_HW_PORT, "packet_seq_err", 5), RT_BITS_NIC);
	CHECK_EQ(rt_nic_ctr_bits("mlx5_0", RT_SCOPE_HW_PORT, "made_up_counter", 5), RT_BITS_NIC);
	CHECK_EQ(rt_nic_ctr_bits("mlx5_0", RT_SCOPE_ETHTOOL, "rx_prio3_pause", 5), RT_BITS_64);
	c = find(&s0, "mlx5_0", 1, RT_SCOPE_HW_PORT, "rx_read_requests");
	CHECK(c && !c->congestion, "rx_read_requests is not a congestion counter");
	c = find(&s0, "mlx5_0", 1, RT_SCOPE_HW_PORT, "roce_slow_restart_cnps");
	CHECK(c && c->congestion, "roce_slow_restart* is");
	c = find(&s0, "mlx5_0", 1, RT_SCOPE_PORT, "port_xmit_data");
	CHECK(c && c->bits == RT_BITS_NIC, "port_xmit_data wraps by the plausibility rule");
	c = find(&s0, "mlx5_0", 1, RT_SCOPE_PORT, "unicast_xmit_packets");
	CHECK(c && c->bits == 64, "unicast_xmit_packets is 64-bit");
	c = find(&s0, "mlx5_1", 2, RT_SCOPE_HW_PORT, "np_cnp_sent");
	CHECK(c && !strcmp(c->netdev, "eth5"), "mlx5_1 port 2 is eth5");
	c = find(&s0, "mlx5_0", 1, RT_SCOPE_ETHTOOL, "rx_prio3_pause");
	CHECK(c && c->bits == 64 && c->congestion && c->value == 100, "eth2 rx_prio3_pause");

	/* t0 -> t1, 2 s */
	CHECK(rt_delta_compute(&d, &s0, &s1) == 0, "delta");
	CHECK(d.secs == 2.0, "secs %f", d.secs);
	{
		static const struct want_delta w[] = {
			{ "mlx5_0", 1, RT_SCOPE_HW_PORT, "np_cnp_sent", 250 },	/* 1250 - 1000 */
			{ "mlx5_0", 1, RT_SCOPE_HW_PORT, "np_ecn_marked_roce_packets", 600 },
			{ "mlx5_0", 1, RT_SCOPE_HW_PORT, "rp_cnp_handled", 120 },
			{ "mlx5_0", 1, RT_SCOPE_HW_PORT, "out_of_sequence", 2 },
			{ "mlx5_0", 1, RT_SCOPE_HW_PORT, "packet_seq_err", 0 },
			{ "mlx5_0", 1, RT_SCOPE_HW_PORT, "roce_slow_restart_cnps", 4 },
			{ "mlx5_0", 1, RT_SCOPE_HW_PORT, "rx_read_requests", 500 },
			/* 32-bit wrap: 4294967000 -> 200 is 2^32 - 4294967000 = 296, plus 200 */
			{ "mlx5_0", 1, RT_SCOPE_PORT, "port_xmit_data", 496 },
			{ "mlx5_0", 1, RT_SCOPE_PORT, "port_rcv_data", 4000 },
			{ "mlx5_0", 1, RT_SCOPE_PORT, "unicast_xmit_packets", 100 },
			{ "mlx5_1", 1, RT_SCOPE_HW_PORT, "np_cnp_sent", 100 },	/* 900 - 800 */
			{ "mlx5_1", 1, RT_SCOPE_HW_PORT, "rp_cnp_handled", 500 },
			/* rx_read_requests of mlx5_0 port 2 is gone at t1: no row */
			{ "mlx5_0", 2, RT_SCOPE_HW_PORT, "rx_read_requests", ~0ULL },
			/* ethtool of eth2: 100 -> 160, 5000 -> 8000, 10 -> 16, 0 -> 3 */
			{ "mlx5_0", 1, RT_SCOPE_ETHTOOL, "rx_prio3_pause", 60 },
			{ "mlx5_0", 1, RT_SCOPE_ETHTOOL, "rx_prio3_pause_duration", 3000 },
			{ "mlx5_0", 1, RT_SCOPE_ETHTOOL, "rx_prio3_pause_transition", 6 },
			{ "mlx5_0", 1, RT_SCOPE_ETHTOOL, "rx_discards_phy", 3 },
			{ "mlx5_0", 1, RT_SCOPE_ETHTOOL, "tx_prio3_pause", 0 },
		};

		check_deltas(&d, w, sizeof(w) / sizeof(w[0]));
	}
	CHECK(delta(&d, "mlx5_0", 1, RT_SCOPE_HW_PORT, "np_cnp_sent") / d.secs == 125.0, "rate");
	CHECK(delta(&d, "mlx5_0", 1, RT_SCOPE_HW_PORT, "np_ecn_marked_roce_packets") / d.secs == 300.0, "rate");
	CHECK(delta(&d, "mlx5_0", 1, RT_SCOPE_ETHTOOL, "rx_prio3_pause") / d.secs == 30.0, "rate");

	/* t1 -> t2, 4 s */
	CHECK(rt_delta_compute(&d, &s1, &s2) == 0, "delta");
	CHECK(d.secs == 4.0, "secs %f", d.secs);
	CHECK_EQ(delta(&d, "mlx5_0", 1, RT_SCOPE_HW_PORT, "np_cnp_sent"), 350);	/* 1600 - 1250 */
	CHECK(delta(&d, "mlx5_0", 1, RT_SCOPE_HW_PORT, "np_cnp_sent") / d.secs == 87.5, "rate");
	CHECK_EQ(delta(&d, "mlx5_0", 1, RT_SCOPE_HW_PORT, "packet_seq_err"), 3);
	CHECK_EQ(delta(&d, "mlx5_0", 1, RT_SCOPE_PORT, "port_xmit_data"), 1000);	/* 200 -> 1200 */
	/* back at t2 after missing at t1: no previous value, no delta */
	CHECK_EQ(delta(&d, "mlx5_0", 2, RT_SCOPE_HW_PORT, "rx_read_requests"), 0);
	c = find(&s2, "mlx5_0", 2, RT_SCOPE_HW_PORT, "rx_read_requests");
	CHECK(c && c->value == 80, "rx_read_requests back at t2");
	/* the reset (driver reload) of mlx5_1 port 1: counting again from 0 */
	CHECK_EQ(delta(&d, "mlx5_1", 1, RT_SCOPE_HW_PORT, "np_cnp_sent"), 30);	/* 900 -> 30 */
	CHECK_EQ(delta(&d, "mlx5_1", 1, RT_SCOPE_HW_PORT, "rp_cnp_handled"), 12);	/* 9000000500 -> 12 */
	CHECK_EQ(delta(&d, "mlx5_1", 1, RT_SCOPE_PORT, "port_rcv_data"), 200);	/* 32-bit, 1000000 -> 200 */
	CHECK_EQ(delta(&d, "mlx5_0", 1, RT_SCOPE_ETHTOOL, "tx_prio3_pause"), 25);	/* 20 -> 45 */
	CHECK_EQ(delta(&d, "mlx5_0", 1, RT_SCOPE_ETHTOOL, "tx_pause_storm_warning_events"), 1);
	CHECK_EQ(delta(&d, "mlx5_0", 1, RT_SCOPE_ETHTOOL, "rx_prio3_pause"), 0);

	rt_delta_free(&d);
	rt_nic_free(n);
	rt_snapshot_free(&s0);
	rt_snapshot_free(&s1);
	rt_snapshot_free(&s2);
	TEST_END("nic_sysfs_mlx5_host");
}

static void test_mixed_host(void)
{
	struct rt_snapshot s;
	const struct rt_port_ctr *c;
	struct rt_nic *n;

	rt_snapshot_init(&s);
	n = nic_at(FIX "mixed-host/t0");
	if (!n)
		return;
	collect(n, FIX "mixed-host/t0", &s, 1);
	/* bnxt_re0: 9 readable hw_counters (rx_drops holds "garbage",
	 * recoverable_errors is a directory); eth7: 2 of 3 ethtool stats;
	 * efa_0: 3 port and 4 device-level counters; rxe0: none at all. */
	CHECK_EQ(s.nports, 9 + 2 + 3 + 4);
	CHECK_EQ(count(&s, "bnxt_re0", "eth7", RT_SCOPE_HW_PORT), 9);
	CHECK_EQ(count(&s, "bnxt_re0", "eth7", RT_SCOPE_ETHTOOL), 2);
	CHECK_EQ(count(&s, "rxe0", NULL, -1), 0);
	CHECK_EQ(count(&s, "efa_0", "", RT_SCOPE_HW_PORT), 3);
	CHECK_EQ(count(&s, "efa_0", "", RT_SCOPE_HW_DEV), 4);
	c = find(&s, "efa_0", 0, RT_SCOPE_HW_DEV, "submitted_cmds");
	CHECK(c && c->value == 77, "device-level counter");
	CHECK(find(&s, "bnxt_re0", 1, RT_SCOPE_HW_PORT, "rx_drops") == NULL, "garbage read");
	CHECK(find(&s, "bnxt_re0", 1, RT_SCOPE_HW_PORT, "recoverable_errors") == NULL, "dir read");
	c = find(&s, "bnxt_re0", 1, RT_SCOPE_HW_PORT, "seq_err_naks_rcvd");
	CHECK(c && c->value == 4 && c->congestion, "bnxt seq_err_naks_rcvd");
	c = find(&s, "bnxt_re0", 1, RT_SCOPE_HW_PORT, "rx_ecn_marked_pkts");
	CHECK(c && c->value == 33 && c->congestion, "bnxt rx_ecn_marked_pkts");
	c = find(&s, "bnxt_re0", 1, RT_SCOPE_HW_PORT, "rx_pkts");
	CHECK(c && c->value == 123456 && !c->congestion, "bnxt rx_pkts");
	c = find(&s, "bnxt_re0", 1, RT_SCOPE_ETHTOOL, "rx_pfc_frames_prio3");
	CHECK(c && c->value == 7, "bnxt pfc frames");
	/* one note for both unreadable counters, and the rest is there */
	CHECK_EQ(s.nnotes, 1);
	CHECK(strstr(s.notes[0], "2 RDMA counters unreadable") != NULL, "note: %s", s.notes[0]);
	CHECK(strstr(s.notes[0], "e.g. bnxt_re0/ports/1/hw_counters/r") != NULL, "note: %s", s.notes[0]);
	rt_nic_free(n);
	rt_snapshot_free(&s);
	TEST_END("nic_sysfs_mixed_host");
}

static void test_no_rdma(void)
{
	char dir[] = "/tmp/rtn-nic-XXXXXX";
	struct rt_snapshot s;
	struct rt_nic *n;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	rt_snapshot_init(&s);
	n = nic_at(dir);
	collect(n, dir, &s, 1);
	CHECK_EQ(s.nports, 0);
	CHECK_EQ(s.nnotes, 1);
	CHECK(strstr(s.notes[0], "no RDMA device") != NULL, "note: %s", s.notes[0]);
	rt_nic_free(n);
	rt_snapshot_free(&s);
	rmdir(dir);
	TEST_END("nic_sysfs_no_rdma_device");
}

/*
 * Soft-RoCE's GID table (make-fixtures.sh, rxe-host): 1024 entries, used
 * only at 370 (RoCE v1) and 928 (RoCE v2), both naming enp0s4. The netdev is
 * found however far into the table the used entries sit.
 */
static void test_rxe_gid_table(void)
{
	struct rt_rdma_ports ps = { 0 };
	int r = rt_sysfs_discover(FIX "rxe-host/t0", &ps);

	CHECK_EQ(r, 1);
	CHECK_EQ(ps.n, 1);
	if (ps.n == 1) {
		CHECK(!strcmp(ps.p[0].dev, "rxe0"), "dev %s", ps.p[0].dev);
		CHECK_EQ(ps.p[0].port, 1);
		CHECK(!strcmp(ps.p[0].netdev, "enp0s4"), "netdev '%s', expected enp0s4", ps.p[0].netdev);
	}
	rt_rdma_ports_free(&ps);
	TEST_END("nic_sysfs_rxe_gid_table_1024");
}

/* put DIR/REL VALUE, making the directories on the way */
static void put(const char *dir, const char *rel, const char *val)
{
	char path[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%s\n", val);
		fclose(f);
	}
}

/* The netdev's carrier_changes as a row of scope netdev, 32 bits wide; none
 * for loopback (type 772), none where the file is missing or no number. */
static void test_netdev_counters(void)
{
	char dir[] = "/tmp/rtn-netdev-XXXXXX", cmd[64];
	struct rt_snapshot s;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	put(dir, "sys/class/net/eth9/type", "1");
	put(dir, "sys/class/net/eth9/carrier_changes", "4294967295");
	put(dir, "sys/class/net/lo/type", "772");
	put(dir, "sys/class/net/lo/carrier_changes", "5");
	put(dir, "sys/class/net/eth8/type", "1");
	put(dir, "sys/class/net/eth8/carrier_changes", "x");
	rt_snapshot_init(&s);
	CHECK_EQ(rt_sysfs_netdev_counters(dir, "eth9", "mlx5_3", 2, &s), 1);
	CHECK_EQ(rt_sysfs_netdev_counters(dir, "lo", "", 0, &s), 0);
	CHECK_EQ(rt_sysfs_netdev_counters(dir, "eth8", "", 0, &s), 0);
	CHECK_EQ(rt_sysfs_netdev_counters(dir, "eth7", "", 0, &s), 0);
	CHECK_EQ(s.nports, 1);
	if (s.nports == 1) {
		const struct rt_port_ctr *c = &s.ports[0];

		CHECK(!strcmp(c->name, "carrier_changes") && !strcmp(c->netdev, "eth9") &&
		      !strcmp(c->dev, "mlx5_3") && c->port == 2, "row %s %s %s %u", c->name, c->netdev,
		      c->dev, c->port);
		CHECK_EQ(c->value, 4294967295ULL);
		CHECK_EQ(c->scope, RT_SCOPE_NETDEV);
		CHECK_EQ(c->bits, RT_BITS_32);
		CHECK(!strcmp(rt_scope_name(c->scope), "netdev"), "scope name %s", rt_scope_name(c->scope));
	}
	rt_snapshot_free(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_EQ(system(cmd), 0);
	TEST_END("nic_sysfs_netdev_carrier_changes");
}

int main(void)
{
	test_netdev_counters();
	test_rxe_gid_table();
	test_mlx5_host();
	test_mixed_host();
	test_no_rdma();
	return TEST_EXIT();
}
