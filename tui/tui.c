// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ncurses live view, in htop's shape, as a sink of the one loop. This
 * file is the sink: the screen's setup and teardown, input and idle calls,
 * each snapshot taken into the model. The view is in layers, each calling
 * only those below it:
 *   tui_model.c  the pure part, unit-tested (tui_model.h): the view's copy
 *                of the data here, then by concept tui_hist.c (histories,
 *                averages), tui_rows.c (columns, filter, flow and pair rows),
 *                tui_sort.c (comparators that cannot overflow, the page's
 *                order), tui_cells.c (cells, layout), tui_panels.c (the
 *                header's and detail's arithmetic);
 *   tui_state.c  the state between frames (tui_state.h, no curses): the
 *                rows of the view in order, the selection, the findings;
 *   tui_paint.c  the one way text reaches the screen, and its colours;
 *   tui_meters.c, tui_tables.c, tui_detail.c, tui_views.c  the header's
 *                meters, the table views, the detail views, jobs and probes;
 *   tui_draw.c   the frame, one erase + draw + refresh per change;
 *   tui_keys.c   the key -> action table (the help screen lists it, handed
 *                over in struct tui); it changes the state, never draws;
 *   tui.c        this sink, which draws when the keys ask.
 */
#include <errno.h>
#include <locale.h>
#include <langinfo.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curses.h>
#include "fmt.h"
#include "log.h"
#include "sink.h"
#include "tui.h"
#include "filter.h"
#include "tui_view.h"

static int tui_active;

static void tui_atexit(void)
{
	if (tui_active && !isendwin())
		endwin();
}

/* The keys pending, acted on, and the frame drawn again if they ask. */
static int drain_keys(struct tui *t, struct rt_ctl *ctl)
{
	int redraw = 0, n = tui_drain_keys(t, ctl, &redraw);

	if (redraw)
		tui_draw(t);
	return n;
}

static int tui_on_input(struct rt_sink *s, struct rt_ctl *ctl)
{
	struct tui *t = s->priv;
	int changed = 0;

	tui_mirror_ctl(t, ctl, &changed);
	if (!drain_keys(t, ctl)) {
		/* readable but no key: the terminal went away */
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

		if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
			ctl->quit = 1;
	}
	return 0;
}

/* Also catches KEY_RESIZE: SIGWINCH interrupts the loop's poll without input. */
static void tui_on_idle(struct rt_sink *s, struct rt_ctl *ctl)
{
	struct tui *t = s->priv;
	int changed = 0;

	tui_mirror_ctl(t, ctl, &changed);
	drain_keys(t, ctl);
	if (changed)
		tui_draw(t);
}

static int tui_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct tui *t = s->priv;

	if (tui_data_take(&t->data, cur, d))
		return -ENOMEM;
	t->fnd = d->findings;
	t->have_snap = 1;
	if (t->msg_seek) {	/* the loop seeks before the next snapshot: this is it */
		t->msg[0] = '\0';
		t->msg_seek = 0;
	}
	tui_rebuild_rows(t);
	tui_draw(t);
	return 0;
}

static void tui_close(struct rt_sink *s)
{
	struct tui *t = s->priv;
	const char *last;

	if (tui_active && !isendwin())
		endwin();
	tui_active = 0;
	rt_log_hold(0);
	last = rt_log_last();
	if (last)	/* what rocetop said last while the screen was ours */
		fprintf(stderr, "rocetop: %s\n", last);
	tui_data_free(&t->data);
	rt_jobagg_free(&t->jobs);
	rt_filter_free(t->flt);
	free(t->rows);
	free(t->ord);
	rt_sink_free(s);
}

struct rt_sink *rt_tui_sink_new(const struct rt_tui_cfg *cfg)
{
	struct rt_sink *s = rt_sink_new("tui", sizeof(struct tui), tui_emit, tui_close);
	static int registered;
	const char *nc = getenv("NO_COLOR");
	struct tui *t;

	if (!s)
		return NULL;
	t = s->priv;
	tui_data_init(&t->data);
	rt_jobagg_init(&t->jobs, RT_GROUP_JOB);
	t->actions = tui_actions;
	t->sort = C_CONG;
	if (cfg->sort) {
		int c = tui_col_by_name(cfg->sort);

		if (c < 0)
			pr_warn("--sort %s: no such column; sorting by congestion.\n", cfg->sort);
		else
			t->sort = (enum tui_colid)c;
	}
	if (cfg->filter) {	/* main checked it */
		char err[160];

		if (rt_filter_parse(cfg->filter, &t->flt, err, sizeof(err)))
			pr_warn("%s.\n", err);
		else
			snprintf(t->filter, sizeof(t->filter), "%s", cfg->filter);
	}
	t->seen.interval = cfg->interval;
	t->seen.speed = cfg->speed;
	t->speed_given = cfg->speed_mbps;
	t->file_interval = cfg->interval;

	setlocale(LC_ALL, "");
	t->utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (!initscr()) {
		pr_warn("cannot start the full-screen view (TERM=%s); try --batch.\n",
			getenv("TERM") ? getenv("TERM") : "");
		rt_sink_free(s);
		return NULL;
	}
	tui_active = 1;
	if (!registered++)
		atexit(tui_atexit);
	rt_log_hold(1);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
		  | BUTTON5_PRESSED
#endif
		  , NULL);
	mouseinterval(0);
	/* NO_COLOR set to anything: no colours (attributes such as bold stay) */
	if (!nc && has_colors()) {
		t->color = 1;
		start_color();
		use_default_colors();
		init_pair(CP_RED, COLOR_RED, -1);
		init_pair(CP_YELLOW, COLOR_YELLOW, -1);
		init_pair(CP_BAR, COLOR_BLACK, COLOR_CYAN);
		init_pair(CP_SORT, COLOR_BLACK, COLOR_GREEN);
		init_pair(CP_GREEN, COLOR_GREEN, -1);
		init_pair(CP_MAGENTA, COLOR_MAGENTA, -1);
	}
	tui_draw(t);

	s->input_fd = STDIN_FILENO;
	s->on_input = tui_on_input;
	s->on_idle = tui_on_idle;
	return s;
}
