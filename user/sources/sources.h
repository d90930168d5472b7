/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The sources of user/sources/ (user/core/source.h says what a source is);
 * the sFlow collector is sflow.h. Each constructor returns NULL after saying
 * why (through the log).
 */
#ifndef RT_SOURCES_H
#define RT_SOURCES_H

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

#endif
