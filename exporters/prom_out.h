/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The exposition's writing (exporters/prom_out.c), for the files that render
 * families: both documents at once (the text format 0.0.4 and OpenMetrics
 * 1.0 differ in their headers, their sample lines are the same).
 */
#ifndef RT_PROM_OUT_H
#define RT_PROM_OUT_H

#include <linux/types.h>
#include <stddef.h>

struct sb {
	char *p;
	size_t len, cap;
	int err;		/* -ENOMEM or -EINVAL: nothing more is written */
};

struct out {
	struct sb t, o;
};

enum mtype { M_COUNTER, M_GAUGE, M_INFO };

struct rt_snapshot;

void prom_printf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A family's HELP, TYPE (and UNIT). name is the family name without _total/_info. */
void prom_family(struct out *w, const char *name, enum mtype type, const char *unit, const char *help);
/* A sample line, the same in both formats. labels: already escaped, "" for none. */
void prom_sample_u(struct out *w, const char *name, enum mtype type, const char *labels, __u64 v);
void prom_sample_d(struct out *w, const char *name, enum mtype type, const char *labels, double v);
/* A label value as the exposition formats want it: \\, \" and \n escaped. */
void prom_esc(const char *s, char *buf, size_t len);
/* Append `,name="value"` (or without the comma at the start) to a label set. */
void prom_label(char *set, size_t len, const char *name, const char *value);

/* A label set's room, and a macro's value as a string (for the HELP texts
 * that name a bound). */
#define LSET 512
#define RT_STR_(x)	#x
#define RT_STR(x)	RT_STR_(x)

/* The families written by the files beside exporters/prom_render.c, which
 * calls them in this order: the interfaces and PFC (prom_iface.c; speed_given:
 * --link-speed, 0 for rt_link_speed's own choice), the findings
 * (prom_findings.c), sFlow (prom_sflow.c; nothing without an agent) and the
 * exporter on itself (prom_self_render.c). */
struct rt_delta;
struct rt_findings;
struct rt_prom_self;
void rt_prom_render_ifaces(struct out *w, const struct rt_snapshot *cur, __u64 speed_given);
void rt_prom_render_findings(struct out *w, const struct rt_findings *F);
void rt_prom_render_sflow(struct out *w, const struct rt_delta *d);
void rt_prom_render_self_figures(struct out *w, const struct rt_prom_self *s, const struct rt_delta *d);

/* The probe mesh's families (exporters/prom_probe.c): at most this many rows
 * of the probe table exported, nine series each at most (2,304 in all). */
#define RT_PROM_PROBE_ROWS 256
/* order/cap: the caller's scratch array, kept between intervals. 0 or -ENOMEM. */
int rt_prom_render_probes(struct out *w, const struct rt_snapshot *cur, size_t **order, size_t *cap);

#endif
