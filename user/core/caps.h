/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Linux capabilities, asked of the kernel (capget, no libcap): which ones a
 * feature lacks, named in the sentence that says it cannot run, and the drop
 * of every capability the run needs no more once its source is attached
 * (README.md, "Containers and Kubernetes", has the matrix of which feature
 * needs which).
 */
#ifndef RT_CAPS_H
#define RT_CAPS_H

#include <stddef.h>
#include <linux/types.h>

/* The capabilities rocetop's features use (linux/capability.h numbers). */
#define RT_CAP_DAC_OVERRIDE	1
#define RT_CAP_DAC_READ_SEARCH	2
#define RT_CAP_NET_BIND_SERVICE	10
#define RT_CAP_NET_ADMIN	12
#define RT_CAP_SYS_PTRACE	19
#define RT_CAP_SYS_ADMIN	21
#define RT_CAP_PERFMON		38
#define RT_CAP_BPF		39
#define RT_CAP(n)		(1ULL << (n))

/* The effective set. */
__u64 rt_caps_effective(void);

/*
 * The capabilities attaching the BPF programs needs that the effective set
 * eff lacks: CAP_NET_ADMIN, and CAP_BPF with CAP_PERFMON (CAP_SYS_ADMIN
 * stands for both, and is needed before Linux 5.8, which has neither:
 * last_cap, the kernel's highest capability, says which). 0: none lacking.
 */
__u64 rt_caps_attach_lacks(__u64 eff, int last_cap);
/* The highest capability the running kernel knows (/proc/sys/kernel/cap_last_cap). */
int rt_caps_last(void);

/* "CAP_BPF and CAP_PERFMON": the names in mask, into buf. */
const char *rt_caps_names(__u64 mask, char *buf, size_t len);

/*
 * Keep only the capabilities in keep that are held now: the effective,
 * permitted and inheritable sets, the ambient set and, while CAP_SETPCAP
 * allows it, the bounding set lose every other one. 0, or -errno.
 */
int rt_caps_keep(__u64 keep);

#endif
