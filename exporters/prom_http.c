// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --listen [ADDR:]PORT: serve /metrics to Prometheus, for the fleet. The
 * HTTP side: the address, content negotiation, and the sink.
 *
 * emit() renders the exposition once per interval (exporters/prom_render.c),
 * in the text format 0.0.4 and in OpenMetrics 1.0, then swaps two
 * reference-counted documents in under a mutex. libmicrohttpd answers scrapes
 * from its own thread: a scrape takes a reference under the mutex, copies the
 * text outside it and lets go. So the collector waits at most for a pointer
 * swap, whatever the scrapers do. Names: exporters/README.md.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <microhttpd.h>
#include "endpoint.h"
#include "fmt.h"
#include "http_guard.h"
#include "log.h"
#include "sink.h"
#include "prom.h"
#include "web_config.h"

#define CONN_LIMIT	64	/* concurrent connections */
#define CONN_TIMEOUT	10	/* seconds a silent connection is kept */

/* ------------------------------------------------------------------ */
/* --listen */

int rt_prom_parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[256] = "127.0.0.1";
	const char *port = spec, *colon;
	struct addrinfo hints = { 0 }, *res = NULL;
	char *end;
	long p;

	if (!spec || !*spec)
		return -EINVAL;
	if (spec[0] == '[') {
		const char *rb = strchr(spec, ']');

		if (!rb || rb[1] != ':' || (size_t)(rb - spec - 1) >= sizeof(host) || rb == spec + 1)
			return -EINVAL;
		memcpy(host, spec + 1, (size_t)(rb - spec - 1));
		host[rb - spec - 1] = 0;
		port = rb + 2;
	} else if ((colon = strrchr(spec, ':'))) {
		if (colon == spec || (size_t)(colon - spec) >= sizeof(host) ||
		    memchr(spec, ':', (size_t)(colon - spec)))
			return -EINVAL;	/* IPv6 wants brackets */
		memcpy(host, spec, (size_t)(colon - spec));
		host[colon - spec] = 0;
		port = colon + 1;
	}
	errno = 0;
	p = strtol(port, &end, 10);
	if (errno || end == port || *end || p < 1 || p > 65535)
		return -EINVAL;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	if (getaddrinfo(host, NULL, &hints, &res) || !res)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((unsigned short)p);
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons((unsigned short)p);
	else
		return -EINVAL;
	return 0;
}

static void fmt_sockaddr(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(s4->sin_port));
	}
}

/* ------------------------------------------------------------------ */
/* Accept negotiation */

int rt_prom_wants_openmetrics(const char *accept)
{
	double om = 0, text = 0;
	const char *p = accept;

	if (!accept)
		return 0;
	while (*p) {
		const char *end = strchr(p, ','), *semi, *q;
		size_t n, tl;
		double qv = 1;

		if (!end)
			end = p + strlen(p);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		semi = memchr(p, ';', (size_t)(end - p));
		tl = (size_t)((semi ? semi : end) - p);
		while (tl && (p[tl - 1] == ' ' || p[tl - 1] == '\t'))
			tl--;
		for (q = semi; q && q < end; q = memchr(q + 1, ';', (size_t)(end - q - 1))) {
			const char *v = q + 1;

			while (v < end && *v == ' ')
				v++;
			if (v + 2 <= end && (v[0] == 'q' || v[0] == 'Q') && v[1] == '=')
				qv = strtod(v + 2, NULL);
		}
		n = strlen("application/openmetrics-text");
		if (tl == n && !strncasecmp(p, "application/openmetrics-text", n)) {
			if (qv > om)
				om = qv;
		} else if ((tl == 10 && !strncasecmp(p, "text/plain", 10)) ||
			   (tl == 3 && !strncmp(p, "*/*", 3)) || (tl == 6 && !strncasecmp(p, "text/*", 6))) {
			if (qv > text)
				text = qv;
		}
		p = *end ? end + 1 : end;
	}
	return om > 0 && om >= text;
}

/* ------------------------------------------------------------------ */
/* The HTTP side */

/* A rendered document, shared by the sink and the scrapes reading it. */
struct doc {
	int refs;		/* __atomic */
	size_t len;
	char *text;
};

struct prom {
	pthread_mutex_t mu;
	struct doc *text, *om;	/* the latest, under mu */
	struct MHD_Daemon *mhd;
	struct rt_prom_render *r;
	unsigned long long scrapes;	/* __atomic */
	char where[80];
	struct rt_http_guard *guard;
	struct rt_web_config web;	/* --web-config: TLS and users, or none */
};

static struct doc *doc_new(char *text, size_t len)
{
	struct doc *d = malloc(sizeof(*d));

	if (!d) {
		free(text);
		return NULL;
	}
	d->refs = 1;
	d->len = len;
	d->text = text;
	return d;
}

static void doc_put(struct doc *d)
{
	if (d && __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		free(d->text);
		free(d);
	}
}

/* Swap in new documents: the only time the collector holds the mutex. */
static int publish(struct prom *p, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct doc *t, *o, *old_t, *old_o;
	char *tx, *ox;
	struct rt_prom_self self;
	size_t tl, ol;
	int err;

	rt_prom_render_self(p->r, rt_prom_self_read(&self) ? NULL : &self);
	err = rt_prom_render(p->r, cur, d, &tx, &tl, &ox, &ol);
	if (err)
		return err;
	t = doc_new(tx, tl);
	o = doc_new(ox, ol);
	if (!t || !o) {
		doc_put(t);
		doc_put(o);
		return -ENOMEM;
	}
	pthread_mutex_lock(&p->mu);
	old_t = p->text;
	old_o = p->om;
	p->text = t;
	p->om = o;
	pthread_mutex_unlock(&p->mu);
	doc_put(old_t);
	doc_put(old_o);
	return 0;
}

static const char root_page[] =
	"<html><head><title>rocetop exporter</title></head><body>\n"
	"<h1>rocetop</h1><p>RoCEv2 congestion per flow, host pair, interface and NIC port.</p>\n"
	"<p><a href=\"/metrics\">/metrics</a></p>\n</body></html>\n";

/* A response of type with body, and one more header (hdr: its name, or NULL for none). */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     void *body, size_t len, enum MHD_ResponseMemoryMode mode, const char *hdr,
			     const char *val)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!resp) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (hdr)
		MHD_add_response_header(resp, hdr, val);
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

#define TEXT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define OM_TYPE   "application/openmetrics-text; version=1.0.0; charset=utf-8"

static enum MHD_Result serve_metrics(struct prom *p, struct MHD_Connection *c)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	int om = rt_prom_wants_openmetrics(accept);
	unsigned long long n = __atomic_add_fetch(&p->scrapes, 1, __ATOMIC_RELAXED);
	static const char eof[] = "# EOF\n";
	struct doc *d;
	size_t body, cap;
	char *buf;
	int k;

	pthread_mutex_lock(&p->mu);
	d = om ? p->om : p->text;
	if (d)
		__atomic_add_fetch(&d->refs, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&p->mu);
	if (!d)
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", "no snapshot yet\n", 16,
			     MHD_RESPMEM_PERSISTENT, NULL, NULL);
	/* the copy happens outside the lock, the collector never waits for it */
	body = d->len;
	if (om && body >= sizeof(eof) - 1)
		body -= sizeof(eof) - 1;
	cap = body + 512;
	buf = malloc(cap);
	if (!buf) {
		doc_put(d);
		return MHD_NO;
	}
	memcpy(buf, d->text, body);
	doc_put(d);
	k = snprintf(buf + body, cap - body,
		     "# HELP rocetop_scrapes%s Requests for /metrics served since rocetop started, this one included.\n"
		     "# TYPE rocetop_scrapes%s counter\nrocetop_scrapes_total %llu\n%s",
		     om ? "" : "_total", om ? "" : "_total", n, om ? eof : "");
	return reply(c, MHD_HTTP_OK, om ? OM_TYPE : TEXT_TYPE, buf, body + (size_t)k, MHD_RESPMEM_MUST_FREE, NULL, NULL);
}

/* Counts the Host header lines (MHD_get_connection_values' iterator). */
static enum MHD_Result count_host(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	(void)kind;
	(void)value;
	if (key && !strcasecmp(key, MHD_HTTP_HEADER_HOST))
		(*(int *)cls)++;
	return MHD_YES;
}

/* Basic authentication against the users of --web-config (bcrypt, bounded
 * per client: web_config.h). The header is decoded here, not by
 * libmicrohttpd, which cuts a password at a NUL. */
static int authorized(struct prom *p, struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	char user[64], pass[1024];
	const void *id = "";
	size_t idlen = 0;
	struct timespec ts;
	int ok;

	if (rt_web_basic_decode(h, user, sizeof(user), pass, sizeof(pass)))
		return RT_WEB_DENIED;
	if (sa && sa->sa_family == AF_INET) {
		id = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
		idlen = 4;
	} else if (sa && sa->sa_family == AF_INET6) {
		id = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
		idlen = 16;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ok = rt_web_config_check(&p->web, user, pass, id, idlen, ts.tv_sec + ts.tv_nsec / 1e9);
	explicit_bzero(pass, sizeof(pass));
	return ok;
}

static enum MHD_Result ask_auth(struct MHD_Connection *c)
{
	static const char body[] = "authentication required\n";
	struct MHD_Response *resp = MHD_create_response_from_buffer(sizeof(body) - 1, (void *)body,
								    MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
	ret = MHD_queue_basic_auth_fail_response(c, "rocetop", resp);
	MHD_destroy_response(resp);
	return ret;
}

/* 429: this client has spent its password checks for now. */
static enum MHD_Result too_many(struct MHD_Connection *c)
{
	static const char body[] = "too many password checks from this address: try again in a second\n";

	return reply(c, MHD_HTTP_TOO_MANY_REQUESTS, "text/plain", (void *)body, sizeof(body) - 1,
		     MHD_RESPMEM_PERSISTENT, MHD_HTTP_HEADER_RETRY_AFTER, "1");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload_data, size_t *upload_data_size,
			      void **con_cls)
{
	struct prom *p = cls;
	static const char no_host[] = "an HTTP/1.1 request takes one Host header\n";
	int nhost = 0;

	rt_http_guard_headers(p->guard, c);	/* a handler call: the headers are in */
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	/* RFC 9112 section 3.2: 400 for an HTTP/1.1 request without a Host
	 * header or with more than one (HTTP/1.0 need not send one). */
	MHD_get_connection_values(c, MHD_HEADER_KIND, count_host, &nhost);
	if (nhost > 1 || (!nhost && version && strcmp(version, MHD_HTTP_VERSION_1_0)))
		return reply(c, MHD_HTTP_BAD_REQUEST, "text/plain", (void *)no_host, sizeof(no_host) - 1,
			     MHD_RESPMEM_PERSISTENT, NULL, NULL);
	if (p->web.nusers) {
		int ok = authorized(p, c);

		if (ok == RT_WEB_BUSY)
			return too_many(c);
		if (ok != RT_WEB_OK)
			return ask_auth(c);
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			     "only GET and HEAD are served here\n", 34, MHD_RESPMEM_PERSISTENT,
			     MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (!strcmp(url, "/metrics"))
		return serve_metrics(p, c);
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", (void *)root_page,
			     sizeof(root_page) - 1, MHD_RESPMEM_PERSISTENT, NULL, NULL);
	return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", "not found: try /metrics\n", 24,
		     MHD_RESPMEM_PERSISTENT, NULL, NULL);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	pr_debug("http: %s", msg);
}

static int prom_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	int err = publish(s->priv, cur, d);

	if (err)
		pr_warn("rendering the Prometheus metrics failed: %s.\n", strerror(-err));
	return err;
}

static void prom_close(struct rt_sink *s)
{
	struct prom *p = s->priv;

	if (p) {
		if (p->mhd)
			MHD_stop_daemon(p->mhd);	/* joins its thread, closes the socket */
		rt_http_guard_free(p->guard);
		rt_web_config_free(&p->web);
		doc_put(p->text);
		doc_put(p->om);
		rt_prom_render_free(p->r);
		pthread_mutex_destroy(&p->mu);
		free(p);
	}
	free(s);
}

/* libmicrohttpd on our socket, with TLS when --web-config gives a certificate. */
static struct MHD_Daemon *start_daemon(struct prom *p, int fd, int family)
{
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, p->web.key_pem },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, p->web.cert_pem },
		{ MHD_OPTION_END, 0, NULL },
	};

	return MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
				(family == AF_INET6 ? MHD_USE_IPv6 : 0) | (p->web.cert_pem ? MHD_USE_TLS : 0),
				0, rt_http_guard_accept, p->guard, handle, p,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_NOTIFY_CONNECTION, rt_http_guard_notify, p->guard,
				MHD_OPTION_NOTIFY_COMPLETED, rt_http_guard_completed, p->guard,
				MHD_OPTION_URI_LOG_CALLBACK, rt_http_guard_uri, p->guard,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)CONN_LIMIT,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONN_TIMEOUT,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				MHD_OPTION_ARRAY, p->web.cert_pem ? tls : tls + 2,
				MHD_OPTION_END);
}

/* --web-config: read it, and make sure this libmicrohttpd can serve TLS. */
static int web_setup(struct prom *p, const struct rt_prom_cfg *c)
{
	if (!c->web_config)
		return 0;
	if (rt_web_config_load(c->web_config, &p->web))
		return -1;
	if (p->web.cert_pem && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		pr_warn("--web-config %s asks for TLS, but this libmicrohttpd was built without it (GnuTLS).\n",
			c->web_config);
		return -1;
	}
	return 0;
}

/* Our own socket, so that a port in use gets a clear sentence. */
static int listen_on(const struct rt_prom_cfg *c, const struct sockaddr_storage *ss, socklen_t len,
		     const char *where)
{
	int fd, one = 1;

	/* In rocetop's home namespace, whichever one it watches (endpoint.h). */
	fd = rt_endpoint_socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		pr_warn("cannot open a socket for --listen %s: %s.\n", c->listen, strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, len) || listen(fd, 64)) {
		int e = errno;

		if (e == EADDRINUSE)
			pr_warn("cannot listen on %s: the port is already in use; pick another with --listen.\n", where);
		else if (e == EADDRNOTAVAIL)
			pr_warn("cannot listen on %s: no local interface has that address.\n", where);
		else if (e == EACCES)
			pr_warn("cannot listen on %s: ports below 1024 need root (CAP_NET_BIND_SERVICE).\n", where);
		else
			pr_warn("cannot listen on %s: %s.\n", where, strerror(e));
		close(fd);
		return -1;
	}
	return fd;
}

struct rt_sink *rt_prom_sink_new(const struct rt_prom_cfg *c)
{
	struct sockaddr_storage ss;
	struct rt_sink *s = calloc(1, sizeof(*s));
	struct prom *p = calloc(1, sizeof(*p));
	sigset_t all, old;
	socklen_t len;
	int fd;

	if (!s || !p) {
		pr_warn("out of memory.\n");
		free(s);
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->mu, NULL);
	s->name = "prometheus";
	s->emit = prom_emit;
	s->close = prom_close;
	s->input_fd = -1;
	s->priv = p;
	if (rt_prom_parse_listen(c->listen, &ss, &len)) {
		pr_warn("--listen '%s' is not valid: give PORT, ADDR:PORT or [IPv6]:PORT, e.g. 9100 or 0.0.0.0:9100.\n",
			c->listen);
		goto fail;
	}
	fmt_sockaddr(&ss, p->where, sizeof(p->where));
	if ((ss.ss_family == AF_INET && ((struct sockaddr_in *)&ss)->sin_addr.s_addr == htonl(INADDR_ANY)) ||
	    (ss.ss_family == AF_INET6 && IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&ss)->sin6_addr)))
		pr_warn("--listen %s binds every address: the metrics (addresses, QPs, process names) are reachable from the network; give 127.0.0.1:PORT or one interface's address to keep them local.\n",
			c->listen);
	if (web_setup(p, c))
		goto fail;
	p->r = rt_prom_render_new(c->flows, c->speed_mbps);
	if (!p->r || publish(p, NULL, NULL)) {
		pr_warn("out of memory.\n");
		goto fail;
	}
	fd = listen_on(c, &ss, len, p->where);
	if (fd < 0)
		goto fail;
	/* The HTTP thread must not take the signals the main loop reads from its signalfd. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	/* Slow clients cannot take every slot (http_guard.h). */
	p->guard = rt_http_guard_new(CONN_LIMIT, CONN_TIMEOUT + 5);
	if (!p->guard) {
		pr_warn("out of memory.\n");
		close(fd);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		goto fail;
	}
	p->mhd = start_daemon(p, fd, ss.ss_family);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!p->mhd) {
		if (p->web.cert_pem)
			pr_warn("cannot start the HTTPS server on %s: the certificate or key of --web-config %s is not valid, or they do not match.\n",
				p->where, c->web_config);
		else
			pr_warn("cannot start the HTTP server on %s (libmicrohttpd refused; -v says why).\n", p->where);
		close(fd);
		goto fail;
	}
	pr_info("serving Prometheus metrics on %s://%s/metrics%s\n", p->web.cert_pem ? "https" : "http", p->where,
		p->web.nusers ? " (basic authentication)" : "");
	return s;
fail:
	prom_close(s);
	return NULL;
}
