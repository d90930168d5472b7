/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the recording fuzzers (fuzz_record.c, fuzz_rechdr.c) start from: the
 * header of a genuine recording, written by rocetop's own record sink.
 */
#ifndef RT_FUZZ_REC_H
#define RT_FUZZ_REC_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "record.h"
#include "sinks.h"

/* The header of a recording of s (16 fixed bytes, the layout text, its CRC)
 * in a malloc'd buffer, its length in *len; aborts on any failure. */
static inline unsigned char *fuzz_genuine_header(const struct rt_snapshot *s, size_t *len)
{
	char path[] = "/tmp/rtfuzz-hdrXXXXXX";
	struct rt_delta d = { 0 };
	unsigned char fixed[16], *h;
	struct rt_sink *sink;
	struct rt_record_cfg o = { .path = path };
	FILE *f;
	int fd = mkstemp(path);

	if (fd < 0)
		abort();
	close(fd);
	sink = rt_record_sink_new(&o);
	if (!sink || rt_delta_compute(&d, NULL, s) || sink->emit(sink, s, &d))
		abort();
	sink->close(sink);
	rt_delta_free(&d);
	f = fopen(path, "rb");
	if (!f || fread(fixed, 1, 16, f) != 16)
		abort();
	*len = 16 + (fixed[12] | fixed[13] << 8 | fixed[14] << 16 | (size_t)fixed[15] << 24) + 4;
	h = malloc(*len);
	rewind(f);
	if (!h || fread(h, 1, *len, f) != *len)
		abort();
	fclose(f);
	unlink(path);
	return h;
}

#endif
