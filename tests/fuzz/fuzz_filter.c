// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: the filter language (user/core/filter.h), as --filter, report
 * --filter and the view's '/' take it. Each input is a filter's text (a NUL
 * ends it; inputs run to make fuzz's 65,536 bytes, deep enough for the
 * 32-level bound on '(' and 'not'). A parse must give a filter or an error
 * sentence, never both; a filter is then applied to a flow with a counter of
 * each kind set, and to a NIC counter, and must answer 0 or 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "filter.h"
#include "log.h"
#include "snapshot.h"

static struct rt_snapshot S;
static struct rt_flow fl;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	rt_verbosity = -1;
	rt_snapshot_init(&S);
	rt_snapshot_add_iface(&S, 2, "eth0", "file");
	fl.k.family = 4;
	fl.k.ifindex = 2;
	fl.k.dqpn = 0x200;
	inet_pton(AF_INET, "10.0.0.1", fl.k.src);
	inet_pton(AF_INET, "10.0.0.2", fl.k.dst);
	fl.v.pkts = 9;
	fl.v.ecn[RT_ECN_CE] = 1;
	fl.v.cnp = 2;
	fl.v.nak_seq = 3;
	fl.v.rnr_nak = 4;
	fl.v.dscp = 26;
	fl.pid = 77;
	memcpy(fl.comm, "ib_write_bw", 12);
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 1), err[256] = "";
	struct rt_filter *F = NULL;
	struct rt_port_ctr pc = { .dev = "mlx5_0", .netdev = "eth0", .name = "np_cnp_sent" };
	int r;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	r = rt_filter_parse(text, &F, err, sizeof(err));
	if ((r == 0 && err[0]) || (r == -EINVAL && (!err[0] || F)))
		abort();	/* a filter and an error, or an error without its sentence */
	if (F) {
		r = rt_filter_flow(F, &S, &fl, NULL, NULL);
		if (r != 0 && r != 1)
			abort();
		if (rt_filter_kinds(F) & RT_FK_PORT) {	/* as the NIC ports view asks */
			struct rt_fsubj sp = { .kind = RT_FK_PORT, .port = &pc, .paused = -1 };

			r = rt_filter_match(F, &sp);
			if (r != 0 && r != 1)
				abort();
		}
		rt_filter_free(F);
	}
	free(text);
	return 0;
}
