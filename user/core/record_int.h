/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The inside of the recording format (record.h is its outside), shared by
 * its two halves: record.c, the layout this build stores and what writes it
 * (the header, encoding, blocks), and record_read.c, the reader that maps a
 * file's layout onto this build's. Nothing outside those two includes it.
 */
#ifndef RT_RECORD_INT_H
#define RT_RECORD_INT_H

#include <stddef.h>
#include "record.h"

#define HDR_FIXED	16	/* magic, version, desc_len */
#define BLK_HDR		16

/* The per-snapshot header as stored. */
struct rec_snap {
	__u64 time_ns;
	__u64 mono_ns;
	__u64 evicted;
	__u32 nflows, nifs, nports, nifaces, nnotes;
	char  source[128];
	__u32 nswports, nswdrops, nsfagents;	/* sFlow; absent (0) in older files */
	__u32 njobs;		/* the owners' jobs (job.h); absent (0) in older files */
	__u32 ncfgs;		/* the host's congestion settings (hostcfg.h); absent (0) in older files */
	__u32 nprobes;		/* the probe mesh's rows (probe_row.h); absent (0) in older files */
	__u64 interval_ns;	/* rt_snapshot.interval_ns; absent (0) in older files */
};

struct rec_note {
	char text[160];
};

struct field {
	const char *name;
	size_t off, size;
	const char *type;
	size_t foff;		/* offset in the stored struct (computed) */
};

/* From R_SWPORT on, structs a file may leave out (recordings before sFlow, jobs, settings, probes). */
enum { R_SNAP, R_FLOW, R_IFDIR, R_PORT, R_IFACE, R_NOTE, R_SWPORT, R_SWDROP, R_SFAGENT, R_JOB, R_CFG,
       R_PROBE, R__N };
#define R_OPTIONAL R_SWPORT

struct rstruct {
	const char *name;
	struct field *f;
	size_t nf;
	size_t fsize;		/* stored size */
};

/* The layout this build stores (record.c), its stored sizes and offsets
 * computed once by rt_rec_layout_init(). */
extern struct rstruct rt_rec_layout[R__N];
void rt_rec_layout_init(void);
/* The header's text describing the layout, with m's lines when m is given; malloc'ed. */
char *rt_rec_layout_text(size_t *len, const struct rt_rec_meta *m);

static inline void put32(unsigned char *p, __u32 v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static inline __u32 get32(const unsigned char *p)
{
	return (__u32)p[0] | ((__u32)p[1] << 8) | ((__u32)p[2] << 16) | ((__u32)p[3] << 24);
}


#endif
