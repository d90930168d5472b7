/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One capture's records read by libpcap alone, or as user/sources/pcap.c
 * reads a file: the in-place reader (user/sources/pcap_classic.h) takes the
 * records it can, then libpcap goes on from where it stopped. The unit test
 * (tests/unit/test_pcap_classic.c) and the differential fuzzer
 * (tests/fuzz/fuzz_pcapc.c) compare the two runs on the same bytes.
 */
#ifndef ROCETOP_TESTS_PCAPC_DIFF_H
#define ROCETOP_TESTS_PCAPC_DIFF_H

#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#include "pcap_classic.h"

#define PCAPC_MAXREC	256
#define PCAPC_HEAD	256	/* bytes of a record kept as they are */

struct pcapc_rec {
	long long sec, frac;
	unsigned caplen, len;
	unsigned long long sum;			/* of all the bytes, position-weighted */
	unsigned char head[PCAPC_HEAD];		/* the first bytes, zero after caplen */
};

struct pcapc_run {
	struct pcapc_rec r[PCAPC_MAXREC];
	int n;
	int status;	/* pcap_next_ex's last result; -100: libpcap did not open it */
	char err[PCAP_ERRBUF_SIZE];
	int inplace;	/* records the own reader took */
};

static inline void pcapc_keep(struct pcapc_run *o, long long sec, long long frac, unsigned caplen,
			      unsigned len, const unsigned char *d)
{
	struct pcapc_rec *r = &o->r[o->n++];
	/* zlib's CRC (not built with the fuzzer's comparison tracing, which made
	 * a loop of our own here a third of fuzz_pcapc's time), and Adler-32. */
	unsigned long long s = (unsigned long long)crc32(caplen, d, caplen) << 32 |
			       adler32(caplen, d, caplen);
	unsigned k = caplen < PCAPC_HEAD ? caplen : PCAPC_HEAD;

	r->sec = sec;
	r->frac = frac;
	r->caplen = caplen;
	r->len = len;
	r->sum = s;
	memcpy(r->head, d, k);
	memset(r->head + k, 0, PCAPC_HEAD - k);
}

/*
 * The n bytes b, also in the file fd, read by libpcap alone (inplace 0) or as
 * pcap.c does (1). 0, or -1 when the in-place reader gave a record outside b
 * or the hand-over to libpcap could not seek.
 */
static inline int pcapc_read(int fd, const unsigned char *b, size_t n, int inplace,
			     struct pcapc_run *o)
{
	char path[64], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const unsigned char *d;
	struct rt_pcapc c;
	FILE *fp;
	pcap_t *p;

	o->n = o->status = o->inplace = 0;	/* the records are written whole as kept */
	o->err[0] = 0;
	/* libpcap reads the bytes through a memory stream (no open of
	 * /proc/self/fd/N, a tenth of an execution); fmemopen refuses 0 bytes. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fp = n ? fmemopen((void *)b, n, "rb") : fopen(path, "rb");
	if (!fp) {
		o->status = -100;
		snprintf(o->err, sizeof(o->err), "no stream");
		return 0;
	}
	p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!p)
		fclose(fp);
	if (!p) {
		o->status = -100;
		snprintf(o->err, sizeof(o->err), "%s", err);
		return 0;
	}
	if (inplace && !rt_pcapc_init(&c, b, n, (__u32)pcap_snapshot(p))) {
		struct rt_pcapc_rec r;

		while (o->n < PCAPC_MAXREC && rt_pcapc_next(&c, &r)) {
			if (r.data < b || r.data + r.caplen > b + n) {
				pcap_close(p);
				return -1;
			}
			pcapc_keep(o, r.sec, r.frac, r.caplen, r.len, r.data);
			o->inplace++;
		}
		if (fseeko(pcap_file(p), (off_t)c.off, SEEK_SET)) {
			pcap_close(p);
			return -1;
		}
	}
	while (o->n < PCAPC_MAXREC && (o->status = pcap_next_ex(p, &h, &d)) == 1)
		pcapc_keep(o, h->ts.tv_sec, h->ts.tv_usec, h->caplen, h->len, d);
	if (o->status == PCAP_ERROR)
		snprintf(o->err, sizeof(o->err), "%s", pcap_geterr(p));
	pcap_close(p);
	return 0;
}

/* The same records (every field, every byte), the same last result and error;
 * two runs stopped by PCAPC_MAXREC have no last result to compare (the one
 * whose records were all taken in place never called libpcap's reader). */
static inline int pcapc_same(const struct pcapc_run *a, const struct pcapc_run *b)
{
	int capped = a->n == PCAPC_MAXREC && b->n == PCAPC_MAXREC;

	return a->n == b->n && (capped || (a->status == b->status && !strcmp(a->err, b->err))) &&
	       !memcmp(a->r, b->r, sizeof(a->r[0]) * (size_t)a->n);
}

#endif
