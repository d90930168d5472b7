// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The command line: defaults, the help text, and parsing into struct rt_opts. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "num.h"
#include "opts.h"

static const char usage_text[] =
"Usage: rocetop -i IFACE [-i IFACE ...] [options]   live, on interfaces\n"
"       rocetop -r FILE [options]                  a pcap/pcapng capture or a recording\n"
"       rocetop lab [options]                      a built-in test bed with congestion\n"
"       rocetop report FILE [--json]               offline summary of a recording or capture\n"
"\n"
"rocetop shows where a RoCEv2 fabric is congested, per flow: ECN marks, CNPs,\n"
"ACK/NAKs and PFC pauses counted on the wire by XDP (ingress) and TC (egress)\n"
"BPF programs, beside the RDMA NIC's own counters.\n"
"\n"
"Sources:\n"
"  -i, --interface IFACE   attach to IFACE (repeat for several)\n"
"  -r, --read FILE         read a capture (pcap, pcapng) or a rocetop recording\n"
"Views and sinks (combine freely):\n"
"  (default)               the live ncurses view when standard output is a terminal\n"
"  -b, --batch             plain text, one table per interval, like top -b\n"
"      --csv DIR           write DIR/flows.csv, pfc.csv, stats.csv, ports.csv per interval\n"
"  -w, --write FILE        record every snapshot to FILE (replay with -r FILE)\n"
"      --listen [ADDR:]PORT  serve Prometheus metrics on /metrics (a bare port: loopback)\n"
"  -D, --daemon            no view: only the sinks named (--csv, -w, --listen)\n"
"Timing:\n"
"  -d, --interval SECONDS  time between snapshots (default 1; files: capture time)\n"
"  -n, --iterations N      stop after N intervals (exit 0)\n"
"      --speed X           replay files in the view at X times capture speed (default 1)\n"
"Capture:\n"
"      --max-flows N       flow table size in the kernel (default 16384)\n"
"      --flow-timeout S    forget flows idle for S seconds (default 60, 0: never)\n"
"      --xdp-mode MODE     auto (native, else generic), native or generic\n"
"      --no-egress         XDP on ingress only;  --no-ingress: TC on egress only\n"
"NIC counters:\n"
"      --sysfs-root DIR    read /sys/class/infiniband below DIR (fixtures, containers)\n"
"      --no-nic            do not read the NIC's counters\n"
"Output:\n"
"      --top N             flows per interval in --batch (default 20, 0: all)\n"
"      --sort COLUMN       initial sort of the view (congestion, pkts, bytes, ce, cnp, nak)\n"
"      --filter TEXT       initial filter of the view (address or QP)\n"
"      --max-size BYTES    rotate the recording past BYTES (k, M, G suffixes)\n"
"      --max-files N       keep N rotated recordings (like tcpdump -W)\n"
"      --prom-flows K      top K flows exported to Prometheus (default 10)\n"
"  -v, --verbose           more messages (libbpf's and the verifier's too)\n"
"  -q, --quiet             only warnings\n"
"  -V, --version           print the version\n"
"  -h, --help              this text\n"
"\n"
"Examples:\n"
"  rocetop lab                          watch congestion on the built-in test bed\n"
"  rocetop -i eth0                      live view of eth0\n"
"  rocetop -i eth0 -b -n 5              five text tables, one per second\n"
"  rocetop -i eth0 --csv run1 -w run1.rtr -D   record a tuning run\n"
"  rocetop -r run1.rtr                  replay it in the view\n"
"  rocetop report run1.rtr              victims, culprits and moments\n"
"\n"
"Attaching needs root (or CAP_BPF and CAP_NET_ADMIN). See rocetop(8).\n";

enum {
	OPT_CSV = 256, OPT_LISTEN, OPT_MAX_FLOWS, OPT_FLOW_TIMEOUT, OPT_XDP_MODE, OPT_NO_EGRESS,
	OPT_NO_INGRESS, OPT_SYSFS_ROOT, OPT_NO_NIC, OPT_TOP, OPT_SORT, OPT_FILTER, OPT_MAX_SIZE,
	OPT_MAX_FILES, OPT_PROM_FLOWS, OPT_SPEED, OPT_SFLOW, OPT_SFLOW_ALLOW,
};

static const struct option long_opts[] = {
	{ "interface", required_argument, NULL, 'i' },
	{ "read", required_argument, NULL, 'r' },
	{ "sflow", required_argument, NULL, OPT_SFLOW },
	{ "sflow-allow", required_argument, NULL, OPT_SFLOW_ALLOW },
	{ "write", required_argument, NULL, 'w' },
	{ "batch", no_argument, NULL, 'b' },
	{ "daemon", no_argument, NULL, 'D' },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "interval", required_argument, NULL, 'd' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "speed", required_argument, NULL, OPT_SPEED },
	{ "max-flows", required_argument, NULL, OPT_MAX_FLOWS },
	{ "flow-timeout", required_argument, NULL, OPT_FLOW_TIMEOUT },
	{ "xdp-mode", required_argument, NULL, OPT_XDP_MODE },
	{ "no-egress", no_argument, NULL, OPT_NO_EGRESS },
	{ "no-ingress", no_argument, NULL, OPT_NO_INGRESS },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
	{ "no-nic", no_argument, NULL, OPT_NO_NIC },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "max-files", required_argument, NULL, OPT_MAX_FILES },
	{ "prom-flows", required_argument, NULL, OPT_PROM_FLOWS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
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

/* Returns 0, 1 for "exit 0 now" (help, version) or a negative errno. */
int rt_parse_args(int argc, char **argv, struct rt_opts *o)
{
	long l;
	int c;

	rt_opts_defaults(o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:r:w:bDd:n:vqVh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (o->nifaces == RT_MAX_SRC_IFACES) {
				pr_warn("at most %d interfaces can be watched at once.\n", RT_MAX_SRC_IFACES);
				return -EINVAL;
			}
			for (int k = 0; k < o->nifaces; k++)
				if (!strcmp(o->ifaces[k], optarg)) {
					pr_warn("-i %s is given twice; name each interface once.\n", optarg);
					return -EINVAL;
				}
			o->ifaces[o->nifaces++] = optarg;
			break;
		case 'r': o->read_file = optarg; break;
		case OPT_SFLOW: o->sflow = optarg; break;
		case OPT_SFLOW_ALLOW:
			if (o->nsflow_allow == RT_MAX_SFLOW_ALLOW) {
				pr_warn("at most %d --sflow-allow ranges can be given.\n", RT_MAX_SFLOW_ALLOW);
				return -EINVAL;
			}
			o->sflow_allow[o->nsflow_allow++] = optarg;
			break;
		case 'w': o->write_file = optarg; break;
		case 'b': o->batch = 1; break;
		case 'D': o->daemon = 1; break;
		case OPT_CSV: o->csv_dir = optarg; break;
		case OPT_LISTEN: o->listen = optarg; break;
		case 'd':
			if (parse_seconds(optarg, 0.01, 86400, &o->interval))
				return bad("--interval", optarg, "give seconds between 0.01 and 86400");
			break;
		case 'n':
			if (parse_long(optarg, 1, 1000000000000000000L, &o->iterations))
				return bad("--iterations", optarg, "give a whole number of at least 1");
			break;
		case OPT_SPEED:
			if (parse_double(optarg, 0.01, 1e6, &o->speed))
				return bad("--speed", optarg, "give a factor between 0.01 and 1000000");
			break;
		case OPT_MAX_FLOWS:
			if (parse_long(optarg, 16, 1 << 24, &l))
				return bad("--max-flows", optarg, "give a number between 16 and 16777216");
			o->max_flows = (__u32)l;
			break;
		case OPT_FLOW_TIMEOUT:
			if (parse_seconds(optarg, 0, 1e9, &o->flow_timeout))
				return bad("--flow-timeout", optarg, "give seconds, 0 to never forget a flow");
			break;
		case OPT_XDP_MODE:
			if (!strcmp(optarg, "auto"))
				o->xdp_mode = 0;
			else if (!strcmp(optarg, "native"))
				o->xdp_mode = 1;
			else if (!strcmp(optarg, "generic") || !strcmp(optarg, "skb"))
				o->xdp_mode = 2;
			else
				return bad("--xdp-mode", optarg, "use auto, native or generic");
			break;
		case OPT_NO_EGRESS: o->no_egress = 1; break;
		case OPT_NO_INGRESS: o->no_ingress = 1; break;
		case OPT_SYSFS_ROOT: o->sysfs_root = optarg; break;
		case OPT_NO_NIC: o->no_nic = 1; break;
		case OPT_TOP:
			if (parse_long(optarg, 0, INT_MAX, &l))
				return bad("--top", optarg, "give a number of flows, 0 for all");
			o->top = (int)l;
			break;
		case OPT_SORT: o->sort = optarg; break;
		case OPT_FILTER: o->filter = optarg; break;
		case OPT_MAX_SIZE:
			if (parse_size(optarg, &o->max_size))
				return bad("--max-size", optarg, "give a size of at least 4096 bytes, e.g. 100M");
			break;
		case OPT_MAX_FILES:
			if (parse_long(optarg, 1, 100000, &l))
				return bad("--max-files", optarg, "give a number of files of at least 1");
			o->max_files = (int)l;
			break;
		case OPT_PROM_FLOWS:
			if (parse_long(optarg, 0, 10000, &l))
				return bad("--prom-flows", optarg, "give a number between 0 and 10000");
			o->prom_flows = (int)l;
			break;
		case 'v': rt_verbosity = RT_LOG_DEBUG; break;
		case 'q': rt_verbosity = RT_LOG_WARN; break;
		case 'V': printf("rocetop %s\n", RT_VERSION); return 1;
		case 'h': fputs(usage_text, stdout); return 1;
		default:
			fprintf(stderr, "Try 'rocetop --help' for the options.\n");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		pr_warn("unexpected argument '%s'; interfaces take -i, files take -r.\n", argv[optind]);
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
	if (o->no_egress && o->no_ingress) {
		pr_warn("--no-egress and --no-ingress together leave nothing to watch.\n");
		return -EINVAL;
	}
	if (o->max_files && !o->max_size) {
		pr_warn("--max-files rotates recordings and needs --max-size.\n");
		return -EINVAL;
	}
	if (o->read_file && o->write_file && !strcmp(o->read_file, o->write_file)) {
		pr_warn("-w %s would overwrite the file being read.\n", o->write_file);
		return -EINVAL;
	}
	return 0;
}

