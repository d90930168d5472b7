/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The sinks of user/sinks/ (user/core/sink.h says what a sink is). Each
 * constructor returns NULL after saying why (through the log).
 */
#ifndef RT_SINKS_H
#define RT_SINKS_H

#include "opts.h"
#include "sink.h"

struct rt_sink *rt_batch_sink_new(const struct rt_opts *o);	/* batch.c: --batch */
struct rt_sink *rt_csv_sink_new(const struct rt_opts *o);	/* csv.c: --csv */
struct rt_sink *rt_flight_sink_new(const struct rt_opts *o);	/* flight.c: --flight-recorder */
struct rt_sink *rt_ipfix_sink_new(const struct rt_opts *o);	/* ipfix.c: --ipfix */
struct rt_sink *rt_record_sink_new(const struct rt_opts *o);	/* record_sink.c: -w */
/* filtered.c: --filter EXPR in front of inner (--batch, --csv); inner itself
 * without a filter; NULL (inner closed) after saying why. */
struct rt_sink *rt_filtered_sink_new(struct rt_sink *inner, const char *expr);

#endif
