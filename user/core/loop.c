// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The one loop: take snapshots from a source and hand them, with what changed,
 * to every sink. One poll over a signalfd, a timerfd, the sinks' inputs and
 * a merged source's socket. What runs is built by the command (loop.h).
 *
 * A source that stops answering (a hostile --sysfs-root, a stalled pipe)
 * would keep the loop from ever reading the signalfd: a watchdog thread sees
 * a stop signal still pending after RT_STOP_GRACE_SECS and ends the process
 * (recordings and CSV files are whole up to the last interval written).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include "findings.h"
#include "log.h"
#include "loop.h"

#define RT_STOP_GRACE_SECS 3

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* Wakes every 250 ms until its pipe closes; see the comment at the top. */
static void *watchdog(void *arg)
{
	int fd = *(int *)arg, ticks = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		sigset_t pend;
		int sig = 0;
		size_t k;

		if (poll(&p, 1, 250) != 0)
			return NULL;	/* closed: the loop is done */
		sigpending(&pend);
		for (k = 0; k < sizeof(stop_signals) / sizeof(stop_signals[0]); k++)
			if (sigismember(&pend, stop_signals[k]))
				sig = stop_signals[k];
		ticks = sig ? ticks + 1 : 0;
		if (ticks >= RT_STOP_GRACE_SECS * 4) {
			dprintf(STDERR_FILENO,
				"rocetop: the source has not answered for %d s after signal %d (%s); stopping now, the intervals written so far are kept.\n",
				RT_STOP_GRACE_SECS, sig, strsignal(sig));
			_exit(128 + sig);
		}
	}
}

static int arm_timer(int fd, double secs)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = (time_t)secs;
	its.it_value.tv_nsec = (long)((secs - (double)(time_t)secs) * 1e9);
	if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
		its.it_value.tv_nsec = 1;
	its.it_interval = its.it_value;
	return timerfd_settime(fd, 0, &its, NULL);
}

/* Take one snapshot and hand it to every sink. 1: done, 0: source ended, <0: error. */
static int step(struct rt_loop *L, int emit)
{
	int first = !L->st.have_prev, i, r;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = rt_stream_step(&L->st);
	if (r <= 0)
		return r;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	L->st.delta.collect_secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	L->st.delta.missed = L->missed;
	if (L->nic.nic && (r = L->nic.failed(L->nic.nic)) < 0)
		return r;	/* --qp-counters bound nothing: said, the run ends */
	if (!L->file_start_ns)
		L->file_start_ns = L->st.cur.time_ns;
	/* The first snapshot counts from the start: rate it over the time since
	 * a live source began counting (a first snapshot taken late, on a busy
	 * host or after a slow start, covers more than one interval), a
	 * recording's over the length its run rated it over (older files: the
	 * second's, first_secs), else over one interval. Every snapshot carries
	 * its length on to the sinks (a recording keeps it). */
	if (first) {
		__u64 ns = !strcmp(L->src->name, "recording") ? L->st.cur.interval_ns : 0;

		if (!ns && L->src->start_mono_ns && L->st.cur.mono_ns > L->src->start_mono_ns)
			ns = L->st.cur.mono_ns - L->src->start_mono_ns;

		L->st.delta.secs = ns ? ns / 1e9 : L->first_secs > 0 ? L->first_secs : L->cfg.interval;
	}
	L->st.cur.interval_ns = (__u64)(L->st.delta.secs * 1e9 + 0.5);
	if (!L->cfg.sink_findings) {
		L->findings.doc = L->nic.nic ? L->nic.doctor(L->nic.nic) : NULL;
		if (rt_findings_eval(&L->findings, &L->st.cur, &L->st.delta)) {
			pr_warn("out of memory evaluating the findings.\n");
			return -ENOMEM;
		}
		L->st.delta.findings = &L->findings;
	}
	if (!emit)
		return 1;
	for (i = 0; i < L->nsinks; i++) {
		r = L->sinks[i]->emit(L->sinks[i], &L->st.cur, &L->st.delta);
		if (r < 0)
			return r;
	}
	L->emitted++;
	return 1;
}

/* A file ended, or a live run stopped: the episodes still open end with it,
 * each sink told of their closes (an episode cut by the end of a recording
 * or of the run shows its end and its peak's evidence, in the live run's
 * findings.csv as in a replay of its recording). */
static void run_ended(struct rt_loop *L)
{
	int i;

	if (L->cfg.sink_findings)
		return;
	rt_findings_finish(&L->findings);
	for (i = 0; i < L->nsinks; i++)
		if (L->sinks[i]->on_end)
			L->sinks[i]->on_end(L->sinks[i], &L->findings);
}

/* Restart a file source and skip to `to` seconds of capture time. */
static int seek(struct rt_loop *L, double to)
{
	const struct rt_ruleset *rules = L->findings.rules;
	int r;

	if (!L->src->rewind || L->src->rewind(L->src))
		return 0;
	rt_stream_restart(&L->st);
	rt_findings_free(&L->findings);
	rt_findings_init(&L->findings, &L->cfg.find, rules);
	/* Within the first interval: the caller's next step shows the first snapshot. */
	if (to < L->cfg.interval - 1e-9)
		return 1;
	do {
		r = step(L, 0);
	} while (r > 0 && (L->st.cur.time_ns - L->file_start_ns) / 1e9 + 1e-9 < to - L->cfg.interval);
	return r < 0 ? r : 1;
}

static void signal_sinks(struct rt_loop *L, int signo)
{
	int i, taken = 0;

	for (i = 0; i < L->nsinks; i++)
		if (L->sinks[i]->on_signal) {
			L->sinks[i]->on_signal(L->sinks[i], signo);
			taken = 1;
		}
	if (!taken)
		pr_info("SIGUSR1 asks the flight recorder to write, but no --flight-recorder runs.\n");
}

/* What the loop polls besides the sinks: the signals, the interval's timer,
 * and the watchdog that ends a stuck run (see the comment at the top). */
struct events {
	int sfd, tfd;
	int wd_pipe[2];
	int have_wd;
	pthread_t wd;
};

/* 0, or -errno after saying why; events_close() in either case. */
static int events_open(struct events *ev)
{
	sigset_t mask;
	size_t i;

	*ev = (struct events){ .sfd = -1, .tfd = -1, .wd_pipe = { -1, -1 } };
	sigemptyset(&mask);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&mask, stop_signals[i]);
	sigaddset(&mask, SIGUSR1);	/* the flight recorder's "write now" */
	sigprocmask(SIG_BLOCK, &mask, NULL);
	/* Blocked first, so the watchdog thread inherits the mask. */
	if (!pipe2(ev->wd_pipe, O_CLOEXEC) && pthread_create(&ev->wd, NULL, watchdog, &ev->wd_pipe[0]) == 0)
		ev->have_wd = 1;
	ev->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	ev->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (ev->sfd < 0 || ev->tfd < 0) {
		pr_warn("cannot set up the event loop: %s.\n", strerror(errno));
		return -errno;
	}
	return 0;
}

static void events_close(struct events *ev)
{
	if (ev->wd_pipe[1] >= 0)
		close(ev->wd_pipe[1]);
	if (ev->have_wd)
		pthread_join(ev->wd, NULL);
	if (ev->wd_pipe[0] >= 0)
		close(ev->wd_pipe[0]);
	if (ev->sfd >= 0)
		close(ev->sfd);
	if (ev->tfd >= 0)
		close(ev->tfd);
}

/*
 * A file without a view: as fast as the sinks take it, signals still stop
 * it. With --listen a scraper is a live consumer: the file is paced by
 * --speed as in the view (run_paced), so the endpoint lives as long as the
 * replay.
 */
static int run_unpaced(struct rt_loop *L, int sfd)
{
	struct signalfd_siginfo si;
	struct timespec ts;
	long long next = 0, now;
	int r;

	while ((r = step(L, 1)) > 0) {
		if (L->cfg.iterations && L->emitted >= L->cfg.iterations)
			break;
		/* The signalfd every 10 ms, not every interval: a file of
		 * short intervals paid a system call for each. */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = ts.tv_sec * 1000000000LL + ts.tv_nsec;
		if (now < next)
			continue;
		next = now + 10000000;
		if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGUSR1) {
				signal_sinks(L, SIGUSR1);
				continue;
			}
			break;
		}
	}
	if (r == 0)
		run_ended(L);
	return r < 0 ? r : 0;
}

/* The poll set: signals, timer, each sink's input (-1 is ignored by poll),
 * last the merged source's socket, so the sinks keep their places. */
static nfds_t poll_set(const struct rt_loop *L, const struct events *ev, struct pollfd *pfd)
{
	nfds_t n = 0;
	int i;

	pfd[n++] = (struct pollfd){ .fd = ev->sfd, .events = POLLIN };
	pfd[n++] = (struct pollfd){ .fd = ev->tfd, .events = POLLIN };
	for (i = 0; i < L->nsinks; i++)
		pfd[n++] = (struct pollfd){ .fd = L->sinks[i]->input_fd, .events = POLLIN };
	pfd[n++] = (struct pollfd){ .fd = L->merge.read ? L->merge.fd : -1, .events = POLLIN };
	return n;
}

/* A signal came: SIGUSR1 goes to the sinks (0: go on); a stop signal ends
 * the run after a last snapshot of a live source (1, or -EIO). */
static int on_signal(struct rt_loop *L, int sfd)
{
	struct signalfd_siginfo si;
	ssize_t got = read(sfd, &si, sizeof(si));

	if (got != sizeof(si))
		return 0;
	if (si.ssi_signo == SIGUSR1) {
		signal_sinks(L, SIGUSR1);
		return 0;
	}
	pr_debug("signal %u: stopping\n", si.ssi_signo);
	/* What arrived since the last interval still counts. */
	if (L->src->live && step(L, 1) < 0)
		return -EIO;
	return 1;
}

/* A sink asked to seek in a file: restart there and show that snapshot. 0 or -errno. */
static int on_seek(struct rt_loop *L, struct rt_ctl *ctl)
{
	double to = ctl->seek_to;
	int r;

	ctl->seek_to = 0;
	r = seek(L, to);
	if (r < 0)
		return r;
	ctl->at_end = 0;
	if (r > 0 && (r = step(L, 1)) < 0)
		return r;
	return 0;
}

/* The timer ticked, or a step was asked for while paused: the next snapshot
 * unless paused or at the end. 0: go on, 1: the run ends, <0: an error. */
static int on_tick(struct rt_loop *L, int tfd, struct rt_ctl *ctl, int interactive)
{
	__u64 ticks;
	int r;

	if (read(tfd, &ticks, sizeof(ticks)) != sizeof(ticks))	/* non-blocking */
		ticks = 0;
	if (ticks > 1 && !ctl->paused)
		L->missed += ticks - 1;
	if ((ctl->paused && ctl->step <= 0) || ctl->at_end)
		return 0;
	if (ctl->step > 0)
		ctl->step--;
	r = step(L, 1);
	if (r < 0)
		return r;
	if (r == 0) {
		ctl->at_end = 1;
		/* The view keeps the episodes open at the end on screen. */
		if (!interactive) {
			run_ended(L);
			return 1;
		}
	}
	if (L->cfg.iterations && L->emitted >= L->cfg.iterations)
		return 1;
	if (L->cfg.hook && L->cfg.hook(L->cfg.hook_arg, RT_HOOK_TICK) > 0) {
		if (L->src->live && step(L, 1) < 0)
			return -EIO;
		return 1;
	}
	return 0;
}

static double pace(const struct rt_loop *L, const struct rt_ctl *ctl)
{
	return ctl->interval / (L->src->live ? 1 : ctl->speed);
}

/* A live source, or a file with a view or a scraper: one snapshot a tick,
 * between the signals, the sinks' input and the merged source's datagrams. */
static int run_paced(struct rt_loop *L, struct events *ev, int interactive)
{
	struct rt_ctl ctl = { .interval = L->cfg.interval, .speed = L->cfg.speed, .is_file = !L->src->live };
	struct pollfd pfd[3 + RT_MAX_SINKS];
	double armed = pace(L, &ctl);
	int i, r;

	arm_timer(ev->tfd, armed);
	/* A live source shows its first snapshot after one interval; a file at once. */
	if (!L->src->live) {
		r = step(L, 1);
		if (r < 0)
			return r;
		ctl.at_end = r == 0;
	}
	while (!ctl.quit) {
		nfds_t n = poll_set(L, ev, pfd);

		if (poll(pfd, n, 500) < 0 && errno != EINTR)
			return -errno;
		/* A bounded batch: a flood cannot hold off the timer or the keys. */
		if (L->merge.read && (pfd[n - 1].revents & POLLIN))
			L->merge.read(L->merge.arg);
		if ((pfd[0].revents & POLLIN) && (r = on_signal(L, ev->sfd)))
			return r < 0 ? r : 0;
		for (i = 0; i < L->nsinks; i++)
			if (pfd[2 + i].fd >= 0 && (pfd[2 + i].revents & (POLLIN | POLLHUP)) &&
			    L->sinks[i]->on_input)
				L->sinks[i]->on_input(L->sinks[i], &ctl);
		if (ctl.quit)
			break;
		if (ctl.seek_to > 0 && (r = on_seek(L, &ctl)) < 0)
			return r;
		if (pace(L, &ctl) != armed) {
			armed = pace(L, &ctl);
			arm_timer(ev->tfd, armed);
		}
		if (((pfd[1].revents & POLLIN) || (ctl.paused && ctl.step > 0)) &&
		    (r = on_tick(L, ev->tfd, &ctl, interactive)))
			return r < 0 ? r : 0;
		for (i = 0; i < L->nsinks; i++)
			if (L->sinks[i]->on_idle)
				L->sinks[i]->on_idle(L->sinks[i], &ctl);
	}
	return 0;
}

static int run(struct rt_loop *L)
{
	struct events ev;
	int interactive = 0, err, i;

	for (i = 0; i < L->nsinks; i++)
		if (L->sinks[i]->input_fd >= 0)
			interactive = 1;
	err = events_open(&ev);
	if (!err && L->cfg.hook && (i = L->cfg.hook(L->cfg.hook_arg, RT_HOOK_READY)) < 0)
		err = i;
	if (!err)
		err = !L->src->live && !interactive && !L->cfg.scraped ? run_unpaced(L, ev.sfd) :
			run_paced(L, &ev, interactive);
	if (!err && L->src->live)
		run_ended(L);
	events_close(&ev);
	return err;
}

void rt_loop_init(struct rt_loop *L, const struct rt_loop_cfg *cfg)
{
	memset(L, 0, sizeof(*L));
	L->cfg = *cfg;
	rt_findings_init(&L->findings, &L->cfg.find, &rt_rules);
}

int rt_loop_open(struct rt_loop *L)
{
	if (rt_stream_init(&L->st, L->src, &L->nic)) {
		pr_warn("out of memory.\n");
		return -ENOMEM;
	}
	L->st.merge = L->merge.merge;
	L->st.merge_arg = L->merge.arg;
	L->st.probes = L->probes.add;
	L->st.probes_arg = L->probes.arg;
	return 0;
}

int rt_loop_add_sink(struct rt_loop *L, struct rt_sink *s)
{
	if (!s)
		return -EINVAL;
	if (L->nsinks == RT_MAX_SINKS) {
		pr_warn("more than %d outputs at once: leave one out.\n", RT_MAX_SINKS);
		return -E2BIG;
	}
	L->sinks[L->nsinks++] = s;
	return 0;
}

int rt_loop_run(struct rt_loop *L)
{
	int i;

	for (i = 0; i < L->nsinks; i++)
		if (L->sinks[i]->start)
			L->sinks[i]->start(L->sinks[i], L->src);
	return run(L);
}

void rt_loop_free(struct rt_loop *L)
{
	rt_stream_free(&L->st);
	rt_findings_free(&L->findings);
}
