// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recording format, its writing half: the layout this build stores (one
 * field table per recorded struct), the file header that describes it, a
 * snapshot encoded as a record and compressed into one CRC-checked block,
 * and a snapshot rebased on an earlier one. The format is described in
 * record.h; the reader is record_read.c, the -w sink that writes files
 * (rotation included) user/sinks/record_sink.c, the flight recorder
 * user/sinks/flight.c.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <zlib.h>
#include "host.h"
#include "record_int.h"

/* ---- the record layout: what a recording stores of each struct ---- */

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
	F(struct rec_snap, ncfgs, "u32"), F(struct rec_snap, nprobes, "u32"),
	F(struct rec_snap, interval_ns, "u64"),
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

/* The probe mesh's rows (probe_row.h): one per peer, path and size an interval. */
static struct field probe_fields[] = {
	F(struct rt_probe_row, peer, "char[64]"), F(struct rt_probe_row, addr, "char[48]"),
	F(struct rt_probe_row, flow_label, "u32"), F(struct rt_probe_row, udp_sport, "u16"),
	F(struct rt_probe_row, path, "u8"), F(struct rt_probe_row, clock, "u8"),
	F(struct rt_probe_row, size, "u32"), F(struct rt_probe_row, finding, "u8"),
	F(struct rt_probe_row, from, "u8"), F(struct rt_probe_row, ready, "u8"),
	F(struct rt_probe_row, sent, "u64"), F(struct rt_probe_row, answered, "u64"),
	F(struct rt_probe_row, lost, "u64"), F(struct rt_probe_row, sent_total, "u64"),
	F(struct rt_probe_row, answered_total, "u64"), F(struct rt_probe_row, lost_total, "u64"),
	F(struct rt_probe_row, rtt_p50_us, "f64"), F(struct rt_probe_row, rtt_p99_us, "f64"),
	F(struct rt_probe_row, net_p50_us, "f64"), F(struct rt_probe_row, resp_p50_us, "f64"),
	F(struct rt_probe_row, net_base_us, "f64"), F(struct rt_probe_row, why, "char[160]"),
};

#define RS(n, a) { n, a, sizeof(a) / sizeof(a[0]), 0 }
struct rstruct rt_rec_layout[R__N] = {
	RS("snap", snap_fields), RS("flow", flow_fields), RS("ifdir", ifdir_fields),
	RS("port", port_fields), RS("iface", iface_fields), RS("note", note_fields),
	RS("swport", swport_fields), RS("swdrop", swdrop_fields), RS("sfagent", sfagent_fields),
	RS("job", job_fields), RS("cfg", cfg_fields), RS("probe", probe_fields),
};

_Static_assert(sizeof(((struct rt_iface *)0)->name) == 16, "IF_NAMESIZE is 16");

void rt_rec_layout_init(void)
{
	static int done;
	int i;

	if (done)
		return;
	for (i = 0; i < R__N; i++) {
		size_t off = 0, j;

		for (j = 0; j < rt_rec_layout[i].nf; j++) {
			rt_rec_layout[i].f[j].foff = off;
			off += rt_rec_layout[i].f[j].size;
		}
		rt_rec_layout[i].fsize = off;
	}
	done = 1;
}

/* The text of the file header that describes the layout; malloc'ed. */
char *rt_rec_layout_text(size_t *len, const struct rt_rec_meta *m)
{
	char kern[3 * 65 + 3];
	size_t cap = 8192, n = 0, j;
	char *t = malloc(cap);
	int i;

	if (!t)
		return NULL;
	rt_rec_layout_init();
#define OUT(...) n += (size_t)snprintf(t + n, n < cap ? cap - n : 0, __VA_ARGS__)
	OUT("rocetop recording\nversion %d\nbyteorder little\n", RT_REC_VERSION);
	OUT("block u32 magic 'RTBK', u32 zlen, u32 rawlen, u32 crc32 of the zlib data, zlib data[zlen] inflating to record[rawlen]\n");
	OUT("record snap, flow[snap.nflows], ifdir[snap.nifs], port[snap.nports], iface[snap.nifaces], note[snap.nnotes], "
	    "swport[snap.nswports], swdrop[snap.nswdrops], sfagent[snap.nsfagents], job[snap.njobs], "
	    "cfg[snap.ncfgs], probe[snap.nprobes]\n");
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
		OUT("struct %s %zu\n", rt_rec_layout[i].name, rt_rec_layout[i].fsize);
		for (j = 0; j < rt_rec_layout[i].nf; j++)
			OUT("field %s %zu %zu %s\n", rt_rec_layout[i].f[j].name, rt_rec_layout[i].f[j].foff,
			    rt_rec_layout[i].f[j].size, rt_rec_layout[i].f[j].type);
	}
	/* The run's facts (after the layout: readers before them skip the lines). */
	OUT("rocetop %s\n", RT_VERSION);
	OUT("kernel %s\n", rt_host_kernel(kern, sizeof(kern)));
	if (m && m->options && m->options[0])
		OUT("options %s\n", m->options);
	OUT("end\n");
#undef OUT
	if (n >= cap) {
		free(t);
		return NULL;
	}
	*len = n;
	return t;
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

	rt_rec_layout_init();
	need = rt_rec_layout[R_SNAP].fsize + s->nflows * rt_rec_layout[R_FLOW].fsize +
	       s->nifs * rt_rec_layout[R_IFDIR].fsize + s->nports * rt_rec_layout[R_PORT].fsize +
	       s->nifaces * rt_rec_layout[R_IFACE].fsize + s->nnotes * rt_rec_layout[R_NOTE].fsize +
	       s->nswports * rt_rec_layout[R_SWPORT].fsize + s->nswdrops * rt_rec_layout[R_SWDROP].fsize +
	       s->nsfagents * rt_rec_layout[R_SFAGENT].fsize + s->njobs * rt_rec_layout[R_JOB].fsize +
	       s->ncfgs * rt_rec_layout[R_CFG].fsize + s->nprobes * rt_rec_layout[R_PROBE].fsize;
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
	h.nprobes = (__u32)s->nprobes;
	h.interval_ns = s->interval_ns;
	memcpy(h.source, s->source, sizeof(h.source));
	pack(&rt_rec_layout[R_SNAP], p, &h);
	p += rt_rec_layout[R_SNAP].fsize;
	for (i = 0; i < s->nflows; i++, p += rt_rec_layout[R_FLOW].fsize)
		pack(&rt_rec_layout[R_FLOW], p, &s->flows[i]);
	for (i = 0; i < s->nifs; i++, p += rt_rec_layout[R_IFDIR].fsize)
		pack(&rt_rec_layout[R_IFDIR], p, &s->ifs[i]);
	for (i = 0; i < s->nports; i++, p += rt_rec_layout[R_PORT].fsize)
		pack(&rt_rec_layout[R_PORT], p, &s->ports[i]);
	for (i = 0; i < s->nifaces; i++, p += rt_rec_layout[R_IFACE].fsize)
		pack(&rt_rec_layout[R_IFACE], p, &s->ifaces[i]);
	for (i = 0; i < s->nnotes; i++, p += rt_rec_layout[R_NOTE].fsize) {
		struct rec_note n;

		memcpy(n.text, s->notes[i], sizeof(n.text));
		pack(&rt_rec_layout[R_NOTE], p, &n);
	}
	for (i = 0; i < s->nswports; i++, p += rt_rec_layout[R_SWPORT].fsize)
		pack(&rt_rec_layout[R_SWPORT], p, &s->swports[i]);
	for (i = 0; i < s->nswdrops; i++, p += rt_rec_layout[R_SWDROP].fsize)
		pack(&rt_rec_layout[R_SWDROP], p, &s->swdrops[i]);
	for (i = 0; i < s->nsfagents; i++, p += rt_rec_layout[R_SFAGENT].fsize)
		pack(&rt_rec_layout[R_SFAGENT], p, &s->sfagents[i]);
	for (i = 0; i < s->njobs; i++, p += rt_rec_layout[R_JOB].fsize)
		pack(&rt_rec_layout[R_JOB], p, &s->jobs[i]);
	for (i = 0; i < s->ncfgs; i++, p += rt_rec_layout[R_CFG].fsize)
		pack(&rt_rec_layout[R_CFG], p, &s->cfgs[i]);
	for (i = 0; i < s->nprobes; i++, p += rt_rec_layout[R_PROBE].fsize)
		pack(&rt_rec_layout[R_PROBE], p, &s->probes[i]);
	*len = need;
	return 0;
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

	desc = rt_rec_layout_text(&dlen, m);
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

/* The counters of cur since b (the same keys): a rotated file or a flight
 * recorder's file counts from the snapshot before its first. */
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
