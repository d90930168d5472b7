// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tuning section (user/sinks/tune.h's recommendations) in text and JSON
 * through the one printer (user/core/print.h), for `rocetop report --tune`
 * (user/report/report_print.c) and `rocetop doctor --tune`
 * (user/cmd/doctor.c), so both say the same thing the same way. Text is
 * made safe for a terminal (rt_fmt_safe): names come from a recording or a
 * host's sysfs.
 */
#include <string.h>
#include "fmt.h"
#include "print.h"
#include "tune.h"

/* One recommendation: a change (current -> recommended, the command) or an
 * observation (what it is now, what to look at; no command). */
static void one(struct rt_printer *p, const struct rt_tune_rec *r)
{
	int obs = !strcmp(r->kind, "observation");
	char s[4][1024];

	rt_pr_open_obj(p, NULL);
	rt_pr_str(p, RT_PR_TEXT, NULL, "  %s", rt_fmt_safe(r->setting, s[0], sizeof(s[0])));
	rt_pr_str(p, RT_PR_TEXT, NULL, " (%s)", rt_fmt_safe(r->scope, s[1], sizeof(s[1])));
	rt_fmt_safe(r->current, s[2], sizeof(s[2]));
	rt_fmt_safe(r->recommended, s[3], sizeof(s[3]));
	if (obs) {
		rt_pr_text(p, ", an observation, not a change");
		rt_pr_str(p, RT_PR_TEXT, NULL, ", confidence %s\n", r->confidence);
		rt_pr_str(p, RT_PR_TEXT, NULL, "    now:      %s\n", s[2]);
		rt_pr_str(p, RT_PR_TEXT, NULL, "    look at:  %s\n", s[3]);
	} else {
		rt_pr_str(p, RT_PR_TEXT, NULL, ": %s", s[2]);
		rt_pr_str(p, RT_PR_TEXT, NULL, " -> %s", s[3]);
		rt_pr_str(p, RT_PR_TEXT, NULL, ", confidence %s\n", r->confidence);
	}
	rt_pr_str(p, RT_PR_TEXT, NULL, "    evidence: %s\n", rt_fmt_safe(r->evidence, s[0], sizeof(s[0])));
	if (!obs)
		rt_pr_str(p, RT_PR_TEXT, NULL, "    command:  %s\n", rt_fmt_safe(r->command, s[1], sizeof(s[1])));
	rt_pr_str(p, RT_PR_JSON, "kind", NULL, r->kind);
	rt_pr_str(p, RT_PR_JSON, "setting", NULL, r->setting);
	rt_pr_str(p, RT_PR_JSON, "scope", NULL, r->scope);
	rt_pr_str(p, RT_PR_JSON, "current", NULL, r->current);
	rt_pr_str(p, RT_PR_JSON, "recommended", NULL, r->recommended);
	rt_pr_str(p, RT_PR_JSON, "evidence", NULL, r->evidence);
	rt_pr_str(p, RT_PR_JSON, "command", NULL, r->command);
	rt_pr_str(p, RT_PR_JSON, "confidence", NULL, r->confidence);
	rt_pr_close_obj(p);
}

void rt_tune_print(struct rt_printer *p, const struct rt_tune_rec *r, size_t n)
{
	rt_pr_open_arr(p, "tuning");
	for (size_t i = 0; i < n; i++)
		one(p, &r[i]);
	rt_pr_close_arr(p);
}
