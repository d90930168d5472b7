// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The exposition's findings families: the findings open now by rule and
 * severity, those opened since the start by rule, and one series per open
 * finding labelled by its subject, for alerting (bounded; the rest counted).
 * The findings are the engine's (user/core/findings.h), as the loop's delta
 * carries them (exporters/prom_render.c calls this).
 */
#include <stdio.h>
#include <string.h>
#include "findings.h"
#include "fmt.h"
#include "prom_out.h"

#define MAX_FINDING_SERIES 200	/* open findings exported one series each */

/* A finding's subject as labels: only the fields its rule gives (findings.h). */
static void subject_labels(const struct rt_subject *s, char *set, size_t len)
{
	char a[RT_ADDR_STRLEN], n[16];

	if (s->has & RT_SUBJ_IFNAME)
		prom_label(set, len, "interface", s->ifname);
	if (s->has & RT_SUBJ_DIR)
		prom_label(set, len, "direction", rt_dir_name(s->dir));
	if (s->has & RT_SUBJ_PRIO)
		prom_label(set, len, "priority", rt_prio_name(s->prio, n, sizeof(n)));
	if (s->has & RT_SUBJ_SRC)
		prom_label(set, len, "src", rt_fmt_addr(s->family, s->src, a, sizeof(a)));
	if (s->has & RT_SUBJ_DST)
		prom_label(set, len, "dst", rt_fmt_addr(s->family, s->dst, a, sizeof(a)));
	if (s->has & RT_SUBJ_DQPN) {
		snprintf(n, sizeof(n), "%u", s->dqpn);
		prom_label(set, len, "dqpn", n);
	}
	if (s->has & RT_SUBJ_AGENT)
		prom_label(set, len, "agent", s->agent);
	if (s->has & RT_SUBJ_PORT) {
		snprintf(n, sizeof(n), "%u", s->port);
		prom_label(set, len, "port", n);
	}
	if (s->has & RT_SUBJ_DEVICE)
		prom_label(set, len, "device", s->device);
	if (s->has & RT_SUBJ_COUNTER)
		prom_label(set, len, "counter", s->counter);
	if (s->has & RT_SUBJ_JOB) {	/* as rocetop_job_* name it */
		const char *colon = strchr(s->job, ':');
		char kind[16];

		snprintf(kind, sizeof(kind), "%.*s", colon ? (int)(colon - s->job) : 0, s->job);
		prom_label(set, len, "job_kind", kind);
		prom_label(set, len, "job_name", colon ? colon + 1 : s->job);
	}
}

/*
 * One series per open finding, for alerting on its subject: at most
 * MAX_FINDING_SERIES, the most severe first, then the oldest; the open
 * findings left out are counted.
 */
static void render_open_findings(struct out *w, const struct rt_findings *F)
{
	char set[LSET];
	size_t j, shown = 0, open = 0;
	int sev;

	prom_family(w, "rocetop_finding", M_GAUGE, NULL,
	       "1 for each open finding, labelled by rule, severity and subject (interface, direction, priority, src, dst, dqpn, agent, port, device, counter as the rule gives them); at most " RT_STR(MAX_FINDING_SERIES) ", the most severe first.");
	for (sev = RT_SEV_CRITICAL; sev >= RT_SEV_INFO; sev--)
		for (j = 0; j < F->n; j++) {
			const struct rt_finding *f = &F->tab[j];

			if (!f->open || f->sev != sev)
				continue;
			open++;
			if (shown == MAX_FINDING_SERIES)
				continue;
			shown++;
			set[0] = 0;
			prom_label(set, sizeof(set), "rule", f->rule);
			prom_label(set, sizeof(set), "severity", rt_sev_name(f->sev));
			subject_labels(&f->subj, set, sizeof(set));
			prom_sample_u(w, "rocetop_finding", M_GAUGE, set, 1);
		}
	prom_family(w, "rocetop_findings_unexported", M_GAUGE, NULL,
	       "Open findings left out of rocetop_finding now, beyond its bound of " RT_STR(MAX_FINDING_SERIES) " series.");
	prom_sample_u(w, "rocetop_findings_unexported", M_GAUGE, "", open - shown);
}

/* Findings: open ones by rule and severity, and opened since the start by rule. */
void rt_prom_render_findings(struct out *w, const struct rt_findings *F)
{
	const struct rt_ruleset *R = F->rules;	/* the rules the engine ran */
	char set[LSET];
	size_t i, j;
	int sev;

	prom_family(w, "rocetop_findings_open", M_GAUGE, NULL,
	       "Findings open now, by rule and severity (see rocetop(8), FINDINGS).");
	for (i = 0; R && i < R->n; i++)
		for (sev = RT_SEV_INFO; sev <= RT_SEV_CRITICAL; sev++) {
			__u64 n = 0;

			for (j = 0; j < F->n; j++)
				n += F->tab[j].open && F->tab[j].sev == sev && !strcmp(F->tab[j].rule, R->rules[i].name);
			set[0] = 0;
			prom_label(set, sizeof(set), "rule", R->rules[i].name);
			prom_label(set, sizeof(set), "severity", rt_sev_name(sev));
			prom_sample_u(w, "rocetop_findings_open", M_GAUGE, set, n);
		}
	prom_family(w, "rocetop_findings_opened", M_COUNTER, NULL, "Findings opened since the start, by rule.");
	for (i = 0; R && i < R->n; i++) {
		__u64 n = 0;

		for (j = 0; j < F->nrules; j++)
			if (!strcmp(F->per_rule[j].rule, R->rules[i].name))
				n = F->per_rule[j].opened;
		set[0] = 0;
		prom_label(set, sizeof(set), "rule", R->rules[i].name);
		prom_sample_u(w, "rocetop_findings_opened", M_COUNTER, set, n);
	}
	render_open_findings(w, F);
}
