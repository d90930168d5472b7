// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: any bytes given to `rocetop -r FILE` go through the real file
 * source (magic sniffing, libpcap captures of every link type, recordings)
 * and into snapshots and deltas, as the loop does. Bad files must end in an
 * error, never a crash. The seeds (tests/fuzz/run makes them) are a pcap, a
 * pcapng and a recording of generated traffic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "log.h"
#include "source.h"
#include "sources.h"
#include "stream.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	rt_verbosity = -1;	/* not even warnings: bad files are the point */
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct rt_stream st = { 0 };
	struct rt_source *src;
	struct rt_file_cfg c = { .interval = 0.5, .max_flows = 64, .max_flows_set = 1,
				 .flow_timeout = 60, .view = 1 };
	static int fd = -1;
	char path[64];
	int r, n = 0;

	/* One memory file for every execution, its bytes replaced each time
	 * (the source opens its own descriptor of it by path). */
	if (fd < 0 && (fd = memfd_create("rtfuzz", 0)) < 0)
		abort();
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	c.path = path;
	src = rt_file_source_new(&c);
	if (src && !rt_stream_init(&st, src, NULL)) {
		/* Bounded: a gap in capture time makes many empty intervals.
		 * 64 reach every path (a damaged block, a rewind, a table that
		 * fills); 300 made an execution cost mostly empty deltas. */
		while (n < 64) {
			r = rt_stream_step(&st);
			if (r <= 0)
				break;
			n++;
		}
		if (src->rewind && !src->rewind(src)) {
			rt_stream_restart(&st);
			rt_stream_step(&st);
		}
	}
	if (src)
		src->close(src);
	rt_stream_free(&st);
	return 0;
}
