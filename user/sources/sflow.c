// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The sFlow collector: see sflow.h (where it listens is sflow_socket.c's).
 * Each flow sample stands for `rate` packets: the parser's counts for its
 * header are added rate times, and the flow is marked an estimate. Tables are open-addressed and bounded: agents by
 * RT_SF_MAX_AGENTS, switch ports by RT_SF_MAX_PORTS, flows by --max-flows;
 * what does not fit is counted, never grown without bound. Agents, ports,
 * drops and flows idle for --flow-timeout are forgotten (sweep()), so a
 * collector that runs for months keeps room for what is new.
 *
 * Only an agent that sent a whole datagram (every sample it announced inside
 * it) gets a slot: senders --sflow-allow refuses, datagrams that are not
 * sFlow v5, and damaged ones from agents not seen before are counted in one
 * "(rejected)" row, so spoofed junk can never crowd real agents into the
 * shared "other" slot. Bytes after the announced samples do not damage them
 * (real switches send such datagrams; tshark and sflowtool read their
 * samples): the samples count, and so does the datagram's error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
/* parse.h unrolls its loops for the BPF target; gcc has no use for the hint. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include "count.h"
#pragma GCC diagnostic pop
#include "log.h"
#include "prefix.h"
#include "sflow.h"
#include "sflow_decode.h"

#define RT_SF_MAX_AGENTS	4096
#define RT_SF_MAX_PORTS		65536
#define RT_SF_BATCH		64	/* datagrams per recvmmsg */
#define RT_SF_BUDGET		32	/* recvmmsg calls per wakeup of the loop */
#define RT_SF_DGRAM_MAX		65536
#define RT_SF_HDR_MAX		40	/* a datagram header with an IPv6 agent */
#define RT_SF_FRAME_MAX		65536	/* no frame is longer than 64 KiB */
#define RT_SF_REORDER_MS	30000	/* uptime slack of a late datagram; see seq_account() */
#define RT_SF_WINDOW		64	/* late datagrams are recognised this far back */
#define RT_SF_REJECTED		"(rejected)"


struct agent {
	__u8 used;		/* 0: a free slot (never used, or forgotten) */
	__u8 family;
	__u8 addr[16];
	__u32 sub_agent;
	/* the datagram sequence (seq_account()) */
	__u32 last_seq, last_uptime;
	__u64 last_mono;	/* when the datagram numbered last_seq came */
	__u64 window;		/* bit i: last_seq - i came, or was never counted lost */
	int seen;
	__u64 seen_ns;		/* the last datagram, for --flow-timeout */
	struct rt_sfagent s;	/* s.agent is the text */
};

struct port {
	__u32 agent;		/* index in agents */
	__u32 port;
	__u8 dir;
	struct rt_swport r;
	__u64 seen_ns;		/* the last sample of the port, for --flow-timeout */
	__u32 last_pool;	/* the sample pool of its last flow sample */
	__u8 has_pool;
	__u8 pool_ok;		/* that sample's rate was within its pool */
};

/* The key of a port: the first bytes of struct port. */
struct port_key {
	__u32 agent, port;
	__u8 dir;
	__u8 pad[3];
};

struct flow {
	struct rt_flow_key k;
	struct rt_flow_val v;
	__u64 samples;
	__u64 drops;		/* drop notifications whose header is this flow's */
	__u64 seen_ns;		/* the last sample or notification, for --flow-timeout */
};

struct drop {
	__u32 ifindex, reason;
	struct rt_swdrop r;
	__u64 seen_ns;
};

struct rt_sflow {
	int fd;
	struct rt_prefix allow[RT_SFLOW_MAX_ALLOW];
	int nallow;
	struct agent *agents;
	__u32 nagents;
	__u32 nfree;		/* forgotten slots below nagents */
	struct rt_htab ports, flows, drops;	/* struct port, flow, drop: key first */
	__u32 next_ifindex;
	__u64 flow_full, port_full, agent_full;
	__u64 rejected;		/* datagrams refused, not sFlow, or damaged from unknown agents */
	__u64 timeout_ns;	/* --flow-timeout; 0: never forget */
	__u64 swept;		/* sf->now of the last sweep */
	struct rt_flow_key *gone;	/* flows forgotten since the last collect */
	size_t ngone, gone_cap;
	/* the datagram being decoded */
	struct agent *cur;
	__u64 now;
	/* recvmmsg buffers */
	struct mmsghdr msgs[RT_SF_BATCH];
	struct iovec iov[RT_SF_BATCH];
	struct sockaddr_storage from[RT_SF_BATCH];
	__u8 *buf;
};

/* The entry of key in the ports or drops table, zeroed and keyed if new;
 * NULL when full. (Flows hash with rt_flow_key_hash.) */
static void *tab_get(struct rt_htab *t, const void *key)
{
	return rt_htab_get(t, key, rt_hash_bytes(key, t->ksz), NULL);
}

#define TAB_FOR_EACH(t, type, v) \
	for (size_t _i = 0; _i < (t)->cap; _i++) \
		for (type *v = rt_htab_at((t), _i); (t)->used[_i] && v; v = NULL)

/* ---- addresses ---- */

/* The source address as family + 16 bytes; IPv4-mapped IPv6 becomes IPv4. */
static int addr_of(const struct sockaddr *sa, __u8 *addr)
{
	memset(addr, 0, 16);
	if (sa->sa_family == AF_INET) {
		memcpy(addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 4;
	}
	if (sa->sa_family == AF_INET6) {
		const __u8 *a = (const __u8 *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
		static const __u8 mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

		if (!memcmp(a, mapped, 12)) {
			memcpy(addr, a + 12, 4);
			return 4;
		}
		memcpy(addr, a, 16);
		return 6;
	}
	return 0;
}

static void addr_text(int family, const __u8 *addr, char *buf, size_t len)
{
	if (!family || !inet_ntop(family == 4 ? AF_INET : AF_INET6, addr, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

/* ---- the collector ---- */

struct rt_sflow *rt_sflow_new(const struct rt_sflow_cfg *c)
{
	struct rt_sflow *sf = calloc(1, sizeof(*sf));
	int i;

	if (!sf) {
		pr_warn("out of memory.\n");
		return NULL;
	}
	sf->fd = -1;
	sf->timeout_ns = c->flow_timeout > 0 ? (__u64)(c->flow_timeout * 1e9) : 0;
	if (c->nallow > RT_SFLOW_MAX_ALLOW) {
		pr_warn("--sflow-allow can be given at most %d times.\n", RT_SFLOW_MAX_ALLOW);
		goto fail;
	}
	for (i = 0; i < c->nallow; i++) {
		if (rt_prefix_parse(c->allow[i], &sf->allow[i])) {
			pr_warn("--sflow-allow '%s' is not valid: give an address or ADDR/BITS (10.0.0.0/8, fd00::/8).\n",
				c->allow[i]);
			goto fail;
		}
		sf->nallow++;
	}
	sf->agents = calloc(RT_SF_MAX_AGENTS, sizeof(*sf->agents));
	/* recvmmsg's buffers (4 MiB) only for a socket: a capture's
	 * collector (pcap_sflow.c) is handed its datagrams */
	if (c->have_fd || c->spec)
		sf->buf = malloc((size_t)RT_SF_BATCH * RT_SF_DGRAM_MAX);
	rt_htab_init(&sf->ports, sizeof(struct port), sizeof(struct port_key), RT_SF_MAX_PORTS);
	rt_htab_init(&sf->flows, sizeof(struct flow), sizeof(struct rt_flow_key),
		     c->max_flows ? c->max_flows : 16384);
	rt_htab_init(&sf->drops, sizeof(struct drop), 2 * sizeof(__u32), RT_SF_MAX_PORTS);
	if (!sf->agents || (!sf->buf && (c->have_fd || c->spec))) {
		pr_warn("out of memory.\n");
		goto fail;
	}
	for (i = 0; sf->buf && i < RT_SF_BATCH; i++) {
		sf->iov[i].iov_base = sf->buf + (size_t)i * RT_SF_DGRAM_MAX;
		sf->iov[i].iov_len = RT_SF_DGRAM_MAX;
		sf->msgs[i].msg_hdr.msg_iov = &sf->iov[i];
		sf->msgs[i].msg_hdr.msg_iovlen = 1;
		sf->msgs[i].msg_hdr.msg_name = &sf->from[i];
	}
	if (c->have_fd)
		sf->fd = c->fd;
	else if (c->spec && (sf->fd = rt_sflow_socket(c->spec, 0)) < 0)
		goto fail;
	return sf;
fail:
	rt_sflow_free(sf);
	return NULL;
}

int rt_sflow_fd(const struct rt_sflow *sf)
{
	return sf->fd;
}

void rt_sflow_free(struct rt_sflow *sf)
{
	if (!sf)
		return;
	if (sf->fd >= 0)
		close(sf->fd);
	free(sf->agents);
	rt_htab_free(&sf->ports);
	rt_htab_free(&sf->flows);
	rt_htab_free(&sf->drops);
	free(sf->gone);
	free(sf->buf);
	free(sf);
}

/* The agent of (family, addr, sub_agent), or NULL when it has no slot. */
static struct agent *agent_find(struct rt_sflow *sf, int family, const __u8 *addr, __u32 sub)
{
	struct agent *a;
	__u32 i;

	/* Datagrams of one agent come in runs: try the last one first. */
	if (sf->cur && sf->cur->used && sf->cur->family == family && sf->cur->sub_agent == sub &&
	    !memcmp(sf->cur->addr, addr, 16))
		return sf->cur;
	for (i = 0; i < sf->nagents; i++) {
		a = &sf->agents[i];
		if (a->used && a->family == family && a->sub_agent == sub && !memcmp(a->addr, addr, 16))
			return a;
	}
	return NULL;
}

/* A slot for a new agent: a forgotten one, a new one, or beyond the bound
 * the last slot, "other", shared by all that do not fit. */
static struct agent *agent_new(struct rt_sflow *sf, int family, const __u8 *addr, __u32 sub)
{
	struct agent *a = NULL;
	__u32 i;

	for (i = 0; sf->nfree && i < sf->nagents && !a; i++)
		if (!sf->agents[i].used) {
			a = &sf->agents[i];
			sf->nfree--;
		}
	if (!a && sf->nagents == RT_SF_MAX_AGENTS - 1) {
		a = &sf->agents[RT_SF_MAX_AGENTS - 1];
		if (!a->used) {
			memset(a, 0, sizeof(*a));
			a->used = 1;
			snprintf(a->s.agent, sizeof(a->s.agent), "other");
		}
		sf->agent_full++;
		return a;
	}
	if (!a)
		a = &sf->agents[sf->nagents++];
	memset(a, 0, sizeof(*a));
	a->used = 1;
	a->family = (__u8)family;
	memcpy(a->addr, addr, 16);
	a->sub_agent = sub;
	addr_text(family, addr, a->s.agent, sizeof(a->s.agent));
	if (sub) {
		size_t n = strlen(a->s.agent);

		snprintf(a->s.agent + n, sizeof(a->s.agent) - n, "/%u", sub);
	}
	return a;
}

static struct port *port_get(struct rt_sflow *sf, struct agent *a, __u32 portno, __u8 dir)
{
	struct port_key key = { (__u32)(a - sf->agents), portno, dir, { 0 } }, other;
	struct port *p = tab_get(&sf->ports, &key), *q;

	if (!p) {
		sf->port_full++;
		return NULL;
	}
	p->seen_ns = sf->now;
	if (p->r.ifindex)
		return p;
	/* New: both directions of a port share its ifindex and name. */
	other = key;
	other.dir = !dir;
	q = rt_htab_find(&sf->ports, &other, rt_hash_bytes(&other, sizeof(other)));
	if (q && q->r.ifindex) {
		p->r = q->r;
		memset(&p->r.c, 0, sizeof(p->r.c));
		p->r.ctr_samples = 0;
		p->r.has_queue = 0;
		p->r.max_depth = p->r.max_transit = 0;
	} else {
		p->r.ifindex = RT_SFLOW_IFBASE + sf->next_ifindex++;
		p->r.port = portno;
		snprintf(p->r.agent, sizeof(p->r.agent), "%s", a->s.agent);
		snprintf(p->r.name, sizeof(p->r.name), a->family == 6 ? "[%s]:%u" : "%s:%u",
			 a->s.agent, portno);
	}
	p->r.dir = dir;
	return p;
}

/* ---- forgetting (--flow-timeout) ---- */

static int idle(const struct rt_sflow *sf, __u64 seen, __u64 now)
{
	return sf->timeout_ns && now > seen && now - seen > sf->timeout_ns;
}

/* Rebuild t with the entries whose seen_ns (at seen_off) is recent; entries
 * keep their slot's hash. On a failed allocation t stays as it was. */
static void tab_sweep(struct rt_sflow *sf, struct rt_htab *t, size_t seen_off, __u64 now,
		      int (*gone)(const struct rt_sflow *sf, const void *e), int keep_keys)
{
	struct rt_htab n;
	size_t i, drop = 0;

	for (i = 0; i < t->cap; i++)
		if (t->used[i]) {
			const void *e = rt_htab_at(t, i);
			__u64 seen;

			memcpy(&seen, (const char *)e + seen_off, sizeof(seen));
			drop += idle(sf, seen, now) || (gone && gone(sf, e));
		}
	if (!drop)
		return;
	rt_htab_init(&n, t->esz, t->ksz, t->max);
	for (i = 0; i < t->cap; i++) {
		const void *e = rt_htab_at(t, i);
		void *to;
		__u64 seen;

		if (!t->used[i])
			continue;
		memcpy(&seen, (const char *)e + seen_off, sizeof(seen));
		if (idle(sf, seen, now) || (gone && gone(sf, e))) {
			struct rt_flow_key *k;

			/* (without memory, the row stays in the loop's table) */
			if (keep_keys && (k = rt_append((void **)&sf->gone, &sf->ngone, &sf->gone_cap,
							 sizeof(*k))))
				memcpy(k, e, sizeof(*k));
			continue;
		}
		to = rt_htab_get(&n, e, t->hash[i], NULL);
		if (!to) {
			rt_htab_free(&n);
			return;
		}
		memcpy(to, e, t->esz);
	}
	rt_htab_free(t);
	*t = n;
}

/* A port whose agent was forgotten (its slot may serve another agent now). */
static int port_orphan(const struct rt_sflow *sf, const void *e)
{
	return !sf->agents[((const struct port *)e)->agent].used;
}

/*
 * Forget what was idle for --flow-timeout at now: agents, then their ports
 * (a port's last sample came in one of its agent's datagrams, so it is never
 * younger than the agent), drops and flows. Each flow, port and drop row goes
 * with its counts: one that comes back starts again from zero, under a new
 * ifindex for a port, as a new interface would.
 */
static void sweep(struct rt_sflow *sf, __u64 now)
{
	__u32 i;

	sf->swept = now;
	if (!sf->timeout_ns)
		return;
	for (i = 0; i < RT_SF_MAX_AGENTS; i++) {
		struct agent *a = &sf->agents[i];

		if (a->used && idle(sf, a->seen_ns, now)) {
			memset(a, 0, sizeof(*a));
			if (sf->cur == a)
				sf->cur = NULL;
		}
	}
	while (sf->nagents && !sf->agents[sf->nagents - 1].used)
		sf->nagents--;
	for (sf->nfree = 0, i = 0; i < sf->nagents; i++)
		sf->nfree += !sf->agents[i].used;
	tab_sweep(sf, &sf->ports, offsetof(struct port, seen_ns), now, port_orphan, 0);
	tab_sweep(sf, &sf->drops, offsetof(struct drop, seen_ns), now, NULL, 0);
	tab_sweep(sf, &sf->flows, offsetof(struct flow, seen_ns), now, NULL, 1);
}

/* The flow of k, new if need be; a full table is swept first (at most once a
 * second of datagram time), so idle flows make room. NULL when still full. */
static struct flow *flow_get(struct rt_sflow *sf, const struct rt_flow_key *k)
{
	__u32 h = rt_flow_key_hash(k);
	struct flow *fl = rt_htab_get(&sf->flows, k, h, NULL);

	if (!fl && sf->timeout_ns && sf->now - sf->swept >= 1000000000ULL) {
		sweep(sf, sf->now);
		fl = rt_htab_get(&sf->flows, k, h, NULL);
	}
	return fl;
}

/* a + b, stopping at 2^64 - 1: an estimate may be absurd, never wrapped. */
static inline __u64 sat_add(__u64 a, __u64 b)
{
	return a + b < a ? ~0ULL : a + b;
}

static inline __u64 sat_mul(__u64 a, __u64 b)
{
	return b && a > ~0ULL / b ? ~0ULL : a * b;
}

/*
 * A flow sample's rate and frame length, bounded. No frame is longer than
 * 64 KiB: a longer one is a lie, counted, and taken as 64 KiB. The sample
 * pool counts the packets the data source could have sampled, so one sample
 * cannot stand for more: a rate above the pool stands for the pool (at least
 * 1) instead, unless the pool went down since the port's last sample (the
 * 32-bit counter wrapped, or the source restarted) and says nothing. Such a
 * rate is counted as a lie once the port had a sample within its pool: a
 * source that has just started may sample before its pool reaches the rate.
 * Returns 1 when the sample lied, 0 otherwise.
 */
static int bound_sample(struct port *p, const struct rt_sf_flow *f, __u64 *rate, __u64 *len)
{
	__u32 frame = f->frame_len;
	int lie = 0, wrapped = p->has_pool && f->pool < p->last_pool;

	*rate = f->rate ? f->rate : 1;
	if (frame > RT_SF_FRAME_MAX) {
		frame = RT_SF_FRAME_MAX;
		lie = 1;
	}
	if (*rate > f->pool && !wrapped) {
		*rate = f->pool ? f->pool : 1;
		lie |= p->has_pool && p->pool_ok;
		p->pool_ok = 0;
	} else {
		p->pool_ok = 1;
	}
	p->last_pool = f->pool;
	p->has_pool = 1;
	*len = f->stripped <= frame ? frame - f->stripped : frame;
	return lie;
}

/* A dropped-packet notification (sample format 5). */
static void on_drop(struct rt_sflow *sf, struct agent *a, const struct rt_sf_flow *f)
{
	__u8 dir = f->output == f->ds_index ? RT_DIR_EGRESS : RT_DIR_INGRESS;
	__u32 len = f->frame_len > RT_SF_FRAME_MAX ? RT_SF_FRAME_MAX : f->frame_len;
	struct port *p = port_get(sf, a, f->ds_index, dir);
	struct { __u32 ifindex, reason; } key;
	struct drop *dr;
	struct rt_pkt pk;

	a->s.drop_samples++;
	if (!p)
		return;
	p->r.c.drops++;
	key.ifindex = p->r.ifindex;
	key.reason = f->reason;
	dr = tab_get(&sf->drops, &key);
	if (!dr)
		return;
	if (!dr->r.ifindex) {
		dr->r.ifindex = p->r.ifindex;
		dr->r.port = p->r.port;
		dr->r.reason = f->reason;
		snprintf(dr->r.agent, sizeof(dr->r.agent), "%s", a->s.agent);
	}
	dr->seen_ns = sf->now;
	dr->r.drops++;
	/* The dropped frame's flow, when its header is RoCEv2. */
	if (f->stripped <= len)
		len -= f->stripped;
	memset(&pk, 0, sizeof(pk));
	if (f->has_hdr && f->hdr_proto == 1 &&
	    rt_parse(f->hdr, f->hdr + f->hdr_len, len, &pk) == RT_K_ROCE) {
		struct rt_flow_key k;
		struct flow *fl;

		memset(&k, 0, sizeof(k));
		rt_flow_key_init(&k, &pk, p->r.ifindex, dir);
		fl = flow_get(sf, &k);
		if (fl) {
			fl->drops++;
			fl->seen_ns = sf->now;
		} else {
			sf->flow_full++;
		}
	}
}

static void on_flow(void *arg, const struct rt_sf_dgram *d, const struct rt_sf_flow *f)
{
	struct rt_sflow *sf = arg;
	struct agent *a = sf->cur;
	__u8 dir = f->input == f->ds_index ? RT_DIR_INGRESS :
		   f->output == f->ds_index ? RT_DIR_EGRESS : RT_DIR_INGRESS;
	__u64 rate, len;
	struct rt_pkt pk;
	struct port *p;

	(void)d;
	if (!a)
		return;
	if (f->format == 5) {
		on_drop(sf, a, f);
		return;
	}
	a->s.samples++;
	p = port_get(sf, a, f->ds_index, dir);
	if (!p)
		return;
	if (bound_sample(p, f, &rate, &len))
		a->s.bad_samples++;
	p->r.c.samples++;
	p->r.c.est_pkts = sat_add(p->r.c.est_pkts, rate);
	p->r.c.est_bytes = sat_add(p->r.c.est_bytes, rate * len);	/* < 2^48 */
	if (f->has_queue) {
		p->r.has_queue = 1;
		p->r.queue = f->queue;
	}
	if (f->has_depth) {
		p->r.c.depth_sum += f->depth;
		p->r.c.depth_n++;
		if (f->depth > p->r.max_depth)
			p->r.max_depth = f->depth;
	}
	if (f->has_transit) {
		p->r.c.transit_sum += f->transit_ns;
		p->r.c.transit_n++;
		if (f->transit_ns > p->r.max_transit)
			p->r.max_transit = f->transit_ns;
	}
	if (!f->has_hdr || f->hdr_proto != 1)
		return;
	memset(&pk, 0, sizeof(pk));
	if (rt_parse(f->hdr, f->hdr + f->hdr_len, len, &pk) != RT_K_ROCE)
		return;
	p->r.c.roce_samples++;
	if ((pk.tos & 3) == RT_ECN_CE)
		p->r.c.est_ce = sat_add(p->r.c.est_ce, rate);
	if (pk.opcode == RT_OP_CNP)
		p->r.c.est_cnp = sat_add(p->r.c.est_cnp, rate);
	{
		struct rt_flow_key k;
		struct rt_flow_val one;
		struct flow *fl;
		__u64 *dst, *src;

		memset(&k, 0, sizeof(k));
		rt_flow_key_init(&k, &pk, p->r.ifindex, dir);
		fl = flow_get(sf, &k);
		if (!fl) {
			sf->flow_full++;
			return;
		}
		/* What the wire path would count for this header, rate times. */
		memset(&one, 0, sizeof(one));
		rt_count_flow(&one, &pk, len, sf->now);
		dst = (__u64 *)&fl->v;
		src = (__u64 *)&one;
		for (size_t i = 0; i < offsetof(struct rt_flow_val, first_ns) / 8; i++)
			dst[i] = sat_add(dst[i], sat_mul(src[i], rate));
		if (!fl->samples)
			fl->v.first_ns = sf->now;
		fl->v.last_ns = sf->now;
		fl->seen_ns = sf->now;
		fl->v.sport = one.sport;
		fl->v.dscp = one.dscp;
		fl->v.pcp = one.pcp;
		fl->v.opcode = one.opcode;
		fl->v.dscps |= one.dscps;
		fl->v.prios |= one.prios;
		fl->samples++;
	}
}

static void on_ctr(void *arg, const struct rt_sf_dgram *d, const struct rt_sf_ctr *c)
{
	struct rt_sflow *sf = arg;
	struct agent *a = sf->cur;
	int dir;

	(void)d;
	if (!a)
		return;
	a->s.ctr_samples++;
	if (!c->has_if)
		return;
	for (dir = 0; dir < 2; dir++) {
		struct port *p = port_get(sf, a, c->ds_index, (__u8)dir);

		if (!p)
			continue;
		p->r.has_ifctr = 1;
		p->r.ctr_samples++;
		p->r.speed_bps = c->if_speed;
		p->r.in_octets = c->in_octets;
		p->r.out_octets = c->out_octets;
		p->r.in_discards = c->in_discards;
		p->r.out_discards = c->out_discards;
		p->r.in_errors = c->in_errors;
		p->r.out_errors = c->out_errors;
	}
}

/*
 * Datagram loss, from the sequence numbers of one agent and sub-agent, as
 * sFlow's authors advise collectors (Neil McKee, sflow.org discussion list,
 * "sequence_number/sample_pool question", 2005; sflowtool and sFlow-RT come
 * from the same hands): numbers are compared by unsigned 32-bit subtraction,
 * so a wrap is not loss, and a reset starts the count again rather than
 * being read as a jump. Here:
 *  - a datagram n ahead of the last counts n - 1 lost;
 *  - a datagram behind the last that was sent no later (its uptime is not
 *    greater, and at most RT_SF_REORDER_MS less) is late: not loss, and when
 *    it fills a gap counted lost among the last RT_SF_WINDOW numbers, that
 *    loss is taken back; a copy of one already seen changes nothing;
 *  - the agent restarted when its uptime does not follow from the last
 *    datagram's (more than RT_SF_REORDER_MS before it, or further ahead than
 *    the time that passed here plus that slack: uptime is reset by a reboot),
 *    or when a lower number was sent later (a sub-agent's own restart): the
 *    sequence starts again at this datagram and nothing is counted lost.
 * Uptime is compared against the collector's own clock, not by serial
 * arithmetic alone, so a device up more than 24.8 days (2^31 ms) that
 * reboots is still seen to.
 */
static void seq_account(struct agent *a, __u32 seq, __u32 uptime, __u64 now)
{
	__u32 ahead = seq - a->last_seq, behind = a->last_seq - seq;
	__u32 up_fwd = uptime - a->last_uptime, up_back = a->last_uptime - uptime;
	__u64 elapsed_ms = now > a->last_mono ? (now - a->last_mono) / 1000000 : 0;
	__u64 slack = RT_SF_REORDER_MS + elapsed_ms / 1000;	/* and clock drift, 0.1 % */
	int follows = up_back <= slack || up_fwd <= elapsed_ms + slack;

	if (!a->seen || !follows || (behind && behind < 0x80000000u && up_fwd && up_fwd < 0x80000000u)) {
		/* the first datagram, or a restart */
		a->seen = 1;
		a->window = ~0ULL;
	} else if (ahead && ahead < 0x80000000u) {
		a->s.lost += ahead - 1;
		a->window = ahead < RT_SF_WINDOW ? a->window << ahead | 1 : 1;
	} else {
		/* late, or a copy: the last datagram stays the reference */
		if (behind && behind < RT_SF_WINDOW && !(a->window >> behind & 1)) {
			a->window |= 1ULL << behind;
			if (a->s.lost)
				a->s.lost--;
		}
		return;
	}
	a->last_seq = seq;
	a->last_uptime = uptime;
	a->last_mono = now;
}

void rt_sflow_datagram(struct rt_sflow *sf, const void *buf, size_t len, const struct sockaddr *from,
		       __u64 now_ns)
{
	const struct rt_sf_cb cb = { on_flow, on_ctr, sf };
	struct rt_sf_dgram d;
	struct agent *a;
	__u8 src[16];
	int fam = addr_of(from, src), err, i;

	sf->now = now_ns;
	if (sf->nallow) {
		for (i = 0; i < sf->nallow; i++)
			if (rt_prefix_has(&sf->allow[i], fam, src))
				break;
		if (i == sf->nallow) {
			sf->rejected++;
			return;
		}
	}
	/* Whose datagram: its header alone. */
	rt_sf_decode(buf, len < RT_SF_HDR_MAX ? len : RT_SF_HDR_MAX, &d, NULL, NULL);
	if (!d.agent_family) {
		sf->rejected++;		/* not sFlow v5, or too short to say whose */
		return;
	}
	a = agent_find(sf, d.agent_family, d.agent, d.sub_agent);
	if (!a) {
		/* A new agent only from a datagram whose samples all fit. */
		err = rt_sf_decode(buf, len, &d, NULL, NULL);
		if (err != RT_SF_OK && err != RT_SF_E_TRAILING) {
			sf->rejected++;
			return;
		}
		a = agent_new(sf, d.agent_family, d.agent, d.sub_agent);
	}
	sf->cur = a;
	a->seen_ns = now_ns;
	err = rt_sf_decode(buf, len, &d, &cb, NULL);
	a = sf->cur;	/* a sweep for room (flow_get) keeps it: it is not idle */
	if (!a)
		return;
	a->s.datagrams++;
	if (err)
		a->s.errors++;
	/* The sequence number was read; "other" mixes many agents' sequences,
	 * whose gaps would be no loss. */
	if (err != RT_SF_E_SHORT && a != &sf->agents[RT_SF_MAX_AGENTS - 1])
		seq_account(a, d.seq, d.uptime_ms, now_ns);
}

static __u64 mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

int rt_sflow_read(struct rt_sflow *sf)
{
	int total = 0, n, i, round;

	if (sf->fd < 0 || !sf->buf)
		return 0;	/* no socket: datagrams are handed over */
	for (round = 0; round < RT_SF_BUDGET; round++) {
		__u64 now;

		for (i = 0; i < RT_SF_BATCH; i++)
			sf->msgs[i].msg_hdr.msg_namelen = sizeof(sf->from[i]);
		n = recvmmsg(sf->fd, sf->msgs, RT_SF_BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		now = mono_now();
		for (i = 0; i < n; i++) {
			struct msghdr *h = &sf->msgs[i].msg_hdr;

			/* A datagram larger than the buffer is cut: decoding it
			 * would see lengths running past its end and count the error. */
			rt_sflow_datagram(sf, sf->iov[i].iov_base, sf->msgs[i].msg_len,
					  (const struct sockaddr *)h->msg_name, now);
		}
		total += n;
		if (n < RT_SF_BATCH)
			break;
	}
	return total;
}

static int swport_cmp(const void *x, const void *y)
{
	const struct rt_swport *a = x, *b = y;

	if (a->ifindex != b->ifindex)
		return a->ifindex < b->ifindex ? -1 : 1;
	return (int)a->dir - (int)b->dir;
}

static int swdrop_cmp(const void *x, const void *y)
{
	const struct rt_swdrop *a = x, *b = y;

	if (a->ifindex != b->ifindex)
		return a->ifindex < b->ifindex ? -1 : 1;
	return a->reason < b->reason ? -1 : a->reason > b->reason;
}

static int sfagent_cmp(const void *x, const void *y)
{
	return strcmp(((const struct rt_sfagent *)x)->agent, ((const struct rt_sfagent *)y)->agent);
}

void rt_sflow_clock(struct rt_sflow *sf, __u64 now_ns)
{
	if (now_ns > sf->now)
		sf->now = now_ns;
}

int rt_sflow_collect(struct rt_sflow *sf, struct rt_snapshot *snap)
{
	size_t nflows0 = snap->nflows;
	struct rt_sfagent *r;
	__u32 i;

	/* A collector on a socket forgets by the clock (no datagram may come
	 * at all); one fed datagrams (tests, the fuzzer) by their times. */
	sweep(sf, sf->fd >= 0 ? mono_now() : sf->now);
	/* The loop's persistent table (stream.c) forgets them too; a whole
	 * snapshot is made anew and never had them. */
	for (size_t k = 0; snap->tab && k < sf->ngone; k++) {
		int fresh;
		struct rt_flow *f = rt_snapshot_flow(snap, &sf->gone[k], &fresh);

		if (f)
			rt_snapshot_remove(snap, (size_t)(f - snap->flows));
	}
	sf->ngone = 0;
	for (i = 0; i < RT_SF_MAX_AGENTS; i++) {
		if (!sf->agents[i].used)
			continue;
		r = rt_snapshot_add_sfagent(snap);
		if (!r)
			return -ENOMEM;
		*r = sf->agents[i].s;
	}
	if (sf->rejected) {
		r = rt_snapshot_add_sfagent(snap);
		if (!r)
			return -ENOMEM;
		memset(r, 0, sizeof(*r));
		snprintf(r->agent, sizeof(r->agent), RT_SF_REJECTED);
		r->rejected = sf->rejected;
	}
	TAB_FOR_EACH(&sf->ports, struct port, p) {
		struct rt_swport *r;

		if (!p->r.ifindex)
			continue;
		r = rt_snapshot_add_swport(snap);
		if (!r)
			return -ENOMEM;
		*r = p->r;
		r->agent_lost = sf->agents[p->agent].s.lost;
		/* The largest values are per interval. */
		p->r.max_depth = 0;
		p->r.max_transit = 0;
	}
	TAB_FOR_EACH(&sf->drops, struct drop, d) {
		struct rt_swdrop *r = rt_snapshot_add_swdrop(snap);

		if (!r)
			return -ENOMEM;
		*r = d->r;
	}
	TAB_FOR_EACH(&sf->flows, struct flow, fl) {
		struct rt_flow *f;
		int fresh = 1;

		/* Into the loop's persistent table (an incremental source, stream.c)
		 * in place, a row counting as changed only when its counts moved;
		 * appended to a whole snapshot otherwise. */
		f = snap->tab ? rt_snapshot_flow(snap, &fl->k, &fresh) : rt_snapshot_add_flow(snap);
		if (!f)
			return -ENOMEM;
		if (!fresh && !memcmp(&f->v, &fl->v, sizeof(f->v)) && f->samples == fl->samples &&
		    f->sw_drops == fl->drops && f->estimate)
			continue;
		if (snap->tab)	/* first: it keeps the old counters */
			rt_snapshot_touch(snap, f);
		f->k = fl->k;
		f->v = fl->v;
		f->samples = fl->samples;
		f->sw_drops = fl->drops;
		f->estimate = 1;
	}
	if (snap->nswports > 1)
		qsort(snap->swports, snap->nswports, sizeof(*snap->swports), swport_cmp);
	if (snap->nswdrops > 1)
		qsort(snap->swdrops, snap->nswdrops, sizeof(*snap->swdrops), swdrop_cmp);
	if (snap->nsfagents > 1)
		qsort(snap->sfagents, snap->nsfagents, sizeof(*snap->sfagents), sfagent_cmp);
	if (snap->nflows != nflows0 || snap->tab)
		rt_snapshot_sort(snap);
	if (sf->flow_full)
		rt_snapshot_note(snap, "sFlow: %llu samples of flows beyond --max-flows were not kept per flow",
				 (unsigned long long)sf->flow_full);
	if (sf->port_full)
		rt_snapshot_note(snap, "sFlow: %llu samples of switch ports beyond %d were not kept",
				 (unsigned long long)sf->port_full, RT_SF_MAX_PORTS);
	return 0;
}

/* ---- --sflow alone: a source that only keeps time ---- */

static int clock_collect(struct rt_source *s, struct rt_snapshot *snap)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	snap->time_ns = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
	snap->mono_ns = mono_now();
	snprintf(snap->source, sizeof(snap->source), "%s", (const char *)s->priv);
	return 1;
}

static void clock_close(struct rt_source *s)
{
	free(s->priv);
	free(s);
}

struct rt_source *rt_sflow_clock_source_new(const struct rt_sflow_cfg *c)
{
	struct rt_source *s = calloc(1, sizeof(*s));
	char *name = malloc(128);

	if (!s || !name) {
		free(s);
		free(name);
		pr_warn("out of memory.\n");
		return NULL;
	}
	snprintf(name, 128, "sflow %s", c->spec ? c->spec : "");
	s->name = "sflow";
	s->live = 1;
	s->collect = clock_collect;
	s->close = clock_close;
	s->priv = name;
	return s;
}
