/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The sources of user/sources/ (user/core/source.h says what a source is);
 * the sFlow collector is sflow.h. Each constructor returns NULL after saying
 * why (through the log).
 */
#ifndef RT_SOURCES_H
#define RT_SOURCES_H

#include <stddef.h>
#include "opts.h"
#include "source.h"

/* Live BPF maps on the interfaces of o (live.c). */
struct rt_source *rt_live_source_new(const struct rt_opts *o);
/* The kernel flow table of a live source, mapped (live_maps.h; benchmarks
 * fill it). */
struct rt_ftab;
const struct rt_ftab *rt_live_flowtab(struct rt_source *src);
/* Its XDP program (tests run frames through it with BPF_PROG_TEST_RUN). */
int rt_live_xdp_fd(struct rt_source *src);
/* A file: a rocetop recording or a capture, told apart by its magic (file.c). */
struct rt_source *rt_file_source_new(const struct rt_opts *o);
/*
 * The two behind it: a capture (pcap.c) and a recording (record_source.c).
 * fd < 0: open o->read_file (a regular file, rewound by reopening). fd >= 0:
 * a stream (a pipe, -r -) whose first nhead bytes, head, were already read to
 * tell the format; the source owns fd.
 */
struct rt_source *rt_pcap_source_new(const struct rt_opts *o, int fd, const void *head, size_t nhead);
struct rt_source *rt_rec_source_new(const struct rt_opts *o, int fd, const void *head, size_t nhead);

#endif
