// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The baseline of `make bench`: an XDP program that only passes. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("xdp.frags")
int rt_pass(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_PASS;
}
