/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A sink consumes snapshots: batch text, CSV, the TUI, Prometheus, the
 * recorder. The main loop calls emit() once an interval with the current
 * snapshot and what changed since the previous one.
 */
#ifndef RT_SINK_H
#define RT_SINK_H

#include "snapshot.h"

struct rt_source;
struct rt_findings;

/* What an interactive sink may ask of the main loop. */
struct rt_ctl {
	int quit;
	int paused;		/* stop taking new snapshots; the view stays */
	double interval;	/* the loop re-arms its timer when this changes */
	int step;		/* while paused: take this many snapshots, then stay paused */
	double seek_to;		/* files: > 0 asks to restart at this capture time (s since start) */
	double speed;		/* files: replay speed */
	int is_file;		/* set by the loop: the source is a file */
	int at_end;		/* set by the loop: a file source has no more snapshots */
};

struct rt_sink {
	const char *name;
	/* Called once an interval; returns 0 or a negative errno. */
	int (*emit)(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d);
	/* Flush and free; called once at exit, also after errors. */
	void (*close)(struct rt_sink *s);
	/* Optional: an fd to poll (the TUI's stdin) and its handler. */
	int input_fd;
	int (*on_input)(struct rt_sink *s, struct rt_ctl *ctl);
	/* Optional: called once before the first snapshot, with the source
	 * (its name says what it is: "live", "pcap", "recording", "sflow"). */
	void (*start)(struct rt_sink *s, const struct rt_source *src);
	/* Optional: called when the loop has nothing to do for a while (redraw clocks). */
	void (*on_idle)(struct rt_sink *s, struct rt_ctl *ctl);
	/* Optional: a signal the loop passes on (SIGUSR1: the flight recorder). */
	void (*on_signal)(struct rt_sink *s, int signo);
	/* Optional: a file source ended; the findings still open were closed
	 * there (rt_findings_finish), their closes are F's events. */
	void (*on_end)(struct rt_sink *s, const struct rt_findings *F);
	void *priv;
};

typedef int (*rt_sink_emit_fn)(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d);
typedef void (*rt_sink_close_fn)(struct rt_sink *s);

/* Fills the fields every sink sets: its name, emit, close, private state, and
 * no fd to poll; the optional hooks are the caller's. */
void rt_sink_init(struct rt_sink *s, const char *name, rt_sink_emit_fn emit, rt_sink_close_fn close,
		  void *priv);
/* A sink (rt_sink_init) with priv_size zeroed bytes of private state at
 * s->priv; NULL after saying "out of memory". */
struct rt_sink *rt_sink_new(const char *name, size_t priv_size, rt_sink_emit_fn emit,
			    rt_sink_close_fn close);
/* Frees what rt_sink_new allocated (the private state's own buffers are the
 * sink's to free first). */
void rt_sink_free(struct rt_sink *s);

/* The sinks' constructors are above the core: user/sinks/sinks.h, tui/tui.h,
 * exporters/prom.h; user/cmd/run.c chooses them. */

#endif
