// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The one printing layer (user/core/print.c) and the option tables
 * (user/lib/cli_doc.c): the same calls give the text and the JSON written out
 * by hand below; --help comes from the table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cli.h"
#include "cli_doc.h"
#include "fmt.h"
#include "log.h"
#include "print.h"

/* What body prints, as text (json 0) or JSON. */
static char *render(int json, void (*body)(struct rt_printer *p))
{
	struct rt_printer p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	rt_pr_init(&p, f, json);
	rt_pr_start(&p);
	body(&p);
	rt_pr_end(&p);
	fclose(f);
	return buf;
}

/* body prints text as text, and json as JSON. */
static void check_render(void (*body)(struct rt_printer *p), const char *text, const char *json)
{
	char *t = render(0, body), *j = render(1, body);

	CHECK(!strcmp(t, text), "text: [%s]", t);
	CHECK(!strcmp(j, json), "json: [%s]", j);
	free(t);
	free(j);
}

static void rows_body(struct rt_printer *p)
{
	rt_pr_str(p, RT_PR_ANY, "file", "report: %s\n", "a \"b\".pcap");
	rt_pr_open_arr(p, "rows");
	rt_pr_text(p, "%-4s %6s\n", "IF", "PKTS");
	for (int i = 0; i < 2; i++) {
		rt_pr_open_obj(p, NULL);
		rt_pr_str(p, RT_PR_ANY, "ifname", "%-4s", i ? "eth1" : "eth0");
		rt_pr_u64(p, RT_PR_ANY, "pkts", " %6llu\n", 10ULL * (i + 1));
		rt_pr_dbl(p, RT_PR_JSON, "ce_pct", NULL, i ? 0.5 : 1.0 / 0.0);
		rt_pr_close_obj(p);
	}
	rt_pr_close_arr(p);
	rt_pr_open_obj(p, "empty");
	rt_pr_close_obj(p);
}

static void test_printer(void)
{
	/* non-finite numbers become 0; quotes escaped; compact, one line */
	check_render(rows_body, "report: a \"b\".pcap\nIF     PKTS\neth0     10\neth1     20\n",
		     "{\"file\":\"a \\\"b\\\".pcap\",\"rows\":[{\"ifname\":\"eth0\",\"pkts\":10,\"ce_pct\":0},"
		     "{\"ifname\":\"eth1\",\"pkts\":20,\"ce_pct\":0.5}],\"empty\":{}}\n");
	TEST_END("print_text_and_json");
}

/* A section only one output shows (rt_pr_mute), and JSON made elsewhere (rt_pr_json_raw). */
static void mute_body(struct rt_printer *p)
{
	rt_pr_mute(p, RT_PR_TEXT);
	rt_pr_open_arr(p, "findings");
	rt_pr_text(p, "Findings\n");
	rt_pr_open_obj(p, NULL);
	rt_pr_json_raw(p, "subject", "{\"prio\":3}");
	rt_pr_str(p, RT_PR_ANY, "rule", "  %s\n", "victim");
	rt_pr_close_obj(p);
	rt_pr_close_arr(p);
	rt_pr_mute(p, RT_PR_JSON);
	rt_pr_u64(p, RT_PR_ANY, "left", "left %llu\n", 2ULL);
	rt_pr_open_obj(p, "skipped");
	rt_pr_close_obj(p);
	rt_pr_mute(p, 0);
	rt_pr_u64(p, RT_PR_ANY, "n", "n %llu\n", 1ULL);
}

static void test_mute(void)
{
	check_render(mute_body, "left 2\nn 1\n",
		     "{\"findings\":[{\"subject\":{\"prio\":3},\"rule\":\"victim\"}],\"n\":1}\n");
	TEST_END("print_mute_and_raw");
}

enum { O_LONG = 300 };

struct seen {
	int a, flag, lng, n;
	const char *aval;
};

static const struct rt_opt opts[] = {
	RT_OPT_SECTION("Things"),
	{ 'a', "alpha", "N", "the alpha\ncontinued", .kind = RT_OPT_CALL },
	{ O_LONG, "a-very-long-option-name", "VALUE", "past the column", .kind = RT_OPT_CALL },
	{ 'f', "flag", NULL, "a flag", RT_SET_FLAG(struct seen, flag) },
	{ 'n', "num", "N", "a number", RT_SET_INT(struct seen, n, 1, 5, "give 1 to 5"), .values = "1 5" },
	RT_OPT_END,
};

static const struct rt_cli cli = { .prog = "prog", .usage = "Usage: prog [options]\n", .opts = opts,
				   .epilog = "Bye.\n", .width = 20 };

static int on(void *ctx, int id, const char *arg)
{
	struct seen *s = ctx;

	if (id == 'a') {
		s->a++;
		s->aval = arg;
	} else if (id == O_LONG) {
		s->lng++;
	}
	return 0;
}

static void test_cli(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char *argv[] = { "prog", "file1", "-a", "7", "--flag", "--a-very-long-option-name", "x", "file2", NULL };
	struct seen s = { 0 };
	int first = -1, err;

	rt_cli_help(&cli, f);
	fclose(f);
	CHECK(!strcmp(buf, "Usage: prog [options]\n"
			   "Things:\n"
			   "  -a, --alpha N     the alpha\n"
			   "                    continued\n"
			   "      --a-very-long-option-name VALUE  past the column\n"
			   "  -f, --flag        a flag\n"
			   "  -n, --num N       a number\n"
			   "Bye.\n"), "help: [%s]", buf);
	free(buf);
	err = rt_cli_parse(&cli, 8, argv, on, &s, &first);
	CHECK_EQ(err, 0);
	CHECK(s.a == 1 && s.aval && !strcmp(s.aval, "7") && s.flag == 1 && s.lng == 1, "options seen");
	/* getopt moves the arguments after the options */
	CHECK(first == 6 && !strcmp(argv[6], "file1") && !strcmp(argv[7], "file2"), "arguments at %d", first);
	CHECK(rt_cli_find(opts, O_LONG) == &opts[2], "find");
	CHECK(rt_cli_find(opts, 'z') == NULL, "find none");
	/* a field set from the table, and a value out of its range */
	{
		char *ok[] = { "prog", "-n", "4", NULL }, *no[] = { "prog", "--num=6", NULL };

		err = rt_cli_parse(&cli, 3, ok, on, &s, &first);
		CHECK(err == 0 && s.n == 4, "--num 4: %d, n %d", err, s.n);
		err = rt_cli_parse(&cli, 2, no, on, &s, &first);
		CHECK(err == -EINVAL && s.n == 4, "--num=6: %d, n %d", err, s.n);
	}
	/* two rows under one id: the table is refused, nothing parsed */
	{
		static const struct rt_opt dup[] = {
			{ 'a', "alpha", NULL, "one", .kind = RT_OPT_CALL },
			{ 'a', "again", NULL, "two", .kind = RT_OPT_CALL },
			RT_OPT_END,
		};
		struct rt_cli dc = cli;
		char *argv2[] = { "prog", NULL };

		dc.opts = dup;
		s.a = 0;
		rt_log_hold(1);
		err = rt_cli_parse(&dc, 1, argv2, on, &s, &first);
		rt_log_hold(0);
		CHECK(err == -E2BIG && s.a == 0, "a duplicate id: %d", err);
	}
	buf = NULL;
	f = open_memstream(&buf, &len);
	rt_cli_dump(&cli, "list", f);
	fclose(f);
	CHECK(!strcmp(buf, "-a\t--alpha\tN\t\n-\t--a-very-long-option-name\tVALUE\t\n"
			   "-f\t--flag\t-\t\n-n\t--num\tN\t1 5\n"), "list: [%s]", buf);
	free(buf);
	TEST_END("cli_table");
}

/* A duration, one way (rt_fmt_dur): three significant digits and a unit,
 * whole seconds from 1000 s; the expected strings written out by hand. */
static void test_duration(void)
{
	static const struct { double secs; const char *want; } c[] = {
		{ 0, "0 s" }, { -1, "0 s" }, { 604800, "604800 s" }, { 999.4, "999 s" }, { 999.6, "1000 s" },
		{ 14, "14.0 s" }, { 1.5, "1.50 s" }, { 1, "1.00 s" }, { 0.5, "500 ms" },
		{ 0.3355392, "336 ms" }, { 0.00336, "3.36 ms" }, { 0.0000839, "83.9 us" },
		{ 5.12e-9, "5.12 ns" }, { 1e-12, "0.00 ns" },
	};
	char buf[24];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		CHECK(!strcmp(rt_fmt_dur(c[i].secs, buf, sizeof(buf)), c[i].want), "%g s: '%s', want '%s'",
		      c[i].secs, buf, c[i].want);
	CHECK(!strcmp(RT_DUR(0.25), "250 ms"), "RT_DUR(0.25): %s", RT_DUR(0.25));
	TEST_END("duration_one_way");
}

int main(void)
{
	test_printer();
	test_duration();
	test_mute();
	test_cli();
	return TEST_EXIT();
}
