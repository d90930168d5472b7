// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Slow-client defence for the exporter's HTTP server: see http_guard.h.
 * A connection is closed by shutting its socket down; libmicrohttpd then
 * reads the end of the stream and frees the slot in its own thread.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "http_guard.h"
#include "log.h"

struct conn {
	struct MHD_Connection *c;	/* NULL: free entry */
	int fd;
	int state;			/* IDLE, HEADERS or SERVING */
	struct timespec began;		/* of the current state */
	struct sockaddr_storage addr;
};

enum { IDLE, HEADERS, SERVING };

struct rt_http_guard {
	pthread_mutex_t mu;
	unsigned int idle_deadline;
	struct conn *v;
	unsigned int cap, n, limit;
	/* addresses accepted but not yet notified as started */
	pthread_t reaper;
	int stop_pipe[2];
	int have_reaper;
	unsigned long long cut;		/* connections closed by the guard */
};

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static int same_addr(const struct sockaddr_storage *a, const struct sockaddr *b)
{
	if (a->ss_family != b->sa_family)
		return 0;
	if (b->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (b->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
	return 0;
}

static void cut(struct rt_http_guard *g, struct conn *k)
{
	shutdown(k->fd, SHUT_RDWR);
	k->fd = -1;		/* shut: not counted again */
	g->cut++;
}

/*
 * Close the oldest connection in its headers (of addr, if given), else the
 * oldest idle one (a request line not even begun). 1 if one was.
 */
static int cut_oldest(struct rt_http_guard *g, const struct sockaddr *addr)
{
	struct conn *old = NULL;
	unsigned int i;
	int st;

	for (st = HEADERS; st >= IDLE && !old; st--)
		for (i = 0; i < g->cap; i++) {
			struct conn *k = &g->v[i];

			if (!k->c || k->state != st || k->fd < 0 || (addr && !same_addr(&k->addr, addr)))
				continue;
			if (!old || k->began.tv_sec < old->began.tv_sec ||
			    (k->began.tv_sec == old->began.tv_sec && k->began.tv_nsec < old->began.tv_nsec))
				old = k;
		}
	if (!old)
		return 0;
	cut(g, old);
	return 1;
}

enum MHD_Result rt_http_guard_accept(void *cls, const struct sockaddr *addr, socklen_t len)
{
	struct rt_http_guard *g = cls;
	unsigned int i, from = 0, live = 0;
	enum MHD_Result ok = MHD_YES;

	(void)len;
	pthread_mutex_lock(&g->mu);
	for (i = 0; i < g->cap; i++) {
		if (!g->v[i].c || g->v[i].fd < 0)
			continue;
		live++;
		if (same_addr(&g->v[i].addr, addr))
			from++;
	}
	if (from >= RT_HTTP_PER_ADDR && !cut_oldest(g, addr))
		ok = MHD_NO;
	else if (live + RT_HTTP_RESERVE >= g->limit)
		cut_oldest(g, NULL);
	pthread_mutex_unlock(&g->mu);
	return ok;
}

void rt_http_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct rt_http_guard *g = cls;
	unsigned int i;

	(void)socket_context;
	pthread_mutex_lock(&g->mu);
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		const union MHD_ConnectionInfo *ad = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

		for (i = 0; i < g->cap && g->v[i].c; i++)
			;
		if (i < g->cap) {
			struct conn *k = &g->v[i];

			memset(k, 0, sizeof(*k));
			k->c = c;
			k->fd = fd ? fd->connect_fd : -1;
			k->state = IDLE;
			clock_gettime(CLOCK_MONOTONIC, &k->began);
			if (ad && ad->client_addr) {
				socklen_t l = ad->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
										   : sizeof(struct sockaddr_in);

				memcpy(&k->addr, ad->client_addr, l);
			}
			g->n++;
		}
	} else {
		for (i = 0; i < g->cap; i++)
			if (g->v[i].c == c) {
				g->v[i].c = NULL;
				g->n--;
				break;
			}
	}
	pthread_mutex_unlock(&g->mu);
}

static struct conn *find(struct rt_http_guard *g, struct MHD_Connection *c)
{
	unsigned int i;

	for (i = 0; i < g->cap; i++)
		if (g->v[i].c == c)
			return &g->v[i];
	return NULL;
}

void rt_http_guard_headers(struct rt_http_guard *g, struct MHD_Connection *c)
{
	struct conn *k;

	pthread_mutex_lock(&g->mu);
	k = find(g, c);
	if (k)
		k->state = SERVING;
	pthread_mutex_unlock(&g->mu);
}

/* The request line is in: the header deadline starts. */
void *rt_http_guard_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct rt_http_guard *g = cls;
	struct conn *k;

	(void)uri;
	pthread_mutex_lock(&g->mu);
	k = find(g, c);
	if (k) {
		k->state = HEADERS;
		clock_gettime(CLOCK_MONOTONIC, &k->began);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

/* A request answered: on a kept-alive connection the next one starts now. */
void rt_http_guard_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			     enum MHD_RequestTerminationCode toe)
{
	struct rt_http_guard *g = cls;
	struct conn *k;

	(void)con_cls;
	(void)toe;
	pthread_mutex_lock(&g->mu);
	k = find(g, c);
	if (k && k->fd >= 0) {
		k->state = IDLE;
		clock_gettime(CLOCK_MONOTONIC, &k->began);
	}
	pthread_mutex_unlock(&g->mu);
}

/* Every 250 ms: close connections whose headers are overdue, or that have
 * sent less than a request line for longer than idle_deadline. */
static void *reaper(void *arg)
{
	struct rt_http_guard *g = arg;

	for (;;) {
		struct pollfd p = { .fd = g->stop_pipe[0], .events = POLLIN };
		unsigned int i;

		if (poll(&p, 1, 250) != 0)
			return NULL;
		pthread_mutex_lock(&g->mu);
		for (i = 0; i < g->cap; i++) {
			struct conn *k = &g->v[i];

			if (!k->c || k->fd < 0)
				continue;
			if ((k->state == HEADERS && since(&k->began) > RT_HTTP_HEADER_DEADLINE) ||
			    (k->state == IDLE && since(&k->began) > g->idle_deadline))
				cut(g, k);
		}
		pthread_mutex_unlock(&g->mu);
	}
}

struct rt_http_guard *rt_http_guard_new(unsigned int limit, unsigned int idle_deadline)
{
	struct rt_http_guard *g = calloc(1, sizeof(*g));
	sigset_t all, old;

	if (!g)
		return NULL;
	g->limit = limit;
	g->idle_deadline = idle_deadline;
	g->cap = limit + 16;	/* MHD may notify a close after accepting the next */
	g->v = calloc(g->cap, sizeof(*g->v));
	if (!g->v || pipe(g->stop_pipe)) {
		free(g->v);
		free(g);
		return NULL;
	}
	pthread_mutex_init(&g->mu, NULL);
	/* The signals belong to the main loop's signalfd. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	g->have_reaper = !pthread_create(&g->reaper, NULL, reaper, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return g;
}

void rt_http_guard_free(struct rt_http_guard *g)
{
	if (!g)
		return;
	close(g->stop_pipe[1]);
	if (g->have_reaper)
		pthread_join(g->reaper, NULL);
	close(g->stop_pipe[0]);
	if (g->cut)
		pr_debug("the HTTP guard closed %llu slow connections\n", g->cut);
	pthread_mutex_destroy(&g->mu);
	free(g->v);
	free(g);
}
