// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The exposition's writing, shared by the renderer's files (prom_render.c,
 * prom_iface.c, prom_findings.c, prom_sflow.c, prom_self_render.c,
 * prom_probe.c): a growing buffer for each of the two documents, a family's
 * HELP, TYPE and UNIT lines, sample lines, and label values escaped as the
 * text format 0.0.4 and OpenMetrics 1.0 want them. No I/O.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prom_out.h"
#include "table.h"

static void sb_vprintf(struct sb *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	if (b->err)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_copy(aq, ap);
		n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, aq);
		va_end(aq);
		if (n < 0) {
			b->err = -EINVAL;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 16384;
		while (cap - b->len <= (size_t)n)
			cap *= 2;
		if (rt_grow_to((void **)&b->p, &b->cap, cap, 1)) {
			b->err = -ENOMEM;
			return;
		}
	}
}

void prom_printf(struct sb *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

/* A family's HELP, TYPE (and UNIT). name is the family name without _total/_info. */
void prom_family(struct out *w, const char *name, enum mtype type, const char *unit, const char *help)
{
	static const char *const tname[] = { "counter", "gauge", "info" };
	static const char *const suffix[] = { "_total", "", "_info" };

	/* text 0.0.4: named as the samples are; no info type there */
	prom_printf(&w->t, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, suffix[type], help, name,
		  suffix[type], type == M_INFO ? "gauge" : tname[type]);
	prom_printf(&w->o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, tname[type]);
	if (unit)
		prom_printf(&w->o, "# UNIT %s %s\n", name, unit);
}

/* A sample line, the same in both formats. labels: already escaped, "" for none. */
void prom_sample_u(struct out *w, const char *name, enum mtype type, const char *labels, __u64 v)
{
	static const char *const suffix[] = { "_total", "", "_info" };
	const char *ob = *labels ? "{" : "", *cb = *labels ? "}" : "";

	prom_printf(&w->t, "%s%s%s%s%s %llu\n", name, suffix[type], ob, labels, cb, (unsigned long long)v);
	prom_printf(&w->o, "%s%s%s%s%s %llu\n", name, suffix[type], ob, labels, cb, (unsigned long long)v);
}

/* The shortest decimal that reads back as the same double. */
static void fmt_double(double v, char *buf, size_t len)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

void prom_sample_d(struct out *w, const char *name, enum mtype type, const char *labels, double v)
{
	static const char *const suffix[] = { "_total", "", "_info" };
	const char *ob = *labels ? "{" : "", *cb = *labels ? "}" : "";
	char num[40];

	fmt_double(v, num, sizeof(num));
	prom_printf(&w->t, "%s%s%s%s%s %s\n", name, suffix[type], ob, labels, cb, num);
	prom_printf(&w->o, "%s%s%s%s%s %s\n", name, suffix[type], ob, labels, cb, num);
}

/* A label value as the exposition formats want it: \\, \" and \n escaped. */
void prom_esc(const char *s, char *buf, size_t len)
{
	size_t j = 0;

	for (; *s && j + 3 < len; s++) {
		if (*s == '\\' || *s == '"') {
			buf[j++] = '\\';
			buf[j++] = *s;
		} else if (*s == '\n') {
			buf[j++] = '\\';
			buf[j++] = 'n';
		} else {
			buf[j++] = *s;
		}
	}
	buf[j] = 0;
}

/* Append `,name="value"` (or without the comma at the start) to a label set. */
void prom_label(char *set, size_t len, const char *name, const char *value)
{
	char e[256];
	size_t n = strlen(set);

	prom_esc(value, e, sizeof(e));
	snprintf(set + n, len - n, "%s%s=\"%s\"", n ? "," : "", name, e);
}
