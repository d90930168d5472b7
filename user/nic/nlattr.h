/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading netlink messages and attributes from untrusted bytes, bounded: the one walker
 * that rdma netlink (nic_netlink.c, nic_stat.c), DCB (nic_dcb.c) and ethtool
 * netlink (nic_ethtool.c) share. A short or overlong attribute ends the walk;
 * a getter given too few bytes returns 0 (or "").
 */
#ifndef RT_NLATTR_H
#define RT_NLATTR_H

#include <string.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/types.h>
#include <rdma/rdma_netlink.h>

/* ---- writing and sending requests (nlmsg.c) ---- */

/* A netlink socket of protocol proto (NETLINK_RDMA, NETLINK_ROUTE), bound, with
 * a 1 s receive timeout: its fd, or -errno. */
int rt_nl_open(int proto);
/* Send the request of len bytes, then read answers into buf and parse them
 * until parse says done (> 0) or fails (< 0). 0 or -errno. */
int rt_nl_ask(int fd, const void *req, size_t len, char *buf, size_t size,
	      int (*parse)(const void *buf, size_t len, void *arg), void *arg);

/* A request written into a caller's buffer: a header, then attributes, each
 * padded to 4 bytes. Writing past cap sets err, and rt_nlmsg_end returns 0. */
struct rt_nlmsg {
	unsigned char *b;
	size_t len, cap;
	int err;
};

void rt_nlmsg_begin(struct rt_nlmsg *m, void *buf, size_t cap, __u16 type, __u16 flags, __u32 seq);
void rt_nlmsg_put(struct rt_nlmsg *m, const void *p, size_t n);	/* n bytes and their padding */
void rt_nlmsg_attr(struct rt_nlmsg *m, __u16 type, const void *p, size_t n);
void rt_nlmsg_u32(struct rt_nlmsg *m, __u16 type, __u32 v);
/* Sets the header's length: the request's length, or 0 when it did not fit. */
size_t rt_nlmsg_end(struct rt_nlmsg *m);

#define FOR_ATTR(a, p, len) \
	for (const struct nlattr *a = (const struct nlattr *)(p); \
	     (const char *)a + NLA_HDRLEN <= (const char *)(p) + (len) && a->nla_len >= NLA_HDRLEN && \
	     (const char *)a + a->nla_len <= (const char *)(p) + (len); \
	     a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len)))

#define ATTR_DATA(a)	((const char *)(a) + NLA_HDRLEN)
#define ATTR_LEN(a)	((size_t)(a)->nla_len - NLA_HDRLEN)
#define ATTR_TYPE(a)	((a)->nla_type & NLA_TYPE_MASK)

/* The attribute's first n bytes into out: 0, or -1 (out untouched) when it
 * holds fewer (a struct of the kernel's uapi, an older kernel's shorter one). */
static inline int rt_nla_get(const struct nlattr *a, void *out, size_t n)
{
	if (ATTR_LEN(a) < n)
		return -1;
	memcpy(out, ATTR_DATA(a), n);
	return 0;
}

static inline __u8 rt_nla_u8(const struct nlattr *a)
{
	return ATTR_LEN(a) >= 1 ? (__u8)ATTR_DATA(a)[0] : 0;
}

static inline __u32 rt_nla_u32(const struct nlattr *a)
{
	__u32 v = 0;

	if (ATTR_LEN(a) >= 4)
		memcpy(&v, ATTR_DATA(a), 4);
	return v;
}

/* A 64-bit value, or a 32-bit one where the kernel sent only 4 bytes. */
static inline __u64 rt_nla_u64(const struct nlattr *a)
{
	__u64 v = 0;

	if (ATTR_LEN(a) >= 8)
		memcpy(&v, ATTR_DATA(a), 8);
	else if (ATTR_LEN(a) >= 4)
		v = rt_nla_u32(a);
	return v;
}

static inline void rt_nla_str(const struct nlattr *a, char *out, size_t outlen)
{
	size_t n = strnlen(ATTR_DATA(a), ATTR_LEN(a));

	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, ATTR_DATA(a), n);
	out[n] = '\0';
}

/*
 * Walk the rdma netlink messages of one buffer: cb(h, arg) for each nldev
 * message of command op (RT_NL_ANY: every command; -1: none is wanted, only the
 * end or the ACK); a non-zero return of cb ends the walk with it. Returns 1 at
 * NLMSG_DONE or an ACK (NLMSG_ERROR 0), 0 when more is to come, the kernel's
 * negative errno, or -EBADMSG for a malformed buffer. The one walker of
 * nic_netlink.c's dumps and nic_stat.c's statistics.
 */
#define RT_NL_ANY	(-2)
#define RT_NL_ATTRS(h)	((const void *)NLMSG_DATA(h))
#define RT_NL_ALEN(h)	((size_t)(h)->nlmsg_len - NLMSG_HDRLEN)

static inline int rt_nl_walk(const void *buf, size_t len, int op,
			     int (*cb)(const struct nlmsghdr *h, void *arg), void *arg)
{
	const char *p = buf;
	size_t left = len;

	while (left >= NLMSG_HDRLEN) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)p;

		if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > left)
			return -EBADMSG;
		if (h->nlmsg_type == NLMSG_DONE)
			return 1;
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
				return -EBADMSG;
			return e->error < 0 ? e->error : e->error ? -EPROTO : 1;
		}
		if (RDMA_NL_GET_CLIENT(h->nlmsg_type) == RDMA_NL_NLDEV && cb &&
		    (op == RT_NL_ANY || (int)RDMA_NL_GET_OP(h->nlmsg_type) == op)) {
			int r = cb(h, arg);

			if (r)
				return r;
		}
		if (NLMSG_ALIGN(h->nlmsg_len) >= left)
			break;
		left -= NLMSG_ALIGN(h->nlmsg_len);
		p += NLMSG_ALIGN(h->nlmsg_len);
	}
	return left && left < NLMSG_HDRLEN ? -EBADMSG : 0;
}

#endif
