// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The command line: defaults, the help text, and parsing into struct rt_opts. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/socket.h>
#include "cli.h"
#include "log.h"
#include "num.h"
#include "opts.h"
#include "prom.h"
#include "tui_model.h"
#include "sflow.h"

enum {
	OPT_CSV = 256, OPT_LISTEN, OPT_MAX_FLOWS, OPT_FLOW_TIMEOUT, OPT_XDP_MODE, OPT_NO_EGRESS,
	OPT_NO_INGRESS, OPT_SYSFS_ROOT, OPT_NO_NIC, OPT_TOP, OPT_SORT, OPT_FILTER, OPT_MAX_SIZE,
	OPT_MAX_FILES, OPT_PROM_FLOWS, OPT_SPEED, OPT_SFLOW, OPT_SFLOW_ALLOW, OPT_QP_COUNTERS,
	OPT_COLLECTOR, OPT_THRESHOLD, OPT_LINK_SPEED, OPT_FLIGHT, OPT_TRIGGER, OPT_FLIGHT_DIR, OPT_HOSTNAME,
	OPT_JSON, OPT_BPF_SPLIT, OPT_TC_FILTER, OPT_WEB_CONFIG,
};

/* The main command line: --help and parsing both come from this table. */
const struct rt_opt rt_main_opts[] = {
	RT_OPT_SECTION("Sources:"),
	{ 'i', "interface", "IFACE", "attach to IFACE (repeat for several)" },
	{ 'r', "read", "FILE", "read a capture (pcap, pcapng) or a rocetop recording" },
	{ OPT_SFLOW, "sflow", "[ADDR:]PORT", "collect sFlow v5 from switches on UDP PORT (6343 is\n"
					   "sFlow's); alone or beside -i. Sampled flows are\n"
					   "estimates, marked ~; switch ports, queues and drops too" },
	{ OPT_SFLOW_ALLOW, "sflow-allow", "CIDR", "accept sFlow only from senders in CIDR (repeatable);\n"
					  "others are counted and dropped" },
	RT_OPT_SECTION("Views and sinks (combine freely; the default is the live ncurses view\n"
		       "when standard output is a terminal):"),
	{ 'b', "batch", NULL, "plain text, one table per interval, like top -b" },
	{ OPT_JSON, "json", NULL, "--batch as JSON lines: one object per interval (implies -b;\n"
				  "the keys are listed in rocetop(8))" },
	{ OPT_CSV, "csv", "DIR", "write DIR/flows.csv, pfc.csv, stats.csv, ports.csv per interval\n"
				 "(with --sflow also switchports.csv and drops.csv)" },
	{ 'w', "write", "FILE", "record every snapshot to FILE (replay with -r FILE)" },
	{ OPT_LISTEN, "listen", "[ADDR:]PORT", "serve Prometheus metrics on /metrics (a bare port: loopback)" },
	{ OPT_WEB_CONFIG, "web-config", "FILE", "TLS and basic auth for --listen, in the Prometheus exporter\n"
						"toolkit's format (tls_server_config, basic_auth_users)" },
	{ 'D', "daemon", NULL, "no view: only the sinks named (--csv, -w, --listen)" },
	RT_OPT_SECTION("Timing:"),
	{ 'd', "interval", "SECONDS", "time between snapshots (default 1; files: capture time;\n"
				     "250ms, 2m and 1h work too)" },
	{ 'n', "iterations", "N", "stop after N intervals (exit 0)" },
	{ OPT_SPEED, "speed", "X", "replay files at X times capture speed (default 1) in the\n"
				 "view and with --listen; other sinks read files at once" },
	RT_OPT_SECTION("Capture:"),
	{ OPT_MAX_FLOWS, "max-flows", "N", "flows the kernel table holds per CPU, the busiest queue's (default 16384; 170 bytes a flow and CPU); with -r, a bound on the flows a file keeps (default: as many as it has)" },
	{ OPT_FLOW_TIMEOUT, "flow-timeout", "S", "forget flows idle for S seconds (default 60, 0: never); with -r in capture time" },
	{ OPT_XDP_MODE, "xdp-mode", "MODE", "auto (native, else generic), native or generic" },
	{ OPT_NO_EGRESS, "no-egress", NULL, "XDP on ingress only" },
	{ OPT_NO_INGRESS, "no-ingress", NULL, "TC on egress only" },
	{ OPT_BPF_SPLIT, "bpf-split", NULL, "load the split BPF programs, which every kernel from 5.10\n"
		"verifies, not the inlined ones, which cost a frame less\n"
		"(the split ones are the default before Linux 6.12)" },
	{ OPT_TC_FILTER, "tc-filter", NULL, "attach the egress program as a TC filter on a clsact qdisc,\n"
		"as kernels before 6.6 (no tcx) need, even where tcx exists;\n"
		"removed at exit, and after kill -9 at the next start" },
	{ OPT_COLLECTOR, "collector", NULL, "the -i interfaces are dedicated mirror ports: count the RoCE\n"
		"inside ERSPAN, GRE and VXLAN mirror copies, then drop those\n"
		"copies in XDP so the host's stack does not process them\n"
		"(everything else passes; without it nothing is dropped)" },
	RT_OPT_SECTION("NIC counters:"),
	{ OPT_SYSFS_ROOT, "sysfs-root", "DIR", "read /sys/class/infiniband below DIR (fixtures, containers)" },
	{ OPT_NO_NIC, "no-nic", NULL, "do not read the NIC's counters" },
	{ OPT_QP_COUNTERS, "qp-counters", "[=cc]", "for this run, bind every QP of the watched RDMA ports to a\n"
		"hardware counter (auto by QP type), for per-QP flows from\n"
		"the NIC; =cc also turns on the optional congestion\n"
		"counters (cc_rx_ce_pkts, cc_rx_cnp_pkts, cc_tx_cnp_pkts),\n"
		"which cost the NIC flow-steering resources. The mode found\n"
		"is put back at exit (also after kill -9: at the next start)" },
	RT_OPT_SECTION("Output:"),
	{ OPT_TOP, "top", "N", "flows per interval in --batch (default 20, 0: all)" },
	{ OPT_SORT, "sort", "COLUMN", "sort of the view and --batch (congestion, pkts, bytes, ce,\n"
				     "cnp, nak, rnr; the view also idle, age, src, dqpn...)" },
	{ OPT_FILTER, "filter", "TEXT", "initial filter of the view (address or QP)" },
	{ OPT_MAX_SIZE, "max-size", "BYTES", "rotate the recording past BYTES (k, M, G suffixes)" },
	{ OPT_MAX_FILES, "max-files", "N", "keep N rotated recordings (like tcpdump -W)" },
	{ OPT_HOSTNAME, "hostname", "NAME", "the host name recordings carry (default: this host's)" },
	{ OPT_PROM_FLOWS, "prom-flows", "K", "top K flows exported to Prometheus (default 10)" },
	RT_OPT_SECTION("Findings (rules applied every interval; see rocetop(8)):"),
	{ OPT_THRESHOLD, "threshold", "NAME=VALUE", "change a rule's threshold (repeat); NAME is one of" },
	RT_OPT_SECTION(rt_find_cfg_help),
	{ OPT_LINK_SPEED, "link-speed", "SPEED", "link speed for paused time, e.g. 25G, 100G (default:\n"
						"the interface's own speed (ethtool; a recording keeps it), else 100G)" },
	RT_OPT_SECTION("Flight recorder (keep the minutes before an incident):"),
	{ OPT_FLIGHT, "flight-recorder", "DURATION", "keep the last DURATION (e.g. 5m) of snapshots in\n"
		"memory; when a finding opens or on SIGUSR1, write them\n"
		"and the next DURATION to DIR/rocetop-YYYYmmddTHHMMSS.rtr" },
	{ OPT_TRIGGER, "trigger", "SEVERITY", "the least severity that writes one: info, warning or\n"
		"critical (default critical)" },
	{ OPT_FLIGHT_DIR, "flight-dir", "DIR", "where (default the current directory); --max-files N\n"
		"keeps the newest N" },
	RT_OPT_SECTION("Other:"),
	{ 'v', "verbose", NULL, "more messages (libbpf's and the verifier's too)" },
	{ 'q', "quiet", NULL, "only warnings" },
	{ 'V', "version", NULL, "print the version" },
	{ 'h', "help", NULL, "this text" },
	RT_OPT_END,
};

const struct rt_cli rt_main_cli = {
	.prog = "rocetop",
	.usage =
"Usage: rocetop -i IFACE [-i IFACE ...] [options]   live, on interfaces\n"
"       rocetop -r FILE [options]                  a pcap/pcapng capture or a recording\n"
"       rocetop lab [options]                      a built-in test bed with congestion\n"
"       rocetop report FILE [--json]               offline summary of a recording or capture\n"
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

void rt_opts_defaults(struct rt_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->interval = 1.0;
	o->max_flows = 16384;
	o->flow_timeout = 60;
	o->prom_flows = 10;
	o->speed = 1.0;
	o->top = 20;
	o->max_files = 0;
	rt_find_cfg_defaults(&o->find);
	o->trigger = RT_SEV_CRITICAL;
}

static int bad(const char *what, const char *val, const char *want)
{
	pr_warn("%s '%s' is not valid: %s.\n", what, val, want);
	return -EINVAL;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
	return rt_parse_num(s, RT_NUM_REAL, lo, hi, out);
}

static int parse_seconds(const char *s, double lo, double hi, double *out)
{
	return rt_parse_num(s, RT_NUM_SECONDS, lo, hi, out);
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
	double v;

	if (rt_parse_num(s, RT_NUM_INT, (double)lo, (double)hi, &v))
		return -EINVAL;
	*out = (long)v;
	return 0;
}

static int parse_size(const char *s, long long *out)
{
	double v;

	if (rt_parse_num(s, RT_NUM_SIZE, 4096, 1e15, &v))
		return -EINVAL;
	*out = (long long)v;
	return 0;
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

/* One option of the main command line: 0, 1 (help or version shown) or -EINVAL. */
static int on_opt(void *ctx, int c, const char *arg)
{
	struct rt_opts *o = ctx;
	long l;

	switch (c) {
	case 'i':
		if (!*arg || strlen(arg) >= IF_NAMESIZE) {
			pr_warn("-i '%.40s%s' is not an interface name: interface names are at most %d characters, and not empty.\n",
				arg, strlen(arg) > 40 ? "..." : "", IF_NAMESIZE - 1);
			return -EINVAL;
		}
		if (o->nifaces == RT_MAX_SRC_IFACES) {
			pr_warn("at most %d interfaces can be watched at once.\n", RT_MAX_SRC_IFACES);
			return -EINVAL;
		}
		for (int k = 0; k < o->nifaces; k++)
			if (!strcmp(o->ifaces[k], arg)) {
				pr_warn("-i %s is given twice; name each interface once.\n", arg);
				return -EINVAL;
			}
		o->ifaces[o->nifaces++] = arg;
		break;
	case 'r': o->read_file = arg; break;
	case OPT_SFLOW: o->sflow = arg; break;
	case OPT_SFLOW_ALLOW:
		if (o->nsflow_allow == RT_MAX_SFLOW_ALLOW) {
			pr_warn("at most %d --sflow-allow ranges can be given.\n", RT_MAX_SFLOW_ALLOW);
			return -EINVAL;
		}
		o->sflow_allow[o->nsflow_allow++] = arg;
		break;
	case 'w': o->write_file = arg; break;
	case 'b': o->batch = 1; break;
	case OPT_JSON: o->json = 1; o->batch = 1; break;
	case 'D': o->daemon = 1; break;
	case OPT_CSV: o->csv_dir = arg; break;
	case OPT_LISTEN: {
		struct sockaddr_storage ss;
		socklen_t len;

		/* A bad address is a bad command line (exit 2), said before anything starts. */
		if (rt_prom_parse_listen(arg, &ss, &len))
			return bad("--listen", arg, "give PORT, ADDR:PORT or [IPv6]:PORT, e.g. 9100 or 0.0.0.0:9100");
		o->listen = arg;
		break;
	}
	case OPT_WEB_CONFIG: o->web_config = arg; break;
	case 'd':
		if (parse_seconds(arg, 0.01, 86400, &o->interval))
			return bad("--interval", arg, "give seconds between 0.01 and 86400");
		break;
	case 'n':
		if (parse_long(arg, 1, 1000000000000000000L, &o->iterations))
			return bad("--iterations", arg, "give a whole number of at least 1");
		break;
	case OPT_SPEED:
		if (parse_double(arg, 0.01, 1e6, &o->speed))
			return bad("--speed", arg, "give a factor between 0.01 and 1000000");
		break;
	case OPT_MAX_FLOWS:
		if (parse_long(arg, 16, 1 << 24, &l))
			return bad("--max-flows", arg, "give a number between 16 and 16777216");
		o->max_flows = (__u32)l;
		o->max_flows_set = 1;
		break;
	case OPT_FLOW_TIMEOUT:
		if (parse_seconds(arg, 0, 1e9, &o->flow_timeout))
			return bad("--flow-timeout", arg, "give seconds, 0 to never forget a flow");
		break;
	case OPT_XDP_MODE:
		if (!strcmp(arg, "auto"))
			o->xdp_mode = 0;
		else if (!strcmp(arg, "native"))
			o->xdp_mode = 1;
		else if (!strcmp(arg, "generic") || !strcmp(arg, "skb"))
			o->xdp_mode = 2;
		else
			return bad("--xdp-mode", arg, "use auto, native or generic");
		break;
	case OPT_NO_EGRESS: o->no_egress = 1; break;
	case OPT_BPF_SPLIT: o->bpf_split = 1; break;
	case OPT_TC_FILTER: o->tc_filter = 1; break;
	case OPT_NO_INGRESS: o->no_ingress = 1; break;
	case OPT_SYSFS_ROOT: o->sysfs_root = arg; break;
	case OPT_NO_NIC: o->no_nic = 1; break;
	case OPT_COLLECTOR: o->collector = 1; break;
	case OPT_QP_COUNTERS:
		if (!arg)
			o->qp_counters = 1;
		else if (!strcmp(arg, "cc"))
			o->qp_counters = 2;
		else
			return bad("--qp-counters", arg, "use --qp-counters or --qp-counters=cc");
		break;
	case OPT_TOP:
		if (parse_long(arg, 0, INT_MAX, &l))
			return bad("--top", arg, "give a number of flows, 0 for all");
		o->top = (int)l;
		break;
	case OPT_SORT:
		/* The view's columns; --batch sorts by the ones it prints. */
		if (tui_col_by_name(arg) < 0)
			return bad("--sort", arg,
				   "give a column: congestion, pkts, bytes, ce, cnp, nak, rnr (the view also sorts by its other columns, e.g. dqpn, idle, age)");
		o->sort = arg;
		break;
	case OPT_FILTER: o->filter = arg; break;
	case OPT_MAX_SIZE:
		if (parse_size(arg, &o->max_size))
			return bad("--max-size", arg, "give a size of at least 4096 bytes, e.g. 100M");
		break;
	case OPT_MAX_FILES:
		if (parse_long(arg, 1, 100000, &l))
			return bad("--max-files", arg, "give a number of files of at least 1");
		o->max_files = (int)l;
		break;
	case OPT_PROM_FLOWS:
		if (parse_long(arg, 0, 10000, &l))
			return bad("--prom-flows", arg, "give a number between 0 and 10000");
		o->prom_flows = (int)l;
		break;
	case OPT_THRESHOLD:
		if (rt_find_cfg_set(&o->find, arg))
			return -EINVAL;
		break;
	case OPT_LINK_SPEED:
		if (rt_parse_speed(arg, &o->find.speed_mbps))
			return bad("--link-speed", arg, "give a speed such as 25G, 100G or 40000M");
		break;
	case OPT_FLIGHT:
		if (rt_parse_duration(arg, &o->flight_secs))
			return bad("--flight-recorder", arg, "give a duration such as 90s, 5m or 1h (at most 24h)");
		break;
	case OPT_TRIGGER:
		if ((o->trigger = rt_sev_from_name(arg)) < 0)
			return bad("--trigger", arg, "use info, warning or critical");
		break;
	case OPT_FLIGHT_DIR: o->flight_dir = arg; break;
	case OPT_HOSTNAME:
		if (!arg[0] || strlen(arg) > 63)
			return bad("--hostname", arg, "give a name of 1 to 63 characters");
		o->hostname = arg;
		break;
	case 'v': rt_verbosity = RT_LOG_DEBUG; break;
	case 'q': rt_verbosity = RT_LOG_WARN; break;
	case 'V': printf("rocetop %s\n", RT_VERSION); return 1;
	case 'h': rt_cli_help(&rt_main_cli, stdout); return 1;
	default: return -EINVAL;
	}
	return 0;
}

/* Returns 0, 1 for "exit 0 now" (help, version) or a negative errno. */
int rt_parse_args(int argc, char **argv, struct rt_opts *o)
{
	int first, err;

	rt_opts_defaults(o);
	err = rt_cli_parse(&rt_main_cli, argc, argv, on_opt, o, &first);
	if (err)
		return err;
	if (first < argc) {
		pr_warn("unexpected argument '%s'; interfaces take -i, files take -r.\n", argv[first]);
		return -EINVAL;
	}
	if (o->nifaces && o->read_file) {
		pr_warn("-i and -r cannot be combined: watch interfaces or read a file.\n");
		return -EINVAL;
	}
	if (o->sflow && o->read_file) {
		pr_warn("--sflow collects live and cannot be combined with -r; use it alone or beside -i.\n");
		return -EINVAL;
	}
	if (o->nsflow_allow && !o->sflow) {
		pr_warn("--sflow-allow restricts --sflow, which is not given.\n");
		return -EINVAL;
	}
	if (rt_sflow_check_opts(o))
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
	return 0;
}

