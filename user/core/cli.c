// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Option tables into --help text and into getopt_long's arrays. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define MAX_OPTS 96

const struct rt_opt *rt_cli_find(const struct rt_opt *opts, int id)
{
	for (; opts->help; opts++)
		if (opts->name && opts->id == id)
			return opts;
	return NULL;
}

static int optional(const struct rt_opt *o)
{
	return o->arg && o->arg[0] == '[' && o->arg[1] == '=';
}

void rt_cli_help(const struct rt_cli *c, FILE *f)
{
	const struct rt_opt *o;

	fputs(c->usage, f);
	for (o = c->opts; o->help; o++) {
		char left[96];
		const char *h, *nl, *sep;
		int n;

		if (!o->name) {	/* a heading, or a block of text ending in a newline */
			fprintf(f, "%s%s", o->help, o->help[0] && o->help[strlen(o->help) - 1] == '\n' ? "" : "\n");
			continue;
		}
		sep = o->arg && !optional(o) ? " " : "";
		if (o->id > 0 && o->id < 256)
			n = snprintf(left, sizeof(left), "  -%c, --%s%s%s", o->id, o->name, sep,
				     o->arg ? o->arg : "");
		else
			n = snprintf(left, sizeof(left), "%*s--%s%s%s", c->long_indent ? c->long_indent : 6, "",
				     o->name, sep, o->arg ? o->arg : "");
		/* The text starts at the column, or two spaces after a long left part. */
		fprintf(f, "%s%*s", left, n <= c->width - 2 ? c->width - n : 2, "");
		for (h = o->help; (nl = strchr(h, '\n')); h = nl + 1)
			fprintf(f, "%.*s\n%*s", (int)(nl - h), h, c->width, "");
		fprintf(f, "%s\n", h);
	}
	if (c->epilog)
		fputs(c->epilog, f);
}

int rt_cli_parse(const struct rt_cli *c, int argc, char **argv,
		 int (*on)(void *ctx, int id, const char *arg), void *ctx, int *first)
{
	struct option lo[MAX_OPTS + 1];
	char so[2 * MAX_OPTS + 2];
	const struct rt_opt *o;
	size_t n = 0, s = 0;
	int id, r;

	for (o = c->opts; o->help; o++) {
		if (!o->name)
			continue;
		if (n == MAX_OPTS)
			return -E2BIG;
		lo[n].name = o->name;
		lo[n].has_arg = !o->arg ? no_argument : optional(o) ? optional_argument : required_argument;
		lo[n].flag = NULL;
		lo[n].val = o->id;
		n++;
		if (o->id > 0 && o->id < 256) {
			so[s++] = (char)o->id;
			if (o->arg)
				so[s++] = ':';
			if (optional(o))
				so[s++] = ':';
		}
	}
	memset(&lo[n], 0, sizeof(lo[n]));
	so[s] = '\0';
	optind = 1;
	while ((id = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (id == '?' || id == ':') {
			fprintf(stderr, "Try '%s --help' for the options.\n", c->prog);
			return -EINVAL;
		}
		r = on(ctx, id, optarg);
		if (r)
			return r;
	}
	if (first)
		*first = optind;
	return 0;
}
