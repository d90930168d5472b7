// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The defaults of struct rt_opts, before any command line fills it. */
#include <string.h>
#include "opts.h"

/* same shape as rt_find_cfg_defaults (findings.c): each struct's own defaults */
void rt_opts_defaults(struct rt_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->interval = 1.0;
	o->max_flows = 16384;
	o->flow_timeout = 60;
	o->prom_flows = 10;
	o->speed = 1.0;
	o->top = 20;
	o->probe_rate = 10;
	o->probe_paths = 2;
	o->probe_timeout = 1;
	o->probe_sizes = "64,mtu";
	/* the findings' thresholds, those of `rocetop probe` (RT_PROBE_THRESHOLDS_DEFAULT) */
	o->probe_loss_pct = 0.5;
	o->probe_window = 10;
	o->probe_net_us = 2000;
	o->probe_resp_us = 1000;
	o->max_files = 0;
	rt_find_cfg_defaults(&o->find);
	o->trigger = RT_SEV_CRITICAL;
}
