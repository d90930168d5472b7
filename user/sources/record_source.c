// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * -r FILE over a rocetop recording: a source that hands out the recording
 * reader's snapshots (user/core/record.h) one per interval, rewinds by
 * reopening the file, and names what the file says made it (host, rocetop
 * version, kernel, command line). file.c chooses it by the file's magic.
 */
#include <stdlib.h>
#include <unistd.h>
#include "log.h"
#include "record.h"
#include "sources.h"

static int recsrc_collect(struct rt_source *src, struct rt_snapshot *snap)
{
	return rt_rec_next(src->priv, snap);
}

static int recsrc_rewind(struct rt_source *src)
{
	return rt_rec_rewind(src->priv);
}

static void recsrc_close(struct rt_source *src)
{
	rt_rec_close(src->priv);
	free(src);
}

struct rt_source *rt_rec_source_new(const struct rt_file_cfg *c, int fd, const void *head, size_t nhead)
{
	struct rt_source *src = calloc(1, sizeof(*src));

	if (!src) {
		pr_warn("out of memory.\n");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	src->priv = fd >= 0 ? rt_rec_open_fd(fd, c->path, head, nhead) : rt_rec_open(c->path);
	if (!src->priv) {
		free(src);
		return NULL;
	}
	src->name = "recording";
	src->host = rt_rec_host(src->priv);
	rt_rec_made_by(src->priv, &src->version, &src->kernel, &src->options);
	src->collect = recsrc_collect;
	src->rewind = recsrc_rewind;
	src->close = recsrc_close;
	return src;
}
