/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The exporter's defence against slow clients: a client
 * that sends its request headers a line at a time could hold a connection
 * slot forever (libmicrohttpd's timeout counts idle time, and every byte
 * resets it). The guard keeps, per connection, when its current request
 * began, and
 *   - closes a connection whose request headers are not complete
 *     RT_HTTP_HEADER_DEADLINE seconds after its request line came, bytes or
 *     not, and one that has not sent a whole request line idle_deadline
 *     seconds after connecting (or after its last answer);
 *   - lets one address hold at most RT_HTTP_PER_ADDR connections; a new one
 *     from an address at the limit replaces that address's oldest connection
 *     still sending headers (else its oldest idle one), or is refused;
 *   - keeps RT_HTTP_RESERVE of the slots for new clients: when the others
 *     are taken, a new client replaces the oldest connection still sending
 *     headers.
 * It plugs into MHD_start_daemon() through its accept policy and connection
 * notifications, and into the request handler through rt_http_guard_headers().
 */
#ifndef RT_HTTP_GUARD_H
#define RT_HTTP_GUARD_H

#include <microhttpd.h>

#define RT_HTTP_HEADER_DEADLINE	5
#define RT_HTTP_PER_ADDR	32
#define RT_HTTP_RESERVE		8

struct rt_http_guard;

/* For a daemon of `limit` connections; NULL without memory. */
struct rt_http_guard *rt_http_guard_new(unsigned int limit, unsigned int idle_deadline);
void rt_http_guard_free(struct rt_http_guard *g);

/* The callbacks to give MHD_start_daemon (cls: the guard). */
enum MHD_Result rt_http_guard_accept(void *cls, const struct sockaddr *addr, socklen_t len);
void rt_http_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe);
void rt_http_guard_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			     enum MHD_RequestTerminationCode toe);
/* MHD_OPTION_URI_LOG_CALLBACK: the request line is in. */
void *rt_http_guard_uri(void *cls, const char *uri, struct MHD_Connection *c);
/* From the request handler: this connection's headers are complete. */
void rt_http_guard_headers(struct rt_http_guard *g, struct MHD_Connection *c);

#endif
