/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading netlink attributes from untrusted bytes, bounded: the one walker
 * that rdma netlink (nic_netlink.c, nic_stat.c), DCB (nic_dcb.c) and ethtool
 * netlink (nic_ethtool.c) share. A short or overlong attribute ends the walk;
 * a getter given too few bytes returns 0 (or "").
 */
#ifndef RT_NLATTR_H
#define RT_NLATTR_H

#include <string.h>
#include <linux/netlink.h>
#include <linux/types.h>

#define FOR_ATTR(a, p, len) \
	for (const struct nlattr *a = (const struct nlattr *)(p); \
	     (const char *)a + NLA_HDRLEN <= (const char *)(p) + (len) && a->nla_len >= NLA_HDRLEN && \
	     (const char *)a + a->nla_len <= (const char *)(p) + (len); \
	     a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len)))

#define ATTR_DATA(a)	((const char *)(a) + NLA_HDRLEN)
#define ATTR_LEN(a)	((size_t)(a)->nla_len - NLA_HDRLEN)
#define ATTR_TYPE(a)	((a)->nla_type & NLA_TYPE_MASK)

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

#endif
