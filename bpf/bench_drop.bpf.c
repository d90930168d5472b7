// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The baseline of bench/collector.sh: an XDP program that only drops, what a
 * collector port at its cheapest would run. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("xdp.frags")
int rt_drop(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_DROP;
}
