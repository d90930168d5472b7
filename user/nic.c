// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The NIC's own counters. (Placeholder: none.) */
#include <stdlib.h>
#include "source.h"

struct rt_nic {
	int unused;
};

struct rt_nic *rt_nic_new(const struct rt_opts *o)
{
	(void)o;
	return NULL;
}

void rt_nic_collect(struct rt_nic *n, struct rt_snapshot *snap)
{
	(void)n;
	(void)snap;
}

void rt_nic_free(struct rt_nic *n)
{
	free(n);
}
