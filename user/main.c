// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop: where is my RoCEv2 fabric congested, per flow, live.
 * The command line, and the one loop that takes snapshots from a source and
 * hands them, with what changed, to every sink.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include "join.h"
#include "log.h"
#include "sink.h"
#include "source.h"

#define MAX_SINKS 8

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
	OPT_MAX_FILES, OPT_PROM_FLOWS, OPT_SPEED,
};

static const struct option long_opts[] = {
	{ "interface", required_argument, NULL, 'i' },
	{ "read", required_argument, NULL, 'r' },
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
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_size(const char *s, long long *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v *= 1e3; end++; break;
	case 'm': case 'M': v *= 1e6; end++; break;
	case 'g': case 'G': v *= 1e9; end++; break;
	}
	if (*end || v < 4096 || v > 1e15)
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
			o->ifaces[o->nifaces++] = optarg;
			break;
		case 'r': o->read_file = optarg; break;
		case 'w': o->write_file = optarg; break;
		case 'b': o->batch = 1; break;
		case 'D': o->daemon = 1; break;
		case OPT_CSV: o->csv_dir = optarg; break;
		case OPT_LISTEN: o->listen = optarg; break;
		case 'd':
			if (parse_double(optarg, 0.01, 86400, &o->interval))
				return bad("--interval", optarg, "give seconds between 0.01 and 86400");
			break;
		case 'n':
			if (parse_long(optarg, 1, LONG_MAX, &o->iterations))
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
			if (parse_double(optarg, 0, 1e9, &o->flow_timeout))
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

static int arm_timer(int fd, double secs)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = (time_t)secs;
	its.it_value.tv_nsec = (long)((secs - (double)(time_t)secs) * 1e9);
	if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
		its.it_value.tv_nsec = 1;
	its.it_interval = its.it_value;
	return timerfd_settime(fd, 0, &its, NULL);
}

struct loop {
	struct rt_source *src;
	struct rt_nic *nic;
	struct rt_sink *sinks[MAX_SINKS];
	int nsinks;
	struct rt_snapshot snaps[2];
	int cur;		/* index of the newest snapshot in snaps */
	int have_prev;
	struct rt_delta delta;
	long emitted;
	__u64 file_start_ns;
};

/* Take one snapshot and hand it to every sink. 1: done, 0: source ended, <0: error. */
static int step(struct loop *L, const struct rt_opts *o, int emit)
{
	struct rt_snapshot *next = &L->snaps[L->have_prev ? !L->cur : L->cur];
	struct rt_snapshot *prev = L->have_prev ? &L->snaps[L->cur] : NULL;
	int i, r;

	rt_snapshot_clear(next);
	r = L->src->collect(L->src, next);
	if (r <= 0)
		return r;
	if (L->nic)
		rt_nic_collect(L->nic, next);
	else if (L->src->live)
		rt_join(next, NULL);	/* CNP attribution from ACKs and host pairs */
	if (!L->file_start_ns)
		L->file_start_ns = next->time_ns;
	if (rt_delta_compute(&L->delta, prev, next)) {
		pr_warn("out of memory computing rates.\n");
		return -ENOMEM;
	}
	/* The first snapshot counts from the start: rate it over one interval. */
	if (!prev)
		L->delta.secs = o->interval;
	L->cur = L->have_prev ? !L->cur : L->cur;
	L->have_prev = 1;
	if (!emit)
		return 1;
	for (i = 0; i < L->nsinks; i++) {
		r = L->sinks[i]->emit(L->sinks[i], next, &L->delta);
		if (r < 0)
			return r;
	}
	L->emitted++;
	return 1;
}

/* Restart a file source and skip to `to` seconds of capture time. */
static int seek(struct loop *L, const struct rt_opts *o, double to)
{
	int r;

	if (!L->src->rewind || L->src->rewind(L->src))
		return 0;
	L->have_prev = 0;
	/* Within the first interval: the caller's next step shows the first snapshot. */
	if (to < o->interval - 1e-9)
		return 1;
	do {
		r = step(L, o, 0);
	} while (r > 0 && (L->snaps[L->cur].time_ns - L->file_start_ns) / 1e9 + 1e-9 < to - o->interval);
	return r < 0 ? r : 1;
}

static int run(struct loop *L, const struct rt_opts *o)
{
	struct rt_ctl ctl = { .interval = o->interval, .speed = o->speed, .is_file = !L->src->live };
	int interactive = 0, sfd = -1, tfd = -1, err = 0, i, r;
	double armed = 0;
	sigset_t mask;

	for (i = 0; i < L->nsinks; i++)
		if (L->sinks[i]->input_fd >= 0)
			interactive = 1;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (sfd < 0 || tfd < 0) {
		pr_warn("cannot set up the event loop: %s.\n", strerror(errno));
		err = -errno;
		goto out;
	}

	if (o->hook && (r = o->hook(o->hook_arg, RT_HOOK_READY)) < 0) {
		err = r;
		goto out;
	}

	/* A file without a view: as fast as the sinks take it, signals still stop it. */
	if (!L->src->live && !interactive) {
		struct signalfd_siginfo si;

		while ((r = step(L, o, 1)) > 0) {
			if (o->iterations && L->emitted >= o->iterations)
				break;
			if (read(sfd, &si, sizeof(si)) == sizeof(si))
				break;
		}
		err = r < 0 ? r : 0;
		goto out;
	}

	armed = ctl.interval / (L->src->live ? 1 : ctl.speed);
	arm_timer(tfd, armed);
	/* A live source shows its first snapshot after one interval; a file at once. */
	if (!L->src->live) {
		r = step(L, o, 1);
		if (r < 0) {
			err = r;
			goto out;
		}
		ctl.at_end = r == 0;
	}
	while (!ctl.quit) {
		struct pollfd pfd[2 + MAX_SINKS];
		int n = 0;
		double want;

		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = tfd, .events = POLLIN };
		for (i = 0; i < L->nsinks; i++)
			pfd[n++] = (struct pollfd){ .fd = L->sinks[i]->input_fd, .events = POLLIN };
		r = poll(pfd, (nfds_t)n, 500);
		if (r < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				pr_debug("signal %u: stopping\n", si.ssi_signo);
				/* What arrived since the last interval still counts. */
				if (L->src->live && step(L, o, 1) < 0)
					err = -EIO;
				break;
			}
		}
		for (i = 0; i < L->nsinks; i++)
			if (pfd[2 + i].fd >= 0 && (pfd[2 + i].revents & (POLLIN | POLLHUP)) &&
			    L->sinks[i]->on_input)
				L->sinks[i]->on_input(L->sinks[i], &ctl);
		if (ctl.quit)
			break;
		if (ctl.seek_to > 0) {
			double to = ctl.seek_to;

			ctl.seek_to = 0;
			r = seek(L, o, to);
			if (r < 0) {
				err = r;
				break;
			}
			ctl.at_end = 0;
			if (r > 0 && (r = step(L, o, 1)) < 0) {
				err = r;
				break;
			}
		}
		want = ctl.interval / (L->src->live ? 1 : ctl.speed);
		if (want != armed) {
			armed = want;
			arm_timer(tfd, armed);
		}
		if (pfd[1].revents & POLLIN) {
			__u64 ticks;

			if (read(tfd, &ticks, sizeof(ticks)) != sizeof(ticks))
				ticks = 0;
			if ((!ctl.paused || ctl.step > 0) && !ctl.at_end) {
				if (ctl.step > 0)
					ctl.step--;
				r = step(L, o, 1);
				if (r < 0) {
					err = r;
					break;
				}
				if (r == 0) {
					ctl.at_end = 1;
					if (!interactive)
						break;
				}
				if (o->iterations && L->emitted >= o->iterations)
					break;
				if (o->hook && o->hook(o->hook_arg, RT_HOOK_TICK) > 0) {
					if (L->src->live && step(L, o, 1) < 0)
						err = -EIO;
					break;
				}
			}
		}
		for (i = 0; i < L->nsinks; i++)
			if (L->sinks[i]->on_idle)
				L->sinks[i]->on_idle(L->sinks[i], &ctl);
	}
out:
	if (sfd >= 0)
		close(sfd);
	if (tfd >= 0)
		close(tfd);
	return err;
}

static int add_sink(struct loop *L, struct rt_sink *s)
{
	if (!s)
		return -EINVAL;
	L->sinks[L->nsinks++] = s;
	return 0;
}

int rt_run(const struct rt_opts *o)
{
	struct loop L = { 0 };
	int err = -EINVAL, i, tui;

	rt_snapshot_init(&L.snaps[0]);
	rt_snapshot_init(&L.snaps[1]);
	L.src = o->read_file ? rt_file_source_new(o) : rt_live_source_new(o);
	if (!L.src)
		goto out;
	if (L.src->live && !o->no_nic)
		L.nic = rt_nic_new(o);

	tui = !o->batch && !o->daemon && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	if (o->batch || (!o->daemon && !tui))
		if (add_sink(&L, rt_batch_sink_new(o)))
			goto out;
	if (o->csv_dir && add_sink(&L, rt_csv_sink_new(o)))
		goto out;
	if (o->write_file && add_sink(&L, rt_record_sink_new(o)))
		goto out;
	if (o->listen && add_sink(&L, rt_prom_sink_new(o)))
		goto out;
	if (tui && add_sink(&L, rt_tui_sink_new(o)))
		goto out;

	err = run(&L, o);
out:
	for (i = L.nsinks - 1; i >= 0; i--)
		L.sinks[i]->close(L.sinks[i]);
	if (L.nic)
		rt_nic_free(L.nic);
	if (L.src)
		L.src->close(L.src);
	rt_delta_free(&L.delta);
	rt_snapshot_free(&L.snaps[0]);
	rt_snapshot_free(&L.snaps[1]);
	return err;
}

int main(int argc, char **argv)
{
	struct rt_opts o;
	int err;

	if (argc > 1 && !strcmp(argv[1], "report"))
		return rt_report_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "lab"))
		return rt_lab_main(argc - 1, argv + 1);

	err = rt_parse_args(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	if (!o.nifaces && !o.read_file) {
		pr_warn("nothing to watch: name an interface (-i eth0), a file (-r run.rtr), or try the test bed (rocetop lab).\n");
		fprintf(stderr, "Try 'rocetop --help' for the options.\n");
		return 2;
	}
	return rt_run(&o) ? 1 : 0;
}
