/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Endpoints a user asked for (--listen, and any later port rocetop opens for
 * others to reach) belong to the network namespace rocetop was started in,
 * even when rocetop then watches interfaces in another one (rocetop lab). A
 * socket keeps the namespace it was created in, so the endpoint's socket is
 * created there and everything after it (bind, listen, accept) follows.
 */
#ifndef RT_ENDPOINT_H
#define RT_ENDPOINT_H

/*
 * Remember the current network namespace as the endpoints' home: call it
 * before entering another namespace. Returns 0 or a negative errno.
 * rt_endpoint_home_clear() forgets it again.
 */
int rt_endpoint_home_set(void);
void rt_endpoint_home_clear(void);

/*
 * socket(2) in the endpoints' home namespace (in the current one when no home
 * was set). Returns the descriptor, or -1 with errno set.
 */
int rt_endpoint_socket(int domain, int type, int protocol);

#endif
