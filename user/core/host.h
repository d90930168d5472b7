/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * This host as rocetop's outputs name it: the machine's name (--hostname,
 * else gethostname(), as one word) and its kernel (sysname, release and
 * machine). Recordings carry both in their header (record.h), the CSV
 * output in its meta file (user/sinks/csv.c), the flight recorder in its
 * files; the multi-host report names lines by the host.
 */
#ifndef RT_HOST_H
#define RT_HOST_H

#include <stddef.h>

/* The name recorded: the given one, else gethostname(), as one word ("unknown"
 * when there is none). Returns buf. */
const char *rt_host_name(const char *given, char *buf, size_t len);
/* This host's kernel, "SYSNAME RELEASE MACHINE" ("unknown" when uname fails).
 * Returns buf. */
const char *rt_host_kernel(char *buf, size_t len);

#endif
