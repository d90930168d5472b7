// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe mesh on real verbs (user/probe/probe_verbs.h).
 *
 * Finding a peer: rdma_cm in its UDP port space. Every host listens on one
 * rdma_cm port; a prober resolves a peer's address and route and sends a
 * SIDR request, whose reply names the QP that answers there and the address
 * vector to reach it. rdma_cm rides on RoCE itself (UDP 4791), so the mesh
 * needs no port of its own.
 *
 * Per device: one protection domain, one completion queue with its channel,
 * one UD QP that answers, one UD QP per path that probes (Soft-RoCE takes a
 * frame's UDP source port from the sending QP, a hardware NIC from the flow
 * label: each path has both its own QP and its own label), and one registered
 * buffer for every receive and send slot, so the memory is fixed at start.
 *
 * A probe in flight is an entry of a ring indexed by its sequence number; an
 * answer is taken only for the entry it names, from the QP it was sent to,
 * and a probe past the timeout is lost. The answerer answers only what
 * rt_probe_decode() accepts, with the bytes it received (never more), at most
 * cfg.answer_rate answers a second; the rest is counted by why.
 *
 * Times: CLOCK_MONOTONIC when a completion is polled (Soft-RoCE offers no
 * completion timestamps); each side adds to its own time the time it was kept
 * from running (the caller's stall), so a throttled host shows as its own
 * time and not as the network's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "log.h"
#include "probe_verbs.h"

#define NRECV_ANS	512		/* the answerer's receive slots */
#define NRECV_PATH	256		/* each path QP's (answers only): 0.5 s of a hundred peers' */
#define NSEND		256		/* send slots, shared by the device's QPs */
#define GRH		40
#define SLOT		(RT_PROBE_MAX + GRH)
#define RING		65536		/* probes in flight at most (a power of 2) */
#define NAHCACHE	1024		/* answers' address handles kept, direct-mapped by address pair */
#define RETRY_NS	5000000000ull	/* a peer not resolved is tried again after */

enum { WR_RECV_ANS = 1, WR_RECV_PATH = 2, WR_SEND = 3 };
#define WR_ID(kind, i)	(((uint64_t)(kind) << 32) | (uint32_t)(i))

struct ah_entry {
	uint8_t key[32];	/* the request's source and destination address */
	struct ibv_ah *ah;
	uint64_t born;
};

struct dev {
	struct ibv_context *ctx;	/* librdmacm's */
	uint8_t port;
	int is_rxe, npaths;
	uint64_t ts_mask, core_khz;	/* completion timestamps: their mask and the device clock (0: none) */
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *ans_qp;
	struct ibv_qp *path_qp[RT_PROBE_MAX_PATHS];
	uint8_t *buf;
	size_t buflen;
	struct ibv_mr *mr;
	int free_send[NSEND], nfree;
	struct ibv_ah *send_ah[NSEND];	/* an answer's AH to put away when its send completes */
	struct ah_entry cache[NAHCACHE];
};

enum { P_IDLE, P_RESOLVING, P_READY };

struct pstate {
	struct rdma_cm_id *id;
	int state;
	uint64_t retry_at, next_due;
	struct dev *dev;
	struct ibv_ah *ah[RT_PROBE_MAX_PATHS];
	uint32_t rr;
	int said;			/* its last failure was said */
	int recheck;			/* asked to find its answerer again (rt_probe_mesh_recheck) */
	int paused;			/* not probed for now (rt_probe_mesh_pause) */
};

struct pend {
	uint64_t seq, t_tx;
	int32_t peer;
	uint8_t path, size, live;
};

struct rt_probe_mesh {
	struct rt_probe_cfg cfg;
	struct rt_probe_peer *peers;
	struct pstate *ps;
	int npeers, max_peers;
	struct rdma_event_channel *ech;
	struct rdma_cm_id *listen;
	struct dev *devs[8];
	int ndevs;
	struct pend *ring;
	uint64_t next_seq, tail;
	uint64_t stall;			/* the current wake's */
	double tokens;
	uint64_t tokens_at;
	struct rt_probe_answerer ans;
	uint64_t late, unsent;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t flow_label(int path)
{
	return ((uint32_t)(path + 1) * 0x2b1d3u) & 0xfffff;
}

/* ---- a device's verbs objects ---- */

static int qp_to_rts(struct ibv_qp *qp, uint8_t port, uint32_t qkey)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = port, .qkey = qkey };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static struct ibv_qp *ud_qp(struct dev *d, uint32_t nrecv, uint32_t qkey)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = d->cq, .recv_cq = d->cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = NSEND, .max_recv_wr = nrecv, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &ia);

	if (qp && qp_to_rts(qp, d->port, qkey)) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

static uint8_t *recv_slot(struct dev *d, int kind, uint32_t i)
{
	size_t off = kind == WR_RECV_ANS ? 0 : (size_t)NRECV_ANS * SLOT;

	return d->buf + off + (size_t)i * SLOT;
}

static uint8_t *send_slot(struct dev *d, uint32_t i)
{
	return d->buf + (size_t)(NRECV_ANS + d->npaths * NRECV_PATH) * SLOT + (size_t)i * RT_PROBE_MAX;
}

static int post_recv(struct dev *d, int kind, uint32_t i)
{
	struct ibv_sge sge = { .addr = (uintptr_t)recv_slot(d, kind, i), .length = SLOT, .lkey = d->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = WR_ID(kind, i), .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_qp *qp = kind == WR_RECV_ANS ? d->ans_qp : d->path_qp[i / NRECV_PATH];

	return ibv_post_recv(qp, &wr, &bad);
}

static void dev_free(struct dev *d)
{
	if (!d)
		return;
	for (int i = 0; i < NAHCACHE; i++)
		if (d->cache[i].ah)
			ibv_destroy_ah(d->cache[i].ah);
	for (int i = 0; i < NSEND; i++)
		if (d->send_ah[i])
			ibv_destroy_ah(d->send_ah[i]);
	for (int k = 0; k < RT_PROBE_MAX_PATHS; k++)
		if (d->path_qp[k])
			ibv_destroy_qp(d->path_qp[k]);
	if (d->ans_qp)
		ibv_destroy_qp(d->ans_qp);
	if (d->cq)
		ibv_destroy_cq(d->cq);
	if (d->ch)
		ibv_destroy_comp_channel(d->ch);
	if (d->mr)
		ibv_dereg_mr(d->mr);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	free(d->buf);
	free(d);
}

static int dev_setup(struct rt_probe_mesh *m, struct dev *d)
{
	struct ibv_device_attr_ex dx;
	struct ibv_port_attr pa;
	int n = 0;

	if (!ibv_query_device_ex(d->ctx, NULL, &dx)) {
		d->is_rxe = dx.orig_attr.vendor_id == 0xffffff;
		d->ts_mask = dx.completion_timestamp_mask;
		d->core_khz = dx.hca_core_clock;
	}
	/* a size of 0 is the port's active MTU (a UD message is at most one) */
	if (!ibv_query_port(d->ctx, d->port, &pa))
		for (int k = 0; k < m->cfg.nsizes; k++)
			if (!m->cfg.sizes[k] || m->cfg.sizes[k] > (256u << (pa.active_mtu - 1)))
				m->cfg.sizes[k] = 256u << (pa.active_mtu - 1);
	d->npaths = m->cfg.npaths;
	d->buflen = (size_t)(NRECV_ANS + d->npaths * NRECV_PATH) * SLOT + (size_t)NSEND * RT_PROBE_MAX;
	d->buf = calloc(1, d->buflen);
	d->pd = d->buf ? ibv_alloc_pd(d->ctx) : NULL;
	d->mr = d->pd ? ibv_reg_mr(d->pd, d->buf, d->buflen, IBV_ACCESS_LOCAL_WRITE) : NULL;
	d->ch = d->mr ? ibv_create_comp_channel(d->ctx) : NULL;
	d->cq = d->ch ? ibv_create_cq(d->ctx, 2 * NSEND + NRECV_ANS + d->npaths * NRECV_PATH, NULL, d->ch, 0) : NULL;
	if (!d->cq || fcntl(d->ch->fd, F_SETFL, fcntl(d->ch->fd, F_GETFL) | O_NONBLOCK) ||
	    ibv_req_notify_cq(d->cq, 0))
		return -1;
	if (m->cfg.answer) {
		d->ans_qp = ud_qp(d, NRECV_ANS, m->cfg.qkey);
		if (!d->ans_qp)
			return -1;
		for (uint32_t i = 0; i < NRECV_ANS; i++)
			if (post_recv(d, WR_RECV_ANS, i))
				return -1;
	}
	for (int k = 0; k < m->cfg.npaths; k++) {
		d->path_qp[k] = ud_qp(d, NRECV_PATH, m->cfg.qkey);
		if (!d->path_qp[k])
			return -1;
		for (uint32_t i = 0; i < NRECV_PATH; i++)
			if (post_recv(d, WR_RECV_PATH, (uint32_t)k * NRECV_PATH + i))
				return -1;
	}
	for (int i = NSEND - 1; i >= 0; i--)
		d->free_send[n++] = i;
	d->nfree = n;
	return 0;
}

/* The device of a cm_id (its verbs context and port), made on first use. */
static struct dev *dev_for(struct rt_probe_mesh *m, struct ibv_context *ctx, uint8_t port)
{
	struct dev *d;

	for (int i = 0; i < m->ndevs; i++)
		if (m->devs[i]->ctx == ctx && m->devs[i]->port == port)
			return m->devs[i];
	if (m->ndevs == (int)(sizeof(m->devs) / sizeof(m->devs[0])))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->ctx = ctx;
	d->port = port;
	if (dev_setup(m, d)) {
		pr_warn("probe: cannot set up the UD QPs on %s port %u: %s.\n",
			ibv_get_device_name(ctx->device), port, strerror(errno));
		dev_free(d);
		return NULL;
	}
	if (d->ans_qp)
		pr_info("probe: %s port %u: answering on UD QP %u, probing from %d QP(s).\n",
			ibv_get_device_name(ctx->device), port, d->ans_qp->qp_num, m->cfg.npaths);
	else
		pr_info("probe: %s port %u: probing from %d QP(s).\n", ibv_get_device_name(ctx->device), port,
			m->cfg.npaths);
	/* which clock, and why: the device's completion timestamps are not read yet */
	if (d->ts_mask && d->core_khz)
		pr_info("probe: %s: completion timestamps offered (mask 0x%llx, clock %llu kHz), not used yet: clock system.\n",
			ibv_get_device_name(ctx->device), (unsigned long long)d->ts_mask,
			(unsigned long long)d->core_khz);
	else
		pr_info("probe: %s: no completion timestamps (mask 0x%llx, clock %llu kHz): clock system.\n",
			ibv_get_device_name(ctx->device), (unsigned long long)d->ts_mask,
			(unsigned long long)d->core_khz);
	m->devs[m->ndevs++] = d;
	m->ans.ndevs = m->ndevs;
	return d;
}

/* ---- peers: rdma_cm finds each one's answering QP ---- */

static void peer_fail(struct rt_probe_mesh *m, int i, const char *what, int status)
{
	struct rt_probe_peer *p = &m->peers[i];
	struct pstate *s = &m->ps[i];

	if (s->state == P_READY) {
		/* a recheck that failed: probe on with the answerer known, try again later */
		s->retry_at = mono_ns() + RETRY_NS;
		return;
	}
	if (!s->said)
		pr_warn("probe: peer %s (%s): %s%s%s; trying again every %llu s.\n", p->name, p->addr_text, what,
			status ? ": " : "", status ? strerror(status < 0 ? -status : status) : "",
			RETRY_NS / 1000000000ull);
	s->said = 1;
	s->state = P_IDLE;
	s->retry_at = mono_ns() + RETRY_NS;
}

static void peer_resolve(struct rt_probe_mesh *m, int i)
{
	struct pstate *s = &m->ps[i];

	if (rdma_create_id(m->ech, &s->id, (void *)(intptr_t)(i + 1), RDMA_PS_UDP)) {
		s->id = NULL;
		peer_fail(m, i, "rdma_create_id failed", errno);
		return;
	}
	((struct sockaddr_in *)&m->peers[i].addr)->sin_port = htons(m->cfg.cm_port);
	if (rdma_resolve_addr(s->id, NULL, (struct sockaddr *)&m->peers[i].addr, 2000)) {
		peer_fail(m, i, "its address cannot be resolved", errno);
		rdma_destroy_id(s->id);
		s->id = NULL;
		return;
	}
	if (s->state != P_READY)
		s->state = P_RESOLVING;
}

static void peer_ready(struct rt_probe_mesh *m, int i, const struct rdma_ud_param *ud)
{
	struct rt_probe_peer *p = &m->peers[i];
	struct pstate *s = &m->ps[i];

	/* found again (a recheck): the route is the one the address handles
	 * hold, which probes in flight still use; only the QP may be new */
	for (int k = 0; k < m->cfg.npaths && !(s->state == P_READY && s->ah[k]); k++) {
		struct ibv_ah_attr a = ud->ah_attr;

		a.is_global = 1;
		a.grh.flow_label = flow_label(k);
		a.grh.traffic_class = m->cfg.tclass;
		if (!a.grh.hop_limit)
			a.grh.hop_limit = 64;
		if (s->ah[k])
			ibv_destroy_ah(s->ah[k]);
		s->ah[k] = ibv_create_ah(s->dev->pd, &a);
		if (!s->ah[k]) {
			peer_fail(m, i, "no address handle", errno);
			return;
		}
		p->flow_label[k] = flow_label(k);
		p->sport[k] = s->dev->is_rxe ? rt_probe_sport_rxe(s->dev->path_qp[k]->qp_num)
					     : rt_probe_sport_flow_label(flow_label(k));
	}
	p->npaths = m->cfg.npaths;
	if (!p->ready || s->said || p->remote_qpn != ud->qp_num)
		pr_info("probe: peer %s (%s) answers on QP %u.\n", p->name, p->addr_text, ud->qp_num);
	p->remote_qpn = ud->qp_num;
	p->ready = 1;
	s->said = 0;
	s->state = P_READY;
}

static void on_answerer_request(struct rt_probe_mesh *m, struct rdma_cm_id *id)
{
	struct dev *d = dev_for(m, id->verbs, id->port_num);
	struct rdma_conn_param cp = { .qp_num = d && d->ans_qp ? d->ans_qp->qp_num : 0 };

	if (!d || !d->ans_qp || rdma_accept(id, &cp))
		rdma_reject(id, NULL, 0);
}

/* One rdma_cm event; returns the id to destroy once the event is acked, or NULL. */
static struct rdma_cm_id *on_cm_event(struct rt_probe_mesh *m, struct rdma_cm_event *ev)
{
	int i = (int)(intptr_t)ev->id->context - 1;
	struct pstate *s = i >= 0 && i < m->npeers ? &m->ps[i] : NULL;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		on_answerer_request(m, ev->id);
		return ev->id;
	}
	if (!s || s->id != ev->id)
		return NULL;
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(ev->id, 2000))
			break;
		return NULL;
	case RDMA_CM_EVENT_ROUTE_RESOLVED: {
		struct rdma_conn_param cp = { 0 };

		s->dev = dev_for(m, ev->id->verbs, ev->id->port_num);
		if (!s->dev)
			break;
		cp.qp_num = s->dev->path_qp[0]->qp_num;
		if (rdma_connect(ev->id, &cp))
			break;
		return NULL;
	}
	case RDMA_CM_EVENT_ESTABLISHED:
		peer_ready(m, i, &ev->param.ud);
		s->id = NULL;
		return ev->id;
	default:
		break;
	}
	peer_fail(m, i, rdma_event_str(ev->event), ev->status);
	s->id = NULL;
	return ev->id;
}

static void cm_events(struct rt_probe_mesh *m)
{
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(m->ech, &ev)) {
		struct rdma_cm_id *gone = on_cm_event(m, ev);

		rdma_ack_cm_event(ev);
		if (gone)
			rdma_destroy_id(gone);
	}
}

/* ---- the answerer ---- */

/* Is this an IPv4 header (version 4, 20 bytes, its checksum right)? */
static int ipv4_header(const uint8_t *h)
{
	uint32_t sum = 0;

	if (h[0] != 0x45)
		return 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* The answer's address handle: from the request's GRH, one per pair of source
 * and destination address (the answer leaves from the address the probe was
 * sent to), kept a minute. */
static struct ibv_ah *answer_ah(struct dev *d, const struct ibv_wc *wc, const uint8_t *grh, uint64_t now, int *cached)
{
	uint8_t key[32] = { 0 };
	uint32_t h = 2166136261u;
	struct ah_entry *e;
	struct ibv_ah *ah;

	/* RoCEv2 over IPv4 puts the IPv4 header in the GRH's last 20 bytes */
	if (ipv4_header(grh + 20))
		memcpy(key, grh + 20 + 12, 8);
	else
		memcpy(key, grh + 8, 32);
	/* one place per address pair (FNV-1a): a probe from an answered pair
	 * finds its handle there; making one (a neighbour lookup) costs a
	 * syscall or more, which at a thousand answers a second is the
	 * answerer's whole budget */
	for (int i = 0; i < 32; i++)
		h = (h ^ key[i]) * 16777619u;
	e = &d->cache[h % NAHCACHE];
	if (e->ah && !memcmp(e->key, key, 32) && now - e->born < 60000000000ull) {
		*cached = 1;
		return e->ah;
	}
	ah = ibv_create_ah_from_wc(d->pd, (struct ibv_wc *)wc, (struct ibv_grh *)grh, d->port);
	*cached = 0;
	if (!ah)
		return NULL;
	/* an evicted or stale entry's AH may still be in a send: it goes when that completes */
	if (e->ah)
		for (int j = 0; j < NSEND; j++)
			if (!d->send_ah[j]) {
				d->send_ah[j] = e->ah;
				e->ah = NULL;
				break;
			}
	if (e->ah)
		ibv_destroy_ah(e->ah);
	memcpy(e->key, key, 32);
	e->ah = ah;
	e->born = now;
	*cached = 1;
	return ah;
}

static int take_token(struct rt_probe_mesh *m, uint64_t now)
{
	/* a second's worth: what queued while this host was held is answered */
	double burst = m->cfg.answer_rate;

	m->tokens += (double)(now - m->tokens_at) * m->cfg.answer_rate / 1e9;
	m->tokens_at = now;
	if (m->tokens > burst)
		m->tokens = burst;
	if (m->tokens < 1)
		return 0;
	m->tokens -= 1;
	return 1;
}

static void answer(struct rt_probe_mesh *m, struct dev *d, const struct ibv_wc *wc, uint32_t i, uint64_t now)
{
	uint8_t *slot = recv_slot(d, WR_RECV_ANS, i);
	size_t len = wc->byte_len >= GRH ? wc->byte_len - GRH : 0;
	struct rt_probe_msg req;
	enum rt_probe_bad why = wc->byte_len >= GRH ? rt_probe_decode(slot + GRH, len, RT_PROBE_REQ, &req)
						  : RT_PROBE_SHORT;
	struct ibv_ah *ah;
	int cached, s;

	if (why != RT_PROBE_OK) {
		m->ans.bad[why]++;
		return;
	}
	if (!take_token(m, now)) {
		m->ans.dropped_rate++;
		return;
	}
	if (!d->nfree || !(ah = answer_ah(d, wc, slot, now, &cached))) {
		m->ans.dropped_busy++;
		return;
	}
	s = d->free_send[--d->nfree];
	memcpy(send_slot(d, (uint32_t)s), slot + GRH, len);
	req.type = RT_PROBE_ANS;
	req.clock = RT_PROBE_CLOCK_SYSTEM;
	req.stall_ns = m->stall;
	req.resp_ns = mono_ns() - now + m->stall;
	rt_probe_encode(&req, send_slot(d, (uint32_t)s), len);
	{
		struct ibv_sge sge = { .addr = (uintptr_t)send_slot(d, (uint32_t)s), .length = (uint32_t)len,
				       .lkey = d->mr->lkey };
		struct ibv_send_wr wr = { .wr_id = WR_ID(WR_SEND, s), .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;

		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = wc->src_qp;
		wr.wr.ud.remote_qkey = m->cfg.qkey;
		if (ibv_post_send(d->ans_qp, &wr, &bad)) {
			d->free_send[d->nfree++] = s;
			m->ans.dropped_busy++;
			return;
		}
	}
	m->ans.answered++;
}

/* ---- the prober ---- */

static void on_answer(struct rt_probe_mesh *m, struct dev *d, const struct ibv_wc *wc, uint32_t i)
{
	uint8_t *slot = recv_slot(d, WR_RECV_PATH, i);
	struct rt_probe_msg a;
	struct pend *e;
	struct rt_probe_peer *p;

	if (wc->byte_len < GRH || rt_probe_decode(slot + GRH, wc->byte_len - GRH, RT_PROBE_ANS, &a) != RT_PROBE_OK) {
		m->late++;
		return;
	}
	e = &m->ring[a.seq & (RING - 1)];
	if (!e->live || e->seq != a.seq || e->peer < 0 || e->peer >= m->npeers ||
	    wc->src_qp != m->peers[e->peer].remote_qpn || a.size != wc->byte_len - GRH) {
		m->late++;
		return;
	}
	e->live = 0;
	p = &m->peers[e->peer];
	rt_probe_cell_answer(&p->cell[e->path][e->size], mono_ns() - e->t_tx, a.resp_ns, a.stall_ns, m->stall);
}

static void send_probe(struct rt_probe_mesh *m, int i)
{
	struct rt_probe_peer *p = &m->peers[i];
	struct pstate *s = &m->ps[i];
	struct dev *d = s->dev;
	uint32_t cell = s->rr++ % (uint32_t)(m->cfg.npaths * m->cfg.nsizes);
	int path = (int)(cell % (uint32_t)m->cfg.npaths), size = (int)(cell / (uint32_t)m->cfg.npaths);
	struct rt_probe_msg q = { .type = RT_PROBE_REQ, .path = (uint16_t)path, .size = m->cfg.sizes[size] };
	struct pend *e;
	int slot;

	if (!d->nfree || m->next_seq - m->tail >= RING) {
		m->unsent++;
		return;
	}
	slot = d->free_send[--d->nfree];
	q.seq = m->next_seq++;
	e = &m->ring[q.seq & (RING - 1)];
	*e = (struct pend){ .seq = q.seq, .peer = i, .path = (uint8_t)path, .size = (uint8_t)size, .live = 1 };
	{
		struct ibv_sge sge = { .addr = (uintptr_t)send_slot(d, (uint32_t)slot), .length = q.size,
				       .lkey = d->mr->lkey };
		struct ibv_send_wr wr = { .wr_id = WR_ID(WR_SEND, slot), .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;

		wr.wr.ud.ah = s->ah[path];
		wr.wr.ud.remote_qpn = p->remote_qpn;
		wr.wr.ud.remote_qkey = m->cfg.qkey;
		e->t_tx = q.t_tx_ns = mono_ns();
		rt_probe_encode(&q, send_slot(d, (uint32_t)slot), q.size);
		if (ibv_post_send(d->path_qp[path], &wr, &bad)) {
			d->free_send[d->nfree++] = slot;
			e->live = 0;
			m->unsent++;
			return;
		}
	}
	p->cell[path][size].sent++;
	p->cell[path][size].i_sent++;
}

/* ---- completions ---- */

static void dev_poll(struct rt_probe_mesh *m, struct dev *d, uint64_t now)
{
	struct ibv_wc wc[32];
	int n;

	while ((n = ibv_poll_cq(d->cq, 32, wc)) > 0) {
		for (int j = 0; j < n; j++) {
			uint32_t kind = (uint32_t)(wc[j].wr_id >> 32), i = (uint32_t)wc[j].wr_id;

			if (kind == WR_SEND) {
				if (d->send_ah[i]) {
					ibv_destroy_ah(d->send_ah[i]);
					d->send_ah[i] = NULL;
				}
				d->free_send[d->nfree++] = (int)i;
				continue;
			}
			if (wc[j].status == IBV_WC_SUCCESS) {
				if (kind == WR_RECV_ANS)
					answer(m, d, &wc[j], i, now);
				else
					on_answer(m, d, &wc[j], i);
			}
			if (wc[j].status != IBV_WC_WR_FLUSH_ERR)
				post_recv(d, (int)kind, i);
		}
	}
}

void rt_probe_mesh_poll(struct rt_probe_mesh *m, uint64_t now, uint64_t stall)
{
	m->stall = stall;
	cm_events(m);
	for (int i = 0; i < m->ndevs; i++) {
		struct dev *d = m->devs[i];
		struct ibv_cq *cq;
		void *ctx;

		while (!ibv_get_cq_event(d->ch, &cq, &ctx))
			ibv_ack_cq_events(cq, 1);
		ibv_req_notify_cq(d->cq, 0);
		dev_poll(m, d, now);
	}
}

void rt_probe_mesh_tick(struct rt_probe_mesh *m, uint64_t now, int send)
{
	uint64_t timeout = (uint64_t)(m->cfg.timeout * 1e9), every = (uint64_t)(1e9 / m->cfg.rate);

	while (m->tail < m->next_seq) {
		struct pend *e = &m->ring[m->tail & (RING - 1)];

		if (e->live) {
			if (now - e->t_tx < timeout)
				break;
			e->live = 0;
			m->peers[e->peer].cell[e->path][e->size].lost++;
			m->peers[e->peer].cell[e->path][e->size].i_lost++;
		}
		m->tail++;
	}
	for (int i = 0; send && i < m->npeers; i++) {
		struct pstate *s = &m->ps[i];

		if (s->paused)
			continue;
		if (s->state == P_IDLE && now >= s->retry_at)
			peer_resolve(m, i);
		if (s->state == P_READY && s->recheck && !s->id && now >= s->retry_at) {
			s->recheck = 0;
			peer_resolve(m, i);
		}
		if (s->state != P_READY)
			continue;
		if (s->next_due + 1000000000ull < now)	/* kept from running: no burst after */
			s->next_due = now;
		while (s->next_due <= now) {
			send_probe(m, i);
			s->next_due += every;
		}
	}
}

/* ---- the mesh ---- */

static int listen_answerer(struct rt_probe_mesh *m)
{
	struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons(m->cfg.cm_port) };

	if (rdma_create_id(m->ech, &m->listen, NULL, RDMA_PS_UDP) ||
	    rdma_bind_addr(m->listen, (struct sockaddr *)&any) || rdma_listen(m->listen, 64)) {
		pr_warn("probe: cannot listen on rdma_cm port %u: %s.\n", m->cfg.cm_port, strerror(errno));
		return -1;
	}
	return 0;
}

/* Every active RoCE port answers from the start, not from the first request
 * (which finds its device through rdma_cm); 0, or -1 with none. */
static int answer_everywhere(struct rt_probe_mesh *m)
{
	int n = 0, up = 0;
	struct ibv_context **ctxs = rdma_get_devices(&n);

	for (int i = 0; ctxs && i < n; i++) {
		struct ibv_device_attr da;

		if (ibv_query_device(ctxs[i], &da))
			continue;
		for (uint8_t p = 1; p <= da.phys_port_cnt; p++) {
			struct ibv_port_attr pa;

			if (!ibv_query_port(ctxs[i], p, &pa) && pa.state == IBV_PORT_ACTIVE &&
			    pa.link_layer == IBV_LINK_LAYER_ETHERNET && dev_for(m, ctxs[i], p))
				up++;
		}
	}
	if (ctxs)
		rdma_free_devices(ctxs);
	if (!up)
		pr_warn("probe: no active RoCE port to answer on%s.\n", n ? "" : " (no RDMA device)");
	return up ? 0 : -1;
}

struct rt_probe_mesh *rt_probe_mesh_new(const struct rt_probe_cfg *cfg, struct rt_probe_peer *peers, int npeers,
				       int max_peers)
{
	struct rt_probe_mesh *m = calloc(1, sizeof(*m));
	uint64_t now = mono_ns();

	if (!m)
		return NULL;
	m->cfg = *cfg;
	m->peers = peers;
	m->npeers = npeers;
	m->max_peers = max_peers > npeers ? max_peers : npeers;
	m->ps = calloc((size_t)(m->max_peers ? m->max_peers : 1), sizeof(*m->ps));
	m->ring = calloc(RING, sizeof(*m->ring));
	m->next_seq = m->tail = 1;
	m->tokens_at = now;
	m->ech = m->ps && m->ring ? rdma_create_event_channel() : NULL;
	if (!m->ech) {
		pr_warn("probe: rdma_cm is not there (%s): is rdma_ucm loaded?\n", strerror(errno));
		goto fail;
	}
	if (fcntl(m->ech->fd, F_SETFL, fcntl(m->ech->fd, F_GETFL) | O_NONBLOCK))
		goto fail;
	if (cfg->answer && (listen_answerer(m) || answer_everywhere(m)))
		goto fail;
	for (int i = 0; i < npeers; i++)
		m->ps[i].next_due = now + (uint64_t)((double)i * 1e9 / cfg->rate / (npeers ? npeers : 1));
	return m;
fail:
	rt_probe_mesh_free(m);
	return NULL;
}

void rt_probe_mesh_free(struct rt_probe_mesh *m)
{
	if (!m)
		return;
	for (int i = 0; m->ps && i < m->npeers; i++) {
		for (int k = 0; k < RT_PROBE_MAX_PATHS; k++)
			if (m->ps[i].ah[k])
				ibv_destroy_ah(m->ps[i].ah[k]);
		if (m->ps[i].id)
			rdma_destroy_id(m->ps[i].id);
	}
	for (int i = 0; i < m->ndevs; i++)
		dev_free(m->devs[i]);
	if (m->listen)
		rdma_destroy_id(m->listen);
	if (m->ech)
		rdma_destroy_event_channel(m->ech);
	free(m->ring);
	free(m->ps);
	free(m);
}

int rt_probe_mesh_add_peer(struct rt_probe_mesh *m)
{
	if (m->npeers >= m->max_peers)
		return -E2BIG;
	m->ps[m->npeers] = (struct pstate){ .next_due = mono_ns() };
	return m->npeers++;
}

void rt_probe_mesh_recheck(struct rt_probe_mesh *m, int i)
{
	if (i >= 0 && i < m->npeers && m->ps[i].state == P_READY)
		m->ps[i].recheck = 1;
}

void rt_probe_mesh_pause(struct rt_probe_mesh *m, int i, int paused)
{
	if (i >= 0 && i < m->npeers) {
		if (m->ps[i].paused && !paused)
			m->ps[i].next_due = mono_ns();	/* no burst for the time it was paused */
		m->ps[i].paused = paused;
	}
}

int rt_probe_mesh_fds(struct rt_probe_mesh *m, int *fds, int max)
{
	int n = 0;

	if (n < max)
		fds[n++] = m->ech->fd;
	for (int i = 0; i < m->ndevs && n < max; i++)
		fds[n++] = m->devs[i]->ch->fd;
	return n;
}

const struct rt_probe_answerer *rt_probe_mesh_answerer(const struct rt_probe_mesh *m)
{
	return &m->ans;
}

const struct rt_probe_cfg *rt_probe_mesh_cfg(const struct rt_probe_mesh *m)
{
	return &m->cfg;
}

uint64_t rt_probe_mesh_late(const struct rt_probe_mesh *m)
{
	return m->late;
}

uint64_t rt_probe_mesh_unsent(const struct rt_probe_mesh *m)
{
	return m->unsent;
}

int rt_probe_mesh_inflight(const struct rt_probe_mesh *m)
{
	return (int)(m->next_seq - m->tail);
}

int rt_probe_mesh_clock(const struct rt_probe_mesh *m)
{
	(void)m;
	return RT_PROBE_CLOCK_SYSTEM;
}

size_t rt_probe_mesh_bytes(const struct rt_probe_mesh *m)
{
	size_t b = sizeof(*m) + RING * sizeof(struct pend) + (size_t)m->npeers * (sizeof(struct pstate) + sizeof(struct rt_probe_peer));

	for (int i = 0; i < m->ndevs; i++)
		b += sizeof(struct dev) + m->devs[i]->buflen;
	return b;
}
