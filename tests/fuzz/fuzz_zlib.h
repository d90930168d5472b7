/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Compressing a fuzzer's block quickly: compress2() sets up a 64 KiB hash
 * table and a 64 KiB window (and clears them) for every call, most of an
 * execution of fuzz_record and fuzz_rechdr. A stream with a 512-byte window
 * and a 256-entry hash, reset between calls, writes the same zlib format
 * (the reader inflates it as any other), in a fraction of the time.
 */
#ifndef RT_FUZZ_ZLIB_H
#define RT_FUZZ_ZLIB_H

#include <stdlib.h>
#include <zlib.h>

/* Like compress2(src, n) into dst (*dlen bytes of room, then the length). */
static inline int fuzz_compress(unsigned char *dst, uLongf *dlen, const unsigned char *src, uLong n)
{
	static z_stream z;
	static int ready;
	int r;

	if (!ready) {
		if (deflateInit2(&z, 1, Z_DEFLATED, 9, 1, Z_DEFAULT_STRATEGY) != Z_OK)
			abort();
		ready = 1;
	} else if (deflateReset(&z) != Z_OK) {
		abort();
	}
	z.next_in = (unsigned char *)src;
	z.avail_in = (uInt)n;
	z.next_out = dst;
	z.avail_out = (uInt)*dlen;
	r = deflate(&z, Z_FINISH);
	if (r != Z_STREAM_END)
		return Z_BUF_ERROR;
	*dlen = z.total_out;
	return Z_OK;
}

/* Room for n bytes compressed by fuzz_compress(). */
static inline uLong fuzz_compress_bound(uLong n)
{
	static z_stream z;
	static int ready;

	if (!ready) {
		if (deflateInit2(&z, 1, Z_DEFLATED, 9, 1, Z_DEFAULT_STRATEGY) != Z_OK)
			abort();
		ready = 1;
	}
	return deflateBound(&z, n);
}

#endif
