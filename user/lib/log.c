// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "log.h"

int rt_verbosity = RT_LOG_INFO;
static int held;
static char last[256];

void rt_log_hold(int hold)
{
	held = hold;
}

const char *rt_log_last(void)
{
	return last[0] ? last : NULL;
}

/*
 * Messages name files, interfaces and devices, which may come from a hostile
 * file or tree: controls (C0 but newline and tab, DEL,
 * C1 in UTF-8) and bytes that are not UTF-8 are written as '?', so a message
 * cannot drive the terminal. Valid UTF-8 (a file name in another script) stays.
 */
static void tame(char *m)
{
	unsigned char *p = (unsigned char *)m;

	while (*p) {
		size_t n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 :
			   (*p & 0xf8) == 0xf0 ? 4 : 0;
		size_t i;

		if (n == 1) {
			if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
				*p = '?';
			p++;
			continue;
		}
		for (i = 1; n && i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				n = 0;
		/* overlong two-byte forms and C1 controls (U+0080..U+009F) */
		if (n == 2 && (*p < 0xc2 || (*p == 0xc2 && p[1] < 0xa0)))
			n = 0;
		if (!n) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
}

void rt_log(enum rt_log_level level, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	if ((int)level > rt_verbosity)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tame(msg);
	if (held) {
		size_t n = strcspn(msg, "\n");

		if (n >= sizeof(last))
			n = sizeof(last) - 1;
		memcpy(last, msg, n);
		last[n] = '\0';
	} else {
		fputs("rocetop: ", stderr);
		fputs(msg, stderr);
	}
}
