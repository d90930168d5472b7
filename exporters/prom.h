/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The Prometheus exporter's parts that tests reach: the --listen parser, the
 * Accept-header negotiation and the renderer of one snapshot into the text
 * exposition format 0.0.4 and OpenMetrics 1.0. The HTTP side (libmicrohttpd)
 * (exporters/prom_http.c) is behind rt_prom_sink_new() below;
 * the renderer is exporters/prom_render.c. Metric names: exporters/README.md.
 */
#ifndef RT_PROM_H
#define RT_PROM_H

#include <stddef.h>
#include <sys/socket.h>
#include "snapshot.h"

/* What the exporter takes from the command line (user/cmd/run.c fills it). */
struct rt_prom_cfg {
	const char *listen;	/* --listen [ADDR:]PORT */
	const char *web_config;	/* --web-config FILE (exporters/web_config.h); NULL: plain HTTP, no users */
	int flows;		/* --prom-flows K: flows exported per interval */
	__u64 speed_mbps;	/* --link-speed for paused time; 0: rt_link_speed decides */
};

/* --listen: the sink that serves the scrapes (user/core/sink.h); NULL after saying why. */
struct rt_sink *rt_prom_sink_new(const struct rt_prom_cfg *c);

/* --listen [ADDR:]PORT: a bare port is 127.0.0.1; IPv6 as [ADDR]:PORT.
 * Fills ss/len; returns 0 or -EINVAL. */
int rt_prom_parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *len);

/* 1 when an Accept header prefers application/openmetrics-text over text/plain. */
int rt_prom_wants_openmetrics(const char *accept);


struct rt_prom_render;

/* top_k: flows exported per interval; speed_given: --link-speed, 0 for rt_link_speed's own choice. */
struct rt_prom_render *rt_prom_render_new(int top_k, __u64 speed_given);
void rt_prom_render_free(struct rt_prom_render *r);

/*
 * Account one interval and render it. cur == NULL renders the metrics that
 * need no snapshot (build info, intervals 0): what a scrape gets before the
 * first interval. On success *text (format 0.0.4) and *om (OpenMetrics 1.0,
 * ending in "# EOF\n") are malloc'd, NUL-terminated, owned by the caller.
 * Returns 0 or -ENOMEM.
 */
/* The exporter's own figures (exporters/prom_self.c). */
#define RT_SELF_PROGS 16	/* BPF programs reported; more are counted in progs_left */
struct rt_prom_self {
	int valid;			/* read in full */
	double cpu_secs;		/* user + system */
	double start_time;		/* seconds since the epoch */
	unsigned long long rss_bytes, vsize_bytes, open_fds, max_fds;	/* max_fds 0: unlimited */
	int bpf_stats;			/* kernel.bpf_stats_enabled: 0, 1, -1 unknown */
	size_t nprogs, progs_left;
	struct {
		__u32 id;
		char name[16];
		__u64 run_cnt, run_ns;
	} progs[RT_SELF_PROGS];
};

/* Fill s from /proc/self and the BPF programs this process holds; 0 or -errno. */
int rt_prom_self_read(struct rt_prom_self *s);
/* The figures the next rt_prom_render writes out (copied), NULL for none. */
void rt_prom_render_self(struct rt_prom_render *r, const struct rt_prom_self *s);

int rt_prom_render(struct rt_prom_render *r, const struct rt_snapshot *cur, const struct rt_delta *d,
		   char **text, size_t *text_len, char **om, size_t *om_len);

#endif
