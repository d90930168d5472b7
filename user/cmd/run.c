// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The composition of a run: which source, which sinks and what joins the
 * source (sFlow's collector, the NIC's counters) a command line asks for,
 * built here at the top and handed to the one loop (user/core/loop.h),
 * which knows them only through source.h, sink.h and stream.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "caps.h"
#include "cmd.h"
#include "log.h"
#include "jobs.h"
#include "loop.h"
#include "nic.h"
#include "probe_table.h"
#include "prom.h"
#include "sflow.h"
#include "sinks.h"
#include "source.h"
#include "sources.h"
#include "src_cfg.h"
#include "tui.h"

/* What the run built besides the loop's source and sinks, closed at its end. */
struct parts {
	struct rt_sflow *sf;
	struct rt_nic *nic;
	struct rt_jobs *jobs;	/* the QP owners' jobs (user/nic/jobs.h) */
	struct rt_probe_table *probes;	/* --probe: the mesh, in a thread of its own */
};

/* The probe mesh's rows, added to each snapshot (rt_stream.probes): the
 * peers the QP table names join first. */
static int add_probes(void *arg, struct rt_snapshot *snap)
{
	struct parts *P = arg;

	rt_probe_table_from_qps(P->probes, rt_nic_view(P->nic).qps);
	return rt_probe_table_rows(P->probes, snap);
}

/*
 * --probe: the mesh answers on every RoCE port and probes the listed peers
 * and those the QP table names, with `rocetop probe`'s defaults for what
 * the main command line does not set. 0 or -EINVAL (said).
 */
static int build_probes(struct rt_loop *L, struct parts *P, const struct rt_opts *o)
{
	struct rt_probe_thresholds th = RT_PROBE_THRESHOLDS_DEFAULT;
	struct rt_probe_cfg cfg = {
		.cm_port = 18515, .qkey = RT_PROBE_QKEY, .answer = 1, .npaths = o->probe_paths,
		.rate = o->probe_rate, .timeout = o->probe_timeout, .answer_rate = 1000, .tclass = 106,
	};

	if (rt_probe_parse_sizes(o->probe_sizes, &cfg))
		return -EINVAL;
	th.loss = o->probe_loss_pct / 100;
	th.window = o->probe_window;
	th.net_us = o->probe_net_us;
	th.resp_us = o->probe_resp_us;
	P->probes = rt_probe_table_new(&cfg, &th, RT_PROBE_MAX_PEERS);
	if (!P->probes || (o->probe_peers && rt_probe_table_read_peers(P->probes, o->probe_peers)) ||
	    rt_probe_table_start(P->probes) || rt_probe_table_thread(P->probes))
		return -EINVAL;
	rt_probe_table_forget_after(P->probes, o->flow_timeout);
	L->probes = (struct rt_probes_view){ .add = add_probes, .arg = P };
	return 0;
}

/* sFlow's rows, added to each snapshot the source took (rt_stream.merge). */
static int merge_sflow(void *arg, struct rt_snapshot *snap)
{
	struct rt_sflow *sf = arg;

	rt_sflow_read(sf);	/* what arrived since the last wakeup */
	if (rt_sflow_collect(sf, snap)) {
		pr_warn("out of memory collecting sFlow.\n");
		return -ENOMEM;
	}
	return 1;
}

static void read_sflow(void *arg)
{
	rt_sflow_read(arg);
}

/*
 * A recording from before its snapshots carried the length they were rated
 * over (rt_snapshot.interval_ns): its first interval takes the second's (its
 * snapshots are one interval apart), for the loop and so for report and -r
 * alike. Read from a second open of the file, so only for a file that can be
 * read twice (not a pipe).
 */
static double recording_first_secs(struct rt_opts *o, const char *path)
{
	struct rt_snapshot snaps[2];
	struct rt_file_cfg fc;
	struct rt_source *src;
	struct stat st;
	double secs = 0;

	if (!strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	o->read_file = path;
	fc = rt_file_cfg_of(o);
	rt_log_hold(1);	/* the run itself says what is wrong with the file */
	src = rt_file_source_new(&fc);
	rt_log_hold(0);
	if (!src)
		return 0;
	rt_snapshot_init(&snaps[0]);
	rt_snapshot_init(&snaps[1]);
	if (!strcmp(src->name, "recording")) {
		rt_log_hold(1);
		if (src->collect(src, &snaps[0]) > 0 && src->collect(src, &snaps[1]) > 0 &&
		    snaps[1].time_ns > snaps[0].time_ns)
			secs = (snaps[1].time_ns - snaps[0].time_ns) / 1e9;
		rt_log_hold(0);
	}
	src->close(src);
	rt_snapshot_free(&snaps[0]);
	rt_snapshot_free(&snaps[1]);
	return secs;
}

/*
 * The source: a file (-r), sFlow's clock for --sflow alone, else the live
 * interfaces; sFlow's collector merged into it, the NIC's counters joined to
 * a live one. 0 or a negative errno (said).
 */
static int build_source(struct rt_loop *L, struct parts *P, const struct rt_opts *o)
{
	struct rt_sflow_cfg sc = rt_sflow_cfg_of(o);
	struct rt_live_cfg lc = rt_live_cfg_of(o);
	struct rt_file_cfg fc = rt_file_cfg_of(o);
	struct rt_nic_cfg nc = rt_nic_cfg_of(o);
	char proc[PATH_MAX];

	if (o->sflow || o->have_sflow_fd) {
		P->sf = rt_sflow_new(&sc);
		if (!P->sf)
			return -EINVAL;
		L->merge = (struct rt_merge){
			.fd = rt_sflow_fd(P->sf), .read = read_sflow, .merge = merge_sflow, .arg = P->sf,
		};
	}
	L->src = o->read_file ? rt_file_source_new(&fc) :
		P->sf && !o->nifaces ? rt_sflow_clock_source_new(&sc) : rt_live_source_new(&lc);
	/* Degrading, not failing: the interfaces cannot be attached for want of
	 * a capability (said), sFlow and the sinks run on. */
	if (!L->src && P->sf && o->nifaces && rt_caps_attach_lacks(rt_caps_effective(), rt_caps_last())) {
		pr_warn("the interfaces are not watched: sFlow and the outputs run on without them.\n");
		L->src = rt_sflow_clock_source_new(&sc);
	}
	if (!L->src)
		return -EINVAL;
	if (!strcmp(L->src->name, "recording")) {
		struct rt_opts again = *o;

		L->first_secs = recording_first_secs(&again, o->read_file);
	}
	if (L->src->live && !o->no_nic) {
		P->nic = rt_nic_new(&nc);
		P->jobs = P->nic ? rt_jobs_new(o->pods_dir, rt_jobs_proc(o, proc, sizeof(proc))) : NULL;
		rt_nic_set_jobs(P->nic, P->jobs);
		L->nic = rt_nic_view(P->nic);
	}
	if (o->probe && build_probes(L, P, o))
		return -EINVAL;
	return rt_loop_open(L);
}

/* A sink the run made: one the loop could not take is closed here. */
static int add_sink(struct rt_loop *L, struct rt_sink *s)
{
	int r = rt_loop_add_sink(L, s);

	if (r && s)
		s->close(s);
	return r;
}

/* The exporter, from its part of the command line. */
static struct rt_sink *prom_sink(const struct rt_opts *o)
{
	const struct rt_prom_cfg c = {
		.listen = o->listen, .web_config = o->web_config,
		.flows = o->prom_flows, .speed_mbps = o->find.speed_mbps,
	};

	return rt_prom_sink_new(&c);
}

/* The live view, from its part of the command line. */
static struct rt_sink *tui_sink(const struct rt_opts *o)
{
	const struct rt_tui_cfg c = {
		.sort = o->sort, .filter = o->filter, .interval = o->interval,
		.speed = o->speed, .speed_mbps = o->find.speed_mbps,
	};

	return rt_tui_sink_new(&c);
}

/* --batch, from its part of the command line. */
static struct rt_sink *batch_sink(const struct rt_opts *o)
{
	const struct rt_batch_cfg c = {
		.json = o->json, .top = o->top, .sort = o->sort, .group_by = o->group_by,
		.probe = o->probe, .speed_mbps = o->find.speed_mbps,
	};

	return rt_batch_sink_new(&c);
}

/* --csv, from its part of the command line. */
static struct rt_sink *csv_sink(const struct rt_opts *o)
{
	const struct rt_csv_cfg c = {
		.dir = o->csv_dir, .speed_mbps = o->find.speed_mbps, .hostname = o->hostname,
		.cmdline = o->cmdline, .probe = o->probe, .sflow = o->sflow || o->have_sflow_fd,
	};

	return rt_csv_sink_new(&c);
}

/* -w, from its part of the command line. */
static struct rt_sink *record_sink(const struct rt_opts *o)
{
	const struct rt_record_cfg c = {
		.path = o->write_file, .max_size = o->max_size, .max_files = o->max_files,
		.hostname = o->hostname, .cmdline = o->cmdline,
	};

	return rt_record_sink_new(&c);
}

/* The flight recorder, from its part of the command line. */
static struct rt_sink *flight_sink(const struct rt_opts *o)
{
	const struct rt_flight_cfg c = {
		.secs = o->flight_secs, .trigger = o->trigger, .max_files = o->max_files,
		.dir = o->flight_dir, .hostname = o->hostname, .cmdline = o->cmdline,
	};

	return rt_flight_sink_new(&c);
}

/* The sinks, in the order each snapshot reaches them. 0 or -errno (said). */
static int build_sinks(struct rt_loop *L, const struct rt_opts *o)
{
	int tui = !o->batch && !o->daemon && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO), r;

	if ((o->batch || (!o->daemon && !tui)) &&
	    (r = add_sink(L, rt_filtered_sink_new(batch_sink(o), o->filter))))
		return r;
	if (o->csv_dir && (r = add_sink(L, rt_filtered_sink_new(csv_sink(o), o->filter))))
		return r;
	if (o->write_file && (r = add_sink(L, record_sink(o))))
		return r;
	if (o->listen && (r = add_sink(L, prom_sink(o))))
		return r;
	if (o->flight_secs && (r = add_sink(L, flight_sink(o))))
		return r;
	if (o->ipfix && (r = add_sink(L, rt_ipfix_sink_new(&(struct rt_ipfix_cfg){ .dest = o->ipfix }))))
		return r;
	if (tui && (r = add_sink(L, tui_sink(o))))
		return r;
	/* The caller's (the report's): closed by rt_run whether taken or not. */
	if (o->sink)
		return rt_loop_add_sink(L, o->sink);
	return 0;
}

/*
 * Once the source is attached, before the sinks start their threads (the
 * exporter's: capabilities belong to each thread), every capability the rest
 * of the run does not use goes (README.md,
 * "Containers and Kubernetes", the matrix): CAP_BPF and CAP_NET_ADMIN for a
 * live source (the link watcher attaches again, TC filters go at exit),
 * CAP_NET_ADMIN for --qp-counters (put back at exit), CAP_SYS_PTRACE for the
 * jobs (other users' /proc/PID/environ), CAP_NET_BIND_SERVICE for a
 * --listen port below 1024, and root's access to files (CAP_DAC_OVERRIDE,
 * CAP_DAC_READ_SEARCH) for the sinks' files, rotated later too.
 */
static void drop_caps(const struct rt_loop *L, const struct parts *P, const struct rt_opts *o)
{
	__u64 keep = RT_CAP(RT_CAP_DAC_OVERRIDE) | RT_CAP(RT_CAP_DAC_READ_SEARCH) |
		     RT_CAP(RT_CAP_NET_BIND_SERVICE);
	int err;

	if (L->src->live && o->nifaces)
		keep |= RT_CAP(RT_CAP_BPF) | RT_CAP(RT_CAP_NET_ADMIN);
	if (o->qp_counters)
		keep |= RT_CAP(RT_CAP_NET_ADMIN);
	if (P->jobs)
		keep |= RT_CAP(RT_CAP_SYS_PTRACE);
	err = rt_caps_keep(keep);
	if (err)
		pr_warn("cannot drop the capabilities rocetop no longer needs: %s.\n", strerror(-err));
}

int rt_run(const struct rt_opts *o)
{
	struct rt_loop_cfg lc = {
		.interval = o->interval, .iterations = o->iterations, .speed = o->speed,
		.scraped = o->listen != NULL, .find = o->find, .sink_findings = o->sink_findings,
		.hook = o->hook, .hook_arg = o->hook_arg,
	};
	struct parts P = { 0 };
	struct rt_loop L;
	int err, i;

	rt_loop_init(&L, &lc);
	err = build_source(&L, &P, o);
	if (!err && o->drop_caps)
		drop_caps(&L, &P, o);
	if (!err)
		err = build_sinks(&L, o);
	if (!err)
		err = rt_loop_run(&L);
	if (!err && P.nic)
		err = rt_nic_end(P.nic);
	for (i = L.nsinks - 1; i >= 0; i--)
		L.sinks[i]->close(L.sinks[i]);
	/* The caller's sink is closed here too when the run ended before it was taken. */
	if (o->sink && !(L.nsinks && L.sinks[L.nsinks - 1] == o->sink))
		o->sink->close(o->sink);
	if (P.nic)
		rt_nic_free(P.nic);
	rt_jobs_free(P.jobs);
	rt_probe_table_free(P.probes);
	if (L.src)
		L.src->close(L.src);
	rt_sflow_free(P.sf);
	rt_loop_free(&L);
	return err;
}
