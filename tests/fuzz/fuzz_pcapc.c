// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer, differential: the classic pcap reader that reads files in place
 * (user/sources/pcap_classic.h) against libpcap on the same bytes. The
 * records the reader takes, then what libpcap reads from where it stopped
 * (as user/sources/pcap.c hands over), must be exactly what libpcap alone
 * reads: timestamps, lengths, bytes, the last result and its error text.
 * Any difference aborts. Bytes outside the input are caught by ASan (the
 * reader is given a heap copy of exactly the input's size).
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "pcapc_diff.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct pcapc_run a, b;
	unsigned char *copy;
	int fd;

	fd = memfd_create("pcapc", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	copy = malloc(size ? size : 1);
	if (!copy) {
		close(fd);
		return 0;
	}
	memcpy(copy, data, size);
	if (pcapc_read(fd, copy, size, 0, &a) || pcapc_read(fd, copy, size, 1, &b))
		abort();	/* a record outside the input, or no hand-over */
	if (!pcapc_same(&a, &b)) {
		fprintf(stderr, "fuzz_pcapc: %d/%d records, status %d/%d, '%s'/'%s'\n", a.n, b.n,
			a.status, b.status, a.err, b.err);
		abort();
	}
	free(copy);
	close(fd);
	return 0;
}
