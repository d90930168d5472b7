// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe table (user/core/probe_row.h) in the main run's outputs, on
 * snapshots whose probe rows this test builds: --batch's PROBES table and
 * its JSON "probes" array, --csv's probes.csv, and the Prometheus families
 * with their bound. Every expected line is written here by hand from the rows
 * below (whole microseconds as printf's %.0f rounds them, seconds as the
 * microseconds over 10^6), not taken from the code. Without probe rows and
 * without --probe, no output has a trace of them.
 *
 * PROBE_OUT_DIR=dir leaves the documents there: tests/prom/
 * test_probe_outputs.sh reads them with promtool, python's json and csv.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "check.h"
#include "opts.h"
#include "sinks.h"
#include "snapshot.h"
#include "../../exporters/prom.h"
#include "../../exporters/prom_out.h"

static char tmp[] = "/tmp/rt_probe_out.XXXXXX";

static struct rt_probe_row *row(struct rt_snapshot *s, const char *peer, const char *addr, int path,
				__u32 label, __u16 sport, __u32 size)
{
	struct rt_probe_row *r = rt_snapshot_add_probe(s);

	snprintf(r->peer, sizeof(r->peer), "%s", peer);
	snprintf(r->addr, sizeof(r->addr), "%s", addr);
	r->path = (__u8)path;
	r->flow_label = label;
	r->udp_sport = sport;
	r->size = size;
	r->clock = RT_PROBE_CLOCK_SYSTEM;
	return r;
}

/* Three rows: a lossy path, a dead one (no sample: its times -1) whose
 * peer's name holds a quote and a comma, and a clean one whose name holds
 * UTF-8 and a byte that is not. */
static void build(struct rt_snapshot *s, __u64 time_ns)
{
	struct rt_probe_row *r;

	s->time_ns = time_ns;
	snprintf(s->source, sizeof(s->source), "test");
	r = row(s, "b-host", "10.0.0.2", 0, 100, 49153, 64);
	r->sent = 10, r->answered = 9, r->lost = 1;
	r->sent_total = 30, r->answered_total = 28, r->lost_total = 2;
	r->rtt_p50_us = 41.4, r->rtt_p99_us = 97.6, r->net_p50_us = 38.2, r->resp_p50_us = 3.4, r->net_base_us = 37;
	r->finding = RT_PF_PATH_LOSS;
	r = row(s, "c \"q\", x", "10.0.0.3", 1, 7, 0, 4096);
	r->clock = RT_PROBE_CLOCK_DEVICE;
	r->sent = 5, r->lost = 5;
	r->sent_total = 5, r->lost_total = 5;
	r->finding = RT_PF_PATH_DOWN;
	r = row(s, "na\xc3\xafve\xff", "10.0.0.4", 0, 200, 49154, 1024);
	r->sent = 4, r->answered = 4;
	r->sent_total = 12, r->answered_total = 12;
	r->rtt_p50_us = 1234.5, r->rtt_p99_us = 2000, r->net_p50_us = 1200.25, r->resp_p50_us = 34.25;
	r->net_base_us = 1100;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *b = calloc(1, 1 << 20);
	size_t n;

	if (!f || !b) {
		if (f)
			fclose(f);
		return b;
	}
	n = fread(b, 1, (1 << 20) - 1, f);
	b[n] = 0;
	fclose(f);
	return b;
}

/* One interval of a sink whose standard output goes to path; its text. */
static char *run_stdout(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d,
			const char *path)
{
	int save, fd;

	fflush(stdout);
	save = dup(1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	close(fd);
	CHECK(s->emit(s, cur, d) == 0, "emit failed");
	fflush(stdout);
	dup2(save, 1);
	close(save);
	return slurp(path);
}

static const char *const text_rows =
	"PROBES\n"
	"PEER             PATH   LABEL  SPORT  SIZE   SENT  LOST  RTT50us  RTT99us  NET50us RESP50us CLOCK  FINDING\n"
	"b-host              0     100  49153    64     10     1       41       98       38        3 system path-loss\n"
	"c \"q\", x            1       7      0  4096      5     5        -        -        -        - device path-down\n"
	"na??ve?             0     200  49154  1024      4     0     1234     2000     1200       34 system\n"
	"\n";

static const char *const json_rows =
	",\"probes\":["
	"{\"peer\":\"b-host\",\"addr\":\"10.0.0.2\",\"path\":0,\"flow_label\":100,\"udp_sport\":49153,\"size\":64,"
	"\"sent\":10,\"answered\":9,\"lost\":1,\"rtt_p50_us\":41,\"rtt_p99_us\":98,\"net_p50_us\":38,"
	"\"resp_p50_us\":3,\"clock\":\"system\",\"finding\":\"path-loss\"},"
	"{\"peer\":\"c \\\"q\\\", x\",\"addr\":\"10.0.0.3\",\"path\":1,\"flow_label\":7,\"udp_sport\":0,\"size\":4096,"
	"\"sent\":5,\"answered\":0,\"lost\":5,\"rtt_p50_us\":null,\"rtt_p99_us\":null,\"net_p50_us\":null,"
	"\"resp_p50_us\":null,\"clock\":\"device\",\"finding\":\"path-down\"},"
	"{\"peer\":\"na\xc3\xafve\\ufffd\",\"addr\":\"10.0.0.4\",\"path\":0,\"flow_label\":200,\"udp_sport\":49154,"
	"\"size\":1024,\"sent\":4,\"answered\":4,\"lost\":0,\"rtt_p50_us\":1234,\"rtt_p99_us\":2000,"
	"\"net_p50_us\":1200,\"resp_p50_us\":34,\"clock\":\"system\",\"finding\":null}]}\n";

static void test_batch(void)
{
	struct rt_snapshot s, e;
	struct rt_delta d = { 0 };
	struct rt_batch_cfg o = { 0 };
	struct rt_sink *k;
	char path[256], *out;

	rt_snapshot_init(&s);
	rt_snapshot_init(&e);
	build(&s, 1700000001000000000ULL);
	e.time_ns = s.time_ns;
	snprintf(e.source, sizeof(e.source), "test");
	snprintf(path, sizeof(path), "%s/batch.txt", tmp);
	CHECK(rt_delta_compute(&d, NULL, &s) == 0, "delta");

	/* text: the table after the flows, the last thing of the interval */
	k = rt_batch_sink_new(&o);
	out = run_stdout(k, &s, &d, path);
	CHECK(strlen(out) > strlen(text_rows) && !strcmp(out + strlen(out) - strlen(text_rows), text_rows),
	      "the text ends with the PROBES table:\n%s", out);
	CHECK(strstr(out, "RNR/s") && strstr(out, "RNR/s") < strstr(out, "PROBES"), "flows before probes");
	free(out);
	/* no rows: the text as before, no PROBES (with --probe too) */
	o.probe = 1;
	out = run_stdout(k, &e, &d, path);
	CHECK(!strstr(out, "PROBES") && !strstr(out, "PEER"), "a table without rows:\n%s", out);
	k->close(k);
	free(out);

	/* JSON: the "probes" array last, the keys and values of rocetop probe --json */
	o.json = 1;
	k = rt_batch_sink_new(&o);
	out = run_stdout(k, &s, &d, path);
	CHECK(strlen(out) > strlen(json_rows) && !strcmp(out + strlen(out) - strlen(json_rows), json_rows),
	      "the JSON line ends with the probes:\n%s", out);
	if (getenv("PROBE_OUT_DIR")) {
		char p2[4096];
		FILE *f;

		snprintf(p2, sizeof(p2), "%s/batch.jsonl", getenv("PROBE_OUT_DIR"));
		if ((f = fopen(p2, "w"))) {
			fputs(out, f);
			fclose(f);
		}
	}
	free(out);
	/* --probe, no rows yet: an empty array */
	out = run_stdout(k, &e, &d, path);
	CHECK(strstr(out, ",\"probes\":[]}\n") != NULL, "--probe without rows: %s", out);
	free(out);
	k->close(k);
	/* no --probe, no rows: no key */
	o.probe = 0;
	k = rt_batch_sink_new(&o);
	out = run_stdout(k, &e, &d, path);
	CHECK(!strstr(out, "probes"), "a probes key without --probe: %s", out);
	free(out);
	k->close(k);

	rt_delta_free(&d);
	rt_snapshot_free(&s);
	rt_snapshot_free(&e);
	TEST_END("probe_out batch: the PROBES table and the JSON probes array, as rocetop probe prints them");
}

static const char *const csv_expect =
	"time,peer,flow_label,udp_sport,size,sent,lost,rtt_p50_us,rtt_p99_us,net_p50_us,resp_p50_us,clock,"
	"answered,finding\n"
	"1700000001.000000,b-host,100,49153,64,10,1,41,98,38,3,system,9,path-loss\n"
	"1700000001.000000,\"c \"\"q\"\", x\",7,0,4096,5,5,,,,,device,0,path-down\n"
	"1700000001.000000,na\xc3\xafve\xff,200,49154,1024,4,0,1234,2000,1200,34,system,4,\n"
	"1700000002.500000,b-host,100,49153,64,10,1,41,98,38,3,system,9,path-loss\n"
	"1700000002.500000,\"c \"\"q\"\", x\",7,0,4096,5,5,,,,,device,0,path-down\n"
	"1700000002.500000,na\xc3\xafve\xff,200,49154,1024,4,0,1234,2000,1200,34,system,4,\n";

static void test_csv(void)
{
	struct rt_snapshot s1, s2;
	struct rt_delta d = { 0 };
	struct rt_csv_cfg o = { 0 };
	struct rt_sink *k;
	char dir[256], path[300], *out;
	struct stat st;

	rt_snapshot_init(&s1);
	rt_snapshot_init(&s2);
	build(&s1, 1700000001000000000ULL);
	build(&s2, 1700000002500000000ULL);
	CHECK(rt_delta_compute(&d, NULL, &s1) == 0, "delta");

	/* --probe: probes.csv from the start, its header alone before rows */
	snprintf(dir, sizeof(dir), "%s/csv", tmp);
	o.dir = dir;
	o.probe = 1;
	k = rt_csv_sink_new(&o);
	CHECK(k != NULL, "the CSV sink");
	if (!k)
		goto out;
	snprintf(path, sizeof(path), "%s/probes.csv", dir);
	out = slurp(path);
	CHECK(!strcmp(out, "time,peer,flow_label,udp_sport,size,sent,lost,rtt_p50_us,rtt_p99_us,net_p50_us,"
			   "resp_p50_us,clock,answered,finding\n"), "probes.csv before an interval: %s", out);
	free(out);
	CHECK(k->emit(k, &s1, &d) == 0, "emit 1");
	CHECK(k->emit(k, &s2, &d) == 0, "emit 2");
	k->close(k);
	out = slurp(path);
	CHECK(!strcmp(out, csv_expect), "probes.csv:\n%s", out);
	free(out);
	if (getenv("PROBE_OUT_DIR")) {
		char cmd[1024];

		snprintf(cmd, sizeof(cmd), "cp %s %s/probes.csv", path, getenv("PROBE_OUT_DIR"));
		CHECK(system(cmd) == 0, "%s", cmd);
	}

	/* no --probe and no rows: no probes.csv */
	snprintf(dir, sizeof(dir), "%s/csv2", tmp);
	o.dir = dir;
	o.probe = 0;
	rt_snapshot_clear(&s2);
	s2.time_ns = 1700000003000000000ULL;
	k = rt_csv_sink_new(&o);
	CHECK(k && k->emit(k, &s2, &d) == 0, "emit without rows");
	if (k)
		k->close(k);
	snprintf(path, sizeof(path), "%s/probes.csv", dir);
	CHECK(stat(path, &st) == -1 && errno == ENOENT, "probes.csv without --probe");
	/* a recording's rows without --probe: the file at its first rows */
	snprintf(dir, sizeof(dir), "%s/csv3", tmp);
	o.dir = dir;
	k = rt_csv_sink_new(&o);
	snprintf(path, sizeof(path), "%s/probes.csv", dir);
	CHECK(stat(path, &st) == -1 && errno == ENOENT, "probes.csv before rows came");
	CHECK(k && k->emit(k, &s1, &d) == 0, "emit with rows");
	if (k)
		k->close(k);
	out = slurp(path);
	CHECK(strlen(out) > 0 && !strncmp(out, csv_expect, strlen(out)) && strlen(out) < strlen(csv_expect),
	      "probes.csv of a recording: %s", out);
	free(out);
out:
	rt_delta_free(&d);
	rt_snapshot_free(&s1);
	rt_snapshot_free(&s2);
	TEST_END("probe_out csv: probes.csv with rocetop probe's columns, names quoted, no sample empty");
}

/* The lines of a row's series, by hand: labels in the order peer, addr,
 * path, flow_label, udp_sport, size, clock. */
static const char *const prom_lines[] = {
	"rocetop_probe_rows 3\n",
	"rocetop_probe_rows_unexported 0\n",
	"rocetop_probe_sent_total{peer=\"b-host\",addr=\"10.0.0.2\",path=\"0\",flow_label=\"100\",udp_sport=\"49153\","
	"size=\"64\",clock=\"system\"} 30\n",
	"rocetop_probe_answered_total{peer=\"b-host\",addr=\"10.0.0.2\",path=\"0\",flow_label=\"100\","
	"udp_sport=\"49153\",size=\"64\",clock=\"system\"} 28\n",
	"rocetop_probe_lost_total{peer=\"b-host\",addr=\"10.0.0.2\",path=\"0\",flow_label=\"100\",udp_sport=\"49153\","
	"size=\"64\",clock=\"system\"} 2\n",
	"rocetop_probe_lost_total{peer=\"c \\\"q\\\", x\",addr=\"10.0.0.3\",path=\"1\",flow_label=\"7\",udp_sport=\"0\","
	"size=\"4096\",clock=\"device\"} 5\n",
	"rocetop_probe_sent_total{peer=\"na\xc3\xafve?\",addr=\"10.0.0.4\",path=\"0\",flow_label=\"200\","
	"udp_sport=\"49154\",size=\"1024\",clock=\"system\"} 12\n",
	"rocetop_probe_rtt_p50_seconds{peer=\"b-host\",addr=\"10.0.0.2\",path=\"0\",flow_label=\"100\","
	"udp_sport=\"49153\",size=\"64\",clock=\"system\"} 4.14e-05\n",
	"rocetop_probe_rtt_p99_seconds{peer=\"b-host\",addr=\"10.0.0.2\",path=\"0\",flow_label=\"100\","
	"udp_sport=\"49153\",size=\"64\",clock=\"system\"} 9.76e-05\n",
	"rocetop_probe_net_p50_seconds{peer=\"b-host\",addr=\"10.0.0.2\",path=\"0\",flow_label=\"100\","
	"udp_sport=\"49153\",size=\"64\",clock=\"system\"} 3.82e-05\n",
	"rocetop_probe_resp_p50_seconds{peer=\"b-host\",addr=\"10.0.0.2\",path=\"0\",flow_label=\"100\","
	"udp_sport=\"49153\",size=\"64\",clock=\"system\"} 3.4e-06\n",
	"rocetop_probe_net_base_seconds{peer=\"b-host\",addr=\"10.0.0.2\",path=\"0\",flow_label=\"100\","
	"udp_sport=\"49153\",size=\"64\",clock=\"system\"} 3.7e-05\n",
	"rocetop_probe_rtt_p50_seconds{peer=\"na\xc3\xafve?\",addr=\"10.0.0.4\",path=\"0\",flow_label=\"200\","
	"udp_sport=\"49154\",size=\"1024\",clock=\"system\"} 0.0012345\n",
	"rocetop_probe_net_p50_seconds{peer=\"na\xc3\xafve?\",addr=\"10.0.0.4\",path=\"0\",flow_label=\"200\","
	"udp_sport=\"49154\",size=\"1024\",clock=\"system\"} 0.00120025\n",
	"rocetop_probe_finding{peer=\"b-host\",addr=\"10.0.0.2\",path=\"0\",flow_label=\"100\",udp_sport=\"49153\","
	"size=\"64\",clock=\"system\",finding=\"path-loss\"} 1\n",
	"rocetop_probe_finding{peer=\"c \\\"q\\\", x\",addr=\"10.0.0.3\",path=\"1\",flow_label=\"7\",udp_sport=\"0\","
	"size=\"4096\",clock=\"device\",finding=\"path-down\"} 1\n",
	"# TYPE rocetop_probe_sent_total counter\n",
	"# TYPE rocetop_probe_rtt_p50_seconds gauge\n",
};

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void dump(const char *name, const char *doc)
{
	const char *dir = getenv("PROBE_OUT_DIR");
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w"))) {
		fputs(doc, f);
		fclose(f);
	}
}

static void test_prom(void)
{
	struct rt_snapshot s, e;
	struct rt_delta d = { 0 };
	struct rt_prom_render *r = rt_prom_render_new(2, 0);
	char *t, *o;
	size_t tl, ol;

	rt_snapshot_init(&s);
	rt_snapshot_init(&e);
	build(&s, 1700000001000000000ULL);
	CHECK(rt_delta_compute(&d, NULL, &s) == 0, "delta");
	CHECK(rt_prom_render(r, &s, &d, &t, &tl, &o, &ol) == 0, "render");
	for (size_t i = 0; i < sizeof(prom_lines) / sizeof(prom_lines[0]); i++) {
		CHECK(strstr(t, prom_lines[i]) != NULL, "text format lacks: %s", prom_lines[i]);
		if (strncmp(prom_lines[i], "# TYPE", 6))
			CHECK(strstr(o, prom_lines[i]) != NULL, "OpenMetrics lacks: %s", prom_lines[i]);
	}
	CHECK(strstr(o, "# TYPE rocetop_probe_sent counter\n") && strstr(o, "# UNIT rocetop_probe_rtt_p50_seconds seconds\n"),
	      "OpenMetrics family headers");
	/* no sample, no series: the dead path has no times and no baseline, the
	 * clean one no finding */
	CHECK_EQ(count(t, "rocetop_probe_rtt_p50_seconds{"), 2);
	CHECK_EQ(count(t, "rocetop_probe_net_base_seconds{"), 2);
	CHECK_EQ(count(t, "rocetop_probe_finding{"), 2);
	CHECK_EQ(count(t, "rocetop_probe_sent_total{"), 3);
	dump("probes.prom", t);
	dump("probes.om", o);
	free(t);
	free(o);

	/* a snapshot without rows: no probe family at all */
	e.time_ns = s.time_ns;
	CHECK(rt_prom_render(r, &e, &d, &t, &tl, &o, &ol) == 0, "render");
	CHECK(!strstr(t, "rocetop_probe") && !strstr(o, "rocetop_probe"), "probe families without rows");
	free(t);
	free(o);
	rt_prom_render_free(r);
	rt_delta_free(&d);
	rt_snapshot_free(&s);
	rt_snapshot_free(&e);
	TEST_END("probe_out prom: the probe families, escaped, absent without a sample");
}

/* More rows than the bound: those with a finding first, then the most lost,
 * and the rest counted. Row i has lost_total i % 7; rows 5 and 299 have a
 * finding. */
static void test_prom_bound(void)
{
	struct rt_snapshot s;
	struct rt_delta d = { 0 };
	struct rt_prom_render *r = rt_prom_render_new(2, 0);
	int nrows = RT_PROM_PROBE_ROWS + 44, kept_by_lost[7] = { 0 }, want[7] = { 0 }, left;
	char *t, *o, peer[32], needle[96];
	size_t tl, ol;

	rt_snapshot_init(&s);
	s.time_ns = 1700000001000000000ULL;
	for (int i = 0; i < nrows; i++) {
		struct rt_probe_row *p;

		snprintf(peer, sizeof(peer), "p%d", i);
		p = row(&s, peer, "10.1.0.1", 0, 1, 1, 64);
		p->lost_total = (__u64)(i % 7);
		p->rtt_p50_us = p->rtt_p99_us = p->net_p50_us = p->resp_p50_us = -1;
	}
	s.probes[5].finding = RT_PF_HOST_STALL;
	s.probes[299].finding = RT_PF_PATH_DOWN;
	CHECK(rt_delta_compute(&d, NULL, &s) == 0, "delta");
	CHECK(rt_prom_render(r, &s, &d, &t, &tl, &o, &ol) == 0, "render");
	CHECK(strstr(t, "rocetop_probe_rows 300\n") && strstr(t, "rocetop_probe_rows_unexported 44\n"),
	      "rows and unexported");
	CHECK_EQ(count(t, "rocetop_probe_sent_total{"), RT_PROM_PROBE_ROWS);
	CHECK(strstr(t, "rocetop_probe_sent_total{peer=\"p299\",") && strstr(t, "rocetop_probe_sent_total{peer=\"p5\","),
	      "rows with a finding are exported");
	/*
	 * By hand: lost 0..5 are 43 rows each, lost 6 is 42; rows 5 and 299
	 * (lost 5, a finding) take the first two places. Of the 298 others,
	 * 254 places go to lost 6 (42), lost 5 (41 without a finding), 4, 3
	 * and 2 (43 each), then 42 of lost 1's 43, first in the table's order
	 * (rows 1, 8, ..., 288; row 295 is left out); no lost 0.
	 */
	want[6] = 42, want[5] = 43, want[4] = 43, want[3] = 43, want[2] = 43, want[1] = 42, want[0] = 0;
	left = 0;
	for (int i = 0; i < nrows; i++) {
		snprintf(needle, sizeof(needle), "rocetop_probe_sent_total{peer=\"p%d\",", i);
		if (strstr(t, needle))
			kept_by_lost[i % 7]++;
		else
			left++;
	}
	CHECK_EQ(left, 44);
	for (int k = 0; k < 7; k++)
		CHECK(kept_by_lost[k] == want[k], "lost %d: %d kept, expected %d", k, kept_by_lost[k], want[k]);
	CHECK(strstr(t, "rocetop_probe_sent_total{peer=\"p288\",") != NULL, "row 288 kept");
	CHECK(strstr(t, "rocetop_probe_sent_total{peer=\"p295\",") == NULL, "row 295 left out");
	/* in the table's order */
	CHECK(strstr(t, "{peer=\"p5\",") < strstr(t, "{peer=\"p6\",") &&
	      strstr(t, "{peer=\"p288\",") < strstr(t, "{peer=\"p299\","), "the table's order");
	free(t);
	free(o);
	rt_prom_render_free(r);
	rt_delta_free(&d);
	rt_snapshot_free(&s);
	TEST_END("probe_out prom bound: 256 rows at most, findings then the most lost first");
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	test_batch();
	test_csv();
	test_prom();
	test_prom_bound();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", tmp);
	return TEST_EXIT();
}
