// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop probe [options] [PEER...]
 *
 * The probe mesh's command (user/probe/): answer other hosts' probes and probe
 * the peers named (addresses on the command line and in --probe-peers FILE),
 * then print, each interval, every peer's paths and sizes: probes sent, lost,
 * the round trip's p50 and p99, and its split into the network's time and the
 * responder's, with the finding each path supports (path-down, path-loss,
 * path-latency, host-stall) as it opens and closes. Text, --json (a line per
 * interval) and --csv DIR (probes.csv). At the end (-n, SIGINT or SIGTERM) it
 * stops sending, waits out the probes in flight so each is answered or lost,
 * and prints the totals.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include "cli.h"
#include "cmd.h"
#include "log.h"
#include "num.h"
#include "print.h"
#include "probe_table.h"
#include "table.h"

#define CLOSE_AFTER	3	/* clean intervals that close a finding */

struct probe_args {
	const char *peers_file, *csv_dir, *sizes;
	double interval, rate, timeout, answer_rate, loss_pct, net_us, resp_us;
	long count;
	int json, no_answer, paths, port, window;
	long qkey;
	int tclass;
};

/* A path's finding as said on stderr: open since it was first supported,
 * closed after CLOSE_AFTER clean intervals. */
struct said {
	char addr[48];
	int path;
	uint32_t size;
	enum rt_probe_finding open;
	int clean;
};

struct probe_run {
	struct probe_args a;
	struct rt_probe_table *t;
	struct rt_snapshot snap;	/* the interval's rows */
	struct said *said;
	size_t nsaid, said_cap;
	FILE *csv;
};

/* ---- output ---- */

static double now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void num_or_dash(char *b, size_t n, double v)
{
	if (v < 0)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.0f", v);
}

static void print_row_text(const struct rt_probe_row *r)
{
	char r50[16], r99[16], n50[16], s50[16];

	num_or_dash(r50, sizeof(r50), r->rtt_p50_us);
	num_or_dash(r99, sizeof(r99), r->rtt_p99_us);
	num_or_dash(n50, sizeof(n50), r->net_p50_us);
	num_or_dash(s50, sizeof(s50), r->resp_p50_us);
	printf("%-16.16s %4d %7u %6u %5u %6llu %5llu %8s %8s %8s %8s %-6s %s\n", r->peer, r->path, r->flow_label,
	       r->udp_sport, r->size, (unsigned long long)r->sent, (unsigned long long)r->lost, r50, r99, n50, s50,
	       rt_probe_clock_name(r->clock), r->finding ? rt_probe_finding_name(r->finding) : "");
}

static void json_num(const char *key, double v)
{
	if (v < 0)
		printf(",\"%s\":null", key);
	else
		printf(",\"%s\":%.0f", key, v);
}

static void print_row_json(const struct rt_probe_row *r, int first)
{
	printf("%s{\"peer\":", first ? "" : ",");
	rt_pr_json_string(stdout, r->peer);
	printf(",\"addr\":");
	rt_pr_json_string(stdout, r->addr);
	printf(",\"path\":%d,\"flow_label\":%u,\"udp_sport\":%u,\"size\":%u,\"sent\":%llu,\"answered\":%llu,\"lost\":%llu",
	       r->path, r->flow_label, r->udp_sport, r->size, (unsigned long long)r->sent,
	       (unsigned long long)r->answered, (unsigned long long)r->lost);
	json_num("rtt_p50_us", r->rtt_p50_us);
	json_num("rtt_p99_us", r->rtt_p99_us);
	json_num("net_p50_us", r->net_p50_us);
	json_num("resp_p50_us", r->resp_p50_us);
	printf(",\"clock\":\"%s\",\"finding\":%s%s%s}", rt_probe_clock_name(r->clock), r->finding ? "\"" : "null",
	       r->finding ? rt_probe_finding_name(r->finding) : "", r->finding ? "\"" : "");
}

static void print_csv_row(FILE *c, double t, const struct rt_probe_row *r)
{
	char r50[16], r99[16], n50[16], s50[16];

	num_or_dash(r50, sizeof(r50), r->rtt_p50_us);
	num_or_dash(r99, sizeof(r99), r->rtt_p99_us);
	num_or_dash(n50, sizeof(n50), r->net_p50_us);
	num_or_dash(s50, sizeof(s50), r->resp_p50_us);
	/* a peer's name goes between quotes, doubled inside, as RFC 4180 asks */
	fprintf(c, "%.3f,\"", t);
	for (const char *s = r->peer; *s; s++)
		fprintf(c, *s == '"' ? "\"\"" : "%c", *s);
	fprintf(c, "\",%u,%u,%u,%llu,%llu,%s,%s,%s,%s,%s,%llu,%s\n", r->flow_label, r->udp_sport, r->size,
		(unsigned long long)r->sent, (unsigned long long)r->lost, strcmp(r50, "-") ? r50 : "",
		strcmp(r99, "-") ? r99 : "", strcmp(n50, "-") ? n50 : "", strcmp(s50, "-") ? s50 : "",
		rt_probe_clock_name(r->clock), (unsigned long long)r->answered,
		r->finding ? rt_probe_finding_name(r->finding) : "");
}

static struct said *said_of(struct probe_run *r, const struct rt_probe_row *row)
{
	struct said *x;

	for (size_t i = 0; i < r->nsaid; i++)
		if (r->said[i].path == row->path && r->said[i].size == row->size && !strcmp(r->said[i].addr, row->addr))
			return &r->said[i];
	x = rt_append((void **)&r->said, &r->nsaid, &r->said_cap, sizeof(*x));
	if (x) {
		snprintf(x->addr, sizeof(x->addr), "%s", row->addr);
		x->path = row->path;
		x->size = row->size;
	}
	return x;
}

/* A finding opens when a path's interval first supports it and closes after
 * CLOSE_AFTER intervals that support none; both said on stderr. */
static void track_finding(struct probe_run *r, const struct rt_probe_row *row)
{
	struct said *x = said_of(r, row);

	if (!x)
		return;
	if (row->finding) {
		x->clean = 0;
		if (x->open != row->finding)
			pr_warn("probe: %s opened: peer %s (%s) path %d (flow label %u, UDP source port %u), %u-byte probes: %s.\n",
				rt_probe_finding_name(row->finding), row->peer, row->addr, row->path, row->flow_label,
				row->udp_sport, row->size, row->why);
		x->open = row->finding;
	} else if (x->open && ++x->clean >= CLOSE_AFTER) {
		pr_warn("probe: %s closed: peer %s path %d, %u-byte probes.\n", rt_probe_finding_name(x->open), row->peer,
			row->path, row->size);
		x->open = RT_PF_NONE;
	}
}

static void report_interval(struct probe_run *r)
{
	struct rt_probe_mesh *m = rt_probe_table_mesh(r->t);
	double t = now_secs();

	rt_snapshot_clear(&r->snap);
	if (rt_probe_table_rows(r->t, &r->snap))
		pr_warn("probe: out of memory: the interval's rows are not all there.\n");
	if (r->a.json)
		printf("{\"time\":%.3f,\"paths\":[", t);
	else
		printf("\n%-16s %4s %7s %6s %5s %6s %5s %8s %8s %8s %8s %-6s %s\n", "PEER", "PATH", "LABEL", "SPORT",
		       "SIZE", "SENT", "LOST", "RTT50us", "RTT99us", "NET50us", "RESP50us", "CLOCK", "FINDING");
	for (size_t i = 0; i < r->snap.nprobes; i++) {
		const struct rt_probe_row *row = &r->snap.probes[i];

		track_finding(r, row);
		if (r->a.json)
			print_row_json(row, !i);
		else
			print_row_text(row);
		if (r->csv)
			print_csv_row(r->csv, t, row);
	}
	if (r->a.json) {
		const struct rt_probe_answerer *a = rt_probe_mesh_answerer(m);

		printf("],\"answerer\":{\"answered\":%llu,\"dropped_rate\":%llu,\"dropped_busy\":%llu,\"bad\":{",
		       (unsigned long long)a->answered, (unsigned long long)a->dropped_rate,
		       (unsigned long long)a->dropped_busy);
		for (int b = 1; b < RT_PROBE_NBAD; b++)
			printf("%s\"%s\":%llu", b > 1 ? "," : "", rt_probe_bad_name(b), (unsigned long long)a->bad[b]);
		printf("}},\"late\":%llu,\"unsent\":%llu}\n", (unsigned long long)rt_probe_mesh_late(m),
		       (unsigned long long)rt_probe_mesh_unsent(m));
	}
	fflush(stdout);
	if (r->csv)
		fflush(r->csv);
}

/* The totals since the start, one line a path and size (the last interval's
 * rows carry them), and the answerer's. */
static void report_totals(struct probe_run *r)
{
	struct rt_probe_mesh *m = rt_probe_table_mesh(r->t);
	const struct rt_probe_answerer *a = rt_probe_mesh_answerer(m);

	for (size_t i = 0; i < r->snap.nprobes; i++) {
		const struct rt_probe_row *row = &r->snap.probes[i];

		if (r->a.json) {
			printf("{\"total\":{\"peer\":");
			rt_pr_json_string(stdout, row->peer);
			printf(",\"path\":%d,\"udp_sport\":%u,\"size\":%u,\"sent\":%llu,\"answered\":%llu,\"lost\":%llu}}\n",
			       row->path, row->udp_sport, row->size, (unsigned long long)row->sent_total,
			       (unsigned long long)row->answered_total, (unsigned long long)row->lost_total);
		} else {
			printf("total %s path %d sport %u size %u: %llu sent, %llu answered, %llu lost\n", row->peer,
			       row->path, row->udp_sport, row->size, (unsigned long long)row->sent_total,
			       (unsigned long long)row->answered_total, (unsigned long long)row->lost_total);
		}
	}
	if (r->a.json)
		printf("{\"answerer\":{\"answered\":%llu,\"dropped_rate\":%llu,\"dropped_busy\":%llu,\"bad\":%llu},\"memory_bytes\":%zu}\n",
		       (unsigned long long)a->answered, (unsigned long long)a->dropped_rate,
		       (unsigned long long)a->dropped_busy,
		       (unsigned long long)(a->bad[RT_PROBE_SHORT] + a->bad[RT_PROBE_NOT_OURS] +
					    a->bad[RT_PROBE_BAD_TYPE] + a->bad[RT_PROBE_BAD_SIZE]),
		       rt_probe_mesh_bytes(m));
	else
		printf("answerer: %llu answered, %llu dropped at the rate bound, %llu dropped with no send slot or address free, %llu refused (%llu short, %llu not ours, %llu wrong type, %llu size not as received)\n",
		       (unsigned long long)a->answered, (unsigned long long)a->dropped_rate,
		       (unsigned long long)a->dropped_busy,
		       (unsigned long long)(a->bad[1] + a->bad[2] + a->bad[3] + a->bad[4]),
		       (unsigned long long)a->bad[1], (unsigned long long)a->bad[2], (unsigned long long)a->bad[3],
		       (unsigned long long)a->bad[4]);
	if (!r->a.json)
		printf("memory: %zu bytes\n", rt_probe_mesh_bytes(m));
	fflush(stdout);
}

/* ---- the loop ---- */

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * One wake every RT_PROBE_TICK_NS at least (a timerfd), and at once for an
 * event or a completion: a wake late past the tick is this process's own
 * stall (rt_probe_stall_of), not the network's. A tick of 5 ms costs 200
 * wakes a second.
 */
static int run_loop(struct probe_run *r, int tfd, int sfd)
{
	struct rt_probe_mesh *m = rt_probe_table_mesh(r->t);
	uint64_t last = mono(), every = (uint64_t)(r->a.interval * 1e9), next = last + every, drain_end = 0;
	long intervals = 0;
	int stopping = 0;

	for (;;) {
		struct pollfd pf[16] = { { .fd = tfd, .events = POLLIN }, { .fd = sfd, .events = POLLIN } };
		int fds[14], n = rt_probe_mesh_fds(m, fds, 14);
		uint64_t now, stall, x;

		for (int i = 0; i < n; i++)
			pf[2 + i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		if (poll(pf, (nfds_t)(2 + n), -1) < 0 && errno != EINTR)
			return -errno;
		now = mono();
		stall = rt_probe_stall_of(now - last);
		last = now;
		if (pf[0].revents & POLLIN)
			(void)!read(tfd, &x, sizeof(x));
		if (pf[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			(void)!read(sfd, &si, sizeof(si));
			stopping = 1;
		}
		rt_probe_table_step(r->t, now, stall, !stopping);
		if (stopping && !drain_end) {
			/* no new probe; the ones in flight get the timeout to come back */
			drain_end = now + (uint64_t)(r->a.timeout * 1e9) + 1000000;
			if (!r->a.json)
				fprintf(stderr, "rocetop probe: waiting %g s for the probes in flight\n", r->a.timeout);
		}
		if (drain_end && (now >= drain_end || !rt_probe_mesh_inflight(m))) {
			report_interval(r);
			return 0;
		}
		if (now >= next) {
			next += every;
			if (next <= now)
				next = now + every;
			report_interval(r);
			if (r->a.count && ++intervals >= r->a.count)
				stopping = 1;
		}
	}
}

/* ---- the command line ---- */

static int on_qkey(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct probe_args *a = ctx;
	unsigned long v;
	char *end;

	(void)opt;
	errno = 0;
	v = strtoul(arg, &end, arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X') ? 16 : 10);
	if (errno || end == arg || *end || arg[0] == '-' || arg[0] == '+' || v > 0x7fffffff) {
		pr_warn("probe: --qkey '%s' is not valid: give a Q_Key from 0 to 0x7fffffff.\n", arg);
		return -EINVAL;
	}
	a->qkey = (long)v;
	return 0;
}

#define A struct probe_args

static const struct rt_opt probe_opts[] = {
	RT_OPT_SECTION("Whom and how"),
	{ 256, "probe-peers", "FILE", "probe the peers FILE names: one a line, an IPv4 address\n"
		"and an optional name ('#' starts a comment); with the PEERs given", RT_SET_STR(A, peers_file) },
	{ 257, "probe-rate", "N", "probes a second per peer, all paths and sizes together (default 10)",
	  RT_SET_REAL(A, rate, RT_NUM_REAL, 0.1, 1000, "give probes a second from 0.1 to 1000") },
	{ 258, "probe-paths", "N", "paths per peer: each its own source QP and flow label, so its\n"
		"own UDP source port and ECMP path (default 2, at most 4)",
	  RT_SET_INT(A, paths, 1, RT_PROBE_MAX_PATHS, "give 1 to 4 paths") },
	{ 259, "probe-sizes", "LIST", "probe sizes in bytes, comma separated, 48 to 4096 or 'mtu' (the\n"
		"port's active MTU), so that loss of large frames only is seen\n(default 64,mtu)",
	  RT_SET_STR(A, sizes) },
	{ 260, "probe-timeout", "S", "seconds after which a probe is lost (default 1)",
	  RT_SET_REAL(A, timeout, RT_NUM_SECONDS, 0.01, 10, "give seconds from 0.01 to 10") },
	{ 261, "probe-port", "N", "rdma_cm port the answerers listen on (default 18515)",
	  RT_SET_INT(A, port, 1, 65535, "give a port from 1 to 65535") },
	{ 262, "qkey", "N", "the probes' Q_Key, decimal or 0x hex (default 0x524f43;\n"
		"below 0x80000000, which only privileged QPs may use)", RT_CALL(on_qkey) },
	{ 263, "tclass", "N", "the probes' traffic class, DSCP and ECN (default 106: DSCP 26, ECT(0))",
	  RT_SET_INT(A, tclass, 0, 255, "give a traffic class from 0 to 255") },
	{ 264, "no-answer", NULL, "do not answer other hosts' probes", RT_SET_FLAG(A, no_answer) },
	{ 265, "answer-rate", "N", "answers a second at most; the rest dropped and counted (default 1000)",
	  RT_SET_REAL(A, answer_rate, RT_NUM_REAL, 1, 100000, "give answers a second from 1 to 100000") },
	RT_OPT_SECTION("Findings"),
	{ 266, "probe-loss", "PCT", "a path-loss at this share of probes lost over the window (default 0.5)",
	  RT_SET_REAL(A, loss_pct, RT_NUM_REAL, 0, 100, "give a percentage from 0 to 100") },
	{ 267, "probe-window", "N", "intervals the loss is judged over (default 10)",
	  RT_SET_INT(A, window, 1, 32, "give 1 to 32 intervals") },
	{ 268, "probe-net-us", "US", "a path-latency at this network time p50, in us (default 2000)",
	  RT_SET_REAL(A, net_us, RT_NUM_REAL, 1, 10000000, "give microseconds from 1 to 10000000") },
	{ 269, "probe-resp-us", "US", "a host-stall at this responder time p50, in us (default 1000)",
	  RT_SET_REAL(A, resp_us, RT_NUM_REAL, 1, 10000000, "give microseconds from 1 to 10000000") },
	RT_OPT_SECTION("Output"),
	{ 'd', "interval", "S", "seconds between reports (default 1)",
	  RT_SET_REAL(A, interval, RT_NUM_SECONDS, 0.1, 3600, "give seconds from 0.1 to 3600") },
	{ 'n', "count", "N", "stop after N reports (default: until SIGINT or SIGTERM)",
	  RT_SET_LONG(A, count, 1, 1000000000, "give a count from 1") },
	{ 270, "json", NULL, "a JSON object a line: each interval, then the totals", RT_SET_FLAG(A, json) },
	{ 271, "csv", "DIR", "write DIR/probes.csv too", RT_SET_STR(A, csv_dir) },
	RT_OPT_HELP_ENTRY,
	RT_OPT_END,
};

#undef A

static const struct rt_cli probe_cli = {
	.prog = "rocetop probe",
	.usage =
"Usage: rocetop probe [options] [PEER...]\n"
"Answer other hosts' probes and probe the PEERs (IPv4 addresses of their RoCEv2\n"
"GIDs) over real RDMA: one UD QP per device answers, one per path probes, and\n"
"rdma_cm finds each peer's. Each interval, per peer, path and size: probes sent\n"
"and lost, the round trip's p50 and p99, and its split into the network's time\n"
"and the responder's, and the finding it supports: path-down, path-loss,\n"
"path-latency (the network) or host-stall (the peer host). With no PEER, only\n"
"answer.\n",
	.opts = probe_opts,
	.epilog =
"Needs a RoCEv2 GID on each host, the same --qkey and --probe-port on every host,\n"
"rdma_ucm loaded, and UDP port 4791 open between the hosts.\n"
"Exit status: 0 at the end, 1 when the mesh cannot start, 2 for a bad command line.\n",
	.width = 24,
	.who = "probe: ",
};

static int setup(struct probe_run *r, int argc, char **argv, int first)
{
	struct rt_probe_thresholds th = RT_PROBE_THRESHOLDS_DEFAULT;
	struct rt_probe_cfg cfg = {
		.cm_port = (uint16_t)r->a.port, .qkey = (uint32_t)r->a.qkey, .answer = !r->a.no_answer,
		.npaths = r->a.paths, .rate = r->a.rate, .timeout = r->a.timeout,
		.answer_rate = r->a.answer_rate, .tclass = (uint8_t)r->a.tclass,
	};
	int err;

	if ((err = rt_probe_parse_sizes(r->a.sizes, &cfg)))
		return err;
	th.loss = r->a.loss_pct / 100;
	th.window = r->a.window;
	th.net_us = r->a.net_us;
	th.resp_us = r->a.resp_us;
	r->t = rt_probe_table_new(&cfg, &th, RT_PROBE_MAX_PEERS);
	if (!r->t)
		return -ENOMEM;
	for (int i = first; i < argc; i++)
		if ((err = rt_probe_table_add(r->t, argv[i], NULL, RT_PROBE_FROM_LIST, "")))
			return err == -E2BIG ? -EINVAL : err;
	if (r->a.peers_file && (err = rt_probe_table_read_peers(r->t, r->a.peers_file)))
		return err == -E2BIG ? -EINVAL : err;
	if (!rt_probe_table_npeers(r->t) && r->a.no_answer) {
		pr_warn("probe: nothing to do: no peer to probe, and --no-answer.\n");
		return -EINVAL;
	}
	return 0;
}

static int open_csv(struct probe_run *r)
{
	char path[4096];

	if (!r->a.csv_dir)
		return 0;
	snprintf(path, sizeof(path), "%s/probes.csv", r->a.csv_dir);
	r->csv = fopen(path, "w");
	if (!r->csv) {
		pr_warn("probe: cannot write %s: %s.\n", path, strerror(errno));
		return -errno;
	}
	fprintf(r->csv, "time,peer,flow_label,udp_sport,size,sent,lost,rtt_p50_us,rtt_p99_us,net_p50_us,resp_p50_us,clock,answered,finding\n");
	return 0;
}

static int run(struct probe_run *r)
{
	struct itimerspec its = { .it_interval = { 0, RT_PROBE_TICK_NS }, .it_value = { 0, RT_PROBE_TICK_NS } };
	const struct rt_probe_cfg *cfg;
	sigset_t ss;
	int tfd, sfd, err;

	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGTERM);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	sfd = signalfd(-1, &ss, SFD_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (sfd < 0 || tfd < 0 || timerfd_settime(tfd, 0, &its, NULL)) {
		pr_warn("probe: %s.\n", strerror(errno));
		return 1;
	}
	if (rt_probe_table_start(r->t))
		return 1;
	cfg = rt_probe_mesh_cfg(rt_probe_table_mesh(r->t));
	fprintf(stderr, "rocetop probe: %s %d peer(s), %g probes/s each, on rdma_cm port %d, Q_Key 0x%lx; clock %s\n",
		cfg->answer ? "answering, and probing" : "probing", rt_probe_table_npeers(r->t), cfg->rate, r->a.port,
		r->a.qkey, rt_probe_clock_name(rt_probe_mesh_clock(rt_probe_table_mesh(r->t))));
	err = run_loop(r, tfd, sfd);
	report_totals(r);
	close(tfd);
	close(sfd);
	return err ? 1 : 0;
}

int rt_probe_main(int argc, char **argv)
{
	struct probe_run *r = calloc(1, sizeof(*r));
	int first, err, rc = 2;

	if (!r) {
		pr_warn("probe: out of memory.\n");
		return 1;
	}
	rt_snapshot_init(&r->snap);
	r->a = (struct probe_args){ .interval = 1, .rate = 10, .timeout = 1, .answer_rate = 1000, .loss_pct = 0.5,
				    .net_us = 2000, .resp_us = 1000, .paths = 2, .port = 18515, .window = 10,
				    .qkey = RT_PROBE_QKEY, .tclass = 106, .sizes = "64,mtu" };
	err = rt_cli_parse(&probe_cli, argc, argv, NULL, &r->a, &first);
	if (err) {
		rc = err > 0 ? 0 : 2;
		goto out;
	}
	err = setup(r, argc, argv, first);
	if (err == -ENOMEM)
		rc = 1;
	if (err || open_csv(r))
		goto out;
	rc = run(r);
	if (r->csv && fclose(r->csv)) {
		pr_warn("probe: cannot write probes.csv: %s.\n", strerror(errno));
		rc = 1;
	}
	r->csv = NULL;
out:
	if (r->csv)
		fclose(r->csv);
	rt_probe_table_free(r->t);
	rt_snapshot_free(&r->snap);
	free(r->said);
	free(r);
	return rc;
}
