// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The paused-time rule of bpf/pause.h on hand-placed frames: overlapping
 * XOFF (a refreshing storm), XOFF ended by XON, lone pauses, one frame
 * pausing two priorities, totals taken inside a pause (an interval's end),
 * frames out of order. Expected values are worked out by hand in the
 * comments; at 10 Gb/s one quantum is 51.2 ns, 0xffff quanta 3,355,392 ns.
 */
#include <string.h>
#include "check.h"
/* parse.h and pause.h unroll their loops for the BPF target; gcc has no use for the hint. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include "../../bpf/pause.h"
#pragma GCC diagnostic pop

static void test_len(void)
{
	CHECK_EQ(rt_pause_len_ns(0xffff, 10000), 3355392);	/* 65535 x 51.2 */
	CHECK_EQ(rt_pause_len_ns(10, 100000), 51);		/* 10 x 5.12 = 51.2, down */
	CHECK_EQ(rt_pause_len_ns(10, 0), 51);			/* 0: 100G assumed */
	CHECK_EQ(rt_pause_len_ns(1, 1000), 512);		/* 1G: 512 ns */
	CHECK_EQ(rt_pause_len_ns(0, 10000), 0);
	TEST_END("pause_len");
}

static void test_storm(void)
{
	struct rt_pause_prio s = { 0 };
	__u64 t0 = 1000000000ULL, t, at[2] = { 0 };
	int i;

	/* 2,000 XOFF of 0xffff quanta every 1 ms at 10G: each pause (3.36 ms)
	 * is refreshed after 1 ms; paused from the first frame to 3.355392 ms
	 * after the last: 1999 ms + 3.355392 ms. The quanta's sum would say
	 * 2000 x 3.355392 ms = 6.710784 s. Totals are taken as time goes on,
	 * at 0.5 s and 1.5 s (an interval's ends), between two frames. */
	for (i = 0; i < 2000; i++) {
		t = t0 + (__u64)i * 1000000ULL;
		if (i == 500 || i == 1500)
			at[i == 1500] = rt_pause_total(&s, t - 500000ULL);
		rt_pause_frame(&s, t, rt_pause_len_ns(0xffff, 10000));
	}
	CHECK_EQ(at[0], 499500000ULL);
	/* a 1-s interval inside the storm is paused 1 s, not 3.36 s */
	CHECK_EQ(at[1] - at[0], 1000000000ULL);
	t = t0 + 1999000000ULL;
	CHECK_EQ(rt_pause_total(&s, t), 1999000000ULL);		/* at the last frame */
	CHECK_EQ(rt_pause_total(&s, t + 1000000ULL), 2000000000ULL);	/* 1 ms later */
	CHECK_EQ(rt_pause_total(&s, t + 10000000ULL), 1999000000ULL + 3355392ULL);
	TEST_END("pause_storm");
}

static void test_xon(void)
{
	struct rt_pause_prio s = { 0 };

	/* XOFF 0xffff at 1000 ns, XON 0.5 ms later: 500,000 ns, not 3.36 ms */
	rt_pause_frame(&s, 1000, rt_pause_len_ns(0xffff, 10000));
	CHECK_EQ(rt_pause_total(&s, 1000 + 200000), 200000);	/* taken mid-pause */
	rt_pause_frame(&s, 1000 + 500000, 0);
	CHECK_EQ(rt_pause_total(&s, 1000 + 500000), 500000);
	CHECK_EQ(rt_pause_total(&s, 50000000), 500000);
	/* a second XON adds nothing; a lone pause of 1000 quanta later adds 51.2 us */
	rt_pause_frame(&s, 2000000, 0);
	rt_pause_frame(&s, 3000000, rt_pause_len_ns(1000, 10000));
	CHECK_EQ(rt_pause_total(&s, 3000000 + 10000), 510000);
	CHECK_EQ(rt_pause_total(&s, 9000000), 500000 + 51200);
	/* a frame after the pause ended counts the whole pause, then its own */
	rt_pause_frame(&s, 9000000, rt_pause_len_ns(5, 10000));
	CHECK_EQ(rt_pause_total(&s, 9000000), 551200);
	CHECK_EQ(rt_pause_total(&s, 9000256), 551456);
	/* before the first frame: nothing */
	CHECK_EQ(rt_pause_total(&(struct rt_pause_prio){ 0 }, 5), 0);
	TEST_END("pause_xon");
}

static void test_order(void)
{
	struct rt_pause_prio s = { 0 };

	/* a frame stamped before the last one (another CPU) counts at the last
	 * one's time: 100 ns of the first pause, then a new 5120 ns pause */
	rt_pause_frame(&s, 1000, 10000);
	rt_pause_frame(&s, 1100, 5120);
	rt_pause_frame(&s, 1050, 5120);
	CHECK_EQ(rt_pause_total(&s, 100000), 100 + 5120);
	TEST_END("pause_order");
}

static void test_frames(void)
{
	struct rt_pause_prio st[RT_NPRIO];
	struct rt_pkt p;
	int i;

	memset(st, 0, sizeof(st));
	memset(&p, 0, sizeof(p));
	/* one PFC frame enabling priorities 3 and 5 (3: 100 quanta, 5: XON),
	 * priority 1's time given but not enabled */
	p.kind = RT_K_PFC;
	p.pfc_cev = (1 << 3) | (1 << 5);
	p.pause[3] = 100;
	p.pause[1] = 0xffff;
	rt_pause_count(st, &p, 1000, 10000);
	CHECK_EQ(rt_pause_total(&st[3], 1000000), 5120);
	for (i = 0; i < RT_NPRIO; i++)
		if (i != 3)
			CHECK_EQ(rt_pause_total(&st[i], 1000000), 0);
	/* 802.3x: the global one */
	p.kind = RT_K_PAUSE;
	p.pause[0] = 200;
	rt_pause_count(st, &p, 2000, 10000);
	CHECK_EQ(rt_pause_total(&st[RT_PRIO_GLOBAL], 1000000), 10240);
	CHECK_EQ(rt_pause_total(&st[0], 1000000), 0);
	/* a RoCE frame: nothing */
	p.kind = RT_K_ROCE;
	rt_pause_count(st, &p, 3000, 10000);
	CHECK_EQ(rt_pause_total(&st[RT_PRIO_GLOBAL], 1000000), 10240);
	TEST_END("pause_frames");
}

int main(void)
{
	test_len();
	test_storm();
	test_xon();
	test_order();
	test_frames();
	return TEST_EXIT();
}
