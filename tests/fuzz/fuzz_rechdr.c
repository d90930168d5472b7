// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: the recording reader on hostile header text and block headers
 * (fuzz_record alone only varied block contents behind a genuine
 * header, and missed a repeated field line, a struct size near 2^64 and a
 * struct size of 0). The input is
 *
 *   u16 L, L bytes of layout text, then blocks: u8 flags, u16 M, M bytes
 *
 * and becomes a recording whose header CRC is right (so the text itself is
 * parsed; L's top bits spoil the fixed header: 0x8000 the header CRC,
 * 0x4000 the version, 0x2000 the text length field by + 2^31)
 * and whose blocks hold the M bytes compressed, with a right CRC;
 * flags bit 0 spoils the block magic, bit 1 adds flags >> 4 to zlen, bit 2
 * flips rawlen, bit 3 cuts the block short: the resynchronisation meets them.
 * With RT_FUZZ_SEEDS=DIR the genuine layout, and the layouts of the audit's
 * cases, are written there as seeds.
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

static void put32(unsigned char *p, __u32 v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* Write one seed: text, then one block holding raw (nflows patched). */
static void seed(const char *dir, const char *name, const char *text, const unsigned char *raw,
		 size_t rawlen, __u32 nflows)
{
	char path[4096];
	unsigned char hdr[3];
	size_t tl = strlen(text);
	unsigned char *r = malloc(rawlen);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || !r) {
		free(r);
		if (f)
			fclose(f);
		return;
	}
	memcpy(r, raw, rawlen);
	if (rawlen >= 28)
		put32(r + 24, nflows);	/* snap.nflows, after three u64 */
	hdr[0] = (unsigned char)tl;
	hdr[1] = (unsigned char)(tl >> 8);
	fwrite(hdr, 1, 2, f);
	fwrite(text, 1, tl, f);
	hdr[0] = 0;
	hdr[1] = (unsigned char)rawlen;
	hdr[2] = (unsigned char)(rawlen >> 8);
	fwrite(hdr, 1, 3, f);
	fwrite(r, 1, rawlen, f);
	fclose(f);
	free(r);
}

/* text with the line starting `from` replaced by `to`; malloc'ed. */
static char *edit(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from), *eol;
	char *out;

	if (!at || !(eol = strchr(at, '\n')))
		return strdup(text);
	out = malloc(strlen(text) + strlen(to) + 2);
	if (out)
		sprintf(out, "%.*s%s%s", (int)(at - text), text, to, eol);
	return out;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("RT_FUZZ_SEEDS");
	struct rt_snapshot s;
	unsigned char *hdr, *raw = NULL;
	size_t rawlen = 0, hlen;
	char *text, *t, rep[150 * 26 + 1] = "";
	int i;

	(void)argc;
	(void)argv;
	rt_verbosity = -1;
	if (!dir)
		return 0;
	/* The genuine layout text: from a real recording's header (its 16
	 * fixed bytes, the text, its CRC). */
	rt_snapshot_init(&s);
	s.time_ns = 1700000000000000000ULL;
	hdr = fuzz_genuine_header(&s, &hlen);
	text = calloc(1, hlen - 20 + 1);
	if (!text)
		abort();
	memcpy(text, hdr + 16, hlen - 20);
	free(hdr);
	if (rt_rec_encode(&s, &raw, &rawlen))
		abort();
	seed(dir, "genuine", text, raw, rawlen, 0);
	for (i = 0; i < 149; i++)
		strcat(rep, "field k.ifindex 0 4 u32\n");
	strcat(rep, "field k.ifindex 0 4 u32");
	t = edit(text, "field k.ifindex 0 4 u32", rep);
	seed(dir, "dup-field", t, raw, rawlen, 0);
	free(t);
	t = edit(text, "struct flow ", "struct flow 9223372036854775808");
	seed(dir, "flow-2e63", t, raw, rawlen, 2);
	free(t);
	t = edit(text, "struct flow ", "struct flow 0");
	seed(dir, "flow-0", t, raw, rawlen, 0xffffffffu);
	free(t);
	t = edit(text, "struct flow ", "struct flow 18446744073709551615");
	seed(dir, "flow-2e64", t, raw, rawlen, 1);
	free(t);
	free(text);
	free(raw);
	rt_snapshot_free(&s);
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const unsigned char fixed_magic[] = RT_REC_MAGIC;
	struct rt_rec_reader *r;
	struct rt_snapshot s;
	unsigned char h[16];
	size_t tl, off;
	char path[64];
	int fd, n = 0;

	if (size < 2)
		return 0;
	tl = data[0] | (size_t)(data[1] & 0x1f) << 8;
	if (tl > size - 2)
		tl = size - 2;
	fd = memfd_create("rtfuzz", 0);
	if (fd < 0)
		return 0;
	memcpy(h, fixed_magic, 8);
	put32(h + 8, RT_REC_VERSION + (data[1] & 0x40 ? 1 : 0));
	put32(h + 12, (__u32)tl + (data[1] & 0x20 ? 0x80000000u : 0));
	{
		unsigned char crc[4];
		uLong c = crc32(0, h, 16);

		c = crc32(c, data + 2, (uInt)tl);
		put32(crc, (__u32)c ^ (data[1] & 0x80 ? 1u : 0));
		if (write(fd, h, 16) != 16 || write(fd, data + 2, tl) != (ssize_t)tl || write(fd, crc, 4) != 4)
			goto out;
	}
	for (off = 2 + tl; off + 3 <= size;) {
		unsigned flags = data[off];
		size_t m = data[off + 1] | (size_t)data[off + 2] << 8;
		uLongf zl;
		unsigned char *blk;
		size_t len;

		off += 3;
		if (m > size - off)
			m = size - off;
		zl = fuzz_compress_bound((uLong)m);
		blk = malloc(16 + zl);
		if (!blk || fuzz_compress(blk + 16, &zl, data + off, (uLong)m) != Z_OK) {
			free(blk);
			break;
		}
		put32(blk, flags & 1 ? 0x4b425453u : RT_REC_BLOCK_MAGIC);
		put32(blk + 4, (__u32)zl + (flags & 2 ? flags >> 4 : 0));
		put32(blk + 8, (__u32)m ^ (flags & 4 ? 0x10001u : 0));
		put32(blk + 12, (__u32)crc32(0, blk + 16, (uInt)zl));
		len = 16 + zl;
		if (flags & 8)
			len = len / 2;
		if (write(fd, blk, len) != (ssize_t)len) {
			free(blk);
			break;
		}
		free(blk);
		off += m;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rt_snapshot_init(&s);
	r = rt_rec_open(path);
	if (r) {
		while (n++ < 16 && rt_rec_next(r, &s) > 0)
			rt_snapshot_clear(&s);
		rt_rec_close(r);
	}
	rt_snapshot_free(&s);
out:
	close(fd);
	return 0;
}
