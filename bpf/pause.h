/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Paused time per priority, the one rule for every source: plain C shared by
 * the BPF programs (under a spin lock, bpf/rocetop.bpf.c) and the user-space
 * packet sources (pcap files), like count.h.
 *
 * A PFC frame that arrives at time t asking q quanta pauses its priority
 * until t + q x 512 bit times at the link speed. A later frame for the same
 * priority restarts that timer: it does not add to it (switches refresh
 * XOFF before it expires, so in a storm the pauses overlap), and a time of 0
 * (XON) ends the pause at once. Paused time is therefore the union over time
 * of the pause intervals, never more than the time elapsed. The sum of the
 * quanta stays a counter of its own (struct rt_if_val, pfc_quanta).
 *
 * State per priority: the time from which the pause in progress has not yet
 * been counted, the time it ends, and the nanoseconds counted. The total at
 * any moment adds the part of the pause in progress up to that moment, so
 * two totals taken at an interval's ends give the time paused inside it.
 */
#ifndef ROCETOP_PAUSE_H
#define ROCETOP_PAUSE_H

#include "parse.h"

/* The speed taken when none is known (user/core/linkspeed.h says so once). */
#define RT_PAUSE_ASSUMED_MBPS	100000ULL

struct rt_pause_prio {
	__u64 from;	/* ns: paused time before this is in paused */
	__u64 until;	/* ns: the end of the pause the last frame asked for */
	__u64 paused;	/* ns paused, counted up to from */
};

_Static_assert(sizeof(struct rt_pause_prio) == 24, "rt_pause_prio layout");

/* Nanoseconds that q quanta (512 bit times each) last at mbps Mb/s (0: the
 * assumed speed), rounded down: exact at 10, 25, 40 Gb/s for multiples of
 * 5 quanta, within 1 ns otherwise. */
static __always_inline __u64 rt_pause_len_ns(__u64 q, __u64 mbps)
{
	if (!mbps)
		mbps = RT_PAUSE_ASSUMED_MBPS;
	return q * 512000ULL / mbps;
}

/* A frame at t asking a pause of len ns (0: XON). A frame older than the
 * last one (frames of one priority taken on different CPUs) counts as of
 * the last one's time. */
static __always_inline void rt_pause_frame(struct rt_pause_prio *s, __u64 t, __u64 len)
{
	if (t < s->from)
		t = s->from;
	if (s->until > s->from)
		s->paused += (t < s->until ? t : s->until) - s->from;
	s->from = t;
	s->until = t + len;
}

/* Nanoseconds paused up to now, a time at or after the last frame (a total
 * taken earlier would not count what that frame ended). */
static __always_inline __u64 rt_pause_total(const struct rt_pause_prio *s, __u64 now)
{
	__u64 end = now < s->until ? now : s->until;

	return s->paused + (end > s->from ? end - s->from : 0);
}

/* Every priority a parsed PFC frame (or the global one of an 802.3x pause
 * frame) names, at t on a link of mbps Mb/s; st has RT_NPRIO entries. */
static __always_inline void rt_pause_count(struct rt_pause_prio *st, const struct rt_pkt *p, __u64 t,
					   __u64 mbps)
{
	int i;

	if (p->kind == RT_K_PAUSE) {
		rt_pause_frame(&st[RT_PRIO_GLOBAL], t, rt_pause_len_ns(p->pause[0], mbps));
		return;
	}
	if (p->kind != RT_K_PFC)
		return;
#pragma unroll
	for (i = 0; i < 8; i++)
		if (p->pfc_cev & (1 << i))
			rt_pause_frame(&st[i], t, rt_pause_len_ns(p->pause[i], mbps));
}

#endif /* ROCETOP_PAUSE_H */
