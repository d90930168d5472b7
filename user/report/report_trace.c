// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop report --perfetto: the Chrome Trace Event Format (JSON) that
 * ui.perfetto.dev and chrome://tracing open. A process per host; in it a
 * thread (track) per interface and per flow drawn (report_viz.h), one for
 * the host's other findings; counter events ("C") for the rates and the
 * fraction of time paused, per host, interface, flow and switch port;
 * complete events ("X") for the episodes, with their evidence as arguments,
 * on the track of what they are about; flow events ("s" to "f") from a CNP
 * flow's slice to the slice of the data flow its CNPs throttle; where each
 * priority's pause storm started (report_origin.c): a slice per host on the
 * interface of its first pause episode sending and receiving, and a flow
 * event from the host it received from; per probed peer, counters of its
 * network time and lost probes.
 *
 * Timestamps are microseconds since the epoch, written exactly from the
 * nanoseconds, on the first host's clock (the report's times are; the
 * series get each host's clock offset added), stated in otherData and in
 * each process's labels. A
 * counter holds its value until its next event, so each point is written at
 * its start, a run of equal values once, and 0 at the end of the last
 * interval: the area under a counter of
 * rates is the count (CE marks, CNPs, ...), under the paused fraction the
 * seconds paused, as the report adds them up.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "derive.h"
#include "report_viz.h"

#define TID_FINDINGS	1
#define TID_IF		100	/* + the interface's place in the report */
#define TID_FLOW	1000	/* + the flow's place in the host's drawn flows */

struct tw {
	FILE *f;
	int first;
};

static void ev_start(struct tw *w)
{
	fputs(w->first ? "\n" : ",\n", w->f);
	w->first = 0;
}

/* ns as microseconds, exactly: "1700000000123456.789" */
static void us(FILE *f, const char *key, __u64 ns)
{
	fprintf(f, ",\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

static void meta(struct tw *w, int pid, int tid, const char *what, const char *name)
{
	ev_start(w);
	fprintf(w->f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"name\":", pid, tid, what);
	rt_viz_json_str(w->f, name);
	fputs("}}", w->f);
}

static void counter_at(struct tw *w, int pid, const char *name, __u64 ts, double v)
{
	ev_start(w);
	fprintf(w->f, "{\"ph\":\"C\",\"pid\":%d", pid);
	us(w->f, "ts", ts);
	fputs(",\"name\":", w->f);
	rt_viz_json_str(w->f, name);
	fputs(",\"args\":{\"value\":", w->f);
	rt_viz_json_exact(w->f, v);
	fputs("}}", w->f);
}

/* One counter track: each point's mean from its start, a run of equal
 * values once, 0 at the end. */
static void counter(struct tw *w, int pid, const struct rt_viz_host *h, const char *name,
		    const struct rt_viz_pt *s)
{
	double prev = 0;
	size_t i;

	for (i = 0; i < h->nb; i++) {
		double v = rt_viz_mean(h, s, i);

		if (i && v == prev)
			continue;
		counter_at(w, pid, name, rt_viz_time(h, h->t0[i]), v);
		prev = v;
	}
	if (h->nb)
		counter_at(w, pid, name, rt_viz_time(h, h->last_ns), 0);
}

/*
 * The probe mesh's peers (report_probe.h): a counter of the network time's
 * p50 (the greatest of the peer's paths and sizes, microseconds; 0: none
 * timed) and one of the probes lost, per interval from its start, 0 at the
 * end. Their times are the report's run's: on the first host's clock.
 */
static void probe_counters(struct tw *w, int pid, const struct rt_viz_host *h)
{
	const struct rt_rep_probes *P = &h->run->probes;
	__u64 step = h->run->agg.step_ns;
	char name[2][200];

	for (size_t i = 0; i < P->npeers; i++) {
		const struct rt_rep_probe_peer *q = &P->peers[i];

		snprintf(name[0], sizeof(name[0]), "probe network p50 us: %s (%s)", q->peer, q->addr);
		snprintf(name[1], sizeof(name[1]), "probes lost: %s (%s)", q->peer, q->addr);
		for (size_t j = 0; j < q->n; j++) {
			__u64 t = j ? q->pts[j - 1].time_ns : q->pts[j].time_ns - step;

			counter_at(w, pid, name[0], t, q->pts[j].net_p50_us > 0 ? q->pts[j].net_p50_us : 0);
			counter_at(w, pid, name[1], t, (double)q->pts[j].lost);
		}
		if (q->n) {
			counter_at(w, pid, name[0], q->pts[q->n - 1].time_ns, 0);
			counter_at(w, pid, name[1], q->pts[q->n - 1].time_ns, 0);
		}
	}
}

static void counters(struct tw *w, int pid, const struct rt_viz_host *h)
{
	char name[320];
	size_t i;
	int j;

	for (j = 0; j < RT_VIZ_NRATES; j++)
		counter(w, pid, h, rt_viz_rate_names[j], h->tot[j]);
	for (i = 0; i < h->npauses; i++) {
		snprintf(name, sizeof(name), "paused fraction: %s", h->pauses[i].name);
		counter(w, pid, h, name, h->pauses[i].s);
	}
	for (i = 0; i < h->nflows; i++)
		for (j = 0; j < RT_VIZ_NRATES; j++) {
			snprintf(name, sizeof(name), "%s: %s", rt_viz_rate_names[j], h->flows[i].name);
			counter(w, pid, h, name, h->flows[i].s[j]);
		}
	for (i = 0; i < h->nports; i++) {
		snprintf(name, sizeof(name), "queue depth bytes: %s", h->ports[i].name);
		counter(w, pid, h, name, h->ports[i].depth);
		snprintf(name, sizeof(name), "drops/s: %s", h->ports[i].name);
		counter(w, pid, h, name, h->ports[i].drops);
	}
	probe_counters(w, pid, h);
}

/* The track of a finding's subject: a drawn flow, an interface, or the host's. */
static int finding_tid(const struct rt_viz_host *h, const struct rt_finding *f)
{
	const struct rt_subject *s = &f->subj;
	const struct rt_rep *r = &h->run->agg;
	size_t i;

	if ((s->has & RT_SUBJ_SRC) && (s->has & RT_SUBJ_DST))
		for (i = 0; i < h->nflows; i++) {
			const struct rt_flow_key *k = &h->flows[i].k;

			if (!memcmp(k->src, s->src, 16) && !memcmp(k->dst, s->dst, 16) &&
			    (!(s->has & RT_SUBJ_DQPN) || k->dqpn == s->dqpn))
				return TID_FLOW + (int)i;
		}
	if (s->has & RT_SUBJ_IFNAME)
		for (i = 0; i < r->nifs; i++)
			if (!strcmp(r->ifs[i].name, s->ifname) &&
			    (!(s->has & RT_SUBJ_DIR) || r->ifs[i].k.dir == s->dir))
				return TID_IF + (int)i;
	return TID_FINDINGS;
}

static void findings(struct tw *w, const struct rt_viz_host *hs, int n)
{
	struct rt_viz_ep *ep;
	size_t nep, i;
	char subj[600];

	if (rt_viz_episodes(hs, n, &ep, &nep))
		return;
	for (i = 0; i < nep; i++) {
		const struct rt_finding *f = ep[i].f;
		const struct rt_viz_host *h = &hs[ep[i].host];

		ev_start(w);
		fprintf(w->f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d", ep[i].host + 1, finding_tid(h, f));
		us(w->f, "ts", f->start_ns);	/* the report's: on the first host's clock */
		us(w->f, "dur", f->end_ns - f->start_ns);
		fputs(",\"cat\":\"finding\",\"name\":", w->f);
		rt_viz_json_str(w->f, f->rule);
		fputs(",\"args\":{\"severity\":", w->f);
		rt_viz_json_str(w->f, rt_sev_name(f->sev));
		fputs(",\"subject\":", w->f);
		rt_viz_json_str(w->f, rt_subject_text(&f->subj, subj, sizeof(subj)));
		fputs(",\"evidence\":", w->f);
		rt_viz_json_str(w->f, f->evidence);
		fputs(",\"next\":", w->f);
		rt_viz_json_str(w->f, f->next);
		fputs(",\"peak\":", w->f);
		rt_viz_json_exact(w->f, f->peak);
		fputs("}}", w->f);
	}
	free(ep);
}

/* A slice's start: its place and time; the caller writes the rest. */
static void slice_start(struct tw *w, int pid, int tid, __u64 ts, __u64 dur)
{
	ev_start(w);
	fprintf(w->f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d", pid, tid);
	us(w->f, "ts", ts);
	us(w->f, "dur", dur);
}

static void slice(struct tw *w, int pid, int tid, __u64 ts, __u64 dur, const char *name, const char *args)
{
	slice_start(w, pid, tid, ts, dur);
	fprintf(w->f, ",\"cat\":\"cnp\",\"name\":\"%s\",\"args\":{%s}}", name, args);
}

/* One end of a flow event (an arrow): PH "s" starts it, "f" ends it. */
static void arrow(struct tw *w, const char *cat, const char *name, const char *ph, unsigned id, int pid,
		  int tid, __u64 ts)
{
	ev_start(w);
	fprintf(w->f, "{\"ph\":\"%s\",%s\"id\":%u,\"pid\":%d,\"tid\":%d", ph, *ph == 'f' ? "\"bp\":\"e\"," : "",
		id, pid, tid);
	us(w->f, "ts", ts);
	fprintf(w->f, ",\"cat\":\"%s\",\"name\":\"%s\"}", cat, name);
}

/* A CNP flow's CNPs and the data flow they throttle: a slice on each over
 * the points with CNPs, bound by a flow event in the busiest point. */
static void cnp_flow(struct tw *w, const struct rt_viz_host *hs, int hi, size_t fi, unsigned id)
{
	const struct rt_viz_host *h = &hs[hi];
	const struct rt_viz_flow *c = &h->flows[fi];
	const struct rt_viz_pt *s = c->s[RT_VIZ_CNP];
	size_t i, lo = h->nb, hi_i = 0, pk = 0;
	__u64 t0, t1, at;
	char args[128];

	for (i = 0; i < h->nb; i++)
		if (s[i].amt > 0) {
			lo = lo < i ? lo : i;
			hi_i = i;
			pk = s[i].amt > s[pk].amt ? i : pk;
		}
	if (lo == h->nb)
		return;
	t0 = rt_viz_time(h, h->t0[lo]);
	t1 = rt_viz_time(h, rt_viz_end(h, hi_i));
	at = rt_viz_time(h, h->t0[pk] + (rt_viz_end(h, pk) - h->t0[pk]) / 2);
	snprintf(args, sizeof(args), "\"cnps\":%llu", (unsigned long long)c->v.cnp);
	slice(w, hi + 1, TID_FLOW + (int)fi, t0, t1 - t0, "CNPs", args);
	slice(w, c->cnp_host + 1, TID_FLOW + c->cnp_flow, t0, t1 - t0, "throttled by CNPs", args);
	arrow(w, "cnp", "CNP throttles", "s", id, hi + 1, TID_FLOW + (int)fi, at);
	arrow(w, "cnp", "CNP throttles", "f", id, c->cnp_host + 1, TID_FLOW + c->cnp_flow, at);
}

/* The track of a pause episode: its interface and direction, else the host's. */
static int pep_tid(const struct rt_viz_host *h, const struct rt_rep_pep *e)
{
	const struct rt_rep *r = &h->run->agg;
	size_t i;

	for (i = 0; !e->nic && i < r->nifs; i++)
		if (r->ifs[i].k.dir == e->dir && !strcmp(r->ifs[i].name, e->name))
			return TID_IF + (int)i;
	return TID_FINDINGS;
}

static void pep_slice(struct tw *w, const struct rt_po_prio *P, int pid, const struct rt_viz_host *h,
		      const struct rt_rep_pep *e, const char *what, __u64 frames)
{
	/* the report's times: on the first host's clock */
	slice_start(w, pid, pep_tid(h, e), e->start_ns, e->end_ns - e->start_ns);
	fprintf(w->f, ",\"cat\":\"pause\",\"name\":\"%s, priority %u\",\"args\":{\"ifname\":", what, P->prio);
	rt_viz_json_str(w->f, e->name);
	fprintf(w->f, ",\"frames\":%llu,\"decided\":%s}}", (unsigned long long)frames,
		P->decided ? "true" : "false");
}

static const char *const po_what[] = {
	[RT_PO_ORIGIN] = "pause origin", [RT_PO_SPREAD] = "pause spread", [RT_PO_PAUSED] = "paused",
	[RT_PO_UNSURE] = "pause unsure", [RT_PO_UNPLACED] = "pause unplaced",
};

/* Each priority's hosts: their first sending and receiving, and an arrow
 * from the sending of the host each received from. 0 or -ENOMEM. */
static int pause_origin(struct tw *w, const struct rt_viz_host *hs, int n, unsigned *id)
{
	struct rt_po_host *ph = calloc((size_t)n + 1, sizeof(*ph));
	struct rt_po_prio *P = calloc(RT_NPRIO, sizeof(*P));
	int i, j, np;

	if (!ph || !P) {
		free(ph);
		free(P);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		ph[i] = (struct rt_po_host){ .label = hs[i].label, .peps = hs[i].run->agg.peps,
					     .npeps = hs[i].run->agg.npeps, .clock_known = hs[i].offset_known || !i,
					     .margin_ns = hs[i].offset_margin_ns };
	np = rt_po_build(ph, n, P);
	for (i = 0; i < np; i++)
		for (j = 0; j < P[i].n; j++) {
			const struct rt_po_node *x = &P[i].node[j], *p;
			const struct rt_viz_host *h = &hs[x->host];

			if (x->tx)
				pep_slice(w, &P[i], x->host + 1, h, x->tx, po_what[x->role], x->tx_frames);
			if (x->rx)
				pep_slice(w, &P[i], x->host + 1, h, x->rx,
					  x->role == RT_PO_PAUSED ? "paused" : "pause received", x->rx_frames);
			if (x->parent < 0)
				continue;
			p = &P[i].node[x->parent];
			arrow(w, "pause", "pauses", "s", *id, p->host + 1, pep_tid(&hs[p->host], p->tx), p->tx->start_ns);
			arrow(w, "pause", "pauses", "f", (*id)++, x->host + 1, pep_tid(h, x->rx),
			      x->rx->start_ns > p->tx->start_ns ? x->rx->start_ns : p->tx->start_ns);
		}
	free(ph);
	free(P);
	return 0;
}

static void tracks(struct tw *w, int pid, const struct rt_viz_host *h)
{
	const struct rt_rep *r = &h->run->agg;
	char name[320];
	size_t i;

	meta(w, pid, 0, "process_name", h->label);
	meta(w, pid, TID_FINDINGS, "thread_name", "findings");
	for (i = 0; i < r->nifs; i++) {
		snprintf(name, sizeof(name), "interface %s %s", r->ifs[i].name, rt_dir_name(r->ifs[i].k.dir));
		meta(w, pid, TID_IF + (int)i, "thread_name", name);
	}
	for (i = 0; i < h->nflows; i++) {
		snprintf(name, sizeof(name), "flow %s", h->flows[i].name);
		meta(w, pid, TID_FLOW + (int)i, "thread_name", name);
	}
}

/* Each host's clock against the first's: [{"host", "estimated", "offset_s", "flows", "text"}]. */
static void clocks(FILE *f, const struct rt_viz_host *hs, int n)
{
	char t[200];
	int h;

	for (h = 0; h < n; h++) {
		fputs(h ? ",{\"host\":" : "[{\"host\":", f);
		rt_viz_json_str(f, hs[h].label);
		fprintf(f, ",\"estimated\":%s,\"offset_s\":", hs[h].offset_known || !h ? "true" : "false");
		rt_viz_json_exact(f, (double)-hs[h].offset_ns / 1e9);
		fprintf(f, ",\"flows\":%u,\"text\":", hs[h].offset_flows);
		rt_viz_json_str(f, rt_viz_clock_text(hs, h, t, sizeof(t)));
		fputc('}', f);
	}
	fputc(']', f);
}

int rt_report_trace_write(FILE *f, const struct rt_viz_host *hs, int n)
{
	struct tw w = { .f = f, .first = 1 };
	unsigned id = 1;
	int h;

	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"rocetop report\",\"clock_offsets\":", f);
	clocks(f, hs, n);
	fputs("},\"traceEvents\":[", f);
	for (h = 0; h < n; h++) {
		char c[200], label[220];

		tracks(&w, h + 1, &hs[h]);
		snprintf(label, sizeof(label), "clock: %s", rt_viz_clock_text(hs, h, c, sizeof(c)));
		ev_start(&w);
		fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":\"process_labels\",\"args\":{\"labels\":", h + 1);
		rt_viz_json_str(f, label);
		fputs("}}", f);
		counters(&w, h + 1, &hs[h]);
	}
	findings(&w, hs, n);
	for (h = 0; h < n; h++)
		for (size_t i = 0; i < hs[h].nflows; i++)
			if (hs[h].flows[i].cnp_flow >= 0)
				cnp_flow(&w, hs, h, i, id++);
	if (pause_origin(&w, hs, n, &id))
		return -ENOMEM;
	fputs("\n]}\n", f);
	return fflush(f) || ferror(f) ? -(errno ? errno : EIO) : 0;
}
