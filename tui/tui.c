// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The ncurses live view. (Placeholder until the view lands: falls back to --batch.) */
#include "log.h"
#include "sink.h"

struct rt_sink *rt_tui_sink_new(const struct rt_opts *o)
{
	pr_info("the full-screen view is not built yet; showing --batch output.\n");
	return rt_batch_sink_new(o);
}
