// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The egress baseline of `make bench` (bench/tc_bench.c): a tc program that
 * only returns what rocetop's rt_tc returns, so the difference between the two
 * is rt_tc's own work. */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tc")
int rt_pass_tc(struct __sk_buff *skb)
{
	(void)skb;
	return TC_ACT_UNSPEC;
}
