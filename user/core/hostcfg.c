// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A host's congestion settings as a snapshot and a recording carry them
 * (hostcfg.h): the empty row, the names of the DCQCN parameters kept, and the
 * priority a DSCP takes on the host.
 */
#include <string.h>
#include "hostcfg.h"

const char *const rt_cc_param_names[RT_CC__N] = {
	[RT_CC_NP_CNP_DSCP] = "np_cnp_dscp",
	[RT_CC_NP_CNP_PRIO] = "np_cnp_prio",
	[RT_CC_NP_MIN_TIME_BETWEEN_CNPS] = "np_min_time_between_cnps",
	[RT_CC_RP_AI_RATE] = "rp_ai_rate",
	[RT_CC_RP_HAI_RATE] = "rp_hai_rate",
	[RT_CC_RP_MIN_DEC_FAC] = "rp_min_dec_fac",
	[RT_CC_RP_MIN_RATE] = "rp_min_rate",
	[RT_CC_RP_GD] = "rp_gd",
	[RT_CC_RP_TIME_RESET] = "rp_time_reset",
	[RT_CC_RP_BYTE_RESET] = "rp_byte_reset",
	[RT_CC_RP_CLAMP_TGT_RATE] = "rp_clamp_tgt_rate",
	[RT_CC_RP_RATE_REDUCE_MONITOR_PERIOD] = "rp_rate_reduce_monitor_period",
};

void rt_hostcfg_init(struct rt_hostcfg *c)
{
	memset(c, 0, sizeof(*c));
	c->mtu = c->active_mtu = c->pfc_tout = c->roce_tos = c->roce_prio = -1;
	memset(c->dscp_prio, 0xff, sizeof(c->dscp_prio));
	memset(c->np_en, 0xff, sizeof(c->np_en));	/* -1 */
	memset(c->rp_en, 0xff, sizeof(c->rp_en));
	for (int i = 0; i < RT_CC__N; i++)
		c->cc[i] = -1;
}

int rt_hostcfg_dscp_prio(const struct rt_hostcfg *c, unsigned int dscp)
{
	if (!c->app_known || !c->trusts_dscp || dscp > 63)
		return -1;
	/* Not in the APP table: mlx5's default DSCP map, DSCP d on priority d >> 3. */
	return c->dscp_prio[dscp] != 0xff ? c->dscp_prio[dscp] : (int)(dscp >> 3);
}

int rt_roce_mtu_for(int netdev_mtu)
{
	/* GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4, as iboe_get_mtu */
	int room = netdev_mtu - 96;

	for (int m = 4096; m >= 256; m /= 2)
		if (room >= m)
			return m;
	return -1;
}
