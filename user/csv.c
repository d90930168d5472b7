// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --csv DIR: DIR/flows.csv, DIR/pfc.csv, DIR/stats.csv and DIR/ports.csv.
 * A header once, then per interval one row per key that changed, holding that
 * interval's deltas, so the rows of a key sum to its totals. Flushed every
 * interval. The columns are documented in the README and the man page; new
 * columns are only ever appended.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fmt.h"
#include "log.h"
#include "sink.h"

#define FLOWS_HDR "time,ifname,dir,src,dst,dqpn,pkts,bytes,not_ect,ect0,ect1,ce,cnp,ack,nak,rnr_nak," \
		  "nak_seq,nak_other,dscp,pcp,sport,lqpn,pid,comm\n"
#define PFC_HDR   "time,ifname,dir,prio,frames,xon,quanta,paused_seconds\n"
#define STATS_HDR "time,ifname,dir,frames,bytes,roce,not_roce,pause,truncated,malformed," \
		  "v6_unparsed,table_full,evicted\n"
#define PORTS_HDR "time,device,port,netdev,counter,value,delta,scope\n"

struct csv {
	FILE *flows, *pfc, *stats, *ports;
	char dir[4096];
};

static const char *scope_name(__u8 scope)
{
	switch (scope) {
	case RT_SCOPE_HW_PORT: return "hw_counters";
	case RT_SCOPE_PORT: return "counters";
	case RT_SCOPE_HW_DEV: return "device_hw_counters";
	case RT_SCOPE_ETHTOOL: return "ethtool";
	}
	return "?";
}

static int csv_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct csv *c = s->priv;
	double t = cur->time_ns / 1e9;
	char a1[RT_ADDR_STRLEN], a2[RT_ADDR_STRLEN], pn[8];
	size_t i;
	int err = 0;

	for (i = 0; i < d->nflows; i++) {
		const struct rt_flow *f = d->flows[i].f;
		const struct rt_flow_val *v = &d->flows[i].d;

		if (!v->pkts)
			continue;
		fprintf(c->flows, "%.6f,%s,%s,%s,%s,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%u,%s,%u,",
			t, rt_snapshot_ifname(cur, f->k.ifindex), rt_dir_name(f->k.dir),
			rt_fmt_addr(f->k.family, f->k.src, a1, sizeof(a1)),
			rt_fmt_addr(f->k.family, f->k.dst, a2, sizeof(a2)), f->k.dqpn,
			(unsigned long long)v->pkts, (unsigned long long)v->bytes,
			(unsigned long long)v->ecn[RT_ECN_NOT_ECT], (unsigned long long)v->ecn[RT_ECN_ECT0],
			(unsigned long long)v->ecn[RT_ECN_ECT1], (unsigned long long)v->ecn[RT_ECN_CE],
			(unsigned long long)v->cnp, (unsigned long long)v->ack,
			(unsigned long long)rt_nak(v), (unsigned long long)v->rnr_nak,
			(unsigned long long)v->nak_seq, (unsigned long long)v->nak_other, v->dscp,
			v->pcp == RT_PCP_NONE ? "" : (snprintf(pn, sizeof(pn), "%u", v->pcp), pn), v->sport);
		if (f->lqpn || f->pid)
			fprintf(c->flows, "%u,%u,%s\n", f->lqpn, f->pid, f->comm);
		else
			fprintf(c->flows, ",,\n");
	}
	for (i = 0; i < d->nifs; i++) {
		const struct rt_ifdir *r = d->ifs[i].s;
		const struct rt_if_val *v = &d->ifs[i].d;
		const char *ifn = rt_snapshot_ifname(cur, r->k.ifindex);
		__u64 speed = rt_link_speed_mbps(ifn);

		for (unsigned int p = 0; p < RT_NPRIO; p++) {
			if (!v->pfc_frames[p])
				continue;
			fprintf(c->pfc, "%.6f,%s,%s,%s,%llu,%llu,%llu,", t, ifn, rt_dir_name(r->k.dir),
				rt_prio_name(p, pn, sizeof(pn)), (unsigned long long)v->pfc_frames[p],
				(unsigned long long)v->pfc_xon[p], (unsigned long long)v->pfc_quanta[p]);
			if (speed)
				fprintf(c->pfc, "%.9f\n", rt_pause_seconds(v->pfc_quanta[p], speed));
			else
				fprintf(c->pfc, "\n");
		}
		if (v->pkts)
			fprintf(c->stats, "%.6f,%s,%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", t,
				ifn, rt_dir_name(r->k.dir), (unsigned long long)v->pkts,
				(unsigned long long)v->bytes, (unsigned long long)v->roce,
				(unsigned long long)v->not_roce, (unsigned long long)v->mac_ctrl,
				(unsigned long long)v->truncated, (unsigned long long)v->malformed,
				(unsigned long long)v->v6_unparsed, (unsigned long long)v->flow_full,
				(unsigned long long)d->evicted);
	}
	for (i = 0; i < d->nports; i++) {
		const struct rt_port_ctr *p = d->ports[i].c;

		fprintf(c->ports, "%.6f,%s,%u,%s,%s,%llu,%llu,%s\n", t, p->dev, p->port, p->netdev,
			p->name, (unsigned long long)p->value, (unsigned long long)d->ports[i].d,
			scope_name(p->scope));
	}
	if (fflush(c->flows) || fflush(c->pfc) || fflush(c->stats) || fflush(c->ports)) {
		err = -errno;
		pr_warn("writing CSV files in %s failed: %s.\n", c->dir, strerror(errno));
	}
	return err;
}

static void csv_close(struct rt_sink *s)
{
	struct csv *c = s->priv;

	if (c->flows)
		fclose(c->flows);
	if (c->pfc)
		fclose(c->pfc);
	if (c->stats)
		fclose(c->stats);
	if (c->ports)
		fclose(c->ports);
	free(c);
	free(s);
}

static FILE *open_csv(struct csv *c, const char *name, const char *hdr)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	f = fopen(path, "w");
	if (!f) {
		pr_warn("cannot write %s: %s.\n", path, strerror(errno));
		return NULL;
	}
	fputs(hdr, f);
	fflush(f);
	return f;
}

struct rt_sink *rt_csv_sink_new(const struct rt_opts *o)
{
	struct rt_sink *s = calloc(1, sizeof(*s));
	struct csv *c = calloc(1, sizeof(*c));
	struct stat st;

	if (!s || !c) {
		pr_warn("out of memory.\n");
		goto fail;
	}
	snprintf(c->dir, sizeof(c->dir), "%s", o->csv_dir);
	if (mkdir(c->dir, 0755) && errno != EEXIST) {
		pr_warn("cannot create the CSV directory %s: %s.\n", c->dir, strerror(errno));
		goto fail;
	}
	if (stat(c->dir, &st) || !S_ISDIR(st.st_mode)) {
		pr_warn("--csv wants a directory, and %s is not one.\n", c->dir);
		goto fail;
	}
	s->priv = c;
	s->close = csv_close;
	if (!(c->flows = open_csv(c, "flows.csv", FLOWS_HDR)) ||
	    !(c->pfc = open_csv(c, "pfc.csv", PFC_HDR)) ||
	    !(c->stats = open_csv(c, "stats.csv", STATS_HDR)) ||
	    !(c->ports = open_csv(c, "ports.csv", PORTS_HDR))) {
		csv_close(s);
		return NULL;
	}
	s->name = "csv";
	s->emit = csv_emit;
	s->input_fd = -1;
	return s;
fail:
	free(s);
	free(c);
	return NULL;
}
