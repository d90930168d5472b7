/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recording format: its layout, the header, blocks written and read
 * back (record.c writes, record_read.c reads; record_int.h is their shared
 * inside). The -w sink is user/sinks/record_sink.c, the -r source
 * user/sources/record_source.c (rt_file_source_new() in user/sources/file.c
 * tells a recording from a capture by its first bytes).
 *
 * A recording (-w FILE) is, all integers little-endian:
 *
 *   file header   magic "\x89RTREC\r\n" (8 bytes), u32 version (1),
 *                 u32 desc_len, desc_len bytes of text describing the record
 *                 layout (see below), u32 CRC-32 of everything before it
 *   blocks        one per snapshot, each written with a single write():
 *                 u32 magic "RTBK", u32 zlen, u32 rawlen, u32 CRC-32 of the
 *                 zlen bytes that follow, then zlen bytes of zlib data which
 *                 inflate to rawlen bytes of record
 *
 * A record is a "snap" struct followed by nflows "flow", nifs "ifdir",
 * nports "port", nifaces "iface" and nnotes "note" structs, packed, their
 * sizes and fields as the header's text says:
 *
 *   struct NAME SIZE
 *   field NAME OFFSET SIZE TYPE        (TYPE: u8 u16 u32 s32 u64 char bytes, [N] arrays)
 *
 * The header's text may also hold "host NAME": the machine that recorded it
 * (--hostname, else gethostname()), for the multi-host report;
 * "recording-id HEX": 16 hex digits drawn when the recording started, the
 * same in FILE and every file rotated from it (the report merges such a set
 * as one host); "created-ns N": when this file was created (wall clock, ns
 * since the epoch); "writer record|flight": the -w recorder or the flight
 * recorder (which removes, under --max-files, only files it wrote); and,
 * after the layout, the run's facts: "rocetop VERSION", "kernel SYSNAME
 * RELEASE MACHINE" and "options ARGS" (the command line after the program's
 * name: the cmdline of the recorders' configs, user/sinks/sinks.h). A
 * reader skips lines it does not know, so older readers read these files.
 * What a reader needs of each interface (link speed and where it came from,
 * MTU, PFC-enabled priorities where known) is in every record's iface
 * structs.
 *
 * A reader maps the fields it knows by name and size and leaves the others
 * zero, so a later version may append fields without breaking old readers.
 * A recording cut anywhere (kill -9, power cut, a full disk) reads back up to
 * its last complete block, with a warning naming the byte where it stops. A
 * damaged block is skipped: reading resumes at the next block that passes its
 * checks, with a warning saying how many bytes were skipped.
 */
#ifndef RT_RECORD_H
#define RT_RECORD_H

#include <stddef.h>
#include "snapshot.h"

#define RT_REC_MAGIC		"\x89RTREC\r\n"
#define RT_REC_MAGIC_LEN	8
#define RT_REC_VERSION		1
#define RT_REC_BLOCK_MAGIC	0x4b425452u	/* "RTBK" read as little-endian u32 */
#define RT_REC_MAX_BLOCK	(1u << 30)

/* The recording reader on its own (the report and the tests use it). */
struct rt_rec_reader;
/* Opens and checks the header; NULL after saying why. */
struct rt_rec_reader *rt_rec_open(const char *path);
/* The same over an open fd (owned from here on) whose first nhead bytes were read. */
struct rt_rec_reader *rt_rec_open_fd(int fd, const char *name, const void *head, size_t nhead);
/* The next snapshot: 1, 0 at the end (or at a cut, after a warning), <0 on error. */
int rt_rec_next(struct rt_rec_reader *r, struct rt_snapshot *s);
int rt_rec_rewind(struct rt_rec_reader *r);
void rt_rec_close(struct rt_rec_reader *r);
/* Blocks read so far, and the byte offset after the last complete one. */
long rt_rec_blocks(const struct rt_rec_reader *r);
long long rt_rec_good_bytes(const struct rt_rec_reader *r);

/* One snapshot to and from a record (uncompressed); for the writer and tests. */
int rt_rec_encode(const struct rt_snapshot *s, unsigned char **buf, size_t *len);
/* A record of this build's own layout back into a snapshot (the flight recorder). */
int rt_rec_decode_own(const unsigned char *raw, size_t len, struct rt_snapshot *s);
/* The "host NAME" line of a recording's header ("" when it has none). */
const char *rt_rec_host(const struct rt_rec_reader *r);
/* Its "recording-id", "writer" ("" when absent) and "created-ns" (0 when absent). */
#define RT_REC_ID_LEN 16
const char *rt_rec_id(const struct rt_rec_reader *r);
const char *rt_rec_writer(const struct rt_rec_reader *r);
__u64 rt_rec_created_ns(const struct rt_rec_reader *r);
/* The rocetop version, kernel and command line that made it ("" in files from
 * before them); valid until rt_rec_close(). */
void rt_rec_made_by(const struct rt_rec_reader *r, const char **version, const char **kernel, const char **options);
/* The same read quietly from a file's header (no symbolic link followed):
 * 0, or a negative errno (-EINVAL: not a recording this rocetop reads). */
int rt_rec_peek(const char *path, char *host, size_t hostlen, char id[RT_REC_ID_LEN + 1],
		__u64 *created_ns, char *writer, size_t writerlen);

/* Writing blocks (the recorder and the flight recorder). */
struct rt_rec_buf {
	unsigned char *raw, *z;
	size_t rawlen, zcap;
	size_t zlen;		/* the block in z: header and zlib data */
};
/* What a file's header says of it besides the layout (each part optional). */
struct rt_rec_meta {
	const char *host;
	char id[RT_REC_ID_LEN + 1];
	__u64 created_ns;
	const char *writer;
	const char *options;	/* the command line (user/core/host.h) */
};
/* The file header (malloc'ed in *out), with m's lines when m is given. */
int rt_rec_header(unsigned char **out, size_t *len, const struct rt_rec_meta *m);
void rt_rec_new_id(char id[RT_REC_ID_LEN + 1]);
__u64 rt_rec_now_ns(void);
/* A snapshot as one complete block in b->z (b->zlen bytes): 0, -EIO when
 * compressing fails, else what rt_rec_encode() returns. */
int rt_rec_block(const struct rt_snapshot *s, struct rt_rec_buf *b);
void rt_rec_buf_free(struct rt_rec_buf *b);
int rt_rec_write_all(int fd, const void *buf, size_t n);
/* out = cur with counters counted from base (the same keys); 0 or -ENOMEM. */
int rt_rec_rebase(struct rt_snapshot *out, const struct rt_snapshot *base, const struct rt_snapshot *cur);

#endif
