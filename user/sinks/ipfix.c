// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --ipfix [udp:|tcp:]HOST:PORT: one IPFIX (RFC 7011) data record per flow
 * that counted packets in the interval, built with libfixbuf and sent to a
 * flow collector (pmacct's nfacctd, nfdump, Akvorado, ...). The records hold
 * the interval's deltas, so the records of a flow sum to its totals, as
 * flows.csv's rows do. The element list, the enterprise number and its
 * elements are documented in man/rocetop.8 (IPFIX EXPORT) and below.
 *
 * libfixbuf writes each message into our buffer (fbExporterAllocBuffer);
 * ipfix_net.c sends it, so a slow or absent collector never blocks the loop.
 * Templates go first in every transport session (a TCP connection, made again
 * when the collector restarts, or the UDP socket) and, over UDP, again every
 * RT_IPFIX_TMPL_SECS of the snapshots' clock (capture time for files).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <fixbuf/public.h>
#include "derive.h"
#include "ipfix.h"
#include "log.h"
#include "sink.h"
#include "sinks.h"

#define RT_IPFIX_TMPL_SECS	30
/* The enterprise number of rocetop's own elements: 32473, which IANA keeps
 * for documentation (RFC 5612), a placeholder until the project has its own. */
#define RT_IPFIX_PEN		32473
#define TID_INT			999	/* the record in memory */
#define TID_V4			256	/* on the wire: IPv4 flows */
#define TID_V6			257	/* ... IPv6 flows */
#define F_V4			1	/* spec flags: which templates take an element */
#define F_V6			2
#define F_INT			4	/* padding: the memory layout only */
#define UDP_MSG			1400	/* below a 1500-byte path MTU with headers */
#define TCP_MSG			65000

#define PEN_U64(name, num, units) \
	FB_IE_INIT_FULL(name, RT_IPFIX_PEN, num, 8, FB_IE_F_ENDIAN | FB_IE_DELTACOUNTER | (units), 0, 0, \
			FB_UINT_64, NULL)
#define PEN_ID32(name, num) \
	FB_IE_INIT_FULL(name, RT_IPFIX_PEN, num, 4, FB_IE_F_ENDIAN | FB_IE_IDENTIFIER, 0, 0, FB_UINT_32, NULL)

/* man/rocetop.8 lists these with their meaning; numbers are never reused. */
static fbInfoElement_t pen_elements[] = {
	PEN_ID32("rocetopDestinationQP", 1),
	PEN_ID32("rocetopLocalQP", 2),
	PEN_ID32("rocetopRemoteQP", 3),
	PEN_ID32("rocetopProcessId", 4),
	FB_IE_INIT_FULL("rocetopProcessName", RT_IPFIX_PEN, 5, FB_IE_VARLEN, FB_IE_DEFAULT, 0, 0, FB_STRING, NULL),
	PEN_U64("rocetopNotEctDeltaCount", 6, FB_UNITS_PACKETS),
	PEN_U64("rocetopEct0DeltaCount", 7, FB_UNITS_PACKETS),
	PEN_U64("rocetopEct1DeltaCount", 8, FB_UNITS_PACKETS),
	PEN_U64("rocetopCeDeltaCount", 9, FB_UNITS_PACKETS),
	PEN_U64("rocetopCnpDeltaCount", 10, FB_UNITS_PACKETS),
	PEN_U64("rocetopAckDeltaCount", 11, FB_UNITS_PACKETS),
	PEN_U64("rocetopNakSeqDeltaCount", 12, FB_UNITS_PACKETS),
	PEN_U64("rocetopNakOtherDeltaCount", 13, FB_UNITS_PACKETS),
	PEN_U64("rocetopRnrNakDeltaCount", 14, FB_UNITS_PACKETS),
	FB_IE_INIT_FULL("rocetopPriority", RT_IPFIX_PEN, 15, 1, FB_IE_IDENTIFIER, 0, 7, FB_UINT_8, NULL),
	PEN_U64("rocetopPfcPauseDeltaCount", 16, FB_UNITS_FRAMES),
	PEN_U64("rocetopPfcQuantaDeltaCount", 17, 0),
	FB_IE_INIT_FULL("rocetopEstimate", RT_IPFIX_PEN, 18, 1, FB_IE_DEFAULT, 0, 1, FB_UINT_8, NULL),
	FB_IE_NULL
};

/* The record in memory, in the order of spec[] (no gaps: libfixbuf copies
 * each element from where the internal template says it is). */
struct ipx_rec {
	__u64 start_ms, end_ms, octets, packets;
	__u64 ecn[4];		/* not-ECT, ECT(0), ECT(1), CE */
	__u64 cnp, ack, nak_seq, nak_other, rnr_nak, pfc_frames, pfc_quanta;
	fbVarfield_t comm;
	__u8 src6[16], dst6[16];
	__u32 src4, dst4, in_if, out_if, dqpn, lqpn, rqpn, pid;	/* host order */
	__u16 sport, dport;
	__u8 proto, dscp, dir, prio, estimate, pad[3];
};
_Static_assert(sizeof(struct ipx_rec) == 216, "struct ipx_rec has no gaps");

static fbInfoElementSpec_t spec[] = {
	{ "flowStartMilliseconds", 8, 0 },
	{ "flowEndMilliseconds", 8, 0 },
	{ "octetDeltaCount", 8, 0 },
	{ "packetDeltaCount", 8, 0 },
	{ "rocetopNotEctDeltaCount", 8, 0 },
	{ "rocetopEct0DeltaCount", 8, 0 },
	{ "rocetopEct1DeltaCount", 8, 0 },
	{ "rocetopCeDeltaCount", 8, 0 },
	{ "rocetopCnpDeltaCount", 8, 0 },
	{ "rocetopAckDeltaCount", 8, 0 },
	{ "rocetopNakSeqDeltaCount", 8, 0 },
	{ "rocetopNakOtherDeltaCount", 8, 0 },
	{ "rocetopRnrNakDeltaCount", 8, 0 },
	{ "rocetopPfcPauseDeltaCount", 8, 0 },
	{ "rocetopPfcQuantaDeltaCount", 8, 0 },
	{ "rocetopProcessName", FB_IE_VARLEN, 0 },
	{ "sourceIPv6Address", 16, F_V6 },
	{ "destinationIPv6Address", 16, F_V6 },
	{ "sourceIPv4Address", 4, F_V4 },
	{ "destinationIPv4Address", 4, F_V4 },
	{ "ingressInterface", 4, 0 },
	{ "egressInterface", 4, 0 },
	{ "rocetopDestinationQP", 4, 0 },
	{ "rocetopLocalQP", 4, 0 },
	{ "rocetopRemoteQP", 4, 0 },
	{ "rocetopProcessId", 4, 0 },
	{ "sourceTransportPort", 2, 0 },
	{ "destinationTransportPort", 2, 0 },
	{ "protocolIdentifier", 1, 0 },
	{ "ipDiffServCodePoint", 1, 0 },
	{ "flowDirection", 1, 0 },
	{ "rocetopPriority", 1, 0 },
	{ "rocetopEstimate", 1, 0 },
	{ "paddingOctets", 3, F_INT },
	FB_IESPEC_NULL
};

struct ipx {
	struct rt_ipfix_conn conn;
	fbInfoModel_t *model;
	fBuf_t *fbuf;		/* owns the session and the exporter */
	fbExporter_t *exp;
	uint8_t *msg;		/* where libfixbuf writes each message */
	size_t msg_size;
	int pending;		/* something written since the last message went */
	int cur_tid;
	__u64 tmpl_ns;		/* when the templates went last (snapshots' clock) */
	__u64 records, lost;	/* records made; records of intervals the collector was down */
};

static void say_gerror(const char *what, GError *err)
{
	pr_warn("IPFIX: %s: %s.\n", what, err ? err->message : "unknown error");
	g_clear_error(&err);
}

/* The message libfixbuf has built goes out. */
static int ship(struct ipx *x)
{
	GError *err = NULL;

	if (!x->pending)
		return 0;
	x->pending = 0;
	if (!fBufEmit(x->fbuf, &err)) {
		say_gerror("cannot end a message", err);
		return -EIO;
	}
	rt_ipfix_conn_send(&x->conn, x->msg, fbExporterGetMsgLen(x->exp));
	return 0;
}

static int send_templates(struct ipx *x, __u64 now_ns)
{
	GError *err = NULL;

	if (ship(x))
		return -EIO;
	/* Without automatic mode, libfixbuf first answers "end of message" to
	 * start templates in a message of their own: the message is closed
	 * (empty here), then asked again. */
	if (!fbSessionExportTemplates(fBufGetSession(x->fbuf), &err) &&
	    g_error_matches(err, FB_ERROR_DOMAIN, FB_ERROR_EOM)) {
		g_clear_error(&err);
		fbSessionExportTemplates(fBufGetSession(x->fbuf), &err);
	}
	if (err) {
		say_gerror("cannot write the templates", err);
		return -EIO;
	}
	x->pending = 1;
	x->tmpl_ns = now_ns;
	return 0;
}

static int add_tmpl(fbSession_t *s, fbInfoModel_t *m, int internal, uint16_t tid, uint32_t flags)
{
	fbTemplate_t *t = fbTemplateAlloc(m);
	GError *err = NULL;

	if (!fbTemplateAppendSpecArray(t, spec, flags, &err) ||
	    !fbSessionAddTemplate(s, internal, tid, t, &err)) {
		fbTemplateFreeUnused(t);
		say_gerror("cannot make a template", err);
		return -EINVAL;
	}
	return 0;
}

/* A new transport session: a new libfixbuf session (sequence numbers from 0),
 * its templates first. */
static int session_new(struct ipx *x, __u64 now_ns)
{
	fbSession_t *s;
	GError *err = NULL;

	if (x->fbuf)
		fBufFree(x->fbuf);	/* its session and exporter too */
	x->fbuf = NULL;
	x->pending = 0;
	s = fbSessionAlloc(x->model);
	x->exp = fbExporterAllocBuffer(x->msg, (uint16_t)x->msg_size);
	if (add_tmpl(s, x->model, TRUE, TID_INT, UINT32_MAX) || add_tmpl(s, x->model, FALSE, TID_V4, F_V4) ||
	    add_tmpl(s, x->model, FALSE, TID_V6, F_V6)) {
		fbSessionFree(s);
		return -EINVAL;
	}
	x->fbuf = fBufAllocForExport(s, x->exp);
	fBufSetAutomaticMode(x->fbuf, FALSE);
	if (!fBufSetInternalTemplate(x->fbuf, TID_INT, &err) ||
	    !fBufSetExportTemplate(x->fbuf, TID_V4, &err)) {
		say_gerror("cannot choose a template", err);
		return -EINVAL;
	}
	x->cur_tid = TID_V4;
	fBufSetExportTime(x->fbuf, (uint32_t)(now_ns / 1000000000ULL));
	return send_templates(x, now_ns);
}

/* The PFC frames and quanta of prio counted on the flow's interface in the
 * interval, both directions: the pauses its priority saw there (a capture
 * has one direction for all; live, received ones hold what it sends). The
 * interface's, not the flow's own: not to be summed over flows. */
static void flow_pfc(const struct rt_delta *d, const struct rt_flow *f, __u8 prio, struct ipx_rec *r)
{
	size_t i;

	for (i = 0; i < d->nifs; i++) {
		const struct rt_ifdir_delta *id = &d->ifs[i];

		if (id->s->k.ifindex == f->k.ifindex) {
			r->pfc_frames += id->d.pfc_frames[prio];
			r->pfc_quanta += id->d.pfc_quanta[prio];
		}
	}
}

/* A flow's time on the flows' clock as milliseconds since the epoch (as csv.c). */
static __u64 wall_ms(const struct rt_snapshot *cur, __u64 seen)
{
	__u64 ago = cur->mono_ns > seen ? cur->mono_ns - seen : 0;

	return (cur->time_ns > ago ? cur->time_ns - ago : 0) / 1000000ULL;
}

static void fill(struct ipx_rec *r, const struct rt_snapshot *cur, const struct rt_delta *d,
		 const struct rt_flow_delta *fd)
{
	const struct rt_flow *f = fd->f;
	const struct rt_flow_val *v = &fd->d;

	memset(r, 0, sizeof(*r));
	if (f->k.origin == RT_ORIGIN_WIRE) {
		r->start_ms = wall_ms(cur, v->first_ns);
		r->end_ms = wall_ms(cur, v->last_ns);
	} else {	/* the NIC's counters: the interval */
		r->end_ms = cur->time_ns / 1000000ULL;
		r->start_ms = r->end_ms - (__u64)(d->secs * 1000);
	}
	r->octets = v->bytes;
	r->packets = v->pkts;
	r->ecn[0] = v->ecn[RT_ECN_NOT_ECT];
	r->ecn[1] = v->ecn[RT_ECN_ECT0];
	r->ecn[2] = v->ecn[RT_ECN_ECT1];
	r->ecn[3] = v->ecn[RT_ECN_CE];
	r->cnp = v->cnp;
	r->ack = v->ack;
	r->nak_seq = v->nak_seq;
	r->nak_other = v->nak_other;
	r->rnr_nak = v->rnr_nak;
	r->comm.buf = (uint8_t *)f->comm;
	r->comm.len = strnlen(f->comm, sizeof(f->comm));
	if (f->k.family == 6) {
		memcpy(r->src6, f->k.src, 16);
		memcpy(r->dst6, f->k.dst, 16);
	} else {
		memcpy(&r->src4, f->k.src, 4);
		memcpy(&r->dst4, f->k.dst, 4);
		r->src4 = ntohl(r->src4);
		r->dst4 = ntohl(r->dst4);
	}
	if (f->k.dir == RT_DIR_EGRESS)
		r->out_if = f->k.ifindex;
	else
		r->in_if = f->k.ifindex;
	r->dqpn = f->k.dqpn;
	r->lqpn = f->lqpn;
	r->rqpn = f->rqpn;
	r->pid = f->pid;
	r->sport = v->sport;
	r->dport = 4791;	/* RoCEv2 */
	r->proto = IPPROTO_UDP;
	/* the lowest the flow carried, as --batch --json's prio and dscp
	 * (user/core/derive.h): not the last packet's, which may flip */
	r->dscp = rt_flow_dscp(f);
	r->dir = f->k.dir == RT_DIR_EGRESS;	/* flowDirection: 0 ingress, 1 egress */
	r->prio = rt_flow_prio(f);
	r->estimate = f->estimate ? 1 : 0;
	flow_pfc(d, f, r->prio, r);
}

/* Append one record; a full message goes out and the record starts the next. */
static int append(struct ipx *x, struct ipx_rec *r, int tid)
{
	GError *err = NULL;

	if (tid != x->cur_tid) {
		if (!fBufSetExportTemplate(x->fbuf, (uint16_t)tid, &err)) {
			say_gerror("cannot choose a template", err);
			return -EIO;
		}
		x->cur_tid = tid;
	}
	if (fBufAppend(x->fbuf, (uint8_t *)r, sizeof(*r), &err)) {
		x->pending = 1;
		return 0;
	}
	if (!g_error_matches(err, FB_ERROR_DOMAIN, FB_ERROR_EOM)) {
		say_gerror("cannot write a record", err);
		return -EIO;
	}
	g_clear_error(&err);
	if (ship(x))
		return -EIO;
	if (!fBufAppend(x->fbuf, (uint8_t *)r, sizeof(*r), &err)) {
		say_gerror("cannot write a record", err);
		return -EIO;
	}
	x->pending = 1;
	return 0;
}

static int ipx_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct ipx *x = s->priv;
	struct ipx_rec r;
	size_t i;
	int n;

	n = rt_ipfix_conn_tick(&x->conn);
	if (n > 0 && session_new(x, cur->time_ns))
		return -EIO;
	if (!x->fbuf || x->conn.state == RT_IPX_DOWN) {
		for (i = 0; i < d->nflows; i++)
			x->lost += d->flows[i].d.pkts != 0;
		return 0;
	}
	fBufSetExportTime(x->fbuf, (uint32_t)(cur->time_ns / 1000000000ULL));
	if (!x->conn.dest.tcp && cur->time_ns >= x->tmpl_ns + RT_IPFIX_TMPL_SECS * 1000000000ULL &&
	    send_templates(x, cur->time_ns))
		return -EIO;
	for (i = 0; i < d->nflows; i++) {
		if (!d->flows[i].d.pkts)	/* as flows.csv: flows that counted */
			continue;
		fill(&r, cur, d, &d->flows[i]);
		if (append(x, &r, d->flows[i].f->k.family == 6 ? TID_V6 : TID_V4))
			return -EIO;
		x->records++;
	}
	return ship(x);	/* the interval's records go now */
}

static void ipx_close(struct rt_sink *s)
{
	struct ipx *x = s->priv;

	if (x->fbuf && x->conn.state != RT_IPX_DOWN)
		ship(x);
	rt_ipfix_conn_close(&x->conn, 2000);
	pr_debug("IPFIX: %llu records, %llu messages sent, %llu dropped, %llu records of intervals the collector was down.\n",
		 (unsigned long long)x->records, (unsigned long long)x->conn.msgs,
		 (unsigned long long)x->conn.dropped, (unsigned long long)x->lost);
	if (x->fbuf)
		fBufFree(x->fbuf);
	if (x->model)
		fbInfoModelFree(x->model);
	free(x->msg);
	rt_sink_free(s);
}

struct rt_sink *rt_ipfix_sink_new(const struct rt_ipfix_cfg *c)
{
	struct rt_ipfix_dest dest;
	struct rt_sink *s;
	struct ipx *x;

	if (rt_ipfix_parse(c->dest, &dest)) {
		pr_warn("--ipfix '%s' is not valid: give [udp:|tcp:]HOST:PORT, e.g. 192.0.2.1:4739 or tcp:[2001:db8::1]:4739.\n",
			c->dest);
		return NULL;
	}
	s = rt_sink_new("ipfix", sizeof(struct ipx), ipx_emit, ipx_close);
	if (!s)
		return NULL;
	x = s->priv;
	x->msg_size = dest.tcp ? TCP_MSG : UDP_MSG;
	x->msg = malloc(x->msg_size);
	x->model = fbInfoModelAlloc();
	if (!x->msg || !x->model)
		goto oom;
	fbInfoModelAddElementArray(x->model, pen_elements);
	rt_ipfix_conn_init(&x->conn, &dest);
	return s;
oom:
	pr_warn("out of memory.\n");
	free(x->msg);
	if (x->model)
		fbInfoModelFree(x->model);
	rt_sink_free(s);
	return NULL;
}
