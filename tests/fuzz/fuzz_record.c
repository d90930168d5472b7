// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: the recording reader's decoder on arbitrary block contents.
 * Blocks are CRC-checked, so random files rarely get past the CRC; here each
 * input becomes the inflated content of a block with a valid CRC behind the
 * genuine file header, so the decoder itself meets hostile counts, sizes and
 * strings. A wrong block must be refused, never crash. One reader serves
 * every execution (the header is always the same). With RT_FUZZ_SEEDS=DIR
 * the encoding of a real snapshot is written there as a seed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <sys/mman.h>
#include "log.h"
#include "opts.h"
#include "record.h"
#include "sink.h"
#include "fuzz_zlib.h"
#include "fuzz_rec.h"

static unsigned char *header;
static size_t header_len;

static void sample(struct rt_snapshot *s)
{
	struct rt_flow *f;
	struct rt_ifdir *d;
	struct rt_port_ctr *p;

	rt_snapshot_init(s);
	s->time_ns = 1700000000000000000ULL;
	snprintf(s->source, sizeof(s->source), "eth0");
	rt_snapshot_add_iface(s, 2, "eth0", "native");
	f = rt_snapshot_add_flow(s);
	f->k.ifindex = 2;
	f->k.family = 4;
	f->k.src[0] = 10;
	f->k.dst[0] = 10;
	f->k.dqpn = 17;
	f->v.pkts = 9;
	f->v.ecn[RT_ECN_CE] = 3;
	snprintf(f->comm, sizeof(f->comm), "ib_write_bw");
	d = rt_snapshot_add_ifdir(s);
	d->k.ifindex = 2;
	d->v.pkts = 12;
	d->v.pfc_frames[3] = 2;
	p = rt_snapshot_add_port(s);
	snprintf(p->dev, sizeof(p->dev), "mlx5_0");
	p->port = 1;
	snprintf(p->name, sizeof(p->name), "np_cnp_sent");
	p->value = 5;
	p->bits = 64;
	rt_snapshot_note(s, "a note");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seeds = getenv("RT_FUZZ_SEEDS");
	struct rt_snapshot s;

	(void)argc;
	(void)argv;
	rt_verbosity = -1;
	sample(&s);
	header = fuzz_genuine_header(&s, &header_len);
	if (seeds) {
		unsigned char *raw;
		size_t len;
		char seed[4096];
		FILE *f;

		if (!rt_rec_encode(&s, &raw, &len)) {
			snprintf(seed, sizeof(seed), "%s/snapshot", seeds);
			f = fopen(seed, "wb");
			if (f) {
				fwrite(raw, 1, len, f);
				fclose(f);
			}
			free(raw);
		}
	}
	rt_snapshot_free(&s);
	return 0;
}

static void put32(unsigned char *p, __u32 v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* One file and one reader for every execution: the header is the same
	 * genuine one each time, so parsing it again (most of an execution)
	 * would find nothing new. Each input replaces the blocks behind it and
	 * the reader starts again from its first block (rt_rec_rewind). */
	static struct rt_rec_reader *r;
	static int fd = -1;
	uLongf zlen = fuzz_compress_bound((uLong)size);
	unsigned char *blk = malloc(16 + zlen);
	struct rt_snapshot s;
	int n = 0;

	if (!blk)
		return 0;
	if (fuzz_compress(blk + 16, &zlen, data, (uLong)size) != Z_OK) {
		free(blk);
		return 0;
	}
	put32(blk, RT_REC_BLOCK_MAGIC);
	put32(blk + 4, (__u32)zlen);
	put32(blk + 8, (__u32)size);
	put32(blk + 12, (__u32)crc32(0, blk + 16, (uInt)zlen));
	if (fd < 0) {
		char path[64];

		fd = memfd_create("rtfuzz", 0);
		if (fd < 0 || write(fd, header, header_len) != (ssize_t)header_len)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		r = rt_rec_open(path);
		if (!r)
			abort();
	}
	/* The block twice: a second snapshot after the first, as in a real file. */
	if (ftruncate(fd, (off_t)header_len) ||
	    pwrite(fd, blk, 16 + zlen, (off_t)header_len) != (ssize_t)(16 + zlen) ||
	    pwrite(fd, blk, 16 + zlen, (off_t)(header_len + 16 + zlen)) != (ssize_t)(16 + zlen))
		abort();
	free(blk);
	if (rt_rec_rewind(r))
		abort();
	rt_snapshot_init(&s);
	while (n++ < 4 && rt_rec_next(r, &s) > 0)
		rt_snapshot_clear(&s);
	rt_snapshot_free(&s);
	return 0;
}
