/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A flow's counters as one line, for the message of a failed check. */
#ifndef RT_TEST_FLOWVAL_H
#define RT_TEST_FLOWVAL_H
#include <stdio.h>
#include "rocetop.h"

static inline const char *flow_val_str(const struct rt_flow_val *v, char *buf, size_t len)
{
	snprintf(buf, len, "pkts %llu bytes %llu ecn %llu,%llu,%llu,%llu cnp %llu ack %llu nak %llu,%llu "
		 "rnr %llu sport %u dscp %u pcp %u op %u dscps %#llx prios %#x",
		 (unsigned long long)v->pkts, (unsigned long long)v->bytes,
		 (unsigned long long)v->ecn[0], (unsigned long long)v->ecn[1],
		 (unsigned long long)v->ecn[2], (unsigned long long)v->ecn[3],
		 (unsigned long long)v->cnp, (unsigned long long)v->ack,
		 (unsigned long long)v->nak_seq, (unsigned long long)v->nak_other,
		 (unsigned long long)v->rnr_nak, v->sport, v->dscp, v->pcp, v->opcode,
		 (unsigned long long)v->dscps, v->prios);
	return buf;
}

#endif
