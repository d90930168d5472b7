// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * -w FILE: the recorder, a sink writing every snapshot as one block of the
 * recording format (user/core/record.h; record.c makes the header and the
 * blocks), the flows in key order.
 *
 * Crash safety: the file is append-only and each block goes out in one
 * write(), so a cut file (kill -9, power cut) reads back to its last complete
 * block. The data is fdatasync'ed at most every RT_REC_SYNC_SECS seconds of
 * wall-clock time and at close, so a power cut loses at most that much.
 *
 * Rotation (--max-size B [--max-files N]), like logrotate: FILE is always the
 * newest; when the next block would take FILE past B, FILE becomes FILE.1,
 * FILE.1 becomes FILE.2, ... and a fresh FILE starts. With --max-files N at
 * most N files are kept (FILE, FILE.1 .. FILE.N-1; the oldest is dropped);
 * without it every rotated file is kept. Each file stands alone: its counters
 * count from the last snapshot of the file before it, so replaying FILE.3
 * shows true per-interval deltas from its first interval on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "host.h"
#include "log.h"
#include "outfile.h"
#include "record.h"
#include "sinks.h"

#define RT_REC_SYNC_SECS 5

struct rec {
	char path[4096];
	int fd;
	long long size;		/* bytes in the current file */
	long long max_size;
	int max_files;
	int nrot;		/* rotated files that exist (FILE.1 .. FILE.nrot) */
	struct rt_rec_buf b;	/* the block being written */
	struct rt_snapshot last, base, tmp;
	struct rt_snapshot sorted;	/* the loop's table in key order, as stored */
	char host[64];
	char options[1024];	/* the command line, for each file's header */
	char id[RT_REC_ID_LEN + 1];	/* one id for FILE and every file rotated from it */
	int have_base;
	struct timespec synced;
	long long header_len;
};

static int rec_open_file(struct rec *r)
{
	unsigned char *h;
	size_t n;
	int err;

	/* No links followed, never the file being read, one writer (flock). */
	r->fd = rt_out_open(r->path, "the recording", RT_OUT_LOCK);
	if (r->fd < 0)
		return r->fd;
	struct rt_rec_meta m = { .host = r->host, .created_ns = rt_rec_now_ns(), .writer = "record",
				   .options = r->options };

	memcpy(m.id, r->id, sizeof(m.id));
	if (rt_rec_header(&h, &n, &m))
		return -ENOMEM;
	err = rt_rec_write_all(r->fd, h, n);
	free(h);
	if (err) {
		pr_warn("writing the recording %s failed: %s.\n", r->path, strerror(-err));
		return err;
	}
	r->size = r->header_len = (long long)n;
	return 0;
}

static void rot_name(char *buf, size_t sz, const char *path, int k)
{
	snprintf(buf, sz, "%s.%d", path, k);
}

/* May rotation put a file at path? Yes when nothing is there, or a file
 * this run rotated (k <= nrot), or a recording (its header read) of this
 * user's with one link, as a previous run left; never a file rocetop did
 * not write (a user's w.rtr.2 was replaced). */
static int rot_target_ok(const struct rec *r, const char *path, int k)
{
	char host[64], id[RT_REC_ID_LEN + 1], writer[16];
	struct stat st;
	__u64 created;

	if (k <= r->nrot || (lstat(path, &st) && errno == ENOENT))
		return 1;
	return S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1 &&
	       !rt_rec_peek(path, host, sizeof(host), id, &created, writer, sizeof(writer));
}

/* FILE -> FILE.1 -> FILE.2 ...; the oldest beyond --max-files goes. */
static int rec_rotate(struct rec *r)
{
	char a[4200], b[4200];
	int k, keep;

	if (r->fd >= 0) {
		fdatasync(r->fd);
		close(r->fd);
		r->fd = -1;
	}
	keep = r->max_files ? r->max_files - 1 : r->nrot + 1;	/* rotated files to keep */
	for (k = 1; k <= r->nrot + 1; k++) {
		rot_name(a, sizeof(a), r->path, k);
		if (rt_is_input(a)) {
			pr_warn("rotating the recording would replace %s, the file being read (-r); choose another -w name.\n",
				a);
			return -EEXIST;
		}
	}
	for (k = 1; keep > 0 && k <= (r->nrot < keep ? r->nrot + 1 : keep); k++) {
		rot_name(a, sizeof(a), r->path, k);
		if (!rot_target_ok(r, a, k)) {
			pr_warn("rotating the recording would replace %s, which is not a rocetop recording of this user's; move it or choose another -w name.\n",
				a);
			return -EEXIST;
		}
	}
	if (keep > 0) {
		k = r->nrot < keep ? r->nrot : keep - 1;
		for (; k >= 1; k--) {
			rot_name(a, sizeof(a), r->path, k);
			rot_name(b, sizeof(b), r->path, k + 1);
			if (rename(a, b) && errno != ENOENT)
				pr_warn("cannot rename %s to %s: %s.\n", a, b, strerror(errno));
		}
		rot_name(b, sizeof(b), r->path, 1);
		if (rename(r->path, b))
			pr_warn("cannot rename %s to %s: %s.\n", r->path, b, strerror(errno));
		if (r->nrot < keep)
			r->nrot++;
	}
	return rec_open_file(r);
}

/* Counters of cur since base (the last snapshot of the previous file). */
static int rebase(struct rec *r, const struct rt_snapshot *cur, const struct rt_snapshot **out)
{
	if (rt_rec_rebase(&r->tmp, &r->base, cur))
		return -ENOMEM;
	*out = &r->tmp;
	return 0;
}

static int rec_emit(struct rt_sink *s, const struct rt_snapshot *cur, const struct rt_delta *d)
{
	struct rec *r = s->priv;
	const struct rt_snapshot *w = cur;
	struct timespec now;
	int err;

	(void)d;
	if (r->fd < 0)
		return -EIO;
	/* A recording stores whole snapshots in key order (record.h). */
	if (cur->tab) {
		if (rt_snapshot_copy_sorted(&r->sorted, cur))
			return -ENOMEM;
		cur = w = &r->sorted;
	}
	if (r->have_base && (err = rebase(r, cur, &w)))
		return err;
	err = rt_rec_block(w, &r->b);
	if (err == -EIO) {
		pr_warn("compressing a snapshot for %s failed.\n", r->path);
		return err;
	}
	if (err) {
		pr_warn("cannot record a snapshot of %zu flows: %s.\n", cur->nflows, strerror(-err));
		return err;
	}
	if (r->max_size && r->size > r->header_len && r->size + (long long)r->b.zlen > r->max_size) {
		/* The next file counts from the last snapshot of this one. */
		if (rt_snapshot_copy(&r->base, &r->last))
			return -ENOMEM;
		r->have_base = 1;
		if ((err = rec_rotate(r)))
			return err;
		return rec_emit(s, cur, d);
	}
	err = rt_rec_write_all(r->fd, r->b.z, r->b.zlen);
	if (err) {
		pr_warn("writing the recording %s failed: %s.\n", r->path, strerror(-err));
		return err;
	}
	r->size += (long long)r->b.zlen;
	if (r->max_size && rt_snapshot_copy(&r->last, cur))
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - r->synced.tv_sec >= RT_REC_SYNC_SECS) {
		fdatasync(r->fd);
		r->synced = now;
	}
	return 0;
}

static void rec_close(struct rt_sink *s)
{
	struct rec *r = s->priv;

	if (r) {
		if (r->fd >= 0) {
			fdatasync(r->fd);
			close(r->fd);
		}
		rt_rec_buf_free(&r->b);
		rt_snapshot_free(&r->last);
		rt_snapshot_free(&r->base);
		rt_snapshot_free(&r->tmp);
		rt_snapshot_free(&r->sorted);
	}
	rt_sink_free(s);
}

struct rt_sink *rt_record_sink_new(const struct rt_record_cfg *c)
{
	struct rt_sink *s = rt_sink_new("record", sizeof(struct rec), rec_emit, rec_close);
	struct rec *r;

	if (!s)
		return NULL;
	r = s->priv;
	r->fd = -1;
	snprintf(r->path, sizeof(r->path), "%s", c->path);
	r->max_size = c->max_size;
	r->max_files = c->max_files;
	rt_host_name(c->hostname, r->host, sizeof(r->host));
	snprintf(r->options, sizeof(r->options), "%s", c->cmdline ? c->cmdline : "");
	rt_rec_new_id(r->id);
	clock_gettime(CLOCK_MONOTONIC, &r->synced);
	if (rec_open_file(r)) {
		rec_close(s);
		return NULL;
	}
	return s;
}
