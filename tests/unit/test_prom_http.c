// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Prometheus sink's HTTP side, on loopback: /metrics before and after the
 * first interval, content negotiation, 404/405, the root page, a port in use,
 * IPv6, and emit() timing while scrapers hammer the server.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "check.h"
#include "sink.h"
#include "../../exporters/prom.h"

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	bind(fd, (struct sockaddr *)&a, sizeof(a));
	getsockname(fd, (struct sockaddr *)&a, &l);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* One request, Connection: close; the whole answer in buf. Returns the status or -1. */
static int http(int family, int port, const char *req, char *buf, size_t len)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t sl;
	size_t got = 0;
	ssize_t n;
	int fd, status = -1;

	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((unsigned short)port);
		s6->sin6_addr = in6addr_loopback;
		sl = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((unsigned short)port);
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sl = sizeof(*s4);
	}
	fd = socket(family, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, sl)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		return -1;
	}
	while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = 0;
	close(fd);
	sscanf(buf, "HTTP/1.%*d %d", &status);
	return status;
}

static const char *body(const char *resp)
{
	const char *b = strstr(resp, "\r\n\r\n");

	return b ? b + 4 : "";
}

static void snap(struct rt_snapshot *s, __u64 pkts)
{
	struct rt_flow *f;

	rt_snapshot_clear(s);
	s->time_ns = 1700000000000000000ULL;
	rt_snapshot_add_iface(s, 7, "lo7", "file");
	f = rt_snapshot_add_flow(s);
	f->k.ifindex = 7;
	f->k.family = 4;
	f->k.src[0] = 10; f->k.src[3] = 1;
	f->k.dst[0] = 10; f->k.dst[3] = 2;
	f->k.dqpn = 5;
	f->v.pkts = pkts;
	f->v.ecn[RT_ECN_CE] = pkts;
	f->throttles = -1;
}

static char big[1 << 20];

static void test_http(void)
{
	struct rt_prom_cfg o;
	struct rt_snapshot s;
	struct rt_delta d = { 0 };
	struct rt_sink *k, *k2;
	char spec[64];
	int port = free_port(), st;

	memset(&o, 0, sizeof(o));
	o.flows = 10;
	snprintf(spec, sizeof(spec), "%d", port);
	o.listen = spec;
	k = rt_prom_sink_new(&o);
	CHECK(k != NULL, "sink on port %d", port);
	if (!k) {
		TEST_END("prom_http");
		return;
	}
	st = http(AF_INET, port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", big, sizeof(big));
	CHECK_EQ(st, 200);
	CHECK(strstr(big, "rocetop_intervals_total 0\n") != NULL, "before the first interval: %s", body(big));
	CHECK(strstr(big, "rocetop_scrapes_total 1\n") != NULL, "scrape count");
	CHECK(strstr(big, "text/plain; version=0.0.4") != NULL, "content type");

	rt_snapshot_init(&s);
	snap(&s, 3);
	rt_delta_compute(&d, NULL, &s);
	d.secs = 1;
	CHECK_EQ(k->emit(k, &s, &d), 0);
	st = http(AF_INET, port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", big, sizeof(big));
	CHECK_EQ(st, 200);
	CHECK(strstr(big, "rocetop_intervals_total 1\n") != NULL, "after one interval");
	CHECK(strstr(big, "rocetop_hostpair_ecn_packets_total{interface=\"lo7\",direction=\"ingress\","
			  "src=\"10.0.0.1\",dst=\"10.0.0.2\",ecn=\"ce\"} 3\n") != NULL, "CE count");
	CHECK(!strstr(big, "# EOF"), "EOF in text");
	CHECK(strstr(big, "# TYPE rocetop_scrapes_total counter\nrocetop_scrapes_total 2\n") != NULL, "scrapes");

	st = http(AF_INET, port, "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text;"
		  "version=1.0.0,text/plain;version=0.0.4;q=0.5\r\nConnection: close\r\n\r\n", big, sizeof(big));
	CHECK_EQ(st, 200);
	CHECK(strstr(big, "application/openmetrics-text; version=1.0.0") != NULL, "OM content type");
	CHECK(strlen(big) > 6 && !strcmp(big + strlen(big) - 6, "# EOF\n"), "OM ends with # EOF");
	CHECK(strstr(big, "# TYPE rocetop_scrapes counter\nrocetop_scrapes_total 3\n# EOF\n") != NULL, "OM scrapes");
	CHECK(strstr(big, "# TYPE rocetop_build info\n") != NULL, "OM info");

	st = http(AF_INET, port, "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", big, sizeof(big));
	CHECK_EQ(st, 200);
	CHECK(!*body(big), "HEAD has no body");
	st = http(AF_INET, port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nab",
		  big, sizeof(big));
	CHECK_EQ(st, 405);
	CHECK(strstr(big, "Allow: GET, HEAD") != NULL, "Allow header");
	st = http(AF_INET, port, "DELETE / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", big, sizeof(big));
	CHECK_EQ(st, 405);
	st = http(AF_INET, port, "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", big, sizeof(big));
	CHECK_EQ(st, 404);
	st = http(AF_INET, port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", big, sizeof(big));
	CHECK_EQ(st, 200);
	CHECK(strstr(big, "href=\"/metrics\"") != NULL, "root page links /metrics");
	/* RFC 9112 section 3.2: an HTTP/1.1 request without Host, or with two, is
	 * answered 400; HTTP/1.0 needs none */
	st = http(AF_INET, port, "GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n", big, sizeof(big));
	CHECK_EQ(st, 400);
	st = http(AF_INET, port, "GET /metrics HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n", big,
		  sizeof(big));
	CHECK_EQ(st, 400);
	st = http(AF_INET, port, "GET /metrics HTTP/1.0\r\n\r\n", big, sizeof(big));
	CHECK_EQ(st, 200);
	st = http(AF_INET, port, "garbage\r\n\r\n", big, sizeof(big));
	CHECK(st == 400 || st == -1, "garbage request: %d", st);

	/* the same port again: refused, with a sentence (seen in the log) */
	k2 = rt_prom_sink_new(&o);
	CHECK(k2 == NULL, "second sink on a port in use");
	if (k2)
		k2->close(k2);
	/* a bare port is loopback only: nothing answers IPv6 */
	CHECK(http(AF_INET6, port, "GET / HTTP/1.0\r\n\r\n", big, sizeof(big)) == -1, "bare port bound to ::");

	k->close(k);
	rt_delta_free(&d);
	rt_snapshot_free(&s);
	TEST_END("prom_http");
}

static void test_ipv6(void)
{
	struct rt_prom_cfg o;
	struct rt_sink *k;
	char spec[64];
	int port = free_port();

	memset(&o, 0, sizeof(o));
	o.flows = 10;
	snprintf(spec, sizeof(spec), "[::1]:%d", port);
	o.listen = spec;
	k = rt_prom_sink_new(&o);
	if (!k) {
		printf("SKIP prom_http_ipv6: cannot listen on [::1] here\n");
		return;
	}
	CHECK_EQ(http(AF_INET6, port, "GET /metrics HTTP/1.0\r\n\r\n", big, sizeof(big)), 200);
	CHECK(strstr(big, "rocetop_build_info{version=") != NULL, "v6 body");
	CHECK(http(AF_INET, port, "GET / HTTP/1.0\r\n\r\n", big, sizeof(big)) == -1, "[::1] also on 127.0.0.1");
	k->close(k);
	TEST_END("prom_http_ipv6");
}

/* emit() while scrapers run: it only waits for a pointer swap. */
struct load {
	int port;
	int stop;		/* __atomic */
	long ok, bad;
};

static void *scraper(void *arg)
{
	struct load *l = arg;
	static __thread char buf[1 << 20];

	while (!__atomic_load_n(&l->stop, __ATOMIC_RELAXED)) {
		int st = http(AF_INET, l->port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
			      buf, sizeof(buf));

		if (st == 200)
			__atomic_add_fetch(&l->ok, 1, __ATOMIC_RELAXED);
		else
			__atomic_add_fetch(&l->bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_emit_under_load(void)
{
	struct load l = { .port = free_port() };
	struct rt_prom_cfg o;
	struct rt_snapshot s;
	struct rt_delta d = { 0 };
	struct rt_sink *k;
	pthread_t th[8];
	char spec[64];
	double worst = 0, total = 0;
	int i;

	memset(&o, 0, sizeof(o));
	o.flows = 10;
	snprintf(spec, sizeof(spec), "127.0.0.1:%d", l.port);
	o.listen = spec;
	k = rt_prom_sink_new(&o);
	CHECK(k != NULL, "sink");
	if (!k) {
		TEST_END("prom_emit_under_load");
		return;
	}
	rt_snapshot_init(&s);
	for (i = 0; i < 8; i++)
		pthread_create(&th[i], NULL, scraper, &l);
	for (i = 0; i < 200; i++) {
		double t0, dt;

		snap(&s, (__u64)i + 1);
		rt_delta_compute(&d, NULL, &s);
		d.secs = 1;
		t0 = now();
		CHECK_EQ(k->emit(k, &s, &d), 0);
		dt = now() - t0;
		total += dt;
		if (dt > worst)
			worst = dt;
		usleep(2000);
	}
	__atomic_store_n(&l.stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	printf("  200 emits under 8 scrapers: mean %.1f us, worst %.1f us; %ld scrapes ok, %ld failed\n",
	       total / 200 * 1e6, worst * 1e6, l.ok, l.bad);
	CHECK_EQ(l.bad, 0);
	CHECK(l.ok > 0, "no scrape succeeded");
	/* rendering a small snapshot and swapping: far below one interval */
	CHECK(worst < 0.05, "an emit took %.3f s", worst);
	k->close(k);
	rt_delta_free(&d);
	rt_snapshot_free(&s);
	TEST_END("prom_emit_under_load");
}

int main(void)
{
	test_http();
	test_ipv6();
	test_emit_under_load();
	return TEST_EXIT();
}
