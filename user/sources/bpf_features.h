/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the running kernel's BPF can do, probed (user/sources/bpf_features.c):
 * each feature is tried (a map or program loaded, a link asked for on no
 * device, a type looked up in the kernel's own BTF), never guessed from the
 * version number. For `rocetop doctor` and whoever chooses how to attach.
 */
#ifndef RT_BPF_FEATURES_H
#define RT_BPF_FEATURES_H

enum rt_bpf_feat {
	RT_BF_BTF,		/* /sys/kernel/btf/vmlinux */
	RT_BF_XDP,		/* XDP programs */
	RT_BF_XDP_LINK,		/* XDP through a BPF link */
	RT_BF_XDP_FRAGS,	/* xdp.frags programs (MTU above a page) */
	RT_BF_TC,		/* TC classifier programs (clsact filters) */
	RT_BF_TCX,		/* tcx links */
	RT_BF_RINGBUF,		/* BPF ring buffer maps */
	RT_BF_MMAP_ARRAY,	/* mmapable array maps */
	RT_BF_BOUNDED_LOOPS,	/* loops the verifier walks */
	RT_BF_BPF_LOOP,		/* the bpf_loop helper */
	RT_BF_N
};

struct rt_bpf_feature {
	const char *id;		/* "tcx", "ringbuf", ...: JSON keys */
	const char *name;	/* "tcx link", "ring buffer", ...: for people */
	const char *since;	/* the kernel version that has it: "6.6" */
	int state;		/* 1 present, 0 absent, -errno unknown (the probe could not run) */
};

struct rt_bpf_features {
	struct rt_bpf_feature f[RT_BF_N];
};

/* Probe every feature of the running kernel (needs CAP_BPF or root for
 * most: without, their state is -EPERM). */
void rt_bpf_features_probe(struct rt_bpf_features *bf);
/* The egress attach rocetop uses on this kernel: "tcx link", "TC clsact
 * filter", or "none" (neither probe passed), with why in why[]. */
const char *rt_bpf_egress_attach(const struct rt_bpf_features *bf, char *why, size_t whylen);

#endif
