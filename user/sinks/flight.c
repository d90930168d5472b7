// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --flight-recorder DURATION: the minutes before an incident that nobody was
 * recording. The last DURATION of snapshots stay in memory as compressed
 * recording blocks (user/core/record.h), never more than FLIGHT_MAX_BYTES.
 * When a finding of at least --trigger severity opens, or on SIGUSR1, they are
 * written to DIR/rocetop-YYYYmmddTHHMMSS.rtr (UTC), followed by the next
 * DURATION of snapshots; then the recorder waits again. A trigger while a file
 * is being written extends it. At most --max-files such files stay in DIR.
 *
 * Counters in the file count from the snapshot just before its first one, so
 * a replay or a report of it shows the incident from its start.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>
#include "findings.h"
#include "host.h"
#include "log.h"
#include "record.h"
#include "sink.h"
#include "sinks.h"

#define FLIGHT_MAX_BYTES (512ULL << 20)

struct fblock {
	__u64 time_ns;
	unsigned char *blk;
	size_t len;
};

struct flight {
	double secs;
	int trigger;
	int max_files;
	char dir[4096];
	char host[64];
	char options[1024];	/* the command line, for each file's header */
	char id[RT_REC_ID_LEN + 1];	/* a new one for each file */
	struct fblock *ring;
	size_t n, cap;
	size_t bytes, peak_bytes;
	struct fblock base;		/* the last block dropped from the ring */
	struct rt_rec_buf b;
	struct rt_snapshot dec, basesnap, tmp;
	struct rt_snapshot sorted;	/* the loop's flow table in key order */
	int have_basesnap;
	int fd;
	char path[4200];
	__u64 until_ns;
	long blocks;
	int usr1;
	int files;
};

static void fblock_free(struct fblock *f)
{
	free(f->blk);
	memset(f, 0, sizeof(*f));
}

/* Decode a stored block (header, zlib data) into s. */
static int block_decode(const struct fblock *f, struct rt_snapshot *s)
{
	__u32 zlen, rawlen;
	unsigned char *raw;
	uLongf out;
	int err;

	if (f->len < 16)
		return -EINVAL;
	zlen = (__u32)f->blk[4] | (__u32)f->blk[5] << 8 | (__u32)f->blk[6] << 16 | (__u32)f->blk[7] << 24;
	rawlen = (__u32)f->blk[8] | (__u32)f->blk[9] << 8 | (__u32)f->blk[10] << 16 | (__u32)f->blk[11] << 24;
	raw = malloc(rawlen ? rawlen : 1);
	if (!raw)
		return -ENOMEM;
	out = rawlen;
	if (uncompress(raw, &out, f->blk + 16, zlen) != Z_OK || out != rawlen) {
		free(raw);
		return -EIO;
	}
	rt_snapshot_clear(s);
	err = rt_rec_decode_own(raw, rawlen, s);
	free(raw);
	return err;
}

/*
 * A name this recorder gives its files: rocetop-YYYYmmddTHHMMSS.rtr, or with
 * -K (1 to 99) before .rtr when that second was taken.
 */
static int flight_name(const char *base)
{
	size_t i, n = strlen(base);

	if (n < 27 || strncmp(base, "rocetop-", 8) || strcmp(base + n - 4, ".rtr"))
		return 0;
	for (i = 8; i < 23; i++)
		if (i == 16 ? base[i] != 'T' : base[i] < '0' || base[i] > '9')
			return 0;
	if (n == 27)
		return 1;
	if (base[23] != '-' || n > 30 || n < 29)
		return 0;
	for (i = 24; i < n - 4; i++)
		if (base[i] < '0' || base[i] > '9')
			return 0;
	return base[24] != '0';
}

struct owned {
	const char *path;
	__u64 created_ns;
};

static int owned_cmp(const void *a, const void *b)
{
	const struct owned *x = a, *y = b;

	if (x->created_ns != y->created_ns)
		return x->created_ns < y->created_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

/*
 * Keep at most max_files flight recordings in DIR. Only files this recorder
 * wrote count and may go: a regular file of this user's with one link and one
 * of its names, whose header says the flight recorder of this host wrote it
 * ("writer flight", "host");
 * a user's rocetop-baseline.rtr, a -w recording or another host's file are
 * never touched. The oldest go first by the creation time in their headers,
 * never the file being written (F->path).
 */
static void prune_files(struct flight *F)
{
	char pat[4200], host[64], id[RT_REC_ID_LEN + 1], writer[16];
	struct owned *own = NULL;
	size_t i, n = 0, cap = 0, keep;
	glob_t g;

	if (!F->max_files)
		return;
	snprintf(pat, sizeof(pat), "%s/rocetop-*.rtr", F->dir);
	if (glob(pat, 0, NULL, &g))
		return;
	for (i = 0; i < g.gl_pathc; i++) {
		const char *p = g.gl_pathv[i], *b = strrchr(p, '/');
		struct stat st;
		__u64 created;

		/* this user's own file with one name: in a shared sticky DIR
		 * another user's forgery (a matching header, created-ns far
		 * in the future) made the real recordings go */
		if (!strcmp(p, F->path) || !flight_name(b ? b + 1 : p) || lstat(p, &st) || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid() || st.st_nlink != 1)
			continue;
		if (rt_rec_peek(p, host, sizeof(host), id, &created, writer, sizeof(writer)) ||
		    strcmp(writer, "flight") || strcmp(host, F->host))
			continue;
		if (rt_grow_for((void **)&own, &cap, n + 1, sizeof(*own)))
			break;
		own[n].path = p;
		own[n++].created_ns = created;
	}
	/* The file just started is one of the max_files kept. */
	keep = F->fd >= 0 ? (size_t)F->max_files - 1 : (size_t)F->max_files;
	if (n > 1)
		qsort(own, n, sizeof(*own), owned_cmp);
	for (i = 0; i + keep < n; i++) {
		if (unlink(own[i].path))
			pr_warn("cannot remove the old flight recording %s: %s.\n", own[i].path, strerror(errno));
		else
			pr_info("flight recorder: removed %s, its oldest (--max-files %d).\n", own[i].path,
				F->max_files);
	}
	free(own);
	globfree(&g);
}

static int write_snap(struct flight *F, const struct rt_snapshot *s)
{
	const struct rt_snapshot *w = s;
	int err;

	if (F->have_basesnap) {
		if (rt_rec_rebase(&F->tmp, &F->basesnap, s))
			return -ENOMEM;
		w = &F->tmp;
	}
	if ((err = rt_rec_block(w, &F->b)) || (err = rt_rec_write_all(F->fd, F->b.z, F->b.zlen)))
		return err;
	F->blocks++;
	return 0;
}

/* Close the file being written; 0, or -errno when its data did not reach the
 * disk (a full disk seen only now), after saying so. */
static int finish_file(struct flight *F, const char *why)
{
	int err = 0;

	if (F->fd < 0)
		return 0;
	if (fdatasync(F->fd) && errno != EINVAL)
		err = -errno;
	if (close(F->fd) && !err && errno != EINTR)
		err = -errno;
	F->fd = -1;
	if (err) {
		pr_warn("flight recorder: %s did not reach the disk whole (%s): it may end before its %ld snapshots; the run stops.\n",
			F->path, strerror(-err), F->blocks);
		return err;
	}
	pr_info("flight recorder: %s written (%ld snapshots)%s.\n", F->path, F->blocks, why);
	return 0;
}

/*
 * Writing F->path failed (a full disk): the run ends with this sentence and a
 * non-zero exit. A file that holds no complete snapshot is removed (it would
 * only count against --max-files and be refused by report); one that does is
 * kept, readable up to its last complete snapshot. Files already finished stay.
 */
static int fail_file(struct flight *F, int err)
{
	close(F->fd);
	F->fd = -1;
	if (F->blocks || unlink(F->path))
		pr_warn("flight recorder: writing %s failed (%s): it keeps its first %ld snapshots; the run stops.\n",
			F->path, strerror(-err), F->blocks);
	else
		pr_warn("flight recorder: writing %s failed (%s): it held no complete snapshot and was removed; the run stops.\n",
			F->path, strerror(-err));
	return err;
}

static int start_file(struct flight *F, const struct rt_snapshot *cur, const char *why)
{
	time_t t = (time_t)(cur->time_ns / 1000000000ULL);
	struct rt_rec_meta m = { .host = F->host, .writer = "flight", .options = F->options };
	unsigned char *h;
	char stamp[32];
	struct tm tm;
	size_t i, hl;
	int err, k;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	snprintf(F->path, sizeof(F->path), "%s/rocetop-%s.rtr", F->dir, stamp);
	for (k = 1; access(F->path, F_OK) == 0 && k < 100; k++)
		snprintf(F->path, sizeof(F->path), "%s/rocetop-%s-%d.rtr", F->dir, stamp, k);
	F->fd = open(F->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (F->fd < 0) {
		pr_warn("flight recorder: cannot write %s: %s; it keeps waiting.\n", F->path, strerror(errno));
		return 0;	/* the other sinks go on */
	}
	rt_rec_new_id(F->id);
	memcpy(m.id, F->id, sizeof(m.id));
	m.created_ns = rt_rec_now_ns();
	if (rt_rec_header(&h, &hl, &m))
		return -ENOMEM;
	err = rt_rec_write_all(F->fd, h, hl);
	free(h);
	F->blocks = 0;
	F->have_basesnap = 0;
	if (!err && F->base.blk) {
		if ((err = block_decode(&F->base, &F->basesnap)))
			pr_warn("flight recorder: cannot read back its oldest snapshot; counts in %s are since the start.\n",
				F->path);
		else
			F->have_basesnap = 1;
		err = 0;
	}
	for (i = 0; !err && i < F->n; i++) {
		if ((err = block_decode(&F->ring[i], &F->dec)))
			break;
		err = write_snap(F, &F->dec);
	}
	if (err)
		return fail_file(F, err);
	F->until_ns = cur->time_ns + (__u64)(F->secs * 1e9);
	pr_info("flight recorder: %s: writing %s with the last %zu snapshots (%zu KB held in memory) and the next %g s.\n",
		why, F->path, F->n, (F->bytes + 1023) / 1024, F->secs);
	F->files++;
	prune_files(F);
	return 0;
}

/* Add cur to the ring; drop what is older than the duration (or too big). */
static int push(struct flight *F, const struct rt_snapshot *cur)
{
	struct fblock *e;
	__u64 keep_from = cur->time_ns > (__u64)(F->secs * 1e9) ? cur->time_ns - (__u64)(F->secs * 1e9) : 0;
	size_t drop = 0, i;
	int err;

	/* Blocks hold flows in key order, as a recording does (record.h): the
	 * rebase on the block before the window walks both in that order. */
	if (cur->tab) {
		if (rt_snapshot_copy_sorted(&F->sorted, cur))
			return -ENOMEM;
		cur = &F->sorted;
	}
	if ((err = rt_rec_block(cur, &F->b)))
		return err;
	if (rt_grow_for((void **)&F->ring, &F->cap, F->n + 1, sizeof(*F->ring)))
		return -ENOMEM;
	e = &F->ring[F->n];
	e->blk = malloc(F->b.zlen);
	if (!e->blk)
		return -ENOMEM;
	memcpy(e->blk, F->b.z, F->b.zlen);
	e->len = F->b.zlen;
	e->time_ns = cur->time_ns;
	F->n++;
	F->bytes += e->len;
	while (drop + 1 < F->n && (F->ring[drop].time_ns < keep_from || F->bytes > FLIGHT_MAX_BYTES)) {
		F->bytes -= F->ring[drop].len;
		fblock_free(&F->base);
		F->base = F->ring[drop];
		drop++;
	}
	if (drop) {
		for (i = drop; i < F->n; i++)
			F->ring[i - drop] = F->ring[i];
		F->n -= drop;
	}
	if (F->bytes > F->peak_bytes)
		F->peak_bytes = F->bytes;
	return 0;
}

static int flight_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct flight *F = s->priv;
	const struct rt_findings *fnd = d->findings;
	char why[160] = "";
	size_t i;
	int err;

	if ((err = push(F, cur))) {
		pr_warn("flight recorder: cannot keep a snapshot: %s.\n", strerror(-err));
		return err;
	}
	for (i = 0; fnd && i < fnd->nev && !why[0]; i++)
		if (fnd->ev[i].event == RT_FEV_OPEN && fnd->ev[i].f.sev >= F->trigger)
			snprintf(why, sizeof(why), "%s finding %s opened", rt_sev_name(fnd->ev[i].f.sev),
				 fnd->ev[i].f.rule);
	if (F->usr1) {
		F->usr1 = 0;
		if (!why[0])
			snprintf(why, sizeof(why), "SIGUSR1");
	}
	if (F->fd >= 0) {
		if ((err = write_snap(F, cur->tab ? &F->sorted : cur)))	/* push() sorted it */
			return fail_file(F, err);
		if (why[0]) {
			F->until_ns = cur->time_ns + (__u64)(F->secs * 1e9);
			pr_info("flight recorder: %s: %s now goes on to %g s from here.\n", why, F->path, F->secs);
		}
	} else if (why[0]) {
		if ((err = start_file(F, cur, why)))
			return err;
	}
	if (F->fd >= 0 && cur->time_ns >= F->until_ns)
		return finish_file(F, "");
	return 0;
}

static void flight_signal(struct rt_sink *s, int signo)
{
	struct flight *F = s->priv;

	if (signo == SIGUSR1) {
		F->usr1 = 1;
		pr_info("flight recorder: SIGUSR1: writing at the next snapshot.\n");
	}
}

/* same shape as the other sinks' close and constructor: each its own state (user/core/sink.c: the rest) */
static void flight_close(struct rt_sink *s)
{
	struct flight *F = s->priv;
	size_t i;

	if (F) {
		finish_file(F, ", cut short by the end of the run");
		pr_debug("flight recorder: at most %zu KB held in memory\n", (F->peak_bytes + 1023) / 1024);
		for (i = 0; i < F->n; i++)
			fblock_free(&F->ring[i]);
		free(F->ring);
		fblock_free(&F->base);
		rt_rec_buf_free(&F->b);
		rt_snapshot_free(&F->dec);
		rt_snapshot_free(&F->basesnap);
		rt_snapshot_free(&F->sorted);
		rt_snapshot_free(&F->tmp);
	}
	rt_sink_free(s);
}

struct rt_sink *rt_flight_sink_new(const struct rt_flight_cfg *c)
{
	struct rt_sink *s = rt_sink_new("flight", sizeof(struct flight), flight_emit, flight_close);
	struct flight *F;

	if (!s)
		return NULL;
	F = s->priv;
	s->on_signal = flight_signal;
	F->fd = -1;
	F->secs = c->secs;
	F->trigger = c->trigger;
	F->max_files = c->max_files;
	snprintf(F->dir, sizeof(F->dir), "%s", c->dir ? c->dir : ".");
	rt_host_name(c->hostname, F->host, sizeof(F->host));
	snprintf(F->options, sizeof(F->options), "%s", c->cmdline ? c->cmdline : "");
	if (access(F->dir, W_OK)) {
		pr_warn("--flight-dir %s: cannot write there: %s.\n", F->dir, strerror(errno));
		flight_close(s);
		return NULL;
	}
	rt_snapshot_init(&F->dec);
	rt_snapshot_init(&F->basesnap);
	rt_snapshot_init(&F->sorted);
	rt_snapshot_init(&F->tmp);
	pr_info("flight recorder: keeping the last %g s; a %s finding or SIGUSR1 (kill -USR1 %d) writes them to %s.\n",
		F->secs, rt_sev_name(F->trigger), (int)getpid(), F->dir);
	return s;
}
