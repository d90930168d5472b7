// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A stand-in for the kernel's RDMA netlink, preloaded (LD_PRELOAD) into a
 * program on a host without an RDMA stack, so that the exact requests of two
 * programs can be compared: iproute2's `rdma` (the reference: what the kernel
 * accepts) and rocetop. A socket(AF_NETLINK, ..., NETLINK_RDMA) becomes one
 * end of an AF_UNIX datagram pair; every request sent on it is appended to
 * $FAKE_NL_LOG as one line of hex; the answer is the file $FAKE_NL_DIR/<op>
 * (op: the nldev command, RDMA_NL_GET_OP of the request's type; <op>d for a
 * dump; <op>.<n> or <op>d.<n> for the n-th such request, if there is one)
 * with each message's sequence number set to the request's, or else an ACK. The answer
 * files are written by the test from the kernel's layout (nldev.c) and shown
 * to be read by `rdma` as the kernel's answers are.
 * Only the calls libmnl (iproute2) and rocetop make are covered.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/netlink.h>

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif

#define MAXFD 1024
static int peer[MAXFD];	/* fake fd -> the other end + 1; 0: not ours */

static int ours(int fd)
{
	return fd >= 0 && fd < MAXFD && peer[fd];
}

int socket(int domain, int type, int protocol)
{
	static int (*real)(int, int, int);
	int sv[2];

	if (!real)
		real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	if (domain != AF_NETLINK || protocol != NETLINK_RDMA)
		return real(domain, type, protocol);
	if (socketpair(AF_UNIX, SOCK_DGRAM | (type & SOCK_CLOEXEC), 0, sv))
		return -1;
	if (sv[0] >= MAXFD) {
		close(sv[0]);
		close(sv[1]);
		errno = EMFILE;
		return -1;
	}
	peer[sv[0]] = sv[1] + 1;
	return sv[0];
}

int bind(int fd, const struct sockaddr *a, socklen_t l)
{
	static int (*real)(int, const struct sockaddr *, socklen_t);

	if (ours(fd))
		return 0;
	if (!real)
		real = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
	return real(fd, a, l);
}

int getsockname(int fd, struct sockaddr *a, socklen_t *l)
{
	static int (*real)(int, struct sockaddr *, socklen_t *);
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	if (!ours(fd)) {
		if (!real)
			real = (int (*)(int, struct sockaddr *, socklen_t *))dlsym(RTLD_NEXT, "getsockname");
		return real(fd, a, l);
	}
	nl.nl_pid = (__u32)getpid();
	memcpy(a, &nl, *l < sizeof(nl) ? *l : sizeof(nl));
	*l = sizeof(nl);
	return 0;
}

int setsockopt(int fd, int level, int name, const void *v, socklen_t l)
{
	static int (*real)(int, int, int, const void *, socklen_t);

	if (!real)
		real = (int (*)(int, int, int, const void *, socklen_t))dlsym(RTLD_NEXT, "setsockopt");
	if (ours(fd) && level != SOL_SOCKET)
		return 0;	/* SOL_NETLINK options: nothing to do here */
	return real(fd, level, name, v, l);
}

int close(int fd)
{
	static int (*real)(int);

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "close");
	if (ours(fd)) {
		real(peer[fd] - 1);
		peer[fd] = 0;
	}
	return real(fd);
}

/* Log the request, send back the answer for its command. */
static ssize_t request(int fd, const unsigned char *req, size_t len)
{
	static unsigned char ans[65536];
	const struct nlmsghdr *h = (const void *)req;
	const char *dir = getenv("FAKE_NL_DIR"), *log = getenv("FAKE_NL_LOG");
	char path[4096];
	size_t n = 0, off;
	int f;

	if (log && (f = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644)) >= 0) {
		char *hex = malloc(len * 2 + 2);

		for (size_t i = 0; hex && i < len; i++)
			sprintf(hex + 2 * i, "%02x", req[i]);
		if (hex) {
			hex[len * 2] = '\n';
			if (write(f, hex, len * 2 + 1) < 0)
				perror("fake_rdma_nl: log");
		}
		free(hex);
		close(f);
	}
	if (len < sizeof(*h))
		return (ssize_t)len;
	{
		static unsigned int count[1024][2];
		unsigned int op = h->nlmsg_type & 0x3ff, dump = (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;

		snprintf(path, sizeof(path), "%s/%u%s.%u", dir ? dir : ".", op, dump ? "d" : "",
			 ++count[op][dump]);
		f = open(path, O_RDONLY);
		if (f < 0) {
			snprintf(path, sizeof(path), "%s/%u%s", dir ? dir : ".", op, dump ? "d" : "");
			f = open(path, O_RDONLY);
		}
	}
	if (f >= 0) {
		ssize_t r = read(f, ans, sizeof(ans));

		n = r > 0 ? (size_t)r : 0;
		close(f);
	}
	if (!n) {	/* an ACK: NLMSG_ERROR 0 and the request's header */
		struct nlmsghdr a = { .nlmsg_len = NLMSG_LENGTH(4 + sizeof(*h)), .nlmsg_type = NLMSG_ERROR };

		memcpy(ans, &a, sizeof(a));
		memset(ans + sizeof(a), 0, 4);
		memcpy(ans + sizeof(a) + 4, h, sizeof(*h));
		n = a.nlmsg_len;
	}
	for (off = 0; off + sizeof(*h) <= n;) {
		struct nlmsghdr *m = (void *)(ans + off);

		m->nlmsg_seq = h->nlmsg_seq;
		m->nlmsg_pid = 0;
		if (m->nlmsg_len < sizeof(*h))
			break;
		off += NLMSG_ALIGN(m->nlmsg_len);
	}
	if (send(peer[fd] - 1, ans, n, 0) < 0)
		return -1;
	return (ssize_t)len;
}

static ssize_t gather(int fd, const struct msghdr *m)
{
	unsigned char buf[65536];
	size_t n = 0;

	for (size_t i = 0; i < m->msg_iovlen; i++) {
		size_t k = m->msg_iov[i].iov_len;

		if (n + k > sizeof(buf))
			k = sizeof(buf) - n;
		memcpy(buf + n, m->msg_iov[i].iov_base, k);
		n += k;
	}
	return request(fd, buf, n);
}

ssize_t sendto(int fd, const void *b, size_t l, int fl, const struct sockaddr *a, socklen_t al)
{
	static ssize_t (*real)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);

	if (ours(fd))
		return request(fd, b, l);
	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, int, const struct sockaddr *, socklen_t))
			dlsym(RTLD_NEXT, "sendto");
	return real(fd, b, l, fl, a, al);
}

ssize_t send(int fd, const void *b, size_t l, int fl)
{
	return sendto(fd, b, l, fl, NULL, 0);
}

ssize_t sendmsg(int fd, const struct msghdr *m, int fl)
{
	static ssize_t (*real)(int, const struct msghdr *, int);

	if (ours(fd))
		return gather(fd, m);
	if (!real)
		real = (ssize_t (*)(int, const struct msghdr *, int))dlsym(RTLD_NEXT, "sendmsg");
	return real(fd, m, fl);
}

ssize_t recvmsg(int fd, struct msghdr *m, int fl)
{
	static ssize_t (*real)(int, struct msghdr *, int);
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	void *name = m->msg_name;
	socklen_t nlen = m->msg_namelen;
	ssize_t r;

	if (!real)
		real = (ssize_t (*)(int, struct msghdr *, int))dlsym(RTLD_NEXT, "recvmsg");
	if (!ours(fd))
		return real(fd, m, fl);
	m->msg_name = NULL;
	m->msg_namelen = 0;
	r = real(fd, m, fl);
	m->msg_name = name;
	if (name) {
		memcpy(name, &nl, nlen < sizeof(nl) ? nlen : sizeof(nl));
		m->msg_namelen = sizeof(nl);
	}
	return r;
}

ssize_t recvfrom(int fd, void *b, size_t l, int fl, struct sockaddr *a, socklen_t *al)
{
	struct iovec v = { b, l };
	struct msghdr m = { .msg_name = a, .msg_namelen = al ? *al : 0, .msg_iov = &v, .msg_iovlen = 1 };
	ssize_t r = recvmsg(fd, &m, fl);

	if (al)
		*al = m.msg_namelen;
	return r;
}

ssize_t recv(int fd, void *b, size_t l, int fl)
{
	return recvfrom(fd, b, l, fl, NULL, NULL);
}
