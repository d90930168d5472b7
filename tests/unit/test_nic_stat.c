// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rdma netlink statistics (user/nic/nic_stat.c) on message bytes laid out as
 * the kernel's nldev.c writes them, and --qp-counters through a netlink layer
 * that records every request: the exact bytes sent are checked against
 * messages written out here by hand (macros below, not the code's builders).
 * Bytes written by hand once agreed with the code and not with the kernel
 * (the mode query lacked STAT_MODE, the dump's counters sit in a
 * STAT_COUNTER table): the layouts below are those tests/nic/
 * test_qp_counters_iproute2.sh shows iproute2's `rdma` sending and reading.
 * Numbers from <rdma/rdma_netlink.h>: RDMA_NL_NLDEV = 5, type = (5 << 10) + op:
 *   CMD_GET 0x1401, STAT_SET 0x1410, STAT_GET 0x1411, STAT_GET_STATUS 0x1418;
 *   attributes DEV_INDEX 1, DEV_NAME 2, PORT_INDEX 3, RES_QP 19,
 *   RES_QP_ENTRY 20, RES_LQPN 21, STAT_MODE 74, STAT_RES 75,
 *   STAT_AUTO_MODE_MASK 76, STAT_COUNTER 77, STAT_COUNTER_ENTRY 78, STAT_COUNTER_ID 79, STAT_HWCOUNTERS 80,
 *   HWCOUNTER_ENTRY 81, ENTRY_NAME 82, ENTRY_VALUE 83, HWCOUNTER_INDEX 94,
 *   HWCOUNTER_DYNAMIC 95, STAT_OPCOUNTER_ENABLED 104 (kernel 6.13 on).
 *   Modes: 0 none, 1 auto, 2 manual; mask 1 QP type. Flags: REQUEST 1,
 *   MULTI 2, ACK 4, DUMP 0x300; NLA_F_NESTED 0x8000.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "check.h"
#include "nic.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the recorded bytes below are little-endian"
#endif

#define LE16(v)	((v) & 0xff), (((v) >> 8) & 0xff)
#define LE32(v)	LE16((v) & 0xffff), LE16(((v) >> 16) & 0xffff)
#define LE64(v)	LE32((unsigned long long)(v) & 0xffffffffULL), LE32(((unsigned long long)(v) >> 32) & 0xffffffffULL)
#define HDR(len, type, flags, seq)	LE32(len), LE16(type), LE16(flags), LE32(seq), LE32(0)
#define U32(t, v)	LE16(8), LE16(t), LE32(v)		/* 8 bytes */
#define U64(t, v)	LE16(12), LE16(t), LE64(v)		/* 12 bytes */
#define U8(t, v)	LE16(5), LE16(t), (v), 0, 0, 0		/* 8 bytes with padding */
#define NEST(t, len)	LE16(len), LE16(t)			/* 4 bytes */
#define DONE(seq)	HDR(20, 3, 2, seq), 0, 0, 0, 0
#define ACK(seq)	HDR(36, 2, 0, seq), 0, 0, 0, 0, HDR(0, 0, 0, seq)

/* ENTRY_NAME attributes: 4 + strlen + 1, padded to 4. */
/* "out_of_sequence": 15 + 1 = 16 -> len 20 */
#define N_OOS	LE16(20), LE16(82), 'o','u','t','_','o','f','_','s','e','q','u','e','n','c','e',0
/* "cc_rx_ce_pkts": 13 + 1 = 14 -> len 18, 2 bytes padding */
#define N_CE	LE16(18), LE16(82), 'c','c','_','r','x','_','c','e','_','p','k','t','s',0, 0,0
/* "cc_rx_cnp_pkts": 14 + 1 = 15 -> len 19, 1 byte padding */
#define N_RCNP	LE16(19), LE16(82), 'c','c','_','r','x','_','c','n','p','_','p','k','t','s',0, 0
#define N_TCNP	LE16(19), LE16(82), 'c','c','_','t','x','_','c','n','p','_','p','k','t','s',0, 0
/* "rx_write_requests": 17 + 1 = 18 -> len 22, 2 bytes padding */
#define N_WR	LE16(22), LE16(82), 'r','x','_','w','r','i','t','e','_','r','e','q','u','e','s','t','s',0, 0,0

/*
 * A STAT_GET dump of mlx5_0 (index 1), port 1 in auto mode by QP type:
 * counter 5 holds QP 282 alone, counter 6 holds QPs 301 and 300. Each entry:
 * ENTRY (4) + name + value (12).
 *   counter 5: out_of_sequence 0xfffffff0 (32 + ... entry 4 + 20 + 12 = 36),
 *              cc_rx_ce_pkts 40 (4 + 20 + 12 = 36), cc_rx_cnp_pkts 7 (36),
 *              cc_tx_cnp_pkts 3 (36): HWCOUNTERS 4 + 144 = 148
 *              RES_QP 4 + ENTRY (4 + 8) = 16
 *   STAT_COUNTER_ENTRY: 4 + PORT 8 + COUNTER_ID 8 + 148 + 16 = 184,
 *   STAT_COUNTER 4 + 184 = 188; message: 16 + DEV_INDEX 8 + 188 = 212
 *   counter 6: cc_rx_ce_pkts 1000 (36): HWCOUNTERS 40; RES_QP 4 + 12 + 12 = 28
 *   STAT_COUNTER_ENTRY 4 + 16 + 40 + 28 = 88, STAT_COUNTER 92; message 16 + 8 + 92 = 116
 */
static const unsigned char stat_dump[] = {
	HDR(212, 0x1411, 2, 7),
	U32(1, 1), NEST(77, 188), NEST(78, 184), U32(3, 1), U32(79, 5),
	NEST(80, 148),
	NEST(81, 36), N_OOS, U64(83, 0xfffffff0ULL),
	NEST(81, 36), N_CE, U64(83, 40),
	NEST(81, 36), N_RCNP, U64(83, 7),
	NEST(81, 36), N_TCNP, U64(83, 3),
	NEST(19, 16), NEST(20, 12), U32(21, 282),
	HDR(116, 0x1411, 2, 7),
	U32(1, 1), NEST(77, 92), NEST(78, 88), U32(3, 1), U32(79, 6),
	NEST(80, 40),
	NEST(81, 36), N_CE, U64(83, 1000),
	NEST(19, 28), NEST(20, 12), U32(21, 301), NEST(20, 12), U32(21, 300),
	DONE(7),
};

/* STAT_GET_STATUS of mlx5_0/1: rx_write_requests (index 0, not optional),
 * cc_rx_ce_pkts (index 40, optional, off), cc_rx_cnp_pkts (41, optional, on),
 * cc_tx_cnp_pkts (42, optional, off). Entry: 4 + name + INDEX 8 [+ DYNAMIC 8].
 *   rx_write_requests 4 + 24 + 8 = 36; the cc ones 4 + 20 + 8 + 8 = 40
 *   HWCOUNTERS 4 + 36 + 120 = 160; message 16 + 8 + 8 + 160 = 192 */
static const unsigned char status_msg[] = {
	HDR(192, 0x1418, 0, 2),
	U32(1, 1), U32(3, 1),
	NEST(80, 160),
	NEST(81, 36), N_WR, U32(94, 0),
	NEST(81, 40), N_CE, U32(94, 40), U8(95, 0),
	NEST(81, 40), N_RCNP, U32(94, 41), U8(95, 1),
	NEST(81, 40), N_TCNP, U32(94, 42), U8(95, 0),
	ACK(2),
};

/* STAT_GET (mode) of mlx5_0/1: mode none, 16 + 8 + 8 + 8 + 8 = 48 */
static const unsigned char mode_none[] = {
	HDR(48, 0x1411, 0, 1),
	U32(1, 1), U32(3, 1), U32(75, 19), U32(74, 0),
	ACK(1),
};

/* A device without statistics support: the kernel answers -EOPNOTSUPP (-95). */
static const unsigned char eopnotsupp[] = {
	HDR(36, 2, 0, 1), LE32(0xffffffa1u), HDR(0, 0, 0, 1),
};

/* The device dump: mlx5_0 is index 1. DEV_NAME "mlx5_0": 4 + 7 -> len 11, pad 1 */
static const unsigned char devs_msg[] = {
	HDR(36, 0x1401, 2, 1),
	U32(1, 1), LE16(11), LE16(2), 'm', 'l', 'x', '5', '_', '0', 0, 0,
	DONE(1),
};

static const struct rt_qpc_row *row(const struct rt_qpc_table *t, __u32 id, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->r[i].counter_id == id && !strcmp(t->r[i].name, name))
			return &t->r[i];
	return NULL;
}

static void test_parse(void)
{
	struct rt_qpc_table t = { 0 };
	struct rt_stat_status *st = calloc(1, sizeof(*st));
	struct rt_stat_mode m = { 0 };
	const struct rt_qpc_row *r;

	CHECK_EQ(sizeof(stat_dump), 212 + 116 + 20);
	CHECK_EQ(rt_qpc_parse(stat_dump, sizeof(stat_dump), &t), 1);
	CHECK_EQ(t.ncounters, 2);
	CHECK_EQ(t.n, 5);
	r = row(&t, 5, "out_of_sequence");
	CHECK(r && r->value == 0xfffffff0ULL && r->lqpn == 282 && r->nqps == 1 && r->port == 1 &&
	      r->dev_index == 1, "counter 5 out_of_sequence");
	r = row(&t, 5, "cc_tx_cnp_pkts");
	CHECK(r && r->value == 3, "counter 5 cc_tx_cnp_pkts");
	r = row(&t, 6, "cc_rx_ce_pkts");
	CHECK(r && r->value == 1000 && r->lqpn == 300 && r->nqps == 2, "counter 6: QPs 300, 301");
	/* every binding, in the dump's order */
	CHECK_EQ(t.nb, 3);
	CHECK(t.nb == 3 && t.b[0].counter_id == 5 && t.b[0].lqpn == 282 && t.b[1].counter_id == 6 &&
	      t.b[1].lqpn == 301 && t.b[2].lqpn == 300 && t.b[2].port == 1, "bindings");

	/* A dump cut short: the second message claims 108 bytes, 50 are there. */
	rt_qpc_table_free(&t);
	CHECK_EQ(rt_qpc_parse(stat_dump, 212 + 50, &t), -EBADMSG);
	/* cut at a message boundary: more is to come */
	rt_qpc_table_free(&t);
	CHECK_EQ(rt_qpc_parse(stat_dump, 212, &t), 0);
	CHECK_EQ(t.ncounters, 1);
	/* a device without statistics */
	rt_qpc_table_free(&t);
	CHECK_EQ(rt_qpc_parse(eopnotsupp, sizeof(eopnotsupp), &t), -EOPNOTSUPP);
	CHECK_EQ(t.n, 0);
	rt_qpc_table_free(&t);

	CHECK_EQ(sizeof(status_msg), 192 + 36);
	CHECK_EQ(rt_stat_status_parse(status_msg, sizeof(status_msg), st), 1);
	CHECK_EQ(st->n, 4);
	if (st->n == 4) {
		CHECK(!strcmp(st->c[0].name, "rx_write_requests") && !st->c[0].optional, "not optional");
		CHECK(st->c[1].index == 40 && st->c[1].optional && !st->c[1].enabled, "ce off");
		CHECK(st->c[2].index == 41 && st->c[2].optional && st->c[2].enabled, "rx cnp on");
		CHECK(st->c[3].index == 42 && st->c[3].optional && !st->c[3].enabled, "tx cnp off");
	}
	CHECK_EQ(rt_stat_mode_parse(mode_none, sizeof(mode_none), &m), 1);
	CHECK(m.known && m.mode == 0 && !m.has_opcnt, "mode none");
	free(st);
	TEST_END("nic_stat_parse");
}

/* ---- a netlink layer that records what is sent and answers from a script ---- */

struct fake {
	unsigned char sent[4096];
	size_t nsent;
	const unsigned char *ans[16];
	size_t anslen[16];
	int nans, next;
};

static int fake_xfer(struct rt_nl_io *io, const void *req, size_t len,
		     int (*parse)(const void *buf, size_t len, void *arg), void *arg)
{
	struct fake *f = io->priv;
	int r;

	if (f->nsent + len <= sizeof(f->sent)) {
		memcpy(f->sent + f->nsent, req, len);
		f->nsent += len;
	}
	if (f->next >= f->nans)
		return -ETIMEDOUT;
	r = parse(f->ans[f->next], f->anslen[f->next], arg);
	f->next++;
	return r < 0 ? r : 0;
}

static void fake_io(struct rt_nl_io *io, struct fake *f)
{
	memset(io, 0, sizeof(*io));
	io->fd = -1;
	io->xfer = fake_xfer;
	io->priv = f;
}

static void answer(struct fake *f, const unsigned char *a, size_t n)
{
	f->ans[f->nans] = a;
	f->anslen[f->nans++] = n;
}

/* What --qp-counters=cc must send to mlx5_0/1 as found above (mode none,
 * cc_rx_cnp_pkts already on), in order, seq counting from 1: */
static const unsigned char want_enable[] = {
	/* 1. read the mode: STAT_GET, REQUEST|ACK, DEV_INDEX 1, PORT 1, STAT_MODE 2
	 *    (its presence asks for the mode), STAT_RES 19 */
	HDR(48, 0x1411, 5, 1), U32(1, 1), U32(3, 1), U32(74, 2), U32(75, 19),
	/* 2. read the counters: STAT_GET_STATUS, REQUEST|ACK, DEV_INDEX 1, PORT 1 */
	HDR(32, 0x1418, 5, 2), U32(1, 1), U32(3, 1),
	/* 3. optional counters 41 (on before), 40, 42: STAT_SET, HWCOUNTERS nested
	 *    (0x8050) with three HWCOUNTER_INDEX, in the status' order: 40 41 42 */
	HDR(60, 0x1410, 5, 3), U32(1, 1), U32(3, 1), NEST(0x8050, 28), U32(94, 40), U32(94, 41),
	U32(94, 42),
	/* 4. auto by QP type with optional counters per QP: STAT_SET, RES 19,
	 *    MODE 1, MASK 1, OPCOUNTER_ENABLED 1 */
	HDR(64, 0x1410, 5, 4), U32(1, 1), U32(3, 1), U32(75, 19), U32(74, 1), U32(76, 1), U8(104, 1),
};

/* ... and to put it back, from seq S: optional counters as found (41 only);
 * the mode read again (it is auto now: ours); auto off (auto mode with an
 * empty mask; no OPCOUNTER attribute, as none was in the mode found); then,
 * as no QP was bound before, the port's counters' dump (STAT_GET,
 * REQUEST|ACK|DUMP 0x305, DEV_INDEX 1, PORT 1, STAT_RES 19) and each QP
 * unbound (STAT_DEL 0x1412: STAT_MODE 2, STAT_RES 19, DEV_INDEX, PORT,
 * COUNTER_ID 79, LQPN 21) in the dump's order: 5/282, 6/301, 6/300. */
#define RESTORE_OPT(S) \
	HDR(44, 0x1410, 5, (S)), U32(1, 1), U32(3, 1), NEST(0x8050, 12), U32(94, 41), \
	HDR(48, 0x1411, 5, (S) + 1), U32(1, 1), U32(3, 1), U32(74, 2), U32(75, 19)
#define RESTORE(S) \
	RESTORE_OPT(S), \
	HDR(56, 0x1410, 5, (S) + 2), U32(1, 1), U32(3, 1), U32(75, 19), U32(74, 1), U32(76, 0), \
	HDR(40, 0x1411, 0x305, (S) + 3), U32(1, 1), U32(3, 1), U32(75, 19), \
	HDR(64, 0x1412, 5, (S) + 4), U32(74, 2), U32(75, 19), U32(1, 1), U32(3, 1), U32(79, 5), U32(21, 282), \
	HDR(64, 0x1412, 5, (S) + 5), U32(74, 2), U32(75, 19), U32(1, 1), U32(3, 1), U32(79, 6), U32(21, 301), \
	HDR(64, 0x1412, 5, (S) + 6), U32(74, 2), U32(75, 19), U32(1, 1), U32(3, 1), U32(79, 6), U32(21, 300)

/* STAT_GET (mode) of mlx5_0/1: auto by QP type (mask 1), 16 + 8 * 5 = 56 */
static const unsigned char mode_auto[] = {
	HDR(56, 0x1411, 0, 1),
	U32(1, 1), U32(3, 1), U32(75, 19), U32(74, 1), U32(76, 1),
	ACK(1),
};

static const unsigned char want_restore[] = { RESTORE(5) };

/* The answers to a restore: two ACKs, the dump, three ACKs. */
static void restore_answers(struct fake *f);

static const unsigned char acks[][36] = { { ACK(3) }, { ACK(4) }, { ACK(5) }, { ACK(6) } };

static void restore_answers(struct fake *f)
{
	answer(f, acks[0], 36);
	answer(f, mode_auto, sizeof(mode_auto));
	answer(f, acks[1], 36);
	answer(f, stat_dump, sizeof(stat_dump));
	answer(f, acks[2], 36);
	answer(f, acks[3], 36);
	answer(f, acks[0], 36);
}

static void setup(struct rt_rdma_ports *ps, struct rt_qp_table *devs)
{
	struct rt_rdma_port *p = rt_rdma_ports_add(ps);

	snprintf(p->dev, sizeof(p->dev), "mlx5_0");
	p->port = 1;
	devs->ndevs = 1;
	devs->dev_index[0] = 1;
	snprintf(devs->dev_name[0], sizeof(devs->dev_name[0]), "mlx5_0");
}

static int exists(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0;
}

static void check_bytes(const char *what, const unsigned char *got, size_t ngot,
			const unsigned char *want, size_t nwant)
{
	size_t i;

	CHECK(ngot == nwant, "%s: %zu bytes sent, want %zu", what, ngot, nwant);
	for (i = 0; i < ngot && i < nwant && got[i] == want[i]; i++)
		;
	CHECK(i == nwant, "%s: first difference at byte %zu", what, i);
}

static void test_enable_restore(const char *dir)
{
	struct rt_rdma_ports ps = { 0 };
	struct rt_qp_table devs = { 0 };
	struct rt_qpc_ctl *c = calloc(1, sizeof(*c));
	struct fake *f = calloc(1, sizeof(*f));
	struct rt_nl_io io;
	char why[256], path[512], line[256];
	FILE *fp;

	setup(&ps, &devs);
	fake_io(&io, f);
	answer(f, mode_none, sizeof(mode_none));
	answer(f, status_msg, sizeof(status_msg));
	answer(f, acks[0], 36);
	answer(f, acks[1], 36);
	restore_answers(f);
	CHECK_EQ(rt_qpc_enable(c, &io, &ps, &devs, 1, why, sizeof(why)), 1);
	CHECK(!why[0], "nothing to say, said: %s", why);
	check_bytes("enable", f->sent, f->nsent, want_enable, sizeof(want_enable));
	/* the state file holds the mode found: none, mask 0, no opcnt attribute,
	 * optional counter 41 on */
	snprintf(path, sizeof(path), "%s/qp-counters.state", dir);
	fp = fopen(path, "r");
	CHECK(fp != NULL, "state file %s", path);
	if (fp) {
		CHECK(fgets(line, sizeof(line), fp) && !strncmp(line, "rocetop-qp-counters 1 pid ", 26),
		      "header: %s", line);
		CHECK(fgets(line, sizeof(line), fp) && !strcmp(line, "port mlx5_0 1 1 0 0 -1 41\n"),
		      "port line: %s", line);
		fclose(fp);
	}
	f->nsent = 0;
	CHECK_EQ(rt_qpc_restore(c), 0);
	check_bytes("restore", f->sent, f->nsent, want_restore, sizeof(want_restore));
	CHECK(!exists(path), "state file removed once restored");

	/* Already in auto mode by type, without cc: nothing sent but the read,
	 * nothing to restore, no state file; the port binds (1). */
	{
		memset(f, 0, sizeof(*f));
		fake_io(&io, f);
		answer(f, mode_auto, sizeof(mode_auto));
		CHECK_EQ(rt_qpc_enable(c, &io, &ps, &devs, 0, why, sizeof(why)), 1);
		CHECK_EQ(f->nsent, 48);
		CHECK(!exists(path), "no state file when nothing changed");
	}
	/* A device without statistics: a sentence, nothing changed. */
	memset(f, 0, sizeof(*f));
	fake_io(&io, f);
	answer(f, eopnotsupp, sizeof(eopnotsupp));
	CHECK_EQ(rt_qpc_enable(c, &io, &ps, &devs, 1, why, sizeof(why)), 0);
	CHECK(strstr(why, "mlx5_0/1 has no per-QP statistics") != NULL, "said: %s", why);
	CHECK(!exists(path), "no state file");

	rt_rdma_ports_free(&ps);
	free(c);
	free(f);
	TEST_END("nic_stat_enable_restore");
}

/* kill -9 between enabling and restoring: the next start puts it back. */
/* The kernel of a recovery whose port is in no counter mode: the device
 * list, the ACK of the optional counters set back, mode none. */
static void recovery_answers(struct rt_nl_io *io, struct fake *f)
{
	fake_io(io, f);
	answer(f, devs_msg, sizeof(devs_msg));
	answer(f, acks[0], 36);
	answer(f, mode_none, sizeof(mode_none));
}

static void test_kill9_recovery(const char *dir)
{
	char path[512], msg[256];
	int pfd[2];
	pid_t pid;
	char b;

	snprintf(path, sizeof(path), "%s/qp-counters.state", dir);
	CHECK(pipe(pfd) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		struct rt_rdma_ports ps = { 0 };
		struct rt_qp_table devs = { 0 };
		struct rt_qpc_ctl *c = calloc(1, sizeof(*c));
		struct fake *f = calloc(1, sizeof(*f));
		struct rt_nl_io io;
		char why[256];

		setup(&ps, &devs);
		fake_io(&io, f);
		answer(f, mode_none, sizeof(mode_none));
		answer(f, status_msg, sizeof(status_msg));
		for (int i = 0; i < 2; i++)
			answer(f, acks[i], 36);
		b = rt_qpc_enable(c, &io, &ps, &devs, 1, why, sizeof(why)) == 1 ? 'y' : 'n';
		if (write(pfd[1], &b, 1) != 1)
			_exit(3);
		for (;;)
			pause();	/* until SIGKILL */
	}
	close(pfd[1]);
	CHECK(read(pfd[0], &b, 1) == 1 && b == 'y', "child enabled");
	close(pfd[0]);
	{
		/* while it runs, a second rocetop leaves its state alone */
		struct fake *f = calloc(1, sizeof(*f));
		struct rt_nl_io io;

		fake_io(&io, f);
		CHECK_EQ(rt_qpc_recover(&io, msg, sizeof(msg)), -EBUSY);
		CHECK_EQ(f->nsent, 0);
		CHECK(exists(path), "state file kept while its process runs");
		free(f);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(exists(path), "state file left by kill -9");
	{
		struct fake *f = calloc(1, sizeof(*f));
		struct rt_nl_io io;
		/* after the device dump (seq 1), the same messages as above from seq 2 */
		static const unsigned char want[] = { HDR(16, 0x1401, 0x301, 1), RESTORE(2) };

		fake_io(&io, f);
		answer(f, devs_msg, sizeof(devs_msg));
		restore_answers(f);
		CHECK_EQ(rt_qpc_recover(&io, msg, sizeof(msg)), 1);
		check_bytes("recover", f->sent, f->nsent, want, sizeof(want));
		CHECK(!exists(path), "state file removed after recovery");
		CHECK(strstr(msg, "restored the per-QP counter mode of 1 port left by rocetop pid") != NULL,
		      "said: %s", msg);
		/* and nothing the next time */
		f->nsent = 0;
		CHECK_EQ(rt_qpc_recover(&io, msg, sizeof(msg)), 0);
		CHECK_EQ(f->nsent, 0);
		free(f);
	}
	{
		/* A state file of a run killed before it changed the mode: the mode
		 * is found as it was (none), so only the optional counters are set
		 * back, and auto off is not asked (the kernel would refuse it). */
		struct fake *f = calloc(1, sizeof(*f));
		struct rt_nl_io io;
		static const unsigned char want[] = { HDR(16, 0x1401, 0x301, 1), RESTORE_OPT(2) };
		FILE *fp = fopen(path, "w");

		CHECK(fp != NULL, "write %s", path);
		if (fp) {
			fprintf(fp, "rocetop-qp-counters 1 pid 999999999\nport mlx5_0 1 1 0 0 -1 41\n");
			fclose(fp);
		}
		recovery_answers(&io, f);
		CHECK_EQ(rt_qpc_recover(&io, msg, sizeof(msg)), 1);
		check_bytes("recover, mode as it was", f->sent, f->nsent, want, sizeof(want));
		CHECK(!exists(path), "state file removed");
		f->nsent = 0;
		CHECK_EQ(rt_qpc_recover(&io, msg, sizeof(msg)), 0);
		CHECK_EQ(f->nsent, 0);
		free(f);
	}
	TEST_END("nic_stat_kill9_recovery");
}

/* A state file naming a pid that another process now has: the
 * pid runs, but not the rocetop that wrote the file, so the file is acted on. */
static void test_pid_reused(const char *dir)
{
	char path[512], msg[256], st[1024];
	unsigned long long start = 0;
	pid_t pid;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s/qp-counters.state", dir);
	pid = fork();
	if (pid == 0) {
		for (;;)
			pause();	/* until SIGKILL */
	}
	/* its start time, read here from /proc: field 22, after the name's ')' */
	snprintf(st, sizeof(st), "/proc/%d/stat", (int)pid);
	fp = fopen(st, "r");
	n = fp ? fread(st, 1, sizeof(st) - 1, fp) : 0;
	if (fp)
		fclose(fp);
	st[n] = '\0';
	CHECK(strrchr(st, ')') && sscanf(strrchr(st, ')') + 2, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
					  "%*s %*s %*s %*s %*s %*s %llu", &start) == 1, "start time of %d", (int)pid);
	for (int k = 0; k < 3; k++) {
		/* 0: another start time; 1: no start time, the process not named
		 * rocetop; 2: its own start time (the rocetop that wrote it runs) */
		struct fake *f = calloc(1, sizeof(*f));
		struct rt_nl_io io;
		static const unsigned char want[] = { HDR(16, 0x1401, 0x301, 1), RESTORE_OPT(2) };

		fp = fopen(path, "w");
		CHECK(fp != NULL, "write %s", path);
		if (!fp)
			break;
		if (k == 1)
			fprintf(fp, "rocetop-qp-counters 1 pid %d\n", (int)pid);
		else
			fprintf(fp, "rocetop-qp-counters 1 pid %d start %llu\n", (int)pid, k ? start : start + 1);
		fprintf(fp, "port mlx5_0 1 1 0 0 -1 41\n");
		fclose(fp);
		recovery_answers(&io, f);
		if (k < 2) {
			CHECK_EQ(rt_qpc_recover(&io, msg, sizeof(msg)), 1);
			check_bytes("recover, pid reused", f->sent, f->nsent, want, sizeof(want));
			CHECK(!exists(path), "state file of a reused pid acted on and removed (case %d)", k);
		} else {
			CHECK_EQ(rt_qpc_recover(&io, msg, sizeof(msg)), -EBUSY);
			CHECK_EQ(f->nsent, 0);
			unlink(path);
		}
		free(f);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	TEST_END("nic_stat_pid_reused");
}

int main(void)
{
	char dir[] = "/tmp/rt-qpc-XXXXXX";

	if (!mkdtemp(dir)) {
		printf("FAIL nic_stat: mkdtemp\n");
		return 1;
	}
	setenv("ROCETOP_RUN_DIR", dir, 1);
	test_parse();
	test_enable_restore(dir);
	test_kill9_recovery(dir);
	test_pid_reused(dir);
	rmdir(dir);
	return TEST_EXIT();
}
