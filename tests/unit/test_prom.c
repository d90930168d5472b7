// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Prometheus renderer on hand-built snapshots: exact lines in both
 * formats, escaping, the top K, host-pair totals that survive eviction; the
 * --listen parser and the Accept negotiation. Expected numbers are written by
 * hand from the snapshot below, not taken from the code.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include "check.h"
#include "findings.h"
#include "../../exporters/prom.h"

static void addr4(__u8 *a, const char *s)
{
	memset(a, 0, 16);
	inet_pton(AF_INET, s, a);
}

static struct rt_flow *flow(struct rt_snapshot *s, __u32 ifindex, __u8 dir, int fam, const char *src,
			    const char *dst, __u32 dqpn)
{
	struct rt_flow *f = rt_snapshot_add_flow(s);

	f->k.ifindex = ifindex;
	f->k.dir = dir;
	f->k.family = (__u8)fam;
	if (fam == 6) {
		inet_pton(AF_INET6, src, f->k.src);
		inet_pton(AF_INET6, dst, f->k.dst);
	} else {
		addr4(f->k.src, src);
		addr4(f->k.dst, dst);
	}
	f->k.dqpn = dqpn;
	f->throttles = -1;
	return f;
}

/* The first snapshot: four flows, two interfaces, one NIC counter. */
static void build1(struct rt_snapshot *s)
{
	struct rt_ifdir *r;
	struct rt_port_ctr *p;
	struct rt_flow *f;

	s->time_ns = 1700000000500000000ULL;
	rt_snapshot_add_iface(s, 2, "eth0", "native");
	s->ifaces[s->nifaces - 1].speed_mbps = 100000;	/* 100 Gb/s, as the live source reads it */
	rt_snapshot_add_iface(s, 3, "a\"b\\c", "generic");
	r = rt_snapshot_ifdir(s, 2, RT_DIR_INGRESS);
	r->v.pkts = 100; r->v.bytes = 12345; r->v.roce = 80; r->v.not_roce = 10; r->v.truncated = 1;
	r->v.malformed = 2; r->v.v6_unparsed = 3; r->v.mac_ctrl = 4; r->v.flow_full = 0;
	/* paused time as measured (bpf/pause.h), not the quanta's 15.36 us: an
	 * XON ended a pause early */
	r->v.pfc_frames[3] = 4; r->v.pfc_xon[3] = 1; r->v.pfc_quanta[3] = 3000; r->v.pfc_paused_ns[3] = 9000;
	r->v.pfc_frames[RT_PRIO_GLOBAL] = 1; r->v.pfc_quanta[RT_PRIO_GLOBAL] = 100;
	r->v.pfc_paused_ns[RT_PRIO_GLOBAL] = 512;
	r = rt_snapshot_ifdir(s, 3, RT_DIR_INGRESS);
	r->v.pkts = 1; r->v.not_roce = 1;

	f = flow(s, 2, RT_DIR_INGRESS, 4, "10.0.0.1", "10.0.0.2", 17);
	f->v.pkts = 10; f->v.bytes = 1000; f->v.ecn[RT_ECN_ECT0] = 7; f->v.ecn[RT_ECN_CE] = 3;
	f = flow(s, 2, RT_DIR_INGRESS, 4, "10.0.0.1", "10.0.0.2", 18);
	f->v.pkts = 5; f->v.bytes = 500; f->v.ecn[RT_ECN_NOT_ECT] = 5; f->v.cnp = 5;
	f = flow(s, 2, RT_DIR_INGRESS, 4, "10.0.0.3", "10.0.0.2", 19);
	f->v.pkts = 4; f->v.bytes = 400; f->v.ecn[RT_ECN_ECT0] = 4; f->v.ack = 2; f->v.nak_seq = 1;
	f->v.rnr_nak = 1;
	f = flow(s, 2, RT_DIR_EGRESS, 6, "fe80::1", "fe80::2", 20);
	f->v.pkts = 2; f->v.bytes = 300; f->v.ecn[RT_ECN_ECT1] = 2;

	p = rt_snapshot_add_port(s);
	snprintf(p->dev, sizeof(p->dev), "mlx5_0");
	p->port = 1;
	snprintf(p->netdev, sizeof(p->netdev), "eth0");
	snprintf(p->name, sizeof(p->name), "np_cnp_sent");
	p->value = 42;
	p->bits = 64;
	p->scope = RT_SCOPE_HW_PORT;
	p->congestion = 1;
	/* A classic 32-bit IB counter near its top: it wraps in interval 2. */
	p = rt_snapshot_add_port(s);
	snprintf(p->dev, sizeof(p->dev), "mlx5_0");
	p->port = 1;
	snprintf(p->netdev, sizeof(p->netdev), "eth0");
	snprintf(p->name, sizeof(p->name), "port_xmit_data");
	p->value = 4294967000ULL;
	p->bits = 32;
	p->scope = RT_SCOPE_PORT;
	rt_snapshot_sort(s);
}

/* One second later: flow 17 got one more CE packet, flow 18 was evicted. */
static void build2(struct rt_snapshot *s, const struct rt_snapshot *prev)
{
	size_t i, j = 0;

	rt_snapshot_copy(s, prev);
	s->time_ns += 1000000000ULL;
	for (i = 0; i < s->nflows; i++) {
		if (s->flows[i].k.dqpn == 18)
			continue;
		s->flows[j] = s->flows[i];
		if (s->flows[j].k.dqpn == 17) {
			s->flows[j].v.pkts++;
			s->flows[j].v.bytes += 100;
			s->flows[j].v.ecn[RT_ECN_CE]++;
		}
		j++;
	}
	s->nflows = j;
	s->evicted = 1;
	/* np_cnp_sent +8; port_xmit_data wraps: 4294967000 -> 200 is +496 */
	for (i = 0; i < s->nports; i++) {
		if (!strcmp(s->ports[i].name, "np_cnp_sent"))
			s->ports[i].value = 50;
		if (!strcmp(s->ports[i].name, "port_xmit_data"))
			s->ports[i].value = 200;
	}
}

static int has(const char *doc, const char *line)
{
	size_t n = strlen(line);
	const char *p = doc;

	while ((p = strstr(p, line))) {
		if ((p == doc || p[-1] == '\n') && p[n] == '\n')
			return 1;
		p += n;
	}
	return 0;
}

static int count_prefix(const char *doc, const char *prefix)
{
	const char *p = doc;
	int n = 0;

	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, prefix, strlen(prefix)))
			n++;
	return n;
}

#define HAS(doc, line) CHECK(has(doc, line), "missing line: %s", line)
#define HASNT(doc, line) CHECK(!has(doc, line), "unexpected line: %s", line)

/* Every sample's family has a HELP and a TYPE before it; names are the right form. */
static void check_structure(const char *doc, int om)
{
	char fam[128], last_type[128] = "";
	const char *p = doc;

	for (; *p; p = strchr(p, '\n') + 1) {
		const char *e = strchr(p, '\n');
		size_t n;

		if (!e) {
			CHECK(0, "document does not end in a newline");
			return;
		}
		if (!strncmp(p, "# TYPE ", 7)) {
			sscanf(p + 7, "%127s", last_type);
			if (om && !strncmp(p + 7 + strlen(last_type), " counter", 8))
				CHECK(strlen(last_type) < 6 || strcmp(last_type + strlen(last_type) - 6, "_total"),
				      "OpenMetrics counter family named with _total: %s", last_type);
			continue;
		}
		if (*p == '#')
			continue;
		n = strcspn(p, "{ ");
		snprintf(fam, sizeof(fam), "%.*s", (int)n, p);
		if (om) {
			size_t tl = strlen(last_type);

			CHECK(!strncmp(fam, last_type, tl) &&
			      (!fam[tl] || !strcmp(fam + tl, "_total") || !strcmp(fam + tl, "_info")),
			      "sample %s outside its family %s", fam, last_type);
		} else {
			CHECK(!strcmp(fam, last_type), "sample %s outside its family %s", fam, last_type);
		}
	}
	if (om) {
		size_t l = strlen(doc);

		CHECK(l >= 6 && !strcmp(doc + l - 6, "# EOF\n"), "OpenMetrics without # EOF at the end");
		CHECK(strstr(doc, "# EOF") == doc + l - 6, "# EOF before the end");
	} else {
		CHECK(!strstr(doc, "# EOF"), "# EOF in the text format");
	}
}

/* PROM_DUMP_DIR=dir: leave the documents there (tests/prom runs promtool on them). */
static void dump(const char *name, const char *t, const char *o)
{
	const char *dir = getenv("PROM_DUMP_DIR");
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s.prom", dir, name);
	if ((f = fopen(path, "w"))) {
		fputs(t, f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/%s.om", dir, name);
	if ((f = fopen(path, "w"))) {
		fputs(o, f);
		fclose(f);
	}
}

static void test_render(void)
{
	struct rt_snapshot s1, s2;
	struct rt_delta d1 = { 0 }, d2 = { 0 };
	struct rt_prom_render *r = rt_prom_render_new(2, 0);
	char *t, *o, *t0, *o0;
	size_t tl, ol;

	rt_snapshot_init(&s1);
	rt_snapshot_init(&s2);
	build1(&s1);
	build2(&s2, &s1);

	/* before any snapshot: build info and zero intervals */
	CHECK(!rt_prom_render(r, NULL, NULL, &t0, &tl, &o0, &ol), "render without snapshot");
	HAS(t0, "# TYPE rocetop_build_info gauge");
	HAS(t0, "rocetop_build_info{version=\"" RT_VERSION "\"} 1");
	HAS(t0, "rocetop_intervals_total 0");
	HAS(o0, "# TYPE rocetop_build info");
	HAS(o0, "rocetop_build_info{version=\"" RT_VERSION "\"} 1");
	check_structure(t0, 0);
	check_structure(o0, 1);
	free(t0);
	free(o0);

	CHECK(!rt_delta_compute(&d1, NULL, &s1), "delta 1");
	d1.secs = 1;
	CHECK(!rt_prom_render(r, &s1, &d1, &t, &tl, &o, &ol), "render 1");
	CHECK_EQ(tl, strlen(t));
	CHECK_EQ(ol, strlen(o));
	check_structure(t, 0);
	check_structure(o, 1);
	/* headers per format */
	HAS(t, "# TYPE rocetop_hostpair_packets_total counter");
	HAS(o, "# TYPE rocetop_hostpair_packets counter");
	HAS(t, "# TYPE rocetop_hostpair_bytes_total counter");
	HAS(o, "# UNIT rocetop_hostpair_bytes bytes");
	HAS(o, "# UNIT rocetop_pfc_paused_seconds seconds");
	HAS(t, "# TYPE rocetop_last_snapshot_timestamp_seconds gauge");
	HAS(t, "rocetop_last_snapshot_timestamp_seconds 1700000000.5");
	HAS(t, "rocetop_intervals_total 1");
	HAS(t, "rocetop_interval_seconds 1");
	HAS(t, "rocetop_flows 4");
	HAS(t, "rocetop_flows_evicted_total 0");
	/* interfaces and parser outcomes */
	HAS(t, "rocetop_interface_frames_total{interface=\"eth0\",direction=\"ingress\"} 100");
	HAS(t, "rocetop_interface_bytes_total{interface=\"eth0\",direction=\"ingress\"} 12345");
	HAS(t, "rocetop_parser_frames_total{interface=\"eth0\",direction=\"ingress\",outcome=\"roce\"} 80");
	HAS(t, "rocetop_parser_frames_total{interface=\"eth0\",direction=\"ingress\",outcome=\"not_roce\"} 10");
	HAS(t, "rocetop_parser_frames_total{interface=\"eth0\",direction=\"ingress\",outcome=\"truncated\"} 1");
	HAS(t, "rocetop_parser_frames_total{interface=\"eth0\",direction=\"ingress\",outcome=\"malformed\"} 2");
	HAS(t, "rocetop_parser_frames_total{interface=\"eth0\",direction=\"ingress\",outcome=\"pause\"} 4");
	HAS(t, "rocetop_parser_frames_total{interface=\"eth0\",direction=\"ingress\",outcome=\"table_full\"} 0");
	HAS(t, "rocetop_parser_frames_total{interface=\"eth0\",direction=\"ingress\",outcome=\"v6_unparsed\"} 3");
	/* escaping of a label value with a quote and a backslash */
	HAS(t, "rocetop_interface_frames_total{interface=\"a\\\"b\\\\c\",direction=\"ingress\"} 1");
	HAS(o, "rocetop_interface_frames_total{interface=\"a\\\"b\\\\c\",direction=\"ingress\"} 1");
	/* PFC: prio 3 4 frames, 1 XON, 3000 quanta; 3000 * 512 bits at 100 Gb/s = 15.36 us */
	HAS(t, "rocetop_pfc_frames_total{interface=\"eth0\",direction=\"ingress\",priority=\"3\"} 4");
	HAS(t, "rocetop_pfc_xon_frames_total{interface=\"eth0\",direction=\"ingress\",priority=\"3\"} 1");
	HAS(t, "rocetop_pfc_pause_quanta_total{interface=\"eth0\",direction=\"ingress\",priority=\"3\"} 3000");
	HAS(t, "rocetop_pfc_frames_total{interface=\"eth0\",direction=\"ingress\",priority=\"all\"} 1");
	HAS(t, "rocetop_pfc_frames_total{interface=\"eth0\",direction=\"ingress\",priority=\"0\"} 0");
	HAS(t, "rocetop_pfc_paused_seconds_total{interface=\"eth0\",direction=\"ingress\",priority=\"3\"} 9e-06");
	HAS(o, "rocetop_pfc_paused_seconds_total{interface=\"eth0\",direction=\"ingress\",priority=\"3\"} 9e-06");
	HAS(t, "rocetop_pfc_paused_seconds_total{interface=\"eth0\",direction=\"ingress\",priority=\"all\"} 5.12e-07");
	HAS(t, "rocetop_link_speed_bytes_per_second{interface=\"eth0\"} 12500000000");
	/* no speed known for the other interface: paused time at 100G assumed, no link speed said */
	CHECK(!strstr(t, "rocetop_link_speed_bytes_per_second{interface=\"a"), "a link speed that is assumed");
	/* host pairs: 10.0.0.1 -> 10.0.0.2 is flows 17 and 18 */
#define HP1 "interface=\"eth0\",direction=\"ingress\",src=\"10.0.0.1\",dst=\"10.0.0.2\""
#define HP3 "interface=\"eth0\",direction=\"ingress\",src=\"10.0.0.3\",dst=\"10.0.0.2\""
#define HP6 "interface=\"eth0\",direction=\"egress\",src=\"fe80::1\",dst=\"fe80::2\""
	HAS(t, "rocetop_hostpair_packets_total{" HP1 "} 15");
	HAS(t, "rocetop_hostpair_bytes_total{" HP1 "} 1500");
	HAS(t, "rocetop_hostpair_ecn_packets_total{" HP1 ",ecn=\"ce\"} 3");
	HAS(t, "rocetop_hostpair_ecn_packets_total{" HP1 ",ecn=\"ect0\"} 7");
	HAS(t, "rocetop_hostpair_ecn_packets_total{" HP1 ",ecn=\"not_ect\"} 5");
	HAS(t, "rocetop_hostpair_cnps_total{" HP1 "} 5");
	HAS(t, "rocetop_hostpair_acks_total{" HP3 "} 2");
	HAS(t, "rocetop_hostpair_naks_total{" HP3 ",reason=\"psn_sequence\"} 1");
	HAS(t, "rocetop_hostpair_naks_total{" HP3 ",reason=\"other\"} 0");
	HAS(t, "rocetop_hostpair_rnr_naks_total{" HP3 "} 1");
	HAS(t, "rocetop_hostpair_ecn_packets_total{" HP6 ",ecn=\"ect1\"} 2");
	CHECK_EQ(count_prefix(t, "rocetop_hostpair_packets_total{"), 3);
	/* top 2 of interval 1: 18 (5 CNPs), then 17 (3 CE); 19 has 2, 20 none */
	CHECK_EQ(count_prefix(t, "rocetop_flow_packets_total{"), 2);
	HAS(t, "rocetop_flow_packets_total{" HP1 ",dqpn=\"17\"} 10");
	HAS(t, "rocetop_flow_cnps_total{" HP1 ",dqpn=\"18\"} 5");
	HAS(o, "rocetop_flow_cnps_total{" HP1 ",dqpn=\"18\"} 5");
	/* NIC */
	HAS(t, "rocetop_nic_stat_total{device=\"mlx5_0\",port=\"1\",netdev=\"eth0\",counter=\"np_cnp_sent\",scope=\"hw_counters\"} 42");
	HAS(o, "# TYPE rocetop_nic_stat counter");
	dump("render1", t, o);
	free(t);
	free(o);

	/* interval 2: flow 18 evicted, 17 one more CE packet */
	CHECK(!rt_delta_compute(&d2, &s1, &s2), "delta 2");
	d2.secs = 1;
	CHECK(!rt_prom_render(r, &s2, &d2, &t, &tl, &o, &ol), "render 2");
	check_structure(t, 0);
	check_structure(o, 1);
	HAS(t, "rocetop_intervals_total 2");
	HAS(t, "rocetop_flows_evicted_total 1");
	HAS(t, "rocetop_flows 3");
	/* the host pair keeps flow 18's counts after its eviction */
	HAS(t, "rocetop_hostpair_packets_total{" HP1 "} 16");
	HAS(t, "rocetop_hostpair_bytes_total{" HP1 "} 1600");
	HAS(t, "rocetop_hostpair_ecn_packets_total{" HP1 ",ecn=\"ce\"} 4");
	HAS(t, "rocetop_hostpair_cnps_total{" HP1 "} 5");
	/* top 2 of interval 2: 17 (1 CE now), then 19 (most congested overall of the idle ones) */
	CHECK_EQ(count_prefix(t, "rocetop_flow_packets_total{"), 2);
	HAS(t, "rocetop_flow_packets_total{" HP1 ",dqpn=\"17\"} 11");
	HAS(t, "rocetop_flow_ecn_packets_total{" HP1 ",dqpn=\"17\",ecn=\"ce\"} 4");
	HAS(t, "rocetop_flow_packets_total{" HP3 ",dqpn=\"19\"} 4");
	HAS(t, "rocetop_flow_naks_total{" HP3 ",dqpn=\"19\",reason=\"psn_sequence\"} 1");
	CHECK(!strstr(t, "dqpn=\"18\""), "evicted flow still exported");
	CHECK(!strstr(t, "dqpn=\"20\""), "flow 20 is not in the top 2");
	/* NIC counters only ever grow: the wrap adds 296 + 200, not a drop to 200 */
	HAS(t, "rocetop_nic_stat_total{device=\"mlx5_0\",port=\"1\",netdev=\"eth0\",counter=\"np_cnp_sent\",scope=\"hw_counters\"} 50");
	HAS(t, "rocetop_nic_stat_total{device=\"mlx5_0\",port=\"1\",netdev=\"eth0\",counter=\"port_xmit_data\",scope=\"counters\"} 4294967496");
	free(t);
	free(o);

	rt_delta_free(&d1);
	rt_delta_free(&d2);
	rt_snapshot_free(&s1);
	rt_snapshot_free(&s2);
	rt_prom_render_free(r);
	TEST_END("prom_render");
}

static void test_listen(void)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	char a[64];

	CHECK(!rt_prom_parse_listen("9100", &ss, &len), "bare port");
	CHECK_EQ(ss.ss_family, AF_INET);
	CHECK_EQ(ntohs(s4->sin_port), 9100);
	CHECK_EQ(ntohl(s4->sin_addr.s_addr), 0x7f000001);
	CHECK(!rt_prom_parse_listen("0.0.0.0:80", &ss, &len), "any");
	CHECK_EQ(ntohl(s4->sin_addr.s_addr), 0);
	CHECK_EQ(ntohs(s4->sin_port), 80);
	CHECK(!rt_prom_parse_listen("[::1]:9100", &ss, &len), "v6");
	CHECK_EQ(ss.ss_family, AF_INET6);
	CHECK_EQ(len, sizeof(struct sockaddr_in6));
	CHECK_EQ(ntohs(s6->sin6_port), 9100);
	inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
	CHECK(!strcmp(a, "::1"), "v6 address %s", a);
	CHECK(rt_prom_parse_listen("", &ss, &len), "empty");
	CHECK(rt_prom_parse_listen("0", &ss, &len), "port 0");
	CHECK(rt_prom_parse_listen("65536", &ss, &len), "port too big");
	CHECK(rt_prom_parse_listen("91x", &ss, &len), "junk");
	CHECK(rt_prom_parse_listen("::1:9100", &ss, &len), "v6 without brackets");
	CHECK(rt_prom_parse_listen("[::1:9100", &ss, &len), "unclosed bracket");
	CHECK(rt_prom_parse_listen("[::1]9100", &ss, &len), "no colon");
	CHECK(rt_prom_parse_listen("1.2.3.4.5:9", &ss, &len), "bad address");
	TEST_END("prom_listen_parse");
}

static void test_accept(void)
{
	/* what Prometheus 2.x sends */
	CHECK(rt_prom_wants_openmetrics("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
					"version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"), "prometheus");
	CHECK(!rt_prom_wants_openmetrics(NULL), "none");
	CHECK(!rt_prom_wants_openmetrics("*/*"), "curl");
	CHECK(!rt_prom_wants_openmetrics("text/plain;version=0.0.4"), "text");
	CHECK(!rt_prom_wants_openmetrics("text/plain, application/openmetrics-text; q=0.5"), "text preferred");
	CHECK(!rt_prom_wants_openmetrics("application/openmetrics-text;q=0"), "refused");
	CHECK(rt_prom_wants_openmetrics("Application/OpenMetrics-Text; version=1.0.0"), "case");
	TEST_END("prom_accept");
}

/* Flows from the NIC's per-QP counters carry origin="nic"; the per-QP
 * counters themselves stay out of rocetop_nic_stat (as many as the QPs). */
static void test_nic_origin(void)
{
	struct rt_snapshot s;
	struct rt_delta d = { 0 };
	struct rt_prom_render *r = rt_prom_render_new(2, 0);
	struct rt_port_ctr *p;
	struct rt_flow *f;
	char *t, *o;
	size_t tl, ol;

	rt_snapshot_init(&s);
	s.time_ns = 1700000000000000000ULL;
	rt_snapshot_add_iface(&s, 0x20000101, "eth2", "nic");
	f = flow(&s, 0x20000101, RT_DIR_INGRESS, 4, "192.168.1.20", "192.168.1.10", 282);
	f->k.origin = RT_ORIGIN_NIC;
	f->v.pkts = 60;
	f->v.ecn[RT_ECN_CE] = 60;
	p = rt_snapshot_add_port(&s);
	snprintf(p->dev, sizeof(p->dev), "mlx5_0");
	p->port = 1;
	snprintf(p->netdev, sizeof(p->netdev), "eth2");
	snprintf(p->name, sizeof(p->name), "cc_rx_ce_pkts");
	p->value = 100;
	p->scope = RT_SCOPE_QP;
	p->qpn = 282;
	rt_snapshot_sort(&s);
	CHECK(!rt_delta_compute(&d, NULL, &s), "delta");
	d.secs = 1;
	CHECK(!rt_prom_render(r, &s, &d, &t, &tl, &o, &ol), "render");
	HAS(t, "rocetop_flow_packets_total{interface=\"eth2\",direction=\"ingress\",src=\"192.168.1.20\","
	       "dst=\"192.168.1.10\",dqpn=\"282\",origin=\"nic\"} 60");
	CHECK(!strstr(t, "cc_rx_ce_pkts"), "a per-QP counter in rocetop_nic_stat");
	check_structure(t, 0);
	free(t);
	free(o);
	rt_delta_free(&d);
	rt_snapshot_free(&s);
	rt_prom_render_free(r);
	TEST_END("prom_nic_origin");
}

/* One series per open finding with its subject's labels, at most 200: the
 * critical and warning ones first, the info ones beyond the bound counted. */
static void test_findings(void)
{
	static struct rt_finding tab[204];
	struct rt_findings F = { .tab = tab, .n = 204 };
	struct rt_snapshot s;
	struct rt_delta d = { 0 };
	struct rt_prom_render *r = rt_prom_render_new(2, 0);
	char *t, *o;
	size_t tl, ol, i;

	memset(tab, 0, sizeof(tab));
	for (i = 0; i < 204; i++) {
		tab[i].open = i != 203;		/* the last one closed: no series */
		tab[i].sev = RT_SEV_INFO;
		snprintf(tab[i].rule, sizeof(tab[i].rule), "congestion");
		tab[i].subj.has = RT_SUBJ_IFNAME | RT_SUBJ_DQPN;
		snprintf(tab[i].subj.ifname, sizeof(tab[i].subj.ifname), "eth0");
		tab[i].subj.dqpn = (__u32)i;
	}
	/* the last two info places: a critical PFC storm and a warning on a flow */
	tab[201].sev = RT_SEV_CRITICAL;
	snprintf(tab[201].rule, sizeof(tab[201].rule), "pfc-storm");
	tab[201].subj.has = RT_SUBJ_IFNAME | RT_SUBJ_DIR | RT_SUBJ_PRIO;
	tab[201].subj.dir = RT_DIR_INGRESS;
	tab[201].subj.prio = 3;
	tab[202].sev = RT_SEV_WARNING;
	snprintf(tab[202].rule, sizeof(tab[202].rule), "loss");
	tab[202].subj.has = RT_SUBJ_SRC | RT_SUBJ_DST | RT_SUBJ_DQPN;
	tab[202].subj.family = 4;
	addr4(tab[202].subj.src, "10.0.0.1");
	addr4(tab[202].subj.dst, "10.0.0.2");
	tab[202].subj.dqpn = 77;

	rt_snapshot_init(&s);
	s.time_ns = 1700000000000000000ULL;
	rt_snapshot_add_iface(&s, 2, "eth0", "xdp");
	rt_snapshot_sort(&s);
	CHECK(!rt_delta_compute(&d, NULL, &s), "delta");
	d.secs = 1;
	d.findings = &F;
	CHECK(!rt_prom_render(r, &s, &d, &t, &tl, &o, &ol), "render");
	HAS(t, "rocetop_finding{rule=\"pfc-storm\",severity=\"critical\",interface=\"eth0\",direction=\"ingress\",priority=\"3\"} 1");
	HAS(t, "rocetop_finding{rule=\"loss\",severity=\"warning\",src=\"10.0.0.1\",dst=\"10.0.0.2\",dqpn=\"77\"} 1");
	HAS(t, "rocetop_finding{rule=\"congestion\",severity=\"info\",interface=\"eth0\",dqpn=\"197\"} 1");
	CHECK(!strstr(t, "dqpn=\"198\""), "the 201st open finding is exported");
	CHECK_EQ(count_prefix(t, "rocetop_finding{"), 200);
	HAS(t, "rocetop_findings_unexported 3");
	HAS(o, "rocetop_findings_unexported 3");
	check_structure(t, 0);
	check_structure(o, 1);
	free(t);
	free(o);
	rt_delta_free(&d);
	rt_snapshot_free(&s);
	rt_prom_render_free(r);
	TEST_END("prom_findings");
}

/* At most 256 host pairs exported, the most congested then the busiest:
 * 300 pairs, pair i with 1000 + i packets and, for i a multiple of 3, i CE
 * marks; the exported set worked out here from that model. */
static void test_hostpair_bound(void)
{
	struct rt_snapshot s;
	struct rt_delta d = { 0 };
	struct rt_prom_render *r = rt_prom_render_new(2, 0);
	int want[300], nwant = 0, i, ok = 1;
	char *t, *o, line[200];
	size_t tl, ol;

	rt_snapshot_init(&s);
	s.time_ns = 1700000000000000000ULL;
	rt_snapshot_add_iface(&s, 2, "eth0", "xdp");
	for (i = 0; i < 300; i++) {
		char src[32];
		struct rt_flow *f;

		snprintf(src, sizeof(src), "10.1.%d.%d", i / 250, i % 250 + 1);
		f = flow(&s, 2, RT_DIR_EGRESS, 4, src, "10.2.0.1", 17);
		f->v.pkts = 1000 + (__u64)i;
		f->v.ecn[RT_ECN_CE] = i % 3 ? 0 : (__u64)i;
	}
	/* the model: congested pairs (i = 3, 6, ... 297), then by packets */
	for (i = 297; i > 0; i -= 3)
		want[nwant++] = i;
	for (i = 299; i >= 0 && nwant < 256; i--)
		if (i % 3 || !i)
			want[nwant++] = i;
	rt_snapshot_sort(&s);
	CHECK(!rt_delta_compute(&d, NULL, &s), "delta");
	d.secs = 1;
	CHECK(!rt_prom_render(r, &s, &d, &t, &tl, &o, &ol), "render");
	CHECK(count_prefix(t, "rocetop_hostpair_packets_total{") == 256, "256 host pairs exported, not %d",
	      count_prefix(t, "rocetop_hostpair_packets_total{"));
	for (i = 0; i < nwant; i++) {
		int k = want[i];

		snprintf(line, sizeof(line), "rocetop_hostpair_packets_total{interface=\"eth0\",direction=\"egress\","
			 "src=\"10.1.%d.%d\",dst=\"10.2.0.1\"} %d", k / 250, k % 250 + 1, 1000 + k);
		if (!has(t, line)) {
			ok = 0;
			fprintf(stderr, "missing: %s\n", line);
			break;
		}
	}
	CHECK(ok, "the exported host pairs are the model's");
	HAS(t, "rocetop_hostpairs_unexported 44");
	free(t);
	free(o);
	rt_delta_free(&d);
	rt_snapshot_free(&s);
	rt_prom_render_free(r);
	TEST_END("prom_hostpair_bound");
}

int main(void)
{
	test_render();
	test_hostpair_bound();
	test_findings();
	test_nic_origin();
	test_listen();
	test_accept();
	return TEST_EXIT();
}
