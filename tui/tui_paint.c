// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live view's brush: the one way text reaches the screen (made safe and
 * cut at its edge), the sparklines' glyphs, the colours and their
 * fallbacks, a flow's severity and its attribute, a count as a rate, text
 * appended to a line, and a table's heading bar. Every drawing file
 * (tui_meters.c, tui_tables.c, tui_detail.c, tui_views.c, tui_draw.c)
 * paints through it.
 */
#include <stdarg.h>
#include <stdio.h>
#include "derive.h"
#include "fmt.h"
#include "tui_view.h"

const char *tui_num(double v, double secs, char *buf, size_t len)
{
	if (secs > 0)
		return rt_fmt_si(v / secs, buf, len);
	snprintf(buf, len, "%.0f", v);
	return buf;
}

/* snprintf at line + off, never past the end; the new offset. */
int tui_appendf(char *line, size_t len, int off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (off < 0 || (size_t)off >= len - 1)
		return off;
	va_start(ap, fmt);
	n = vsnprintf(line + off, len - (size_t)off, fmt, ap);
	va_end(ap);
	if (n < 0)
		return off;
	return (size_t)(off + n) >= len ? (int)len - 1 : off + n;
}

/*
 * The one way text reaches the screen (escape sequences stay out). Lines are built
 * from untrusted names (a recording's source, interfaces, notes, ports, comm,
 * sFlow agents, mirror sessions, findings about them), so every line goes
 * through rt_fmt_safe, printable ASCII only: an ESC, a C1 control or a byte of
 * invalid UTF-8 in a file shows as '?' and never reaches the terminal. The
 * only other call into curses' text output is tui_put_glyphs() below.
 * tests/tui/test_tui_escape.sh checks both the bytes written and the screen.
 */
void tui_put(int y, int x, const char *s)
{
	char safe[1024];

	if (y < 0 || y >= LINES || x >= COLS)
		return;
	mvaddnstr(y, x, rt_fmt_safe(s, safe, sizeof(safe)), COLS - x);
}

/* The sparkline's block characters (UTF-8 built by tui_sparkline from
 * numbers, never from a name): the one text not passed through tui_put(). */
void tui_put_glyphs(int y, int x, const char *spark)
{
	if (y < 0 || y >= LINES || x >= COLS)
		return;
	mvaddnstr(y, x, spark, COLS - x);
}

void tui_put_attr(int y, int x, const char *s, attr_t a)
{
	attron(a);
	tui_put(y, x, s);
	attroff(a);
}

attr_t tui_cp(const struct tui *t, int pair, attr_t fallback)
{
	return t->color ? COLOR_PAIR(pair) : fallback;
}

/* 0 calm, 1 some congestion, 2 severe: CE >= 10 % or any NAK. */
int tui_severity(const struct rt_flow_val *d)
{
	double ce = rt_ce_pct(d);

	if (ce >= 10 || rt_nak(d))
		return 2;
	if (ce > 0 || d->cnp || d->rnr_nak)
		return 1;
	return 0;
}

attr_t tui_sev_attr(const struct tui *t, int sev)
{
	if (sev == 2)
		return tui_cp(t, CP_RED, A_BOLD) | (t->color ? A_BOLD : 0);
	if (sev == 1)
		return tui_cp(t, CP_YELLOW, 0);
	return 0;
}

/* A table's header bar on line *y: the table is the *h - 1 lines below it. */
void tui_table_head(struct tui *t, int *y, int *h, const char *line)
{
	tui_put_attr((*y)++, 0, line, tui_cp(t, CP_BAR, A_REVERSE));
	(*h)--;
	t->table_y = *y;
	t->table_h = *h;
}
