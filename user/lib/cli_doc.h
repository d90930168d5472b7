/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An option table written out (cli_doc.c): --help, and the forms the files
 * made from the table take (the man pages' option lists, the bash
 * completion's, a plain list for tests). tools/gen-options writes them.
 */
#ifndef RT_CLI_DOC_H
#define RT_CLI_DOC_H

#include <stdio.h>
#include "cli_table.h"

/* Write the --help text: usage, the options table, the epilog. */
void rt_cli_help(const struct rt_cli *c, FILE *f);

/*
 * The table in another form, for the files made from it: "help" (--help),
 * "man" (roff for the man page's option list), "bash" (the bash completion's
 * option list) or "list" (one line per option: letter or "-", long name,
 * argument or "-", values). 0, or -EINVAL for an unknown format.
 */
int rt_cli_dump(const struct rt_cli *c, const char *format, FILE *f);

#endif
