// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: what the Prometheus exporter itself parses of an HTTP request.
 * libmicrohttpd splits the request line and headers; the exporter then reads
 * the Accept header to choose between the text format and OpenMetrics
 * (rt_prom_wants_openmetrics(), exporters/prom_http.c). Each input is a whole
 * request: every header line the way libmicrohttpd hands it over (the name
 * up to ':', the value with leading blanks removed, CR LF or LF ending it)
 * whose name is Accept, and the whole input as one value too, go through the
 * negotiation, which must answer 0 or 1 and read nothing past the value's end
 * (each value is a heap copy of exactly its length, with its NUL).
 *
 * A harness through the exporter's own socket was tried: with
 * libmicrohttpd's thread in the way an execution took 1 to 100 ms, and a
 * request cut inside its first line is held until the 10 s timeout, too slow
 * for make fuzz's million runs.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "prom.h"

static void negotiate(const unsigned char *v, size_t n)
{
	char *s = malloc(n + 1);
	int r;

	if (!s)
		return;
	memcpy(s, v, n);
	s[n] = 0;
	r = rt_prom_wants_openmetrics(s);
	free(s);
	if (r != 0 && r != 1)
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const unsigned char *p = data, *end = data + size;

	negotiate(data, size);
	/* The request line first, then the headers to the empty line. */
	p = memchr(p, '\n', size);
	while (p && ++p < end) {
		const unsigned char *eol = memchr(p, '\n', (size_t)(end - p)), *colon, *v, *ve;

		ve = eol ? eol : end;
		if (ve == p || (ve == p + 1 && *p == '\r'))
			break;	/* the end of the headers */
		colon = memchr(p, ':', (size_t)(ve - p));
		if (colon && colon - p == 6 && !strncasecmp((const char *)p, "accept", 6)) {
			for (v = colon + 1; v < ve && (*v == ' ' || *v == '\t'); v++)
				;
			if (ve > v && ve[-1] == '\r')
				ve--;
			negotiate(v, (size_t)(ve - v));
		}
		p = eol;
	}
	return 0;
}
