// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop report --html: one self-contained page. The chart library
 * (dygraphs, Debian's libjs-dygraphs) and the page's own script and style
 * (report_html.js, report_html.css) are inlined at build time (the Makefile
 * turns each into an array of bytes), so the file needs no network and the
 * binary no package at run time; a Content-Security-Policy forbids every
 * request, and every script but those two (allowed by their SHA-256, which
 * the Makefile computes into gen/report_html_csp.h): a text from a file that
 * reached the page as markup could run nothing. The page reads two JSON blocks: the report's own --json document,
 * shown as it is (summary, paused time, host pairs), and the drawing's data
 * (report_viz.h: the hosts' series, the flows drawn, the episodes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "derive.h"
#include "report_viz.h"
#include "gen/report_html_csp.h"

static const char dygraph_js[] = {
#include "gen/dygraph.min.js.inc"
};
static const char dygraph_css[] = {
#include "gen/dygraph.min.css.inc"
};
static const char page_js[] = {
#include "gen/report_html.js.inc"
};
static const char page_css[] = {
#include "gen/report_html.css.inc"
};

/* A series: its values when a point is one interval, else least, mean, greatest. */
static void ser_out(FILE *f, const char *key, const struct rt_viz_host *h, const struct rt_viz_pt *s)
{
	static const char *const parts[] = { "min", "mean", "max" };
	size_t i;
	int k;

	fprintf(f, "\"%s\":{", key);
	for (k = h->k == 1 ? 1 : 0; k < (h->k == 1 ? 2 : 3); k++) {
		fprintf(f, "%s\"%s\":[", k && h->k != 1 ? "," : "", h->k == 1 ? "v" : parts[k]);
		for (i = 0; i < h->nb; i++) {
			if (i)
				fputc(',', f);
			rt_viz_json_num(f, k == 0 ? s[i].min : k == 1 ? rt_viz_mean(h, s, i) : s[i].max);
		}
		fputc(']', f);
	}
	fputc('}', f);
}

static void rates_out(FILE *f, const struct rt_viz_host *h, struct rt_viz_pt *const *s)
{
	int j;

	fputc('{', f);
	for (j = 0; j < RT_VIZ_NRATES; j++) {
		if (j)
			fputc(',', f);
		ser_out(f, rt_viz_rate_names[j], h, s[j]);
	}
	fputc('}', f);
}

static void flows_out(FILE *f, const struct rt_viz_host *h)
{
	size_t i;

	fputs(",\"flows\":[", f);
	for (i = 0; i < h->nflows; i++) {
		const struct rt_viz_flow *x = &h->flows[i];

		fprintf(f, "%s{\"name\":", i ? "," : "");
		rt_viz_json_str(f, x->name);
		fprintf(f, ",\"top\":%s,\"pkts\":%llu,\"ce\":%llu,\"cnp\":%llu,\"nak\":%llu,\"rnr_nak\":%llu",
			i < h->nflows_top ? "true" : "false", x->v.pkts, x->v.ecn[RT_ECN_CE], x->v.cnp,
			rt_nak(&x->v), x->v.rnr_nak);
		if (x->cnp_flow >= 0)
			fprintf(f, ",\"throttles\":[%d,%d]", x->cnp_host, x->cnp_flow);
		fputs(",\"s\":", f);
		rates_out(f, h, x->s);
		fputc('}', f);
	}
	fputc(']', f);
}

static void pauses_ports_out(FILE *f, const struct rt_viz_host *h)
{
	size_t i;

	fputs(",\"pauses\":[", f);
	for (i = 0; i < h->npauses; i++) {
		fprintf(f, "%s{\"name\":", i ? "," : "");
		rt_viz_json_str(f, h->pauses[i].name);
		fputs(",\"seconds\":", f);
		rt_viz_json_exact(f, h->pauses[i].paused);
		fputc(',', f);
		ser_out(f, "s", h, h->pauses[i].s);
		fputc('}', f);
	}
	fputs("],\"ports\":[", f);
	for (i = 0; i < h->nports; i++) {
		fprintf(f, "%s{\"name\":", i ? "," : "");
		rt_viz_json_str(f, h->ports[i].name);
		fputc(',', f);
		ser_out(f, "depth", h, h->ports[i].depth);
		fputc(',', f);
		ser_out(f, "drops", h, h->ports[i].drops);
		fputc('}', f);
	}
	fputc(']', f);
}

/* The probed peers' timelines (report_probe.h): each interval's network
 * p50 (us, null: none timed) and lost probes, from its start; the times are
 * the report's run's, on the first host's clock already. */
static void probes_out(FILE *f, const struct rt_viz_host *h, __u64 base)
{
	const struct rt_rep_probes *P = &h->run->probes;
	char name[120];

	fputs(",\"probes\":[", f);
	for (size_t i = 0; i < P->npeers; i++) {
		const struct rt_rep_probe_peer *q = &P->peers[i];

		snprintf(name, sizeof(name), "%s (%s)", q->peer, q->addr);
		fprintf(f, "%s{\"name\":", i ? "," : "");
		rt_viz_json_str(f, name);
		fputs(",\"t\":[", f);
		for (size_t j = 0; j < q->n; j++) {
			__u64 t = j ? q->pts[j - 1].time_ns : q->pts[j].time_ns - h->run->agg.step_ns;

			fprintf(f, "%s%.10g", j ? "," : "", ((double)t - (double)base) / 1e6);
		}
		fputs("],\"net\":[", f);
		for (size_t j = 0; j < q->n; j++) {
			fputs(j ? "," : "", f);
			if (q->pts[j].net_p50_us >= 0)
				rt_viz_json_num(f, q->pts[j].net_p50_us);
			else
				fputs("null", f);
		}
		fputs("],\"lost\":[", f);
		for (size_t j = 0; j < q->n; j++)
			fprintf(f, "%s%llu", j ? "," : "", (unsigned long long)q->pts[j].lost);
		fputs("]}", f);
	}
	fputc(']', f);
}

static void host_out(FILE *f, const struct rt_viz_host *hs, int hi, __u64 base)
{
	const struct rt_viz_host *h = &hs[hi];
	char clock[200];
	size_t i;

	fputs("{\"label\":", f);
	rt_viz_json_str(f, h->label);
	fputs(",\"clock\":", f);
	rt_viz_json_str(f, rt_viz_clock_text(hs, hi, clock, sizeof(clock)));
	fputs(",\"kind\":", f);
	rt_viz_json_str(f, h->run->kind);
	fprintf(f, ",\"offset_ns\":%lld,\"offset_known\":%s,\"k\":%llu,\"intervals\":%llu,\"points\":%zu,\"t\":[",
		(long long)h->offset_ns, h->offset_known ? "true" : "false", (unsigned long long)h->k,
		(unsigned long long)h->run->agg.intervals, h->nb);
	for (i = 0; i < h->nb; i++)
		fprintf(f, "%s%.10g", i ? "," : "", ((double)rt_viz_time(h, h->t0[i]) - (double)base) / 1e6);
	fputs("],\"tot\":", f);
	rates_out(f, h, h->tot);
	flows_out(f, h);
	pauses_ports_out(f, h);
	probes_out(f, h, base);
	fputc('}', f);
}

static void episode_out(FILE *f, const struct rt_viz_ep *e, int first)
{
	const struct rt_finding *x = e->f;
	char subj[600];

	fprintf(f, "%s{\"host\":%d,\"id\":%u,\"rule\":", first ? "" : ",", e->host, x->id);
	rt_viz_json_str(f, x->rule);
	fputs(",\"severity\":", f);
	rt_viz_json_str(f, rt_sev_name(x->sev));
	fputs(",\"subject\":", f);
	rt_viz_json_str(f, rt_subject_text(&x->subj, subj, sizeof(subj)));
	fputs(",\"start\":", f);
	rt_viz_json_exact(f, x->start_ns / 1e9);
	fputs(",\"end\":", f);
	rt_viz_json_exact(f, x->end_ns / 1e9);
	fputs(",\"peak\":", f);
	rt_viz_json_exact(f, x->peak);
	fputs(",\"peak_unit\":", f);
	rt_viz_json_str(f, x->peak_unit ? x->peak_unit : "");
	fputs(",\"evidence\":", f);
	rt_viz_json_str(f, x->evidence);
	fputs(",\"next\":", f);
	rt_viz_json_str(f, x->next);
	fputc('}', f);
}

/* The drawing's data (report_viz.h), as one JSON object. */
static int data_out(FILE *f, const struct rt_viz_host *hs, int n)
{
	struct rt_viz_ep *ep;
	size_t nep, i;
	__u64 base = ~0ULL;
	int h;

	if (rt_viz_episodes(hs, n, &ep, &nep))
		return -ENOMEM;
	for (h = 0; h < n; h++)
		if (hs[h].nb && rt_viz_time(&hs[h], hs[h].t0[0]) < base)
			base = rt_viz_time(&hs[h], hs[h].t0[0]);
	if (base == ~0ULL)
		base = 0;
	fprintf(f, "{\"generator\":\"rocetop %s\",\"points_max\":%d,\"base_ms\":%llu,\"hosts\":[", RT_VERSION,
		RT_VIZ_HTML_POINTS, (unsigned long long)(base / 1000000));
	for (h = 0; h < n; h++) {
		if (h)
			fputc(',', f);
		host_out(f, hs, h, base - base % 1000000);
	}
	fputs("],\"episodes\":[", f);
	for (i = 0; i < nep; i++)
		episode_out(f, &ep[i], i == 0);
	fputs("]}", f);
	free(ep);
	return 0;
}

/* The report's JSON inside a script block: '<' only occurs in its strings. */
static void json_inline(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("\\u003c", f);
		else if (*s != '\n')
			fputc(*s, f);
	}
}

int rt_report_html_write(FILE *f, const struct rt_viz_host *hs, int n, const char *report_json)
{
	int err;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "script-src " RT_HTML_SCRIPT_HASHES "; style-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>rocetop report</title>\n<style>\n", f);
	fwrite(dygraph_css, 1, sizeof(dygraph_css), f);
	fwrite(page_css, 1, sizeof(page_css), f);
	fputs("</style>\n<script>\n", f);
	fwrite(dygraph_js, 1, sizeof(dygraph_js), f);
	fputs("\n</script>\n<script type=\"application/json\" id=\"rt-report\">", f);
	json_inline(f, report_json);
	fputs("</script>\n<script type=\"application/json\" id=\"rt-data\">", f);
	err = data_out(f, hs, n);
	fputs("</script>\n</head><body>\n<div id=\"app\"><noscript>This report draws itself with JavaScript: "
	      "allow scripts for this file.</noscript></div>\n<script>\n", f);
	fwrite(page_js, 1, sizeof(page_js), f);
	fputs("\n</script>\n</body></html>\n", f);
	if (err)
		return err;
	return fflush(f) || ferror(f) ? -(errno ? errno : EIO) : 0;
}
