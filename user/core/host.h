/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * This host and run as rocetop's outputs name them: the machine's name
 * (--hostname, else gethostname(), as one word), its kernel (sysname, release
 * and machine) and the command line, on one line. Recordings carry them in
 * their header (record.h), the CSV output in its meta file
 * (user/sinks/csv.c), the flight recorder in its files; the multi-host
 * report names lines by the host.
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
/* The n words of args joined by spaces, as far as len allows, control bytes
 * made '?' (one line of printable text). Returns buf. */
const char *rt_host_options(char *buf, size_t len, int n, char *const args[]);

#endif
