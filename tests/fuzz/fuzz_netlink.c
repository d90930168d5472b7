// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: the kernel's netlink answers rocetop decodes (rdma netlink
 * resource and statistics dumps, STAT_GET_STATUS, the binding mode, DCB
 * netlink IEEE_GET), arbitrary bytes through every parser. Beyond "no crash,
 * no read past the buffer": what comes out stays within its bounds.
 */
#include <stdlib.h>
#include <string.h>
#include "nic.h"

int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	struct rt_qp_table qps = { 0 };
	struct rt_qpc_table qpc = { 0 };
	struct rt_stat_status *st = calloc(1, sizeof(*st));
	struct rt_stat_mode m;
	struct rt_dcb *d = calloc(1, sizeof(*d));
	void *buf = malloc(size ? size : 1);	/* aligned, as a recv buffer is */

	if (!buf || !st || !d)
		goto out;
	memcpy(buf, data, size);
	rt_rdma_nl_parse(buf, size, &qps);
	if (qps.ndevs > RT_QP_MAX_DEVS)
		abort();
	rt_qpc_parse(buf, size, &qpc);
	for (size_t i = 0; i < qpc.n; i++)
		if (!qpc.r[i].name[0] || strnlen(qpc.r[i].name, sizeof(qpc.r[i].name)) == sizeof(qpc.r[i].name))
			abort();	/* every row has a name, terminated */
	rt_stat_status_parse(buf, size, st);
	if (st->n > RT_STAT_MAX_COUNTERS)
		abort();
	rt_stat_mode_parse(buf, size, &m);
	rt_dcb_parse(buf, size, d);
	if (d->napp > RT_DCB_MAX_APP)
		abort();
	for (size_t i = 0; i < d->napp; i++)
		if (d->app[i].priority > 7)
			abort();
out:
	rt_qp_table_free(&qps);
	rt_qpc_table_free(&qpc);
	free(st);
	free(d);
	free(buf);
	return 0;
}
