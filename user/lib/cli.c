// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Option tables into getopt_long's arrays and into the fields they set
 * (their text: --help and the files made from them, cli_doc.c). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_doc.h"
#include "log.h"
#include "num.h"

#define MAX_OPTS 128
#define DUMP_ID 0x7fff	/* getopt's value for --dump-options */

const struct rt_opt *rt_cli_find(const struct rt_opt *opts, int id)
{
	for (; opts && opts->help; opts++)
		if (rt_opt_is_opt(opts) && opts->id == id)
			return opts;
	return NULL;
}

static void bad_value(const struct rt_cli *c, const struct rt_opt *o, const char *arg)
{
	if (c->bad)
		c->bad(c, o, arg);
	else
		pr_warn("%s--%s '%s' is not valid: %s.\n", c->who ? c->who : "", o->name, arg, o->want);
}

/* Do what the entry says with arg: 0, a positive stop, or -EINVAL. */
static int apply(const struct rt_cli *c, const struct rt_opt *o, const char *arg, void *ctx,
		 int (*on)(void *ctx, int id, const char *arg))
{
	char *field = (char *)ctx + o->off;
	double v;

	switch (o->kind) {
	case RT_OPT_FLAG:
		*(int *)field = 1;
		return 0;
	case RT_OPT_STR:
		*(const char **)field = arg;
		return 0;
	case RT_OPT_REAL:
		if (!rt_parse_num(arg, o->num, o->lo, o->hi, (double *)field))
			return 0;
		break;
	case RT_OPT_INT:
	case RT_OPT_LONG:
		if (rt_parse_num(arg, o->num, o->lo, o->hi, &v))
			break;
		if (o->kind == RT_OPT_INT)
			*(int *)field = (int)v;
		else
			*(long *)field = (long)v;
		return 0;
	case RT_OPT_HELP:
		rt_cli_help(c, stdout);
		return 1;
	default:
		if (o->fn)
			return o->fn(ctx, o, arg);
		return on ? on(ctx, o->id, arg) : -EINVAL;
	}
	bad_value(c, o, arg);
	return -EINVAL;
}

/* An id or a name twice in one table is a bug of the table: said, and no parse. */
static int twice(const struct rt_opt *table, const struct rt_opt *t)
{
	for (const struct rt_opt *p = table; p < t; p++) {
		if (rt_opt_is_opt(p) && (p->id == t->id || !strcmp(p->name, t->name))) {
			pr_warn("the option table has --%s and --%s under one id or name.\n", p->name, t->name);
			return 1;
		}
	}
	return 0;
}

static int add_opts(const struct rt_opt *table, struct option *lo, size_t *n, char *so, size_t *s)
{
	for (const struct rt_opt *t = table; t && t->help; t++) {
		if (!rt_opt_is_opt(t))
			continue;
		if (*n == MAX_OPTS || twice(table, t))
			return -E2BIG;
		lo[*n].name = t->name;
		lo[*n].has_arg = !t->arg ? no_argument : rt_opt_optional(t) ? optional_argument : required_argument;
		lo[*n].flag = NULL;
		lo[*n].val = t->id;
		(*n)++;
		if (t->id > 0 && t->id < 256 && !strchr(so, t->id)) {
			so[(*s)++] = (char)t->id;
			if (t->arg)
				so[(*s)++] = ':';
			if (rt_opt_optional(t))
				so[(*s)++] = ':';
			so[*s] = '\0';
		}
	}
	return 0;
}

static int in_table(const struct rt_opt *t, const struct rt_opt *o)
{
	for (; t->help; t++)
		if (t == o)
			return 1;
	return 0;
}

/* The entry getopt_long matched: by its index for a long option (two tables
 * may share an id), else by the letter. */
static const struct rt_opt *matched(const struct rt_cli *c, const struct option *lo, int li, int id)
{
	const struct rt_opt *o;

	if (li >= 0) {
		for (o = c->opts; o->help; o++)
			if (rt_opt_is_opt(o) && !strcmp(o->name, lo[li].name))
				return o;
		for (o = c->more; o && o->help; o++)
			if (rt_opt_is_opt(o) && !strcmp(o->name, lo[li].name))
				return o;
	}
	o = rt_cli_find(c->opts, id);
	return o ? o : rt_cli_find(c->more, id);
}

int rt_cli_parse(const struct rt_cli *c, int argc, char **argv,
		 int (*on)(void *ctx, int id, const char *arg), void *ctx, int *first)
{
	struct option lo[MAX_OPTS + 2];
	char so[3 * MAX_OPTS + 2] = "";
	const struct rt_opt *o;
	size_t n = 0, s = 0;
	int id, r, li;

	if (add_opts(c->opts, lo, &n, so, &s) || add_opts(c->more, lo, &n, so, &s))
		return -E2BIG;
	lo[n++] = (struct option){ "dump-options", required_argument, NULL, DUMP_ID };
	memset(&lo[n], 0, sizeof(lo[n]));
	optind = 1;
	while ((li = -1, id = getopt_long(argc, argv, so, lo, &li)) != -1) {
		if (id == '?' || id == ':') {
			fprintf(stderr, "Try '%s --help' for the options.\n", c->prog);
			return -EINVAL;
		}
		if (id == DUMP_ID) {
			if (rt_cli_dump(c, optarg, stdout)) {
				pr_warn("--dump-options '%s' is not valid: use help, man, bash or list.\n", optarg);
				return -EINVAL;
			}
			return 1;
		}
		o = matched(c, lo, li, id);
		if (!o)
			return -EINVAL;
		/* rocetop lab hands the options of its second table on, as they are */
		if (in_table(c->opts, o))
			r = apply(c, o, optarg, ctx, on);
		else
			r = on ? on(ctx, o->id, optarg) : -EINVAL;
		if (r)
			return r;
	}
	if (first)
		*first = optind;
	return 0;
}
