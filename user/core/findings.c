// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The findings engine: keeps findings that open, update and close over time.
 * The rules (rules.c) call rt_findings_match() for each subject that matches
 * in an interval; a subject that matches `need` intervals in a row opens a
 * finding (an episode) starting at the first of them; it closes only after a
 * quiet period, close_after intervals and close_secs seconds without a match
 * (a condition that dips for a moment stays one episode), ending at the last
 * interval it matched.
 * An open finding updates when its severity changes or its main figure
 * passes 1.5 times its previous peak; its evidence is that of its peak.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "derive.h"
#include "filter.h"
#include "findings.h"
#include "fmt.h"
#include "log.h"
#include "linkspeed.h"
#include "print.h"

/* The default as stored: a percentage's as a share. */
#define THR_DEF_PCT(d)		((d) / 100.0)
#define THR_DEF_REAL(d)		(d)
#define THR_DEF_INT(d)		(d)
#define THR_DEF_U64(d)		(d)
/* How a value is read: a double (percent allowed), an int, a __u64. */
#define THR_KIND_PCT		0
#define THR_KIND_REAL		0
#define THR_KIND_INT		1
#define THR_KIND_U64		2
/* The default as the help line says it. */
#define THR_SAY_PCT(d)		#d "%"
#define THR_SAY_REAL(d)		#d
#define THR_SAY_INT(d)		#d
#define THR_SAY_U64(d)		#d

static const struct thr {
	const char *name, *meta, *help, *def;
	int kind;
	size_t off;
	double lo, hi;
} thresholds[] = {
#define ROW(kind, field, name, meta, def, lo, hi, help) \
	{ name, meta, help, THR_SAY_##kind(def), THR_KIND_##kind, offsetof(struct rt_find_cfg, field), lo, hi },
	RT_THRESHOLDS(ROW)
#undef ROW
};
#define NTHR (sizeof(thresholds) / sizeof(thresholds[0]))

void rt_find_cfg_defaults(struct rt_find_cfg *c)
{
	memset(c, 0, sizeof(*c));
#define DEF(kind, field, name, meta, def, lo, hi, help) c->field = THR_DEF_##kind(def);
	RT_THRESHOLDS(DEF)
#undef DEF
}

const char *rt_find_cfg_help(void)
{
	static char text[NTHR * 128];
	size_t n = 0;

	if (text[0])
		return text;
	for (size_t i = 0; i < NTHR && n < sizeof(text); i++) {
		const struct thr *t = &thresholds[i];
		char left[40];

		snprintf(left, sizeof(left), "%s=%s", t->name, t->meta);
		n += (size_t)snprintf(text + n, sizeof(text) - n, "  %-20s %s (%s)\n", left, t->help, t->def);
	}
	return text;
}

static void thr_store(struct rt_find_cfg *c, const struct thr *t, double v)
{
	char *field = (char *)c + t->off;

	if (t->kind == 0)
		*(double *)field = v;
	else if (t->kind == 1)
		*(int *)field = (int)v;
	else
		*(__u64 *)field = (__u64)v;
}

int rt_find_cfg_set(struct rt_find_cfg *c, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t i, nl = eq ? (size_t)(eq - arg) : 0;

	for (i = 0; eq && i < NTHR; i++) {
		const struct thr *t = &thresholds[i];
		char *end;
		double v;

		if (strlen(t->name) != nl || strncmp(arg, t->name, nl))
			continue;
		errno = 0;
		v = strtod(eq + 1, &end);
		if (t->kind == 0 && *end == '%') {
			v /= 100;
			end++;
		}
		if (errno || end == eq + 1 || *end || !isfinite(v) || v < t->lo || v > t->hi ||
		    (t->kind && v != floor(v))) {
			pr_warn("--threshold %s: give a %s between %g and %g%s.\n", arg,
				t->kind ? "whole number" : "value", t->lo, t->hi,
				t->kind ? "" : " (or a percentage, e.g. 20%)");
			return -EINVAL;
		}
		thr_store(c, t, v);
		return 0;
	}
	pr_warn("--threshold '%s' is not known: give NAME=VALUE, NAME one of those rocetop --help lists.\n", arg);
	return -EINVAL;
}

int rt_findings_init(struct rt_findings *F, const struct rt_find_cfg *cfg, const struct rt_ruleset *rules)
{
	memset(F, 0, sizeof(*F));
	F->rules = rules;
	if (cfg)
		F->cfg = *cfg;
	else
		rt_find_cfg_defaults(&F->cfg);
	F->keep_closed = 256;
	F->next_id = 1;
	return 0;
}

/* like rt_snapshot_free, rt_delta_free and report_viz.c's frees: each owner frees its own arrays */
void rt_findings_free(struct rt_findings *F)
{
	free(F->tab);
	free(F->pend);
	free(F->ev);
	free(F->eps);
	free(F->slots);
	memset(F, 0, sizeof(*F));
}

__u64 rt_findings_speed(struct rt_findings *F, const struct rt_snapshot *s, const char *ifname)
{
	return rt_link_speed(s, ifname, F->cfg.speed_mbps, NULL);
}

static int push_event(struct rt_findings *F, int event, const struct rt_finding *f, int prev_sev)
{
	struct rt_fev *e;

	if (rt_grow_for((void **)&F->ev, &F->evcap, F->nev + 1, sizeof(*F->ev)))
		return -ENOMEM;
	e = &F->ev[F->nev++];
	e->event = (__u8)event;
	e->prev_sev = (__u8)prev_sev;
	e->id = f->id;
	e->time_ns = F->t_end;
	e->f = *f;
	return 0;
}

static void count_rule(struct rt_findings *F, const char *rule)
{
	size_t i;

	for (i = 0; i < F->nrules; i++)
		if (!strcmp(F->per_rule[i].rule, rule))
			break;
	if (i == F->nrules) {
		if (F->nrules == sizeof(F->per_rule) / sizeof(F->per_rule[0]))
			return;
		snprintf(F->per_rule[F->nrules++].rule, sizeof(F->per_rule[0].rule), "%s", rule);
	}
	F->per_rule[i].opened++;
	F->opened_total++;
}

/* ---- the index of (rule, subject) ---- */

#define RT_SLOT_PEND 0x80000000u

/*
 * The index below is the one open-addressed table the project keeps apart
 * from rt_htab (user/core/table.h) on purpose: it is rebuilt every interval
 * from the open findings and candidates, and its slots hold only the key's
 * hash and an index (8 bytes), comparing the key (rule name and a 220-byte
 * subject) in place in tab[] or pend[]. rt_htab keeps each key inline in its
 * entries: rebuilding it every interval copied ~250 bytes per finding, and
 * the whole of bench/findings_bench took 13% more user CPU (medians of three
 * alternated runs at load 7: 0.75 s against 0.66 s).
 */

/* A word at a time over the (zero-filled) subject, then the rule's name. */
static __u32 key_hash(const char *rule, const struct rt_subject *s)
{
	const unsigned char *p = (const unsigned char *)s;
	__u64 h = 0x9e3779b97f4a7c15ULL, w;
	size_t i;

	for (i = 0; i + 8 <= sizeof(*s); i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	for (; i < sizeof(*s); i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	for (; *rule; rule++)
		h = (h ^ (unsigned char)*rule) * 0x100000001b3ULL;
	h ^= h >> 32;
	return (__u32)h | 1;	/* 0 marks an empty slot */
}

static int same_key(const struct rt_findings *F, __u32 v, const char *rule, const struct rt_subject *s)
{
	if (v & RT_SLOT_PEND) {
		const struct rt_pending *p = &F->pend[(v & ~RT_SLOT_PEND) - 1];

		return p->hits >= 0 && !strcmp(p->rule, rule) && !memcmp(&p->subj, s, sizeof(*s));
	}
	return F->tab[v - 1].open && !strcmp(F->tab[v - 1].rule, rule) && !memcmp(&F->tab[v - 1].subj, s, sizeof(*s));
}

/* The slot of a key: the one holding it, or the empty one it would take. */
static size_t slot_of(const struct rt_findings *F, __u32 h, const char *rule, const struct rt_subject *s)
{
	size_t m = F->nslots - 1, j = h & m;

	while (F->slots[j].h && !(F->slots[j].h == h && same_key(F, F->slots[j].i, rule, s)))
		j = (j + 1) & m;
	return j;
}

static int index_put(struct rt_findings *F, __u32 h, __u32 v, const char *rule, const struct rt_subject *s);

static int index_rebuild(struct rt_findings *F, size_t want)
{
	size_t n = 64, i;

	while (n < 2 * (want + 16))
		n *= 2;
	if (n != F->nslots) {
		void *p = calloc(n, sizeof(*F->slots));

		if (!p)
			return -ENOMEM;
		free(F->slots);
		F->slots = p;
		F->nslots = n;
	} else {
		memset(F->slots, 0, n * sizeof(*F->slots));
	}
	F->nused = 0;
	for (i = 0; i < F->n; i++)
		if (F->tab[i].open &&
		    index_put(F, F->tab[i].h, (__u32)i + 1, F->tab[i].rule, &F->tab[i].subj))
			return -ENOMEM;
	for (i = 0; i < F->npend; i++)
		if (F->pend[i].hits >= 0 &&
		    index_put(F, F->pend[i].h, ((__u32)i + 1) | RT_SLOT_PEND, F->pend[i].rule, &F->pend[i].subj))
			return -ENOMEM;
	return 0;
}

/* Insert (or point at a new place) a key. */
static int index_put(struct rt_findings *F, __u32 h, __u32 v, const char *rule, const struct rt_subject *s)
{
	size_t j;

	if (2 * (F->nused + 1) > F->nslots && index_rebuild(F, F->nused + 1))
		return -ENOMEM;
	j = slot_of(F, h, rule, s);
	if (!F->slots[j].h)
		F->nused++;
	F->slots[j].h = h;
	F->slots[j].i = v;
	return 0;
}

int rt_findings_match(struct rt_findings *F, enum rt_sev sev,
		      const struct rt_subject *subj, int need, double score, const char *unit,
		      const char *next, const char *fmt, ...)
{
	const char *rule = F->rule;
	struct rt_pending *p = NULL;
	struct rt_finding *f;
	__u32 h = key_hash(rule, subj), v;
	va_list ap;
	size_t j;

	if (!F->nslots && index_rebuild(F, 0))
		return -ENOMEM;
	j = slot_of(F, h, rule, subj);
	v = F->slots[j].h ? F->slots[j].i : 0;
	if (v && !(v & RT_SLOT_PEND)) {
		f = &F->tab[v - 1];
		if (f->seen)
			return 0;	/* one match per interval */
		f->seen = 1;
		f->quiet = 0;
		f->end_ns = F->t_end;
		f->score = score;
		if (score > f->peak) {
			f->peak_unit = unit;
			va_start(ap, fmt);
			vsnprintf(f->evidence, sizeof(f->evidence), fmt, ap);
			va_end(ap);
			rt_fmt_safe(f->evidence, f->evidence, sizeof(f->evidence));	/* names from files */
		}
		if (f->sev != sev || score > 1.5 * f->peak) {
			int prev = f->sev;

			f->sev = (__u8)sev;
			if (score > f->peak)
				f->peak = score;
			return push_event(F, RT_FEV_UPDATE, f, prev);
		}
		if (score > f->peak)
			f->peak = score;
		return 0;
	}
	if (v)
		p = &F->pend[(v & ~RT_SLOT_PEND) - 1];
	if (p && p->seen)
		return 0;
	if (!p) {
		if (rt_grow_for((void **)&F->pend, &F->pendcap, F->npend + 1, sizeof(*F->pend)))
			return -ENOMEM;
		p = &F->pend[F->npend++];
		memset(p, 0, sizeof(*p));
		snprintf(p->rule, sizeof(p->rule), "%s", rule);
		p->subj = *subj;
		p->start_ns = F->t_start;
		p->h = h;
		if (index_put(F, h, (__u32)F->npend | RT_SLOT_PEND, rule, subj))
			return -ENOMEM;
	}
	p->seen = 1;
	p->hits++;
	if (p->hits < need)
		return 0;
	if (rt_grow_for((void **)&F->tab, &F->cap, F->n + 1, sizeof(*F->tab)))
		return -ENOMEM;
	f = &F->tab[F->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->rule, sizeof(f->rule), "%s", rule);
	f->sev = (__u8)sev;
	f->open = 1;
	f->seen = 1;
	f->id = F->next_id++;
	f->h = h;
	f->start_ns = p->start_ns;
	f->end_ns = F->t_end;
	f->opened_ns = F->t_end;
	f->subj = *subj;
	f->score = f->peak = score;
	f->peak_unit = unit;
	f->next = next ? next : "";
	snprintf(f->host, sizeof(f->host), "%s", F->host);
	va_start(ap, fmt);
	vsnprintf(f->evidence, sizeof(f->evidence), fmt, ap);
	va_end(ap);
	rt_fmt_safe(f->evidence, f->evidence, sizeof(f->evidence));	/* names from files */
	p->hits = -1;		/* no longer pending: dropped at the end of the interval */
	if (index_put(F, h, (__u32)F->n, rule, subj))
		return -ENOMEM;
	count_rule(F, rule);
	return push_event(F, RT_FEV_OPEN, f, f->sev);
}

struct rt_finding *rt_findings_get(struct rt_findings *F, const char *rule, const struct rt_subject *subj)
{
	size_t j;
	__u32 v;

	if (!F->nslots)
		return NULL;
	j = slot_of(F, key_hash(rule, subj), rule, subj);
	v = F->slots[j].h ? F->slots[j].i : 0;
	return v && !(v & RT_SLOT_PEND) ? &F->tab[v - 1] : NULL;
}

void rt_finding_add_flow(struct rt_finding *f, const struct rt_snapshot *s, const struct rt_flow *fl,
			 int paused)
{
	struct rt_find_flow *x;
	size_t i;

	for (i = 0; i < f->nflows; i++)
		if (!rt_flow_key_cmp(&f->flows[i].k, &fl->k))
			return;
	if (f->nflows == RT_FIND_FLOWS)
		return;
	x = &f->flows[f->nflows++];
	memset(x, 0, sizeof(*x));
	x->k = fl->k;
	snprintf(x->ifname, sizeof(x->ifname), "%s", rt_snapshot_ifname(s, fl->k.ifindex));
	x->lqpn = fl->lqpn;
	x->rqpn = fl->rqpn;
	x->pid = fl->pid;
	memcpy(x->comm, fl->comm, sizeof(x->comm));
	x->prio = rt_flow_prio(fl);
	x->flags = (fl->v.ecn[RT_ECN_CE] ? RT_FF_CE : 0) | (fl->v.cnp ? RT_FF_CNP : 0) |
		   (rt_nak(&fl->v) ? RT_FF_NAK : 0) | (fl->v.rnr_nak ? RT_FF_RNR : 0) |
		   (paused ? RT_FF_PAUSED : 0);
}

int rt_finding_rank_cmp(const struct rt_finding *a, const struct rt_finding *b)
{
	__u64 la = a->end_ns - a->start_ns, lb = b->end_ns - b->start_ns;
	int c;

	if (a->sev != b->sev)
		return a->sev > b->sev ? -1 : 1;
	if (la != lb)
		return la > lb ? -1 : 1;
	if (a->peak != b->peak)
		return a->peak > b->peak ? -1 : 1;
	if (a->start_ns != b->start_ns)
		return RT_SPACESHIP(a->start_ns, b->start_ns);
	if ((c = strcmp(a->rule, b->rule)))	/* ties: one order, whoever sorts */
		return c;
	return memcmp(&a->subj, &b->subj, sizeof(a->subj));
}

/* An involved flow as a row the filter can judge. */
static int find_flow_match(const struct rt_filter *flt, const struct rt_find_flow *x)
{
	struct rt_flow f = { .k = x->k, .lqpn = x->lqpn, .rqpn = x->rqpn, .pid = x->pid };
	struct rt_fsubj s = { .kind = RT_FK_FLOW, .f = &f, .ifname = x->ifname, .v = &f.v };

	memcpy(f.comm, x->comm, sizeof(f.comm));
	f.v.pcp = x->prio;
	f.v.ecn[RT_ECN_CE] = !!(x->flags & RT_FF_CE);
	f.v.cnp = !!(x->flags & RT_FF_CNP);
	f.v.nak_seq = !!(x->flags & RT_FF_NAK);
	f.v.rnr_nak = !!(x->flags & RT_FF_RNR);
	s.paused = !!(x->flags & RT_FF_PAUSED);
	return rt_filter_match(flt, &s);
}

int rt_finding_filter(const struct rt_filter *flt, const struct rt_finding *f)
{
	const struct rt_subject *sj = &f->subj;
	struct rt_port_ctr pc;
	struct rt_fsubj s = { .kind = RT_FK_PORT, .port = &pc, .paused = -1 };
	size_t i;

	if (!flt)
		return 1;
	for (i = 0; i < f->nflows; i++)
		if (find_flow_match(flt, &f->flows[i]))
			return 1;
	if (f->nflows)
		return 0;
	if (sj->has & (RT_SUBJ_SRC | RT_SUBJ_DST)) {
		struct rt_find_flow x = { .k.family = sj->family, .k.dir = sj->dir, .k.dqpn = sj->dqpn,
					  .prio = sj->prio };

		memcpy(x.k.src, sj->src, 16);
		memcpy(x.k.dst, sj->dst, 16);
		memcpy(x.ifname, sj->ifname, sizeof(x.ifname));
		return find_flow_match(flt, &x);
	}
	memset(&pc, 0, sizeof(pc));
	memcpy(pc.netdev, sj->ifname, sizeof(pc.netdev));
	memcpy(pc.dev, sj->device, sizeof(pc.dev));
	memcpy(pc.name, sj->counter, sizeof(pc.name));
	return rt_filter_match(flt, &s);
}

static int by_end_desc(const void *x, const void *y)
{
	const struct rt_finding *a = x, *b = y;

	if (a->open != b->open)
		return a->open ? -1 : 1;
	if (a->end_ns != b->end_ns)
		return a->end_ns > b->end_ns ? -1 : 1;
	return a->id > b->id ? -1 : a->id < b->id;
}

/* Keep the open findings, and the keep_closed most recently closed. */
static void prune(struct rt_findings *F)
{
	size_t closed = 0, i;

	for (i = 0; i < F->n; i++)
		closed += !F->tab[i].open;
	if (closed <= F->keep_closed)
		return;
	/* Open ones first, then the closed by end, newest first: cut the tail. */
	qsort(F->tab, F->n, sizeof(*F->tab), by_end_desc);
	F->n -= closed - F->keep_closed;
}

/* A rule table as README.md's (Markdown), for rocetop --dump-rules. */
void rt_rules_dump(const struct rt_ruleset *R, FILE *f)
{
	fputs("| rule | severity | when |\n| --- | --- | --- |\n", f);
	for (size_t i = 0; i < R->n; i++)
		fprintf(f, "| `%s` | %s | %s |\n", R->rules[i].name, R->rules[i].severity, R->rules[i].when);
}

/* The table's rules on one interval: 0 or -ENOMEM. */
static int run_rules(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	const struct rt_ruleset *R = F->rules;
	struct rt_rule_ctx *c;
	size_t i;
	int err = 0;

	if (!R)
		return 0;
	c = R->begin(F, cur, d);
	if (!c)
		return -ENOMEM;
	for (i = 0; i < R->n; i++) {
		F->rule = R->rules[i].name;
		err |= R->rules[i].run(c);
	}
	F->rule = NULL;
	err |= R->end(c);
	return err ? -ENOMEM : 0;
}

/* The events of this interval carry what the rules' end added to their
 * findings after the match (the flows involved). */
static void refresh_events(struct rt_findings *F)
{
	size_t i, j;
	__u32 v;

	for (i = 0; i < F->nev && F->nslots; i++) {
		struct rt_fev *e = &F->ev[i];

		j = slot_of(F, e->f.h, e->f.rule, &e->f.subj);
		v = F->slots[j].h ? F->slots[j].i : 0;
		if (!v || (v & RT_SLOT_PEND))
			continue;
		memcpy(e->f.involved, F->tab[v - 1].involved, sizeof(e->f.involved));
		e->f.involved_more = F->tab[v - 1].involved_more;
		e->f.nflows = F->tab[v - 1].nflows;
		memcpy(e->f.flows, F->tab[v - 1].flows, sizeof(e->f.flows));
	}
}

int rt_findings_eval(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	size_t i;
	int err;

	F->nev = 0;
	F->cur = cur;
	F->secs = d->secs;
	F->t_end = cur->time_ns;
	F->t_start = cur->time_ns - (__u64)(d->secs * 1e9 < (double)cur->time_ns ? d->secs * 1e9 : 0);
	for (i = 0; i < F->n; i++)
		F->tab[i].seen = 0;
	for (i = 0; i < F->npend; i++)
		F->pend[i].seen = 0;
	if (index_rebuild(F, F->n + F->npend))
		return -ENOMEM;
	err = run_rules(F, cur, d);
	refresh_events(F);
	/* Candidates that missed an interval start again; those that opened go. */
	for (i = 0; i < F->npend;) {
		if (!F->pend[i].seen || F->pend[i].hits < 0)
			F->pend[i] = F->pend[--F->npend];
		else
			i++;
	}
	for (i = 0; i < F->n; i++) {
		struct rt_finding *f = &F->tab[i];

		if (!f->open || f->seen)
			continue;
		if (++f->quiet >= F->cfg.close_after &&
		    F->t_end >= f->end_ns + (__u64)(F->cfg.close_secs * 1e9)) {
			f->open = 0;
			if (push_event(F, RT_FEV_CLOSE, f, f->sev))
				err = -ENOMEM;
		}
	}
	prune(F);
	return err;
}

void rt_findings_finish(struct rt_findings *F)
{
	size_t i;

	F->nev = 0;
	for (i = 0; i < F->n; i++)
		if (F->tab[i].open) {
			F->tab[i].open = 0;
			push_event(F, RT_FEV_CLOSE, &F->tab[i], F->tab[i].sev);
		}
	F->npend = 0;
}

void rt_findings_count(const struct rt_findings *F, size_t counts[3])
{
	size_t i;

	counts[0] = counts[1] = counts[2] = 0;
	for (i = 0; i < F->n; i++)
		if (F->tab[i].open && F->tab[i].sev <= RT_SEV_CRITICAL)
			counts[F->tab[i].sev]++;
}

const struct rt_finding *rt_findings_newest(const struct rt_findings *F)
{
	const struct rt_finding *best = NULL;
	size_t i;

	for (i = 0; i < F->n; i++) {
		const struct rt_finding *f = &F->tab[i];

		if (f->open && (!best || f->sev > best->sev || (f->sev == best->sev && f->id > best->id)))
			best = f;
	}
	return best;
}

/* ---- the log of a run ---- */

int rt_flog_take(struct rt_flog *L, const struct rt_findings *F)
{
	size_t i;

	for (i = 0; i < F->nev; i++) {
		const struct rt_fev *e = &F->ev[i];

		if (e->id >= L->nbyid) {
			size_t n = L->nbyid ? L->nbyid : 256, old = L->nbyid;

			while (n <= e->id)
				n *= 2;
			if (rt_grow_to((void **)&L->byid, &L->nbyid, n, sizeof(*L->byid)))
				return -ENOMEM;
			memset(L->byid + old, 0, (n - old) * sizeof(*L->byid));
		}
		if (!L->byid[e->id]) {
			if (rt_grow_for((void **)&L->f, &L->cap, L->n + 1, sizeof(*L->f)))
				return -ENOMEM;
			L->byid[e->id] = ++L->n;
		}
		L->f[L->byid[e->id] - 1] = e->f;
	}
	return 0;
}

static int flog_cmp(const void *x, const void *y)
{
	const struct rt_finding *a = x, *b = y;
	int c;

	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	if ((c = strcmp(a->host, b->host)) || (c = strcmp(a->rule, b->rule)))
		return c;
	return memcmp(&a->subj, &b->subj, sizeof(a->subj));
}

/* Sorting ends the taking: the id index no longer holds. */
void rt_flog_sort(struct rt_flog *L)
{
	if (L->n)
		qsort(L->f, L->n, sizeof(*L->f), flog_cmp);
	free(L->byid);
	L->byid = NULL;
	L->nbyid = 0;
}

void rt_flog_free(struct rt_flog *L)
{
	free(L->f);
	free(L->byid);
	memset(L, 0, sizeof(*L));
}

/* ---- text ---- */

const char *rt_sev_name(int sev)
{
	return sev == RT_SEV_CRITICAL ? "critical" : sev == RT_SEV_WARNING ? "warning" : "info";
}

int rt_sev_from_name(const char *s)
{
	if (!strcmp(s, "info"))
		return RT_SEV_INFO;
	if (!strcmp(s, "warning"))
		return RT_SEV_WARNING;
	if (!strcmp(s, "critical"))
		return RT_SEV_CRITICAL;
	return -1;
}

const char *rt_fev_name(int ev)
{
	return ev == RT_FEV_OPEN ? "open" : ev == RT_FEV_UPDATE ? "update" : "close";
}

/* Walk the subject's fields: text (key=value) or JSON ("key":value). */
static const char *subject_fmt(const struct rt_subject *s, char *buf, size_t len, int json)
{
	char a[RT_ADDR_STRLEN], q[2 * RT_JOB_KEY_LEN], prio[8];
	size_t n = 0;
	int first = 1;

#define PUT(key, isstr, ...) do { \
		char _v[RT_JOB_KEY_LEN]; \
		snprintf(_v, sizeof(_v), __VA_ARGS__); \
		if (json) \
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s\"%s\":%s", first ? "" : ",", key, \
					      isstr ? rt_pr_json_str(_v, q, sizeof(q)) : _v); \
		else	/* text: printable only, names come from files */ \
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s=%s", first ? "" : " ", key, \
					      rt_fmt_safe(_v, _v, sizeof(_v))); \
		first = 0; \
	} while (0)

	if (!len)
		return "";
	buf[0] = '\0';
	if (json)
		n += (size_t)snprintf(buf, len, "{");
	if (s->has & RT_SUBJ_AGENT)
		PUT("agent", 1, "%s", s->agent);
	if (s->has & RT_SUBJ_DEVICE)
		PUT("device", 1, "%s", s->device);
	if (s->has & RT_SUBJ_PORT)
		PUT("port", 0, "%u", s->port);
	if (s->has & RT_SUBJ_IFNAME)
		PUT("ifname", 1, "%s", s->ifname);
	if (s->has & RT_SUBJ_DIR)
		PUT("dir", 1, "%s", rt_dir_name(s->dir));
	if (s->has & RT_SUBJ_PRIO) {
		rt_prio_name(s->prio, prio, sizeof(prio));
		if (s->prio == RT_PRIO_GLOBAL)
			PUT("prio", 1, "%s", prio);
		else
			PUT("prio", 0, "%s", prio);
	}
	if (s->has & RT_SUBJ_SRC)
		PUT("src", 1, "%s", rt_fmt_addr(s->family, s->src, a, sizeof(a)));
	if (s->has & RT_SUBJ_DST)
		PUT("dst", 1, "%s", rt_fmt_addr(s->family, s->dst, a, sizeof(a)));
	if (s->has & RT_SUBJ_DQPN)
		PUT("dqpn", 0, "%u", s->dqpn);
	if (s->has & RT_SUBJ_COUNTER)
		PUT("counter", 1, "%s", s->counter);
	if (s->has & RT_SUBJ_JOB)
		PUT("job", 1, "%s", s->job);
	if (s->has & RT_SUBJ_PEER)
		PUT("peer", 1, "%s", s->peer);
	if (s->has & RT_SUBJ_PATH) {
		PUT("path", 0, "%u", s->path);
		PUT("flow_label", 0, "%u", s->flow_label);
	}
#undef PUT
	if (json)
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "}");
	if (n >= len)
		buf[len - 1] = '\0';
	return buf;
}

const char *rt_subject_text(const struct rt_subject *s, char *buf, size_t len)
{
	return subject_fmt(s, buf, len, 0);
}

/*
 * The subject in its fewest words, for narrow screens: a flow as "src>dst
 * qp N" (its interface and priority left out), anything else its values
 * without keys, a priority as "pN": "rcv0 egress p3", "mlx5_0 1 out_of_buffer".
 */
const char *rt_subject_short(const struct rt_subject *s, char *buf, size_t len)
{
	char a[RT_ADDR_STRLEN], b[RT_ADDR_STRLEN], v[RT_JOB_KEY_LEN + 8];
	size_t n = 0;

#define ADD(...) do { \
		snprintf(v, sizeof(v), __VA_ARGS__); \
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? " " : "", \
				      rt_fmt_safe(v, v, sizeof(v))); \
	} while (0)

	if (!len)
		return "";
	buf[0] = '\0';
	if (s->has & (RT_SUBJ_SRC | RT_SUBJ_DST)) {
		ADD("%s%s%s", s->has & RT_SUBJ_SRC ? rt_fmt_addr(s->family, s->src, a, sizeof(a)) : "",
		    (s->has & RT_SUBJ_SRC) && (s->has & RT_SUBJ_DST) ? ">" : "",
		    s->has & RT_SUBJ_DST ? rt_fmt_addr(s->family, s->dst, b, sizeof(b)) : "");
		if (s->has & RT_SUBJ_DQPN)
			ADD("qp %u", s->dqpn);
	} else {
		if (s->has & RT_SUBJ_AGENT)
			ADD("%s", s->agent);
		if (s->has & RT_SUBJ_DEVICE)
			ADD("%s", s->device);
		if (s->has & RT_SUBJ_PORT)
			ADD("%u", s->port);
		if (s->has & RT_SUBJ_IFNAME)
			ADD("%s", s->ifname);
		if (s->has & RT_SUBJ_DIR)
			ADD("%s", rt_dir_name(s->dir));
		if (s->has & RT_SUBJ_PRIO)
			ADD("%s%s", s->prio == RT_PRIO_GLOBAL ? "" : "p", rt_prio_name(s->prio, a, sizeof(a)));
		if (s->has & RT_SUBJ_DQPN)
			ADD("qp %u", s->dqpn);
	}
	if (s->has & RT_SUBJ_COUNTER)
		ADD("%s", s->counter);
	if (s->has & RT_SUBJ_JOB)
		ADD("job %s", s->job);
	if (s->has & RT_SUBJ_PEER)
		ADD("peer %s", s->peer);
	if (s->has & RT_SUBJ_PATH)
		ADD("path %u", s->path);
#undef ADD
	if (n >= len)
		buf[len - 1] = '\0';
	return buf;
}

const char *rt_subject_json(const struct rt_subject *s, char *buf, size_t len)
{
	return subject_fmt(s, buf, len, 1);
}
