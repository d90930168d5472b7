// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Recordings: the -w sink writes every snapshot as one zlib-compressed,
 * CRC-checked block; the reader (and the -r source over it) reads them back.
 * The format is described in record.h, and each file describes its own record
 * layout in its header (struct and field names, offsets, sizes).
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
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <zlib.h>
#include "log.h"
#include "outfile.h"
#include "record.h"
#include "sink.h"

#define RT_REC_SYNC_SECS 5
#define HDR_FIXED	16	/* magic, version, desc_len */
#define BLK_HDR		16

/* ---- the record layout: what a recording stores of each struct ---- */

/* The per-snapshot header as stored. */
struct rec_snap {
	__u64 time_ns;
	__u64 mono_ns;
	__u64 evicted;
	__u32 nflows, nifs, nports, nifaces, nnotes;
	char  source[128];
	__u32 nswports, nswdrops, nsfagents;	/* sFlow; absent (0) in older files */
	__u32 njobs;		/* the owners' jobs (job.h); absent (0) in older files */
	__u32 ncfgs;		/* the host's congestion settings (hostcfg.h); absent (0) in older files */
};

struct rec_note {
	char text[160];
};

struct field {
	const char *name;
	size_t off, size;
	const char *type;
	size_t foff;		/* offset in the stored struct (computed) */
};

#define F(st, m, t) { #m, offsetof(st, m), sizeof(((st *)0)->m), t, 0 }

/*
 * One field table per recorded struct. The tables look alike (a tool that
 * compares shapes pairs them) but are data, not code written twice: each
 * names the fields of its own struct, and a recording carries them as its
 * layout text so old readers skip new fields (ARCHITECTURE.md section 7).
 */

static struct field snap_fields[] = {
	F(struct rec_snap, time_ns, "u64"), F(struct rec_snap, mono_ns, "u64"),
	F(struct rec_snap, evicted, "u64"), F(struct rec_snap, nflows, "u32"),
	F(struct rec_snap, nifs, "u32"), F(struct rec_snap, nports, "u32"),
	F(struct rec_snap, nifaces, "u32"), F(struct rec_snap, nnotes, "u32"),
	F(struct rec_snap, source, "char[128]"),
	F(struct rec_snap, nswports, "u32"), F(struct rec_snap, nswdrops, "u32"),
	F(struct rec_snap, nsfagents, "u32"), F(struct rec_snap, njobs, "u32"),
	F(struct rec_snap, ncfgs, "u32"),
};

/* The layout tables: one F() per field of each struct a recording holds (alike in shape only). */
static struct field flow_fields[] = {
	F(struct rt_flow, k.ifindex, "u32"), F(struct rt_flow, k.dir, "u8"),
	F(struct rt_flow, k.family, "u8"), F(struct rt_flow, k.src, "bytes[16]"),
	F(struct rt_flow, k.dst, "bytes[16]"), F(struct rt_flow, k.dqpn, "u32"),
	F(struct rt_flow, k.mirror, "u8"), F(struct rt_flow, k.mirror_id, "u32"),
	F(struct rt_flow, v.pkts, "u64"), F(struct rt_flow, v.bytes, "u64"),
	F(struct rt_flow, v.ecn, "u64[4]"), F(struct rt_flow, v.cnp, "u64"),
	F(struct rt_flow, v.ack, "u64"), F(struct rt_flow, v.nak_seq, "u64"),
	F(struct rt_flow, v.nak_other, "u64"), F(struct rt_flow, v.rnr_nak, "u64"),
	F(struct rt_flow, v.first_ns, "u64"), F(struct rt_flow, v.last_ns, "u64"),
	F(struct rt_flow, v.sport, "u16"), F(struct rt_flow, v.dscp, "u8"),
	F(struct rt_flow, v.pcp, "u8"), F(struct rt_flow, v.opcode, "u8"),
	F(struct rt_flow, lqpn, "u32"), F(struct rt_flow, rqpn, "u32"),
	F(struct rt_flow, pid, "u32"), F(struct rt_flow, comm, "char[16]"),
	F(struct rt_flow, attr, "u8"), F(struct rt_flow, throttles, "s32"),
	F(struct rt_flow, k.origin, "u8"),
	F(struct rt_flow, estimate, "u8"), F(struct rt_flow, samples, "u64"),
	F(struct rt_flow, sw_drops, "u64"),
	/* absent (0: no job) in recordings before jobs */
	F(struct rt_flow, job, "u32"),
	/* absent (0) in recordings before them: the last packet's DSCP and
	 * priority then stand for the sets (user/core/derive.h) */
	F(struct rt_flow, v.dscps, "u64"), F(struct rt_flow, v.prios, "u8"),
};

static struct field ifdir_fields[] = {
	F(struct rt_ifdir, k.ifindex, "u32"), F(struct rt_ifdir, k.dir, "u8"),
	F(struct rt_ifdir, v.pkts, "u64"), F(struct rt_ifdir, v.bytes, "u64"),
	F(struct rt_ifdir, v.roce, "u64"), F(struct rt_ifdir, v.not_roce, "u64"),
	F(struct rt_ifdir, v.truncated, "u64"), F(struct rt_ifdir, v.malformed, "u64"),
	F(struct rt_ifdir, v.v6_unparsed, "u64"), F(struct rt_ifdir, v.mac_ctrl, "u64"),
	F(struct rt_ifdir, v.flow_full, "u64"), F(struct rt_ifdir, v.pfc_frames, "u64[9]"),
	F(struct rt_ifdir, v.pfc_xon, "u64[9]"), F(struct rt_ifdir, v.pfc_quanta, "u64[9]"),
	F(struct rt_ifdir, evicted, "u64"), F(struct rt_ifdir, v.mirrored, "u64"),
	/* absent in recordings before it: rows read from them are paused_est;
	 * paused_est itself is kept for a row written from such a recording */
	F(struct rt_ifdir, v.pfc_paused_ns, "u64[9]"), F(struct rt_ifdir, paused_est, "u8"),
};

static struct field port_fields[] = {
	F(struct rt_port_ctr, dev, "char[32]"), F(struct rt_port_ctr, port, "u32"),
	F(struct rt_port_ctr, netdev, "char[16]"), F(struct rt_port_ctr, name, "char[64]"),
	F(struct rt_port_ctr, value, "u64"), F(struct rt_port_ctr, bits, "u8"),
	F(struct rt_port_ctr, scope, "u8"), F(struct rt_port_ctr, congestion, "u8"),
	F(struct rt_port_ctr, nqps, "u8"), F(struct rt_port_ctr, qpn, "u32"),
};

static struct field iface_fields[] = {
	F(struct rt_iface, ifindex, "u32"), F(struct rt_iface, name, "char[16]"),
	F(struct rt_iface, mode, "char[12]"),
	/* absent (0, "") in recordings before them: the speed is then unknown */
	F(struct rt_iface, speed_mbps, "u64"), F(struct rt_iface, speed_from, "char[12]"),
	F(struct rt_iface, mtu, "u32"), F(struct rt_iface, pfc_known, "u8"),
	F(struct rt_iface, pfc_en, "u8"),
};

static struct field note_fields[] = {
	F(struct rec_note, text, "char[160]"),
};

static struct field swport_fields[] = {
	F(struct rt_swport, ifindex, "u32"), F(struct rt_swport, dir, "u8"),
	F(struct rt_swport, has_queue, "u8"), F(struct rt_swport, has_ifctr, "u8"),
	F(struct rt_swport, port, "u32"), F(struct rt_swport, queue, "u32"),
	F(struct rt_swport, agent, "char[48]"), F(struct rt_swport, name, "char[64]"),
	F(struct rt_swport, c.samples, "u64"), F(struct rt_swport, c.est_pkts, "u64"),
	F(struct rt_swport, c.est_bytes, "u64"), F(struct rt_swport, c.est_ce, "u64"),
	F(struct rt_swport, c.est_cnp, "u64"), F(struct rt_swport, c.roce_samples, "u64"),
	F(struct rt_swport, c.depth_sum, "u64"), F(struct rt_swport, c.depth_n, "u64"),
	F(struct rt_swport, c.transit_sum, "u64"), F(struct rt_swport, c.transit_n, "u64"),
	F(struct rt_swport, c.drops, "u64"), F(struct rt_swport, max_depth, "u32"),
	F(struct rt_swport, max_transit, "u32"), F(struct rt_swport, speed_bps, "u64"),
	F(struct rt_swport, in_octets, "u64"), F(struct rt_swport, out_octets, "u64"),
	F(struct rt_swport, in_discards, "u64"), F(struct rt_swport, out_discards, "u64"),
	F(struct rt_swport, in_errors, "u64"), F(struct rt_swport, out_errors, "u64"),
	F(struct rt_swport, agent_lost, "u64"), F(struct rt_swport, ctr_samples, "u64"),
};

static struct field swdrop_fields[] = {
	F(struct rt_swdrop, ifindex, "u32"), F(struct rt_swdrop, port, "u32"),
	F(struct rt_swdrop, reason, "u32"), F(struct rt_swdrop, agent, "char[48]"),
	F(struct rt_swdrop, drops, "u64"),
};

static struct field sfagent_fields[] = {
	F(struct rt_sfagent, agent, "char[48]"), F(struct rt_sfagent, datagrams, "u64"),
	F(struct rt_sfagent, lost, "u64"), F(struct rt_sfagent, errors, "u64"),
	F(struct rt_sfagent, rejected, "u64"), F(struct rt_sfagent, samples, "u64"),
	F(struct rt_sfagent, drop_samples, "u64"), F(struct rt_sfagent, ctr_samples, "u64"),
};

static struct field job_fields[] = {
	F(struct rt_job, kind, "u8"), F(struct rt_job, rank, "s32"),
	F(struct rt_job, size, "s32"), F(struct rt_job, local_rank, "s32"),
	F(struct rt_job, job, "char[128]"), F(struct rt_job, step, "char[64]"),
	F(struct rt_job, cgroup, "char[256]"),
};

/* The host's congestion settings as the doctor read them (hostcfg.h). */
static struct field cfg_fields[] = {
	F(struct rt_hostcfg, netdev, "char[16]"), F(struct rt_hostcfg, dev, "char[32]"),
	F(struct rt_hostcfg, pci, "char[32]"),
	F(struct rt_hostcfg, port, "u32"), F(struct rt_hostcfg, mtu, "s32"),
	F(struct rt_hostcfg, active_mtu, "s32"), F(struct rt_hostcfg, pfc_known, "u8"),
	F(struct rt_hostcfg, pfc_en, "u8"), F(struct rt_hostcfg, app_known, "u8"),
	F(struct rt_hostcfg, trusts_dscp, "u8"), F(struct rt_hostcfg, dscp_prio, "u8[64]"),
	F(struct rt_hostcfg, np_en, "s8[8]"), F(struct rt_hostcfg, rp_en, "s8[8]"),
	F(struct rt_hostcfg, pfc_tout, "s32"), F(struct rt_hostcfg, roce_tos, "s32"),
	F(struct rt_hostcfg, roce_prio, "s32"), F(struct rt_hostcfg, cc, "s64[12]"),
};
_Static_assert(RT_CC__N == 12, "cfg_fields names cc as s64[12]");

/* From R_SWPORT on, structs a file may leave out (recordings before sFlow, jobs, settings). */
enum { R_SNAP, R_FLOW, R_IFDIR, R_PORT, R_IFACE, R_NOTE, R_SWPORT, R_SWDROP, R_SFAGENT, R_JOB, R_CFG,
       R__N };
#define R_OPTIONAL R_SWPORT

struct rstruct {
	const char *name;
	struct field *f;
	size_t nf;
	size_t fsize;		/* stored size */
};

#define RS(n, a) { n, a, sizeof(a) / sizeof(a[0]), 0 }
static struct rstruct layout[R__N] = {
	RS("snap", snap_fields), RS("flow", flow_fields), RS("ifdir", ifdir_fields),
	RS("port", port_fields), RS("iface", iface_fields), RS("note", note_fields),
	RS("swport", swport_fields), RS("swdrop", swdrop_fields), RS("sfagent", sfagent_fields),
	RS("job", job_fields), RS("cfg", cfg_fields),
};

_Static_assert(sizeof(((struct rt_iface *)0)->name) == 16, "IF_NAMESIZE is 16");

static void layout_init(void)
{
	static int done;
	int i;

	if (done)
		return;
	for (i = 0; i < R__N; i++) {
		size_t off = 0, j;

		for (j = 0; j < layout[i].nf; j++) {
			layout[i].f[j].foff = off;
			off += layout[i].f[j].size;
		}
		layout[i].fsize = off;
	}
	done = 1;
}

/* The text of the file header that describes the layout; malloc'ed. */
static char run_options[1024];

void rt_rec_set_options(int argc, char *const argv[])
{
	size_t n = 0;
	int i;

	for (i = 1; i < argc && n < sizeof(run_options); i++)
		n += (size_t)snprintf(run_options + n, sizeof(run_options) - n, "%s%s", i > 1 ? " " : "",
				      argv[i]);
	/* one line of printable text */
	for (n = 0; run_options[n]; n++)
		if ((unsigned char)run_options[n] < 0x20 || run_options[n] == 0x7f)
			run_options[n] = '?';
}

const char *rt_rec_options(void)
{
	return run_options;
}

const char *rt_rec_kernel(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%s %s %s", u.sysname, u.release, u.machine);
	return buf;
}

static char *layout_text(size_t *len, const struct rt_rec_meta *m)
{
	char kern[3 * 65 + 3];
	size_t cap = 8192, n = 0, j;
	char *t = malloc(cap);
	int i;

	if (!t)
		return NULL;
	layout_init();
#define OUT(...) n += (size_t)snprintf(t + n, n < cap ? cap - n : 0, __VA_ARGS__)
	OUT("rocetop recording\nversion %d\nbyteorder little\n", RT_REC_VERSION);
	OUT("block u32 magic 'RTBK', u32 zlen, u32 rawlen, u32 crc32 of the zlib data, zlib data[zlen] inflating to record[rawlen]\n");
	OUT("record snap, flow[snap.nflows], ifdir[snap.nifs], port[snap.nports], iface[snap.nifaces], note[snap.nnotes], "
	    "swport[snap.nswports], swdrop[snap.nswdrops], sfagent[snap.nsfagents], job[snap.njobs], "
	    "cfg[snap.ncfgs]\n");
	OUT("counters are totals since the source started (or since the previous rotated file ended)\n");
	if (m && m->host && m->host[0])
		OUT("host %s\n", m->host);
	if (m && m->id[0])
		OUT("recording-id %s\n", m->id);
	if (m && m->created_ns)
		OUT("created-ns %llu\n", (unsigned long long)m->created_ns);
	if (m && m->writer && m->writer[0])
		OUT("writer %s\n", m->writer);
	for (i = 0; i < R__N; i++) {
		OUT("struct %s %zu\n", layout[i].name, layout[i].fsize);
		for (j = 0; j < layout[i].nf; j++)
			OUT("field %s %zu %zu %s\n", layout[i].f[j].name, layout[i].f[j].foff,
			    layout[i].f[j].size, layout[i].f[j].type);
	}
	/* The run's facts (after the layout: readers before them skip the lines). */
	OUT("rocetop %s\n", RT_VERSION);
	OUT("kernel %s\n", rt_rec_kernel(kern, sizeof(kern)));
	if (run_options[0])
		OUT("options %s\n", run_options);
	OUT("end\n");
#undef OUT
	if (n >= cap) {
		free(t);
		return NULL;
	}
	*len = n;
	return t;
}

static void put32(unsigned char *p, __u32 v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static __u32 get32(const unsigned char *p)
{
	return (__u32)p[0] | ((__u32)p[1] << 8) | ((__u32)p[2] << 16) | ((__u32)p[3] << 24);
}

static void pack(const struct rstruct *r, unsigned char *out, const void *in)
{
	size_t j;

	for (j = 0; j < r->nf; j++)
		memcpy(out + r->f[j].foff, (const char *)in + r->f[j].off, r->f[j].size);
}

int rt_rec_encode(const struct rt_snapshot *s, unsigned char **buf, size_t *len)
{
	struct rec_snap h = { 0 };
	size_t need, i;
	unsigned char *p;

	layout_init();
	need = layout[R_SNAP].fsize + s->nflows * layout[R_FLOW].fsize +
	       s->nifs * layout[R_IFDIR].fsize + s->nports * layout[R_PORT].fsize +
	       s->nifaces * layout[R_IFACE].fsize + s->nnotes * layout[R_NOTE].fsize +
	       s->nswports * layout[R_SWPORT].fsize + s->nswdrops * layout[R_SWDROP].fsize +
	       s->nsfagents * layout[R_SFAGENT].fsize + s->njobs * layout[R_JOB].fsize +
	       s->ncfgs * layout[R_CFG].fsize;
	if (need > RT_REC_MAX_BLOCK)
		return -E2BIG;
	if (*len < need || !*buf) {
		p = realloc(*buf, need);
		if (!p)
			return -ENOMEM;
		*buf = p;
	}
	p = *buf;
	h.time_ns = s->time_ns;
	h.mono_ns = s->mono_ns;
	h.evicted = s->evicted;
	h.nflows = (__u32)s->nflows;
	h.nifs = (__u32)s->nifs;
	h.nports = (__u32)s->nports;
	h.nifaces = (__u32)s->nifaces;
	h.nnotes = (__u32)s->nnotes;
	h.nswports = (__u32)s->nswports;
	h.nswdrops = (__u32)s->nswdrops;
	h.nsfagents = (__u32)s->nsfagents;
	h.njobs = (__u32)s->njobs;
	h.ncfgs = (__u32)s->ncfgs;
	memcpy(h.source, s->source, sizeof(h.source));
	pack(&layout[R_SNAP], p, &h);
	p += layout[R_SNAP].fsize;
	for (i = 0; i < s->nflows; i++, p += layout[R_FLOW].fsize)
		pack(&layout[R_FLOW], p, &s->flows[i]);
	for (i = 0; i < s->nifs; i++, p += layout[R_IFDIR].fsize)
		pack(&layout[R_IFDIR], p, &s->ifs[i]);
	for (i = 0; i < s->nports; i++, p += layout[R_PORT].fsize)
		pack(&layout[R_PORT], p, &s->ports[i]);
	for (i = 0; i < s->nifaces; i++, p += layout[R_IFACE].fsize)
		pack(&layout[R_IFACE], p, &s->ifaces[i]);
	for (i = 0; i < s->nnotes; i++, p += layout[R_NOTE].fsize) {
		struct rec_note n;

		memcpy(n.text, s->notes[i], sizeof(n.text));
		pack(&layout[R_NOTE], p, &n);
	}
	for (i = 0; i < s->nswports; i++, p += layout[R_SWPORT].fsize)
		pack(&layout[R_SWPORT], p, &s->swports[i]);
	for (i = 0; i < s->nswdrops; i++, p += layout[R_SWDROP].fsize)
		pack(&layout[R_SWDROP], p, &s->swdrops[i]);
	for (i = 0; i < s->nsfagents; i++, p += layout[R_SFAGENT].fsize)
		pack(&layout[R_SFAGENT], p, &s->sfagents[i]);
	for (i = 0; i < s->njobs; i++, p += layout[R_JOB].fsize)
		pack(&layout[R_JOB], p, &s->jobs[i]);
	for (i = 0; i < s->ncfgs; i++, p += layout[R_CFG].fsize)
		pack(&layout[R_CFG], p, &s->cfgs[i]);
	*len = need;
	return 0;
}

/* ---- the writer ---- */

struct rec {
	char path[4096];
	int fd;
	long long size;		/* bytes in the current file */
	long long max_size;
	int max_files;
	int nrot;		/* rotated files that exist (FILE.1 .. FILE.nrot) */
	unsigned char *raw, *z;
	size_t rawlen, zcap;
	struct rt_snapshot last, base, tmp;
	struct rt_snapshot sorted;	/* the loop's table in key order, as stored */
	char host[64];
	char id[RT_REC_ID_LEN + 1];	/* one id for FILE and every file rotated from it */
	int have_base;
	struct timespec synced;
	long long header_len;
};

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	/* One write() per block; a short write (full disk) is finished or fails. */
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The machine's name for the header: the multi-host report names lines by it. */
const char *rt_rec_hostname(const char *given, char *buf, size_t len)
{
	size_t i;

	if (given && given[0])
		snprintf(buf, len, "%s", given);
	else if (gethostname(buf, len) || !buf[0])
		snprintf(buf, len, "unknown");
	buf[len - 1] = '\0';
	/* One word on one line. */
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] <= ' ' || buf[i] == 0x7f)
			buf[i] = '_';
	return buf;
}

/* A new recording id: 16 hex digits from getrandom() (time and pid if it fails). */
void rt_rec_new_id(char id[RT_REC_ID_LEN + 1])
{
	unsigned long long v = 0;
	struct timespec ts;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		v = ((unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec) ^
		    ((unsigned long long)getpid() << 40);
	}
	snprintf(id, RT_REC_ID_LEN + 1, "%016llx", v);
}

__u64 rt_rec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

int rt_rec_header(unsigned char **out, size_t *outlen, const struct rt_rec_meta *m)
{
	unsigned char *h;
	size_t dlen, n;
	char *desc;

	desc = layout_text(&dlen, m);
	if (!desc)
		return -ENOMEM;
	n = HDR_FIXED + dlen + 4;
	h = malloc(n);
	if (!h) {
		free(desc);
		return -ENOMEM;
	}
	memcpy(h, RT_REC_MAGIC, RT_REC_MAGIC_LEN);
	put32(h + 8, RT_REC_VERSION);
	put32(h + 12, (__u32)dlen);
	memcpy(h + HDR_FIXED, desc, dlen);
	put32(h + HDR_FIXED + dlen, (__u32)crc32(0, h, (uInt)(HDR_FIXED + dlen)));
	free(desc);
	*out = h;
	*outlen = n;
	return 0;
}

int rt_rec_block(const struct rt_snapshot *s, struct rt_rec_buf *b)
{
	size_t need;
	uLongf zl;
	int err;

	err = rt_rec_encode(s, &b->raw, &b->rawlen);
	if (err)
		return err;
	need = BLK_HDR + compressBound((uLong)b->rawlen);
	if (need > b->zcap) {
		unsigned char *z = realloc(b->z, need);

		if (!z)
			return -ENOMEM;
		b->z = z;
		b->zcap = need;
	}
	zl = (uLongf)(b->zcap - BLK_HDR);
	if (compress2(b->z + BLK_HDR, &zl, b->raw, (uLong)b->rawlen, Z_BEST_SPEED) != Z_OK)
		return -EIO;
	put32(b->z, RT_REC_BLOCK_MAGIC);
	put32(b->z + 4, (__u32)zl);
	put32(b->z + 8, (__u32)b->rawlen);
	put32(b->z + 12, (__u32)crc32(0, b->z + BLK_HDR, (uInt)zl));
	b->zlen = BLK_HDR + zl;
	return 0;
}

void rt_rec_buf_free(struct rt_rec_buf *b)
{
	free(b->raw);
	free(b->z);
	memset(b, 0, sizeof(*b));
}

int rt_rec_write_all(int fd, const void *buf, size_t n)
{
	return write_all(fd, buf, n);
}

static int rec_open_file(struct rec *r)
{
	unsigned char *h;
	size_t n;
	int err;

	/* No links followed, never the file being read, one writer (flock). */
	r->fd = rt_out_open(r->path, "the recording", RT_OUT_LOCK);
	if (r->fd < 0)
		return r->fd;
	struct rt_rec_meta m = { .host = r->host, .created_ns = rt_rec_now_ns(), .writer = "record" };

	memcpy(m.id, r->id, sizeof(m.id));
	if (rt_rec_header(&h, &n, &m))
		return -ENOMEM;
	err = write_all(r->fd, h, n);
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

int rt_rec_rebase(struct rt_snapshot *out, const struct rt_snapshot *b, const struct rt_snapshot *cur)
{
	size_t i, j = 0;
	int c = 1;

	if (rt_snapshot_copy(out, cur))
		return -ENOMEM;
	for (i = 0; i < out->nflows; i++) {
		struct rt_flow *f = &out->flows[i];

		while (j < b->nflows && (c = rt_flow_key_cmp(&b->flows[j].k, &f->k)) < 0)
			j++;
		if (j < b->nflows && c == 0 && f->v.pkts >= b->flows[j].v.pkts) {
			struct rt_flow_val d;

			rt_flow_val_delta(&d, &b->flows[j].v, &f->v);
			f->v = d;
		}
	}
	for (i = 0; i < out->nifs; i++)
		for (j = 0; j < b->nifs; j++)
			if (b->ifs[j].k.ifindex == out->ifs[i].k.ifindex &&
			    b->ifs[j].k.dir == out->ifs[i].k.dir &&
			    out->ifs[i].v.pkts >= b->ifs[j].v.pkts) {
				struct rt_if_val d;

				rt_if_val_delta(&d, &b->ifs[j].v, &out->ifs[i].v);
				out->ifs[i].v = d;
				break;
			}
	out->evicted = rt_ctr_delta(b->evicted, cur->evicted, 64);
	return 0;
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
	uLongf zl;
	size_t need;
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
	err = rt_rec_encode(w, &r->raw, &r->rawlen);
	if (err) {
		pr_warn("cannot record a snapshot of %zu flows: %s.\n", cur->nflows, strerror(-err));
		return err;
	}
	need = BLK_HDR + compressBound((uLong)r->rawlen);
	if (rt_grow_to((void **)&r->z, &r->zcap, need, 1))
		return -ENOMEM;
	zl = (uLongf)(r->zcap - BLK_HDR);
	if (compress2(r->z + BLK_HDR, &zl, r->raw, (uLong)r->rawlen, Z_BEST_SPEED) != Z_OK) {
		pr_warn("compressing a snapshot for %s failed.\n", r->path);
		return -EIO;
	}
	if (r->max_size && r->size > r->header_len &&
	    r->size + BLK_HDR + (long long)zl > r->max_size) {
		/* The next file counts from the last snapshot of this one. */
		if (rt_snapshot_copy(&r->base, &r->last))
			return -ENOMEM;
		r->have_base = 1;
		if ((err = rec_rotate(r)))
			return err;
		return rec_emit(s, cur, d);
	}
	put32(r->z, RT_REC_BLOCK_MAGIC);
	put32(r->z + 4, (__u32)zl);
	put32(r->z + 8, (__u32)r->rawlen);
	put32(r->z + 12, (__u32)crc32(0, r->z + BLK_HDR, (uInt)zl));
	err = write_all(r->fd, r->z, BLK_HDR + zl);
	if (err) {
		pr_warn("writing the recording %s failed: %s.\n", r->path, strerror(-err));
		return err;
	}
	r->size += BLK_HDR + (long long)zl;
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
		free(r->raw);
		free(r->z);
		rt_snapshot_free(&r->last);
		rt_snapshot_free(&r->base);
		rt_snapshot_free(&r->tmp);
		rt_snapshot_free(&r->sorted);
	}
	rt_sink_free(s);
}

struct rt_sink *rt_record_sink_new(const struct rt_opts *o)
{
	struct rt_sink *s = rt_sink_new("record", sizeof(struct rec), rec_emit, rec_close);
	struct rec *r;

	if (!s)
		return NULL;
	r = s->priv;
	r->fd = -1;
	snprintf(r->path, sizeof(r->path), "%s", o->write_file);
	r->max_size = o->max_size;
	r->max_files = o->max_files;
	rt_rec_hostname(o->hostname, r->host, sizeof(r->host));
	rt_rec_new_id(r->id);
	clock_gettime(CLOCK_MONOTONIC, &r->synced);
	if (rec_open_file(r)) {
		rec_close(s);
		return NULL;
	}
	return s;
}

/* ---- the reader ---- */

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
		if (strcmp(layout[i].name, name))
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
		r->maps[i] = calloc(layout[i].nf, sizeof(struct map));
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
			 layout[cur].name, r->fsize[cur]);
		return layout_why;
	}
	for (size_t j = 0; j < layout[cur].nf; j++) {
		const struct field *f = &layout[cur].f[j];

		if (strcmp(f->name, name))
			continue;
		if (seen[cur] & (1ull << j)) {
			snprintf(layout_why, sizeof(layout_why), "it describes field %s of struct %s twice", name,
				 layout[cur].name);
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
			snprintf(layout_why, sizeof(layout_why), "it does not describe struct %s", layout[i].name);
			return layout_why;
		}
		/* Older than sFlow: none of these (their counts read as 0). */
		r->fsize[i] = 0;
		r->maps[i] = calloc(1, sizeof(struct map));
		if (!r->maps[i])
			return "out of memory";
	}
	for (c = 0; c < layout[R_IFDIR].nf; c++)
		if (!strcmp(layout[R_IFDIR].f[c].name, "v.pfc_paused_ns"))
			r->paused_est = !(seen[R_IFDIR] & (1ull << c));
	/* Without the counts the records cannot be walked. */
	for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		size_t j;

		for (j = 0; j < layout[R_SNAP].nf; j++)
			if (!strcmp(layout[R_SNAP].f[j].name, counts[c]))
				break;
		if (j == layout[R_SNAP].nf || !(seen[R_SNAP] & (1ull << j)))
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

	layout_init();
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
	    (!r->fsize[R_CFG] && h->ncfgs))
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
	    add_product(&need, h->ncfgs, r->fsize[R_CFG]))
		return -EINVAL;
	/* A small stored struct may stand for a large one in memory: cap that. */
	if (add_product(&mem, h->nflows, sizeof(struct rt_flow)) ||
	    add_product(&mem, h->nifs, sizeof(struct rt_ifdir)) ||
	    add_product(&mem, h->nports, sizeof(struct rt_port_ctr)) ||
	    add_product(&mem, h->nswports, sizeof(struct rt_swport)) ||
	    add_product(&mem, h->nswdrops, sizeof(struct rt_swdrop)) ||
	    add_product(&mem, h->nsfagents, sizeof(struct rt_sfagent)) ||
	    add_product(&mem, h->njobs, sizeof(struct rt_job)) || mem > RT_REC_MAX_DECODED)
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
	return 0;
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
		char *text = layout_text(&n, NULL);

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

/* ---- -r FILE over a recording ---- */

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

struct rt_source *rt_rec_source_new(const struct rt_opts *o, int fd, const void *head, size_t nhead)
{
	struct rt_source *src = calloc(1, sizeof(*src));

	if (!src) {
		pr_warn("out of memory.\n");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	src->priv = fd >= 0 ? rt_rec_open_fd(fd, o->read_file, head, nhead) : rt_rec_open(o->read_file);
	if (!src->priv) {
		free(src);
		return NULL;
	}
	src->name = "recording";
	src->host = rt_rec_host(src->priv);
	src->version = ((struct rt_rec_reader *)src->priv)->version;
	src->kernel = ((struct rt_rec_reader *)src->priv)->kernel;
	src->options = ((struct rt_rec_reader *)src->priv)->options;
	src->collect = recsrc_collect;
	src->rewind = recsrc_rewind;
	src->close = recsrc_close;
	return src;
}
