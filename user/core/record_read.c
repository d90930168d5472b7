// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recording format, its reading half: a recording's header and layout
 * mapped onto this build's by name and size, then its blocks checked,
 * inflated and decoded into snapshots, one at a time, damaged stretches
 * skipped. record.h describes the format and this interface; record.c is
 * the writing half; the -r source over it is user/sources/record_source.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "log.h"
#include "record_int.h"
#include "table.h"

/*
 * The reader trusts nothing in the file: the layout text names each struct
 * and field at most once, every size is bounded (RT_REC_MAX_STRUCT), every
 * count is bounded by the bytes its block holds, and what one block may
 * expand to in memory is capped (RT_REC_MAX_DECODED). A damaged block (bad
 * magic, length, CRC, zlib data or layout) is skipped: the reader looks for
 * the next block that passes every check, resumes there and says how much it
 * skipped. It reads through a small push-back buffer, so it never seeks while
 * reading and works on pipes (-r - ) as on files.
 */
#define RT_REC_MAX_STRUCT	65536		/* bytes of one stored struct */
#define RT_REC_MAX_DECODED	(1ull << 31)	/* bytes one block may expand to in memory */
#define RT_REC_MAX_SKIP_WARN	5
/* deflate makes at most about 1032 bytes of one; a block claiming more is damaged */
#define RT_REC_MAX_RATIO	1040u

struct map {			/* one field the file and this build both know */
	size_t foff, off, size;
	int is_char;
};

struct rt_rec_reader {
	char path[4096];
	int fd;
	long long data_off;	/* first block */
	long long off;		/* after the last complete block */
	long long pos;		/* the next byte read */
	long nblocks;
	size_t fsize[R__N];
	struct map *maps[R__N];
	size_t nmaps[R__N];
	unsigned char *z, *raw;
	size_t zcap, rawcap;
	unsigned char *pb;	/* pushed back bytes, read before the fd's */
	size_t pbpos, pblen, pbcap;
	int stopped;
	const char *damage;	/* why the stretch being skipped began, or NULL */
	long long damage_at;
	long nskipped;		/* damaged stretches skipped */
	long long skipped_bytes;
	char version[200];	/* "rocetop", "kernel", "options": "" in files before them */
	char kernel[200];
	char options[1024];
	char host[64];
	char id[RT_REC_ID_LEN + 1];	/* "recording-id": "" in files from before it */
	char writer[16];		/* "writer": "record", "flight" or "" */
	__u64 created_ns;		/* "created-ns": 0 in files from before it */
	int paused_est;			/* the file has no v.pfc_paused_ns: its rows are paused_est */
};

static ssize_t read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* Read n bytes: the pushed back ones first, then the file's. */
static ssize_t rin(struct rt_rec_reader *r, void *buf, size_t n)
{
	size_t take = r->pblen - r->pbpos;
	ssize_t got;

	if (take > n)
		take = n;
	if (take) {	/* pb is NULL until something was pushed back */
		memcpy(buf, r->pb + r->pbpos, take);
		r->pbpos += take;
	}
	got = take < n ? read_full(r->fd, (char *)buf + take, n - take) : 0;
	if (got < 0)
		return got;
	r->pos += (long long)take + got;
	return (ssize_t)take + got;
}

/* Give back n bytes just read (they come out first again). */
static int unread(struct rt_rec_reader *r, const unsigned char *buf, size_t n)
{
	size_t rest = r->pblen - r->pbpos;

	if (!n)
		return 0;
	if (n <= r->pbpos) {
		memmove(r->pb + r->pbpos - n, buf, n);
		r->pbpos -= n;
	} else {
		unsigned char *p = malloc(n + rest);

		if (!p)
			return -ENOMEM;
		memcpy(p, buf, n);
		if (rest)
			memcpy(p + n, r->pb + r->pbpos, rest);
		free(r->pb);
		r->pb = p;
		r->pbcap = r->pblen = n + rest;
		r->pbpos = 0;
	}
	r->pos -= (long long)n;
	return 0;
}

/* Why a layout is refused, for the reader's message. */
static char layout_why[160];

/* The recording's own lines (host, id, creation, writer, versions): 1 if
 * line is one of them, kept in r. */
static int layout_meta(struct rt_rec_reader *r, char *line)
{
	if (!strncmp(line, "host ", 5)) {
		snprintf(r->host, sizeof(r->host), "%s", line + 5);
		return 1;
	}
	if (!strncmp(line, "recording-id ", 13)) {
		if (strlen(line + 13) == RT_REC_ID_LEN &&
		    strspn(line + 13, "0123456789abcdef") == RT_REC_ID_LEN)
			memcpy(r->id, line + 13, sizeof(r->id));
		return 1;
	}
	if (!strncmp(line, "created-ns ", 11)) {
		unsigned long long v;
		char *e;

		errno = 0;
		v = strtoull(line + 11, &e, 10);
		if (!errno && e != line + 11 && !*e)
			r->created_ns = v;
		return 1;
	}
	if (!strncmp(line, "writer ", 7)) {
		snprintf(r->writer, sizeof(r->writer), "%s", line + 7);
		return 1;
	}
	if ((!strncmp(line, "rocetop ", 8) && strcmp(line, "rocetop recording")) ||
	    !strncmp(line, "kernel ", 7) || !strncmp(line, "options ", 8)) {
		char *v = strchr(line, ' ') + 1;

		snprintf(line[0] == 'r' ? r->version : line[0] == 'k' ? r->kernel : r->options,
			 line[0] == 'o' ? sizeof(r->options) : sizeof(r->version), "%s", v);
		return 1;
	}
	return 0;
}

/* "struct NAME SIZE": the map of a struct this build knows (*cur its index),
 * or *cur -1 for one it does not. NULL or why not. */
static const char *layout_struct(struct rt_rec_reader *r, const char *name, size_t a, int *cur)
{
	*cur = -1;
	for (int i = 0; i < R__N; i++) {
		if (strcmp(rt_rec_layout[i].name, name))
			continue;
		if (r->maps[i]) {
			snprintf(layout_why, sizeof(layout_why), "it describes struct %s twice", name);
			return layout_why;
		}
		if (!a || a > RT_REC_MAX_STRUCT) {
			snprintf(layout_why, sizeof(layout_why), "struct %s has a size of %zu bytes, not 1 to %d",
				 name, a, RT_REC_MAX_STRUCT);
			return layout_why;
		}
		*cur = i;
		r->fsize[i] = a;
		r->maps[i] = calloc(rt_rec_layout[i].nf, sizeof(struct map));
		if (!r->maps[i])
			return "out of memory";
	}
	return NULL;
}

/* "field NAME OFFSET SIZE TYPE" of struct cur: mapped onto this build's field
 * of that name when their sizes agree (seen[cur] marks it). NULL or why not. */
static const char *layout_field(struct rt_rec_reader *r, int cur, const char *name, size_t a,
				size_t b, const char *type, unsigned long long seen[R__N])
{
	if (b > r->fsize[cur] || a > r->fsize[cur] - b) {
		snprintf(layout_why, sizeof(layout_why), "field %s of struct %s lies outside its %zu bytes", name,
			 rt_rec_layout[cur].name, r->fsize[cur]);
		return layout_why;
	}
	for (size_t j = 0; j < rt_rec_layout[cur].nf; j++) {
		const struct field *f = &rt_rec_layout[cur].f[j];

		if (strcmp(f->name, name))
			continue;
		if (seen[cur] & (1ull << j)) {
			snprintf(layout_why, sizeof(layout_why), "it describes field %s of struct %s twice", name,
				 rt_rec_layout[cur].name);
			return layout_why;
		}
		seen[cur] |= 1ull << j;
		if (f->size == b)
			r->maps[cur][r->nmaps[cur]++] = (struct map){ a, f->off, b, !strncmp(type, "char", 4) };
		break;
	}
	return NULL;
}

/* After the lines: every struct described (or optional, then empty), and the
 * record counts among the snap struct's fields. NULL or why not. */
static const char *layout_complete(struct rt_rec_reader *r, const unsigned long long seen[R__N])
{
	static const char *const counts[] = { "nflows", "nifs", "nports", "nifaces", "nnotes" };
	size_t c;
	int i;

	for (i = 0; i < R__N; i++) {
		if (r->maps[i])
			continue;
		if (i < R_OPTIONAL) {
			snprintf(layout_why, sizeof(layout_why), "it does not describe struct %s", rt_rec_layout[i].name);
			return layout_why;
		}
		/* Older than sFlow: none of these (their counts read as 0). */
		r->fsize[i] = 0;
		r->maps[i] = calloc(1, sizeof(struct map));
		if (!r->maps[i])
			return "out of memory";
	}
	for (c = 0; c < rt_rec_layout[R_IFDIR].nf; c++)
		if (!strcmp(rt_rec_layout[R_IFDIR].f[c].name, "v.pfc_paused_ns"))
			r->paused_est = !(seen[R_IFDIR] & (1ull << c));
	/* Without the counts the records cannot be walked. */
	for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		size_t j;

		for (j = 0; j < rt_rec_layout[R_SNAP].nf; j++)
			if (!strcmp(rt_rec_layout[R_SNAP].f[j].name, counts[c]))
				break;
		if (j == rt_rec_layout[R_SNAP].nf || !(seen[R_SNAP] & (1ull << j)))
			return "its snap struct lacks the record counts";
	}
	return NULL;
}

/* Map the file's fields onto this build's by name and size; NULL or why not. */
static const char *parse_layout(struct rt_rec_reader *r, char *text)
{
	unsigned long long seen[R__N] = { 0 };
	char *save = NULL, *line;
	int cur = -1;

	rt_rec_layout_init();
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[96], type[32];
		const char *why;
		size_t a, b;

		if (layout_meta(r, line))
			continue;
		if (sscanf(line, "struct %95s %zu", name, &a) == 2)
			why = layout_struct(r, name, a, &cur);
		else if (cur >= 0 && sscanf(line, "field %95s %zu %zu %31s", name, &a, &b, type) == 4)
			why = layout_field(r, cur, name, a, b, type, seen);
		else
			continue;
		if (why)
			return why;
	}
	return layout_complete(r, seen);
}

static void unpack(const struct rt_rec_reader *r, int st, void *out, const unsigned char *in)
{
	size_t j;

	for (j = 0; j < r->nmaps[st]; j++) {
		const struct map *m = &r->maps[st][j];

		memcpy((char *)out + m->off, in + m->foff, m->size);
		if (m->is_char)
			((char *)out)[m->off + m->size - 1] = '\0';
	}
}

static void free_maps(struct rt_rec_reader *r)
{
	int i;

	for (i = 0; i < R__N; i++)
		free(r->maps[i]);
}

static void reader_free(struct rt_rec_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free_maps(r);
	free(r->z);
	free(r->raw);
	free(r->pb);
	free(r);
}

/* Read and check the header; 0, or -1 after saying why. */
static int read_header(struct rt_rec_reader *r)
{
	unsigned char fixed[HDR_FIXED];
	unsigned char *h = NULL;
	const char *path = r->path, *why;
	__u32 ver, dlen;
	ssize_t n;

	n = rin(r, fixed, sizeof(fixed));
	if (n < (ssize_t)sizeof(fixed) || memcmp(fixed, RT_REC_MAGIC, RT_REC_MAGIC_LEN)) {
		if (n < 0)
			pr_warn("cannot read %s: %s.\n", path, strerror((int)-n));
		else if (n >= RT_REC_MAGIC_LEN && !memcmp(fixed, RT_REC_MAGIC, RT_REC_MAGIC_LEN))
			pr_warn("%s is a rocetop recording cut inside its header: it holds no interval.\n", path);
		else
			pr_warn("%s is not a rocetop recording.\n", path);
		return -1;
	}
	ver = get32(fixed + 8);
	dlen = get32(fixed + 12);
	if (ver != RT_REC_VERSION) {
		pr_warn("%s is a rocetop recording of version %u; this rocetop reads version %d.\n",
			path, ver, RT_REC_VERSION);
		return -1;
	}
	if (dlen > 1 << 20) {
		pr_warn("%s has a damaged header (a layout of %u bytes).\n", path, dlen);
		return -1;
	}
	h = malloc(HDR_FIXED + dlen + 5);
	if (!h) {
		pr_warn("out of memory.\n");
		return -1;
	}
	memcpy(h, fixed, HDR_FIXED);
	n = rin(r, h + HDR_FIXED, dlen + 4);
	if (n < (ssize_t)dlen + 4) {
		pr_warn("%s is a rocetop recording cut inside its header: it holds no interval.\n", path);
		goto fail;
	}
	if (get32(h + HDR_FIXED + dlen) != (__u32)crc32(0, h, (uInt)(HDR_FIXED + dlen))) {
		pr_warn("%s has a damaged header (CRC mismatch).\n", path);
		goto fail;
	}
	h[HDR_FIXED + dlen] = '\0';
	why = parse_layout(r, (char *)h + HDR_FIXED);
	if (why) {
		pr_warn("%s describes a record layout this rocetop cannot read: %s.\n", path, why);
		goto fail;
	}
	free(h);
	r->data_off = r->off = HDR_FIXED + dlen + 4;
	return 0;
fail:
	free(h);
	return -1;
}

struct rt_rec_reader *rt_rec_open_fd(int fd, const char *name, const void *head, size_t nhead)
{
	struct rt_rec_reader *r = calloc(1, sizeof(*r));

	if (!r) {
		pr_warn("out of memory.\n");
		close(fd);
		return NULL;
	}
	r->fd = fd;
	snprintf(r->path, sizeof(r->path), "%s", name);
	if (nhead && unread(r, head, nhead)) {
		pr_warn("out of memory.\n");
		reader_free(r);
		return NULL;
	}
	r->pos = 0;
	if (read_header(r)) {
		reader_free(r);
		return NULL;
	}
	return r;
}

struct rt_rec_reader *rt_rec_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		pr_warn("cannot open %s: %s.\n", path, strerror(errno));
		return NULL;
	}
	return rt_rec_open_fd(fd, path, NULL, 0);
}

/* count * size added to *sum, or -1 when it would overflow. */
static int add_product(unsigned long long *sum, unsigned long long count, unsigned long long size)
{
	unsigned long long p;

	if (__builtin_mul_overflow(count, size, &p) || __builtin_add_overflow(*sum, p, sum))
		return -1;
	return 0;
}

/*
 * The size a record whose snap struct is h must have under the file's layout:
 * 0 and *raw, -EINVAL (counts that cannot be) or -E2BIG (more memory than a
 * block may take, RT_REC_MAX_DECODED).
 */
static int record_size(const struct rt_rec_reader *r, const struct rec_snap *h, unsigned long long *raw)
{
	unsigned long long need = r->fsize[R_SNAP], mem = 0;

	if (h->nifaces > RT_MAX_IFACES || h->nnotes > RT_MAX_NOTES || h->ncfgs > RT_MAX_CFGS)
		return -EINVAL;
	/* A struct the file leaves out (size 0) has no records. */
	if ((!r->fsize[R_SWPORT] && h->nswports) || (!r->fsize[R_SWDROP] && h->nswdrops) ||
	    (!r->fsize[R_SFAGENT] && h->nsfagents) || (!r->fsize[R_JOB] && h->njobs) ||
	    (!r->fsize[R_CFG] && h->ncfgs) || (!r->fsize[R_PROBE] && h->nprobes))
		return -EINVAL;
	if (add_product(&need, h->nflows, r->fsize[R_FLOW]) ||
	    add_product(&need, h->nifs, r->fsize[R_IFDIR]) ||
	    add_product(&need, h->nports, r->fsize[R_PORT]) ||
	    add_product(&need, h->nifaces, r->fsize[R_IFACE]) ||
	    add_product(&need, h->nnotes, r->fsize[R_NOTE]) ||
	    add_product(&need, h->nswports, r->fsize[R_SWPORT]) ||
	    add_product(&need, h->nswdrops, r->fsize[R_SWDROP]) ||
	    add_product(&need, h->nsfagents, r->fsize[R_SFAGENT]) ||
	    add_product(&need, h->njobs, r->fsize[R_JOB]) ||
	    add_product(&need, h->ncfgs, r->fsize[R_CFG]) ||
	    add_product(&need, h->nprobes, r->fsize[R_PROBE]))
		return -EINVAL;
	/* A small stored struct may stand for a large one in memory: cap that. */
	if (add_product(&mem, h->nflows, sizeof(struct rt_flow)) ||
	    add_product(&mem, h->nifs, sizeof(struct rt_ifdir)) ||
	    add_product(&mem, h->nports, sizeof(struct rt_port_ctr)) ||
	    add_product(&mem, h->nswports, sizeof(struct rt_swport)) ||
	    add_product(&mem, h->nswdrops, sizeof(struct rt_swdrop)) ||
	    add_product(&mem, h->nsfagents, sizeof(struct rt_sfagent)) ||
	    add_product(&mem, h->njobs, sizeof(struct rt_job)) ||
	    add_product(&mem, h->nprobes, sizeof(struct rt_probe_row)) || mem > RT_REC_MAX_DECODED)
		return -E2BIG;
	*raw = need;
	return 0;
}

/*
 * Inflate a block's zlen bytes (r->z) into r->raw, rawlen bytes. The snap
 * struct comes out first and says, with the layout, how long the record must
 * be: a block whose rawlen is not that is refused before anything more is
 * allocated or inflated (a damaged block claiming 1 GiB of zeros cost 1 GB
 * and 15 s once). 0, -EINVAL, -E2BIG, -EIO (not zlib data) or -ENOMEM.
 */
static int inflate_block(struct rt_rec_reader *r, __u32 zlen, __u32 rawlen)
{
	size_t head = r->fsize[R_SNAP];
	unsigned long long want;
	struct rec_snap h = { 0 };
	z_stream zs = { 0 };
	int err = 0, zr;

	if (rawlen < head)
		return -EINVAL;
	if (rt_grow_to((void **)&r->raw, &r->rawcap, head, 1))
		return -ENOMEM;
	if (inflateInit(&zs) != Z_OK)
		return -ENOMEM;
	zs.next_in = r->z;
	zs.avail_in = zlen;
	zs.next_out = r->raw;
	zs.avail_out = (uInt)head;
	while (zs.avail_out && (zr = inflate(&zs, Z_SYNC_FLUSH)) == Z_OK)
		;
	if (zs.avail_out) {
		err = -EIO;
		goto out;
	}
	unpack(r, R_SNAP, &h, r->raw);
	if ((err = record_size(r, &h, &want)))
		goto out;
	if (want != rawlen) {
		err = -EINVAL;
		goto out;
	}
	if (rt_grow_to((void **)&r->raw, &r->rawcap, rawlen, 1)) {
		err = -ENOMEM;
		goto out;
	}
	zs.next_out = r->raw + head;
	zs.avail_out = (uInt)(rawlen - head);
	zr = inflate(&zs, Z_FINISH);
	if (zr != Z_STREAM_END || zs.avail_out || zs.total_out != rawlen)
		err = -EIO;
out:
	inflateEnd(&zs);
	return err;
}

/*
 * The probe rows, last in a record (p: the first). What the file says is
 * bounded to what a row can mean: a finding or clock this build does not
 * know reads as none, a time that is no number (NaN, infinite, below -1) as
 * no sample, so no output prints a figure the mesh never measured.
 */
static int decode_probes(struct rt_rec_reader *r, struct rt_snapshot *s, const struct rec_snap *h,
			 const unsigned char *p)
{
	for (size_t i = 0; i < h->nprobes; i++, p += r->fsize[R_PROBE]) {
		struct rt_probe_row *w = rt_snapshot_add_probe(s);

		if (!w)
			return -ENOMEM;
		double *t[] = { &w->rtt_p50_us, &w->rtt_p99_us, &w->net_p50_us, &w->resp_p50_us, &w->net_base_us };

		unpack(r, R_PROBE, w, p);
		if (w->finding >= RT_PF__N)
			w->finding = RT_PF_NONE;
		if (w->clock != RT_PROBE_CLOCK_SYSTEM && w->clock != RT_PROBE_CLOCK_DEVICE)
			w->clock = 0;
		for (size_t k = 0; k < 5; k++)
			if (!(*t[k] >= -1 && *t[k] < 1e15))	/* NaN fails both */
				*t[k] = k == 4 ? 0 : -1;
	}
	return 0;
}

/* 0, -EINVAL (the block does not match the layout), -E2BIG or -ENOMEM. */
static int decode(struct rt_rec_reader *r, struct rt_snapshot *s, size_t len)
{
	const unsigned char *p = r->raw;
	struct rec_snap h = { 0 };
	unsigned long long need;
	size_t i;
	int err;

	if (len < r->fsize[R_SNAP])
		return -EINVAL;
	unpack(r, R_SNAP, &h, p);
	p += r->fsize[R_SNAP];
	/* Every count is bounded by the bytes the block holds (sizes are >= 1). */
	if ((err = record_size(r, &h, &need)))
		return err;
	if (need != len)
		return -EINVAL;
	s->time_ns = h.time_ns;
	s->mono_ns = h.mono_ns;
	s->evicted = h.evicted;
	/* 1 us to a day, else unknown: a reader rates nothing over a length a
	 * damaged or hostile file makes up. */
	s->interval_ns = h.interval_ns >= 1000 && h.interval_ns <= 86400ULL * 1000000000ULL ? h.interval_ns : 0;
	memcpy(s->source, h.source, sizeof(s->source));
	for (i = 0; i < h.nflows; i++, p += r->fsize[R_FLOW]) {
		struct rt_flow *f = rt_snapshot_add_flow(s);

		if (!f)
			return -ENOMEM;
		unpack(r, R_FLOW, f, p);
		if (f->throttles < -1 || f->throttles >= (__s32)h.nflows)
			f->throttles = -1;
	}
	for (i = 0; i < h.nifs; i++, p += r->fsize[R_IFDIR]) {
		struct rt_ifdir *d = rt_snapshot_add_ifdir(s);

		if (!d)
			return -ENOMEM;
		unpack(r, R_IFDIR, d, p);
		d->paused_est = r->paused_est || d->paused_est ? 1 : 0;
	}
	for (i = 0; i < h.nports; i++, p += r->fsize[R_PORT]) {
		struct rt_port_ctr *c = rt_snapshot_add_port(s);

		if (!c)
			return -ENOMEM;
		unpack(r, R_PORT, c, p);
	}
	for (i = 0; i < h.nifaces; i++, p += r->fsize[R_IFACE]) {
		memset(&s->ifaces[i], 0, sizeof(s->ifaces[i]));
		unpack(r, R_IFACE, &s->ifaces[i], p);
	}
	s->nifaces = h.nifaces;
	for (i = 0; i < h.nnotes; i++, p += r->fsize[R_NOTE]) {
		struct rec_note n = { { 0 } };

		unpack(r, R_NOTE, &n, p);
		memcpy(s->notes[i], n.text, sizeof(s->notes[i]));
	}
	s->nnotes = h.nnotes;
	/* sFlow's tables (stored sorted, as the collector makes them) */
	for (i = 0; i < h.nswports; i++, p += r->fsize[R_SWPORT]) {
		struct rt_swport *w = rt_snapshot_add_swport(s);

		if (!w)
			return -ENOMEM;
		unpack(r, R_SWPORT, w, p);
	}
	for (i = 0; i < h.nswdrops; i++, p += r->fsize[R_SWDROP]) {
		struct rt_swdrop *w = rt_snapshot_add_swdrop(s);

		if (!w)
			return -ENOMEM;
		unpack(r, R_SWDROP, w, p);
	}
	for (i = 0; i < h.nsfagents; i++, p += r->fsize[R_SFAGENT]) {
		struct rt_sfagent *w = rt_snapshot_add_sfagent(s);

		if (!w)
			return -ENOMEM;
		unpack(r, R_SFAGENT, w, p);
	}
	for (i = 0; i < h.njobs; i++, p += r->fsize[R_JOB]) {
		struct rt_job *w = rt_snapshot_add_job(s);

		if (!w)
			return -ENOMEM;
		unpack(r, R_JOB, w, p);
	}
	for (i = 0; i < h.ncfgs; i++, p += r->fsize[R_CFG]) {
		rt_hostcfg_init(&s->cfgs[i]);	/* fields the file lacks: unknown */
		unpack(r, R_CFG, &s->cfgs[i], p);
	}
	s->ncfgs = h.ncfgs;
	return decode_probes(r, s, &h, p);
}

/*
 * The bytes from start on failed as a block: give back all but the first and
 * look for the next block magic. 1: positioned at a candidate, 0: the end,
 * <0: error.
 */
static int resync(struct rt_rec_reader *r, long long start, const unsigned char *bh, size_t nbh,
		  size_t nz, const char *why)
{
	unsigned char c[65536];
	ssize_t n;

	if (!r->damage) {
		r->damage = why;
		r->damage_at = start;
	}
	/* What was read of the block, less its first byte, is looked at again. */
	if ((nz && unread(r, r->z, nz)) || (nbh > 1 && unread(r, bh + 1, nbh - 1)))
		return -ENOMEM;
	for (;;) {
		unsigned char *m;

		n = rin(r, c, sizeof(c));
		if (n < 0)
			return (int)n;
		m = memmem(c, (size_t)n, "RTBK", 4);
		if (m) {
			if (unread(r, m, (size_t)(c + n - m)))
				return -ENOMEM;
			return 1;
		}
		if (n < (ssize_t)sizeof(c))
			return 0;
		if (unread(r, c + n - 3, 3))	/* a magic across two reads */
			return -ENOMEM;
	}
}

/* The end of the file: what was skipped, and where the damage left off. */
static int at_end(struct rt_rec_reader *r)
{
	if (r->damage) {
		pr_warn("%s %s at byte %lld, and no complete block follows; the %ld intervals before it are read.\n",
			r->path, r->damage, r->damage_at, r->nblocks);
		r->damage = NULL;
	}
	if (r->nskipped)
		pr_warn("%s: %ld damaged stretch%s (%lld bytes) skipped in all.\n", r->path, r->nskipped,
			r->nskipped == 1 ? "" : "es", r->skipped_bytes);
	r->stopped = 1;
	return 0;
}

const char *rt_rec_host(const struct rt_rec_reader *r)
{
	return r->host;
}

const char *rt_rec_id(const struct rt_rec_reader *r)
{
	return r->id;
}

const char *rt_rec_writer(const struct rt_rec_reader *r)
{
	return r->writer;
}

__u64 rt_rec_created_ns(const struct rt_rec_reader *r)
{
	return r->created_ns;
}

void rt_rec_made_by(const struct rt_rec_reader *r, const char **version, const char **kernel, const char **options)
{
	*version = r->version;
	*kernel = r->kernel;
	*options = r->options;
}

int rt_rec_peek(const char *path, char *host, size_t hostlen, char id[RT_REC_ID_LEN + 1], __u64 *created_ns,
		char *writer, size_t writerlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), v = rt_verbosity;
	struct rt_rec_reader *r;

	if (fd < 0)
		return -errno;
	rt_verbosity = -1;	/* quiet: whatever the file is, the caller decides */
	r = rt_rec_open_fd(fd, path, NULL, 0);
	rt_verbosity = v;
	if (!r)
		return -EINVAL;
	snprintf(host, hostlen, "%s", r->host);
	memcpy(id, r->id, RT_REC_ID_LEN + 1);
	*created_ns = r->created_ns;
	snprintf(writer, writerlen, "%s", r->writer);
	reader_free(r);
	return 0;
}

int rt_rec_decode_own(const unsigned char *raw, size_t len, struct rt_snapshot *s)
{
	static struct rt_rec_reader *own;
	int err;

	if (!own) {
		size_t n;
		char *text = rt_rec_layout_text(&n, NULL);

		own = calloc(1, sizeof(*own));
		if (!own || !text || parse_layout(own, text)) {
			free(text);
			return -ENOMEM;
		}
		free(text);
	}
	own->raw = (unsigned char *)raw;
	err = decode(own, s, len);
	own->raw = NULL;
	return err;
}

/*
 * The compressed bytes of a block (zlen of them) into r->z, read as they
 * come, the buffer growing with what was read: a damaged header claiming
 * 1 GiB costs what the file holds, not 1 GiB (make fuzz found that each such
 * header cost a gigabyte of address space, "out of memory" where it is
 * scarce). The block's raw size is allocated once its CRC has checked.
 * *nz: how many the file held. 0, or a negative errno (said).
 */
static int read_zbytes(struct rt_rec_reader *r, __u32 zlen, size_t *nz)
{
	ssize_t n;

	if (rt_grow_to((void **)&r->z, &r->zcap, 1, 1)) {
		pr_warn("out of memory.\n");
		return -ENOMEM;
	}
	while (*nz < zlen) {
		size_t want = *nz < 65536 ? 65536 : 2 * *nz;

		if (want > zlen)
			want = zlen;
		if (rt_grow_to((void **)&r->z, &r->zcap, want, 1)) {
			pr_warn("out of memory.\n");
			return -ENOMEM;
		}
		n = rin(r, r->z + *nz, want - *nz);
		if (n < 0) {
			pr_warn("reading %s failed: %s.\n", r->path, strerror((int)-n));
			return (int)n;
		}
		*nz += (size_t)n;
		if (*nz < want)
			break;	/* the end of the file */
	}
	return 0;
}

/*
 * The block whose header (n bytes of it) is bh: its bytes read (*nz of them),
 * checked and decoded into s. *why: NULL, or why it is no block (the reader
 * then looks for the next one). 0, or a negative errno (said).
 */
static int load_block(struct rt_rec_reader *r, struct rt_snapshot *s, const unsigned char *bh,
		      ssize_t n, size_t *nz, const char **why)
{
	__u32 zlen = n == BLK_HDR ? get32(bh + 4) : 0;
	__u32 rawlen = n == BLK_HDR ? get32(bh + 8) : 0;
	int err;

	*why = NULL;
	if (n < BLK_HDR) {
		*why = "is cut in the middle of a block";
		return 0;
	}
	if (get32(bh) != RT_REC_BLOCK_MAGIC || zlen > RT_REC_MAX_BLOCK || rawlen > RT_REC_MAX_BLOCK ||
	    /* more than deflate can make of zlen bytes: a damaged header */
	    (__u64)rawlen > (__u64)zlen * RT_REC_MAX_RATIO + 64) {
		*why = "is damaged (no valid block starts)";
		return 0;
	}
	err = read_zbytes(r, zlen, nz);
	if (err)
		return err;
	if (*nz < zlen)
		*why = "is cut in the middle of a block";
	else if (get32(bh + 12) != (__u32)crc32(0, r->z, zlen))
		*why = "is damaged (a block fails its CRC check)";
	else if ((err = inflate_block(r, zlen, rawlen)) == -ENOMEM) {
		pr_warn("out of memory.\n");
		return -ENOMEM;
	} else if (err == -EIO)
		*why = "is damaged (a block does not decompress)";
	else if (err == -E2BIG)
		*why = "is damaged (a block would take more than 2 GiB of memory)";
	else if (err)
		*why = "is damaged (a block's size does not match its layout)";
	else if ((err = decode(r, s, rawlen)) == -ENOMEM) {
		pr_warn("out of memory.\n");
		return err;
	} else if (err == -E2BIG)
		*why = "is damaged (a block would take more than 2 GiB of memory)";
	else if (err)
		*why = "is damaged (a block does not match its layout)";
	return 0;
}

int rt_rec_next(struct rt_rec_reader *r, struct rt_snapshot *s)
{
	unsigned char bh[BLK_HDR];
	const char *why;
	long long start;
	ssize_t n;
	int err;

	if (r->stopped)
		return 0;
	for (;;) {
		size_t nz = 0;

		start = r->pos;
		n = rin(r, bh, sizeof(bh));
		if (n < 0) {
			pr_warn("reading %s failed: %s.\n", r->path, strerror((int)-n));
			return (int)n;
		}
		if (n == 0)
			return at_end(r);
		err = load_block(r, s, bh, n, &nz, &why);
		if (err)
			return err;
		if (!why)
			break;
		rt_snapshot_clear(s);
		err = resync(r, start, bh, (size_t)n, nz, why);
		if (err < 0)
			return err;
		if (!err)
			return at_end(r);
	}
	if (r->damage) {
		if (++r->nskipped <= RT_REC_MAX_SKIP_WARN)
			pr_warn("%s %s at byte %lld: %lld bytes skipped, reading resumes with the next valid block at byte %lld.\n",
				r->path, r->damage, r->damage_at, start - r->damage_at, start);
		r->skipped_bytes += start - r->damage_at;
		r->damage = NULL;
	}
	r->off = r->pos;
	r->nblocks++;
	/* Stored as the sinks saw it: sorted, with throttles indexing that order. */
	return 1;
}

int rt_rec_rewind(struct rt_rec_reader *r)
{
	if (lseek(r->fd, r->data_off, SEEK_SET) < 0)
		return -errno;
	r->pbpos = r->pblen = 0;
	r->pos = r->off = r->data_off;
	r->nblocks = 0;
	r->stopped = 0;
	r->damage = NULL;
	r->nskipped = 0;
	r->skipped_bytes = 0;
	return 0;
}

void rt_rec_close(struct rt_rec_reader *r)
{
	reader_free(r);
}

long rt_rec_blocks(const struct rt_rec_reader *r)
{
	return r->nblocks;
}

long long rt_rec_good_bytes(const struct rt_rec_reader *r)
{
	return r->off;
}
