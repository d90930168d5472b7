/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Everything the command line sets: one struct, read only in user/cmd/, which
 * fills each part's own config from it (src_cfg.c, run.c). */
#ifndef RT_OPTS_H
#define RT_OPTS_H

#include "findings.h"
#include "snapshot.h"
#include "loop.h"	/* RT_HOOK_READY, RT_HOOK_TICK */

struct rt_sink;

#define RT_MAX_SRC_IFACES 16
#define RT_MAX_SFLOW_ALLOW 16
#define RT_MAX_JOB_OF 64

/* --sysfs-root's longest: the paths below it fit PATH_MAX buffers. */
#define RT_SYSFS_ROOT_MAX	2048

struct rt_opts {
	const char *ifaces[RT_MAX_SRC_IFACES];	/* -i */
	int nifaces;
	const char *read_file;		/* -r: a pcap/pcapng capture or a recording */
	const char *write_file;		/* -w: record */
	const char *csv_dir;		/* --csv */
	const char *listen;		/* --listen [ADDR:]PORT */
	const char *ipfix;		/* --ipfix [udp:|tcp:]HOST:PORT */
	const char *web_config;		/* --web-config FILE (exporters/web_config.h) */
	int probe;			/* --probe: the probe mesh (user/probe/) in the run */
	const char *probe_peers;	/* --probe-peers FILE */
	double probe_rate;		/* --probe-rate: probes a second per peer */
	int probe_paths;		/* --probe-paths */
	double probe_timeout;		/* --probe-timeout: seconds after which a probe is lost */
	const char *probe_sizes;	/* --probe-sizes LIST */
	double probe_loss_pct;		/* --probe-loss: a path-loss at this share lost (percent) */
	int probe_window;		/* --probe-window: intervals the loss is judged over */
	double probe_net_us;		/* --probe-net-us: a path-latency at this network p50 */
	double probe_resp_us;		/* --probe-resp-us: a host-stall at this responder p50 */
	const char *sflow;		/* --sflow [ADDR:]PORT: collect sFlow v5 */
	const char *sflow_allow[RT_MAX_SFLOW_ALLOW];	/* --sflow-allow CIDR */
	int nsflow_allow;
	int sflow_fd;			/* a socket opened already (rt_sflow_socket) ... */
	int have_sflow_fd;		/* ... when this is set */
	const char *sysfs_root;		/* --sysfs-root: RDMA sysfs tree (default /sys),
					 * at most RT_SYSFS_ROOT_MAX characters */
	const char *filter;		/* --filter: initial TUI filter */
	const char *sort;		/* --sort column */
	double interval;		/* --interval seconds */
	long iterations;		/* -n/--iterations, 0 = no limit */
	int batch;			/* --batch */
	int daemon;			/* -D: no view */
	int drop_caps;			/* rocetop's own run: keep only the capabilities
					 * it needs once attached (user/cmd/run.c) */
	int json;			/* --json: --batch as JSON lines; report's JSON */
	int no_nic;			/* --no-nic: skip the NIC's counters */
	int qp_counters;		/* --qp-counters: 1 bind QPs to counters, 2 (=cc) with
					 * the optional congestion counters; put back at exit */
	int xdp_mode;			/* 0 auto (native, then generic), 1 native, 2 generic */
	int no_egress;			/* --no-egress: XDP only */
	int no_ingress;			/* --no-ingress: TC only */
	int bpf_split;			/* --bpf-split: the split BPF programs */
	int tc_filter;			/* --tc-filter: egress through a TC filter, not tcx */
	int collector;			/* --collector: XDP drops the mirror copies it counted */
	__u32 max_flows;		/* --max-flows */
	int max_flows_set;		/* --max-flows given: files keep to it too */
	double flow_timeout;		/* --flow-timeout seconds, 0 = never evict */
	long long max_size;		/* --max-size bytes, recordings rotate past it */
	int max_files;			/* --max-files with --max-size, like tcpdump -W */
	int prom_flows;			/* --prom-flows K */
	double speed;			/* --speed: replay speed of files in the TUI */
	int top;			/* --top N: flows per interval in --batch */
	int quiet;			/* -q */
	struct rt_find_cfg find;	/* --threshold NAME=VALUE, --link-speed */
	double flight_secs;		/* --flight-recorder DURATION, 0: off */
	int trigger;			/* --trigger SEVERITY (enum rt_sev) */
	const char *flight_dir;		/* --flight-dir DIR */
	const char *hostname;		/* --hostname: the name recordings carry */
	const char *cmdline;		/* the command line after the program's name, as
					 * recordings and --csv name it (NULL: none;
					 * main() fills it, rt_host_options) */
	const char *pods_dir;		/* --pods-log-dir: the kubelet's pod logs (default /var/log/pods) */
	int group_by;			/* --group-by: enum rt_group (user/core/job.h), 0: flows */
	__u32 job_of[RT_MAX_JOB_OF];	/* --job-of PID: print the pids' jobs and exit */
	int njob_of;
	/*
	 * For embedding (the lab): called with RT_HOOK_READY once the source and
	 * sinks are up (a negative return aborts the run), and with RT_HOOK_TICK
	 * after every snapshot (a positive return ends the run after one last
	 * snapshot).
	 */
	int (*hook)(void *arg, int event);
	void *hook_arg;
	/* For embedding (rocetop report): one more sink, made by the caller,
	 * fed beside the others; the loop calls its close. */
	struct rt_sink *sink;
	/* That sink runs the findings' rules itself (the report: its host, link
	 * speed and a recording's first interval); the loop does not. */
	int sink_findings;
};


/* Defaults of every field (user/cmd/opts_defaults.c); the command lines
 * that fill the rest are user/cmd/main_opts.c's and the subcommands'. */
void rt_opts_defaults(struct rt_opts *o);

#endif
