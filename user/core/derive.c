// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The derived views of derive.h: one definition of each. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "derive.h"
#include "fmt.h"
#include "linkspeed.h"

int rt_delta_cmp_congestion(const struct rt_flow_delta *a, const struct rt_flow_delta *b)
{
	int c = rt_val_cmp_congestion(&a->d, &b->d);

	if (!c)
		c = RT_SPACESHIP(rt_congestion(&b->f->v), rt_congestion(&a->f->v));
	return c ? c : rt_flow_key_cmp(&a->f->k, &b->f->k);
}

int rt_delta_qcmp_congestion(const void *a, const void *b)
{
	return rt_delta_cmp_congestion(*(const struct rt_flow_delta *const *)a,
				       *(const struct rt_flow_delta *const *)b);
}

typedef int (*delta_cmp_fn)(const struct rt_flow_delta *, const struct rt_flow_delta *);
typedef int (*delta_cmp_r_fn)(const struct rt_flow_delta *, const struct rt_flow_delta *, void *);

/* The heap's root is the kept entry that sorts last. */
static void top_sift(const struct rt_flow_delta **h, size_t n, size_t i, delta_cmp_r_fn cmp, void *arg)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const struct rt_flow_delta *t;

		if (l < n && cmp(h[l], h[m], arg) > 0)
			m = l;
		if (r < n && cmp(h[r], h[m], arg) > 0)
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* qsort_r's comparison over pointers to flow deltas, in the order and arg of top_arg. */
struct top_arg {
	delta_cmp_r_fn cmp;
	void *arg;
};

static int top_qcmp(const void *a, const void *b, void *arg)
{
	const struct top_arg *t = arg;

	return t->cmp(*(const struct rt_flow_delta *const *)a, *(const struct rt_flow_delta *const *)b, t->arg);
}

size_t rt_delta_top_r(const struct rt_flow_delta **v, size_t n, size_t k, delta_cmp_r_fn cmp, void *arg)
{
	struct top_arg ta = { cmp, arg };
	size_t i;

	if (k > n)
		k = n;
	if (!k)
		return 0;
	for (i = k / 2; i-- > 0;)
		top_sift(v, k, i, cmp, arg);
	for (i = k; i < n; i++)
		if (cmp(v[i], v[0], arg) < 0) {
			const struct rt_flow_delta *t = v[0];

			v[0] = v[i];
			v[i] = t;
			top_sift(v, k, 0, cmp, arg);
		}
	qsort_r(v, k, sizeof(*v), top_qcmp, &ta);
	return k;
}

/* rt_delta_top's order without an arg, called through rt_delta_top_r's. */
static int plain_cmp(const struct rt_flow_delta *a, const struct rt_flow_delta *b, void *arg)
{
	return (*(delta_cmp_fn *)arg)(a, b);
}

size_t rt_delta_top(const struct rt_flow_delta **v, size_t n, size_t k, delta_cmp_fn cmp)
{
	return rt_delta_top_r(v, n, k, plain_cmp, &cmp);
}

void rt_hostpair_of(struct rt_hostpair *hp, const struct rt_flow_key *k, enum rt_hp_scope scope)
{
	const __u8 *a = k->src, *b = k->dst;

	memset(hp, 0, sizeof(*hp));
	hp->family = k->family;
	if (scope == RT_HP_IFACE) {
		hp->ifindex = k->ifindex;
		hp->dir = k->dir;
		hp->mirror = k->mirror;
		hp->mirror_id = k->mirror_id;
	}
	if (scope == RT_HP_EITHER && memcmp(a, b, sizeof(hp->a)) > 0) {
		a = k->dst;
		b = k->src;
	}
	memcpy(hp->a, a, sizeof(hp->a));
	memcpy(hp->b, b, sizeof(hp->b));
}

int rt_hostpair_cmp(const struct rt_hostpair *x, const struct rt_hostpair *y)
{
	int c = RT_SPACESHIP(x->ifindex, y->ifindex);

	if (!c)
		c = RT_SPACESHIP(x->dir, y->dir);
	if (!c)
		c = RT_SPACESHIP(x->family, y->family);
	if (!c)
		c = memcmp(x->a, y->a, sizeof(x->a));
	if (!c)
		c = memcmp(x->b, y->b, sizeof(x->b));
	if (!c)
		c = RT_SPACESHIP(x->mirror, y->mirror);
	return c ? c : RT_SPACESHIP(x->mirror_id, y->mirror_id);
}

_Static_assert(sizeof(struct rt_hostpair) == 44, "rt_hostpair_hash reads five words and one");

__u32 rt_hostpair_hash(const struct rt_hostpair *hp)
{
	__u64 w[5], h;
	__u32 t;

	memcpy(w, hp, sizeof(w));
	memcpy(&t, (const char *)hp + sizeof(w), sizeof(t));
	h = w[0] * 0x9e3779b97f4a7c15ULL + w[1] * 0xc2b2ae3d27d4eb4fULL +
	    w[2] * 0x165667b19e3779f9ULL + w[3] * 0xd6e8feb86659fd93ULL +
	    w[4] * 0xff51afd7ed558ccdULL + (t + 1ULL) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 31;
	h *= 0x94d049bb133111ebULL;
	return (__u32)(h ^ (h >> 29));
}

/* ---- name tables ---- */

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const struct rt_name scope_names[] = {
	[RT_SCOPE_HW_PORT] = { "hw_counters", "hw_port" },
	[RT_SCOPE_PORT] = { "counters", "port" },
	[RT_SCOPE_HW_DEV] = { "device_hw_counters", "hw_dev" },
	[RT_SCOPE_ETHTOOL] = { "ethtool", "ethtool" },
	[RT_SCOPE_QP] = { "qp", "qp" },
	[RT_SCOPE_NETDEV] = { "netdev", "netdev" },
};
static const struct rt_name scope_unknown = { "unknown", "?" };

static const struct rt_name attr_names[] = {
	[RT_ATTR_NONE] = { "none", "" },
	[RT_ATTR_NETLINK] = { "netlink", "rdma netlink" },
	[RT_ATTR_ACK] = { "ack", "learnt from ACKs" },
	[RT_ATTR_HOSTPAIR] = { "host-pair", "host pair, unattributed" },
};

static const struct rt_name ecn_names[] = {
	[RT_ECN_NOT_ECT] = { "not_ect", "Not-ECT" },
	[RT_ECN_ECT1] = { "ect1", "ECT(1)" },
	[RT_ECN_ECT0] = { "ect0", "ECT(0)" },
	[RT_ECN_CE] = { "ce", "CE" },
};

const struct rt_name *rt_scope_names(__u8 scope)
{
	return scope < NELEM(scope_names) ? &scope_names[scope] : &scope_unknown;
}

const struct rt_name *rt_attr_names(__u8 attr)
{
	return &attr_names[attr < NELEM(attr_names) ? attr : RT_ATTR_NONE];
}

const struct rt_name *rt_ecn_names(unsigned int ecn)
{
	return &ecn_names[ecn & 3];
}

const char *rt_scope_name(__u8 scope)
{
	return rt_scope_names(scope)->key;
}

const char *rt_dir_name(__u8 dir)
{
	return dir == RT_DIR_EGRESS ? "egress" : "ingress";
}

const char *rt_ecn_name(unsigned int ecn)
{
	return rt_ecn_names(ecn)->key;
}

/*
 * A BTH opcode's name as Wireshark's InfiniBand dissector gives it, its
 * transport in short: the top 3 bits are the transport, the low 5 the
 * operation (IBTA, table 38). Which operations each transport has: RC all
 * (its 21 "Reserved"), XRC all but 21, UC the SENDs and RDMA WRITEs, RD up to RESYNC,
 * UD the SEND Only two (Wireshark writes "only" there), and 0x80, RoCEv2's CNP.
 */
const char *rt_opcode_name(__u8 op, char *buf, size_t len)
{
	static const char *const ops[24] = {
		"SEND First", "SEND Middle", "SEND Last", "SEND Last with Immediate", "SEND Only",
		"SEND Only with Immediate", "RDMA WRITE First", "RDMA WRITE Middle", "RDMA WRITE Last",
		"RDMA WRITE Last with Immediate", "RDMA WRITE Only", "RDMA WRITE Only with Immediate",
		"RDMA READ Request", "RDMA READ response First", "RDMA READ response Middle",
		"RDMA READ response Last", "RDMA READ response Only", "Acknowledge", "ATOMIC Acknowledge",
		"CmpSwap", "FetchAdd", "RESYNC", "SEND Last with Invalidate", "SEND Only with Invalidate",
	};
	/* per transport (op >> 5): its short name and the operations it has, a bit each */
	static const struct { const char *name; __u32 has; } tr[8] = {
		{ "RC", 0xffffff }, { "UC", 0xfff }, { "RD", 0x3fffff }, { "UD", 0x30 },
		{ NULL, 0 }, { "XRC", 0xdfffff }, { NULL, 0 }, { NULL, 0 },
	};
	unsigned int t = op >> 5, o = op & 31;

	if (op == 0x80)
		snprintf(buf, len, "CNP");
	else if (o < 24 && (tr[t].has >> o & 1))
		snprintf(buf, len, "%s %s%s", tr[t].name,
			 t == 3 ? "SEND only" : t == 0 && o == 21 ? "Reserved" : ops[o],
			 t == 3 && o == 5 ? " with Immediate" : "");
	else
		snprintf(buf, len, "0x%02x", op);
	return buf;
}

double rt_paused_secs(const struct rt_snapshot *s, const struct rt_ifdir *x, const struct rt_if_val *v,
		      unsigned int prio, double secs, __u64 given)
{
	double t;

	if (prio >= RT_NPRIO)
		return 0;
	if (!x->paused_est) {
		/* measured at the speed the source gave BPF (none known: 100G
		 * assumed, which rt_link_speed says once where pauses came) */
		if (v->pfc_paused_ns[prio] && s)
			(void)rt_link_speed(s, rt_snapshot_ifname(s, x->k.ifindex), given, NULL);
		return (double)v->pfc_paused_ns[prio] / 1e9;
	}
	if (!v->pfc_quanta[prio])
		return 0;
	t = rt_pause_seconds(v->pfc_quanta[prio], rt_link_speed(s, rt_snapshot_ifname(s, x->k.ifindex), given, NULL));
	return secs > 0 && t > secs ? secs : t;
}
