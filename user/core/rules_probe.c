// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe mesh's findings: path-down, path-loss, path-latency and
 * host-stall, read from the interval's probe rows (probe_row.h; the mesh in
 * user/probe/probe_stats.c judged each row), as episodes like every other
 * finding, run from rules.c's table. A path is a peer's flow label: its
 * rows, one per probe size, are read together, so a path whose large probes
 * die while its small ones come back says so (a bad optic, an MTU
 * mismatch). host-stall is the peer's, over all its paths. Also here: what
 * the probes to a flow's peer show, added to the evidence of the
 * congestion, loss and victim findings that name that peer
 * (rt_probe_evidence, from rules.c's end of an interval).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "findings.h"
#include "fmt.h"
#include "rules_probe.h"

static const char next_down[] =
	"Nothing comes back on this path: check the links, switch ports and optics along the flow label's ECMP path and the MTU on each hop, that the peer answers (UDP 4791 open between the hosts), and take a capture of UDP 4791 on both hosts.";
static const char next_loss[] =
	"Probes die on this path: check the switch ports and optics along the flow label's ECMP path (their error and discard counters), the MTU on each hop when only large probes die, and take a capture of UDP 4791 on both hosts to see where they stop.";
static const char next_latency[] =
	"The network holds the probes: look at the switch queues along this flow label's ECMP path (queue depth, ECN marks, deep-queue findings) and at PFC pauses on the probes' priority.";
static const char next_stall[] =
	"The peer host is slow to answer, not the fabric: look at its CPU load, cgroup CPU throttling (cpu.max, throttled time in cpu.stat) and the IRQ affinity of its RDMA NIC.";

/* The subject of a peer (its name and address), and of one of its paths. */
static void peer_subject(struct rt_subject *s, const struct rt_probe_row *r, int with_path)
{
	memset(s, 0, sizeof(*s));
	s->has = RT_SUBJ_PEER;
	snprintf(s->peer, sizeof(s->peer), "%s", r->peer);
	if (inet_pton(AF_INET, r->addr, s->dst) == 1) {
		s->family = 4;
		s->has |= RT_SUBJ_DST;
	} else if (inet_pton(AF_INET6, r->addr, s->dst) == 1) {
		s->family = 6;
		s->has |= RT_SUBJ_DST;
	}
	if (with_path) {
		s->has |= RT_SUBJ_PATH;
		s->path = r->path;
		s->flow_label = r->flow_label;
	}
}

static int same_peer(const struct rt_probe_row *a, const struct rt_probe_row *b)
{
	return !strcmp(a->peer, b->peer) && !strcmp(a->addr, b->addr);
}

static int same_path(const struct rt_probe_row *a, const struct rt_probe_row *b)
{
	return same_peer(a, b) && a->path == b->path && a->flow_label == b->flow_label;
}

/*
 * The rows in path order: by address, name, path and flow label, then as
 * the snapshot has them (so a path's sizes keep the mesh's order). A
 * path's rows, and a peer's, are then runs of the order: each rule reads
 * the interval's rows in O(n log n), not a walk of every row for each.
 */
struct order {
	const struct rt_probe_row **ix;	/* the snapshot's rows, in path order */
	size_t n;
};

static int order_cmp(const void *x, const void *y)
{
	const struct rt_probe_row *a = *(const struct rt_probe_row *const *)x;
	const struct rt_probe_row *b = *(const struct rt_probe_row *const *)y;
	int c = strcmp(a->addr, b->addr);

	if (!c)
		c = strcmp(a->peer, b->peer);
	if (!c)
		c = (a->path > b->path) - (a->path < b->path);
	if (!c)
		c = (a->flow_label > b->flow_label) - (a->flow_label < b->flow_label);
	return c ? c : (a > b) - (a < b);	/* one array: its order */
}

/* 0, or -ENOMEM. */
static int order_make(struct order *o, const struct rt_snapshot *s)
{
	o->n = s->nprobes;
	o->ix = malloc((o->n ? o->n : 1) * sizeof(*o->ix));
	if (!o->ix)
		return -ENOMEM;
	for (size_t i = 0; i < o->n; i++)
		o->ix[i] = &s->probes[i];
	qsort(o->ix, o->n, sizeof(*o->ix), order_cmp);
	return 0;
}

static const struct rt_probe_row *at(const struct order *o, size_t k)
{
	return o->ix[k];
}

/* The end of the run of rows from g on that same keeps together. */
static size_t run_end(const struct order *o, size_t g, int (*same)(const struct rt_probe_row *,
								   const struct rt_probe_row *))
{
	size_t e = g + 1;

	while (e < o->n && same(at(o, e), at(o, g)))
		e++;
	return e;
}

/* "64 and 1024", "64, 512 and 1024": the sizes of rows [g, e) that pick selects. */
static const char *sizes_text(const struct order *o, size_t g, size_t e, int (*pick)(const struct rt_probe_row *),
			      char *buf, size_t len)
{
	size_t n = 0, k = 0, all = 0;

	for (size_t j = g; j < e; j++)
		all += pick(at(o, j)) != 0;
	buf[0] = '\0';
	for (size_t j = g; j < e; j++) {
		if (!pick(at(o, j)))
			continue;
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%u",
				      !k ? "" : k + 1 == all ? " and " : ", ", at(o, j)->size);
		k++;
	}
	if (n >= len)
		buf[len - 1] = '\0';
	return buf;
}

static int is_down(const struct rt_probe_row *r)
{
	return r->finding == RT_PF_PATH_DOWN;
}

static int is_lossy(const struct rt_probe_row *r)
{
	return r->finding == RT_PF_PATH_DOWN || r->finding == RT_PF_PATH_LOSS;
}

/* A size that lost nothing and was answered in the interval. */
static int is_clean(const struct rt_probe_row *r)
{
	return !is_lossy(r) && !r->lost && r->answered;
}

static int is_any(const struct rt_probe_row *r)
{
	(void)r;
	return 1;
}

static int is_latency(const struct rt_probe_row *r)
{
	return r->finding == RT_PF_PATH_LATENCY;
}

/* Rows [g, e) that pick selects: how many, their probes sent and lost, the first (or NULL). */
static const struct rt_probe_row *path_rows(const struct order *o, size_t g, size_t e,
					     int (*pick)(const struct rt_probe_row *), size_t *npick,
					     __u64 *sent, __u64 *lost)
{
	const struct rt_probe_row *first = NULL;

	*npick = 0;
	*sent = *lost = 0;
	for (size_t j = g; j < e; j++) {
		const struct rt_probe_row *r = at(o, j);

		if (!pick(r))
			continue;
		(*npick)++;
		*sent += r->sent;
		*lost += r->lost;
		if (!first)
			first = r;
	}
	return first;
}

/* "peer b (10.0.0.2) path 1, flow label 0x12345, UDP sport 49152" */
static const char *path_text(const struct rt_probe_row *r, char *buf, size_t len)
{
	char sport[24] = "";

	if (r->udp_sport)
		snprintf(sport, sizeof(sport), ", UDP sport %u", r->udp_sport);
	snprintf(buf, len, "peer %s (%s) path %u, flow label 0x%05x%s", r->peer, r->addr, r->path, r->flow_label,
		 sport);
	return buf;
}

/* One path's rows [g, e): path-down when every size is down. */
static int path_down(struct rt_findings *F, const struct order *o, size_t g, size_t e)
{
	const struct rt_probe_row *r;
	struct rt_subject s;
	size_t ndown;
	__u64 sent, lost;
	char pt[200], sz[64];

	r = path_rows(o, g, e, is_down, &ndown, &sent, &lost);
	if (!r || ndown != e - g)
		return 0;
	peer_subject(&s, r, 1);
	return rt_findings_match(F, RT_SEV_CRITICAL, &s, 1, (double)lost, "probes lost", next_down,
				 "%s; %s, %s-byte probes", r->why, path_text(r, pt, sizeof(pt)),
				 sizes_text(o, g, e, is_any, sz, sizeof(sz)));
}

/* One path's rows [g, e): path-loss when some size lost, not every one down;
 * the sizes named when others on the path lost none. */
static int path_loss(struct rt_findings *F, const struct order *o, size_t g, size_t e)
{
	const struct rt_probe_row *r;
	struct rt_subject s;
	size_t nlossy, nclean, ndown;
	__u64 sent, lost, s2, l2;
	char pt[200], sz[64], ok[64];

	r = path_rows(o, g, e, is_lossy, &nlossy, &sent, &lost);
	path_rows(o, g, e, is_down, &ndown, &s2, &l2);
	if (!r || ndown == e - g)	/* every size down: path-down says it */
		return 0;
	path_rows(o, g, e, is_clean, &nclean, &s2, &l2);
	peer_subject(&s, r, 1);
	path_text(r, pt, sizeof(pt));
	sizes_text(o, g, e, is_lossy, sz, sizeof(sz));
	if (nclean)	/* only some sizes die: name them */
		return rt_findings_match(F, RT_SEV_WARNING, &s, 1, sent ? (double)lost / (double)sent : 1,
			RT_UNIT_SHARE, next_loss,
			"only the %s-byte probes die (%s), the %s-byte ones on the same path lose none; %s", sz, r->why,
			sizes_text(o, g, e, is_clean, ok, sizeof(ok)), pt);
	return rt_findings_match(F, RT_SEV_WARNING, &s, 1, sent ? (double)lost / (double)sent : 1,
				 RT_UNIT_SHARE, next_loss, "%s; %s, %s-byte probes", r->why, pt, sz);
}

/* One path's rows [g, e): path-latency when a size says so. */
static int path_latency(struct rt_findings *F, const struct order *o, size_t g, size_t e)
{
	const struct rt_probe_row *r;
	struct rt_subject s;
	size_t nlat;
	__u64 sent, lost;
	char pt[200], sz[64];

	r = path_rows(o, g, e, is_latency, &nlat, &sent, &lost);
	if (!r)
		return 0;
	peer_subject(&s, r, 1);
	return rt_findings_match(F, RT_SEV_WARNING, &s, 1, r->net_p50_us, "us network time (p50)",
				 next_latency, "%s; %s, %s-byte probes", r->why, path_text(r, pt, sizeof(pt)),
				 sizes_text(o, g, e, is_latency, sz, sizeof(sz)));
}

/* One peer's rows [g, e): host-stall when a path of it says so. */
static int host_stall(struct rt_findings *F, const struct order *o, size_t g, size_t e)
{
	const struct rt_probe_row *r = NULL;
	struct rt_subject s;
	size_t paths = 0, stalled = 0;
	char pt[200];

	for (size_t p = g, pe; p < e; p = pe) {
		pe = run_end(o, p, same_path);
		paths++;
		for (size_t k = p; k < pe; k++)
			if (at(o, k)->finding == RT_PF_HOST_STALL) {
				stalled++;
				r = r ? r : at(o, k);
				break;
			}
	}
	if (!r)
		return 0;
	peer_subject(&s, r, 0);
	return rt_findings_match(F, RT_SEV_WARNING, &s, 1, r->resp_p50_us, "us responder time (p50)",
				 next_stall, "%s; on %zu of %zu paths to the peer, %s, %u-byte probes", r->why, stalled,
				 paths, path_text(r, pt, sizeof(pt)), r->size);
}

/* Each run of rows that same keeps together, judged by one: 0 or -ENOMEM. */
static int each_run(struct rt_findings *F, const struct rt_snapshot *cur,
		    int (*same)(const struct rt_probe_row *, const struct rt_probe_row *),
		    int (*one)(struct rt_findings *, const struct order *, size_t, size_t))
{
	struct order o;
	int err = 0;

	if (!cur->nprobes)
		return 0;
	if (order_make(&o, cur))
		return -ENOMEM;
	for (size_t g = 0, e; g < o.n; g = e) {
		e = run_end(&o, g, same);
		err |= one(F, &o, g, e);
	}
	free(o.ix);
	return err;
}

int rt_rule_path_down(struct rt_rule_ctx *c)
{
	return each_run(c->F, c->cur, same_path, path_down);
}

int rt_rule_path_loss(struct rt_rule_ctx *c)
{
	return each_run(c->F, c->cur, same_path, path_loss);
}

int rt_rule_path_latency(struct rt_rule_ctx *c)
{
	return each_run(c->F, c->cur, same_path, path_latency);
}

int rt_rule_host_stall(struct rt_rule_ctx *c)
{
	return each_run(c->F, c->cur, same_peer, host_stall);
}

/* ---- what the probes to a flow's peer show, for that flow's findings ---- */

/* Does a row's address (text) name the address family/a? */
static int row_is(const struct rt_probe_row *r, __u8 family, const __u8 *a)
{
	__u8 b[16] = { 0 };

	return inet_pton(family == 6 ? AF_INET6 : AF_INET, r->addr, b) == 1 && !memcmp(a, b, family == 6 ? 16 : 4);
}

/* The probes to the address family/a in s, summed into a sentence: -1 when none. */
static int peer_summary(const struct rt_snapshot *s, __u8 family, const __u8 *a, char *out, size_t len)
{
	char addr[RT_ADDR_STRLEN];
	const struct rt_probe_row *worst = NULL;
	double net = -1, resp = -1, base = 0;
	__u64 sent = 0, lost = 0;
	const char *name = NULL;

	for (size_t i = 0; i < s->nprobes; i++) {
		const struct rt_probe_row *r = &s->probes[i];

		if (!row_is(r, family, a))
			continue;
		name = r->peer;
		sent += r->sent;
		lost += r->lost;
		if (r->net_p50_us > net)
			net = r->net_p50_us;
		if (r->resp_p50_us > resp)
			resp = r->resp_p50_us;
		if (r->net_base_us > base)
			base = r->net_base_us;
		if (r->finding && (!worst || r->finding < worst->finding))
			worst = r;	/* down, loss, latency, stall: the first says most */
	}
	if (!name)
		return -1;
	rt_fmt_addr(family, a, addr, sizeof(addr));
	if (worst && is_lossy(worst))
		snprintf(out, len, "probes to %s: %llu of %llu lost (%s): the path", addr, (unsigned long long)lost,
			 (unsigned long long)sent, rt_probe_finding_name(worst->finding));
	else if (worst && worst->finding == RT_PF_PATH_LATENCY)
		snprintf(out, len, "probes to %s: network p50 %s against %s usual: the path", addr,
			 RT_DUR(worst->net_p50_us / 1e6), RT_DUR(worst->net_base_us / 1e6));
	else if (worst)
		snprintf(out, len, "probes to %s: network RTT %s as usual, responder %s: the peer host stalls", addr,
			 RT_DUR(worst->net_p50_us / 1e6), RT_DUR(worst->resp_p50_us / 1e6));
	else if (net >= 0)
		snprintf(out, len, "probes to %s: network p50 %s (usual %s), responder %s, %llu of %llu lost: "
			 "neither the path nor the peer host", addr, RT_DUR(net / 1e6), RT_DUR(base / 1e6),
			 RT_DUR(resp / 1e6), (unsigned long long)lost, (unsigned long long)sent);
	else
		snprintf(out, len, "probes to %s: no answer timed in this interval (%llu sent, %llu lost)", addr,
			 (unsigned long long)sent, (unsigned long long)lost);
	return 0;
}

static int names_peer_rule(const char *rule)
{
	return !strcmp(rule, "congestion") || !strcmp(rule, "loss") || !strcmp(rule, "victim");
}

/* Append "; note" to an evidence (and to this interval's events of that finding). */
static void append_note(struct rt_findings *F, struct rt_finding *f, const char *note)
{
	size_t n = strlen(f->evidence);

	snprintf(f->evidence + n, sizeof(f->evidence) - n, "; %s", note);
	rt_fmt_safe(f->evidence, f->evidence, sizeof(f->evidence));	/* a peer's name from a file */
	for (size_t i = 0; i < F->nev; i++)
		if (F->ev[i].id == f->id && !strstr(F->ev[i].f.evidence, "probes to "))
			memcpy(F->ev[i].f.evidence, f->evidence, sizeof(f->evidence));
}

void rt_probe_evidence(struct rt_findings *F, const struct rt_snapshot *cur)
{
	if (!cur->nprobes)
		return;
	for (size_t i = 0; i < F->n; i++) {
		struct rt_finding *f = &F->tab[i];
		char note[200];

		if (!f->open || !f->seen || !names_peer_rule(f->rule) || strstr(f->evidence, "probes to "))
			continue;
		/* the flow's remote end: whichever of its addresses the mesh probes */
		if (((f->subj.has & RT_SUBJ_DST) && !peer_summary(cur, f->subj.family, f->subj.dst, note, sizeof(note))) ||
		    ((f->subj.has & RT_SUBJ_SRC) && !peer_summary(cur, f->subj.family, f->subj.src, note, sizeof(note))))
			append_note(F, f, note);
	}
}
