// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pcap and pcapng captures as a source: the one parser of bpf/parse.h and the
 * counting of bpf/count.h turn the packets into the same counters the BPF
 * programs keep, so a capture and a live run agree.
 *
 * Reading: a classic pcap in a regular file is read in place: in blocks of
 * RT_PCAP_BLOCK bytes into one buffer, each record parsed where it lies there
 * (pcap_classic.h), never copied again. No part of the file is mapped, so the
 * page cache never counts in rocetop's resident memory, and a file cut while
 * it is read cannot fault. libpcap opens every capture (so its checks and
 * messages on the file header stay), reads pcapng, pipes and FIFOs, and takes
 * over at the first record the own reader leaves (cut, beyond the snapshot
 * length, bytes appended since the file was opened), seeking its FILE to that
 * record: a damaged file gets libpcap's own message, as before.
 *
 * Link types: Ethernet; Linux cooked SLL and SLL2 (tcpdump -i any), whose
 * packet type gives the direction (outgoing: egress, else ingress); raw IPv4 /
 * IPv6. SLL and raw IP frames get a rebuilt 14-byte Ethernet header so the
 * parser sees what the wire carried, and their bytes count as the Ethernet
 * frame would (the header included, like the live programs count).
 * Ethernet captures have no direction: everything is ingress. All packets land
 * on one interface named after the file (pcap_next_ex gives no pcapng
 * interface id).
 *
 * Time comes from the packets. --interval cuts the capture into intervals of
 * capture time on a grid starting at the first packet; each collect() returns
 * the totals at the end of the next interval, time_ns = mono_ns = that end.
 * Empty intervals are returned as they are, up to RT_PCAP_MAX_EMPTY in a row;
 * a longer gap gives one empty interval, then the grid jumps to the interval
 * of the next packet, and that snapshot carries a note saying how much was
 * skipped.
 *
 * Timestamps: classic pcap seconds are unsigned 32-bit (good to 2106; libpcap
 * hands them over as signed). A packet whose time cannot be placed on the
 * grid (before 1970, or past RT_PCAP_MAX_SECS: a damaged pcapng timestamp or
 * if_tsoffset) is skipped and counted in a note; all grid arithmetic then
 * stays far from overflow. The wire length (origlen) is trusted up to
 * RT_PCAP_MAX_FRAME bytes; a record claiming more, or less than it holds, is
 * counted as malformed with its captured length.
 *
 * Streams: a pipe or FIFO (-r -) is read through a FILE that first gives
 * back the bytes rt_file_source_new() read to tell the format; it cannot be
 * rewound.
 *
 * The flows are counted straight into the loop's persistent flow table
 * (rt_source.incremental, user/core/snapshot.h): a packet costs one hash
 * lookup, an interval costs what changed in it, and nothing is copied. The
 * table grows as flows appear; only a --max-flows the user gave bounds it
 * (RoCE frames of flows beyond it count in flow_full, and the end of the file
 * says how many). --flow-timeout forgets flows idle for that long in capture
 * time, so a long capture with churning flows stays within memory.
 *
 * sFlow: UDP datagrams to port 6343 in the capture go to the same collector
 * as --sflow, in capture time (pcap_sflow.h): switch ports, drops, agents and
 * estimated flows as a live collector fed the same datagrams shows them.
 */
#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
/* parse.h unrolls its loops for the BPF target; gcc has no use for the hint. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include "count.h"
#include "pause.h"
#pragma GCC diagnostic pop
#include "fmt.h"
#include "join.h"
#include "linkspeed.h"
#include "log.h"
#include "pcap_classic.h"
#include "pcap_sflow.h"
#include "sources.h"

#define RT_PCAP_MAX_EMPTY	100
#define RT_PCAP_IFINDEX		1
#define RT_PCAP_MAX_SECS	(1ULL << 33)	/* year 2242: ns stay below 2^63 */
#define RT_PCAP_MAX_FRAME	262144		/* libpcap's largest snapshot length */
/* The in-place reader's block: any record libpcap takes fits (its header and
 * RT_PCAP_MAX_FRAME bytes), and the block stays within a core's L2 cache. */
#define RT_PCAP_BLOCK		(1 << 19)
_Static_assert(RT_PCAP_BLOCK >= RT_PCAPC_REC + RT_PCAP_MAX_FRAME, "a whole record fits");

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2	276
#endif
#ifndef DLT_IPV4
#define DLT_IPV4	228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6	229
#endif
#define LINKTYPE_RAW_	101

struct pending {
	int have;
	int unplaced;	/* a time that cannot be placed on the grid */
	__u64 ts;
	__u64 len;
	__u8 dir;
	struct rt_pkt p;
};

struct pcapsrc {
	char path[4096];
	char ifname[IF_NAMESIZE];
	pcap_t *pc;
	int dlt;
	int classic;		/* classic pcap (unsigned 32-bit seconds), not pcapng */
	int stream, stream_fd;	/* a pipe or FIFO (its fd, -1 once closed) */
	unsigned char head[8];	/* its first bytes, already read */
	size_t nhead;
	unsigned long long unplaced, unplaced_noted, bad_len;
	__u64 interval_ns;
	__u64 t0;		/* grid origin: the first packet */
	__u64 end;		/* end of the interval being filled */
	int started, eof, eof_warned, read_error, lost_told;
	unsigned int empty_run;
	long long fsize;
	struct pending pend;
	__u32 max_flows;	/* --max-flows as given, 0: none */
	__u64 timeout_ns;	/* --flow-timeout in capture time, 0: never */
	__u64 lost;		/* RoCE frames of flows beyond max_flows */
	__u64 evicted, evicted_dir[2];
	struct rt_if_val ifv[2];
	int ifseen[2];
	struct rt_pause_prio pause[2][RT_NPRIO];	/* paused time (bpf/pause.h) in capture time */
	__u64 speed_mbps;	/* --link-speed, 0: assumed (said once, rt_link_speed) */
	struct rt_pcapc mm;	/* a classic pcap read in place: its block in blk;
				 * mm.p NULL: libpcap reads */
	unsigned char *blk;	/* the block buffer (RT_PCAP_BLOCK bytes) */
	size_t base;		/* the file offset of blk[0] (of mm.off 0) */
	size_t limit;		/* the file's size when opened, or since cut: the own
				 * reader reads no further */
	__u64 size_seen_ns;	/* when check_size last looked (CLOCK_MONOTONIC_COARSE) */
	unsigned char *buf;	/* rebuilt Ethernet frames of SLL / raw captures */
	size_t bufsz;
	unsigned long long npkts;
	int progress;
	__u64 last_progress_ns;	/* coarse_ns() of the last progress line */
	char note[160];
	struct rt_pcap_sflow *sflow;	/* sFlow datagrams in the capture */
	int sflow_err;			/* -ENOMEM queueing one */
};

/* Packets read ahead and counted together, so their table lookups overlap:
 * their index slots asked for as they are read, their rows RT_PCAP_AHEAD
 * packets before they are counted. */
#define RT_PCAP_BATCH	64
#define RT_PCAP_AHEAD	8

struct ahead {
	struct pending q;
	struct rt_flow_key k;	/* RoCE frames: the flow's key and hash */
	__u32 h;
};

/*
 * rt_flow_key_init() (bpf/count.h) for this source, each 8-byte word of the
 * key written at once: the hash reads the key as 8-byte words right after,
 * and a word written in parts (ifindex, dir, family, origin, mirror; dqpn,
 * mirror_id) cannot be forwarded to that read, which then waits for the
 * stores to land. The same key, byte for byte (the key has no padding;
 * tests/offline/test_incremental.sh compares the rows).
 */
static inline void key_init(struct rt_flow_key *k, const struct rt_pkt *p, __u8 dir)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	_Static_assert(offsetof(struct rt_flow_key, dir) == 4 &&
			       offsetof(struct rt_flow_key, family) == 5 &&
			       offsetof(struct rt_flow_key, origin) == 6 &&
			       offsetof(struct rt_flow_key, mirror) == 7 &&
			       offsetof(struct rt_flow_key, dqpn) == 40 &&
			       offsetof(struct rt_flow_key, mirror_id) == 44 &&
			       sizeof(struct rt_flow_key) == 48,
		       "the key's words as key_init writes them");
	__u64 w0 = RT_PCAP_IFINDEX | (__u64)dir << 32 | (__u64)p->family << 40 |
		   (__u64)p->mirror << 56;	/* origin 0 */
	__u64 w5 = p->dqpn | (__u64)(p->mirror_id | (p->mirror_dir ? RT_MIRROR_EGRESS : 0)) << 32;

	__builtin_memcpy(k, &w0, 8);
	__builtin_memcpy(k->src, p->src, 16);
	__builtin_memcpy(k->dst, p->dst, 16);
	__builtin_memcpy(&k->dqpn, &w5, 8);
#else
	k->ifindex = RT_PCAP_IFINDEX;
	k->dir = dir;
	k->family = p->family;
	k->origin = 0;
	k->mirror = p->mirror;
	__builtin_memcpy(k->src, p->src, 16);
	__builtin_memcpy(k->dst, p->dst, 16);
	k->dqpn = p->dqpn;
	k->mirror_id = p->mirror_id | (p->mirror_dir ? RT_MIRROR_EGRESS : 0);
#endif
}

/* Count one packet; 1 when it made a new row. */
static int account(struct pcapsrc *s, struct rt_snapshot *snap, const struct ahead *a)
{
	const struct pending *q = &a->q;
	struct rt_if_val *iv = &s->ifv[q->dir];

	s->ifseen[q->dir] = 1;
	rt_count_if(iv, &q->p, q->len);
	if (q->p.kind == RT_K_PFC || q->p.kind == RT_K_PAUSE)
		rt_pause_count(s->pause[q->dir], &q->p, q->ts, s->speed_mbps);
	if (q->p.kind == RT_K_ROCE) {
		struct rt_flow *f;
		int fresh;

		f = rt_snapshot_flow_h(snap, &a->k, a->h, &fresh);
		if (f) {
			rt_snapshot_touch(snap, f);	/* first: it keeps the old counters */
			rt_count_flow(&f->v, &q->p, q->len, q->ts);
			return fresh;
		}
		iv->flow_full++;
		s->lost++;
	}
	return 0;
}

/* Put a 14-byte Ethernet header carrying proto before payload; NULL without memory. */
static const unsigned char *rebuild(struct pcapsrc *s, __u16 proto, const unsigned char *pl,
				    size_t n)
{
	if (rt_grow_to((void **)&s->buf, &s->bufsz, n + 14 > 65536 ? n + 14 : 65536, 1))
		return NULL;
	memset(s->buf, 0, 12);
	s->buf[12] = proto >> 8;
	s->buf[13] = proto & 0xff;
	memcpy(s->buf + 14, pl, n);
	return s->buf;
}

/* Parse one packet into q. Link-layer parts are checked here, the rest by rt_parse. */
static void parse_one(struct pcapsrc *s, const struct pcap_pkthdr *h, const unsigned char *d,
		      struct pending *q)
{
	const unsigned char *f = d;
	size_t cap = h->caplen, hl = 0;
	__u64 len = h->len;
	__u16 proto = 0;

	/* rt_parse wants p zeroed; the rest is set below (zeroing all of q cost
	 * more than the parse) */
	_Static_assert(sizeof(q->p) % 8 == 0, "the packet is whole words");
	rt_zero_words(&q->p, sizeof(q->p));
	q->have = q->unplaced = 0;
	q->ts = q->len = 0;
	q->dir = RT_DIR_INGRESS;
	{
		/* libpcap reads classic seconds as signed 32-bit: undo that. */
		long long sec = s->classic ? (long long)(__u32)h->ts.tv_sec : (long long)h->ts.tv_sec;

		if (sec < 0 || (unsigned long long)sec >= RT_PCAP_MAX_SECS || h->ts.tv_usec < 0 ||
		    h->ts.tv_usec >= 1000000000L) {
			q->unplaced = 1;
			return;
		}
		/* opened with nanosecond precision */
		q->ts = (__u64)sec * 1000000000ULL + (__u64)h->ts.tv_usec;
	}
	q->dir = RT_DIR_INGRESS;
	if (len > RT_PCAP_MAX_FRAME || len < cap) {
		/* An impossible wire length: counted, as malformed, with what it holds. */
		s->bad_len++;
		q->p.pcp = RT_PCP_NONE;
		q->p.kind = RT_K_MALFORMED;
		q->len = cap;
		return;
	}
	switch (s->dlt) {
	case DLT_EN10MB:
		break;
	case DLT_LINUX_SLL:
		hl = 16;
		if (cap >= hl) {
			proto = rt_be16(d + 14);
			if (rt_be16(d) == 4)	/* PACKET_OUTGOING */
				q->dir = RT_DIR_EGRESS;
		}
		break;
	case DLT_LINUX_SLL2:
		hl = 20;
		if (cap >= hl) {
			proto = rt_be16(d);
			if (d[10] == 4)
				q->dir = RT_DIR_EGRESS;
		}
		break;
	default:	/* raw IP */
		if (cap >= 1)
			proto = (d[0] >> 4) == 6 ? ETH_P_IPV6_ : ETH_P_IP_;
		break;
	}
	if (s->dlt != DLT_EN10MB) {
		if (cap < hl || len < hl) {
			q->p.pcp = RT_PCP_NONE;
			q->p.kind = RT_K_TRUNC;
			q->len = len;
			return;
		}
		f = rebuild(s, proto, d + hl, cap - hl);
		if (!f) {
			q->p.pcp = RT_PCP_NONE;
			q->p.kind = RT_K_TRUNC;
			q->len = len;
			return;
		}
		cap = cap - hl + 14;
		len = len - hl + 14;
	}
	q->len = len;
	if (rt_parse(f, f + cap, len, &q->p) == RT_K_OTHER && !q->p.mirror &&
	    rt_pcap_sflow_take(s->sflow, f, cap, q->ts) < 0)
		s->sflow_err = -ENOMEM;
}

/* Copy with truncation (names of files can be long). */
static void copy_str(char *dst, size_t sz, const char *src)
{
	size_t n = strnlen(src, sz - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The coarse monotonic clock, ns: the progress line's and the cut check's
 * (a tick's resolution is plenty for either). */
static __u64 coarse_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
	return (__u64)t.tv_sec * 1000000000ULL + (__u64)t.tv_nsec;
}

static void progress(struct pcapsrc *s, int last)
{
	__u64 now = coarse_ns();
	FILE *f;
	long pos;

	if (!last && now - s->last_progress_ns < (s->progress == 1 ? 250000000ULL : 1000000000ULL))
		return;
	s->last_progress_ns = now;
	f = s->mm.p ? NULL : pcap_file(s->pc);
	pos = s->mm.p ? (long)(s->base + s->mm.off) : f ? ftell(f) : -1;
	if (pos < 0 || s->fsize <= 0)
		return;
	if (last)
		pos = (long)s->fsize;
	if (s->progress == 1)	/* a terminal: one line, redrawn */
		fprintf(stderr, "\rreading %s: %3d%% (%llu packets)%s", s->path,
			(int)(100.0 * (double)pos / (double)s->fsize), s->npkts, last ? "\n" : "");
	else
		pr_debug("reading %s: %d%% (%llu packets)\n", s->path,
			 (int)(100.0 * (double)pos / (double)s->fsize), s->npkts);
}

/* Stop reading in place; libpcap reads on from where the own reader stopped. */
static int unmap(struct pcapsrc *s)
{
	FILE *f = s->mm.p && s->pc ? pcap_file(s->pc) : NULL;
	size_t at = s->base + s->mm.off;
	int r = 0;

	if (f && fseeko(f, (off_t)at, SEEK_SET))
		r = -errno;
	if (f && s->mm.off < s->mm.size)
		pr_debug("%s: libpcap reads on from byte %zu (a record the in-place reader leaves to it)\n",
			 s->path, at);
	s->mm.p = NULL;
	s->base = s->limit = 0;
	return r;
}

/*
 * A file made shorter since it was opened (a capture rotated under the same
 * name, another program truncating it): the own reader stops where it ends
 * now, also in the bytes it has read already, and libpcap says what it finds
 * there. Looked at before each block is read and as an interval begins, then
 * at most every CUT_LOOK_NS: an fstat per interval cost report 11% of its
 * time on a file of 300,000 intervals of 1 ms.
 */
#define CUT_LOOK_NS 10000000ULL

static void check_size(struct pcapsrc *s)
{
	FILE *f = s->mm.p ? pcap_file(s->pc) : NULL;
	struct stat st;

	s->size_seen_ns = coarse_ns();
	if (!f || fstat(fileno(f), &st) || st.st_size < 0 || (size_t)st.st_size >= s->limit)
		return;
	s->limit = (size_t)st.st_size;
	if (s->limit < s->base + s->mm.size)
		s->mm.size = s->limit < s->base + s->mm.off ? s->mm.off : s->limit - s->base;
}

/* The next block: the bytes not yet taken moved to the buffer's start, the
 * rest filled from the file (up to its limit). 1 when bytes came. */
static int refill(struct pcapsrc *s)
{
	FILE *f = pcap_file(s->pc);
	size_t keep, got = 0, want;

	check_size(s);
	keep = s->mm.size - s->mm.off;
	if (!f || s->base + s->mm.size >= s->limit)
		return 0;
	memmove(s->blk, s->blk + s->mm.off, keep);
	s->base += s->mm.off;
	s->mm.off = 0;
	s->mm.size = keep;
	want = RT_PCAP_BLOCK - keep;
	if (want > s->limit - s->base - keep)
		want = s->limit - s->base - keep;
	while (got < want) {
		ssize_t n = pread(fileno(f), s->blk + keep + got, want - got,
				  (off_t)(s->base + keep + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {	/* shorter now, or unreadable: libpcap says which */
			s->limit = s->base + keep + got;
			break;
		}
		got += (size_t)n;
	}
	s->mm.size = keep + got;
	return got > 0;
}

/* The next record: read in place from the blocks while they take them, then
 * from libpcap (pcap_next_ex's results). */
static int next_record(struct pcapsrc *s, struct pcap_pkthdr *hb, struct pcap_pkthdr **h,
		       const unsigned char **d)
{
	if (s->mm.p) {
		struct rt_pcapc_rec rec;
		int e;

		if (rt_pcapc_next(&s->mm, &rec) || (refill(s) && rt_pcapc_next(&s->mm, &rec))) {
			hb->ts.tv_sec = (time_t)rec.sec;
			hb->ts.tv_usec = (suseconds_t)rec.frac;
			hb->caplen = rec.caplen;
			hb->len = rec.len;
			*h = hb;
			*d = rec.data;
			return 1;
		}
		e = unmap(s);
		if (e) {
			pr_warn("cannot read %s after %llu packets: %s.\n", s->path, s->npkts, strerror(-e));
			return PCAP_ERROR_BREAK;
		}
	}
	return pcap_next_ex(s->pc, h, d);
}

/* Read and parse the next packet into q; at the end (or a cut) q->have = 0. */
static void next_packet_to(struct pcapsrc *s, struct pending *q)
{
	struct pcap_pkthdr hb, *h;
	const unsigned char *d;
	int r;

	q->have = 0;
	if (s->eof)
		return;
again:
	r = next_record(s, &hb, &h, &d);
	if (r == 1) {
		parse_one(s, h, d, q);
		if (q->unplaced) {
			if (!s->unplaced++)
				pr_warn("%s: packet %llu has a time that cannot be placed (before 1970 or after 2242); such packets are skipped and counted in a note.\n",
					s->path, s->npkts + s->unplaced);
			goto again;
		}
		q->have = 1;
		s->npkts++;
		if (s->progress && !(s->npkts & 8191))
			progress(s, 0);
		return;
	}
	s->eof = 1;
	if (s->progress)
		progress(s, 1);
	if (r == PCAP_ERROR_BREAK)
		return;
	s->read_error = 1;
	pr_warn("%s stops in the middle of a record after %llu complete packets (%s); the packets before it are counted.\n",
		s->path, s->npkts, pcap_geterr(s->pc));
}

/* The same into s->pend: the next packet not yet counted. */
static void next_packet(struct pcapsrc *s)
{
	next_packet_to(s, &s->pend);
}

static const char *dlt_label(int dlt)
{
	const char *n = pcap_datalink_val_to_name(dlt);

	return n ? n : "unknown";
}

static int supported(int dlt)
{
	return dlt == DLT_EN10MB || dlt == DLT_LINUX_SLL || dlt == DLT_LINUX_SLL2 ||
	       dlt == DLT_RAW || dlt == LINKTYPE_RAW_ || dlt == DLT_IPV4 || dlt == DLT_IPV6;
}

/* A stream's FILE: the bytes already read, then the rest of the fd. */
static ssize_t stream_read(void *cookie, char *buf, size_t n)
{
	struct pcapsrc *s = cookie;
	ssize_t r;

	if (s->nhead) {
		size_t k = n < s->nhead ? n : s->nhead;

		memcpy(buf, s->head, k);
		memmove(s->head, s->head + k, s->nhead - k);
		s->nhead -= k;
		return (ssize_t)k;
	}
	do
		r = read(s->stream_fd, buf, n);
	while (r < 0 && errno == EINTR);
	return r;
}

static int stream_close(void *cookie)
{
	struct pcapsrc *s = cookie;

	close(s->stream_fd);
	s->stream_fd = -1;
	return 0;
}

static FILE *stream_file(struct pcapsrc *s)
{
	cookie_io_functions_t io = { .read = stream_read, .close = stream_close };

	return fopencookie(s, "r", io);
}

/* A classic pcap in a regular file is read in place: its first block read,
 * and if the own reader takes its header, the records read from the blocks
 * (libpcap, which opened it, checked the header and says the snapshot
 * length). The file's FILE keeps its place until libpcap takes over. */
static void map_file(struct pcapsrc *s)
{
	FILE *f = pcap_file(s->pc);
	struct stat st;
	ssize_t n;

	if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size < RT_PCAPC_HDR ||
	    (unsigned long long)st.st_size > (size_t)-1)
		return;
	if (pcap_snapshot(s->pc) < 0 || (size_t)pcap_snapshot(s->pc) + RT_PCAPC_REC > RT_PCAP_BLOCK ||
	    (!s->blk && !(s->blk = malloc(RT_PCAP_BLOCK))))
		return;	/* libpcap reads it */
	do
		n = pread(fileno(f), s->blk, RT_PCAPC_HDR, 0);
	while (n < 0 && errno == EINTR);
	if (n != RT_PCAPC_HDR ||
	    rt_pcapc_init(&s->mm, s->blk, RT_PCAPC_HDR, (__u32)pcap_snapshot(s->pc))) {
		s->mm.p = NULL;
		return;
	}
	posix_fadvise(fileno(f), 0, 0, POSIX_FADV_SEQUENTIAL);
	pr_debug("%s: read in place (%lld bytes, in blocks of %d)\n", s->path, (long long)st.st_size,
		 RT_PCAP_BLOCK);
	s->base = 0;
	s->limit = (size_t)st.st_size;
}

static int open_capture(struct pcapsrc *s)
{
	char err[PCAP_ERRBUF_SIZE] = "";

	if (s->stream) {
		FILE *f = stream_file(s);

		if (!f) {
			pr_warn("cannot read %s: %s.\n", s->path, strerror(errno));
			return -EINVAL;
		}
		s->pc = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, err);
		if (!s->pc)
			fclose(f);
	} else {
		s->pc = pcap_open_offline_with_tstamp_precision(s->path, PCAP_TSTAMP_PRECISION_NANO, err);
	}
	if (!s->pc) {
		pr_warn("cannot read %s as a capture: %s.\n", s->path, err);
		return -EINVAL;
	}
	s->dlt = pcap_datalink(s->pc);
	if (!supported(s->dlt)) {
		pr_warn("%s has link type %s (%d), which rocetop does not read: it reads Ethernet, Linux cooked (SLL, SLL2) and raw IP captures.\n",
			s->path, dlt_label(s->dlt), s->dlt);
		pcap_close(s->pc);
		s->pc = NULL;
		return -EINVAL;
	}
	if (!s->stream && s->classic)
		map_file(s);
	return 0;
}

static void reset(struct pcapsrc *s)
{
	s->lost = s->evicted = 0;
	memset(s->evicted_dir, 0, sizeof(s->evicted_dir));
	memset(s->ifv, 0, sizeof(s->ifv));
	memset(s->ifseen, 0, sizeof(s->ifseen));
	memset(s->pause, 0, sizeof(s->pause));
	memset(&s->pend, 0, sizeof(s->pend));
	rt_pcap_sflow_reset(s->sflow);
	s->sflow_err = 0;
	s->started = s->eof = s->read_error = 0;
	s->npkts = 0;
	s->empty_run = 0;
	s->unplaced = s->unplaced_noted = s->bad_len = 0;
}

/*
 * Before an interval's packets: the file's first packet found at the start
 * (-ENODATA: the file holds none; 0: the file is done), and a long empty
 * stretch of capture time skipped. 1: the interval goes on.
 */
static int interval_begin(struct pcapsrc *s, struct rt_snapshot *snap)
{
	if (!s->started) {
		next_packet(s);
		if (!s->pend.have) {
			/* Nothing to show is a failure (exit 1), for -r as for report. */
			if (!s->npkts && !s->eof_warned && s->unplaced)
				pr_warn("%s holds no packet whose time can be placed (%llu skipped).\n", s->path,
					s->unplaced);
			else if (!s->npkts && !s->eof_warned && !s->read_error)
				pr_warn("%s holds no packets.\n", s->path);
			s->eof_warned = 1;
			return -ENODATA;
		}
		s->started = 1;
		s->t0 = s->pend.ts;
		s->end = s->t0 + s->interval_ns;
	} else if (!s->pend.have) {
		return 0;
	}
	s->note[0] = '\0';
	if (coarse_ns() - s->size_seen_ns >= CUT_LOOK_NS)
		check_size(s);
	/* Without --flow-timeout nothing expires: the table keeps no recency list
	 * (its links cost a packet two more cache misses). Set before any row. */
	if (snap->tab && !snap->nflows)
		snap->tab->no_lru = !s->timeout_ns;
	/* A long empty stretch: jump to the interval of the next packet. */
	if (s->pend.ts >= s->end && s->empty_run >= RT_PCAP_MAX_EMPTY) {
		__u64 k = (s->pend.ts - s->t0) / s->interval_ns;
		__u64 nend = s->t0 + (k + 1) * s->interval_ns;

		snprintf(s->note, sizeof(s->note),
			 "capture time skipped %llu empty intervals (%s without packets)",
			 (unsigned long long)((nend - s->end) / s->interval_ns),
			 RT_DUR((double)(nend - s->end) / 1e9));
		s->end = nend;
	}
	return 1;
}

/* The interval's packets counted into snap: how many. */
static unsigned long long count_interval(struct pcapsrc *s, struct rt_snapshot *snap)
{
	unsigned long long taken = 0;

	while (s->pend.have && s->pend.ts < s->end) {
		struct ahead b[RT_PCAP_BATCH];
		size_t nnew;
		int i, n = 0;

		/* Read up to a batch of this interval's packets, asking for each
		 * flow's index slot; then for the rows; then count in order. The
		 * packets are parsed where they are counted from (a copy of one
		 * just parsed waited for its stores); the first one after the
		 * batch or the interval goes back to s->pend. */
		b[0].q = s->pend;
		for (;;) {
			struct ahead *a = &b[n++];

			if (a->q.p.kind == RT_K_ROCE) {
				key_init(&a->k, &a->q.p, a->q.dir);
				a->h = rt_flow_key_hash(&a->k);
				rt_snapshot_prefetch_slot(snap, a->h);
			}
			if (n == RT_PCAP_BATCH) {
				next_packet(s);
				break;
			}
			next_packet_to(s, &b[n].q);
			if (!b[n].q.have || b[n].q.ts >= s->end) {
				s->pend = b[n].q;
				break;
			}
		}
		/* a few packets ahead of the counting, what it will read: a
		 * known flow's row, or for a new flow the pair slots and the
		 * place of its row (the k-th new one in line lands k rows on) */
		nnew = 0;
		for (i = 0; i < n && i < RT_PCAP_AHEAD; i++)
			if (b[i].q.p.kind == RT_K_ROCE)
				nnew += rt_snapshot_prefetch_key(snap, &b[i].k, b[i].h, nnew);
		for (i = 0; i < n; i++) {
			if (i + RT_PCAP_AHEAD < n && b[i + RT_PCAP_AHEAD].q.p.kind == RT_K_ROCE)
				nnew += rt_snapshot_prefetch_key(snap, &b[i + RT_PCAP_AHEAD].k,
								 b[i + RT_PCAP_AHEAD].h, nnew);
			if (account(s, snap, &b[i]) && nnew)
				nnew--;
		}
		taken += (unsigned long long)n;
	}
	return taken;
}

/* The interval's snapshot around its flows: its time, source, notes and the
 * file's interface counters, and the join. 0 or -ENOMEM. */
static int interval_end(struct pcapsrc *s, struct rt_snapshot *snap)
{
	int d;

	snap->time_ns = s->end;
	snap->mono_ns = s->end;
	snap->evicted = s->evicted;
	copy_str(snap->source, sizeof(snap->source), s->path);
	rt_snapshot_add_iface(snap, RT_PCAP_IFINDEX, s->ifname, "file");
	if (s->note[0])
		rt_snapshot_note(snap, "%s", s->note);
	if (s->unplaced > s->unplaced_noted) {
		rt_snapshot_note(snap, "%llu packet(s) skipped: their time cannot be placed (before 1970 or after 2242)",
				 s->unplaced - s->unplaced_noted);
		s->unplaced_noted = s->unplaced;
	}
	for (d = 0; d < 2; d++) {
		struct rt_ifdir *r;

		if (!s->ifseen[d])
			continue;
		r = rt_snapshot_ifdir(snap, RT_PCAP_IFINDEX, (__u8)d);
		if (!r)
			return -ENOMEM;
		r->v = s->ifv[d];
		r->evicted = s->evicted_dir[d];
		for (int p = 0; p < RT_NPRIO; p++)	/* up to the interval's end */
			r->v.pfc_paused_ns[p] = rt_pause_total(&s->pause[d][p], s->end);
		if (r->v.mac_ctrl && !s->speed_mbps)
			rt_link_speed(snap, s->ifname, 0, NULL);	/* says the speed is assumed */
	}
	/* sFlow's rows before the join, in the order the loop merges a live
	 * collector's (user/core/stream.c) */
	if (s->sflow_err || rt_pcap_sflow_merge(s->sflow, s->end, snap))
		return -ENOMEM;
	rt_join(snap, NULL);	/* CNPs tied to data flows through ACKs, as live */
	return 0;
}

static int pcap_collect(struct rt_source *src, struct rt_snapshot *snap)
{
	struct pcapsrc *s = src->priv;
	unsigned long long taken;
	int err;

	err = interval_begin(s, snap);
	if (err <= 0)
		return err;
	taken = count_interval(s, snap);
	s->empty_run = taken ? 0 : s->empty_run + 1;
	if (s->timeout_ns && s->end > s->timeout_ns)
		s->evicted += rt_snapshot_expire(snap, s->end - s->timeout_ns, s->evicted_dir);
	if (!s->pend.have && s->lost && !s->lost_told) {
		s->lost_told = 1;
		pr_warn("%s: %llu RoCE frames of flows beyond --max-flows %u were not counted per flow "
			"(they count in the interface totals, as table_full); a larger --max-flows keeps them.\n",
			s->path, (unsigned long long)s->lost, s->max_flows);
	}
	err = interval_end(s, snap);
	if (err)
		return err;
	s->end += s->interval_ns;
	return 1;
}

static int pcap_rewind(struct rt_source *src)
{
	struct pcapsrc *s = src->priv;

	if (s->stream || !s->pc)
		return -ESPIPE;	/* a pipe cannot be read again */
	unmap(s);
	pcap_close(s->pc);
	s->pc = NULL;
	reset(s);
	return open_capture(s);
}

static void pcap_src_close(struct rt_source *src)
{
	struct pcapsrc *s = src->priv;

	if (s) {
		free(s->blk);
		if (s->pc)
			pcap_close(s->pc);
		else if (s->stream_fd >= 0)
			close(s->stream_fd);
		free(s->buf);
		rt_pcap_sflow_free(s->sflow);
		free(s);
	}
	free(src);
}

struct rt_source *rt_pcap_source_new(const struct rt_file_cfg *c, int fd, const void *head, size_t nhead)
{
	struct rt_source *src = calloc(1, sizeof(*src));
	struct pcapsrc *s = calloc(1, sizeof(*s));
	const char *base;
	struct stat st;
	int tui;

	if (!src || !s) {
		pr_warn("out of memory.\n");
		free(src);
		free(s);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	src->priv = s;
	s->speed_mbps = c->speed_mbps;
	s->stream_fd = fd;
	s->stream = fd >= 0;
	s->sflow = rt_pcap_sflow_new(c);
	if (!s->sflow) {
		pr_warn("out of memory.\n");
		pcap_src_close(src);	/* closes fd */
		return NULL;
	}
	nhead = nhead > sizeof(s->head) ? sizeof(s->head) : nhead;
	/* pcapng opens with a section header block; everything else is classic. */
	s->classic = !(nhead >= 4 && !memcmp(head, "\x0a\x0d\x0d\x0a", 4));
	if (fd >= 0) {
		memcpy(s->head, head, nhead);
		s->nhead = nhead;
	}
	src->name = "pcap";
	src->collect = pcap_collect;
	src->incremental = 1;
	src->rewind = pcap_rewind;
	src->close = pcap_src_close;
	snprintf(s->path, sizeof(s->path), "%s", c->path);
	base = strrchr(s->path, '/');
	base = base ? base + 1 : s->path;
	copy_str(s->ifname, sizeof(s->ifname), base);
	s->interval_ns = (__u64)(c->interval * 1e9);
	if (!s->interval_ns)
		s->interval_ns = 1;
	s->max_flows = c->max_flows_set ? c->max_flows : 0;
	src->max_flows = s->max_flows;
	s->timeout_ns = (__u64)(c->flow_timeout * 1e9);
	s->fsize = fd >= 0 || stat(s->path, &st) ? 0 : (long long)st.st_size;
	/* Progress only where nobody draws on the terminal (main.c's test for the view). */
	tui = c->view && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	if (!tui && isatty(STDERR_FILENO) && rt_verbosity >= RT_LOG_INFO)
		s->progress = 1;
	else if (rt_verbosity >= RT_LOG_DEBUG)
		s->progress = 2;
	s->last_progress_ns = coarse_ns();
	if (open_capture(s)) {
		pcap_src_close(src);
		return NULL;
	}
	return src;
}
