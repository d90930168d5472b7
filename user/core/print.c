// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
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

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if it is not one. */
static int utf8_len(const unsigned char *s)
{
	unsigned int cp;
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* A JSON string: quotes, backslashes and controls escaped, and a byte that
 * is not valid UTF-8 (a file's or a file name's) as U+FFFD. */
void rt_pr_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		int n = utf8_len(p);

		if (!n) {
			fputs("\\ufffd", f);
			p++;
		} else if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p++);
		} else {
			fwrite(p, 1, (size_t)n, f);
			p += n;
		}
	}
	fputc('"', f);
}

/* The same JSON string into buf (quotes included), cut at a whole character
 * when it does not fit; for text built before it is printed. */
const char *rt_pr_json_str(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	if (len < 3)
		return "\"\"";
	buf[n++] = '"';
	while (*p) {
		int k = utf8_len(p);
		size_t need = !k || *p < 0x20 || *p == 0x7f ? 6 : *p == '"' || *p == '\\' ? 2 : (size_t)k;

		if (n + need + 2 > len)
			break;
		if (!k) {
			memcpy(buf + n, "\\ufffd", 6);
			p++;
		} else if (*p == '"' || *p == '\\') {
			buf[n] = '\\';
			buf[n + 1] = (char)*p++;
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(buf + n, 7, "\\u%04x", *p++);
		} else {
			memcpy(buf + n, p, (size_t)k);
			p += k;
		}
		n += need;
	}
	buf[n++] = '"';
	buf[n] = '\0';
	return buf;
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
		rt_pr_json_string(p->f, key);
		fputc(':', p->f);
	}
}

void rt_pr_mute(struct rt_printer *p, int to)
{
	p->mute = to;
}

/* What a call's `to` reaches once the muted output is left out. */
static int to_(const struct rt_printer *p, int to)
{
	return to & ~p->mute;
}

static void open_(struct rt_printer *p, const char *key, char c)
{
	if (!p->json || (p->mute & RT_PR_JSON))
		return;
	member(p, key);
	fputc(c, p->f);
	if (p->depth < RT_PR_DEPTH)
		p->first[p->depth] = 1;
	p->depth++;
}

static void close_(struct rt_printer *p, char c)
{
	if (!p->json || (p->mute & RT_PR_JSON))
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

void rt_pr_inside(struct rt_printer *p)
{
	p->depth = 1;
	p->first[0] = 0;
}

void rt_pr_open_obj(struct rt_printer *p, const char *key) { open_(p, key, '{'); }
void rt_pr_close_obj(struct rt_printer *p) { close_(p, '}'); }
void rt_pr_open_arr(struct rt_printer *p, const char *key) { open_(p, key, '['); }
void rt_pr_close_arr(struct rt_printer *p) { close_(p, ']'); }

void rt_pr_u64(struct rt_printer *p, int to, const char *key, const char *fmt, unsigned long long v)
{
	to = to_(p, to);
	if (p->json && (to & RT_PR_JSON)) {
		member(p, key);
		fprintf(p->f, "%llu", v);
	} else if (!p->json && (to & RT_PR_TEXT) && fmt) {
		fprintf(p->f, fmt, v);
	}
}

void rt_pr_dbl(struct rt_printer *p, int to, const char *key, const char *fmt, double v)
{
	to = to_(p, to);
	if (p->json && (to & RT_PR_JSON)) {
		member(p, key);
		fprintf(p->f, "%.17g", isfinite(v) ? v : 0.0);
	} else if (!p->json && (to & RT_PR_TEXT) && fmt) {
		fprintf(p->f, fmt, v);
	}
}

void rt_pr_str(struct rt_printer *p, int to, const char *key, const char *fmt, const char *v)
{
	to = to_(p, to);
	if (p->json && (to & RT_PR_JSON)) {
		member(p, key);
		rt_pr_json_string(p->f, v);
	} else if (!p->json && (to & RT_PR_TEXT) && fmt) {
		/* Text is for a terminal: printable ASCII only (names come from files). */
		size_t n = strlen(v) + 1;
		char buf[512], *safe = n <= sizeof(buf) ? buf : malloc(n);

		fprintf(p->f, fmt, safe ? rt_fmt_safe(v, safe, n) : "?");
		if (safe != buf)
			free(safe);
	}
}

void rt_pr_bool(struct rt_printer *p, int to, const char *key, const char *fmt, int v)
{
	to = to_(p, to);
	if (p->json && (to & RT_PR_JSON)) {
		member(p, key);
		fputs(v ? "true" : "false", p->f);
	} else if (!p->json && (to & RT_PR_TEXT) && fmt) {
		fputs(v ? fmt : "", p->f);
	}
}

void rt_pr_json_raw(struct rt_printer *p, const char *key, const char *json)
{
	if (!p->json || (p->mute & RT_PR_JSON))
		return;
	member(p, key);
	fputs(json, p->f);
}

void rt_pr_share(struct rt_printer *p, const char *key, const char *fmt, double v)
{
	char t[16] = "-";

	if (isnan(v)) {
		rt_pr_json_raw(p, key, "null");
	} else {
		rt_pr_dbl(p, RT_PR_JSON, key, NULL, v);
		rt_fmt_share(v, t, sizeof(t));
	}
	rt_pr_str(p, RT_PR_TEXT, NULL, fmt, t);
}

void rt_pr_text(struct rt_printer *p, const char *fmt, ...)
{
	va_list ap;

	if (p->json || (p->mute & RT_PR_TEXT))
		return;
	va_start(ap, fmt);
	vfprintf(p->f, fmt, ap);
	va_end(ap);
}
