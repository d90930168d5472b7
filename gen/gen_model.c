/*
 * rocetop-gen: the scenarios.
 *
 * A discrete-event model in model time (nanoseconds). Every frame that the
 * model puts on the wire goes through gen_emit() at the model time it crosses
 * the receiver's port; gen_emit() maps model time to wall time (scaled so that
 * the nominal load matches --rate) and never exceeds --rate.
 *
 * Roles: senders (DCQCN reaction points, RC requesters with go-back-N), an
 * emulated switch port (congestion point: queue, RED-like CE marking, tail
 * drop; frames dropped there never reach the wire), the receiver (notification
 * point and RC responder: CNPs rate-limited per QP, coalesced ACKs, NAK on a
 * PSN gap, occasional RNR NAK on a SEND), and a port that sends PFC storms.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_model.h"
#include "gen_sflow.h"

static const char *scenario_names[] = { "incast", "pfc-storm", "steady", "mixed", "fixed" };

int gen_scenario_from_name(const char *name)
{
	for (int i = 0; i < (int)(sizeof(scenario_names) / sizeof(scenario_names[0])); i++)
		if (strcmp(name, scenario_names[i]) == 0)
			return i;
	return -1;
}

const char *gen_scenario_name(int sc)
{
	return sc >= 0 && sc <= SC_FIXED ? scenario_names[sc] : "?";
}

/* ---- deterministic PRNG (splitmix64) ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_unif(void)
{
	return (double)(rng_next() >> 11) * 0x1p-53;
}

/* ---- opcodes ---- */

enum {
	OP_SEND_FIRST = 0x00, OP_SEND_MIDDLE = 0x01, OP_SEND_LAST = 0x02, OP_SEND_ONLY = 0x04,
	OP_WRITE_FIRST = 0x06, OP_WRITE_MIDDLE = 0x07, OP_WRITE_LAST = 0x08, OP_WRITE_ONLY = 0x0a,
	OP_ACK = 0x11, OP_CNP = 0x81,
};

#define AETH_ACK(credit) ((uint8_t)(0x00 | ((credit) & 0x1f)))
#define AETH_RNR(timer) ((uint8_t)(0x20 | ((timer) & 0x1f)))
#define AETH_NAK(code) ((uint8_t)(0x60 | ((code) & 0x1f)))
#define AETH_CREDIT_INVALID 0x1f

/* ---- model state ---- */

enum { G_INCAST, G_STEADY, G_VICTIM };

struct sender {
	int group, idx;
	uint32_t ip, sqpn, rqpn;
	uint8_t mac[6];
	uint16_t sport_fwd, sport_rev, ip_id;
	int prio;
	uint8_t dscp;
	int congested, rnr_ok, dcqcn;
	/* reaction point */
	double line, rc, rt, alpha;
	int stage, cnp_seen;
	/* requester */
	uint64_t ipsn, next, una, una_at_check;
	uint32_t gen;
	double blocked_until;
	/* responder / notification point for this QP */
	uint64_t exp;
	int nak_out, unacked;
	uint32_t msn;
	double last_cnp;
	/* statistics */
	uint64_t sent, dropped, retrans, timeouts, cnp_rx;
};

enum { EV_SEND, EV_ARRIVE, EV_FB, EV_ALPHA, EV_RINC, EV_RTO, EV_PFC };

struct event {
	double t;
	uint64_t seq;
	int type, s, kind, ce;
	uint64_t psn;
	uint32_t gen;
	uint32_t qdepth, delay;   /* at the switch port: bytes met, ns queued */
};

struct model {
	const struct gen_cfg *c;
	struct gen_out *o;
	struct sender *s;
	int n;
	double C;          /* port drain rate, bytes per ns */
	double q, q_t;     /* queue bytes, time of last update */
	double kmin, kmax, buf;
	double prop;       /* one-way propagation, ns */
	double cnp_gap, rnr_delay, rto, alpha_period, rinc_period, g, rai, rmin;
	double pause_until[8];
	/* PFC storm */
	int storm_prio, storm_on;
	double cycle, storm_start, storm_end, storm_refresh, quantum;
	uint16_t rcv_ip_id;
	/* events */
	struct event *h;
	size_t nh, caph;
	uint64_t seq;
	double now;
	int stop;
	/* statistics */
	uint64_t drops, marks, storms, enq;
	double qmax;
};

static void push(struct model *m, struct event e)
{
	if (m->nh == m->caph) {
		size_t n = m->caph ? 2 * m->caph : 1024;
		struct event *nh = realloc(m->h, n * sizeof(*nh));
		if (!nh) {
			fprintf(stderr, "rocetop-gen: out of memory.\n");
			m->stop = 1;
			m->o->fatal = 1;
			return;
		}
		m->h = nh;
		m->caph = n;
	}
	e.seq = m->seq++;
	size_t i = m->nh++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (m->h[p].t < e.t || (m->h[p].t == e.t && m->h[p].seq < e.seq))
			break;
		m->h[i] = m->h[p];
		i = p;
	}
	m->h[i] = e;
}

static int ev_less(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static struct event pop(struct model *m)
{
	struct event top = m->h[0], last = m->h[--m->nh];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, b = i;
		const struct event *best = &last;
		if (l < m->nh && ev_less(&m->h[l], best)) {
			b = l;
			best = &m->h[l];
		}
		if (r < m->nh && ev_less(&m->h[r], best))
			b = r;
		if (b == i)
			break;
		m->h[i] = m->h[b];
		i = b;
	}
	if (m->nh)
		m->h[i] = last;
	return top;
}

static void schedule(struct model *m, double t, int type, int s)
{
	struct event e;

	memset(&e, 0, sizeof(e));
	e.t = t;
	e.type = type;
	e.s = s;
	if (type == EV_SEND && s >= 0)
		e.gen = m->s[s].gen;
	push(m, e);
}

/* ---- frames ---- */

static int msg_pos(const struct model *m, const struct sender *s, uint64_t psn, uint64_t *msgidx)
{
	uint64_t k = psn - s->ipsn;
	int M = m->c->msg_pkts;

	*msgidx = k / (uint64_t)M;
	return (int)(k % (uint64_t)M);
}

static int is_send_msg(uint64_t msgidx)
{
	return msgidx % 8 == 7; /* every 8th message is a SEND, the rest RDMA WRITEs */
}

/* Every RoCE frame's start: its side and kind, the addresses of its way
 * (source MAC to destination MAC, source IP to destination IP) and the
 * run's VLAN; the rest zero. */
static void frame_start(struct gen_frame *f, const struct gen_cfg *c, int side, int kind,
			const uint8_t *smac, const uint8_t *dmac, uint32_t sip, uint32_t dip)
{
	memset(f, 0, sizeof(*f));
	f->side = side;
	f->kind = kind;
	memcpy(f->smac, smac, 6);
	memcpy(f->dmac, dmac, 6);
	f->vlan = c->vlan;
	f->sip = sip;
	f->dip = dip;
}

static void data_frame(const struct model *m, struct sender *s, uint64_t psn, int ce,
		       struct gen_frame *f)
{
	const struct gen_cfg *c = m->c;
	uint64_t msgidx;
	int pos = msg_pos(m, s, psn, &msgidx), M = c->msg_pkts;
	int first = pos == 0, last = pos == M - 1;
	int send = is_send_msg(msgidx);

	frame_start(f, c, SIDE_DATA, K_DATA, s->mac, c->dst_mac, s->ip, c->rcv_ip);
	f->prio = s->prio;
	f->dscp = s->dscp;
	f->ecn = ce ? 3 : 2;
	f->ip_id = s->ip_id++;
	f->sport = s->sport_fwd;
	if (send)
		f->opcode = M == 1 ? OP_SEND_ONLY : first ? OP_SEND_FIRST : last ? OP_SEND_LAST : OP_SEND_MIDDLE;
	else
		f->opcode = M == 1 ? OP_WRITE_ONLY : first ? OP_WRITE_FIRST : last ? OP_WRITE_LAST : OP_WRITE_MIDDLE;
	f->se = send && last;
	f->ackreq = last;
	f->dqpn = s->rqpn;
	f->psn = (uint32_t)(psn & 0xffffff);
	if (!send && first) {
		f->reth = 1;
		f->va = 0x7f0000000000ULL + ((uint64_t)s->idx << 32) +
			msgidx * (uint64_t)M * (uint64_t)c->payload;
		f->rkey = 0x1000 + (uint32_t)s->idx;
		f->dmalen = (uint32_t)(M * c->payload);
	}
	f->paylen = c->payload;
	f->payfill = (uint8_t)psn;
}

/* A frame the receiver sends back to sender s: CNP or ACK/NAK with AETH. */
static void rcv_frame(struct model *m, struct sender *s, int kind, uint32_t psn, uint8_t syndrome,
		      struct gen_frame *f)
{
	const struct gen_cfg *c = m->c;

	frame_start(f, c, SIDE_RCV, kind, c->rcv_mac, s->mac, c->rcv_ip, s->ip);
	f->ip_id = m->rcv_ip_id++;
	f->sport = s->sport_rev;
	f->dqpn = s->sqpn;
	if (kind == K_CNP) {
		f->prio = 6;
		f->dscp = 48;
		f->ecn = 0;
		f->opcode = OP_CNP;
		f->becn = 1;
		f->paylen = 16;
		f->payfill = 0;
		return;
	}
	f->prio = s->prio;
	f->dscp = s->dscp;
	f->ecn = 2;
	f->opcode = OP_ACK;
	f->psn = psn & 0xffffff;
	f->aeth = 1;
	f->syndrome = syndrome;
	f->msn = s->msn & 0xffffff;
}

static int data_len(const struct model *m, const struct sender *s, uint64_t psn)
{
	uint64_t msgidx;
	int pos = msg_pos(m, s, psn, &msgidx);
	int reth = pos == 0 && !is_send_msg(msgidx);

	return 14 + (m->c->vlan >= 0 ? 4 : 0) + 20 + 8 + 12 + (reth ? 16 : 0) + m->c->payload + 4;
}

static void emit(struct model *m, const struct gen_frame *f)
{
	if (m->stop)
		return;
	if (gen_emit(m->o, f, m->now))
		m->stop = 1;
}

static void feedback(struct model *m, int si, int kind, uint64_t psn)
{
	struct event e;

	memset(&e, 0, sizeof(e));
	e.t = m->now + m->prop;
	e.type = EV_FB;
	e.s = si;
	e.kind = kind;
	e.psn = psn;
	push(m, e);
}

/* ---- roles ---- */

static void sender_send(struct model *m, int si, uint32_t gen)
{
	struct sender *s = &m->s[si];
	double t = m->now, when;
	int prio_paused;

	if (gen != s->gen)
		return; /* superseded */
	if (s->blocked_until > t) {
		schedule(m, s->blocked_until, EV_SEND, si);
		return;
	}
	prio_paused = m->pause_until[s->prio] > t;
	if (prio_paused) {
		/* paused by PFC: wait; an XON wakes the sender earlier */
		schedule(m, m->pause_until[s->prio], EV_SEND, si);
		return;
	}

	uint64_t psn = s->next++;
	int L = data_len(m, s, psn);
	int ce = 0;
	double arrive, qdepth = 0, delay;

	s->sent++;
	if (s->congested) {
		m->q -= (t - m->q_t) * m->C;
		if (m->q < 0)
			m->q = 0;
		m->q_t = t;
		if (m->q + L > m->buf) {
			m->drops++;
			s->dropped++;
			if (m->o->sflow) {
				/* the switch tells: a drop notification */
				struct gen_frame df;

				data_frame(m, s, psn, 0, &df);
				gen_sflow_drop(m->o->sflow, &df, gen_now());
			}
			goto next; /* tail drop at the switch: never on the wire */
		}
		if (m->q > m->kmin) {
			double p = m->q >= m->kmax ? 1.0 :
				   m->c->pmax * (m->q - m->kmin) / (m->kmax - m->kmin);
			if (rng_unif() < p) {
				ce = 1;
				m->marks++;
			}
		}
		qdepth = m->q;
		m->q += L;
		if (m->q > m->qmax)
			m->qmax = m->q;
		delay = m->q / m->C;
		arrive = t + delay + m->prop;
	} else {
		delay = L / s->line;
		arrive = t + delay + m->prop;
	}
	{
		struct event e;
		memset(&e, 0, sizeof(e));
		e.t = arrive;
		e.type = EV_ARRIVE;
		e.s = si;
		e.psn = psn;
		e.ce = ce;
		e.qdepth = (uint32_t)qdepth;
		e.delay = (uint32_t)delay;
		push(m, e);
		m->enq++;
	}
next:
	when = t + L / (s->rc < s->line ? s->rc : s->line);
	schedule(m, when, EV_SEND, si);
}

static void receiver_arrive(struct model *m, const struct event *e)
{
	struct sender *s = &m->s[e->s];
	struct gen_frame f;
	uint64_t psn = e->psn, msgidx;
	int pos = msg_pos(m, s, psn, &msgidx);
	int last = pos == m->c->msg_pkts - 1;

	data_frame(m, s, psn, e->ce, &f);
	f.sw_qdepth = e->qdepth;
	f.sw_delay_ns = e->delay;
	emit(m, &f);
	if (m->stop)
		return;

	/* notification point: CNP for a CE-marked packet, at most one per interval per QP */
	if (e->ce && m->now - s->last_cnp >= m->cnp_gap) {
		s->last_cnp = m->now;
		rcv_frame(m, s, K_CNP, 0, 0, &f);
		emit(m, &f);
		feedback(m, e->s, K_CNP, 0);
	}

	/* responder */
	if (psn == s->exp) {
		if (s->rnr_ok && pos == 0 && is_send_msg(msgidx) && rng_unif() < m->c->rnr_prob) {
			/* no receive WQE posted: RNR NAK; wait for the retry */
			rcv_frame(m, s, K_RNR, (uint32_t)psn, AETH_RNR(14), &f);
			emit(m, &f);
			feedback(m, e->s, K_RNR, psn);
			s->nak_out = 1;
			return;
		}
		s->exp++;
		s->nak_out = 0;
		if (last)
			s->msn++;
		s->unacked++;
		if (last || s->unacked >= m->c->ack_every) {
			s->unacked = 0;
			rcv_frame(m, s, K_ACK, (uint32_t)(s->exp - 1), AETH_ACK(AETH_CREDIT_INVALID), &f);
			emit(m, &f);
			feedback(m, e->s, K_ACK, s->exp - 1);
		}
	} else if (psn > s->exp) {
		/* a gap: NAK once (PSN sequence error), drop until the retransmission */
		if (!s->nak_out) {
			s->nak_out = 1;
			rcv_frame(m, s, K_NAK_SEQ, (uint32_t)s->exp, AETH_NAK(0), &f);
			emit(m, &f);
			feedback(m, e->s, K_NAK_SEQ, s->exp);
		}
	} else if (last) {
		/* duplicate that asks for an ACK: ACK what was received */
		rcv_frame(m, s, K_ACK, (uint32_t)(s->exp - 1), AETH_ACK(AETH_CREDIT_INVALID), &f);
		emit(m, &f);
		feedback(m, e->s, K_ACK, s->exp - 1);
	}
}

static void go_back(struct model *m, struct sender *s, uint64_t psn)
{
	if (psn < s->una || psn > s->next)
		return;
	s->una = psn;
	s->retrans += s->next - psn;
	s->next = psn;
	(void)m;
}

static void sender_feedback(struct model *m, const struct event *e)
{
	struct sender *s = &m->s[e->s];

	switch (e->kind) {
	case K_CNP:
		s->cnp_rx++;
		if (!s->dcqcn)
			break;
		s->rt = s->rc;
		s->rc = s->rc * (1 - s->alpha / 2);
		if (s->rc < m->rmin)
			s->rc = m->rmin;
		s->alpha = (1 - m->g) * s->alpha + m->g;
		s->stage = 0;
		s->cnp_seen = 1;
		break;
	case K_ACK:
		if (e->psn + 1 > s->una && e->psn + 1 <= s->next)
			s->una = e->psn + 1;
		break;
	case K_NAK_SEQ:
		go_back(m, s, e->psn);
		break;
	case K_RNR:
		go_back(m, s, e->psn);
		s->blocked_until = m->now + m->rnr_delay;
		break;
	}
}

static void pfc_frame(struct model *m, uint16_t time, struct gen_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->side = SIDE_RCV;
	f->kind = K_PFC;
	memcpy(f->smac, m->c->rcv_mac, 6);
	f->pfc_vec = (uint16_t)(1u << m->storm_prio);
	f->pfc_time[m->storm_prio] = time;
}

static void pfc_tick(struct model *m)
{
	struct gen_frame f;
	double t = m->now;
	double cstart = (double)(uint64_t)(t / m->cycle) * m->cycle;
	double on = cstart + m->storm_start, off = cstart + m->storm_end;

	if (t >= on && t < off) {
		if (!m->storm_on)
			m->storms++;
		m->storm_on = 1;
		pfc_frame(m, 0xffff, &f);
		emit(m, &f);
		m->pause_until[m->storm_prio] = t + 0xffff * m->quantum;
		double nt = t + m->storm_refresh;
		schedule(m, nt < off ? nt : off, EV_PFC, -1);
		return;
	}
	if (m->storm_on) {
		/* end of the storm: XON, and the paused senders resume at once */
		m->storm_on = 0;
		pfc_frame(m, 0, &f);
		emit(m, &f);
		m->pause_until[m->storm_prio] = t;
		for (int i = 0; i < m->n; i++) {
			if (m->s[i].prio == m->storm_prio) {
				m->s[i].gen++;
				schedule(m, t, EV_SEND, i);
			}
		}
	}
	schedule(m, t < on ? on : cstart + m->cycle + m->storm_start, EV_PFC, -1);
}

/* ---- setup ---- */

static uint16_t entropy(uint32_t a, uint32_t b)
{
	uint32_t h = a * 0x9e3779b1u ^ (b + 0x7f4a7c15u) * 0x85ebca6bu;
	h ^= h >> 15;
	return (uint16_t)(0xc000 | (h & 0x3fff));
}

static void add_sender(struct model *m, int group, int k, double rate_frac)
{
	const struct gen_cfg *c = m->c;
	struct sender *s = &m->s[m->n];
	static const int offset[] = { 0, 20, 40 };

	memset(s, 0, sizeof(*s));
	s->group = group;
	s->idx = m->n;
	s->ip = c->src_ip + (uint32_t)offset[group] + (uint32_t)k;
	if (c->have_src_mac) {
		memcpy(s->mac, c->src_mac, 6);
	} else {
		uint8_t mac[6] = { 0x02, 0x77, 0x00, 0x00, 0x01, (uint8_t)s->ip };
		memcpy(s->mac, mac, 6);
	}
	s->sqpn = 0x100 + (uint32_t)m->n + 1;
	s->rqpn = 0x200 + (uint32_t)m->n + 1;
	s->sport_fwd = entropy(s->sqpn, s->rqpn);
	s->sport_rev = entropy(s->rqpn, s->sqpn);
	switch (group) {
	case G_INCAST:
		s->prio = 3; s->dscp = 26; s->congested = 1; s->rnr_ok = 1; s->dcqcn = 1;
		break;
	case G_STEADY:
		s->prio = 1; s->dscp = 10;
		break;
	case G_VICTIM:
		s->prio = c->scenario == SC_MIXED ? 4 : 3;
		s->dscp = c->scenario == SC_MIXED ? 34 : 26;
		break;
	}
	s->line = m->C;
	s->rc = s->rt = m->C * rate_frac;
	s->alpha = 1.0;
	s->ipsn = rng_next() & 0xffffff;
	s->next = s->una = s->una_at_check = s->exp = s->ipsn;
	s->last_cnp = -1e18;
	m->n++;
}

static double frame_bytes(const struct gen_cfg *c)
{
	return 14 + (c->vlan >= 0 ? 4 : 0) + 20 + 8 + 12 + 2 + c->payload + 4; /* RETH averaged */
}

/* ---- the fixed mix ---- */

static void run_fixed(const struct gen_cfg *c, struct gen_out *o)
{
	struct model m;
	struct sender s[2];
	struct gen_frame f;

	memset(&m, 0, sizeof(m));
	m.c = c;
	m.o = o;
	m.s = s;
	m.C = c->link_gbps / 8;
	add_sender(&m, G_INCAST, 0, 1);
	add_sender(&m, G_INCAST, 1, 1);
	for (uint64_t j = 0;; j++) {
		int slot = (int)(j % 25);
		struct sender *a = &s[0], *b = &s[1];
		if (slot < 12) {
			data_frame(&m, a, a->next++, slot >= 10, &f);
		} else if (slot < 15) {
			data_frame(&m, b, b->next++, 0, &f);
			if (slot == 12) {
				f.ecn = 0;
				f.dscp = 0;
			} else if (slot == 13) {
				f.ecn = 1;
			}
		} else if (slot == 15) {
			rcv_frame(&m, a, K_CNP, 0, 0, &f);
		} else if (slot == 16) {
			rcv_frame(&m, a, K_ACK, (uint32_t)(a->next - 1), AETH_ACK(AETH_CREDIT_INVALID), &f);
		} else if (slot == 17) {
			rcv_frame(&m, b, K_ACK, (uint32_t)(b->next - 1), AETH_ACK(AETH_CREDIT_INVALID), &f);
		} else if (slot == 18) {
			rcv_frame(&m, a, K_NAK_SEQ, (uint32_t)(a->next - 3), AETH_NAK(0), &f);
		} else if (slot == 19) {
			rcv_frame(&m, b, K_RNR, (uint32_t)(b->next - 1), AETH_RNR(14), &f);
		} else if (slot == 20) {
			rcv_frame(&m, a, K_NAK_OTHER, (uint32_t)(a->next - 1), AETH_NAK(1), &f);
		} else if (slot <= 23) {
			memset(&f, 0, sizeof(f));
			f.side = SIDE_RCV;
			f.kind = K_PFC;
			memcpy(f.smac, c->rcv_mac, 6);
			if (slot == 21) {
				f.pfc_vec = 1 << 3;
				f.pfc_time[3] = 0xffff;
			} else if (slot == 22) {
				f.pfc_vec = 1 << 3; /* XON */
			} else {
				f.pfc_vec = 1 << 1 | 1 << 3;
				f.pfc_time[1] = 100;
				f.pfc_time[3] = 200;
			}
		} else {
			memset(&f, 0, sizeof(f));
			f.side = SIDE_RCV;
			f.kind = K_PAUSE;
			memcpy(f.smac, c->rcv_mac, 6);
			f.pause_time = 0x100;
		}
		if (gen_emit(o, &f, -1))
			break;
	}
}

/* ---- the model ---- */

/* The model's constants, from the link's speed and the switch's settings. */
static void model_init(struct model *m, const struct gen_cfg *c, struct gen_out *o)
{
	memset(m, 0, sizeof(*m));
	m->c = c;
	m->o = o;
	m->C = c->link_gbps / 8;                 /* bytes per ns */
	m->kmin = c->kmin_kb * 1024;
	m->kmax = c->kmax_kb * 1024;
	m->buf = c->buffer_kb * 1024;
	m->prop = 1000;                          /* 1 us each way */
	m->cnp_gap = c->cnp_interval_us * 1000;
	m->rnr_delay = 20000;                    /* 20 us */
	m->rto = 2 * m->buf / m->C + 20000;      /* twice the worst queueing delay + 20 us */
	m->alpha_period = 55000;                 /* 55 us */
	m->rinc_period = 50000;                  /* 50 us */
	m->g = 1.0 / 16;
	m->rai = m->C / 50;
	m->rmin = m->C / 100;
	m->quantum = 512.0 / c->link_gbps;       /* ns per pause quantum */
}

/* PFC storms, planned in wall time: in each cycle of min(duration, 10 s),
 * pause from 15% to 60% of it, refreshed every half pause time (or every
 * 5 ms of wall time if that is sooner, so that the pauses also cover most
 * of the wall time at the lab's link speed, as a real storm's do), then XON */
static void plan_storms(struct model *m)
{
	const struct gen_cfg *c = m->c;
	double cyc_wall = c->duration < 10 ? c->duration : 10;
	double to_model = 1.0 / m->o->wall_per_model_ns;

	m->storm_prio = c->scenario == SC_MIXED ? 4 : 3;
	m->cycle = cyc_wall * to_model;
	m->storm_start = 0.15 * m->cycle;
	m->storm_end = 0.6 * m->cycle;
	m->storm_refresh = 0xffff * m->quantum / 2;
	if (0.005 * to_model < m->storm_refresh)
		m->storm_refresh = 0.005 * to_model;
	schedule(m, m->storm_start, EV_PFC, -1);
}

/* The scenario's senders (incast, steady, victims of PFC storms), the model
 * time's pace in wall time, and the storms. 0, or -1 out of memory. */
static int add_senders(struct model *m)
{
	const struct gen_cfg *c = m->c;
	struct gen_out *o = m->o;
	int nsend, nsteady = 0, nvict = 0, ninc = 0;
	double steady_frac = 0, vict_frac = 0, nominal_pps;

	switch (c->scenario) {
	case SC_INCAST: ninc = c->senders; break;
	case SC_STEADY: nsteady = c->senders; steady_frac = 0.6 / c->senders; break;
	case SC_PFC_STORM:
		nvict = c->senders / 2 > 0 ? c->senders / 2 : 1;
		nsteady = c->senders - nvict > 0 ? c->senders - nvict : 1;
		vict_frac = 0.4 / nvict;
		steady_frac = 0.4 / nsteady;
		break;
	case SC_MIXED:
		ninc = c->senders;
		nsteady = 2;
		nvict = 2;
		steady_frac = 0.1;
		vict_frac = 0.1;
		break;
	}
	nsend = ninc + nsteady + nvict;
	m->s = calloc((size_t)nsend, sizeof(*m->s));
	if (!m->s)
		return -1;
	for (int k = 0; k < ninc; k++)
		add_sender(m, G_INCAST, k, 1.0);
	for (int k = 0; k < nsteady; k++)
		add_sender(m, G_STEADY, k, steady_frac);
	for (int k = 0; k < nvict; k++)
		add_sender(m, G_VICTIM, k, vict_frac);

	/* map model time to wall time so that the nominal load matches --rate */
	nominal_pps = ((ninc ? m->C : 0) + m->C * (steady_frac * nsteady + vict_frac * nvict)) * 1e9 /
		      frame_bytes(c);
	nominal_pps *= 1.0 + 1.0 / c->ack_every + 1.0 / c->msg_pkts;
	o->wall_per_model_ns = 0.9 * 1e-9 * nominal_pps / c->rate; /* a little ahead; --rate caps */
	if (nvict)
		plan_storms(m);
	return 0;
}

/* One event of the model, at its time. */
static void model_event(struct model *m, struct event *e)
{
	struct sender *s = e->s >= 0 ? &m->s[e->s] : NULL;

	switch (e->type) {
	case EV_SEND:
		sender_send(m, e->s, e->gen);
		break;
	case EV_ARRIVE:
		receiver_arrive(m, e);
		break;
	case EV_FB:
		sender_feedback(m, e);
		break;
	case EV_ALPHA:
		if (!s->cnp_seen)
			s->alpha *= 1 - m->g;
		s->cnp_seen = 0;
		schedule(m, m->now + m->alpha_period, EV_ALPHA, e->s);
		break;
	case EV_RINC:
		if (s->rc < s->line) {
			/* fast recovery for 5 periods, then additive increase */
			if (++s->stage > 5)
				s->rt = s->rt + m->rai < s->line ? s->rt + m->rai : s->line;
			s->rc = (s->rt + s->rc) / 2;
		}
		schedule(m, m->now + m->rinc_period, EV_RINC, e->s);
		break;
	case EV_RTO:
		if (s->una == s->una_at_check && s->next > s->una) {
			s->timeouts++;
			go_back(m, s, s->una);
		}
		s->una_at_check = s->una;
		schedule(m, m->now + m->rto, EV_RTO, e->s);
		break;
	case EV_PFC:
		pfc_tick(m);
		break;
	}
}

/* What the model did, for the tally's extra lines. */
static void model_report(const struct model *m, char *extra, size_t extra_len)
{
	uint64_t retrans = 0, timeouts = 0, sent = 0;
	for (int i = 0; i < m->n; i++) {
		retrans += m->s[i].retrans;
		timeouts += m->s[i].timeouts;
		sent += m->s[i].sent;
	}
	int w = snprintf(extra, extra_len,
			 "model_time_us %.1f\nmodel_wall_per_model_s %.3f\nmodel_senders %d\n"
			 "model_data_sent_by_senders %llu\nmodel_switch_drops %llu\nmodel_ce_marked %llu\n"
			 "model_queue_max_bytes %.0f\nmodel_retransmitted %llu\nmodel_timeouts %llu\n"
			 "model_pfc_storms %llu\n",
			 m->now / 1000, m->o->wall_per_model_ns * 1e9, m->n, (unsigned long long)sent,
			 (unsigned long long)m->drops, (unsigned long long)m->marks, m->qmax,
			 (unsigned long long)retrans, (unsigned long long)timeouts,
			 (unsigned long long)m->storms);
	for (int i = 0; i < m->n && w > 0 && (size_t)w < extra_len; i++) {
		char a[16];
		snprintf(a, sizeof(a), "%u.%u.%u.%u", m->s[i].ip >> 24, (m->s[i].ip >> 16) & 255,
			 (m->s[i].ip >> 8) & 255, m->s[i].ip & 255);
		w += snprintf(extra + w, extra_len - (size_t)w,
			      "sender %s qp %u -> qp %u prio %d dscp %d rate_gbps %.2f cnp_rx %llu\n", a,
			      m->s[i].sqpn, m->s[i].rqpn, m->s[i].prio, m->s[i].dscp, m->s[i].rc * 8,
			      (unsigned long long)m->s[i].cnp_rx);
	}
}

void gen_run(const struct gen_cfg *c, struct gen_out *o, char *extra, size_t extra_len)
{
	struct model m;

	rng_state = c->seed;
	if (c->scenario == SC_FIXED) {
		run_fixed(c, o);
		snprintf(extra, extra_len, "model none\n");
		return;
	}
	model_init(&m, c, o);
	if (add_senders(&m)) {
		fprintf(stderr, "rocetop-gen: out of memory.\n");
		o->fatal = 1;
		return;
	}
	for (int i = 0; i < m.n; i++) {
		/* start staggered by a packet time so that senders interleave */
		schedule(&m, i * frame_bytes(c) / m.C / m.n, EV_SEND, i);
		if (m.s[i].dcqcn) {
			schedule(&m, m.alpha_period, EV_ALPHA, i);
			schedule(&m, m.rinc_period, EV_RINC, i);
		}
		schedule(&m, m.rto, EV_RTO, i);
	}

	double end_model = c->duration / o->wall_per_model_ns;
	while (!m.stop && m.nh) {
		struct event e = pop(&m);

		m.now = e.t;
		if (m.now > end_model + 1e-3 / o->wall_per_model_ns || gen_should_stop(o))
			break;
		model_event(&m, &e);
	}
	if (!o->stop_reason && !gen_stop_signal && !o->fatal) {
		/* the model ran out of time: wait for the end of the run */
		gen_wait_end(o);
	}
	model_report(&m, extra, extra_len);
	free(m.h);
	free(m.s);
}
