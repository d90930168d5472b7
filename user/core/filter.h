/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The filter language, one for every output (the view's /, --filter with
 * the view, --batch, --csv and -r, and report): terms joined by and, or,
 * not and parentheses, judged on one row at a time (a flow, or a NIC port's
 * counter). The grammar and the terms are in man/rocetop.8, FILTERS.
 *
 * Terms are rows of a table (filter.c: terms[]): a name, the kind of
 * argument it takes, the kinds of rows it can judge, and an accessor that
 * gives the row's values of that field. A term over a new field (a job, a
 * pod) is a row there and its accessor over struct rt_fsubj.
 */
#ifndef RT_FILTER_H
#define RT_FILTER_H

#include <stddef.h>
#include "snapshot.h"

/* The kinds of rows a term can judge (and an output has). */
#define RT_FK_FLOW	(1u << 0)	/* a flow: addresses, QPs, owner, counts */
#define RT_FK_PORT	(1u << 1)	/* a NIC counter: its netdev */

/* One row to judge. For a flow: f, ifname, the counts shown (v; NULL: f's
 * totals) and what says whether its priority was paused (paused >= 0, else
 * looked up in d's interfaces, else in s's). For a NIC counter: port. */
struct rt_fsubj {
	unsigned int kind;		/* RT_FK_* */
	const struct rt_flow *f;
	const char *ifname;
	const struct rt_flow_val *v;
	int paused;			/* 1, 0, or -1: from d or s */
	const struct rt_snapshot *s;
	const struct rt_delta *d;
	const struct rt_port_ctr *port;
};

struct rt_filter;

/* Parse text; *out is NULL for an empty expression (everything matches).
 * 0, or -EINVAL with one sentence in err, or -ENOMEM. */
int rt_filter_parse(const char *text, struct rt_filter **out, char *err, size_t errlen);
void rt_filter_free(struct rt_filter *F);
/* The text it was parsed from. */
const char *rt_filter_text(const struct rt_filter *F);
/* The kinds of rows every term of F can judge (all kinds for NULL). */
unsigned int rt_filter_kinds(const struct rt_filter *F);
/* 0 when F can judge rows of `kind`; else -EINVAL with one sentence in err
 * naming the term and the output (what: "the NIC ports view"). */
int rt_filter_check(const struct rt_filter *F, unsigned int kind, const char *what, char *err, size_t errlen);
/* Does the row match (NULL F: yes). */
int rt_filter_match(const struct rt_filter *F, const struct rt_fsubj *s);
/* A flow of snapshot s with its counts v (NULL: its totals) over interval d
 * (NULL: since the start). */
int rt_filter_flow(const struct rt_filter *F, const struct rt_snapshot *s, const struct rt_flow *f,
		   const struct rt_flow_val *v, const struct rt_delta *d);

/* d with only the flows F keeps, their totals (flow_tot, est_tot) summed
 * again; the other tables and the findings are d's. The flows go in *buf
 * (grown to *cap). With F NULL, *out is d. 0 or -ENOMEM. */
int rt_filter_delta(const struct rt_filter *F, const struct rt_snapshot *cur, const struct rt_delta *d,
		    struct rt_delta *out, struct rt_flow_delta **buf, size_t *cap);

/* The terms, for --help and the man page: "host ADDR, src ADDR, ..." */
extern const char rt_filter_terms_help[];

#endif
