// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench/collect_cpu: user-space CPU time of one interval of the main loop at
 * 10k and 100k live flows, all of them or 1% changing per interval.
 *
 * In a network namespace of its own (unshare: nothing to tear down), rocetop's
 * live source is attached to lo (generic XDP, tcx egress) with a flow table
 * sized as a user would (main()'s cases), which this program then fills through the mapped
 * kernel table (rt_live_flowtab(), user/sources/live_maps.h) as the XDP
 * program would: N distinct flows, flow i counted by CPU i % CPUs (a NIC's
 * RSS puts each flow on one queue), its slot claimed in that CPU's region and
 * its dirty bit set (user space stamps it seen at that interval, so the
 * default 60 s --flow-timeout evicts none). One interval is
 * what the main loop does: rt_stream_step() (collect into a snapshot, fold it
 * into the persistent flow table, the join, the changed-only delta), then the
 * batch sink's emit (stdout on /dev/null) and the CSV sink's emit (into a
 * temporary directory). Between intervals the counters of every flow, or of
 * one in a hundred, grow, outside the timed part.
 *
 * CPU time is CLOCK_PROCESS_CPUTIME_ID (user + system, the map syscalls
 * included). The baseline measured in the same run, alternating with the
 * intervals, is what the kernel read cost before the mapped table: a per-CPU
 * hash of the same flows (one CPU's value each) copied out with batch lookups
 * of 4096 entries, and nothing else. After the table: each case's RSS, split
 * into the mapped kernel table and user space (bytes a flow), and the peak
 * RSS (ru_maxrss) of the whole run, which includes the mapped kernel table.
 *
 * Targets (the project's per-interval budget): 100k flows, 1% changing: <= 15 ms per interval; 100k
 * flows all changing: <= 60 ms; 10k all changing: <= 5 ms. Exit 0 when it ran (BENCH_STRICT=1: 1 when the target is
 * missed), 1 with a SKIP line when it cannot run (not root, no BPF, no XDP).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "live_maps.h"
#include "log.h"
#include "cpu.h"
#include "flows.h"
#include "sink.h"
#include "sinks.h"
#include "source.h"
#include "sources.h"
#include "src_cfg.h"
#include "stream.h"

#define INTERVALS	15		/* timed, after one warm-up: a median of 15 steadies it on a shared machine */
#define MAX_INTERVALS	1000

/*
 * For profiling the timed part alone (perf record): COLLECT_CPU_CASE=N runs
 * only case N of main()'s table (0, 1 or 2), COLLECT_CPU_INTERVALS=M runs M
 * timed intervals instead of INTERVALS, and COLLECT_CPU_NOFLOOR=1 leaves the
 * floor out (its per-CPU hash updates would fill the profile).
 */
static int nintervals = INTERVALS;
static int no_floor;
enum { P_STEP, P_BATCH, P_CSV, P_TOTAL, P_FLOOR, NPARTS };
static const char *part_name[NPARTS] = {
	"step", "batch emit", "csv emit", "interval", "floor",
};

static int ncpus;
static int saved_stdout = -1;

/*
 * User space's memory by part, in bytes a flow: what the persistent flow
 * table's arrays hold for its rows (nominal: entries in use or sized to the
 * rows, not pages), beside the measured RSS, so a change shows where it went.
 */
enum { M_ROWS, M_DELTA, M_STATE, M_INDEX, M_PAIRS, M_ORDER, M_APPLY, M_STAMPS, NMEM };
static const char *mem_name[NMEM] = {
	"rows (struct rt_flow)", "old counters / delta (cd)", "per-row state (hot, st)",
	"flow index (slots)", "host-pair index (slots)", "changed list, key order",
	"rt_snapshot_apply's (ap)", "kernel slot stamps (seen)",
};

static void mem_parts(const struct rt_snapshot *s, const struct rt_ftab *ft, double out[NMEM])
{
	const struct rt_flow_table *t = s->tab;
	double n = s->nflows ? (double)s->nflows : 1;

	out[M_ROWS] = (double)s->nflows * sizeof(struct rt_flow) / n;
	out[M_DELTA] = (double)s->nflows * sizeof(*t->cd) / n;	/* all changed once */
	out[M_STATE] = (double)s->nflows * (sizeof(*t->hot) + sizeof(*t->st)) / n;
	out[M_INDEX] = (double)t->nslot * sizeof(*t->slot) / n;
	out[M_PAIRS] = (double)t->npslot * sizeof(*t->pslot) / n;
	out[M_ORDER] = (double)(t->changed_cap + t->korder_cap + t->kpos_cap + t->knew_cap) *
		       sizeof(__u32) / n;
	out[M_APPLY] = (double)t->ap_cap * sizeof(*t->ap) / n;
	out[M_STAMPS] = ft->seen ? (double)ft->nslots * sizeof(*ft->seen) / n : 0;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* VmRSS of this process in MB (/proc/self/status), 0 when unknown. */
static double rss_mb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	double kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %lf kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb / 1024;
}

static void skip(const char *why)
{
	fprintf(stderr, "collect_cpu: SKIP: %s\n", why);
	exit(1);
}

/* Flow i: bench_flow_key's (bench/flows.h) on ifindex, to a destination of
 * its own (10.200.y.z). */
static void flow_key(struct rt_flow_key *k, __u32 i, __u32 ifindex)
{
	bench_flow_key(k, i);
	k->ifindex = ifindex;
	k->dst[2] = (__u8)(i >> 12);
	k->dst[3] = (__u8)(i >> 4);
}

/* The values of flow i at interval `gen` (ncpus copies: the floor's per-CPU
 * hash takes one per CPU, the flow's own on CPU i % ncpus, zeros elsewhere):
 * every counter grows every interval. */
static void flow_vals(struct rt_flow_val *v, __u32 i, __u32 gen, __u64 now)
{
	struct rt_flow_val *p = &v[i % (__u32)ncpus];
	__u64 n = (__u64)(gen + 1) * (100 + (i % 37));

	memset(v, 0, sizeof(*v) * (size_t)ncpus);
	p->pkts = n;
	p->bytes = n * 1078;
	p->ecn[RT_ECN_ECT0] = n - n / 8;
	p->ecn[RT_ECN_CE] = n / 8;
	p->cnp = i % 5 == 0 ? n / 16 : 0;
	p->ack = n / 16;
	p->nak_seq = i % 11 == 0 ? gen : 0;
	p->rnr_nak = i % 13 == 0 ? gen : 0;
	p->first_ns = now - 1000000000ULL;
	p->last_ns = now;
	p->sport = (__u16)(49152 + (i & 0x3fff));
	p->dscp = 26;
	p->pcp = RT_PCP_NONE;
	p->opcode = 0x0a;
}

/*
 * Write flows [0, n) at interval gen into the mapped kernel table as the XDP
 * program does (bpf/rocetop.bpf.c's flow_slot(), mark_dirty()): the slot of
 * the key in region i % ncpus, claimed when new, counters, then the dirty
 * bit; only flows with i % every == gen % every when every > 1. With floor_fd
 * >= 0, the same values also into that per-CPU hash (the floor's table).
 */
static int fill(const struct rt_ftab *t, int floor_fd, __u32 n, __u32 gen, __u32 ifindex, __u32 every)
{
	struct rt_flow_val *vals = calloc((size_t)ncpus, sizeof(*vals));
	__u64 now = mono_ns();
	int err = 0;

	if (!vals)
		return -ENOMEM;
	for (__u32 i = 0; i < n && !err; i++) {
		struct rt_flow_key k;
		struct rt_flow_slot *base, *sl = NULL;
		__u32 r = i % (__u32)ncpus, at = 0;
		__u64 h;

		if (every > 1 && gen && i % every != gen % every)
			continue;
		flow_key(&k, i, ifindex);
		flow_vals(vals, i, gen, now);
		h = rt_ft_hash(&k);
		base = t->slots + (size_t)r * t->rslots;
		sl = rt_ftab_find(t, r, &k, h);
		if (!sl) {	/* new: the emptier of its two buckets' first free slot */
			struct rt_flow_slot *fr[2] = { NULL, NULL };
			__u32 live[2] = { 0, 0 }, bk[2] = { rt_ft_bucket(h, 0, t->nbuckets),
							    rt_ft_bucket(h, 1, t->nbuckets) };

			for (int b = 0; b < 2 && !(b && bk[1] == bk[0]); b++)
				for (__u32 j = 0; j < RT_FT_BUCKET; j++) {
					struct rt_flow_slot *c = base + (size_t)bk[b] * RT_FT_BUCKET + j;

					if (c->v.slot == RT_FT_LIVE)
						live[b]++;
					else if (!fr[b])
						fr[b] = c;
				}
			sl = fr[1] && (!fr[0] || live[1] < live[0]) ? fr[1] : fr[0];
		}
		if (!sl) {
			err = -ENOSPC;
			break;
		}
		at = (__u32)(sl - t->slots);
		sl->k = k;
		rt_ft_val_from_flow(&sl->v, &vals[r]);	/* a slot holds no time */
		sl->v.slot = RT_FT_LIVE;
		__atomic_fetch_or(&t->dirty[at / 64], 1ULL << (at % 64), __ATOMIC_SEQ_CST);
		if (floor_fd >= 0 && bpf_map_update_elem(floor_fd, &k, vals, BPF_ANY))
			err = -errno;
	}
	free(vals);
	return err;
}

/* The floor: copy the whole table out with batch lookups, as collect does, and
 * do nothing with it. Returns the entries seen. */
static __u32 floor_read(int fd, void *keys, void *vals)
{
	__u32 chunk = 4096, total = 0, count;
	char in[64], out[64];
	void *inp = NULL;
	int err;

	for (;;) {
		LIBBPF_OPTS(bpf_map_batch_opts, opts);

		count = chunk;
		err = bpf_map_lookup_batch(fd, inp, out, keys, vals, &count, &opts);
		if (err && errno != ENOENT)
			return 0;
		total += count;
		if (err)
			return total;
		memcpy(in, out, sizeof(in));
		inp = in;
	}
}

/* One interval as the main loop takes it; the CPU time of each part into t[]. */
static int interval(struct rt_stream *st, struct rt_sink *batch, struct rt_sink *csv, double t[NPARTS])
{
	double t0, t1, t2, t3;
	int r;

	t0 = cpu_ms();
	r = rt_stream_step(st);
	if (r <= 0)
		return -EIO;
	if (st->delta.secs == 0)
		st->delta.secs = 1.0;
	t1 = cpu_ms();
	if (batch->emit(batch, &st->cur, &st->delta))
		return -EIO;
	t2 = cpu_ms();
	if (csv->emit(csv, &st->cur, &st->delta))
		return -EIO;
	t3 = cpu_ms();
	t[P_STEP] = t1 - t0;
	t[P_BATCH] = t2 - t1;
	t[P_CSV] = t3 - t2;
	t[P_TOTAL] = t3 - t0;
	return (int)st->cur.nflows;
}

static void restore_stdout(void)
{
	if (saved_stdout >= 0) {
		fflush(stdout);
		dup2(saved_stdout, STDOUT_FILENO);
	}
}

/* What one case measured: CPU medians, the floor's reads, memory. */
struct cc_res {
	double med[NPARTS];
	double mem[2];			/* RSS, and the mapped kernel table's share (MB) */
	double parts[NMEM];		/* user space by part, bytes a flow */
	double peak;			/* peak RSS of the case's process (MB) */
	__u32 seen;			/* entries the floor read */
	size_t changed;			/* flows in the last interval's delta */
	int err;
};

/* A case's rocetop side (live source, batch and CSV sinks) and its floor. */
struct cc_run {
	char dir[32];
	struct rt_opts o;
	struct rt_source *src;
	struct rt_sink *batch, *csv;
	struct rt_stream st;
	const struct rt_ftab *ft;
	void *fkeys, *fvals;
	int fd;
};

static void run_close(struct cc_run *c)
{
	if (c->csv)
		c->csv->close(c->csv);
	if (c->batch)
		c->batch->close(c->batch);
	if (c->src)
		c->src->close(c->src);
	rt_stream_free(&c->st);
	if (c->fd >= 0)
		close(c->fd);
	free(c->fkeys);
	free(c->fvals);
	rm_csv(c->dir);
}

/* rocetop as `rocetop -i lo --max-flows TABLE --batch --csv DIR` builds it,
 * and the floor's table: a per-CPU hash, as the kernel table was. 0, -1, or
 * 2 when the live source cannot attach. */
static int run_open(struct cc_run *c, __u32 n, __u32 table)
{
	snprintf(c->dir, sizeof(c->dir), "/tmp/rtb-collect.XXXXXX");
	c->fd = -1;
	if (!mkdtemp(c->dir)) {
		fprintf(stderr, "collect_cpu: cannot create a temporary directory: %s\n", strerror(errno));
		c->dir[0] = '\0';
		return -1;
	}
	rt_opts_defaults(&c->o);
	c->o.ifaces[0] = "lo";
	c->o.nifaces = 1;
	c->o.max_flows = table;
	c->o.xdp_mode = 2;		/* generic: lo has no native XDP */
	c->o.batch = 1;
	c->o.top = 20;			/* the default of --batch */
	c->o.csv_dir = c->dir;
	c->o.no_nic = 1;
	c->src = rt_live_source_new((struct rt_live_cfg[]){ rt_live_cfg_of(&c->o) });
	if (!c->src)
		return 2;
	c->batch = rt_batch_sink_new(&(struct rt_batch_cfg){ .top = c->o.top });
	c->csv = rt_csv_sink_new(&(struct rt_csv_cfg){ .dir = c->dir });
	if (!c->batch || !c->csv || rt_stream_init(&c->st, c->src, NULL))
		return -1;
	c->ft = rt_live_flowtab(c->src);
	c->fd = no_floor ? -1 : bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "rtb_floor",
					       sizeof(struct rt_flow_key), sizeof(struct rt_flow_val),
					       n > table ? n : table, NULL);
	if (c->fd < 0 && !no_floor) {
		fprintf(stderr, "collect_cpu: cannot create the floor's per-CPU hash: %s\n", strerror(errno));
		return -1;
	}
	c->fkeys = calloc(4096, sizeof(struct rt_flow_key));
	c->fvals = calloc((size_t)4096 * ncpus, sizeof(struct rt_flow_val));
	return c->fkeys && c->fvals ? 0 : -1;
}

/* The floor's read, timed, when this interval's turn (before or after it) says so. */
static void floor_turn(struct cc_run *c, int k, int after, double t[NPARTS], struct cc_res *res)
{
	double f0;

	if (k % 2 != after || c->fd < 0)
		return;
	f0 = cpu_ms();
	res->seen = floor_read(c->fd, c->fkeys, c->fvals);
	t[P_FLOOR] = cpu_ms() - f0;
}

/* A warm-up interval, then nintervals timed ones at n flows; medians into res. */
static int run_timed(struct cc_run *c, __u32 n, __u32 every, struct cc_res *res)
{
	static double samples[NPARTS][MAX_INTERVALS];
	double t[NPARTS];
	__u32 ifindex = 1;
	int r;

	if ((r = fill(c->ft, c->fd, n, 0, ifindex, every))) {
		fprintf(stderr, "collect_cpu: cannot fill the flow table: %s\n", strerror(-r));
		return -1;
	}
	/* Warm-up: the first interval counts from the start and sizes the buffers. */
	if (interval(&c->st, c->batch, c->csv, t) < 0)
		return -1;
	for (int k = 0; k < nintervals; k++) {
		if ((r = fill(c->ft, c->fd, n, (__u32)k + 1, ifindex, every))) {
			fprintf(stderr, "collect_cpu: cannot update the flow table: %s\n", strerror(-r));
			return -1;
		}
		/* Alternate the floor before and after the interval. */
		t[P_FLOOR] = 0;
		floor_turn(c, k, 0, t, res);
		if ((r = interval(&c->st, c->batch, c->csv, t)) < 0)
			return -1;
		res->changed = c->st.delta.nflows;
		floor_turn(c, k, 1, t, res);
		if ((__u32)r != n) {
			restore_stdout();
			fprintf(stderr, "collect_cpu: the snapshot holds %d flows, the table %u\n", r, n);
			return -1;
		}
		for (int p = 0; p < NPARTS; p++)
			samples[p][k] = t[p];
	}
	for (int p = 0; p < NPARTS; p++)
		res->med[p] = median(samples[p], nintervals);
	return 0;
}

/* Run one case at n flows: its CPU medians and its memory into res. */
static int bench(__u32 n, __u32 table, __u32 every, struct cc_res *res)
{
	struct cc_run c = { .fd = -1 };
	int err = run_open(&c, n, table);

	if (!err)
		err = run_timed(&c, n, every, res);
	if (!err) {
		/* The memory while it runs: all, and the mapped kernel table's
		 * share (every page of it resident once the flows are spread over
		 * it). The floor's copy buffers (1.1 MB) are the bench's, not
		 * rocetop's: gone first (the peak RSS still holds them). */
		free(c.fkeys);
		free(c.fvals);
		c.fkeys = c.fvals = NULL;
		res->mem[0] = rss_mb();
		res->mem[1] = (c.ft->slots_len + c.ft->dirty_len) / 1048576.0;
		mem_parts(&c.st.cur, c.ft, res->parts);
	}
	run_close(&c);
	return err;
}

/*
 * One case in a child process of its own, so each case's memory is its own:
 * its peak RSS (ru_maxrss, from wait4) is not the high-water mark of the
 * cases before it, whose freed memory malloc may keep.
 */
static int run_case(__u32 n, __u32 table, __u32 every, struct cc_res *out)
{
	struct cc_res res = { .err = -1 };
	struct rusage ru;
	int fds[2], status = 0;
	pid_t pid;

	fflush(NULL);
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		res.err = bench(n, table, every, &res);
		fflush(NULL);
		_exit(write(fds[1], &res, sizeof(res)) == (ssize_t)sizeof(res) ? 0 : 1);
	}
	close(fds[1]);
	if (read(fds[0], &res, sizeof(res)) != (ssize_t)sizeof(res))
		res.err = -1;
	close(fds[0]);
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		res.err = -1;
	if (res.err == 2) {
		restore_stdout();
		skip("cannot attach rocetop's live source to lo (see above)");
	}
	if (res.err)
		return -1;
	*out = res;
	out->peak = ru.ru_maxrss / 1024.0;
	return 0;
}

/* The kernel table as a user would size it: --max-flows is the flows a
 * CPU's region holds (sized with the placement's headroom,
 * user/sources/live_maps.h), a NIC's RSS puts each flow on one CPU, so N
 * flows over C CPUs put N / C in a region: 16384, the default, for 10k
 * flows; 50000 for 100k on 2 CPUs. */
static const struct { __u32 flows, every; double target; } cases[] = {
	{ 10000, 1, 5 }, { 100000, 1, 60 }, { 100000, 100, 15 },
};
enum { NCASES = sizeof(cases) / sizeof(cases[0]) };
static int only = -1;		/* COLLECT_CPU_CASE */
static __u32 table[NCASES];	/* --max-flows of each case */

static int shown(int i)
{
	return only < 0 || i == only;
}

/* The environment's settings, root, a network namespace, stdout aside. */
static void setup(void)
{
	if (getenv("COLLECT_CPU_CASE"))
		only = atoi(getenv("COLLECT_CPU_CASE"));
	if (getenv("COLLECT_CPU_INTERVALS"))
		nintervals = atoi(getenv("COLLECT_CPU_INTERVALS"));
	if (nintervals < 1 || nintervals > MAX_INTERVALS)
		nintervals = INTERVALS;
	no_floor = getenv("COLLECT_CPU_NOFLOOR") && !strcmp(getenv("COLLECT_CPU_NOFLOOR"), "1");
	if (geteuid() != 0)
		skip("needs root (a network namespace and BPF programs); run it with sudo.");
	if (unshare(CLONE_NEWNET))
		skip("cannot create a network namespace of its own (unshare CLONE_NEWNET).");
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0)
		skip("cannot count the possible CPUs.");
	rt_verbosity = RT_LOG_WARN;

	/* The batch sink writes to stdout: send it to /dev/null, keep ours. */
	saved_stdout = dup(STDOUT_FILENO);
	if (saved_stdout < 0 || !freopen("/dev/null", "w", stdout))
		skip("cannot redirect standard output to /dev/null.");
}

/* The CPU table; 1 when a case misses its target. */
static int print_cpu(const struct cc_res *res)
{
	int fail = 0;

	printf("User-space CPU time of one interval (rt_stream_step: collect, fold into the table,\n"
	       "join, changed-only delta; then batch and CSV emit), median of %d intervals;\n"
	       "%d possible CPUs; floor = the old kernel read alone (batch lookups of a per-CPU hash\n"
	       "of the same flows), same run\n",
	       nintervals, ncpus);
	printf("%-7s %-8s", "FLOWS", "CHANGED");
	for (int p = 0; p < NPARTS; p++)
		printf(" %10s", part_name[p]);
	printf(" %7s  %s\n", "/FLOOR", "TARGET");
	for (int i = 0; i < NCASES; i++) {
		const double *med = res[i].med;
		int met;

		if (!shown(i))
			continue;
		met = med[P_TOTAL] <= cases[i].target;
		printf("%-7u %-8zu", cases[i].flows, res[i].changed);
		for (int p = 0; p < NPARTS; p++)
			printf(" %7.2f ms", med[p]);
		printf(" %6.1fx  <= %g ms %s\n", med[P_FLOOR] > 0 ? med[P_TOTAL] / med[P_FLOOR] : 0,
		       cases[i].target, met ? "met" : "NOT MET");
		fail |= !met;
		if (!no_floor && res[i].seen != cases[i].flows)
			fprintf(stderr, "collect_cpu: the floor read %u entries of %u\n", res[i].seen,
				cases[i].flows);
	}
	return fail;
}

/* The memory tables: RSS split into the kernel table and user space, and user space by part. */
static void print_memory(const struct cc_res *res, double base_rss)
{
	printf("\nMemory (RSS) while each case ran; the kernel table is mmapped, so its pages count\n"
	       "too: %d regions (one a possible CPU) x --max-flows x 5/4 slots x %zu B, sized as a\n"
	       "user would (--max-flows is the flows a CPU's region holds: the flows / %d CPUs, at\n"
	       "least the default 16384; the table's target at 100k flows: <= 20 MB).\n"
	       "Process before the first case (code, libraries, the BPF object): %.1f MB\n",
	       ncpus, sizeof(struct rt_flow_slot), ncpus, base_rss);
	printf("%-7s %-8s %10s %10s %13s %12s %14s\n", "FLOWS", "CHANGED", "--max-flows", "RSS",
	       "kernel table", "user space", "user B/flow");
	for (int i = 0; i < NCASES; i++) {
		double user = res[i].mem[0] - res[i].mem[1] - base_rss;

		if (shown(i))
			printf("%-7u %-8zu %10u %7.1f MB %10.1f MB %9.1f MB %14.0f\n", cases[i].flows,
			       res[i].changed, table[i], res[i].mem[0], res[i].mem[1], user,
			       user * 1048576.0 / cases[i].flows);
	}
	printf("\nUser space by part, bytes a flow (nominal: the table's arrays as sized;\n"
	       "RSS above is the measure; the user share target is <= 40 MB at 100k flows)\n");
	printf("%-32s", "PART");
	for (int i = 0; i < NCASES; i++)
		if (shown(i))
			printf(" %8u/%-5u", cases[i].flows, cases[i].every);
	printf("\n");
	for (int m = 0; m < NMEM; m++) {
		printf("%-32s", mem_name[m]);
		for (int i = 0; i < NCASES; i++)
			if (shown(i))
				printf(" %14.0f", res[i].parts[m]);
		printf("\n");
	}
}

/* The memory targets, each met or not. */
static void print_mem_targets(const struct cc_res *res, double base_rss)
{
	for (int i = 0; i < NCASES; i++) {
		double user = res[i].mem[0] - res[i].mem[1] - base_rss;

		if (shown(i) && cases[i].flows >= 100000)
			printf("user space, %u flows, %zu changing: %.1f MB (share target <= 40 MB) %s\n",
			       cases[i].flows, res[i].changed, user, user <= 40 ? "met" : "NOT MET");
	}
	for (int i = 0; i < NCASES; i++)
		if (shown(i))
			printf("peak RSS, %u flows, %zu changing: %.1f MB (target <= 64 MB) %s\n",
			       cases[i].flows, res[i].changed, res[i].peak,
			       res[i].peak <= 64 ? "met" : "NOT MET");
	for (int i = 0; i < NCASES; i++)
		if (shown(i) && cases[i].flows == 100000 && cases[i].every == 1)
			printf("kernel flow table, %u flows on %d CPUs (--max-flows %u): %.1f MB mapped "
			       "(target <= 20 MB) %s\n", cases[i].flows, ncpus, table[i], res[i].mem[1],
			       res[i].mem[1] <= 20 ? "met" : "NOT MET");
}

int main(void)
{
	static struct cc_res res[NCASES];
	double base_rss;
	int fail;

	setup();
	base_rss = rss_mb();
	for (int i = 0; i < NCASES; i++) {
		__u32 per_cpu = (cases[i].flows + (__u32)ncpus - 1) / (__u32)ncpus;

		/* --max-flows: the flows a CPU's region holds, at least the default */
		table[i] = per_cpu > 16384 ? per_cpu : 16384;
		if (shown(i) && run_case(cases[i].flows, table[i], cases[i].every, &res[i])) {
			restore_stdout();
			return 1;
		}
	}
	restore_stdout();
	fail = print_cpu(res);
	print_memory(res, base_rss);
	print_mem_targets(res, base_rss);
	fflush(stdout);
	if (fail && getenv("BENCH_STRICT") && !strcmp(getenv("BENCH_STRICT"), "1"))
		return 1;
	return 0;
}
