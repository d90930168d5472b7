/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The sinks of user/sinks/ (user/core/sink.h says what a sink is). Each
 * takes a config of its own, holding only what it reads, filled by the
 * command from its command line (user/cmd/run.c); the sink keeps no pointer
 * into it past its constructor. Each constructor returns NULL after saying
 * why (through the log).
 */
#ifndef RT_SINKS_H
#define RT_SINKS_H

#include <linux/types.h>
#include "sink.h"

/* --batch (batch.c): text, or JSON lines. */
struct rt_batch_cfg {
	int json;			/* --json: JSON lines, else the text tables */
	int top;			/* --top N: flows an interval */
	const char *sort;		/* --sort COLUMN (NULL: congestion) */
	int group_by;			/* --group-by: enum rt_group (user/core/job.h), 0: flows */
	int probe;			/* --probe: the JSON lines carry "probes", empty or not */
	__u64 speed_mbps;		/* --link-speed for paused time; 0: rt_link_speed decides */
};

/* --csv DIR (csv.c): a file per table, and meta.csv on the run. */
struct rt_csv_cfg {
	const char *dir;		/* --csv DIR */
	__u64 speed_mbps;		/* --link-speed, as in rt_batch_cfg */
	const char *hostname;		/* --hostname (NULL: this host's, rt_host_name) */
	const char *cmdline;		/* the command line meta.csv names (NULL: none) */
	int probe;			/* --probe: probes.csv from the start */
	int sflow;			/* sFlow runs: switchports.csv and drops.csv from the start */
};

/* -w FILE (record_sink.c): a recording, rotated past max_size. */
struct rt_record_cfg {
	const char *path;		/* -w FILE */
	long long max_size;		/* --max-size bytes, 0: no rotation */
	int max_files;			/* --max-files with max_size, 0: no limit */
	const char *hostname;		/* --hostname, as in rt_csv_cfg */
	const char *cmdline;		/* the command line the header names (NULL: none) */
};

/* --flight-recorder DURATION (flight.c): the last secs, written on a finding. */
struct rt_flight_cfg {
	double secs;			/* --flight-recorder DURATION */
	int trigger;			/* --trigger SEVERITY (enum rt_sev) */
	int max_files;			/* --max-files: recordings kept in dir, 0: no limit */
	const char *dir;		/* --flight-dir DIR (NULL: ".") */
	const char *hostname;		/* --hostname, as in rt_csv_cfg */
	const char *cmdline;		/* the command line the header names (NULL: none) */
};

/* --ipfix (ipfix.c): the collector. */
struct rt_ipfix_cfg {
	const char *dest;		/* [udp:|tcp:]HOST:PORT (user/sinks/ipfix.h) */
};

struct rt_sink *rt_batch_sink_new(const struct rt_batch_cfg *c);	/* batch.c: --batch */
struct rt_sink *rt_csv_sink_new(const struct rt_csv_cfg *c);		/* csv.c: --csv */
struct rt_sink *rt_flight_sink_new(const struct rt_flight_cfg *c);	/* flight.c: --flight-recorder */
struct rt_sink *rt_ipfix_sink_new(const struct rt_ipfix_cfg *c);	/* ipfix.c: --ipfix */
struct rt_sink *rt_record_sink_new(const struct rt_record_cfg *c);	/* record_sink.c: -w */
/* filtered.c: --filter EXPR in front of inner (--batch, --csv); inner itself
 * without a filter; NULL (inner closed) after saying why. */
struct rt_sink *rt_filtered_sink_new(struct rt_sink *inner, const char *expr);

#endif
