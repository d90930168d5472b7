/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one loop (user/core/loop.c): a source's snapshots, stepped by the
 * stream (stream.h) and judged by the findings (findings.h), handed to every
 * sink once an interval. It runs what it is given: which source, which
 * sinks and what joins the source (the NIC, sFlow) are chosen above the
 * core, by the command (user/cmd/run.c), through the interfaces of
 * source.h, sink.h and stream.h; what the loop itself reads of the command
 * line is struct rt_loop_cfg, filled there too.
 */
#ifndef RT_LOOP_H
#define RT_LOOP_H

#include "findings.h"
#include "sink.h"
#include "source.h"
#include "stream.h"

#define RT_MAX_SINKS 8

#define RT_HOOK_READY	1
#define RT_HOOK_TICK	2

/* What the loop reads of the command line; rt_loop_init keeps a copy. */
struct rt_loop_cfg {
	double interval;		/* --interval seconds: the timer, and the first
					 * snapshot's length (a recording's: first_secs) */
	long iterations;		/* -n: intervals handed to the sinks, 0 = no limit */
	double speed;			/* --speed: replay speed of a paced file */
	int scraped;			/* --listen: a file without a view is paced as with
					 * one, so its scraper reads it as it goes */
	struct rt_find_cfg find;	/* --threshold, --link-speed: the findings' rules */
	/* A sink runs the findings' rules itself (the report's: its host, link
	 * speed and a recording's first interval); the loop does not. */
	int sink_findings;
	/*
	 * For embedding (the lab): called with RT_HOOK_READY once the source and
	 * sinks are up (a negative return aborts the run), and with RT_HOOK_TICK
	 * after every snapshot (a positive return ends the run after one last
	 * snapshot). NULL: none.
	 */
	int (*hook)(void *arg, int event);
	void *hook_arg;
};

/*
 * Another source whose rows join each snapshot (sFlow's collector): merge
 * adds them after the source's collect (rt_stream.merge); the loop polls fd
 * and calls read when it is readable, so datagrams are taken between
 * intervals. merge NULL: none.
 */
struct rt_merge {
	int fd;
	void (*read)(void *arg);
	int (*merge)(void *arg, struct rt_snapshot *snap);
	void *arg;
};

/* The probe mesh (user/probe/), whose rows join each snapshot last
 * (rt_stream.probes): add NULL: none. */
struct rt_probes_view {
	int (*add)(void *arg, struct rt_snapshot *snap);
	void *arg;
};

struct rt_loop {
	/* Given by the caller, between rt_loop_init and rt_loop_open: */
	struct rt_source *src;
	struct rt_nic_view nic;		/* .nic NULL: no NIC */
	struct rt_merge merge;
	struct rt_probes_view probes;
	double first_secs;		/* a recording's first interval (0: -d's) */
	/* Added with rt_loop_add_sink, in the order they get each snapshot: */
	struct rt_sink *sinks[RT_MAX_SINKS];
	int nsinks;
	/* The loop's own: */
	struct rt_loop_cfg cfg;		/* rt_loop_init's copy */
	struct rt_stream st;		/* the flow table and what changed */
	struct rt_findings findings;	/* rocetop's rules (rules.c), unless cfg.sink_findings */
	long emitted;
	__u64 missed;		/* timer expirations beyond one per tick read */
	__u64 file_start_ns;
};

void rt_loop_init(struct rt_loop *L, const struct rt_loop_cfg *cfg);
/* Once src, nic and merge are set: 0, or -ENOMEM after saying so. */
int rt_loop_open(struct rt_loop *L);
/* s NULL (its constructor failed and said why): -EINVAL; -E2BIG (said)
 * with RT_MAX_SINKS already. On failure s stays the caller's to close. */
int rt_loop_add_sink(struct rt_loop *L, struct rt_sink *s);
/* Start the sinks and run until the source ends, a stop signal, a sink's
 * quit, --iterations or the hook's end: 0 or a negative errno. */
int rt_loop_run(struct rt_loop *L);
/* The loop's own; the source, the sinks and the NIC are the caller's to close. */
void rt_loop_free(struct rt_loop *L);

#endif
