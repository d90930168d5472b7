// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe table's names (probe_row.h): a finding's and a clock's, as every
 * output prints them.
 */
#include "probe_row.h"

const char *rt_probe_finding_name(enum rt_probe_finding f)
{
	static const char *const names[RT_PF__N] = {
		[RT_PF_NONE] = "-", [RT_PF_PATH_DOWN] = "path-down", [RT_PF_PATH_LOSS] = "path-loss",
		[RT_PF_PATH_LATENCY] = "path-latency", [RT_PF_HOST_STALL] = "host-stall",
	};

	return (unsigned)f < RT_PF__N ? names[f] : "-";
}

const char *rt_probe_clock_name(int clock)
{
	return clock == RT_PROBE_CLOCK_DEVICE ? "device" : clock == RT_PROBE_CLOCK_SYSTEM ? "system" : "none";
}
