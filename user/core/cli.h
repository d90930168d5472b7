/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Command lines as data: each command (rocetop, rocetop report, rocetop lab)
 * declares its options in one table, and both its --help text and its
 * parsing come from that table, so the two cannot disagree.
 */
#ifndef RT_CLI_H
#define RT_CLI_H

#include <stdio.h>

struct rt_opt {
	int id;			/* the short letter, or a number >= 256 for long-only options */
	const char *name;	/* the long name, without "--" */
	const char *arg;	/* the argument's name in --help; NULL: a flag;
				 * "[=VALUE]": an optional argument, given as --name=VALUE */
	const char *help;	/* its --help text; "\n" starts an indented continuation line */
};

/* A heading in --help between groups of options (not an option). */
#define RT_OPT_SECTION(title)	{ 0, NULL, NULL, title }
#define RT_OPT_END		{ 0, NULL, NULL, NULL }

struct rt_cli {
	const char *prog;	/* "rocetop", "rocetop report", ...: for error hints */
	const char *usage;	/* Usage: lines and the paragraph that says what it does */
	const struct rt_opt *opts;	/* ends with RT_OPT_END */
	const char *epilog;	/* examples and notes after the options; may be NULL */
	int width;		/* column where option help starts */
	int long_indent;	/* column of a long-only option (0: 6, under the short ones' "--") */
};

/* Write the --help text: usage, the options table, the epilog. */
void rt_cli_help(const struct rt_cli *c, FILE *f);

/*
 * Parse argv by the table (getopt_long underneath: options and arguments may
 * mix, "--" ends the options). on() is called for each option with its id
 * and argument (NULL for flags); it returns 0 to go on, a positive number to
 * stop and have rt_cli_parse return it (--help, --version), or a negative
 * errno after saying what was wrong. An option not in the table gets
 * getopt's message and a hint at --help, and -EINVAL. On success *first is
 * the index of the first non-option argument.
 */
int rt_cli_parse(const struct rt_cli *c, int argc, char **argv,
		 int (*on)(void *ctx, int id, const char *arg), void *ctx, int *first);

/* The table entry of an option id, or NULL. */
const struct rt_opt *rt_cli_find(const struct rt_opt *opts, int id);

#endif
