/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Command lines as data: each command (rocetop, rocetop report, rocetop lab,
 * rocetop doctor, rocetop-gen) declares its options in one table, which says
 * for each option its name, letter, argument, help and group, and what it
 * does: the field it sets, or a small handler. Parsing (getopt_long), --help,
 * the man page's option lists and the bash completion all come from that
 * table (rocetop --dump-options=FORMAT, user/lib/cli_doc.c), so none of them
 * can disagree with another.
 */
#ifndef RT_CLI_H
#define RT_CLI_H

#include "cli_table.h"

/*
 * Parse argv by the table (getopt_long underneath: options and arguments may
 * mix, "--" ends the options). Each option does what its table entry says;
 * an RT_OPT_CALL without .fn goes to on(ctx, id, arg) (arg NULL for flags).
 * A handler returns 0 to go on, a positive number to stop and have
 * rt_cli_parse return it (--help, --version), or a negative errno after
 * saying what was wrong. An option not in the table gets getopt's message
 * and a hint at --help, and -EINVAL. --dump-options=FORMAT (not in any
 * table) writes the table as FORMAT (rt_cli_dump) and returns 1. On success
 * *first is the index of the first non-option argument.
 */
int rt_cli_parse(const struct rt_cli *c, int argc, char **argv,
		 int (*on)(void *ctx, int id, const char *arg), void *ctx, int *first);

/* The table entry of an option id, or NULL. */
const struct rt_opt *rt_cli_find(const struct rt_opt *opts, int id);

#endif
