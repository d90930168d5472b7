// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "print.h"

void rt_pr_init(struct rt_printer *p, FILE *f, int json)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
	p->json = json;
}

int rt_pr_is_json(const struct rt_printer *p)
{
	return p->json;
}

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The separator and key of a new member of the innermost object or array. */
static void member(struct rt_printer *p, const char *key)
{
	if (p->depth > 0) {
		if (!p->first[p->depth - 1])
			fputc(',', p->f);
		p->first[p->depth - 1] = 0;
	}
	if (key) {
		jstr(p->f, key);
		fputc(':', p->f);
	}
}

static void open_(struct rt_printer *p, const char *key, char c)
{
	if (!p->json)
		return;
	member(p, key);
	fputc(c, p->f);
	if (p->depth < RT_PR_DEPTH)
		p->first[p->depth] = 1;
	p->depth++;
}

static void close_(struct rt_printer *p, char c)
{
	if (!p->json)
		return;
	fputc(c, p->f);
	if (p->depth > 0)
		p->depth--;
}

void rt_pr_start(struct rt_printer *p)
{
	p->depth = 0;
	open_(p, NULL, '{');
}

void rt_pr_end(struct rt_printer *p)
{
	if (!p->json)
		return;
	while (p->depth > 0)
		close_(p, '}');
	fputc('\n', p->f);
}

void rt_pr_open_obj(struct rt_printer *p, const char *key) { open_(p, key, '{'); }
void rt_pr_close_obj(struct rt_printer *p) { close_(p, '}'); }
void rt_pr_open_arr(struct rt_printer *p, const char *key) { open_(p, key, '['); }
void rt_pr_close_arr(struct rt_printer *p) { close_(p, ']'); }

void rt_pr_u64(struct rt_printer *p, int to, const char *key, const char *fmt, unsigned long long v)
{
	if (p->json && (to & RT_PR_JSON) && key) {
		member(p, key);
		fprintf(p->f, "%llu", v);
	} else if (!p->json && (to & RT_PR_TEXT) && fmt) {
		fprintf(p->f, fmt, v);
	}
}

void rt_pr_dbl(struct rt_printer *p, int to, const char *key, const char *fmt, double v)
{
	if (p->json && (to & RT_PR_JSON) && key) {
		member(p, key);
		fprintf(p->f, "%.17g", isfinite(v) ? v : 0.0);
	} else if (!p->json && (to & RT_PR_TEXT) && fmt) {
		fprintf(p->f, fmt, v);
	}
}

void rt_pr_str(struct rt_printer *p, int to, const char *key, const char *fmt, const char *v)
{
	if (p->json && (to & RT_PR_JSON) && key) {
		member(p, key);
		jstr(p->f, v);
	} else if (!p->json && (to & RT_PR_TEXT) && fmt) {
		fprintf(p->f, fmt, v);
	}
}

void rt_pr_text(struct rt_printer *p, const char *fmt, ...)
{
	va_list ap;

	if (p->json)
		return;
	va_start(ap, fmt);
	vfprintf(p->f, fmt, ap);
	va_end(ap);
}
