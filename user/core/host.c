// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * This host's name and kernel and the run's command line, as recordings,
 * the CSV output and the flight recorder name them (host.h): one word for
 * the name and one line for the command line, so a header line or a
 * report's column holds each whole.
 */
#include <stdio.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "host.h"

const char *rt_host_kernel(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%s %s %s", u.sysname, u.release, u.machine);
	return buf;
}

/* The machine's name for a header: the multi-host report names lines by it. */
const char *rt_host_name(const char *given, char *buf, size_t len)
{
	size_t i;

	if (given && given[0])
		snprintf(buf, len, "%s", given);
	else if (gethostname(buf, len) || !buf[0])
		snprintf(buf, len, "unknown");
	buf[len - 1] = '\0';
	/* One word on one line. */
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] <= ' ' || buf[i] == 0x7f)
			buf[i] = '_';
	return buf;
}

const char *rt_host_options(char *buf, size_t len, int n, char *const args[])
{
	size_t k = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? " " : "", args[i]);
	/* one line of printable text */
	for (k = 0; buf[k]; k++)
		if ((unsigned char)buf[k] < 0x20 || buf[k] == 0x7f)
			buf[k] = '?';
	return buf;
}
