/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One printing layer for text and JSON, in the shape of iproute2's print_*()
 * (and bpftool's JSON writer): a printer writes either text or JSON, and the
 * caller says each value once, with its JSON key and its text format. Which
 * output a call reaches is its `to`: RT_PR_ANY (both), RT_PR_TEXT (columns,
 * titles, separators) or RT_PR_JSON (fields the text leaves out). Callers
 * never test whether the output is JSON.
 *
 * JSON comes out compact, one document per rt_pr_start()/rt_pr_end() (a
 * report, or one line per interval for --batch --json). Non-finite numbers
 * are written as 0, strings escaped.
 */
#ifndef RT_PRINT_H
#define RT_PRINT_H

#include <stdio.h>

enum { RT_PR_TEXT = 1, RT_PR_JSON = 2, RT_PR_ANY = 3 };

#define RT_PR_DEPTH 16

struct rt_printer {
	FILE *f;
	int json;
	int depth;
	int mute;		/* RT_PR_TEXT or RT_PR_JSON: left out for now (rt_pr_mute) */
	int first[RT_PR_DEPTH];	/* per open object or array: nothing written in it yet */
};

void rt_pr_init(struct rt_printer *p, FILE *f, int json);
/* A document: JSON's outer object, ended by a newline. */
void rt_pr_start(struct rt_printer *p);
void rt_pr_end(struct rt_printer *p);

/* Objects and arrays: JSON only (key NULL inside an array). */
void rt_pr_open_obj(struct rt_printer *p, const char *key);
void rt_pr_close_obj(struct rt_printer *p);
void rt_pr_open_arr(struct rt_printer *p, const char *key);
void rt_pr_close_arr(struct rt_printer *p);

/* Values: in JSON "key":value, in text printf(fmt, value). fmt may be NULL
 * for a value only JSON shows; key is NULL for an element of an array. */
void rt_pr_u64(struct rt_printer *p, int to, const char *key, const char *fmt, unsigned long long v);
void rt_pr_dbl(struct rt_printer *p, int to, const char *key, const char *fmt, double v);
void rt_pr_str(struct rt_printer *p, int to, const char *key, const char *fmt, const char *v);
/* A flag: JSON true or false; text prints fmt (a fixed string) when it is set. */
void rt_pr_bool(struct rt_printer *p, int to, const char *key, const char *fmt, int v);
/* JSON only: a value written as JSON already (an object made elsewhere). */
void rt_pr_json_raw(struct rt_printer *p, const char *key, const char *json);
/* A share v (0..1, NAN: undefined): JSON the fraction or null, text fmt
 * given "12.3%" or "-". */
void rt_pr_share(struct rt_printer *p, const char *key, const char *fmt, double v);
/*
 * Leave one output out (RT_PR_TEXT or RT_PR_JSON) until rt_pr_mute(p, 0):
 * a section that one output shows and the other does not, written once.
 * Muting JSON must not cut an object or array in two.
 */
void rt_pr_mute(struct rt_printer *p, int to);
/* Text only: free text (titles, separators, newlines). */
void rt_pr_text(struct rt_printer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* JSON: what follows are members of an object the caller opened and wrote
 * a member of with its own writes (a comma comes first); it closes it. */
void rt_pr_inside(struct rt_printer *p);
int rt_pr_is_json(const struct rt_printer *p);	/* for layout choices only, never for values */
/* A JSON string on f: quotes, backslashes and controls escaped, a byte that
 * is not valid UTF-8 as U+FFFD (the report's own JSON writer uses it too). */
void rt_pr_json_string(FILE *f, const char *s);
/* The same into buf, quotes included, cut at a whole character if it must be. */
const char *rt_pr_json_str(const char *s, char *buf, size_t len);

#endif
