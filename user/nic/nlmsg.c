// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Netlink requests, written and sent: the socket, the send-and-read loop and
 * the message builder that rdma netlink (nic_netlink.c, nic_stat.c) and DCB
 * (nic_dcb.c) share. nlattr.h reads the answers.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "nlattr.h"

int rt_nl_open(int proto)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 1 };
	int fd, r;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

int rt_nl_ask(int fd, const void *req, size_t len, char *buf, size_t size,
	      int (*parse)(const void *buf, size_t len, void *arg), void *arg)
{
	int r;

	if (send(fd, req, len, 0) < 0)
		return -errno;
	do {
		ssize_t n = recv(fd, buf, size, 0);

		if (n < 0)
			return -errno;
		if (!n)
			return -ECONNRESET;
		r = parse(buf, (size_t)n, arg);
	} while (!r);
	return r < 0 ? r : 0;
}

void rt_nlmsg_put(struct rt_nlmsg *m, const void *p, size_t n)
{
	size_t pad = NLA_ALIGN(n) - n;

	if (m->len + n + pad > m->cap) {
		m->err = -ENOSPC;
		return;
	}
	memcpy(m->b + m->len, p, n);
	memset(m->b + m->len + n, 0, pad);
	m->len += n + pad;
}

void rt_nlmsg_attr(struct rt_nlmsg *m, __u16 type, const void *p, size_t n)
{
	struct nlattr a = { .nla_len = (__u16)(NLA_HDRLEN + n), .nla_type = type };

	rt_nlmsg_put(m, &a, sizeof(a));
	if (n)
		rt_nlmsg_put(m, p, n);
}

void rt_nlmsg_u32(struct rt_nlmsg *m, __u16 type, __u32 v)
{
	rt_nlmsg_attr(m, type, &v, 4);
}

void rt_nlmsg_begin(struct rt_nlmsg *m, void *buf, size_t cap, __u16 type, __u16 flags, __u32 seq)
{
	struct nlmsghdr h = { .nlmsg_type = type, .nlmsg_flags = flags, .nlmsg_seq = seq };

	m->b = buf;
	m->cap = cap;
	m->len = 0;
	m->err = 0;
	rt_nlmsg_put(m, &h, sizeof(h));
}

size_t rt_nlmsg_end(struct rt_nlmsg *m)
{
	if (m->err)
		return 0;
	((struct nlmsghdr *)m->b)->nlmsg_len = (__u32)m->len;
	return m->len;
}
