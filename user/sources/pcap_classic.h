/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A classic pcap file read in place (user/sources/pcap_classic.c): the records
 * of the file's bytes in memory (pcap.c reads them in blocks), parsed where
 * they lie, nothing copied. It takes only what
 * it is sure of (version 2.4, either byte order, micro- or nanosecond magic,
 * records whole and within the snapshot length); at the first record it does
 * not take, it stops and says where that record starts, so libpcap can go on
 * from there and give its own answer (an error, a cut, more bytes appended).
 */
#ifndef RT_PCAP_CLASSIC_H
#define RT_PCAP_CLASSIC_H

#include <stddef.h>
#include <linux/types.h>

#define RT_PCAPC_HDR	24	/* the file header */
#define RT_PCAPC_REC	16	/* a record header */

struct rt_pcapc {
	const unsigned char *p;	/* the file's bytes */
	size_t size;		/* how many */
	size_t off;		/* where the next record starts */
	__u32 snaplen;		/* records capturing more are not taken */
	int swap;		/* written in the other byte order */
	int nano;		/* nanosecond timestamps */
};

/*
 * One record as libpcap hands it over when opened with nanosecond precision:
 * sec and frac are the record's 32-bit fields, signed as libpcap has them
 * (signed in the machine's byte order, unsigned once swapped), frac scaled to
 * nanoseconds for a microsecond file.
 */
struct rt_pcapc_rec {
	long long sec;
	long long frac;
	__u32 caplen, len;
	const unsigned char *data;
};

/* Check the file header of p[0, size); 0 and c set when it is one this reader
 * takes, -1 otherwise. snaplen: the snapshot length libpcap settled on
 * (pcap_snapshot()), so the same records are taken as libpcap would read. */
int rt_pcapc_init(struct rt_pcapc *c, const void *p, size_t size, __u32 snaplen);

/* 1: the record at c->off is in r, c->off moved past it; 0: none taken (the end
 * of the bytes, or a record this reader leaves to libpcap, starting at c->off). */
static inline int rt_pcapc_next(struct rt_pcapc *c, struct rt_pcapc_rec *r)
{
	const unsigned char *h;
	__u32 w[4];
	size_t left = c->size - c->off;

	if (left < RT_PCAPC_REC)
		return 0;
	h = c->p + c->off;
	__builtin_memcpy(w, h, sizeof(w));
	if (c->swap) {
		w[0] = __builtin_bswap32(w[0]);
		w[1] = __builtin_bswap32(w[1]);
		w[2] = __builtin_bswap32(w[2]);
		w[3] = __builtin_bswap32(w[3]);
	}
	if (w[2] > c->snaplen || w[2] > left - RT_PCAPC_REC)
		return 0;
	/* libpcap's fields are signed, but its byte swap makes them unsigned */
	r->sec = c->swap ? (long long)w[0] : (long long)(__s32)w[0];
	r->frac = c->swap ? (long long)w[1] : (long long)(__s32)w[1];
	if (!c->nano)
		r->frac *= 1000;
	r->caplen = w[2];
	r->len = w[3];
	r->data = h + RT_PCAPC_REC;
	c->off += RT_PCAPC_REC + (size_t)w[2];
	return 1;
}

#endif
