// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The filter language (filter.h): a tokenizer, a recursive-descent parser
 * into a small tree of nodes, and an evaluator over the term table. The
 * grammar, loosest first:
 *
 *   expr := and ("or" and)*
 *   and  := not ("and" not)*
 *   not  := "not" not | "(" expr ")" | term
 *   term := NAME ARG | FLAG | WORD
 *
 * A WORD that names no term keeps the view's old meaning: a substring of
 * either address, the interface, the owner or the mirror session, or a QP
 * number equal to one of the flow's QPs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "derive.h"
#include "filter.h"
#include "fmt.h"
#include "job.h"
#include "num.h"
#include "prefix.h"
#include "table.h"

#define MAX_NODES 64
#define MAX_VALS 8	/* a flow's priorities, at most 8 */
#define WORD_LEN 64

/* ------------------------------------------------------------ the fields */

/* One value of a row's field, as an accessor gives it. */
union rt_fv {
	__u64 n;
	const char *s;
	struct { __u8 family; const __u8 *a; } addr;
};

enum arg { A_FLAG, A_ADDR, A_NUM, A_NAME };

struct term {
	const char *name;
	enum arg arg;
	__u64 max;		/* A_NUM: the largest value */
	unsigned int kinds;	/* RT_FK_*: the rows it can judge */
	/* the row's values of the field (a flag: 1 when set); how many */
	int (*get)(const struct rt_fsubj *s, union rt_fv *v);
};

static int get_src(const struct rt_fsubj *s, union rt_fv *v)
{
	v[0].addr.family = s->f->k.family;
	v[0].addr.a = s->f->k.src;
	return 1;
}

static int get_dst(const struct rt_fsubj *s, union rt_fv *v)
{
	v[0].addr.family = s->f->k.family;
	v[0].addr.a = s->f->k.dst;
	return 1;
}

static int get_host(const struct rt_fsubj *s, union rt_fv *v)
{
	return get_src(s, v) + get_dst(s, v + 1);
}

static int get_qp(const struct rt_fsubj *s, union rt_fv *v)
{
	int n = 0;

	v[n++].n = s->f->k.dqpn;
	if (s->f->lqpn)
		v[n++].n = s->f->lqpn;
	if (s->f->rqpn)
		v[n++].n = s->f->rqpn;
	return n;
}

static int get_if(const struct rt_fsubj *s, union rt_fv *v)
{
	v[0].s = s->kind == RT_FK_PORT ? s->port->netdev : s->ifname ? s->ifname : "";
	return 1;
}

static int get_proc(const struct rt_fsubj *s, union rt_fv *v)
{
	v[0].s = s->f->comm;
	return s->f->comm[0] != '\0';
}

static int get_pid(const struct rt_fsubj *s, union rt_fv *v)
{
	v[0].n = s->f->pid;
	return s->f->pid != 0;
}

/* Every priority the flow carried (user/core/derive.h): a flow whose ACKs
 * ride priority 3 and its CNPs 6 is of both, in every interval. */
static int get_prio(const struct rt_fsubj *s, union rt_fv *v)
{
	__u8 ps = rt_flow_prios(s->f);
	int n = 0;

	while (ps && n < MAX_VALS) {
		v[n++].n = (__u64)__builtin_ctz(ps);
		ps &= (__u8)(ps - 1);
	}
	return n;
}

static const struct rt_flow_val *counts(const struct rt_fsubj *s)
{
	return s->v ? s->v : &s->f->v;
}

static int get_ce(const struct rt_fsubj *s, union rt_fv *v)
{
	(void)v;
	return counts(s)->ecn[RT_ECN_CE] != 0;
}

static int get_cnp(const struct rt_fsubj *s, union rt_fv *v)
{
	(void)v;
	return counts(s)->cnp != 0;
}

static int get_nak(const struct rt_fsubj *s, union rt_fv *v)
{
	(void)v;
	return rt_nak(counts(s)) != 0;
}

static int get_rnr(const struct rt_fsubj *s, union rt_fv *v)
{
	(void)v;
	return counts(s)->rnr_nak != 0;
}

/* XOFF among the pause frames of priority p in v. */
static int xoff(const struct rt_if_val *v, unsigned int p)
{
	return v->pfc_frames[p] > v->pfc_xon[p];
}

/* Pause frames (XOFF) of any of the flow's priorities on its interface,
 * either direction, in the interval (d) or since the start (s). */
static int get_paused(const struct rt_fsubj *s, union rt_fv *v)
{
	__u8 ps = rt_flow_prios(s->f);
	size_t i;

	(void)v;
	if (s->paused >= 0)
		return s->paused;
	for (unsigned int p = 0; p < 8; p++) {
		if (!(ps >> p & 1))
			continue;
		for (i = 0; s->d && i < s->d->nifs; i++)
			if (s->d->ifs[i].s->k.ifindex == s->f->k.ifindex && xoff(&s->d->ifs[i].d, p))
				return 1;
		for (i = 0; !s->d && s->s && i < s->s->nifs; i++)
			if (s->s->ifs[i].k.ifindex == s->f->k.ifindex && xoff(&s->s->ifs[i].v, p))
				return 1;
	}
	return 0;
}

/* The job of the flow's owner (user/core/job.h), looked up in the snapshot's
 * jobs table: NULL without a snapshot or a job. */
static const struct rt_job *flow_job(const struct rt_fsubj *s)
{
	return s->s ? rt_snapshot_job(s->s, s->f) : NULL;
}

/* job NAME: the job's name ("4711", "ns/pod", "x.service", a cgroup path),
 * its kind and name ("slurm:4711"), or a Slurm job's "4711.STEP". */
static int get_job(const struct rt_fsubj *s, union rt_fv *v)
{
	const struct rt_job *j = flow_job(s);
	static __thread char kn[RT_JOB_NAME_LEN + 16], js[RT_JOB_NAME_LEN + RT_JOB_STEP_LEN + 2];

	if (!j || j->kind == RT_JOB_NONE)
		return 0;
	v[0].s = j->job;
	snprintf(kn, sizeof(kn), "%s:%s", rt_job_kind_name(j->kind), j->job);
	v[1].s = kn;
	if (!j->step[0])
		return 2;
	snprintf(js, sizeof(js), "%s.%s", j->job, j->step);
	v[2].s = js;
	return 3;
}

/* pod NAME and unit NAME: the Kubernetes pod ("namespace/pod" or the pod
 * alone) and the systemd unit, as rt_job_field names them. */
static int get_job_named(const struct rt_fsubj *s, union rt_fv *v, const char *field)
{
	const char *x = rt_job_field(flow_job(s), field);
	const char *slash;

	if (!x || !*x)
		return 0;
	v[0].s = x;
	if (!(slash = strchr(x, '/')))
		return 1;
	v[1].s = slash + 1;
	return 2;
}

static int get_pod(const struct rt_fsubj *s, union rt_fv *v)
{
	return get_job_named(s, v, "pod");
}

static int get_unit(const struct rt_fsubj *s, union rt_fv *v)
{
	return get_job_named(s, v, "unit");
}

static int get_rank(const struct rt_fsubj *s, union rt_fv *v)
{
	const struct rt_job *j = flow_job(s);

	if (!j || j->rank < 0)
		return 0;
	v[0].n = (__u64)j->rank;
	return 1;
}

/*
 * The terms. A new field is a row here and its accessor above; a field
 * that lives outside the flow (a job, a pod, a unit, a rank looked up by
 * the flow's pid or QP) adds the table it is read from to struct rt_fsubj,
 * for instance { "job", A_NAME, 0, RT_FK_FLOW, get_job } with get_job
 * giving the names of the flow's jobs (at most MAX_VALS values).
 */
static const struct term terms[] = {
	{ "host",   A_ADDR, 0,        RT_FK_FLOW, get_host },
	{ "src",    A_ADDR, 0,        RT_FK_FLOW, get_src },
	{ "dst",    A_ADDR, 0,        RT_FK_FLOW, get_dst },
	{ "qp",     A_NUM,  0xffffff, RT_FK_FLOW, get_qp },
	{ "if",     A_NAME, 0,        RT_FK_FLOW | RT_FK_PORT, get_if },
	{ "proc",   A_NAME, 0,        RT_FK_FLOW, get_proc },
	{ "pid",    A_NUM,  0xffffffff, RT_FK_FLOW, get_pid },
	{ "prio",   A_NUM,  7,        RT_FK_FLOW, get_prio },
	{ "ce",     A_FLAG, 0,        RT_FK_FLOW, get_ce },
	{ "cnp",    A_FLAG, 0,        RT_FK_FLOW, get_cnp },
	/* same shape as the rows above: the terms table, each term its own accessor */
	{ "nak",    A_FLAG, 0,        RT_FK_FLOW, get_nak },
	{ "rnr",    A_FLAG, 0,        RT_FK_FLOW, get_rnr },
	{ "paused", A_FLAG, 0,        RT_FK_FLOW, get_paused },
	{ "job",    A_NAME, 0,        RT_FK_FLOW, get_job },
	{ "pod",    A_NAME, 0,        RT_FK_FLOW, get_pod },
	{ "unit",   A_NAME, 0,        RT_FK_FLOW, get_unit },
	{ "rank",   A_NUM,  0x7fffffff, RT_FK_FLOW, get_rank },
};

const char rt_filter_terms_help[] =
	"host ADDR, src ADDR, dst ADDR (an address or ADDR/LEN), qp N, if NAME, proc NAME, pid N, "
	"prio N, ce, cnp, nak, rnr, paused, job NAME, pod NAME, unit NAME, rank N, and a bare word (a substring)";

/* ------------------------------------------------------------ the tree */

enum op { OP_TERM, OP_WORD, OP_NOT, OP_AND, OP_OR };

struct node {
	enum op op;
	int a, b;			/* operands: node indexes */
	const struct term *t;
	__u64 n;			/* A_NUM */
	struct rt_prefix pfx;		/* A_ADDR */
	char word[WORD_LEN];		/* A_NAME, OP_WORD */
};

struct rt_filter {
	struct node nodes[MAX_NODES];
	int n, root;
	unsigned int kinds;
	const char *bad_term;		/* the first term that narrowed kinds */
	char text[256];
};

struct parser {
	struct rt_filter *F;
	const char *p;			/* next character */
	char tok[WORD_LEN];		/* the token looked at, "" at the end */
	char *err;
	size_t errlen;
	int failed;
	int depth;			/* '(' and 'not' open around the token */
};

static int fail(struct parser *P, const char *fmt, const char *what)
{
	if (!P->failed)
		snprintf(P->err, P->errlen, fmt, what);
	P->failed = 1;
	return -1;
}

/* The next token: "(", ")", or a run of other non-space characters. */
static void next_tok(struct parser *P)
{
	size_t n = 0;

	while (*P->p == ' ' || *P->p == '\t')
		P->p++;
	if (*P->p == '(' || *P->p == ')') {
		P->tok[n++] = *P->p++;
	} else {
		while (*P->p && *P->p != ' ' && *P->p != '\t' && *P->p != '(' && *P->p != ')') {
			if (n < sizeof(P->tok) - 1)
				P->tok[n] = *P->p;
			n++;
			P->p++;
		}
		if (n >= sizeof(P->tok)) {
			P->tok[sizeof(P->tok) - 1] = '\0';
			fail(P, "the filter's word '%s...' is too long (63 characters at most)", P->tok);
			n = sizeof(P->tok) - 1;
		}
	}
	P->tok[n] = '\0';
}

static int new_node(struct parser *P, enum op op)
{
	struct node *x;

	if (P->F->n == MAX_NODES)
		return fail(P, "the filter is too long (%s nodes at most)", "64");
	x = &P->F->nodes[P->F->n];
	memset(x, 0, sizeof(*x));
	x->op = op;
	return P->F->n++;
}

/* The argument of term t, in P->tok. */
static int parse_arg(struct parser *P, struct node *x, const struct term *t)
{
	static const char *const want[] = {
		[A_ADDR] = "an address (10.0.0.1, fd00::1, 10.0.0.0/24)",
		[A_NUM] = "a number", [A_NAME] = "a name",
	};
	unsigned long long n;

	if (!P->tok[0] || !strcmp(P->tok, "(") || !strcmp(P->tok, ")")) {
		snprintf(P->err, P->errlen, "the filter's '%s' needs %s after it", t->name, want[t->arg]);
		P->failed = 1;
		return -1;
	}
	if (t->arg == A_ADDR && rt_prefix_parse(P->tok, &x->pfx)) {
		snprintf(P->err, P->errlen, "the filter's '%s %s' is not %s", t->name, P->tok, want[A_ADDR]);
		P->failed = 1;
		return -1;
	}
	if (t->arg == A_NUM) {
		if (rt_parse_uint(P->tok, t->max, &n)) {
			snprintf(P->err, P->errlen, "the filter's '%s %s' is not a number from 0 to %llu",
				 t->name, P->tok, (unsigned long long)t->max);
			P->failed = 1;
			return -1;
		}
		x->n = n;
	}
	if (t->arg == A_NAME)
		snprintf(x->word, sizeof(x->word), "%s", P->tok);
	next_tok(P);
	return 0;
}

static int parse_or(struct parser *P);

static int parse_term(struct parser *P)
{
	int i;
	struct node *x;

	if (!P->tok[0])
		return fail(P, "the filter ends where a term should be%s", "");
	if (!strcmp(P->tok, ")") || !strcmp(P->tok, "and") || !strcmp(P->tok, "or"))
		return fail(P, "the filter has '%s' where a term should be", P->tok);
	for (size_t k = 0; k < sizeof(terms) / sizeof(terms[0]); k++) {
		if (strcmp(P->tok, terms[k].name))
			continue;
		if ((i = new_node(P, OP_TERM)) < 0)
			return -1;
		x = &P->F->nodes[i];
		x->t = &terms[k];
		if ((P->F->kinds & ~terms[k].kinds) && !P->F->bad_term)
			P->F->bad_term = terms[k].name;
		P->F->kinds &= terms[k].kinds;
		next_tok(P);
		if (terms[k].arg != A_FLAG && parse_arg(P, x, &terms[k]))
			return -1;
		return i;
	}
	if ((i = new_node(P, OP_WORD)) < 0)
		return -1;
	snprintf(P->F->nodes[i].word, WORD_LEN, "%s", P->tok);
	next_tok(P);
	return i;
}

/* Parentheses and 'not's nest this deep at most: each is a level of the
 * parser's recursion, and a '(' makes no node for MAX_NODES to bound. */
#define MAX_DEPTH 32

static int parse_not(struct parser *P)
{
	int i, a;

	if ((!strcmp(P->tok, "not") || !strcmp(P->tok, "(")) && P->depth >= MAX_DEPTH)
		return fail(P, "the filter nests '(' and 'not' too deep (%s levels at most)", "32");
	if (!strcmp(P->tok, "not")) {
		next_tok(P);
		P->depth++;
		a = parse_not(P);
		P->depth--;
		if (a < 0 || (i = new_node(P, OP_NOT)) < 0)
			return -1;
		P->F->nodes[i].a = a;
		return i;
	}
	if (!strcmp(P->tok, "(")) {
		next_tok(P);
		P->depth++;
		a = parse_or(P);
		P->depth--;
		if (a < 0)
			return -1;
		if (strcmp(P->tok, ")"))
			return fail(P, "the filter has a '(' without its ')'%s", "");
		next_tok(P);
		return a;
	}
	return parse_term(P);
}

/* A chain of `word`-joined operands (and, or). */
static int parse_chain(struct parser *P, const char *word, enum op op, int (*sub)(struct parser *))
{
	int a = sub(P), b, i;

	while (a >= 0 && !strcmp(P->tok, word)) {
		next_tok(P);
		if ((b = sub(P)) < 0 || (i = new_node(P, op)) < 0)
			return -1;
		P->F->nodes[i].a = a;
		P->F->nodes[i].b = b;
		a = i;
	}
	return a;
}

static int parse_and(struct parser *P)
{
	return parse_chain(P, "and", OP_AND, parse_not);
}

static int parse_or(struct parser *P)
{
	return parse_chain(P, "or", OP_OR, parse_and);
}

int rt_filter_parse(const char *text, struct rt_filter **out, char *err, size_t errlen)
{
	struct parser P = { .p = text ? text : "", .err = err, .errlen = errlen };
	struct rt_filter *F;

	*out = NULL;
	next_tok(&P);
	if (!P.tok[0] && !P.failed)
		return 0;
	F = calloc(1, sizeof(*F));
	if (!F)
		return -ENOMEM;
	P.F = F;
	F->kinds = RT_FK_FLOW | RT_FK_PORT;
	snprintf(F->text, sizeof(F->text), "%s", text);
	F->root = P.failed ? -1 : parse_or(&P);
	if (F->root >= 0 && P.tok[0]) {
		if (!strcmp(P.tok, ")"))
			fail(&P, "the filter has a ')' without its '('%s", "");
		else
			fail(&P, "the filter has '%s' where 'and', 'or' or its end should be", P.tok);
	}
	if (P.failed || F->root < 0) {
		free(F);
		return -EINVAL;
	}
	*out = F;
	return 0;
}

void rt_filter_free(struct rt_filter *F)
{
	free(F);
}

const char *rt_filter_text(const struct rt_filter *F)
{
	return F ? F->text : "";
}

unsigned int rt_filter_kinds(const struct rt_filter *F)
{
	return F ? F->kinds : RT_FK_FLOW | RT_FK_PORT;
}

int rt_filter_check(const struct rt_filter *F, unsigned int kind, const char *what, char *err, size_t errlen)
{
	if (!F || (F->kinds & kind))
		return 0;
	if (kind == RT_FK_PORT && F->bad_term)
		snprintf(err, errlen, "the filter's '%s' judges flows, and %s has none (only 'if NAME' applies to it)",
			 F->bad_term, what);
	else
		snprintf(err, errlen, "the filter '%s' cannot apply to %s", F->text, what);
	return -EINVAL;
}

/* ------------------------------------------------------------ evaluation */

/* The view's old filter: a substring, or a QP number (decimal or 0x). */
static int word_match(const struct node *x, const struct rt_fsubj *s)
{
	const struct rt_flow *f = s->f;
	char a[RT_ADDR_STRLEN];
	unsigned long long qp;

	if (s->kind == RT_FK_PORT)
		return strstr(s->port->dev, x->word) || strstr(s->port->netdev, x->word) ||
		       strstr(s->port->name, x->word);
	if (!rt_parse_uint(x->word, 0xffffff, &qp) &&
	    (f->k.dqpn == qp || (f->lqpn && f->lqpn == qp) || (f->rqpn && f->rqpn == qp)))
		return 1;
	if (strstr(rt_fmt_addr(f->k.family, f->k.src, a, sizeof(a)), x->word) ||
	    strstr(rt_fmt_addr(f->k.family, f->k.dst, a, sizeof(a)), x->word))
		return 1;
	if (s->ifname && strstr(s->ifname, x->word))
		return 1;
	if (f->k.mirror && strstr(rt_fmt_mirror(&f->k, a, sizeof(a)), x->word))
		return 1;
	if (flow_job(s)) {		/* the job's label ("slurm:4711.0") */
		char lab[RT_JOB_NAME_LEN + RT_JOB_STEP_LEN + 16];

		if (strstr(rt_job_label(flow_job(s), lab, sizeof(lab)), x->word))
			return 1;
	}
	return f->comm[0] && strstr(f->comm, x->word);
}

static int term_match(const struct node *x, const struct rt_fsubj *s)
{
	union rt_fv v[MAX_VALS];
	int n, i;

	if (!(x->t->kinds & s->kind))
		return 0;
	n = x->t->get(s, v);
	for (i = 0; i < n; i++) {
		switch (x->t->arg) {
		case A_FLAG: return 1;
		case A_ADDR: if (rt_prefix_has(&x->pfx, v[i].addr.family, v[i].addr.a)) return 1; break;
		case A_NUM: if (v[i].n == x->n) return 1; break;
		case A_NAME: if (!strcmp(v[i].s, x->word)) return 1; break;
		}
	}
	return 0;
}

static int eval(const struct rt_filter *F, int i, const struct rt_fsubj *s)
{
	const struct node *x = &F->nodes[i];

	switch (x->op) {
	case OP_TERM: return term_match(x, s);
	case OP_WORD: return word_match(x, s);
	case OP_NOT: return !eval(F, x->a, s);
	case OP_AND: return eval(F, x->a, s) && eval(F, x->b, s);
	case OP_OR: return eval(F, x->a, s) || eval(F, x->b, s);
	}
	return 0;
}

int rt_filter_match(const struct rt_filter *F, const struct rt_fsubj *s)
{
	return !F || eval(F, F->root, s);
}

int rt_filter_flow(const struct rt_filter *F, const struct rt_snapshot *s, const struct rt_flow *f,
		   const struct rt_flow_val *v, const struct rt_delta *d)
{
	struct rt_fsubj x = {
		.kind = RT_FK_FLOW, .f = f, .v = v, .paused = -1, .s = s, .d = d,
	};

	if (!F)
		return 1;
	x.ifname = rt_snapshot_ifname(s, f->k.ifindex);
	return eval(F, F->root, &x);
}

int rt_filter_delta(const struct rt_filter *F, const struct rt_snapshot *cur, const struct rt_delta *d,
		    struct rt_delta *out, struct rt_flow_delta **buf, size_t *cap)
{
	size_t i, n = 0;

	*out = *d;
	if (!F)
		return 0;
	if (rt_grow_to((void **)buf, cap, d->nflows ? d->nflows : 1, sizeof(**buf)))
		return -ENOMEM;
	memset(&out->flow_tot, 0, sizeof(out->flow_tot));
	memset(&out->est_tot, 0, sizeof(out->est_tot));
	for (i = 0; i < d->nflows; i++) {
		const struct rt_flow_delta *x = &d->flows[i];

		if (!rt_filter_flow(F, cur, x->f, &x->d, d))
			continue;
		(*buf)[n++] = *x;
		rt_flow_val_add(x->f->estimate ? &out->est_tot : &out->flow_tot, &x->d);
	}
	out->flows = *buf;
	out->nflows = n;
	out->flows_cap = *cap;
	return 0;
}
