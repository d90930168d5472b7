// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The classic pcap reader that reads files in place (user/sources/pcap_classic.h)
 * against two oracles: values written into the bytes by hand here, and
 * libpcap reading the same bytes (pcap_next_ex with nanosecond precision).
 * For every cut of a file and every damaged field, the records the reader
 * takes, followed by what libpcap reads from the offset where it stopped (as
 * user/sources/pcap.c hands over), must be exactly what libpcap alone reads,
 * down to the error text. And the real source on a file cut while it reads
 * it: no crash, every whole record before the cut counted, nothing
 * after it.
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "check.h"
#include "log.h"
#include "pcap_classic.h"
#include "../fuzz/pcapc_diff.h"
#include "source.h"
#include "sources.h"
#include "stream.h"

struct buf {
	unsigned char b[4096];
	size_t n;
};

static void put32(struct buf *f, uint32_t v, int be)
{
	for (int i = 0; i < 4; i++)
		f->b[f->n++] = (unsigned char)(be ? v >> (24 - 8 * i) : v >> (8 * i));
}

static void put16(struct buf *f, uint16_t v, int be)
{
	f->b[f->n++] = (unsigned char)(be ? v >> 8 : v);
	f->b[f->n++] = (unsigned char)(be ? v : v >> 8);
}

static void header(struct buf *f, int be, int nano, uint16_t major, uint16_t minor, uint32_t snap)
{
	f->n = 0;
	put32(f, nano ? 0xa1b23c4d : 0xa1b2c3d4, be);
	put16(f, major, be);
	put16(f, minor, be);
	put32(f, 0, be);
	put32(f, 0, be);
	put32(f, snap, be);
	put32(f, 1, be);	/* Ethernet */
}

/* A record of caplen bytes (byte i = seed + i) claiming len on the wire. */
static void record(struct buf *f, int be, uint32_t sec, uint32_t frac, uint32_t caplen,
		   uint32_t len, unsigned seed)
{
	put32(f, sec, be);
	put32(f, frac, be);
	put32(f, caplen, be);
	put32(f, len, be);
	for (uint32_t i = 0; i < caplen; i++)
		f->b[f->n++] = (unsigned char)(seed + i);
}

static int memfile(const unsigned char *b, size_t n)
{
	int fd = memfd_create("pcapc", 0);

	if (fd >= 0 && write(fd, b, n) != (ssize_t)n) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The n bytes b read by libpcap alone (inplace 0) or as pcap.c does (1), from a memfd holding them. */
static int read_all(const unsigned char *b, size_t n, int inplace, struct pcapc_run *o)
{
	int fd = memfile(b, n), r;

	if (fd < 0)
		return -1;
	r = pcapc_read(fd, b, n, inplace, o);
	close(fd);
	return r;
}

/* Hand-written values: each byte order and precision. */
static void test_values(void)
{
	for (int be = 0; be < 2; be++)
		for (int nano = 0; nano < 2; nano++) {
			struct buf f;
			struct rt_pcapc c;
			struct rt_pcapc_rec r = { 0 };

			header(&f, be, nano, 2, 4, 65535);
			record(&f, be, 1700000000, 123456, 60, 60, 1);
			record(&f, be, 1700000001, 999999, 20, 1500, 7);	/* cut by the snaplen of the capture */
			record(&f, be, 0xFFFFFFFF, 0, 0, 0, 0);			/* 2106, an empty record */
			CHECK_EQ(rt_pcapc_init(&c, f.b, f.n, 65535), 0);
			CHECK_EQ(c.swap, be);	/* this machine is little-endian */
			CHECK_EQ(c.nano, nano);
			CHECK_EQ(rt_pcapc_next(&c, &r), 1);
			CHECK_EQ(r.sec, 1700000000);
			CHECK_EQ(r.frac, nano ? 123456 : 123456000);
			CHECK_EQ(r.caplen, 60);
			CHECK_EQ(r.len, 60);
			CHECK_EQ(r.data - f.b, 24 + 16);
			CHECK_EQ(r.data[0], 1);
			CHECK_EQ(r.data[59], 60);
			CHECK_EQ(rt_pcapc_next(&c, &r), 1);
			CHECK_EQ(r.sec, 1700000001);
			CHECK_EQ(r.frac, nano ? 999999 : 999999000);
			CHECK_EQ(r.caplen, 20);
			CHECK_EQ(r.len, 1500);
			CHECK_EQ(r.data[0], 7);
			CHECK_EQ(rt_pcapc_next(&c, &r), 1);
			/* libpcap's signed field (unsigned once swapped); pcap.c undoes it */
			CHECK_EQ(r.sec, be ? 0xFFFFFFFFLL : -1);
			CHECK_EQ(r.caplen, 0);
			CHECK_EQ(rt_pcapc_next(&c, &r), 0);
			CHECK_EQ(c.off, f.n);
		}
	TEST_END("pcapc_values");
}

/* Headers the reader leaves to libpcap. */
static void test_headers(void)
{
	struct buf f;
	struct rt_pcapc c;

	header(&f, 0, 0, 2, 3, 65535);	/* 2.3: lengths may be swapped */
	CHECK(rt_pcapc_init(&c, f.b, f.n, 65535), "version 2.3 taken");
	header(&f, 0, 0, 1, 4, 65535);
	CHECK(rt_pcapc_init(&c, f.b, f.n, 65535), "version 1.4 taken");
	header(&f, 0, 0, 2, 4, 65535);
	CHECK(rt_pcapc_init(&c, f.b, 23, 65535), "a cut header taken");
	f.b[0] = 0x0a; f.b[1] = 0x0d; f.b[2] = 0x0d; f.b[3] = 0x0a;	/* pcapng */
	CHECK(rt_pcapc_init(&c, f.b, f.n, 65535), "pcapng taken");
	header(&f, 1, 1, 2, 4, 65535);
	CHECK_EQ(rt_pcapc_init(&c, f.b, f.n, 65535), 0);
	TEST_END("pcapc_headers");
}

/*
 * Damaged files: every field of the middle record set to awkward values,
 * every cut of each file; the reader then libpcap equals libpcap alone.
 */
static void test_against_libpcap(void)
{
	static const uint32_t caplens[] = { 0, 1, 40, 100, 101, 65535, 65536, 262144, 262145,
					    0x7fffffff, 0xffffffff };
	static const uint32_t lens[] = { 0, 39, 40, 262145, 0xffffffff };
	static const uint32_t fracs[] = { 0, 999999, 1000000, 999999999, 1000000000, 0x80000000,
					  0xffffffff };
	static const uint32_t snaps[] = { 100, 65535, 300000 };	/* libpcap: >262144 is 262144 */
	int files = 0, cuts = 0, bad = 0, taken = 0;

	for (int be = 0; be < 2; be++)
		for (int nano = 0; nano < 2; nano++)
			for (size_t sn = 0; sn < sizeof(snaps) / sizeof(snaps[0]); sn++)
				for (size_t ci = 0; ci < sizeof(caplens) / sizeof(caplens[0]); ci++)
					for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
		struct buf f;
		uint32_t cl = caplens[ci];
		uint32_t fr = fracs[(ci + li) % (sizeof(fracs) / sizeof(fracs[0]))];
		size_t whole, step;
		int first;

		header(&f, be, nano, 2, 4, snaps[sn]);
		record(&f, be, 1700000000, 5, 40, 40, 3);
		if (cl > 1000) {	/* the header only: the bytes run out (or not taken) */
			put32(&f, 1700000001, be);
			put32(&f, fr, be);
			put32(&f, cl, be);
			put32(&f, lens[li], be);
		} else {
			record(&f, be, 1700000001, fr, cl, lens[li], 9);
		}
		record(&f, be, 1700000002, 7, 30, 30, 5);
		whole = f.n;
		files++;
		/* every cut near the records' edges, and the whole file */
		/* every cut in the first record once per header; then every
		 * cut in the last 50 bytes (the damaged record and after) */
		first = ci == 0 && li == 0;
		step = whole > 200 ? 29 : 3;
		for (size_t n = first ? 0 : 60; n <= whole;
		     n += ((first && n < 80) || n + 50 > whole) ? 1 : step) {
			struct pcapc_run a, b;

			if (read_all(f.b, n, 0, &a) || read_all(f.b, n, 1, &b)) {
				bad++;
				continue;
			}
			cuts++;
			taken += b.inplace;
			if (!pcapc_same(&a, &b)) {
				bad++;
				if (bad < 5)
					printf("  differs: be %d nano %d snap %u caplen %u len %u frac %u cut %zu: %d/%d records, status %d/%d, '%s'/'%s'\n",
					       be, nano, snaps[sn], cl, lens[li], fr, n, a.n, b.n, a.status,
					       b.status, a.err, b.err);
			}
		}
	}
	CHECK_EQ(bad, 0);
	CHECK(taken > cuts / 2, "the reader took %d records over %d cuts", taken, cuts);
	printf("  %d files, %d cuts, %d records taken in place\n", files, cuts, taken);
	TEST_END("pcapc_same_as_libpcap");
}

/*
 * A capture of n records of 1000-byte frames, 100 per second, cut to `cut`
 * bytes after the source has read its first interval; the frames counted
 * by the end must be the whole records before the cut (worked out here from
 * the layout written).
 */
static void cut_while_read(const char *name, size_t n, size_t cut)
{
	char path[] = "/tmp/rt-pcapc-XXXXXX";
	struct rt_stream st = { 0 };
	struct rt_source *src;
	struct rt_file_cfg c = { .interval = 1.0, .max_flows = 16384, .flow_timeout = 60, .view = 1 };
	unsigned char *b;
	size_t len = 24 + n * 1016, whole, i;
	__u64 pkts = 0;
	int fd = mkstemp(path), r, steps = 0;

	b = calloc(1, len);
	CHECK(fd >= 0 && b, "mkstemp");
	if (fd < 0 || !b)
		return;
	memcpy(b, "\xd4\xc3\xb2\xa1\x02\x00\x04\x00", 8);
	memcpy(b + 16, "\xff\xff\x00\x00\x01\x00\x00\x00", 8);
	for (i = 0; i < n; i++) {
		__u32 h[4] = { 1700000000 + (__u32)(i / 100), (__u32)(i % 100) * 10000, 1000, 1000 };
		unsigned char *f = b + 24 + i * 1016;

		memcpy(f, h, 16);
		f[16 + 12] = 0x88;	/* an ethertype nobody parses: a frame, not RoCE */
		f[16 + 13] = 0xb5;
	}
	CHECK(write(fd, b, len) == (ssize_t)len, "write");
	c.path = path;
	src = rt_file_source_new(&c);
	CHECK(src != NULL, "source");
	if (src && !rt_stream_init(&st, src, NULL)) {
		while ((r = rt_stream_step(&st)) > 0) {
			/* cut, then more than the 10 ms within which the
			 * source looks at the file's size again */
			if (++steps == 1) {
				CHECK(ftruncate(fd, (off_t)cut) == 0, "ftruncate");
				usleep(20000);
			}
			/* the interface's counters since the start */
			for (pkts = 0, i = 0; i < st.cur.nifs; i++)
				pkts += st.cur.ifs[i].v.pkts;
		}
		rt_stream_free(&st);
	}
	if (src)
		src->close(src);
	whole = cut < 24 ? 0 : (cut - 24) / 1016;
	CHECK_EQ(pkts, whole);
	CHECK(steps > 1, "%d intervals", steps);
	close(fd);
	unlink(path);
	free(b);
	TEST_END(name);
}

int main(void)
{
	test_values();
	test_headers();
	test_against_libpcap();
	rt_verbosity = RT_LOG_WARN;
	/* a cut on a page edge that is also a record's start (24 + 1016 * 387 =
	 * 96 pages), inside the first block read */
	cut_while_read("pcapc_file_cut_while_read_sigbus", 3000, 24 + 1016 * 387);
	/* a cut mid-page, beyond the first block */
	cut_while_read("pcapc_file_cut_while_read_shorter", 3000, 2500000 + 123);
	return TEST_EXIT();
}
