// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ethtool statistics: the fixture reader on files laid out as `ethtool -S`
 * prints them, and the filter of what rocetop keeps.
 * With "--ioctl IFACE" it prints IFACE's statistics as read through
 * SIOCETHTOOL, in `ethtool -S`'s layout, for tests/nic/test_ethtool_veth.sh to
 * compare with the real ethtool; "--pause IFACE" and "--fec IFACE" the same
 * for the standard pause and FEC statistics read through ethtool netlink;
 * "--tout IFACE" the PFC storm prevention timeout (ETHTOOL_GTUNABLE).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "nic.h"

static void test_fixture_file(void)
{
	/* tests/fixtures/sysfs/mlx5-host/t1/ethtool/eth2, in its order */
	static const struct { const char *name; unsigned long long v; int keep; } want[] = {
		{ "rx_packets", 1500000, 0 },
		{ "tx_bytes_phy", 77777, 0 },
		{ "rx_vport_rdma_unicast_packets", 4242, 0 },
		{ "rx_discards_phy", 3, 1 },
		{ "rx_pause_ctrl_phy", 160, 1 },
		{ "tx_pause_ctrl_phy", 20, 1 },
		{ "rx_prio3_bytes", 9000, 1 },
		{ "rx_prio3_packets", 90, 1 },
		{ "rx_prio3_pause", 160, 1 },
		{ "rx_prio3_pause_duration", 8000, 1 },
		{ "rx_prio3_pause_transition", 16, 1 },
		{ "tx_prio3_pause", 20, 1 },
		{ "tx_prio3_pause_duration", 0, 1 },
		{ "tx_pause_storm_warning_events", 0, 1 },
		{ "tx_pause_storm_error_events", 0, 1 },
	};
	struct rt_ethtool_stats st = { 0 };
	size_t i, n = sizeof(want) / sizeof(want[0]);

	CHECK(rt_ethtool_read_file("tests/fixtures/sysfs/mlx5-host/t1/ethtool/eth2", &st) == 0, "read");
	CHECK_EQ(st.n, n);
	for (i = 0; i < n && i < st.n; i++) {
		CHECK(!strcmp(st.s[i].name, want[i].name), "stat %zu is %s, expected %s", i, st.s[i].name,
		      want[i].name);
		CHECK_EQ(st.s[i].value, want[i].v);
		CHECK_EQ(rt_ethtool_keep(st.s[i].name), want[i].keep);
	}
	rt_ethtool_stats_free(&st);
	CHECK(rt_ethtool_read_file("tests/fixtures/sysfs/no-such-file", &st) == -ENOENT, "missing");
	TEST_END("nic_ethtool_fixture_file");
}

static void test_odd_lines(void)
{
	/* the filter's counters: PFC, pause, ECN and CNP, then the health
	 * counters (counters.rst's names); and names close to them */
	static const char *const keep[] = {
		"rx_prio7_pause", "tx_pause_storm_error_events", "rx_ecn_mark", "np_cnp_sent",
		"rx_pfc_frames", "rx_out_of_buffer", "rx_corrected_bits_phy",
		"rx_pcs_symbol_err_phy", "rx_bits_phy", "rx_err_lane_3_phy",
		"outbound_pci_stalled_wr_events", "rx_pci_signal_integrity", "link_down_events_phy",
	};
	static const char *const drop[] = {
		"rx_err_lane_3_phyx", "rx_err_lane__phy", "rx_bytes_phy", "rx_crc_errors_phy",
		"peer_ifindex", "rx_queue_0_xdp_packets",
	};
	char path[] = "/tmp/rtn-ethtool-XXXXXX";
	struct rt_ethtool_stats st = { 0 };
	FILE *f;
	size_t i;
	int fd = mkstemp(path);

	CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	/* header, a stat, a line without a number, one with a name holding a
	 * colon (some drivers have them), a negative, one past 2^63 */
	fputs("NIC statistics:\n"
	      "     rx_pfc_prio0: 12\n"
	      "     broken line\n"
	      "     ch0: rx_ecn_mark: 5\n"
	      "     tx_cnp: -3\n"
	      "     rx_discards: 18446744073709551615\n", f);
	fclose(f);
	CHECK(rt_ethtool_read_file(path, &st) == 0, "read");
	CHECK_EQ(st.n, 3);
	if (st.n == 3) {
		CHECK(!strcmp(st.s[0].name, "rx_pfc_prio0") && st.s[0].value == 12, "first");
		CHECK(!strcmp(st.s[1].name, "ch0: rx_ecn_mark") && st.s[1].value == 5, "%s", st.s[1].name);
		CHECK(!strcmp(st.s[2].name, "rx_discards") && st.s[2].value == 18446744073709551615ULL,
		      "u64 max");
	}
	rt_ethtool_stats_free(&st);
	unlink(path);
	/* the filter */
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		CHECK(rt_ethtool_keep(keep[i]) == 1, "%s is not kept", keep[i]);
	for (i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		CHECK(rt_ethtool_keep(drop[i]) == 0, "%s is kept", drop[i]);
	TEST_END("nic_ethtool_odd_lines_and_filter");
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--tout")) {
		int r = rt_ethtool_pfc_prevention_tout(argv[2]);

		if (r < 0) {
			fprintf(stderr, "%s: %s\n", argv[2], strerror(-r));
			return 1;
		}
		printf("pfc-prevention-tout: %d\n", r);
		return 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "--ioctl") || !strcmp(argv[1], "--pause") ||
			  !strcmp(argv[1], "--fec"))) {
		struct rt_ethtool_stats st = { 0 };
		int r = argv[1][2] == 'i' ? rt_ethtool_read_ioctl(argv[2], &st) :
			argv[1][2] == 'p' ? rt_ethtool_read_pause_nl(argv[2], &st) :
			rt_ethtool_read_fec_nl(argv[2], &st);

		if (r) {
			fprintf(stderr, "%s: %s\n", argv[2], strerror(-r));
			return 1;
		}
		printf("NIC statistics:\n");
		for (size_t i = 0; i < st.n; i++)
			printf("     %s: %llu\n", st.s[i].name, (unsigned long long)st.s[i].value);
		rt_ethtool_stats_free(&st);
		return 0;
	}
	test_fixture_file();
	test_odd_lines();
	return TEST_EXIT();
}
