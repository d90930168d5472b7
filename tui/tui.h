/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The interactive view as a sink (tui/tui.c; user/core/sink.h). */
#ifndef RT_TUI_H
#define RT_TUI_H

#include "opts.h"
#include "sink.h"

/* NULL after saying why (through the log). */
struct rt_sink *rt_tui_sink_new(const struct rt_opts *o);

#endif
