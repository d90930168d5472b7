// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --csv DIR: DIR/flows.csv, DIR/pfc.csv, DIR/stats.csv, DIR/ports.csv and
 * DIR/findings.csv (one row per finding event: open, update, close),
 * DIR/qpctr.csv (the counters bound to QPs, every one by name); with --probe
 * (or a recording's probe rows) DIR/probes.csv, the probe mesh's rows.
 * A header once, then per interval one row per key that changed, holding that
 * interval's deltas, so the rows of a key sum to its totals. Flushed every
 * interval. The columns are documented in the README and the man page; new
 * columns are only ever appended.
 *
 * Safety (rocetop runs as root): the directory must not be writable by other
 * users, files are opened without following links (outfile.c), text fields
 * are quoted as RFC 4180 says, and a failed write (a full disk) truncates
 * each file back to its last whole row before the run ends with the error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <net/if.h>
#include "findings.h"
#include "fmt.h"
#include "derive.h"
#include "host.h"
#include "linkspeed.h"
#include "log.h"
#include "outfile.h"
#include "sf_drop.h"
#include "sink.h"
#include "source.h"
#include "sinks.h"

#define FLOWS_HDR "time,ifname,dir,src,dst,dqpn,pkts,bytes,not_ect,ect0,ect1,ce,cnp,ack,nak,rnr_nak," \
		  "nak_seq,nak_other,dscp,pcp,sport,lqpn,pid,comm,first_seen,last_seen,samples,origin,mirror," \
		  "job_kind,job,step,rank,size,prios,dscps\n"
#define PFC_HDR   "time,ifname,dir,prio,frames,xon,quanta,paused_seconds\n"
#define STATS_HDR "time,ifname,dir,frames,bytes,roce,not_roce,pause,truncated,malformed," \
		  "v6_unparsed,table_full,evicted,mirrored\n"
#define META_HDR  "ifname,link_speed_mbps,link_speed_from,mtu,pfc_enabled,host,kernel,rocetop,options\n"
#define FINDINGS_HDR "time,event,rule,severity,start,end,subject,evidence,id,next,involved\n"
#define PORTS_HDR "time,device,port,netdev,counter,value,delta,scope\n"
#define QPCTR_HDR "time,device,port,netdev,lqpn,nqps,rqpn,pid,comm,counter,value,delta\n"
#define SWPORTS_HDR "time,agent,port,dir,samples,est_pkts,est_bytes,est_ce,est_cnp,max_queue_bytes," \
		    "mean_queue_bytes,max_transit_ns,mean_transit_ns,ce_pct,queue,speed_bps,util_pct," \
		    "in_discards,out_discards,in_errors,out_errors,drops,agent_dgrams_lost,counter_samples\n"
#define DROPS_HDR "time,agent,port,reason,reason_code,drops\n"
/* rocetop probe --csv's columns (user/cmd/probe.c) */
#define PROBES_HDR "time,peer,flow_label,udp_sport,size,sent,lost,rtt_p50_us,rtt_p99_us,net_p50_us," \
		   "resp_p50_us,clock,answered,finding\n"

enum { C_FLOWS, C_PFC, C_STATS, C_PORTS, C_SWPORTS, C_DROPS, C_QPCTR, C_FINDINGS, C_PROBES, C__N };

struct csv {
	FILE *flows, *pfc, *stats, *ports;
	FILE *swports, *drops;	/* with --sflow */
	FILE *findings;
	FILE *qpctr;
	FILE *probes;		/* with --probe, or rows in a recording */
	int qp_seen;		/* qpctr.csv: the first interval written in full */
	const struct rt_flow **qpf;	/* the NIC's ingress flows by lqpn, this interval */
	size_t nqpf, qpf_cap;
	off_t good[C__N];	/* each file's length after its last whole row */
	int failed;
	__u64 speed_given;	/* --link-speed */
	int meta_done;		/* meta.csv written (at the first interval) */
	char host[64], kernel[200], version[200], options[1024];	/* for meta.csv */
	char dir[4096];
	char out[65536];	/* flows.csv rows go out in large writes, not one each */
};

/*
 * Row building without printf: flows.csv has a row per active flow and
 * interval, so at 100k flows this is most of an interval's CPU time. Rows
 * are written straight into the sink's buffer (c->out), each field followed
 * by its comma; the buffer goes out in large writes.
 */
#define ROW_MAX	(1536 + 2 * RT_BITS_STRLEN)	/* a row at its longest: every number at 20
						 * digits, names quoted, all 8 priorities and
						 * 64 DSCPs */

static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline unsigned int ndigits(__u64 v)
{
	unsigned int n = 1;

	while (v >= 10000) {
		v /= 10000;
		n += 4;
	}
	if (v >= 100) {
		v /= 100;
		n += 2;
	}
	return n + (v >= 10);
}

/* v in decimal at p, then a comma; returns the end. Small values (most
 * counters of a quiet flow) take one branch. */
static inline char *put_u64(char *p, __u64 v)
{
	char *e;
	unsigned int n;

	if (v < 10) {
		p[0] = (char)('0' + v);
		p[1] = ',';
		return p + 2;
	}
	n = ndigits(v);
	e = p + n;
	*e = ',';
	while (v >= 100) {
		unsigned int d = (unsigned int)(v % 100) * 2;

		v /= 100;
		e -= 2;
		memcpy(e, digits2 + d, 2);
	}
	if (v >= 10) {
		e -= 2;
		memcpy(e, digits2 + v * 2, 2);
	} else {
		*--e = (char)('0' + v);
	}
	return p + n + 1;
}

/* A field already safe for CSV, of known length. */
static inline char *put_mem(char *p, const char *s, size_t len)
{
	memcpy(p, s, len);
	p[len] = ',';
	return p + len + 1;
}

static inline char *put_str(char *p, const char *s)
{
	return put_mem(p, s, strlen(s));
}

/* A text field from outside (interface, process name): quoted if need be. */
static char *put_text(char *p, const char *s)
{
	char q[2 * 64 + 4];

	return put_str(p, rt_fmt_csv(s, q, sizeof(q)));
}

/* A set of priorities or DSCPs since the flow began (user/core/derive.h),
 * as rt_fmt_bits() writes it: "3" or, quoted, "3,6". */
static char *put_bits(char *p, __u64 bits)
{
	int many = (bits & (bits - 1)) != 0;

	if (many)
		*p++ = '"';
	for (int first = 1; bits; bits &= bits - 1, first = 0) {
		unsigned int b = (unsigned int)__builtin_ctzll(bits);

		if (!first)
			*p++ = ',';
		if (b >= 10)
			*p++ = (char)('0' + b / 10);
		*p++ = (char)('0' + b % 10);
	}
	if (many)
		*p++ = '"';
	*p++ = ',';
	return p;
}

/* Rows come sorted by key, so neighbours share addresses: format each once. */
struct addr_cache {
	__u8 family;
	__u8 addr[16];
	char text[RT_ADDR_STRLEN];
	size_t len;
};

static inline __attribute__((always_inline)) char *put_addr(char *p, struct addr_cache *c, __u8 family,
							   const __u8 *addr)
{
	if (!c->len || c->family != family || memcmp(c->addr, addr, 16)) {
		c->family = family;
		memcpy(c->addr, addr, 16);
		if (family == 4) {	/* dotted quad by hand: what inet_ntop writes */
			char *q = c->text;

			for (int i = 0; i < 4; i++) {
				q = put_u64(q, addr[i]);
				q[-1] = '.';
			}
			*--q = '\0';
			c->len = (size_t)(q - c->text);
		} else {
			rt_fmt_addr(family, addr, c->text, sizeof(c->text));
			c->len = strlen(c->text);
		}
	}
	return put_mem(p, c->text, c->len);
}

/* The seconds of a time as text, kept from one row to the next: neighbours'
 * first and last packets mostly fall in the same second; and the whole field
 * of the last time written, which the next row often repeats (a live flow
 * that changed was last seen at the interval's read, and flows that came
 * together were first seen at the same read). */
struct sec_cache {
	__u64 sec;
	char text[24];
	size_t len;		/* 0: nothing kept yet */
	__u64 seen;		/* the time whose whole field is in field (flen > 0) */
	char field[32];		/* "seconds.microseconds," */
	size_t flen;
};

/* A flow's first/last seen (the flows' clock, mono_ns) as wall-clock seconds. */
static inline __attribute__((always_inline)) char *put_seen(char *p, const struct rt_snapshot *cur,
							   struct sec_cache *c, __u64 seen)
{
	__u64 ago, t, sec;
	unsigned int us;
	char *start = p;

	if (c->flen && c->seen == seen) {	/* the last row's time again */
		memcpy(p, c->field, sizeof(c->field));	/* whole: a fixed-size copy */
		return p + c->flen;
	}
	ago = cur->mono_ns > seen ? cur->mono_ns - seen : 0;
	t = cur->time_ns > ago ? cur->time_ns - ago : 0;
	sec = t / 1000000000ULL;
	us = (unsigned int)(t - sec * 1000000000ULL) / 1000;
	/* seconds.microseconds, as "%llu.%06llu" would print it */
	if (!c->len || c->sec != sec) {
		c->sec = sec;
		c->len = (size_t)(put_u64(c->text, sec) - c->text);
		c->text[c->len - 1] = '.';
	}
	memcpy(p, c->text, sizeof(c->text));	/* whole: a fixed-size copy */
	p += c->len;
	memcpy(p, digits2 + us / 10000 * 2, 2);
	memcpy(p + 2, digits2 + us / 100 % 100 * 2, 2);
	memcpy(p + 4, digits2 + us % 100 * 2, 2);
	p[6] = ',';
	p += 7;
	c->seen = seen;
	c->flen = (size_t)(p - start);	/* at most 20 digits, '.', 6 and ',' = 28 */
	memcpy(c->field, start, c->flen);
	return p;
}

/* The owner's job (user/core/job.h): kind, job, step, rank, size; empty without. */
static char *put_job(char *p, const struct rt_job *j)
{
	char q[2 * RT_JOB_NAME_LEN + 4];

	if (!j) {
		memcpy(p, ",,,,,", 5);
		return p + 5;
	}
	p = put_str(p, rt_job_kind_name(j->kind));
	p = put_str(p, rt_fmt_csv(j->job, q, sizeof(q)));
	p = put_str(p, rt_fmt_csv(j->step, q, sizeof(q)));
	p = j->rank >= 0 ? put_u64(p, (__u64)j->rank) : put_mem(p, "", 0);
	return j->size >= 0 ? put_u64(p, (__u64)j->size) : put_mem(p, "", 0);
}

static void write_flows(struct csv *c, const struct rt_snapshot *cur, const struct rt_delta *d,
			const char *ts)
{
	struct addr_cache src = { 0 }, dst = { 0 };
	struct sec_cache first = { 0 }, last = { 0 };
	__u32 ifindex = 0;
	char ifq[2 * IF_NAMESIZE + 4 + 64 * 2];	/* the interface, quoted if need be */
	size_t i, tslen = strlen(ts), iflen = 0;
	int have_if = 0;
	char *p = c->out, *end = c->out + sizeof(c->out) - ROW_MAX;

	for (i = 0; i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		const struct rt_flow_val *v = &d->flows[i].d;

		if (i + 4 < d->nflows) {	/* rows come in key order, not in the table's */
			const char *n = (const char *)d->flows[i + 4].f;

			/* its first 64 bytes: key, estimate, lqpn, pid */
			__builtin_prefetch(n);
			__builtin_prefetch(n + 63);
		}
		if (!v->pkts)
			continue;
		if (!have_if || f->k.ifindex != ifindex) {
			ifindex = f->k.ifindex;
			rt_fmt_csv(rt_snapshot_ifname(cur, ifindex), ifq, sizeof(ifq));
			iflen = strlen(ifq);
			have_if = 1;
		}
		if (p > end) {
			fwrite(c->out, 1, (size_t)(p - c->out), c->flows);
			p = c->out;
		}
		p = put_mem(p, ts, tslen);
		p = put_mem(p, ifq, iflen);
		p = f->k.dir == RT_DIR_EGRESS ? put_mem(p, "egress", 6) : put_mem(p, "ingress", 7);
		p = put_addr(p, &src, f->k.family, f->k.src);
		p = put_addr(p, &dst, f->k.family, f->k.dst);
		p = put_u64(p, f->k.dqpn);
		p = put_u64(p, v->pkts);
		p = put_u64(p, v->bytes);
		p = put_u64(p, v->ecn[RT_ECN_NOT_ECT]);
		p = put_u64(p, v->ecn[RT_ECN_ECT0]);
		p = put_u64(p, v->ecn[RT_ECN_ECT1]);
		p = put_u64(p, v->ecn[RT_ECN_CE]);
		p = put_u64(p, v->cnp);
		p = put_u64(p, v->ack);
		p = put_u64(p, rt_nak(v));
		p = put_u64(p, v->rnr_nak);
		p = put_u64(p, v->nak_seq);
		p = put_u64(p, v->nak_other);
		p = put_u64(p, rt_flow_dscp(f));	/* the lowest it carried, as --batch --json */
		if (v->pcp == RT_PCP_NONE)
			*p++ = ',';
		else
			p = put_u64(p, v->pcp);
		p = put_u64(p, v->sport);
		if (f->lqpn || f->pid) {
			p = put_u64(p, f->lqpn);
			p = put_u64(p, f->pid);
			p = put_text(p, f->comm);
		} else {
			memcpy(p, ",,,", 3);	/* lqpn, pid and comm left empty */
			p += 3;
		}
		if (f->k.origin == RT_ORIGIN_WIRE) {
			p = put_seen(p, cur, &first, v->first_ns);
			p = put_seen(p, cur, &last, v->last_ns);
		} else {
			memcpy(p, ",,", 2);	/* the NIC's counters have no first/last packet */
			p += 2;
		}
		if (f->estimate)
			p = put_u64(p, d->flows[i].samples);
		else
			*p++ = ',';	/* exact: no samples */
		if (f->k.origin == RT_ORIGIN_NIC)
			p = put_mem(p, "nic", 3);
		else
			p = put_mem(p, "wire", 4);
		if (f->k.mirror) {
			char m[RT_MIRROR_STRLEN];

			p = put_str(p, rt_fmt_mirror(&f->k, m, sizeof(m)));
		} else {
			*p++ = ',';	/* seen directly: mirror left empty */
		}
		p = put_job(p, rt_snapshot_job(cur, f));
		p = put_bits(p, rt_flow_prios(f));
		p = put_bits(p, rt_flow_dscps(f));
		p[-1] = '\n';	/* the last column's comma */
	}
	fwrite(c->out, 1, (size_t)(p - c->out), c->flows);
}

static int by_lqpn(const void *a, const void *b)
{
	__u32 x = (*(const struct rt_flow *const *)a)->lqpn, y = (*(const struct rt_flow *const *)b)->lqpn;

	return x < y ? -1 : x > y;
}

/* The NIC's ingress flows of this snapshot by local QP, once per interval. */
static void index_qp_flows(struct csv *c, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	size_t i;

	c->nqpf = 0;
	/* Only qpctr.csv rows look flows up: no per-QP counter, no walk over
	 * every flow (which would cost O(N) an interval). */
	for (i = 0; i < d->nports && d->ports[i].c->scope != RT_SCOPE_QP; i++)
		;
	if (i == d->nports)
		return;
	for (i = 0; i < cur->nflows; i++) {
		const struct rt_flow *f = &cur->flows[i];

		if (f->k.origin != RT_ORIGIN_NIC || f->k.dir != RT_DIR_INGRESS)
			continue;
		if (rt_grow_for((void **)&c->qpf, &c->qpf_cap, c->nqpf + 1, sizeof(*c->qpf)))
			break;
		c->qpf[c->nqpf++] = f;
	}
	if (c->nqpf > 1)
		qsort(c->qpf, c->nqpf, sizeof(*c->qpf), by_lqpn);
}

/* The NIC flow of a QP counter's QP, for its peer QP and owner; NULL if none. */
static const struct rt_flow *qp_flow(const struct csv *c, const struct rt_port_ctr *p)
{
	size_t lo = 0, hi = c->nqpf;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->qpf[mid]->lqpn < p->qpn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nqpf && c->qpf[lo]->lqpn == p->qpn ? c->qpf[lo] : NULL;
}

/* One qpctr.csv row: a counter bound to QPs, by name. */
static void write_qpctr(struct csv *c, const struct rt_port_delta *pd, double t)
{
	const struct rt_port_ctr *p = pd->c;
	const struct rt_flow *f = qp_flow(c, p);
	char dv[2 * sizeof(p->dev) + 4], nd[2 * sizeof(p->netdev) + 4], nm[2 * sizeof(p->name) + 4];
	char cm[2 * sizeof(f->comm) + 4];

	fprintf(c->qpctr, "%.6f,%s,%u,%s,%u,%u,", t, rt_fmt_csv(p->dev, dv, sizeof(dv)), p->port,
		rt_fmt_csv(p->netdev, nd, sizeof(nd)), p->qpn, p->nqps);
	if (f && (f->rqpn || f->pid || f->comm[0]))
		fprintf(c->qpctr, "%u,%u,%s,", f->rqpn, f->pid, rt_fmt_csv(f->comm, cm, sizeof(cm)));
	else
		fputs(",,,", c->qpctr);
	fprintf(c->qpctr, "%s,%llu,%llu\n", rt_fmt_csv(p->name, nm, sizeof(nm)),
		(unsigned long long)p->value, (unsigned long long)pd->d);
}

/* After a failed write: drop what stdio still holds, cut each file back to the
 * end of its last whole row, and write nothing more. */
static void cut_back(struct csv *c)
{
	FILE *fs[C__N] = { c->flows, c->pfc, c->stats, c->ports, c->swports, c->drops, c->qpctr, c->findings,
			 c->probes };
	int k;

	c->failed = 1;
	for (k = 0; k < C__N; k++) {
		if (!fs[k])
			continue;
		__fpurge(fs[k]);
		if (ftruncate(fileno(fs[k]), c->good[k]))
			pr_warn("cannot cut %s/ back to its last row: %s.\n", c->dir, strerror(errno));
	}
}

static void write_sflow(struct csv *c, const struct rt_delta *d, double t)
{
	size_t i;

	for (i = 0; i < d->nswports; i++) {
		const struct rt_swport_delta *x = &d->swports[i];
		const struct rt_swport *p = x->p;
		const struct rt_swport_ctr *v = &x->d;
		__u64 oct = p->dir == RT_DIR_EGRESS ? x->out_octets : x->in_octets;
		char ag[2 * RT_SF_AGENT_LEN + 3];

		if (!v->samples && !v->drops && !x->ctr_samples)
			continue;	/* nothing came for the port in the interval */
		fprintf(c->swports, "%.6f,%s,%u,%s,%llu,%llu,%llu,%llu,%llu,", t,
			rt_fmt_csv(p->agent, ag, sizeof(ag)), p->port,
			rt_dir_name(p->dir), (unsigned long long)v->samples, (unsigned long long)v->est_pkts,
			(unsigned long long)v->est_bytes, (unsigned long long)v->est_ce,
			(unsigned long long)v->est_cnp);
		if (v->depth_n)
			fprintf(c->swports, "%u,%.0f,", p->max_depth, (double)v->depth_sum / (double)v->depth_n);
		else
			fputs(",,", c->swports);
		if (v->transit_n)
			fprintf(c->swports, "%u,%.0f,", p->max_transit, (double)v->transit_sum / (double)v->transit_n);
		else
			fputs(",,", c->swports);
		if (v->roce_samples)
			fprintf(c->swports, "%.2f,", rt_pct((double)v->est_ce, (double)v->est_pkts));
		else
			fputs(",", c->swports);
		if (p->has_queue)
			fprintf(c->swports, "%u,", p->queue);
		else
			fputs(",", c->swports);
		if (p->has_ifctr) {
			fprintf(c->swports, "%llu,", (unsigned long long)p->speed_bps);
			if (p->speed_bps && d->secs > 0)
				fprintf(c->swports, "%.2f,", rt_pct((double)oct * 8, (double)p->speed_bps * d->secs));
			else
				fputs(",", c->swports);
			fprintf(c->swports, "%llu,%llu,%llu,%llu,", (unsigned long long)x->in_discards,
				(unsigned long long)x->out_discards, (unsigned long long)x->in_errors,
				(unsigned long long)x->out_errors);
		} else {
			fputs(",,,,,,", c->swports);
		}
		fprintf(c->swports, "%llu,%llu,%llu\n", (unsigned long long)v->drops, (unsigned long long)x->lost,
			(unsigned long long)x->ctr_samples);
	}
	for (i = 0; i < d->nswdrops; i++) {
		const struct rt_swdrop *p = d->swdrops[i].p;
		const char *name = rt_sf_drop_reason(p->reason);
		char ag[2 * RT_SF_AGENT_LEN + 3];

		if (!d->swdrops[i].drops)
			continue;
		rt_fmt_csv(p->agent, ag, sizeof(ag));
		if (name)
			fprintf(c->drops, "%.6f,%s,%u,%s,%u,%llu\n", t, ag, p->port, name, p->reason,
				(unsigned long long)d->swdrops[i].drops);
		else
			fprintf(c->drops, "%.6f,%s,%u,code_%u,%u,%llu\n", t, ag, p->port, p->reason,
				p->reason, (unsigned long long)d->swdrops[i].drops);
	}
}

/* A probe time: whole microseconds, empty with no sample (as rocetop probe). */
static void put_us(FILE *f, double v)
{
	if (v >= 0)
		fprintf(f, ",%.0f", v);
	else
		fputc(',', f);
}

/* probes.csv: the probe mesh's rows of the interval (user/core/probe_row.h),
 * one per peer, path and size, with that interval's counts. */
static void write_probes(struct csv *c, const struct rt_snapshot *cur, const char *ts)
{
	char q[2 * sizeof(cur->probes[0].peer) + 4];

	for (size_t i = 0; i < cur->nprobes; i++) {
		const struct rt_probe_row *r = &cur->probes[i];

		fprintf(c->probes, "%s,%s,%u,%u,%u,%llu,%llu", ts, rt_fmt_csv(r->peer, q, sizeof(q)), r->flow_label,
			r->udp_sport, r->size, (unsigned long long)r->sent, (unsigned long long)r->lost);
		put_us(c->probes, r->rtt_p50_us);
		put_us(c->probes, r->rtt_p99_us);
		put_us(c->probes, r->net_p50_us);
		put_us(c->probes, r->resp_p50_us);
		fprintf(c->probes, ",%s,%llu,%s\n", rt_probe_clock_name(r->clock), (unsigned long long)r->answered,
			r->finding ? rt_probe_finding_name(r->finding) : "");
	}
}

/* findings.csv: one row per event; end is empty while a finding is open;
 * involved: the data flows of a priority's episode ("; and more" past what
 * a finding holds), empty when the subject is the one flow. */
static void write_findings(struct csv *c, const struct rt_findings *F, const char *ts)
{
	char subj[512], q1[1100], q2[600], q3[1024], inv[400], q4[900];
	size_t i;

	for (i = 0; F && i < F->nev; i++) {
		const struct rt_fev *e = &F->ev[i];

		fprintf(c->findings, "%s,%s,%s,%s,%.3f,", ts, rt_fev_name(e->event), e->f.rule,
			rt_sev_name(e->f.sev), e->f.start_ns / 1e9);
		if (e->event == RT_FEV_CLOSE)
			fprintf(c->findings, "%.3f", e->f.end_ns / 1e9);
		snprintf(inv, sizeof(inv), "%s%s", e->f.involved, e->f.involved_more ? "; and more" : "");
		fprintf(c->findings, ",%s,%s,%u,%s,%s\n",
			rt_fmt_csv(rt_subject_text(&e->f.subj, subj, sizeof(subj)), q1, sizeof(q1)),
			rt_fmt_csv(e->f.evidence, q2, sizeof(q2)), e->id, rt_fmt_csv(e->f.next, q3, sizeof(q3)),
			rt_fmt_csv(inv, q4, sizeof(q4)));
	}
}

/* A stream whose error stdio kept without its errno (a buffer written out
 * inside an earlier fprintf): is its file system full? Then say so, not
 * "Input/output error". */
static int full_disk(FILE *f)
{
	struct statvfs v;

	return !fstatvfs(fileno(f), &v) && v.f_bavail == 0;
}

/* The file ended: the closes of the episodes it left open, at its end. */
static void csv_end(struct rt_sink *s, const struct rt_findings *F)
{
	struct csv *c = s->priv;
	char ts[32];

	if (c->failed || !c->findings)
		return;
	snprintf(ts, sizeof(ts), "%.6f", F->t_end / 1e9);
	write_findings(c, F, ts);
	if (fflush(c->findings) == 0 && !ferror(c->findings))
		c->good[C_FINDINGS] = ftello(c->findings);
	else
		pr_warn("writing %s/findings.csv failed: %s.\n", c->dir,
			strerror(errno ? errno : full_disk(c->findings) ? ENOSPC : EIO));
}

static FILE *open_csv(struct csv *c, int k, const char *name, const char *hdr);

/* What made the data, for meta.csv: this host for a live run, what a
 * recording says of its own, nothing for a capture. */
static void csv_start(struct rt_sink *s, const struct rt_source *src)
{
	struct csv *c = s->priv;

	if (src->live)
		return;		/* as rt_csv_sink_new set them */
	snprintf(c->host, sizeof(c->host), "%s", src->host ? src->host : "");
	snprintf(c->kernel, sizeof(c->kernel), "%s", src->kernel ? src->kernel : "");
	snprintf(c->version, sizeof(c->version), "%s", src->version ? src->version : "");
	snprintf(c->options, sizeof(c->options), "%s", src->options ? src->options : "");
}

/*
 * meta.csv: one row per interface of the first interval, with what paused
 * time needs (link speed and where it came from, MTU, PFC-enabled priorities
 * where known) and what made the data (host, kernel, rocetop, options).
 */
static void write_meta(struct csv *c, const struct rt_snapshot *cur)
{
	char path[4200], q[5][2200], pfc[32];
	size_t i, n;
	FILE *f;
	int b;

	c->meta_done = 1;
	snprintf(path, sizeof(path), "%s/meta.csv", c->dir);
	f = fopen(path, "we");
	if (!f) {
		pr_warn("cannot write %s: %s.\n", path, strerror(errno));
		return;
	}
	fputs(META_HDR, f);
	for (i = 0; i < cur->nifaces; i++) {
		const struct rt_iface *x = &cur->ifaces[i];
		const char *from;
		__u64 mbps = rt_link_speed_quiet(cur, x->name, c->speed_given, &from);

		for (b = 0, n = 0, pfc[0] = 0; b < 8 && x->pfc_known; b++)
			if (x->pfc_en & (1u << b))
				n += (size_t)snprintf(pfc + n, sizeof(pfc) - n, "%s%d", n ? ";" : "", b);
		fprintf(f, "%s,%llu,%s,%u,%s,%s,%s,%s,%s\n", rt_fmt_csv(x->name, q[0], sizeof(q[0])),
			(unsigned long long)mbps, from, x->mtu, x->pfc_known ? (n ? pfc : "none") : "",
			rt_fmt_csv(c->host, q[1], sizeof(q[1])), rt_fmt_csv(c->kernel, q[2], sizeof(q[2])),
			rt_fmt_csv(c->version, q[3], sizeof(q[3])), rt_fmt_csv(c->options, q[4], sizeof(q[4])));
	}
	if (fclose(f))
		pr_warn("cannot write %s: %s.\n", path, strerror(errno));
}

static int csv_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct csv *c = s->priv;
	double t = cur->time_ns / 1e9;
	char pn[8], ts[32];
	size_t i;
	int err = 0;

	if (c->failed)
		return -EIO;
	snprintf(ts, sizeof(ts), "%.6f", t);
	if (!c->meta_done)
		write_meta(c, cur);
	write_flows(c, cur, d, ts);
	write_findings(c, d->findings, ts);
	for (i = 0; i < d->nifs; i++) {
		const struct rt_ifdir *r = d->ifs[i].s;
		const struct rt_if_val *v = &d->ifs[i].d;
		char qifn[2 * IF_NAMESIZE + 4];
		const char *ifn = rt_snapshot_ifname(cur, r->k.ifindex);

		ifn = rt_fmt_csv(ifn, qifn, sizeof(qifn));
		for (unsigned int p = 0; p < RT_NPRIO; p++) {
			if (!rt_paused_any(v, p))
				continue;
			fprintf(c->pfc, "%.6f,%s,%s,%s,%llu,%llu,%llu,", t, ifn, rt_dir_name(r->k.dir),
				rt_prio_name(p, pn, sizeof(pn)), (unsigned long long)v->pfc_frames[p],
				(unsigned long long)v->pfc_xon[p], (unsigned long long)v->pfc_quanta[p]);
			fprintf(c->pfc, "%.9f\n", rt_paused_secs(cur, r, v, p, d->secs, c->speed_given));
		}
		/* Evictions come after a flow went idle: such a row may have no frames. */
		if (v->pkts || d->ifs[i].evicted)
			fprintf(c->stats, "%.6f,%s,%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
				t,
				ifn, rt_dir_name(r->k.dir), (unsigned long long)v->pkts,
				(unsigned long long)v->bytes, (unsigned long long)v->roce,
				(unsigned long long)v->not_roce, (unsigned long long)v->mac_ctrl,
				(unsigned long long)v->truncated, (unsigned long long)v->malformed,
				(unsigned long long)v->v6_unparsed, (unsigned long long)v->flow_full,
				(unsigned long long)d->ifs[i].evicted, (unsigned long long)v->mirrored);
	}
	index_qp_flows(c, cur, d);
	for (i = 0; i < d->nports; i++) {
		const struct rt_port_ctr *p = d->ports[i].c;
		char dv[2 * sizeof(p->dev) + 4], nd[2 * sizeof(p->netdev) + 4], nm[2 * sizeof(p->name) + 4];

		if (p->scope == RT_SCOPE_QP) {
			/* the first interval's values, then what changed */
			if (d->ports[i].d || !c->qp_seen)
				write_qpctr(c, &d->ports[i], t);
			continue;
		}
		fprintf(c->ports, "%.6f,%s,%u,%s,%s,%llu,%llu,%s\n", t, rt_fmt_csv(p->dev, dv, sizeof(dv)),
			p->port, rt_fmt_csv(p->netdev, nd, sizeof(nd)), rt_fmt_csv(p->name, nm, sizeof(nm)),
			(unsigned long long)p->value, (unsigned long long)d->ports[i].d,
			rt_scope_name(p->scope));
	}
	c->qp_seen = 1;
	/* A replay that holds sFlow tables gets the files at its first of them. */
	if (!c->swports && d->nsfagents &&
	    (!(c->swports = open_csv(c, C_SWPORTS, "switchports.csv", SWPORTS_HDR)) ||
	     !(c->drops = open_csv(c, C_DROPS, "drops.csv", DROPS_HDR)))) {
		c->failed = 1;
		return -EIO;
	}
	if (c->swports)
		write_sflow(c, d, t);
	if (!c->probes && cur->nprobes && !(c->probes = open_csv(c, C_PROBES, "probes.csv", PROBES_HDR))) {
		c->failed = 1;
		return -EIO;
	}
	if (c->probes)
		write_probes(c, cur, ts);
	{
		FILE *fs[C__N] = { c->flows, c->pfc, c->stats, c->ports, c->swports, c->drops, c->qpctr, c->findings,
				   c->probes };
		int k;

		for (k = 0; k < C__N; k++) {
			if (!fs[k])
				continue;
			errno = 0;
			if (fflush(fs[k]) == 0 && !ferror(fs[k])) {
				c->good[k] = ftello(fs[k]);
				continue;
			}
			err = errno ? -errno : full_disk(fs[k]) ? -ENOSPC : -EIO;
			break;
		}
		if (err) {
			pr_warn("writing CSV files in %s failed: %s; each file is cut back to its last whole row.\n",
				c->dir, strerror(-err));
			cut_back(c);
		}
	}
	return err;
}

static void csv_close(struct rt_sink *s)
{
	struct csv *c = s->priv;
	FILE *const files[] = { c->flows, c->pfc, c->stats, c->ports, c->swports, c->drops,
				c->findings, c->qpctr, c->probes };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (files[i])
			fclose(files[i]);
	free(c->qpf);
	rt_sink_free(s);
}

static FILE *open_csv(struct csv *c, int k, const char *name, const char *hdr)
{
	char path[4200];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	fd = rt_out_open(path, "the CSV file", 0);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		pr_warn("cannot write %s: %s.\n", path, strerror(errno));
		close(fd);
		return NULL;
	}
	fputs(hdr, f);
	if (fflush(f)) {
		pr_warn("cannot write %s: %s.\n", path, strerror(errno));
		fclose(f);
		return NULL;
	}
	c->good[k] = ftello(f);
	return f;
}

struct rt_sink *rt_csv_sink_new(const struct rt_csv_cfg *cfg)
{
	struct rt_sink *s = rt_sink_new("csv", sizeof(struct csv), csv_emit, csv_close);
	struct csv *c;
	struct stat st;

	if (!s)
		return NULL;
	c = s->priv;
	snprintf(c->dir, sizeof(c->dir), "%s", cfg->dir);
	c->speed_given = cfg->speed_mbps;
	rt_host_name(cfg->hostname, c->host, sizeof(c->host));
	rt_host_kernel(c->kernel, sizeof(c->kernel));
	snprintf(c->version, sizeof(c->version), "%s", RT_VERSION);
	snprintf(c->options, sizeof(c->options), "%s", cfg->cmdline ? cfg->cmdline : "");
	if (mkdir(c->dir, 0755) && errno != EEXIST) {
		pr_warn("cannot create the CSV directory %s: %s.\n", c->dir, strerror(errno));
		goto fail;
	}
	if (stat(c->dir, &st) || !S_ISDIR(st.st_mode)) {
		pr_warn("--csv wants a directory, and %s is not one.\n", c->dir);
		goto fail;
	}
	if (rt_out_check_dir(c->dir, "--csv"))
		goto fail;
	s->start = csv_start;
	s->on_end = csv_end;
	if (!(c->flows = open_csv(c, C_FLOWS, "flows.csv", FLOWS_HDR)) ||
	    !(c->pfc = open_csv(c, C_PFC, "pfc.csv", PFC_HDR)) ||
	    !(c->stats = open_csv(c, C_STATS, "stats.csv", STATS_HDR)) ||
	    !(c->ports = open_csv(c, C_PORTS, "ports.csv", PORTS_HDR)) ||
	    !(c->qpctr = open_csv(c, C_QPCTR, "qpctr.csv", QPCTR_HDR)) ||
	    !(c->findings = open_csv(c, C_FINDINGS, "findings.csv", FINDINGS_HDR))) {
		csv_close(s);
		return NULL;
	}
	if (cfg->probe && !(c->probes = open_csv(c, C_PROBES, "probes.csv", PROBES_HDR))) {
		csv_close(s);
		return NULL;
	}
	if (cfg->sflow &&
	    (!(c->swports = open_csv(c, C_SWPORTS, "switchports.csv", SWPORTS_HDR)) ||
	     !(c->drops = open_csv(c, C_DROPS, "drops.csv", DROPS_HDR)))) {
		csv_close(s);
		return NULL;
	}
	return s;
fail:
	rt_sink_free(s);
	return NULL;
}
