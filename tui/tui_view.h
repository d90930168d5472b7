/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live view's drawing and keys, over its state (tui_state.h). The files
 * form layers, each calling only those below it: tui.c (the sink: setup,
 * input, teardown) over tui_keys.c (keys and actions) and tui_draw.c (the
 * frame), which puts tui_meters.c (the header), tui_tables.c (the table
 * views), tui_detail.c (the detail views) and tui_views.c (the jobs and
 * probes views), all painting through tui_paint.c; below them tui_state.c
 * and the pure, unit-tested model (tui_model.h).
 */
#ifndef RT_TUI_VIEW_H
#define RT_TUI_VIEW_H

#include <curses.h>
#include "tui_state.h"

/* tui_paint.c: a count as a rate over secs (or whole); text made safe and
 * cut at the screen's edge, with an attribute; the sparkline's glyphs; a
 * colour pair or, without colours, the fallback; a flow's severity (0 calm,
 * 1 some congestion, 2 severe) and the attribute of severity 0, 1 or 2;
 * snprintf at line + off (the new offset); a table's heading bar (it takes a
 * line off h). */
const char *tui_num(double v, double secs, char *buf, size_t len);
void tui_put(int y, int x, const char *s);
void tui_put_attr(int y, int x, const char *s, attr_t a);
void tui_put_glyphs(int y, int x, const char *spark);
attr_t tui_cp(const struct tui *t, int pair, attr_t fallback);
int tui_severity(const struct rt_flow_val *d);
attr_t tui_sev_attr(const struct tui *t, int sev);
int tui_appendf(char *line, size_t len, int off, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void tui_table_head(struct tui *t, int *y, int *h, const char *line);
/* tui_meters.c: the header's meters from row *yp; *yp moves below them. */
void tui_draw_header(struct tui *t, int *yp);
/* The views, each from row y in h lines: tui_tables.c */
void tui_draw_flow_table(struct tui *t, int y, int h);
void tui_draw_pfc(struct tui *t, int y, int h);
void tui_draw_ports(struct tui *t, int y, int h);
void tui_draw_swports(struct tui *t, int y, int h);
void tui_draw_findings(struct tui *t, int y, int h);
/* tui_detail.c */
void tui_draw_detail(struct tui *t, int y, int h);
void tui_draw_fdetail(struct tui *t, int y, int h);
/* tui_views.c */
void tui_draw_jobs(struct tui *t, int y, int h);
void tui_draw_probes(struct tui *t, int y, int h);
/* tui_draw.c: the whole frame */
void tui_draw(struct tui *t);
/* tui_keys.c: the key table (ends with key 0); every pending key read and
 * acted on, *redraw set when the screen should be drawn again (the caller
 * draws); the loop's controls mirrored, *changed set when they moved. */
extern const struct tui_action tui_actions[];
int tui_drain_keys(struct tui *t, struct rt_ctl *ctl, int *redraw);
void tui_mirror_ctl(struct tui *t, const struct rt_ctl *ctl, int *changed);

#endif
