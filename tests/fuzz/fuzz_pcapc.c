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
#include "pcap_classic.h"

#define MAXREC 256

struct rec {
	long long sec, frac;
	unsigned caplen, len;
	unsigned long long sum;	/* of the bytes, position-weighted */
};

struct run {
	struct rec r[MAXREC];
	int n, status;
	char err[PCAP_ERRBUF_SIZE];
};

static unsigned long long sum(const unsigned char *d, unsigned n)
{
	unsigned long long s = n;

	for (unsigned i = 0; i < n; i++)
		s = s * 131 + d[i];
	return s;
}

static void keep(struct run *o, long long sec, long long frac, unsigned caplen, unsigned len,
		 const unsigned char *d)
{
	struct rec *r = &o->r[o->n++];

	r->sec = sec;
	r->frac = frac;
	r->caplen = caplen;
	r->len = len;
	r->sum = sum(d, caplen);
}

static int read_all(int fd, const unsigned char *b, size_t n, int inplace, struct run *o)
{
	char path[64], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const unsigned char *d;
	struct rt_pcapc c;
	pcap_t *p;

	memset(o, 0, sizeof(*o));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!p) {
		o->status = -100;
		snprintf(o->err, sizeof(o->err), "%s", err);
		return 0;
	}
	if (inplace && !rt_pcapc_init(&c, b, n, (__u32)pcap_snapshot(p))) {
		struct rt_pcapc_rec r;

		while (o->n < MAXREC && rt_pcapc_next(&c, &r)) {
			if (r.data < b || r.data + r.caplen > b + n)
				abort();
			keep(o, r.sec, r.frac, r.caplen, r.len, r.data);
		}
		if (fseeko(pcap_file(p), (off_t)c.off, SEEK_SET))
			abort();
	}
	while (o->n < MAXREC && (o->status = pcap_next_ex(p, &h, &d)) == 1)
		keep(o, h->ts.tv_sec, h->ts.tv_usec, h->caplen, h->len, d);
	if (o->status == PCAP_ERROR)
		snprintf(o->err, sizeof(o->err), "%s", pcap_geterr(p));
	pcap_close(p);
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct run a, b;
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
	read_all(fd, copy, size, 0, &a);
	read_all(fd, copy, size, 1, &b);
	if (a.n != b.n || a.status != b.status || strcmp(a.err, b.err) ||
	    memcmp(a.r, b.r, sizeof(a.r[0]) * (size_t)a.n)) {
		fprintf(stderr, "fuzz_pcapc: %d/%d records, status %d/%d, '%s'/'%s'\n", a.n, b.n,
			a.status, b.status, a.err, b.err);
		abort();
	}
	free(copy);
	close(fd);
	return 0;
}
