/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The interactive view as a sink (tui/tui.c; user/core/sink.h). */
#ifndef RT_TUI_H
#define RT_TUI_H

#include "sink.h"

/* What the live view takes from the command line (user/cmd/run.c fills it). */
struct rt_tui_cfg {
	const char *sort;	/* --sort: a column's name; NULL: by congestion */
	const char *filter;	/* --filter: the first filter (the command line checked it); NULL: none */
	double interval;	/* --interval, seconds */
	double speed;		/* --speed: the replay speed of a file */
	__u64 speed_mbps;	/* --link-speed for paused time; 0: rt_link_speed decides */
};

/* NULL after saying why (through the log). */
struct rt_sink *rt_tui_sink_new(const struct rt_tui_cfg *c);

#endif
