/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The value of the live programs' pause map (bpf/rocetop.bpf.c, pausestate),
 * shared with its user side (user/sources/live.c) and test_bpf. Apart from
 * pause.h because it needs linux/bpf.h, whose struct bpf_insn libpcap's
 * headers also define (user/sources/pcap.c takes pause.h).
 */
#ifndef ROCETOP_PAUSE_MAP_H
#define ROCETOP_PAUSE_MAP_H

#include <linux/bpf.h>
#include "pause.h"

/* The live programs' state of one interface slot and direction: one entry
 * of a map shared by every CPU (frames of one priority can reach several),
 * changed under its lock. User space writes mbps (the link speed
 * user/sources/live.c decides) and reads the totals with BPF_F_LOCK. */
struct rt_pause_val {
	struct bpf_spin_lock lock;
	__u32 mbps;		/* 0: RT_PAUSE_ASSUMED_MBPS */
	struct rt_pause_prio prio[RT_NPRIO];
};

_Static_assert(sizeof(struct rt_pause_val) == 8 + 24 * RT_NPRIO, "rt_pause_val layout");

#endif /* ROCETOP_PAUSE_MAP_H */
