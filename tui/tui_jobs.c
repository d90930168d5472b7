// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The arithmetic of the live view's jobs view: the flow rows folded by job
 * through rt_jobagg (as --group-by job folds them), and the time the
 * interfaces and priorities each job's flows cross were paused. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "derive.h"
#include "fmt.h"
#include "linkspeed.h"
#include "tui_model.h"

/* "rx_prio3_pause_duration" or "tx_prio3_pause_duration" of priority prio. */
static int is_duration(const char *name, unsigned int prio)
{
	char want[40];

	snprintf(want, sizeof(want), "x_prio%u_pause_duration", prio);
	return (name[0] == 'r' || name[0] == 't') && !strcmp(name + 1, want);
}

double tui_paused_secs(const struct rt_snapshot *s, const struct rt_delta *D, int totals, __u64 speed_given,
		       const char *ifname, unsigned int prio)
{
	double best = 0, ps, us;

	if (prio >= RT_NPRIO)
		return 0;
	for (size_t i = 0; i < D->nifs; i++) {
		const char *ifn = rt_snapshot_ifname(s, D->ifs[i].s->k.ifindex);

		if (!rt_paused_any(&D->ifs[i].d, prio) || strcmp(ifn, ifname))
			continue;
		ps = rt_paused_secs(s, D->ifs[i].s, &D->ifs[i].d, prio, totals ? 0 : D->secs, speed_given);
		if (ps > best)
			best = ps;
	}
	for (size_t i = 0; i < D->nports; i++) {
		const struct rt_port_ctr *pc = D->ports[i].c;

			/* the NIC's own count, in microseconds (mlx5) */
		if (pc->scope != RT_SCOPE_ETHTOOL || strcmp(pc->netdev, ifname) || !is_duration(pc->name, prio))
			continue;
		us = (double)(totals ? pc->value : D->ports[i].d);
		if (us / 1e6 > best)
			best = us / 1e6;
	}
	return best;
}

int tui_jobs_fold(const struct rt_snapshot *s, const struct rt_delta *D, int totals, __u64 speed_given,
		  const struct tui_row *rows, size_t n, struct rt_jobagg *a)
{
	rt_jobagg_clear(a);
	for (size_t i = 0; i < n; i++) {
		const struct rt_flow *f = rows[i].f;
		double ps;

		if (rt_jobagg_add(a, s, f, &rows[i].d))
			return -ENOMEM;
		ps = tui_paused_secs(s, D, totals, speed_given, rt_snapshot_ifname(s, f->k.ifindex), rt_flow_prio(f));
		if (ps > a->last->paused)
			a->last->paused = ps;
	}
	return 0;
}
