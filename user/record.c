// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Recordings. (Placeholder.) */
#include "log.h"
#include "sink.h"

struct rt_sink *rt_record_sink_new(const struct rt_opts *o)
{
	(void)o;
	pr_warn("-w is not available in this build.\n");
	return NULL;
}
