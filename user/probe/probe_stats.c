// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a path's probes saw (user/probe/probe.h): per path and size, the counts
 * since the start and in the interval, the interval's round trips split into
 * the network's and the responder's part, their quantiles, and the findings a
 * window of intervals supports: path-down, path-loss, path-latency and
 * host-stall, each with its evidence in one sentence. Pure arithmetic: the
 * unit tests (tests/unit/test_probe.c) drive it with hand-made answers.
 */
#include <stdio.h>
#include <stdlib.h>
#include "probe.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

double rt_probe_quantile(uint32_t *v, uint32_t n, double p)
{
	uint32_t k;

	if (!n)
		return -1;
	qsort(v, n, sizeof(*v), cmp_u32);
	/* nearest rank: the smallest value with at least p of the values at or below it */
	k = (uint32_t)(p * n + 0.999999);
	if (k < 1)
		k = 1;
	return v[(k > n ? n : k) - 1];
}

static uint32_t us_of(uint64_t ns)
{
	uint64_t us = (ns + 500) / 1000;

	return us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

uint64_t rt_probe_stall_of(uint64_t gap_ns)
{
	return gap_ns > RT_PROBE_TICK_NS + RT_PROBE_SLACK_NS ? gap_ns - RT_PROBE_TICK_NS : 0;
}

/*
 * A probe (or its answer) came at an unknown moment of a stall, so the time
 * it waited is unknown: all of the stall is taken as the host's, never the
 * network's. The responder's time is its work and its whole stall (never
 * more than the round trip); the network's is the rest, less this prober's
 * whole stall. A stalled host thus never shows as a slow network; in such an
 * interval the network's time is a lower bound.
 */
void rt_probe_cell_answer(struct rt_probe_cell *c, uint64_t rtt_ns, uint64_t resp_ns, uint64_t own_stall_ns)
{
	struct rt_probe_samples *s = &c->s;
	uint64_t resp = resp_ns < rtt_ns ? resp_ns : rtt_ns, mine = resp + own_stall_ns,
		 net = rtt_ns > mine ? rtt_ns - mine : 0;
	uint32_t k = s->n;

	c->answered++;
	c->i_answered++;
	if (k >= RT_PROBE_NSAMPLES) {
		/* a reservoir: every answer of the interval equally likely to be kept */
		k = (uint32_t)(((uint64_t)rand() * (s->n + 1)) / ((uint64_t)RAND_MAX + 1));
		if (k >= RT_PROBE_NSAMPLES) {
			s->n++;
			return;
		}
	}
	s->rtt_us[k] = us_of(rtt_ns);
	s->net_us[k] = us_of(net);
	s->resp_us[k] = us_of(resp);
	s->n++;
}

void rt_probe_cell_stats(struct rt_probe_cell *c, struct rt_probe_stats *st)
{
	uint32_t n = c->s.n < RT_PROBE_NSAMPLES ? c->s.n : RT_PROBE_NSAMPLES;
	uint64_t done = c->i_answered + c->i_lost;

	st->sent = c->i_sent;
	st->lost = c->i_lost;
	st->answered = c->i_answered;
	st->loss = done ? (double)c->i_lost / (double)done : 0;
	st->rtt_p50 = rt_probe_quantile(c->s.rtt_us, n, 0.5);
	st->rtt_p99 = rt_probe_quantile(c->s.rtt_us, n, 0.99);
	st->net_p50 = rt_probe_quantile(c->s.net_us, n, 0.5);
	st->resp_p50 = rt_probe_quantile(c->s.resp_us, n, 0.5);
}

void rt_probe_cell_roll(struct rt_probe_cell *c, const struct rt_probe_stats *st,
			enum rt_probe_finding f, int window)
{
	uint32_t slot = c->nroll % (uint32_t)(window > 0 && window <= 32 ? window : 32);

	c->w_ans[slot] = (uint32_t)c->i_answered;
	c->w_lost[slot] = (uint32_t)c->i_lost;
	c->nroll++;
	if (st->net_p50 >= 0 && f != RT_PF_PATH_LATENCY && f != RT_PF_PATH_DOWN) {
		c->base_n++;
		c->net_base_us += (st->net_p50 - c->net_base_us) / (c->base_n < 30 ? c->base_n : 30);
	}
	c->i_sent = c->i_answered = c->i_lost = 0;
	c->s.n = 0;
}

/* The window's answered and lost probes: the closed intervals in it and this one. */
static void window_counts(const struct rt_probe_cell *c, int window, uint64_t *ans, uint64_t *lost)
{
	uint32_t w = (uint32_t)(window > 0 && window <= 32 ? window : 32), closed = c->nroll < w - 1 ? c->nroll : w - 1;

	*ans = c->i_answered;
	*lost = c->i_lost;
	for (uint32_t i = 1; i <= closed; i++) {
		uint32_t slot = (c->nroll - i) % w;

		*ans += c->w_ans[slot];
		*lost += c->w_lost[slot];
	}
}

enum rt_probe_finding rt_probe_judge(const struct rt_probe_cell *c, const struct rt_probe_stats *st,
				     const struct rt_probe_thresholds *t, char *why, size_t whylen)
{
	uint64_t ans, lost;
	int net_high;

	why[0] = '\0';
	window_counts(c, t->window, &ans, &lost);
	if (!ans && lost >= (uint64_t)(t->loss_min > 3 ? t->loss_min : 3)) {
		snprintf(why, whylen, "all %llu probes of the last %d intervals lost",
			 (unsigned long long)lost, t->window);
		return RT_PF_PATH_DOWN;
	}
	if (lost >= (uint64_t)t->loss_min && (double)lost >= t->loss * (double)(ans + lost)) {
		snprintf(why, whylen, "%llu of %llu probes lost (%.1f%%) in the last %d intervals",
			 (unsigned long long)lost, (unsigned long long)(ans + lost),
			 100.0 * (double)lost / (double)(ans + lost), t->window);
		return RT_PF_PATH_LOSS;
	}
	if (st->net_p50 < 0)
		return RT_PF_NONE;
	net_high = st->net_p50 > t->net_us ||
		   (c->base_n >= 5 && st->net_p50 > t->net_factor * c->net_base_us &&
		    st->net_p50 - c->net_base_us > t->net_over_us);
	if (net_high) {
		snprintf(why, whylen, "network time p50 %.0f us (usually %.0f us), responder %.0f us",
			 st->net_p50, c->base_n ? c->net_base_us : st->net_p50, st->resp_p50);
		return RT_PF_PATH_LATENCY;
	}
	if (st->resp_p50 > t->resp_us) {
		snprintf(why, whylen, "responder time p50 %.0f us while the network's is %.0f us as usual: the peer host stalls",
			 st->resp_p50, st->net_p50);
		return RT_PF_HOST_STALL;
	}
	return RT_PF_NONE;
}
