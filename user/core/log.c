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

void rt_log(enum rt_log_level level, const char *fmt, ...)
{
	va_list ap;

	if ((int)level > rt_verbosity)
		return;
	va_start(ap, fmt);
	if (held) {
		vsnprintf(last, sizeof(last), fmt, ap);
		last[strcspn(last, "\n")] = '\0';
	} else {
		fputs("rocetop: ", stderr);
		vfprintf(stderr, fmt, ap);
	}
	va_end(ap);
}
