// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The running kernel's BPF features, each probed: libbpf's probing API where
 * it has one (program and map types, helpers), else a tiny program or map
 * loaded with the feature's flag, a link asked for on a device that does not
 * exist (the kernel says which it refused: no such attach type, or no such
 * device), or the kernel's own BTF. Nothing is attached anywhere.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "bpf_features.h"

/* Newer than some uapi headers (enum bpf_attach_type, Linux 6.6). */
#define TCX_EGRESS 47

static const struct { const char *id, *name, *since; } names[RT_BF_N] = {
	[RT_BF_BTF] = { "btf", "BTF (vmlinux)", "5.2" },
	[RT_BF_XDP] = { "xdp", "XDP programs", "4.8" },
	[RT_BF_XDP_LINK] = { "xdp_link", "XDP link", "5.9" },
	[RT_BF_XDP_FRAGS] = { "xdp_frags", "xdp.frags (MTU above a page)", "5.18" },
	[RT_BF_TC] = { "tc", "TC classifier (clsact)", "4.5" },
	[RT_BF_TCX] = { "tcx", "tcx link", "6.6" },
	[RT_BF_RINGBUF] = { "ringbuf", "ring buffer", "5.8" },
	[RT_BF_MMAP_ARRAY] = { "mmap_array", "mmapable arrays", "5.5" },
	[RT_BF_BOUNDED_LOOPS] = { "bounded_loops", "bounded loops", "5.3" },
	[RT_BF_BPF_LOOP] = { "bpf_loop", "bpf_loop helper", "5.17" },
};

/* A libbpf probe's answer: 1, 0, or its -errno. */
static int yes_no(int r)
{
	return r > 0 ? 1 : r == 0 ? 0 : r;
}

/* Load a program of type t, flags, expected attach type, from insns. fd or -errno. */
static int load(enum bpf_prog_type t, __u32 flags, enum bpf_attach_type eat,
		const struct bpf_insn *insns, size_t n)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .prog_flags = flags, .expected_attach_type = eat);
	int fd = bpf_prog_load(t, NULL, "GPL", insns, n, &o);

	return fd < 0 ? -errno : fd;
}

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define MOV_IMM(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD_IMM(d, i)	INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define JLT_IMM(d, i, o) INSN(BPF_JMP | BPF_JLT | BPF_K, d, 0, o, i)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* r0 = 2 (XDP_PASS; TC_ACT_SHOT is 2 too, but no TC program here is attached); exit */
static const struct bpf_insn ret2[] = { MOV_IMM(0, 2), EXIT() };
/* r0 = 0 (TC_ACT_OK); exit */
static const struct bpf_insn ret0[] = { MOV_IMM(0, 0), EXIT() };

static int probe_xdp_frags(void)
{
	int fd = load(BPF_PROG_TYPE_XDP, BPF_F_XDP_HAS_FRAGS, 0, ret2, 2);

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return fd == -EINVAL ? 0 : fd;	/* an unknown flag: EINVAL */
}

/* tcx: a link on an ifindex no device has. A kernel with tcx looks for the
 * device (ENODEV); one without refuses the attach type itself (EINVAL). */
static int probe_tcx(void)
{
	int fd = load(BPF_PROG_TYPE_SCHED_CLS, 0, TCX_EGRESS, ret0, 2), l, r;

	if (fd < 0)
		return fd == -EINVAL ? 0 : fd;
	l = bpf_link_create(fd, INT_MAX, TCX_EGRESS, NULL);
	r = l >= 0 ? 1 : errno == ENODEV ? 1 : errno == EINVAL ? 0 : -errno;
	if (l >= 0)
		close(l);
	close(fd);
	return r;
}

/* for (r1 = 0; r1 < 4; r1++); a kernel without bounded loops refuses the back edge */
static int probe_loops(void)
{
	static const struct bpf_insn loop[] = {
		MOV_IMM(1, 0), ADD_IMM(1, 1), JLT_IMM(1, 4, -2), MOV_IMM(0, 2), EXIT(),
	};
	int fd = load(BPF_PROG_TYPE_XDP, 0, 0, loop, 5);

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return fd == -EINVAL ? 0 : fd;
}

static int probe_mmap_array(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_MMAPABLE);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, &o);

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno == EINVAL ? 0 : -errno;
}

void rt_bpf_features_probe(struct rt_bpf_features *bf)
{
	struct btf *vm = btf__load_vmlinux_btf();
	int e = vm ? 0 : -errno;

	for (int i = 0; i < RT_BF_N; i++) {
		bf->f[i].id = names[i].id;
		bf->f[i].name = names[i].name;
		bf->f[i].since = names[i].since;
	}
	bf->f[RT_BF_BTF].state = vm ? 1 : e == -ENOENT ? 0 : e;
	bf->f[RT_BF_XDP].state = yes_no(libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_XDP, NULL));
	/* The XDP link's kernel type, in the kernel's own BTF (no device to attach to is needed). */
	bf->f[RT_BF_XDP_LINK].state = vm ? btf__find_by_name_kind(vm, "bpf_xdp_link", BTF_KIND_STRUCT) > 0 :
					   -ENOENT;
	bf->f[RT_BF_XDP_FRAGS].state = probe_xdp_frags();
	bf->f[RT_BF_TC].state = yes_no(libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_SCHED_CLS, NULL));
	bf->f[RT_BF_TCX].state = probe_tcx();
	bf->f[RT_BF_RINGBUF].state = yes_no(libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL));
	bf->f[RT_BF_MMAP_ARRAY].state = probe_mmap_array();
	bf->f[RT_BF_BOUNDED_LOOPS].state = probe_loops();
	bf->f[RT_BF_BPF_LOOP].state = yes_no(libbpf_probe_bpf_helper(BPF_PROG_TYPE_XDP, BPF_FUNC_loop, NULL));
	btf__free(vm);
}

const char *rt_bpf_egress_attach(const struct rt_bpf_features *bf, char *why, size_t whylen)
{
	if (bf->f[RT_BF_TCX].state == 1) {
		snprintf(why, whylen, "the kernel has tcx: a link, gone with the process");
		return "tcx link";
	}
	if (bf->f[RT_BF_TC].state == 1) {
		snprintf(why, whylen, "no tcx (Linux 6.6): a clsact qdisc and a TC filter marked as "
			 "rocetop's, removed at exit and, after a kill, at the next start");
		return "TC clsact filter";
	}
	snprintf(why, whylen, "neither tcx nor TC classifiers could be loaded: --no-egress avoids egress");
	return "none";
}
