/*
 * rocetop-gen: an sFlow v5 agent for the modelled switch. The layouts are
 * sflow.org's sFlow version 5 (datagram, expanded flow sample 3, compact
 * counter sample 2, raw header 1, extended switch 1001, generic interface
 * counters 1) with the drops extension (sample 5) and the transit delay and
 * queue depth extension (1036 egress queue, 1039 transit delay in ns, 1040
 * queue depth in bytes), written here as XDR words.
 *
 * The tally counts a sample only once the datagram carrying it was sent in
 * full, so it says exactly which samples left.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen_sflow.h"

#define SF_MAX_DGRAM	1400
#define SF_MAX_SAMPLES	8
#define SF_HDR_BYTES	128
#define SF_FLUSH_S	0.05	/* a datagram waits at most this long for more samples */
#define SF_COUNTER_S	2.0	/* counter samples this often */

enum { P_FLOW, P_DROP, P_CTR };

struct pend {
	int kind, dir;
	uint32_t src, dst, dqpn;
	uint64_t rate, bytes;
	int ce, cnp;
	uint32_t depth, transit;
};

struct sf_flow {
	uint32_t src, dst, dqpn;
	int dir;
	uint64_t samples, pkts, bytes, ce, cnp;
};

struct gen_sflow {
	int fd;
	struct sockaddr_storage dest;
	socklen_t destlen;
	uint32_t agent, rate;
	uint64_t rng;
	double link_gbps;
	/* the datagram being filled */
	uint8_t buf[SF_MAX_DGRAM + 512];
	size_t n;			/* bytes of samples after the header */
	struct pend pend[SF_MAX_SAMPLES];
	int npend;
	double first_at, last_ctr, t0;
	uint32_t dgram_seq, flow_seq, drop_seq, ctr_seq, pool;
	/* the switch port's own counters, for counter samples */
	uint64_t in_octets, in_pkts, out_octets, out_pkts, discards;
	/* tally of what was sent */
	struct sf_flow *flows;
	size_t nflows, capflows;
	uint64_t datagrams, flow_samples, drop_samples, ctr_samples, send_errors;
	uint64_t samples_dir[2], est_pkts_dir[2];
	uint32_t max_depth, max_transit;
	uint64_t drops_sent;
};

static uint64_t rng_next(struct gen_sflow *s)
{
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint8_t *at(struct gen_sflow *s)
{
	return s->buf + 64 + s->n;	/* room for the header in front */
}

static void put32(struct gen_sflow *s, uint32_t v)
{
	uint8_t *p = at(s);

	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	s->n += 4;
}

static void put64(struct gen_sflow *s, uint64_t v)
{
	put32(s, (uint32_t)(v >> 32));
	put32(s, (uint32_t)v);
}

static void set32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A length word to fill in later: returns its offset. */
static size_t open_len(struct gen_sflow *s, uint32_t type)
{
	size_t off;

	put32(s, type);
	off = s->n;
	put32(s, 0);
	return off;
}

static void close_len(struct gen_sflow *s, size_t off)
{
	set32(s->buf + 64 + off, (uint32_t)(s->n - off - 4));
}

static struct sf_flow *flow_get(struct gen_sflow *s, const struct pend *p)
{
	struct sf_flow *f;

	for (size_t i = 0; i < s->nflows; i++)
		if (s->flows[i].src == p->src && s->flows[i].dst == p->dst &&
		    s->flows[i].dqpn == p->dqpn && s->flows[i].dir == p->dir)
			return &s->flows[i];
	f = gen_append((void **)&s->flows, &s->nflows, &s->capflows, sizeof(*f));
	if (!f)
		return NULL;
	f->src = p->src;
	f->dst = p->dst;
	f->dqpn = p->dqpn;
	f->dir = p->dir;
	return f;
}

static void flush(struct gen_sflow *s, double now)
{
	uint8_t *h;
	size_t hl = 28;
	ssize_t r;

	if (!s->npend)
		return;
	if (!s->t0)
		s->t0 = now;
	/* The header, just in front of the samples. */
	h = s->buf + 64 - hl;
	set32(h, 5);
	set32(h + 4, 1);
	set32(h + 8, s->agent);
	set32(h + 12, 0);
	set32(h + 16, ++s->dgram_seq);
	set32(h + 20, (uint32_t)((now - s->t0) * 1000));
	set32(h + 24, (uint32_t)s->npend);
	r = sendto(s->fd, h, hl + s->n, 0, (struct sockaddr *)&s->dest, s->destlen);
	if (r == (ssize_t)(hl + s->n)) {
		s->datagrams++;
		for (int i = 0; i < s->npend; i++) {
			struct pend *p = &s->pend[i];
			struct sf_flow *fl;

			if (p->kind == P_CTR) {
				s->ctr_samples++;
				continue;
			}
			if (p->kind == P_DROP) {
				s->drop_samples++;
				continue;
			}
			s->flow_samples++;
			s->samples_dir[p->dir]++;
			s->est_pkts_dir[p->dir] += p->rate;
			if (p->depth > s->max_depth)
				s->max_depth = p->depth;
			if (p->transit > s->max_transit)
				s->max_transit = p->transit;
			fl = flow_get(s, p);
			if (!fl)
				continue;
			fl->samples++;
			fl->pkts += p->rate;
			fl->bytes += p->bytes;
			fl->ce += p->ce ? p->rate : 0;
			fl->cnp += p->cnp ? p->rate : 0;
		}
	} else {
		s->send_errors++;
	}
	s->n = 0;
	s->npend = 0;
}

/* The sample that opened at off written: its length closed, and it pending
 * as kind (no flow behind it); a datagram as full as it gets goes out. */
static void sample_done(struct gen_sflow *s, size_t off, int kind, double now)
{
	close_len(s, off);
	s->pend[s->npend++].kind = kind;
	if (s->npend == SF_MAX_SAMPLES)
		flush(s, now);
}

static int room(struct gen_sflow *s, size_t need, double now)
{
	if (s->npend == SF_MAX_SAMPLES || s->n + need > SF_MAX_DGRAM - 28)
		flush(s, now);
	if (!s->npend)
		s->first_at = now;
	return 0;
}

struct gen_sflow *gen_sflow_open(const char *dest, const char *netns, uint32_t agent_ip,
				 uint32_t rate, uint64_t seed, double link_gbps)
{
	struct gen_sflow *s = calloc(1, sizeof(*s));
	char host[128];
	const char *colon = strrchr(dest, ':');
	long port;
	char *end;
	int self = -1;

	if (!s) {
		fprintf(stderr, "rocetop-gen: out of memory.\n");
		return NULL;
	}
	s->fd = -1;
	port = colon ? strtol(colon + 1, &end, 10) : 0;
	if (!colon || colon == dest || (size_t)(colon - dest) >= sizeof(host) || *end || port < 1 ||
	    port > 65535) {
		fprintf(stderr, "rocetop-gen: --sflow wants ADDR:PORT (127.0.0.1:6343), not '%s' (see --help).\n",
			dest);
		goto fail;
	}
	memcpy(host, dest, (size_t)(colon - dest));
	host[colon - dest] = '\0';
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host) - 2);
		host[strlen(host) - 2] = '\0';
	}
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&s->dest)->sin_addr) == 1) {
		((struct sockaddr_in *)&s->dest)->sin_family = AF_INET;
		((struct sockaddr_in *)&s->dest)->sin_port = htons((uint16_t)port);
		s->destlen = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)&s->dest)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)&s->dest)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&s->dest)->sin6_port = htons((uint16_t)port);
		s->destlen = sizeof(struct sockaddr_in6);
	} else {
		fprintf(stderr, "rocetop-gen: --sflow: '%s' is not an IPv4 or IPv6 address (see --help).\n", host);
		goto fail;
	}
	if (netns && netns[0]) {
		char path[512];
		int fd;

		snprintf(path, sizeof(path), netns[0] == '/' ? "%s" : "/run/netns/%s", netns);
		self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (self < 0 || fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
			fprintf(stderr, "rocetop-gen: cannot enter network namespace %s for --sflow: %s.\n",
				path, strerror(errno));
			if (fd >= 0)
				close(fd);
			goto fail;
		}
		close(fd);
	}
	s->fd = socket(s->dest.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		fprintf(stderr, "rocetop-gen: cannot open the sFlow socket: %s.\n", strerror(errno));
	if (self >= 0) {
		if (setns(self, CLONE_NEWNET) < 0) {
			fprintf(stderr, "rocetop-gen: cannot return to the original network namespace: %s.\n",
				strerror(errno));
			close(s->fd);
			s->fd = -1;
		}
		close(self);
		self = -1;
	}
	if (s->fd < 0)
		goto fail;
	s->agent = agent_ip;
	s->rate = rate;
	s->rng = seed ^ 0x5f10e5f10e5ULL;
	s->link_gbps = link_gbps;
	return s;
fail:
	if (self >= 0)
		close(self);
	free(s);
	return NULL;
}

/* The records of a sampled frame: header, switch, and for egress the queue. */
static void records(struct gen_sflow *s, const struct gen_frame *f, const uint8_t *buf, size_t len,
		    int egress)
{
	size_t hl = len < SF_HDR_BYTES ? len : SF_HDR_BYTES, off;
	uint32_t vid = f->vlan >= 0 ? (uint32_t)f->vlan : 0;

	put32(s, egress ? 5 : 2);
	off = open_len(s, 1);			/* raw packet header */
	put32(s, 1);				/* Ethernet */
	put32(s, (uint32_t)len + 4);		/* the frame with its FCS */
	put32(s, 4);				/* the FCS, stripped */
	put32(s, (uint32_t)hl);
	memcpy(at(s), buf, hl);
	s->n += hl;
	while (s->n % 4)
		*at(s) = 0, s->n++;
	close_len(s, off);
	off = open_len(s, 1001);		/* extended switch */
	put32(s, vid);
	put32(s, (uint32_t)f->prio);
	put32(s, vid);
	put32(s, (uint32_t)f->prio);
	close_len(s, off);
	if (!egress)
		return;
	off = open_len(s, 1036);
	put32(s, (uint32_t)f->prio);		/* the egress queue: one per priority */
	close_len(s, off);
	off = open_len(s, 1039);
	put32(s, f->sw_delay_ns);
	close_len(s, off);
	off = open_len(s, 1040);
	put32(s, f->sw_qdepth);
	close_len(s, off);
}

void gen_sflow_frame(struct gen_sflow *s, const struct gen_frame *f, const uint8_t *buf,
		     size_t len, double now)
{
	int egress = f->side == SIDE_DATA;
	struct pend *p;
	size_t off;

	if (f->kind == K_PFC || f->kind == K_PAUSE)
		return;		/* MAC control frames end at the port: not forwarded */
	if (egress) {
		s->out_octets += len;
		s->out_pkts++;
	} else {
		s->in_octets += len;
		s->in_pkts++;
	}
	s->pool++;
	if (rng_next(s) % s->rate)
		return;
	room(s, 256, now);
	off = open_len(s, 3);			/* expanded flow sample */
	put32(s, ++s->flow_seq);
	put32(s, 0);				/* ds class: ifIndex */
	put32(s, GEN_SF_PORT_RCV);
	put32(s, s->rate);
	put32(s, s->pool);
	put32(s, 0);				/* drops */
	put32(s, 0);
	put32(s, egress ? GEN_SF_PORT_SND : GEN_SF_PORT_RCV);
	put32(s, 0);
	put32(s, egress ? GEN_SF_PORT_RCV : GEN_SF_PORT_SND);
	records(s, f, buf, len, egress);
	close_len(s, off);
	p = &s->pend[s->npend++];
	memset(p, 0, sizeof(*p));
	p->kind = P_FLOW;
	p->dir = egress;
	p->src = f->sip;
	p->dst = f->dip;
	p->dqpn = f->dqpn & 0xffffff;
	/* A sample stands for at most the packets its pool counted (sFlow's
	 * sample_pool): this fresh data source can sample before its pool
	 * reaches the rate, and a collector must not believe more (rocetop.8). */
	p->rate = s->rate < s->pool ? s->rate : s->pool;
	p->bytes = (uint64_t)p->rate * len;
	p->ce = (f->ecn & 3) == 3;
	p->cnp = f->kind == K_CNP;
	if (egress) {
		p->depth = f->sw_qdepth;
		p->transit = f->sw_delay_ns;
	}
	if (s->npend == SF_MAX_SAMPLES)
		flush(s, now);
}

void gen_sflow_drop(struct gen_sflow *s, const struct gen_frame *f, double now)
{
	uint8_t buf[GEN_MAX_FRAME];
	size_t len = gen_build(f, buf), hl = len < SF_HDR_BYTES ? len : SF_HDR_BYTES, off, r;

	s->discards++;
	room(s, 256, now);
	off = open_len(s, 5);			/* dropped packet */
	put32(s, ++s->drop_seq);
	put32(s, 0);
	put32(s, GEN_SF_PORT_RCV);
	put32(s, 0);				/* drops not notified */
	put32(s, GEN_SF_PORT_SND);
	put32(s, GEN_SF_PORT_RCV);
	put32(s, GEN_SF_DROP_NO_BUFFER);
	put32(s, 1);
	r = open_len(s, 1);
	put32(s, 1);
	put32(s, (uint32_t)len + 4);
	put32(s, 4);
	put32(s, (uint32_t)hl);
	memcpy(at(s), buf, hl);
	s->n += hl;
	while (s->n % 4)
		*at(s) = 0, s->n++;
	close_len(s, r);
	sample_done(s, off, P_DROP, now);
}

static void counters(struct gen_sflow *s, double now)
{
	size_t off, r;

	room(s, 200, now);
	off = open_len(s, 2);			/* compact counter sample */
	put32(s, ++s->ctr_seq);
	put32(s, GEN_SF_PORT_RCV);
	put32(s, 2);
	r = open_len(s, 1);			/* generic interface counters */
	put32(s, GEN_SF_PORT_RCV);
	put32(s, 6);				/* ethernetCsmacd */
	put64(s, (uint64_t)(s->link_gbps * 1e9));
	put32(s, 1);				/* full duplex */
	put32(s, 3);				/* up, up */
	put64(s, s->in_octets);
	put32(s, (uint32_t)s->in_pkts);
	put32(s, 0), put32(s, 0), put32(s, 0), put32(s, 0), put32(s, 0);
	put64(s, s->out_octets);
	put32(s, (uint32_t)s->out_pkts);
	put32(s, 0), put32(s, 0);
	put32(s, (uint32_t)s->discards);	/* the tail drops */
	put32(s, 0), put32(s, 0);
	close_len(s, r);
	r = open_len(s, 2);			/* Ethernet counters: none of these errors */
	for (int k = 0; k < 13; k++)
		put32(s, 0);
	close_len(s, r);
	sample_done(s, off, P_CTR, now);
}

void gen_sflow_tick(struct gen_sflow *s, double now)
{
	if (!s->t0)
		s->t0 = s->last_ctr = now;
	if (now - s->last_ctr >= SF_COUNTER_S) {
		s->last_ctr = now;
		counters(s, now);
	}
	if (s->npend && now - s->first_at >= SF_FLUSH_S)
		flush(s, now);
}

static const char *ipstr(uint32_t a, char *buf)
{
	snprintf(buf, 16, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
	return buf;
}

int gen_sflow_close(struct gen_sflow *s, const char *dir)
{
	char path[4096], a[16], b[16], ag[16];
	FILE *fp;
	int rc = 0;

	if (!s)
		return 0;
	counters(s, s->last_ctr + SF_COUNTER_S);	/* the final counters */
	flush(s, s->last_ctr + SF_COUNTER_S);
	ipstr(s->agent, ag);
	if (dir) {
		fp = gen_tally_open(path, sizeof(path), dir, "sflow_flows.csv",
				    "agent,port,dir,src,dst,dqpn,samples,est_pkts,est_bytes,est_ce,est_cnp\n");
		if (!fp)
			goto err;
		for (size_t i = 0; i < s->nflows; i++) {
			struct sf_flow *f = &s->flows[i];

			fprintf(fp, "%s,%d,%s,%s,%s,%u,%llu,%llu,%llu,%llu,%llu\n", ag, GEN_SF_PORT_RCV,
				f->dir ? "egress" : "ingress", ipstr(f->src, a), ipstr(f->dst, b), f->dqpn,
				(unsigned long long)f->samples, (unsigned long long)f->pkts,
				(unsigned long long)f->bytes, (unsigned long long)f->ce,
				(unsigned long long)f->cnp);
		}
		if (gen_tally_close(fp, path))
			goto err;
		fp = gen_tally_open(path, sizeof(path), dir, "sflow_drops.csv", "agent,port,reason,reason_code,drops\n");
		if (!fp)
			goto err;
		if (s->drop_samples)
			fprintf(fp, "%s,%d,no_buffer_space,%d,%llu\n", ag, GEN_SF_PORT_RCV, GEN_SF_DROP_NO_BUFFER,
				(unsigned long long)s->drop_samples);
		if (gen_tally_close(fp, path))
			goto err;
		fp = gen_tally_open(path, sizeof(path), dir, "sflow.txt", NULL);
		if (!fp)
			goto err;
		fprintf(fp, "agent %s\nport %d\nsampling_rate %u\ndatagrams %llu\nflow_samples %llu\n"
			"ingress_samples %llu\negress_samples %llu\ningress_est_pkts %llu\negress_est_pkts %llu\n"
			"drop_notifications %llu\ncounter_samples %llu\nmax_queue_bytes %u\nmax_transit_ns %u\n"
			"send_errors %llu\n",
			ag, GEN_SF_PORT_RCV, s->rate, (unsigned long long)s->datagrams,
			(unsigned long long)s->flow_samples, (unsigned long long)s->samples_dir[0],
			(unsigned long long)s->samples_dir[1], (unsigned long long)s->est_pkts_dir[0],
			(unsigned long long)s->est_pkts_dir[1], (unsigned long long)s->drop_samples,
			(unsigned long long)s->ctr_samples, s->max_depth, s->max_transit,
			(unsigned long long)s->send_errors);
		if (gen_tally_close(fp, path))
			goto err;
	}
	goto out;
err:
	rc = -1;
out:
	close(s->fd);
	free(s->flows);
	free(s);
	return rc;
}
