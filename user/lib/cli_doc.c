// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An option table written out: its --help, and for the files made from it the man pages'
 * option lists (roff) and the bash completion's (dist/rocetop.bash-completion),
 * and a plain list for tests. tools/gen-options writes them into those files
 * between their "generated" markers; tests/cli/test_options.sh checks that
 * the committed files hold exactly what the tables say.
 */
#include <errno.h>
#include <string.h>
#include "cli_doc.h"

/* The lines of an RT_OPT_TEXT entry. */
static const char *text_of(const struct rt_opt *o)
{
	return o->text ? o->text() : o->help;
}

/* One option's lines: "  -x, --name ARG" then its help at the column. */
static void help_opt(const struct rt_cli *c, const struct rt_opt *o, FILE *f)
{
	const char *h, *nl, *sep = o->arg && !rt_opt_optional(o) ? " " : "";
	char left[96];
	int n;

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

void rt_cli_help(const struct rt_cli *c, FILE *f)
{
	const struct rt_opt *o;

	fputs(c->usage, f);
	for (o = c->opts; o->help; o++) {
		if (o->kind == RT_OPT_GROUP && o->note)
			fprintf(f, "%s (%s):\n", o->help, o->note);
		else if (o->kind == RT_OPT_GROUP)
			fprintf(f, "%s:\n", o->help);
		else if (o->kind == RT_OPT_TEXT)
			fputs(text_of(o), f);
		else
			help_opt(c, o, f);
	}
	if (c->epilog)
		fputs(c->epilog, f);
}


static int short_opt(const struct rt_opt *o)
{
	return o->id > 0 && o->id < 256;
}

/* Text for roff: backslashes and dashes escaped, no line starting a request. */
static void roff(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i == 0 && (s[i] == '.' || s[i] == '\''))
			fputs("\\&", f);
		if (s[i] == '\\')
			fputs("\\e", f);
		else if (s[i] == '-')
			fputs("\\-", f);
		else
			fputc(s[i], f);
	}
}

static void roff_str(FILE *f, const char *s)
{
	roff(f, s, strlen(s));
}

/*
 * Help text as a sentence: its lines joined, a capital first and a full stop
 * last; from the first indented line on (a list, as in --scenario's), the
 * lines as --help shows them.
 */
static void man_text(FILE *f, const char *h)
{
	const char *nl, *end;
	int literal = 0;

	for (const char *start = h; *h; h = nl + 1) {
		nl = strchr(h, '\n');
		end = nl ? nl : h + strlen(h);
		if (*h == ' ' && !literal) {
			fputs(".nf\n", f);
			literal = 1;
		}
		if (h == start && *h >= 'a' && *h <= 'z') {
			fputc(*h - 'a' + 'A', f);
			roff(f, h + 1, (size_t)(end - h - 1));
		} else {
			roff(f, h, (size_t)(end - h));
		}
		/* the last line of the sentence: the text's, or the one before a list */
		if (!literal && end > h && !strchr(".:", end[-1]) && (!nl || nl[1] == ' '))
			fputc('.', f);
		fputc('\n', f);
		if (!nl)
			break;
	}
	if (literal)
		fputs(".fi\n", f);
}

/* A group's note as a sentence: capital first, a full stop last. */
static void man_note(FILE *f, const char *n)
{
	char first[2] = { n[0] >= 'a' && n[0] <= 'z' ? (char)(n[0] - 'a' + 'A') : n[0], 0 };

	fputs(first, f);
	for (n++; *n; n++) {
		if (*n == '\n')
			fputc(' ', f);
		else
			roff(f, n, 1);
	}
	fputs(".\n", f);
}

static void man_opt(FILE *f, const struct rt_opt *o)
{
	fputs(".TP\n", f);
	if (short_opt(o))
		fprintf(f, "\\fB\\-%c\\fR, ", o->id);
	fputs("\\fB\\-\\-", f);
	roff_str(f, o->name);
	fputs("\\fR", f);
	if (o->arg) {
		fputs(o->arg[0] == '[' && o->arg[1] == '=' ? "\\fI" : " \\fI", f);
		roff_str(f, o->arg);
		fputs("\\fR", f);
	}
	fputc('\n', f);
	man_text(f, o->help);
}

static void dump_man(const struct rt_cli *c, FILE *f)
{
	const struct rt_opt *o;

	for (o = c->opts; o->help; o++) {
		if (o->kind == RT_OPT_GROUP) {
			fputs(".SS ", f);
			roff_str(f, o->help);
			fputc('\n', f);
			if (o->note)
				man_note(f, o->note);
		} else if (o->kind == RT_OPT_TEXT) {
			fputs(".IP\n", f);
			man_text(f, text_of(o));
		} else if (rt_opt_is_opt(o)) {
			man_opt(f, o);
		}
	}
}

/* "rocetop report" -> "rocetop_report", "rocetop-gen" -> "rocetop_gen" */
static void bash_name(FILE *f, const char *prog)
{
	for (; *prog; prog++)
		fputc(*prog == ' ' || *prog == '-' ? '_' : *prog, f);
}

static void dump_bash(const struct rt_cli *c, FILE *f)
{
	const struct rt_opt *o;

	fputs("_rocetop_opts_", f);
	bash_name(f, c->prog);
	fputs("=(\n", f);
	for (o = c->opts; o->help; o++) {
		if (!rt_opt_is_opt(o))
			continue;
		if (short_opt(o))
			fprintf(f, "\t'-%c --%s %s%s%s'\n", o->id, o->name, o->arg ? o->arg : "-",
				o->values ? " " : "", o->values ? o->values : "");
		else
			fprintf(f, "\t'- --%s %s%s%s'\n", o->name, o->arg ? o->arg : "-",
				o->values ? " " : "", o->values ? o->values : "");
	}
	fputs(")\n", f);
}

static void dump_list(const struct rt_cli *c, FILE *f)
{
	const struct rt_opt *o;

	for (o = c->opts; o->help; o++) {
		if (!rt_opt_is_opt(o))
			continue;
		if (short_opt(o))
			fprintf(f, "-%c", o->id);
		else
			fputc('-', f);
		fprintf(f, "\t--%s\t%s\t%s\n", o->name, o->arg ? o->arg : "-", o->values ? o->values : "");
	}
}

int rt_cli_dump(const struct rt_cli *c, const char *format, FILE *f)
{
	if (!strcmp(format, "help"))
		rt_cli_help(c, f);
	else if (!strcmp(format, "man"))
		dump_man(c, f);
	else if (!strcmp(format, "bash"))
		dump_bash(c, f);
	else if (!strcmp(format, "list"))
		dump_list(c, f);
	else
		return -EINVAL;
	return 0;
}
