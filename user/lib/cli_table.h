/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An option table's types: struct rt_opt (one option: its name, letter,
 * argument, help and group, and what it does: the field it sets, or a small
 * handler) and struct rt_cli (a command: its usage, table and epilog), with
 * the setters that build entries. Only types and inline helpers: the parser
 * (cli.h) and the table's written forms (cli_doc.h) both stand on it.
 */
#ifndef RT_CLI_TABLE_H
#define RT_CLI_TABLE_H

#include <stddef.h>
#include "num.h"

struct rt_opt;

/* What an option does with its argument. */
enum rt_opt_kind {
	RT_OPT_CALL,	/* .fn(ctx, opt, arg), or the parse's on() when .fn is NULL */
	RT_OPT_FLAG,	/* int at .off = 1 */
	RT_OPT_STR,	/* const char * at .off = the argument */
	RT_OPT_REAL,	/* double at .off, rt_parse_num(.num) within [.lo, .hi] */
	RT_OPT_INT,	/* int at .off, rt_parse_num(.num) within [.lo, .hi] */
	RT_OPT_LONG,	/* long at .off, rt_parse_num(.num) within [.lo, .hi] */
	RT_OPT_GROUP,	/* not an option: a heading (.help) and its note (.note) */
	RT_OPT_TEXT,	/* not an option: lines of text (.help) under the option above */
	RT_OPT_HELP,	/* print the command's --help (rt_cli_help) and stop */
};

struct rt_opt {
	int id;			/* the short letter, or a number >= 256 for long-only options */
	const char *name;	/* the long name, without "--" */
	const char *arg;	/* the argument's name; NULL: a flag;
				 * "[=VALUE]": an optional argument, given as --name=VALUE */
	const char *help;	/* its help text; "\n" starts an indented continuation line */
	enum rt_opt_kind kind;
	size_t off;		/* the field it sets, in the parse's ctx */
	int num;		/* how a number is read: enum rt_num_kind (user/lib/num.h) */
	double lo, hi;		/* the range of a number */
	const char *want;	/* a bad value's message ends with it: "give ... " */
	int (*fn)(void *ctx, const struct rt_opt *o, const char *arg);
	const char *values;	/* the values it takes, space separated (completion,
				 * checked by tests/cli/test_options.sh); NULL: free */
	const char *note;	/* RT_OPT_GROUP: said under the heading */
	const char *(*text)(void);	/* RT_OPT_TEXT: its lines, made when first
					 * asked for (instead of .help) */
};

/*
 * The setters. The field's type is checked at compile time: a pointer to the
 * field is compared with a pointer of the kind's type, which the compiler
 * refuses (-Werror) when they differ.
 */
#define RT_OFF(T, f, type)	(offsetof(T, f) + 0 * sizeof((type *)0 == &((T *)0)->f))
#define RT_SET_FLAG(T, f)	.kind = RT_OPT_FLAG, .off = RT_OFF(T, f, int)
#define RT_SET_STR(T, f)	.kind = RT_OPT_STR, .off = RT_OFF(T, f, const char *)
#define RT_SET_REAL(T, f, nk, l, h, w) \
	.kind = RT_OPT_REAL, .off = RT_OFF(T, f, double), .num = (nk), .lo = (l), .hi = (h), .want = (w)
#define RT_SET_INT(T, f, l, h, w) \
	.kind = RT_OPT_INT, .off = RT_OFF(T, f, int), .num = RT_NUM_INT, .lo = (l), .hi = (h), .want = (w)
#define RT_SET_LONG(T, f, l, h, w)	RT_SET_LONG_AS(T, f, RT_NUM_INT, l, h, w)
/* A long from a number of another kind (a real, cut to its whole part) */
#define RT_SET_LONG_AS(T, f, nk, l, h, w) \
	.kind = RT_OPT_LONG, .off = RT_OFF(T, f, long), .num = (nk), .lo = (l), .hi = (h), .want = (w)
#define RT_CALL(f)		.kind = RT_OPT_CALL, .fn = (f)

/* A heading in --help between groups of options (not an option). */
#define RT_OPT_SECTION(title)		{ .kind = RT_OPT_GROUP, .help = (title) }
#define RT_OPT_GROUP_NOTE(title, n)	{ .kind = RT_OPT_GROUP, .help = (title), .note = (n) }
#define RT_OPT_LINES(text)		{ .kind = RT_OPT_TEXT, .help = (text) }
/* Lines a function makes (from another table: a rule's thresholds) */
#define RT_OPT_LINES_OF(fn)		{ .kind = RT_OPT_TEXT, .help = "", .text = (fn) }
#define RT_OPT_END			{ .help = NULL }
/* -h/--help, the same in every command's table */
#define RT_OPT_HELP_ENTRY		{ 'h', "help", NULL, "print this help", .kind = RT_OPT_HELP }

struct rt_cli {
	const char *prog;	/* "rocetop", "rocetop report", ...: for error hints */
	const char *usage;	/* Usage: lines and the paragraph that says what it does */
	const struct rt_opt *opts;	/* ends with RT_OPT_END */
	const char *epilog;	/* examples and notes after the options; may be NULL */
	int width;		/* column where option help starts */
	int long_indent;	/* column of a long-only option (0: 6, under the short ones' "--") */
	const char *who;	/* put before a bad value's message ("doctor: "); may be NULL */
	/* Says that arg is no value for o, in one sentence on stderr; NULL: rocetop's
	 * "--name 'arg' is not valid: <want>." through user/lib/log.h. */
	void (*bad)(const struct rt_cli *c, const struct rt_opt *o, const char *arg);
	const struct rt_opt *more;	/* a second table whose options all go to on(), by
					 * id (rocetop lab hands rocetop's own on to its
					 * view); opts wins a name both have; may be NULL */
};

/* Is this entry an option (not a heading or text)? */
static inline int rt_opt_is_opt(const struct rt_opt *o)
{
	return o->name && o->kind != RT_OPT_GROUP && o->kind != RT_OPT_TEXT;
}

/* An optional argument: written "[=ARG]". */
static inline int rt_opt_optional(const struct rt_opt *o)
{
	return o->arg && o->arg[0] == '[' && o->arg[1] == '=';
}

#endif
