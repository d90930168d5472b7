// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop's own command line: its option table (user/lib/cli.h), from which
 * its --help, its parsing into struct rt_opts, the man page's OPTIONS and the
 * bash completion all come, and the checks between options.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/socket.h>
#include "cli.h"
#include "filter.h"
#include "log.h"
#include "num.h"
#include "main_opts.h"
#include "prom.h"
#include "tui_model.h"
#include "probe_table.h"
#include "sflow.h"
#include "src_cfg.h"
#include "ipfix.h"
#include "job.h"

#define O struct rt_opts

static int on_iface(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_sflow_allow(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_json(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_listen(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_ipfix(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_max_flows(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_xdp_mode(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_qp_counters(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_sort(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_max_size(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_threshold(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_link_speed(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_trigger(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_hostname(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_verbosity(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_version(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_group_by(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_job_of(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_sysfs_root(void *ctx, const struct rt_opt *opt, const char *arg);

/* The view's columns (tui/tui_model.c), which --sort takes. */
#define SORT_COLUMNS "congestion src dst dqpn dir iface prio pkts bytes ce cnp nak rnr idle age " \
	"process job mirror flows gb2s gb10s gb40s ce2s ce10s ce40s cnp2s cnp10s cnp40s"

/*
 * The main command line, one row per option: its letter (or a number from
 * 256 for a long-only one), name, argument, help, and what it does.
 */
const struct rt_opt rt_main_opts[] = {
	RT_OPT_SECTION("Sources"),
	{ 'i', "interface", "IFACE", "attach to IFACE (repeat for several)", RT_CALL(on_iface) },
	{ 'r', "read", "FILE", "read a capture (pcap, pcapng) or a rocetop recording",
	  RT_SET_STR(O, read_file) },
	{ 256, "sflow", "[ADDR:]PORT", "collect sFlow v5 from switches on UDP PORT (6343 is\n"
		"sFlow's); alone or beside -i. Sampled flows are\n"
		"estimates, marked ~; switch ports, queues and drops too",
	  RT_SET_STR(O, sflow) },
	{ 257, "sflow-allow", "CIDR", "accept sFlow only from senders in CIDR (repeatable);\n"
		"others are counted and dropped", RT_CALL(on_sflow_allow) },
	{ 303, "probe", NULL, "the probe mesh: answer rocetop's probes on this host's RoCE\n"
		"ports, probe the peers its QPs talk to (and --probe-peers')\n"
		"and tell the network from the peer host (rocetop(8) PROBING)", RT_SET_FLAG(O, probe) },
	{ 304, "probe-peers", "FILE", "probe the peers FILE names too: one a line, an IPv4\n"
		"address and an optional name (implies --probe)", RT_SET_STR(O, probe_peers) },
	{ 305, "probe-rate", "N", "probes a second per peer, all paths and sizes (default 10)",
	  RT_SET_REAL(O, probe_rate, RT_NUM_REAL, 0.1, 1000, "give probes a second from 0.1 to 1000") },
	{ 306, "probe-paths", "N", "paths (flow labels, so ECMP paths) per peer (default 2)",
	  RT_SET_INT(O, probe_paths, 1, 4, "give 1 to 4 paths") },
	{ 307, "probe-sizes", "LIST", "probe sizes in bytes, 48 to 4096 or mtu (default 64,mtu)",
	  RT_SET_STR(O, probe_sizes) },
	{ 308, "probe-timeout", "S", "seconds after which a probe is lost (default 1)",
	  RT_SET_REAL(O, probe_timeout, RT_NUM_SECONDS, 0.01, 10, "give seconds from 0.01 to 10") },
	{ 309, "probe-loss", "PCT", "a path-loss at this share of probes lost over the window (default 0.5)",
	  RT_SET_REAL(O, probe_loss_pct, RT_NUM_REAL, 0, 100, "give a percentage from 0 to 100") },
	{ 310, "probe-window", "N", "intervals the probes' loss is judged over (default 10)",
	  RT_SET_INT(O, probe_window, 1, 32, "give 1 to 32 intervals") },
	{ 311, "probe-net-us", "US", "a path-latency at this network time p50, in us (default 2000)",
	  RT_SET_REAL(O, probe_net_us, RT_NUM_REAL, 1, 10000000, "give microseconds from 1 to 10000000") },
	{ 312, "probe-resp-us", "US", "a host-stall at this responder time p50, in us (default 1000)",
	  RT_SET_REAL(O, probe_resp_us, RT_NUM_REAL, 1, 10000000, "give microseconds from 1 to 10000000") },
	RT_OPT_GROUP_NOTE("Views and sinks", "combine freely; the default is the live ncurses view\n"
		"when standard output is a terminal"),
	{ 'b', "batch", NULL, "plain text, one table per interval, like top -b", RT_SET_FLAG(O, batch) },
	{ 258, "json", NULL, "--batch as JSON lines: one object per interval (implies -b;\n"
		"the keys are listed in rocetop(8))", RT_CALL(on_json) },
	{ 259, "csv", "DIR", "write DIR/flows.csv, pfc.csv, stats.csv, ports.csv,\n"
		"qpctr.csv and findings.csv per interval, and meta.csv once\n"
		"(with --sflow also switchports.csv and drops.csv, with\n"
		"--probe probes.csv)", RT_SET_STR(O, csv_dir) },
	{ 'w', "write", "FILE", "record every snapshot to FILE (replay with -r FILE)",
	  RT_SET_STR(O, write_file) },
	{ 260, "listen", "[ADDR:]PORT", "serve Prometheus metrics on /metrics (a bare port: loopback)",
	  RT_CALL(on_listen) },
	{ 286, "web-config", "FILE", "TLS and basic auth for --listen, in the Prometheus exporter\n"
		"toolkit's format (tls_server_config, basic_auth_users)", RT_SET_STR(O, web_config) },
	{ 285, "ipfix", "[tcp:]HOST:PORT", "export a record per flow and interval to an IPFIX collector\n"
		"(UDP; tcp: for TCP; 4739 is IPFIX's port); see rocetop(8)", RT_CALL(on_ipfix) },
	{ 'D', "daemon", NULL, "no view: only the sinks named (--csv, -w, --listen, --ipfix)", RT_SET_FLAG(O, daemon) },
	RT_OPT_SECTION("Timing"),
	{ 'd', "interval", "SECONDS", "time between snapshots (default 1; files: capture time;\n"
		"250ms, 2m and 1h work too)",
	  RT_SET_REAL(O, interval, RT_NUM_SECONDS, 0.01, 86400, "give seconds between 0.01 and 86400") },
	{ 'n', "iterations", "N", "stop after N intervals (exit 0)",
	  RT_SET_LONG(O, iterations, 1, 1e18, "give a whole number of at least 1") },
	{ 261, "speed", "X", "replay files at X times capture speed (default 1) in the\n"
		"view and with --listen; other sinks read files at once",
	  RT_SET_REAL(O, speed, RT_NUM_REAL, 0.01, 1e6, "give a factor between 0.01 and 1000000") },
	RT_OPT_SECTION("Capture"),
	{ 262, "max-flows", "N", "flows the kernel table holds per CPU, the busiest queue's\n"
		"(default 16384; 170 bytes a flow and CPU); with -r, a bound\n"
		"on the flows a file keeps (default: as many as it has)", RT_CALL(on_max_flows) },
	{ 263, "flow-timeout", "S", "forget flows idle for S seconds (default 60, 0: never);\n"
		"with -r in capture time",
	  RT_SET_REAL(O, flow_timeout, RT_NUM_SECONDS, 0, 1e9, "give seconds, 0 to never forget a flow") },
	{ 264, "xdp-mode", "MODE", "auto (native, else generic), native or generic",
	  RT_CALL(on_xdp_mode), .values = "auto native generic" },
	{ 265, "no-egress", NULL, "XDP on ingress only", RT_SET_FLAG(O, no_egress) },
	{ 266, "no-ingress", NULL, "TC on egress only", RT_SET_FLAG(O, no_ingress) },
	{ 267, "bpf-split", NULL, "load the split BPF programs, which every kernel from 5.10\n"
		"verifies, not the inlined ones, which cost a frame less\n"
		"(the split ones are the default before Linux 6.12)", RT_SET_FLAG(O, bpf_split) },
	{ 268, "tc-filter", NULL, "attach the egress program as a TC filter on a clsact qdisc,\n"
		"as kernels before 6.6 (no tcx) need, even where tcx exists;\n"
		"removed at exit, and after kill -9 at the next start", RT_SET_FLAG(O, tc_filter) },
	{ 269, "collector", NULL, "the -i interfaces are dedicated mirror ports: count the RoCE\n"
		"inside ERSPAN, GRE and VXLAN mirror copies, then drop those\n"
		"copies in XDP so the host's stack does not process them\n"
		"(everything else passes; without it nothing is dropped)", RT_SET_FLAG(O, collector) },
	RT_OPT_SECTION("NIC counters"),
	{ 270, "sysfs-root", "DIR", "read /sys/class/infiniband below DIR (fixtures, containers)",
	  RT_CALL(on_sysfs_root) },
	{ 271, "no-nic", NULL, "do not read the NIC's counters", RT_SET_FLAG(O, no_nic) },
	{ 272, "qp-counters", "[=cc]", "for this run, bind every QP of the watched RDMA ports to a\n"
		"hardware counter (auto by QP type), for per-QP flows from\n"
		"the NIC; =cc also turns on the optional congestion\n"
		"counters (cc_rx_ce_pkts, cc_rx_cnp_pkts, cc_tx_cnp_pkts),\n"
		"which cost the NIC flow-steering resources. The mode found\n"
		"is put back at exit (also after kill -9: at the next start)", RT_CALL(on_qp_counters) },
	RT_OPT_SECTION("Output"),
	{ 273, "top", "N", "flows per interval in --batch (default 20, 0: all)",
	  RT_SET_INT(O, top, 0, INT_MAX, "give a number of flows, 0 for all") },
	{ 274, "sort", "COLUMN", "sort of the view and --batch (congestion, pkts, bytes, ce,\n"
		"cnp, nak, rnr; the view also idle, age, src, dqpn...)",
	  RT_CALL(on_sort), .values = SORT_COLUMNS },
	{ 275, "filter", "EXPR", "only the flows EXPR keeps, in the view, --batch, --json\n"
		"and --csv: host ADDR, src ADDR, dst ADDR, qp N, if NAME,\n"
		"proc NAME, pid N, prio N, ce, cnp, nak, rnr, paused, with\n"
		"and, or, not, ( ); a bare word: a substring (see FILTERS\n"
		"in rocetop(8))", RT_SET_STR(O, filter) },
	{ 276, "max-size", "BYTES", "rotate the recording past BYTES (k, M, G suffixes)", RT_CALL(on_max_size) },
	{ 277, "max-files", "N", "keep N rotated recordings (like tcpdump -W)",
	  RT_SET_INT(O, max_files, 1, 100000, "give a number of files of at least 1") },
	{ 278, "hostname", "NAME", "the host name recordings carry (default: this host's)",
	  RT_CALL(on_hostname) },
	{ 279, "prom-flows", "K", "top K flows exported to Prometheus (default 10)",
	  RT_SET_INT(O, prom_flows, 0, 10000, "give a number between 0 and 10000") },
	RT_OPT_GROUP_NOTE("Jobs", "the owners' Slurm jobs, pods and units; see JOBS in rocetop(8)"),
	{ 301, "group-by", "WHAT", "--batch: fold flows by job, rank (of a job), pod, unit,\n"
		"process or flow (default flow)", RT_CALL(on_group_by) },
	{ 300, "pods-log-dir", "DIR", "the kubelet's pod log directory, which names pods and\n"
		"containers (default /var/log/pods; DIR/../containers too)", RT_SET_STR(O, pods_dir) },
	{ 302, "job-of", "PID", "print the job, step and rank of process PID (repeat) and\n"
		"exit; with --json as JSON lines", RT_CALL(on_job_of) },
	RT_OPT_GROUP_NOTE("Findings", "rules applied every interval; see FINDINGS in rocetop(8)"),
	{ 280, "threshold", "NAME=VALUE", "change a rule's threshold (repeat); NAME is one of:",
	  RT_CALL(on_threshold), .values = RT_THRESHOLD_NAMES },
	RT_OPT_LINES_OF(rt_find_cfg_help),
	{ 281, "link-speed", "SPEED", "link speed for paused time, e.g. 25G, 100G (default:\n"
		"the interface's own speed (ethtool; a recording keeps it), else 100G)",
	  RT_CALL(on_link_speed), .values = "10G 25G 40G 50G 100G 200G 400G 800G" },
	RT_OPT_GROUP_NOTE("Flight recorder", "keep the minutes before an incident"),
	{ 282, "flight-recorder", "DURATION", "keep the last DURATION (e.g. 5m) of snapshots in\n"
		"memory; when a finding opens or on SIGUSR1, write them\n"
		"and the next DURATION to DIR/rocetop-YYYYmmddTHHMMSS.rtr",
	  RT_SET_REAL(O, flight_secs, RT_NUM_SECONDS, 1e-9, 86400,
		      "give a duration such as 90s, 5m or 1h (at most 24h)") },
	{ 283, "trigger", "SEVERITY", "the least severity that writes one: info, warning or\n"
		"critical (default critical)", RT_CALL(on_trigger), .values = "info warning critical" },
	{ 284, "flight-dir", "DIR", "where (default the current directory); --max-files N\n"
		"keeps the newest N", RT_SET_STR(O, flight_dir) },
	RT_OPT_SECTION("Other"),
	{ 'v', "verbose", NULL, "more messages (libbpf's and the verifier's too)", RT_CALL(on_verbosity) },
	{ 'q', "quiet", NULL, "only warnings", RT_CALL(on_verbosity) },
	{ 'V', "version", NULL, "print the version", RT_CALL(on_version) },
	RT_OPT_HELP_ENTRY,
	RT_OPT_END,
};

static const struct rt_cli rt_main_cli = {
	.prog = "rocetop",
	.usage =
"Usage: rocetop -i IFACE [-i IFACE ...] [options]   live, on interfaces\n"
"       rocetop -r FILE [options]                  a pcap/pcapng capture or a recording\n"
"       rocetop lab [options]                      a built-in test bed with congestion\n"
"       rocetop report FILE [FILE ...] [options]   offline summary of recordings or captures\n"
"       rocetop doctor [-i IFACE] [options]        judge this host's RoCE congestion settings\n"
"\n"
"rocetop shows where a RoCEv2 fabric is congested, per flow: ECN marks, CNPs,\n"
"ACK/NAKs and PFC pauses counted on the wire by XDP (ingress) and TC (egress)\n"
"BPF programs, beside the RDMA NIC's own counters.\n"
"\n",
	.opts = rt_main_opts,
	.epilog =
"\n"
"Examples:\n"
"  rocetop lab                          watch congestion on the built-in test bed\n"
"  rocetop -i eth0                      live view of eth0\n"
"  rocetop -i eth0 -b -n 5              five text tables, one per second\n"
"  rocetop --sflow 6343                 the fabric's flows and queues, from sFlow\n"
"  rocetop -i eth0 --csv run1 -w run1.rtr -D   record a tuning run\n"
"  rocetop -r run1.rtr                  replay it in the view\n"
"  rocetop report run1.rtr              victims, culprits and moments\n"
"  rocetop -i eth1 --collector          flows inside a switch's mirror session on eth1\n"
"  rocetop -i eth0 -D --flight-recorder 2m --flight-dir /var/tmp\n"
"                                       record the 2 minutes around each incident\n"
"\n"
"Attaching needs root (or CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN). See rocetop(8).\n",
	.width = 26,
};

static int bad(const struct rt_opt *opt, const char *val, const char *want)
{
	pr_warn("--%s '%s' is not valid: %s.\n", opt->name, val, want);
	return -EINVAL;
}

/* A duration for --flight-recorder: more than 0, at most 24 h (ms, s, m, h). */
int rt_parse_duration(const char *s, double *out)
{
	return rt_parse_num(s, RT_NUM_SECONDS, 1e-9, 86400, out);
}

/* A link speed in Mb/s (25G, 100G, 40000M, 1T; a bare number is Gb/s). */
int rt_parse_speed(const char *s, __u64 *mbps)
{
	double v;

	if (rt_parse_num(s, RT_NUM_SPEED, 1, 1e7, &v))
		return -EINVAL;
	*mbps = (__u64)v;
	return 0;
}

/* arg appended to a repeated option's list v of *n (at most max); else
 * -EINVAL after saying "at most MAX LIMIT." */
static int list_add(const char **v, int *n, int max, const char *limit, const char *arg)
{
	if (*n == max) {
		pr_warn("at most %d %s.\n", max, limit);
		return -EINVAL;
	}
	v[(*n)++] = arg;
	return 0;
}

static int on_iface(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;

	(void)opt;
	if (!*arg || strlen(arg) >= IF_NAMESIZE) {
		pr_warn("-i '%.40s%s' is not an interface name: interface names are at most %d characters, and not empty.\n",
			arg, strlen(arg) > 40 ? "..." : "", IF_NAMESIZE - 1);
		return -EINVAL;
	}
	for (int k = 0; k < o->nifaces; k++)
		if (!strcmp(o->ifaces[k], arg)) {
			pr_warn("-i %s is given twice; name each interface once.\n", arg);
			return -EINVAL;
		}
	return list_add(o->ifaces, &o->nifaces, RT_MAX_SRC_IFACES, "interfaces can be watched at once", arg);
}

static int on_group_by(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;
	int g = rt_group_parse(arg);

	(void)opt;
	if (g < 0) {
		pr_warn("--group-by takes job, rank, pod, unit, process or flow, not '%s'.\n", arg);
		return -EINVAL;
	}
	o->group_by = g;
	return 0;
}

static int on_job_of(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;
	char *end;
	unsigned long v;

	(void)opt;
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (!*arg || *end || errno || !v || v > 0x7fffffffUL) {
		pr_warn("--job-of takes a process id, not '%s'.\n", arg);
		return -EINVAL;
	}
	if (o->njob_of == RT_MAX_JOB_OF) {
		pr_warn("at most %d --job-of process ids can be given.\n", RT_MAX_JOB_OF);
		return -EINVAL;
	}
	o->job_of[o->njob_of++] = (__u32)v;
	return 0;
}

static int on_sflow_allow(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;

	(void)opt;
	return list_add(o->sflow_allow, &o->nsflow_allow, RT_MAX_SFLOW_ALLOW,
			"--sflow-allow ranges can be given", arg);
}

static int on_json(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;

	(void)opt;
	(void)arg;
	o->json = 1;
	o->batch = 1;
	return 0;
}

/* A bad address is a bad command line (exit 2), said before anything starts. */
static int on_listen(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;
	struct sockaddr_storage ss;
	socklen_t len;

	if (rt_prom_parse_listen(arg, &ss, &len))
		return bad(opt, arg, "give PORT, ADDR:PORT or [IPv6]:PORT, e.g. 9100 or 0.0.0.0:9100");
	o->listen = arg;
	return 0;
}

static int on_ipfix(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;
	struct rt_ipfix_dest d;

	int err = rt_ipfix_parse(arg, &d);

	if (err == -ENXIO)
		return bad(opt, arg, "its host name does not resolve (give a name this host resolves, or an address)");
	if (err)
		return bad(opt, arg, "give [udp:|tcp:]HOST:PORT, e.g. 192.0.2.1:4739 or tcp:[2001:db8::1]:4739");
	o->ipfix = arg;
	return 0;
}

static int on_max_flows(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;
	double v;

	if (rt_parse_num(arg, RT_NUM_INT, 16, 1 << 24, &v))
		return bad(opt, arg, "give a number between 16 and 16777216");
	o->max_flows = (__u32)v;
	o->max_flows_set = 1;
	return 0;
}

static int on_xdp_mode(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;

	if (!strcmp(arg, "auto"))
		o->xdp_mode = 0;
	else if (!strcmp(arg, "native"))
		o->xdp_mode = 1;
	else if (!strcmp(arg, "generic") || !strcmp(arg, "skb"))
		o->xdp_mode = 2;
	else
		return bad(opt, arg, "use auto, native or generic");
	return 0;
}

static int on_qp_counters(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;

	if (arg && strcmp(arg, "cc"))
		return bad(opt, arg, "use --qp-counters or --qp-counters=cc");
	o->qp_counters = arg ? 2 : 1;	/* =cc: the congestion counters too */
	return 0;
}

/* The view's columns; --batch sorts by the ones it prints. */
static int on_sort(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;

	if (tui_col_by_name(arg) < 0)
		return bad(opt, arg,
			   "give a column: congestion, pkts, bytes, ce, cnp, nak, rnr (the view also sorts by its other columns, e.g. dqpn, idle, age)");
	o->sort = arg;
	return 0;
}

static int on_max_size(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;
	double v;

	if (rt_parse_num(arg, RT_NUM_SIZE, 4096, 1e15, &v))
		return bad(opt, arg, "give a size of at least 4096 bytes, e.g. 100M");
	o->max_size = (long long)v;
	return 0;
}

static int on_threshold(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;

	(void)opt;
	return rt_find_cfg_set(&o->find, arg) ? -EINVAL : 0;
}

static int on_link_speed(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;

	if (rt_parse_speed(arg, &o->find.speed_mbps))
		return bad(opt, arg, "give a speed such as 25G, 100G or 40000M");
	return 0;
}

static int on_trigger(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;

	if ((o->trigger = rt_sev_from_name(arg)) < 0)
		return bad(opt, arg, "use info, warning or critical");
	return 0;
}

static int on_hostname(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;

	if (!arg[0] || strlen(arg) > 63)
		return bad(opt, arg, "give a name of 1 to 63 characters");
	o->hostname = arg;
	return 0;
}

/* The paths below it (proc/PID/environ, sys/class/infiniband/DEV/ports/N/
 * hw_counters/NAME) must fit the readers' buffers: a longer root was cut
 * short without a word. */
static int on_sysfs_root(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct rt_opts *o = ctx;

	_Static_assert(RT_SYSFS_ROOT_MAX == 2048, "the message says 2048");
	if (strlen(arg) > RT_SYSFS_ROOT_MAX)
		return bad(opt, arg, "give a directory of at most 2048 characters");
	o->sysfs_root = arg;
	return 0;
}

static int on_verbosity(void *ctx, const struct rt_opt *opt, const char *arg)
{
	(void)ctx;
	(void)arg;
	rt_verbosity = opt->id == 'v' ? RT_LOG_DEBUG : RT_LOG_WARN;
	return 0;
}

static int on_version(void *ctx, const struct rt_opt *opt, const char *arg)
{
	(void)ctx;
	(void)opt;
	(void)arg;
	printf("rocetop %s\n", RT_VERSION);
	return 1;
}

/* Any --probe-* option given a value other than its default. */
static int probe_tuned(const struct rt_opts *o)
{
	struct rt_opts d;

	rt_opts_defaults(&d);
	return o->probe_rate != d.probe_rate || o->probe_paths != d.probe_paths ||
	       o->probe_timeout != d.probe_timeout || o->probe_sizes != d.probe_sizes ||
	       o->probe_loss_pct != d.probe_loss_pct || o->probe_window != d.probe_window ||
	       o->probe_net_us != d.probe_net_us || o->probe_resp_us != d.probe_resp_us;
}

/* --filter parses, and some output applies it. */
static int check_filter(const struct rt_opts *o)
{
	struct rt_filter *F;
	char err[200];

	if (!o->filter)
		return 0;
	if (rt_filter_parse(o->filter, &F, err, sizeof(err))) {
		pr_warn("--filter: %s.\n", err);
		return -EINVAL;
	}
	rt_filter_free(F);
	if (o->daemon && !o->batch && !o->csv_dir) {
		pr_warn("--filter selects the flows of the view, --batch, --json and --csv, and -D leaves none of "
			"them (-w, --listen, --ipfix and the flight recorder keep every flow): add --csv DIR or "
			"drop --filter.\n");
		return -EINVAL;
	}
	return 0;
}

/* Returns 0, 1 for "exit 0 now" (help, version) or a negative errno. */
int rt_parse_args(int argc, char **argv, struct rt_opts *o)
{
	int first, err;

	rt_opts_defaults(o);
	err = rt_cli_parse(&rt_main_cli, argc, argv, NULL, o, &first);
	if (err)
		return err;
	if (first < argc) {
		pr_warn("unexpected argument '%s'; interfaces take -i, files take -r.\n", argv[first]);
		return -EINVAL;
	}
	/* one check and one sentence per conflict between options */
	if (o->nifaces && o->read_file) {
		pr_warn("-i and -r cannot be combined: watch interfaces or read a file.\n");
		return -EINVAL;
	}
	if (o->sflow && o->read_file) {
		pr_warn("--sflow collects live and cannot be combined with -r; use it alone or beside -i.\n");
		return -EINVAL;
	}
	if (o->probe_peers)
		o->probe = 1;
	if (o->probe_sizes && rt_probe_parse_sizes(o->probe_sizes, &(struct rt_probe_cfg){ 0 }))
		return -EINVAL;
	if (!o->probe && probe_tuned(o)) {
		pr_warn("the --probe-* options tune the probe mesh, which --probe (or --probe-peers) turns on.\n");
		return -EINVAL;
	}
	if (o->probe && o->read_file) {
		pr_warn("--probe sends probes from this host and cannot be combined with -r; a recording made with --probe shows its probes.\n");
		return -EINVAL;
	}
	if (o->nsflow_allow && !o->sflow) {
		pr_warn("--sflow-allow restricts --sflow, which is not given.\n");
		return -EINVAL;
	}
	if (rt_sflow_check_cfg((struct rt_sflow_cfg[]){ rt_sflow_cfg_of(o) }))
		return -EINVAL;
	if (o->no_egress && o->no_ingress) {
		pr_warn("--no-egress and --no-ingress together leave nothing to watch.\n");
		return -EINVAL;
	}
	if (o->collector && !o->nifaces) {
		pr_warn("--collector works on live interfaces: name the mirror port with -i IFACE.\n");
		return -EINVAL;
	}
	if (o->collector && o->no_ingress) {
		pr_warn("--collector needs the XDP program on ingress; drop --no-ingress.\n");
		return -EINVAL;
	}
	if (o->qp_counters && (o->read_file || o->no_nic)) {
		pr_warn("--qp-counters binds the counters of a live host's NIC: it needs -i and no %s.\n",
			o->read_file ? "-r" : "--no-nic");
		return -EINVAL;
	}
	if (o->max_files && !o->max_size && !o->flight_secs) {
		pr_warn("--max-files rotates recordings and needs --max-size (or --flight-recorder).\n");
		return -EINVAL;
	}
	if (o->web_config && !o->listen) {
		pr_warn("--web-config secures the metrics endpoint: add --listen [ADDR:]PORT.\n");
		return -EINVAL;
	}
	if (o->flight_dir && !o->flight_secs) {
		pr_warn("--flight-dir says where the flight recorder writes: add --flight-recorder DURATION.\n");
		return -EINVAL;
	}
	if (o->read_file && o->write_file && !strcmp(o->read_file, o->write_file)) {
		pr_warn("-w %s would overwrite the file being read.\n", o->write_file);
		return -EINVAL;
	}
	return check_filter(o);
}

