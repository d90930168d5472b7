// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel flow table (bpf/rocetop.h, "The kernel flow table") through the
 * live source as the main loop drives it (rt_stream_step), in a network
 * namespace of the test's own (lo is ifindex 1 there; nothing to tear down).
 * Frames go through the source's own XDP program with BPF_PROG_TEST_RUN
 * (repeat k: the program counts the frame k times), built here byte by byte;
 * the oracle is the test's own tally of what it ran. Checked:
 *  - churn: flows appear, go idle, are evicted by --flow-timeout and come
 *    back, over many intervals; the deltas summed per flow equal the tally
 *    exactly, the evictions equal the schedule's, and the incremental path
 *    (no NIC: dirty bits into the persistent table) gives the very same
 *    deltas and changed flows, interval by interval, as the whole-table path
 *    (with a NIC); first and last seen, kept in the rows by the one and
 *    in per-slot stamps by the other, are the schedule's intervals;
 *  - a full region: three times as many flows as a region's 16 slots from one
 *    CPU; exactly 16 get a slot, with their counts exact, the rest's frames
 *    are all in flow_full;
 *  - the two-bucket placement: a region filled to its --max-flows with every
 *    key in the slot the test predicts, and a full pair of buckets whose next
 *    key's frames are exactly flow_full;
 *  - a read while counting: a thread runs frames on another CPU while the
 *    loop reads; counters only grow, never pass the tally, and end equal to it;
 *  - a read while claiming: a thread runs one frame each of new flows on
 *    another CPU while the loop reads; each read has every flow whose frame
 *    had run before it (the thread's tally), with exactly its one packet,
 *    and none that had not run by its end (but the one in progress);
 *  - counters that land behind a read (a frame's late stores, written here
 *    into its slot with no dirty bit): counted at the next read, once.
 * Needs root and BPF: SKIP otherwise.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "check.h"
#include "live_maps.h"
#include "log.h"
#include "source.h"
#include "sources.h"
#include "stream.h"

#define NFLOWS		48
#define INTERVALS	24
#define FRAME_LEN	(14 + 20 + 8 + 12 + 32 + 4)

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Ethernet / IPv4 10.0.0.1 -> 10.0.0.2, TOS ECT(0) / UDP 4791 / BTH RDMA
 * WRITE ONLY to QP dqpn / 32 bytes / ICRC. */
static void frame(unsigned char *b, __u32 dqpn)
{
	memset(b, 0, FRAME_LEN);
	b[0] = 2, b[5] = 2, b[6] = 2, b[11] = 1;
	b[12] = 0x08;
	b[14] = 0x45, b[15] = 0x02;
	b[16] = (FRAME_LEN - 14) >> 8, b[17] = (FRAME_LEN - 14) & 0xff;
	b[22] = 64, b[23] = 17;
	b[26] = 10, b[29] = 1, b[30] = 10, b[33] = 2;
	b[34] = 0xc0, b[35] = 0x00;		/* sport 49152 */
	b[36] = 4791 >> 8, b[37] = 4791 & 0xff;
	b[38] = 0, b[39] = FRAME_LEN - 34;
	b[42] = 0x0a;				/* RDMA WRITE ONLY */
	b[44] = 0xff, b[45] = 0xff;
	b[47] = (unsigned char)(dqpn >> 16), b[48] = (unsigned char)(dqpn >> 8), b[49] = (unsigned char)dqpn;
}

/* Run the frame of flow dqpn k times through the program; 0 or -errno. */
static int run(int fd, __u32 dqpn, __u32 k)
{
	unsigned char b[FRAME_LEN];
	struct xdp_md ctx = { .data_end = FRAME_LEN, .ingress_ifindex = 1 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = b, .data_size_in = FRAME_LEN,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = k);

	frame(b, dqpn);
	if (bpf_prog_test_run_opts(fd, &o))
		return -errno;
	return o.retval == XDP_PASS ? 0 : -EPROTO;
}

static struct rt_source *open_lo(int no_nic, double timeout, __u32 max_flows)
{
	static const char *const lo[] = { "lo" };
	struct rt_live_cfg c = {
		.ifaces = lo, .nifaces = 1, .xdp_mode = 2, .incremental = no_nic,
		.flow_timeout = timeout, .max_flows = max_flows,
	};

	return rt_live_source_new(&c);
}

/* open_lo() without the NIC, a stream over it, its XDP program's fd in *fd;
 * NULL (and a failed check) when either fails. */
static struct rt_source *open_stream(struct rt_stream *st, double timeout, __u32 max_flows, int *fd)
{
	struct rt_source *src = open_lo(1, timeout, max_flows);

	if (!src || rt_stream_init(st, src, NULL)) {
		CHECK(0, "cannot open the live source on lo");
		if (src)
			src->close(src);
		return NULL;
	}
	*fd = rt_live_xdp_fd(src);
	return src;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* One interval's deltas of one path: pkts per flow (index dqpn - 0x100). */
struct trace {
	__u64 d[INTERVALS][NFLOWS];
	__u64 evicted[INTERVALS];
	size_t nchanged[INTERVALS];
	/* After interval t, flow f's row's first and last seen as the interval
	 * whose read had that time (-1: no row; -2: no read had it). */
	int first[INTERVALS][NFLOWS], last[INTERVALS][NFLOWS];
};

/* The interval of this run whose read was at time ns (-2: none). */
static int interval_at(const __u64 *mono, int n, __u64 ns)
{
	for (int t = 0; t < n; t++)
		if (mono[t] == ns)
			return t;
	return -2;
}

/*
 * Flow f is active in interval t when (t / 4 + f) % 3 != 0 ... a churn of
 * flows going idle for 4 intervals (longer than the timeout: evicted) and
 * coming back; it takes f % 7 + 1 frames per active interval.
 */
static int active(int f, int t)
{
	return (t / 4 + f) % 3 != 0;
}

static void churn(int no_nic, struct trace *tr, __u64 tally[NFLOWS])
{
	struct rt_source *src = open_lo(no_nic, 0.25, 4096);
	struct rt_stream st;
	__u64 mono[INTERVALS];
	int fd;

	memset(tr, 0, sizeof(*tr));
	if (!src) {
		CHECK(0, "cannot open the live source on lo");
		return;
	}
	if (rt_stream_init(&st, src, NULL)) {
		CHECK(0, "out of memory");
		src->close(src);
		return;
	}
	fd = rt_live_xdp_fd(src);
	CHECK_EQ(src->incremental, no_nic);
	for (int t = 0; t < INTERVALS; t++) {
		for (int f = 0; f < NFLOWS; f++)
			if (active(f, t)) {
				CHECK(!run(fd, 0x100 + (__u32)f, (__u32)(f % 7 + 1)), "test run");
				tally[f] += (__u64)(f % 7 + 1);
			}
		CHECK(rt_stream_step(&st) == 1, "interval %d", t);
		for (size_t i = 0; i < st.delta.nflows; i++) {
			const struct rt_flow_delta *d = &st.delta.flows[i];
			__u32 q = d->f->k.dqpn - 0x100;

			if (q < NFLOWS) {
				tr->d[t][q] += d->d.pkts;
				CHECK_EQ(d->d.bytes, d->d.pkts * FRAME_LEN);
				CHECK_EQ(d->d.ecn[RT_ECN_ECT0], d->d.pkts);
			} else {
				CHECK(0, "a flow nobody sent: dqpn 0x%x", d->f->k.dqpn);
			}
		}
		tr->evicted[t] = st.cur.evicted;
		tr->nchanged[t] = st.delta.nflows;
		mono[t] = st.cur.mono_ns;
		for (int f = 0; f < NFLOWS; f++)
			tr->first[t][f] = tr->last[t][f] = -1;
		for (size_t i = 0; i < st.cur.nflows; i++) {
			const struct rt_flow *r = &st.cur.flows[i];
			__u32 q = r->k.dqpn - 0x100;

			if (q < NFLOWS) {
				tr->first[t][q] = interval_at(mono, t + 1, r->v.first_ns);
				tr->last[t][q] = interval_at(mono, t + 1, r->v.last_ns);
			}
		}
		sleep_ms(100);
	}
	rt_stream_free(&st);
	src->close(src);
}

static void test_churn(void)
{
	static struct trace inc, full;
	__u64 tally_inc[NFLOWS] = { 0 }, tally_full[NFLOWS] = { 0 };
	__u64 evictions = 0;

	pin(0);
	churn(1, &inc, tally_inc);
	churn(0, &full, tally_full);
	for (int f = 0; f < NFLOWS; f++) {
		__u64 sum = 0;

		for (int t = 0; t < INTERVALS; t++)
			sum += inc.d[t][f];
		CHECK(sum == tally_inc[f], "flow %d: %llu counted, %llu sent", f,
		      (unsigned long long)sum, (unsigned long long)tally_inc[f]);
	}
	/* Each idle stretch of 4 intervals (400 ms) beyond the 250 ms timeout
	 * evicts the flow once, when it began before the last intervals. */
	for (int f = 0; f < NFLOWS; f++)
		for (int t = 1; t < INTERVALS; t++)
			if (!active(f, t) && active(f, t - 1) && t + 3 < INTERVALS)
				evictions++;
	CHECK(inc.evicted[INTERVALS - 1] == evictions, "%llu evicted, the schedule has %llu",
	      (unsigned long long)inc.evicted[INTERVALS - 1], (unsigned long long)evictions);
	CHECK(!memcmp(tally_inc, tally_full, sizeof(tally_inc)), "both runs sent the same");
	/* which read evicts a flow depends on the time each interval took (1 to
	 * 3 intervals after its last frame); the deltas do not */
	CHECK(full.evicted[INTERVALS - 1] == evictions, "%llu evicted, the schedule has %llu",
	      (unsigned long long)full.evicted[INTERVALS - 1], (unsigned long long)evictions);
	for (int t = 0; t < INTERVALS; t++) {
		CHECK(!memcmp(inc.d[t], full.d[t], sizeof(inc.d[t])),
		      "interval %d: the incremental and the whole-table paths differ", t);
		CHECK_EQ(inc.nchanged[t], full.nchanged[t]);
	}
	TEST_END("flowtab_churn_evict_exact");

	/*
	 * First and last seen, as intervals: the incremental path keeps them in
	 * its rows, the whole-table path in per-slot stamps; both must be the
	 * schedule's: last seen the flow's latest active interval, first seen
	 * the start of its current active stretch (each idle stretch evicts it,
	 * above), for every flow that has a row.
	 */
	for (int t = 0; t < INTERVALS; t++)
		for (int f = 0; f < NFLOWS; f++) {
			int want_last = -1, want_first = -1;

			for (int u = 0; u <= t; u++)
				if (active(f, u)) {
					want_last = u;
					if (!u || !active(f, u - 1))
						want_first = u;
				}
			/* evicted (no row) one read apart in the two runs: see above */
			if (inc.last[t][f] != -1 && full.last[t][f] != -1)
				CHECK(inc.first[t][f] == full.first[t][f] &&
				      inc.last[t][f] == full.last[t][f],
				      "interval %d flow %d: first/last seen %d/%d incremental, %d/%d whole",
				      t, f, inc.first[t][f], inc.last[t][f], full.first[t][f],
				      full.last[t][f]);
			if (inc.last[t][f] != -1)
				CHECK(inc.last[t][f] == want_last && inc.first[t][f] == want_first,
				      "interval %d flow %d: first/last seen %d/%d, the schedule has %d/%d",
				      t, f, inc.first[t][f], inc.last[t][f], want_first, want_last);
			if (full.last[t][f] != -1)
				CHECK(full.last[t][f] == want_last && full.first[t][f] == want_first,
				      "interval %d flow %d: whole path: first/last seen %d/%d, the schedule has %d/%d",
				      t, f, full.first[t][f], full.last[t][f], want_first, want_last);
		}
	TEST_END("flowtab_churn_first_last_seen");
}

static void test_full_region(void)
{
	struct rt_source *src;
	const __u32 n = 3 * RT_FT_MIN_SLOTS;
	struct rt_stream st;
	__u64 in_flows = 0, full = 0;
	size_t rows = 0;
	int fd;

	src = open_stream(&st, 0, RT_FT_MIN_SLOTS, &fd);
	if (!src)
		return;
	pin(0);
	CHECK_EQ(rt_ftab_region_slots(rt_live_flowtab(src)), RT_FT_MIN_SLOTS);
	for (__u32 f = 0; f < n; f++)
		CHECK(!run(fd, 0x1000 + f, 3), "test run");
	CHECK(rt_stream_step(&st) == 1, "interval");
	for (size_t i = 0; i < st.cur.nflows; i++) {
		const struct rt_flow *fl = &st.cur.flows[i];

		CHECK(fl->v.pkts == 3, "flow 0x%x: %llu packets, 3 sent", fl->k.dqpn,
		      (unsigned long long)fl->v.pkts);
		in_flows += fl->v.pkts;
		rows++;
	}
	for (size_t i = 0; i < st.cur.nifs; i++)
		full += st.cur.ifs[i].v.flow_full;
	/* a key's 16 probes cover a region of 16: every slot is taken */
	CHECK(rows == RT_FT_MIN_SLOTS, "%zu flows in a region of %d slots", rows, RT_FT_MIN_SLOTS);
	CHECK_EQ(in_flows + full, 3ULL * n);
	CHECK_EQ(full, 3ULL * (n - rows));
	TEST_END("flowtab_full_region");
	rt_stream_free(&st);
	src->close(src);
}

/* The key the program makes of frame(dqpn) on lo's ingress, by hand. */
static void frame_key(struct rt_flow_key *k, __u32 dqpn)
{
	memset(k, 0, sizeof(*k));
	k->ifindex = 1;
	k->dir = RT_DIR_INGRESS;
	k->family = 4;
	k->src[0] = 10, k->src[3] = 1;
	k->dst[0] = 10, k->dst[3] = 2;
	k->dqpn = dqpn;
}

/* Candidate bucket `which` of k in a region of nb buckets, computed here as
 * bpf/rocetop.h documents it: a 32-bit half of the key's hash (low for the
 * first, high for the second) times nb, the high 32 bits. */
static __u32 bucket_of(const struct rt_flow_key *k, int which, __u32 nb)
{
	__u64 h = rt_ft_hash(k), half = which ? h >> 32 : (__u32)h;

	return (__u32)(half * nb / 0x100000000ULL);
}

/*
 * The two-bucket placement (bpf/rocetop.h, "The kernel flow table"), with
 * its slots predicted here: a new key goes to the bucket of its two with
 * fewer live slots (the first on a tie), in that bucket's first free slot.
 *  - --max-flows 100: a region of ceil(100 * 5/4 / 16) = 8 buckets, 128
 *    slots. 100 flows, 2 frames each, from CPU 0: each in the slot this test
 *    predicts, counts exact, flow_full 0.
 *  - a full pair of buckets: in a fresh table of the same size, keys chosen
 *    (by searching QPs) whose two buckets are 0 and 1 in either order: the
 *    first 32 fill both buckets (16 each, whatever the order), the 33rd (3
 *    frames) finds no slot: flow_full is exactly 3, and a key of buckets 2
 *    and 3 after it still gets its slot.
 */
static void test_two_buckets(void)
{
	const __u32 nflows = 100, nb = 8;
	struct rt_source *src;
	const struct rt_ftab *t;
	__u32 live[8] = { 0 }, qp[34], nqp = 0;
	struct rt_stream st;
	/* each test opens its own stream (open_stream) with its own table size and timeout */
	__u64 full = 0;
	int fd;

	src = open_stream(&st, 60, nflows, &fd);
	if (!src)
		return;
	pin(0);
	t = rt_live_flowtab(src);
	CHECK_EQ(rt_ftab_region_slots(t), nb * 16);
	CHECK_EQ(rt_ftab_region_flows(t), nflows);
	for (__u32 f = 0; f < nflows; f++) {
		struct rt_flow_key k;
		__u32 b0, b1, b, at;
		const struct rt_flow_slot *sl;

		CHECK(!run(fd, 0x2000 + f, 2), "test run");
		frame_key(&k, 0x2000 + f);
		b0 = bucket_of(&k, 0, nb);
		b1 = bucket_of(&k, 1, nb);
		b = live[b1] < live[b0] ? b1 : b0;
		if (live[b] == 16)
			b = b == b0 ? b1 : b0;
		CHECK(live[b] < 16, "flow %u: the test's placement finds no slot", f);
		if (live[b] >= 16)
			break;
		at = b * 16 + live[b]++;	/* nothing evicted: the first free is the next */
		sl = &t->slots[at];		/* region 0: CPU 0's */
		CHECK(sl->v.slot == RT_FT_LIVE && !memcmp(&sl->k, &k, sizeof(k)),
		      "flow %u (buckets %u, %u) not in slot %u", f, b0, b1, at);
		CHECK(sl->v.ecn[RT_ECN_ECT0] == 2, "flow %u: %llu ECT(0) frames, 2 run", f,
		      (unsigned long long)sl->v.ecn[RT_ECN_ECT0]);
	}
	CHECK(rt_stream_step(&st) == 1, "interval");
	CHECK_EQ(st.cur.nflows, nflows);
	for (size_t i = 0; i < st.cur.nflows; i++)
		CHECK(st.cur.flows[i].v.pkts == 2, "flow 0x%x: %llu packets, 2 run",
		      st.cur.flows[i].k.dqpn, (unsigned long long)st.cur.flows[i].v.pkts);
	for (size_t i = 0; i < st.cur.nifs; i++)
		full += st.cur.ifs[i].v.flow_full;
	CHECK_EQ(full, 0);
	rt_stream_free(&st);
	src->close(src);

	/* the keys of buckets {0, 1}, then one of {2, 3} */
	for (__u32 q = 0x10000; q < 0x40000 && nqp < 34; q++) {
		struct rt_flow_key k;
		__u32 b0, b1;

		frame_key(&k, q);
		b0 = bucket_of(&k, 0, nb);
		b1 = bucket_of(&k, 1, nb);
		if ((nqp < 33 && b0 + b1 == 1 && b0 != b1) ||
		    (nqp == 33 && b0 + b1 == 5 && (b0 == 2 || b0 == 3)))
			qp[nqp++] = q;
	}
	CHECK_EQ(nqp, 34);
	if (nqp != 34)
		return;
	src = open_stream(&st, 60, nflows, &fd);
	if (!src)
		return;
	for (__u32 i = 0; i < 34; i++)
		CHECK(!run(fd, qp[i], 3), "test run");
	CHECK(rt_stream_step(&st) == 1, "interval");
	full = 0;
	for (size_t i = 0; i < st.cur.nifs; i++)
		full += st.cur.ifs[i].v.flow_full;
	CHECK_EQ(full, 3);
	CHECK_EQ(st.cur.nflows, 33);
	for (size_t i = 0; i < st.cur.nflows; i++) {
		CHECK(st.cur.flows[i].k.dqpn != qp[32], "the 33rd key of buckets 0 and 1 got a slot");
		CHECK(st.cur.flows[i].v.pkts == 3, "flow 0x%x: %llu packets, 3 run",
		      st.cur.flows[i].k.dqpn, (unsigned long long)st.cur.flows[i].v.pkts);
	}
	TEST_END("flowtab_two_buckets_placement_capacity");
	rt_stream_free(&st);
	src->close(src);
}

struct runner {
	int fd, cpu, stop;
	__u64 sent;	/* frames run so far (read by the reader after) */
};

static void *runner(void *arg)
{
	struct runner *r = arg;

	pin(r->cpu);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		if (run(r->fd, 0x777, 1000))
			break;
		__atomic_store_n(&r->sent, r->sent + 1000, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void test_concurrent(void)
{
	struct rt_source *src;
	struct rt_stream st;
	struct runner r = { 0 };
	pthread_t th;
	__u64 last = 0;
	int ncpu = libbpf_num_possible_cpus(), reads = 0;

	src = open_stream(&st, 0, 1024, &r.fd);
	if (!src)
		return;
	r.cpu = ncpu > 1 ? 1 : 0;
	pin(0);
	if (pthread_create(&th, NULL, runner, &r)) {
		CHECK(0, "pthread_create");
		goto out;
	}
	for (int i = 0; i < 200; i++, reads++) {
		CHECK(rt_stream_step(&st) == 1, "interval");
		for (size_t j = 0; j < st.cur.nflows; j++) {
			__u64 p = st.cur.flows[j].v.pkts;
			__u64 sent = __atomic_load_n(&r.sent, __ATOMIC_ACQUIRE);

			CHECK(p >= last, "read %d: %llu packets after %llu", i, (unsigned long long)p,
			      (unsigned long long)last);
			/* sent counts whole runs; a run in progress adds at most 1000 */
			CHECK(p <= sent + 1000, "read %d: %llu packets, %llu sent", i,
			      (unsigned long long)p, (unsigned long long)sent);
			last = p;
		}
		sleep_ms(2);
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	CHECK(rt_stream_step(&st) == 1, "last interval");
	CHECK_EQ(st.cur.nflows, 1);
	if (st.cur.nflows == 1)
		CHECK_EQ(st.cur.flows[0].v.pkts, r.sent);
	CHECK(r.sent >= 1000 * 10, "the runner ran only %llu frames", (unsigned long long)r.sent);
	TEST_END("flowtab_read_while_counting");
out:
	rt_stream_free(&st);
	src->close(src);
}

/* New flows, one frame each, run by a thread on another CPU from QP
 * NEW_QP up, while the loop reads. */
#define NEW_QP		0x500000
#define NEW_FLOWS	20000

struct new_runner {
	int fd, cpu, err;
	__u32 sent;	/* flows whose one frame has run (read by the reader) */
};

static void *new_runner(void *arg)
{
	struct new_runner *r = arg;

	pin(r->cpu);
	for (__u32 f = 0; f < NEW_FLOWS; f++) {
		r->err = run(r->fd, NEW_QP + f, 1);
		if (r->err)
			break;
		__atomic_store_n(&r->sent, f + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* The new flows in the snapshot, each checked to have counted its one
 * frame exactly once. */
static __u32 new_flows_seen(const struct rt_stream *st, int read)
{
	__u32 n = 0;

	for (size_t j = 0; j < st->cur.nflows; j++) {
		const struct rt_flow *f = &st->cur.flows[j];

		if (f->k.dqpn < NEW_QP || f->k.dqpn >= NEW_QP + NEW_FLOWS)
			continue;
		CHECK(f->v.pkts == 1, "read %d: flow 0x%x has %llu packets, 1 run", read, f->k.dqpn,
		      (unsigned long long)f->v.pkts);
		n++;
	}
	return n;
}

/*
 * The first frame of a new flow is in the read that follows it, while a
 * thread on another CPU claims slot after slot: every flow whose frame had
 * run (the runner's tally, read before the interval) is in the interval's
 * snapshot with its one packet, and none that had not run (the tally read
 * after it, but for the one whose run may have counted and not yet told).
 */
static void test_new_concurrent(void)
{
	struct rt_source *src;
	struct rt_stream st;
	struct new_runner r = { 0 };
	pthread_t th;
	int ncpu = libbpf_num_possible_cpus(), reads = 0;
	__u32 before, after, seen;

	src = open_stream(&st, 0, NEW_FLOWS + 1024, &r.fd);
	if (!src)
		return;
	r.cpu = ncpu > 1 ? 1 : 0;
	pin(0);
	if (pthread_create(&th, NULL, new_runner, &r)) {
		CHECK(0, "pthread_create");
		goto out;
	}
	do {
		before = __atomic_load_n(&r.sent, __ATOMIC_ACQUIRE);
		CHECK(rt_stream_step(&st) == 1, "interval");
		after = __atomic_load_n(&r.sent, __ATOMIC_ACQUIRE);
		seen = new_flows_seen(&st, reads);
		/* after + 1: a run that has counted but not yet told */
		CHECK(seen >= before && seen <= after + 1, "read %d: %u new flows, %u to %u run",
		      reads, seen, before, after);
		reads++;
	} while (before < NEW_FLOWS && !r.err && reads < 1000000);
	pthread_join(th, NULL);
	CHECK_EQ(r.err, 0);
	CHECK_EQ(seen, NEW_FLOWS);
	CHECK(reads >= 10, "only %d reads while the runner ran", reads);
	TEST_END("flowtab_new_flows_read_while_claiming");
out:
	rt_stream_free(&st);
	src->close(src);
}

/*
 * A frame's counters that reach memory after the read of its slot, its
 * epoch loaded first and its slot found marked, so no bit set
 * (live_maps.c, next_epoch): written here into the slot behind an interval's
 * read, as such a frame leaves them. The next interval counts them, with no
 * frame to come on that flow; the one after counts nothing twice.
 */
static void test_late_counters(void)
{
	struct rt_stream st;
	struct rt_source *src;
	struct rt_flow_slot *sl;
	struct rt_flow_key k;
	const struct rt_ftab *t;
	int fd;

	src = open_stream(&st, 60, 100, &fd);
	if (!src)
		return;
	pin(0);
	CHECK(!run(fd, 0x3000, 1), "test run");
	CHECK(rt_stream_step(&st) == 1, "interval");
	CHECK(st.cur.nflows == 1 && st.cur.flows[0].v.pkts == 1, "one flow of 1 packet, got %zu flows",
	      st.cur.nflows);
	t = rt_live_flowtab(src);
	frame_key(&k, 0x3000);
	sl = rt_ftab_find(t, 0, &k, rt_ft_hash(&k));	/* region 0: CPU 0's */
	CHECK(sl != NULL, "the flow's slot in region 0");
	if (sl) {
		__atomic_fetch_add(&sl->v.ecn[RT_ECN_ECT0], 1, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&sl->v.bytes, FRAME_LEN, __ATOMIC_SEQ_CST);
	}
	CHECK(rt_stream_step(&st) == 1, "interval");
	CHECK(st.cur.nflows == 1 && st.cur.flows[0].v.pkts == 2 && st.cur.flows[0].v.bytes == 2 * FRAME_LEN,
	      "the late frame's counters read at the next interval: %llu packets, 2 counted",
	      st.cur.nflows ? (unsigned long long)st.cur.flows[0].v.pkts : 0ULL);
	CHECK(rt_stream_step(&st) == 1, "interval");
	CHECK(st.cur.nflows == 1 && st.cur.flows[0].v.pkts == 2 && st.delta.nflows == 0,
	      "nothing more after: %llu packets, %zu changed",
	      st.cur.nflows ? (unsigned long long)st.cur.flows[0].v.pkts : 0ULL, st.delta.nflows);
	TEST_END("flowtab_late_counters");
	rt_stream_free(&st);
	src->close(src);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("SKIP flowtab: needs root for BPF and a network namespace\n");
		return 0;
	}
	if (unshare(CLONE_NEWNET)) {
		printf("SKIP flowtab: cannot create a network namespace: %s\n", strerror(errno));
		return 0;
	}
	rt_verbosity = RT_LOG_WARN;
	test_churn();
	test_full_region();
	test_two_buckets();
	test_concurrent();
	test_new_concurrent();
	test_late_counters();
	return TEST_EXIT();
}
