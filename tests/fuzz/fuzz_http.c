// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: the Prometheus exporter's HTTP side on untrusted requests. Each
 * input is
 *   - an Accept header value, through the exporter's own negotiation
 *     (rt_prom_wants_openmetrics(): 0 or 1, nothing else), and
 *   - a whole request, bytes as they come, sent over loopback TCP to the
 *     exporter itself (rt_prom_sink_new(): libmicrohttpd parses the request
 *     line and headers, the connection guard and the handler act on them);
 *     the answer, if any, must be an HTTP/1.x status line, and the exporter
 *     must close the connection once the client has finished sending.
 * The exporter listens on 127.0.0.1, on the first free port from 39100.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "log.h"
#include "opts.h"
#include "prom.h"
#include "sink.h"

static struct rt_sink *sink;
static struct sockaddr_in where;

static void start(void)
{
	static char spec[32];
	struct rt_opts o;

	rt_opts_defaults(&o);
	for (int port = 39100; port < 39400 && !sink; port++) {
		snprintf(spec, sizeof(spec), "127.0.0.1:%d", port);
		o.listen = spec;
		sink = rt_prom_sink_new(&o);
		where.sin_family = AF_INET;
		where.sin_port = htons((unsigned short)port);
		where.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	}
	if (!sink)
		abort();
}

/* Send the request, close our side, read the answer to the end. */
static void request(const __u8 *data, size_t size)
{
	struct timeval tv = { 5, 0 };
	char head[16];
	size_t got = 0;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	ssize_t n;

	if (fd < 0)
		abort();
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&where, sizeof(where)))
		abort();
	for (size_t off = 0; off < size; off += (size_t)n) {
		n = send(fd, data + off, size - off, MSG_NOSIGNAL);
		if (n <= 0)
			break;	/* the exporter may refuse the rest (and close) */
	}
	shutdown(fd, SHUT_WR);
	for (;;) {
		char buf[65536];

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			fprintf(stderr, "fuzz_http: no end to the answer within 5 s\n");
			abort();
		}
		if (n == 0)
			break;
		if (got < sizeof(head))
			memcpy(head + got, buf, (size_t)n < sizeof(head) - got ? (size_t)n : sizeof(head) - got);
		got += (size_t)n;
	}
	close(fd);
	if (got && (got < 9 || memcmp(head, "HTTP/1.", 7)))
		abort();	/* an answer that is not HTTP */
}

int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	char *accept = malloc(size + 1);
	int r;

	if (!accept)
		return 0;
	memcpy(accept, data, size);
	accept[size] = 0;
	r = rt_prom_wants_openmetrics(accept);
	free(accept);
	if (r != 0 && r != 1)
		abort();
	if (!sink)
		start();
	request(data, size);
	return 0;
}
