// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The one loop: take snapshots from a source and hand them, with what changed,
 * to every sink. One poll over a signalfd, a timerfd and the sinks' inputs.
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
#include "join.h"
#include "log.h"
#include "sink.h"
#include "source.h"
#include "sflow.h"
#include "stream.h"

#define MAX_SINKS 8
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

struct loop {
	struct rt_source *src;
	struct rt_nic *nic;
	struct rt_sflow *sf;	/* --sflow: merged into every snapshot */
	struct rt_sink *sinks[MAX_SINKS];
	int nsinks;
	struct rt_stream st;	/* the flow table and what changed (user/core/stream.h) */
	long emitted;
	__u64 missed;		/* timer expirations beyond one per tick read */
	__u64 file_start_ns;
	struct rt_findings findings;
};

/* sFlow's rows, added to each snapshot the source took (rt_stream.merge). */
static int merge_sflow(void *arg, struct rt_snapshot *snap)
{
	struct rt_sflow *sf = arg;

	rt_sflow_read(sf);	/* what arrived since the last wakeup */
	if (rt_sflow_collect(sf, snap)) {
		pr_warn("out of memory collecting sFlow.\n");
		return -ENOMEM;
	}
	return 1;
}

/* Take one snapshot and hand it to every sink. 1: done, 0: source ended, <0: error. */
static int step(struct loop *L, const struct rt_opts *o, int emit)
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
	if ((r = rt_nic_failed(L->nic)) < 0)
		return r;	/* --qp-counters bound nothing: said, the run ends */
	if (!L->file_start_ns)
		L->file_start_ns = L->st.cur.time_ns;
	/* The first snapshot counts from the start: rate it over one interval. */
	if (first)
		L->st.delta.secs = o->interval;
	if (!o->sink_findings) {
		L->findings.doc = rt_nic_doctor(L->nic);
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

/* Restart a file source and skip to `to` seconds of capture time. */
static int seek(struct loop *L, const struct rt_opts *o, double to)
{
	int r;

	if (!L->src->rewind || L->src->rewind(L->src))
		return 0;
	rt_stream_restart(&L->st);
	rt_findings_free(&L->findings);
	rt_findings_init(&L->findings, &o->find);
	/* Within the first interval: the caller's next step shows the first snapshot. */
	if (to < o->interval - 1e-9)
		return 1;
	do {
		r = step(L, o, 0);
	} while (r > 0 && (L->st.cur.time_ns - L->file_start_ns) / 1e9 + 1e-9 < to - o->interval);
	return r < 0 ? r : 1;
}

static void signal_sinks(struct loop *L, int signo)
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

static int run(struct loop *L, const struct rt_opts *o)
{
	struct rt_ctl ctl = { .interval = o->interval, .speed = o->speed, .is_file = !L->src->live };
	int interactive = 0, sfd = -1, tfd = -1, err = 0, i, r;
	int wd_pipe[2] = { -1, -1 }, have_wd = 0;
	pthread_t wd;
	double armed = 0;
	sigset_t mask;

	for (i = 0; i < L->nsinks; i++)
		if (L->sinks[i]->input_fd >= 0)
			interactive = 1;

	sigemptyset(&mask);
	for (i = 0; i < (int)(sizeof(stop_signals) / sizeof(stop_signals[0])); i++)
		sigaddset(&mask, stop_signals[i]);
	sigaddset(&mask, SIGUSR1);	/* the flight recorder's "write now" */
	sigprocmask(SIG_BLOCK, &mask, NULL);
	/* Blocked first, so the watchdog thread inherits the mask. */
	if (!pipe2(wd_pipe, O_CLOEXEC) && pthread_create(&wd, NULL, watchdog, &wd_pipe[0]) == 0)
		have_wd = 1;
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (sfd < 0 || tfd < 0) {
		pr_warn("cannot set up the event loop: %s.\n", strerror(errno));
		err = -errno;
		goto out;
	}

	if (o->hook && (r = o->hook(o->hook_arg, RT_HOOK_READY)) < 0) {
		err = r;
		goto out;
	}

	/*
	 * A file without a view: as fast as the sinks take it, signals still stop
	 * it. With --listen a scraper is a live consumer: the file is paced by
	 * --speed as in the view, so the endpoint lives as long as the replay.
	 */
	if (!L->src->live && !interactive && !o->listen) {
		struct signalfd_siginfo si;
		struct timespec ts;
		long long next = 0, now;

		while ((r = step(L, o, 1)) > 0) {
			if (o->iterations && L->emitted >= o->iterations)
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
		err = r < 0 ? r : 0;
		goto out;
	}

	armed = ctl.interval / (L->src->live ? 1 : ctl.speed);
	arm_timer(tfd, armed);
	/* A live source shows its first snapshot after one interval; a file at once. */
	if (!L->src->live) {
		r = step(L, o, 1);
		if (r < 0) {
			err = r;
			goto out;
		}
		ctl.at_end = r == 0;
	}
	while (!ctl.quit) {
		struct pollfd pfd[3 + MAX_SINKS];
		int n = 0;
		double want;

		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = tfd, .events = POLLIN };
		for (i = 0; i < L->nsinks; i++)
			pfd[n++] = (struct pollfd){ .fd = L->sinks[i]->input_fd, .events = POLLIN };
		/* Last, so the sinks keep their places; -1 is ignored by poll. */
		pfd[n++] = (struct pollfd){ .fd = L->sf ? rt_sflow_fd(L->sf) : -1, .events = POLLIN };
		r = poll(pfd, (nfds_t)n, 500);
		if (r < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		/* A bounded batch: a flood cannot hold off the timer or the keys. */
		if (L->sf && (pfd[n - 1].revents & POLLIN))
			rt_sflow_read(L->sf);
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			ssize_t got = read(sfd, &si, sizeof(si));

			if (got == sizeof(si) && si.ssi_signo == SIGUSR1) {
				signal_sinks(L, SIGUSR1);
			} else if (got == sizeof(si)) {
				pr_debug("signal %u: stopping\n", si.ssi_signo);
				/* What arrived since the last interval still counts. */
				if (L->src->live && step(L, o, 1) < 0)
					err = -EIO;
				break;
			}
		}
		for (i = 0; i < L->nsinks; i++)
			if (pfd[2 + i].fd >= 0 && (pfd[2 + i].revents & (POLLIN | POLLHUP)) &&
			    L->sinks[i]->on_input)
				L->sinks[i]->on_input(L->sinks[i], &ctl);
		if (ctl.quit)
			break;
		if (ctl.seek_to > 0) {
			double to = ctl.seek_to;

			ctl.seek_to = 0;
			r = seek(L, o, to);
			if (r < 0) {
				err = r;
				break;
			}
			ctl.at_end = 0;
			if (r > 0 && (r = step(L, o, 1)) < 0) {
				err = r;
				break;
			}
		}
		want = ctl.interval / (L->src->live ? 1 : ctl.speed);
		if (want != armed) {
			armed = want;
			arm_timer(tfd, armed);
		}
		/* A tick, or a step asked for while paused: that one comes at once. */
		if ((pfd[1].revents & POLLIN) || (ctl.paused && ctl.step > 0)) {
			__u64 ticks;

			if (read(tfd, &ticks, sizeof(ticks)) != sizeof(ticks))	/* non-blocking */
				ticks = 0;
			if (ticks > 1 && !ctl.paused)
				L->missed += ticks - 1;
			if ((!ctl.paused || ctl.step > 0) && !ctl.at_end) {
				if (ctl.step > 0)
					ctl.step--;
				r = step(L, o, 1);
				if (r < 0) {
					err = r;
					break;
				}
				if (r == 0) {
					ctl.at_end = 1;
					if (!interactive)
						break;
				}
				if (o->iterations && L->emitted >= o->iterations)
					break;
				if (o->hook && o->hook(o->hook_arg, RT_HOOK_TICK) > 0) {
					if (L->src->live && step(L, o, 1) < 0)
						err = -EIO;
					break;
				}
			}
		}
		for (i = 0; i < L->nsinks; i++)
			if (L->sinks[i]->on_idle)
				L->sinks[i]->on_idle(L->sinks[i], &ctl);
	}
out:
	if (wd_pipe[1] >= 0)
		close(wd_pipe[1]);
	if (have_wd)
		pthread_join(wd, NULL);
	if (wd_pipe[0] >= 0)
		close(wd_pipe[0]);
	if (sfd >= 0)
		close(sfd);
	if (tfd >= 0)
		close(tfd);
	return err;
}

static int add_sink(struct loop *L, struct rt_sink *s)
{
	if (!s)
		return -EINVAL;
	L->sinks[L->nsinks++] = s;
	return 0;
}

int rt_run(const struct rt_opts *o)
{
	struct loop L = { 0 };
	int err = -EINVAL, i, tui, sink_taken = 0;

	rt_findings_init(&L.findings, &o->find);
	if (o->sflow || o->have_sflow_fd) {
		L.sf = rt_sflow_new(o);
		if (!L.sf)
			goto out;
	}
	L.src = o->read_file ? rt_file_source_new(o) :
		L.sf && !o->nifaces ? rt_sflow_clock_source_new(o) : rt_live_source_new(o);
	if (!L.src)
		goto out;
	if (L.src->live && !o->no_nic)
		L.nic = rt_nic_new(o);
	if (rt_stream_init(&L.st, L.src, L.nic)) {
		pr_warn("out of memory.\n");
		err = -ENOMEM;
		goto out;
	}
	if (L.sf) {
		L.st.merge = merge_sflow;
		L.st.merge_arg = L.sf;
	}

	tui = !o->batch && !o->daemon && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	if (o->batch || (!o->daemon && !tui))
		if (add_sink(&L, rt_batch_sink_new(o)))
			goto out;
	if (o->csv_dir && add_sink(&L, rt_csv_sink_new(o)))
		goto out;
	if (o->write_file && add_sink(&L, rt_record_sink_new(o)))
		goto out;
	if (o->listen && add_sink(&L, rt_prom_sink_new(o)))
		goto out;
	if (o->flight_secs && add_sink(&L, rt_flight_sink_new(o)))
		goto out;
	if (tui && add_sink(&L, rt_tui_sink_new(o)))
		goto out;
	if (o->sink && add_sink(&L, o->sink))
		goto out;
	sink_taken = 1;

	for (i = 0; i < L.nsinks; i++)
		if (L.sinks[i]->start)
			L.sinks[i]->start(L.sinks[i], L.src);
	err = run(&L, o);
	if (!err && L.nic)
		err = rt_nic_end(L.nic);
out:
	for (i = L.nsinks - 1; i >= 0; i--)
		L.sinks[i]->close(L.sinks[i]);
	/* The caller's sink is closed here too when the run ended before it was taken. */
	if (o->sink && !sink_taken)
		o->sink->close(o->sink);
	if (L.nic)
		rt_nic_free(L.nic);
	if (L.src)
		L.src->close(L.src);
	rt_sflow_free(L.sf);
	rt_stream_free(&L.st);
	rt_findings_free(&L.findings);
	return err;
}

