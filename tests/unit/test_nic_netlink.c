// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rdma netlink parsing on message bytes laid out as the kernel's nldev.c
 * writes them (x86: little-endian; tables and entries nested without
 * NLA_F_NESTED, as nla_nest_start_noflag does). Every field is decoded by
 * hand in the comments; the numbers come from <rdma/rdma_netlink.h>:
 *   RDMA_NL_NLDEV = 5, type = (5 << 10) + op: CMD_GET (1) 0x1401,
 *   CMD_RES_QP_GET (10) 0x140a, CMD_RES_CM_ID_GET (11) 0x140b;
 *   attributes DEV_INDEX 1, DEV_NAME 2, PORT_INDEX 3, RES_QP 19,
 *   RES_QP_ENTRY 20, RES_LQPN 21, RES_RQPN 22, RES_RQ_PSN 23, RES_SQ_PSN 24,
 *   RES_TYPE 26, RES_STATE 27, RES_PID 28, RES_KERN_NAME 29, RES_CM_ID 30,
 *   RES_CM_ID_ENTRY 31, RES_SRC_ADDR 33, RES_DST_ADDR 34.
 *   QP types: 1 GSI, 2 RC; states: 3 RTS.
 */
#include <errno.h>
#include <string.h>
#include "check.h"
#include "nic.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the recorded bytes below are little-endian"
#endif

#define Z8 0, 0, 0, 0, 0, 0, 0, 0
#define Z40 Z8, Z8, Z8, Z8, Z8
#define Z120 Z40, Z40, Z40

/* A dump of the QPs of mlx5_0: one RC QP of pid 4242 and the kernel's GSI QP. */
static const unsigned char qp_msg[] = {
	/* nlmsghdr: len 156, type 0x140a (RES_QP_GET), flags 0x0002 (NLM_F_MULTI), seq 2, pid 0 */
	0x9c, 0x00, 0x00, 0x00, 0x0a, 0x14, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* DEV_INDEX (len 8, type 1) = 1 */
	0x08, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,
	/* DEV_NAME (len 11, type 2) = "mlx5_0\0", one byte of padding */
	0x0b, 0x00, 0x02, 0x00, 'm', 'l', 'x', '5', '_', '0', 0x00, 0x00,
	/* RES_QP (len 120 = 4 + 68 + 48, type 19) */
	0x78, 0x00, 0x13, 0x00,
	/*   RES_QP_ENTRY (len 68 = 4 + 8 * 8, type 20) */
	0x44, 0x00, 0x14, 0x00,
	/*     PORT_INDEX (3) = 1 */
	0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
	/*     RES_LQPN (21) = 0x11a = 282 */
	0x08, 0x00, 0x15, 0x00, 0x1a, 0x01, 0x00, 0x00,
	/*     RES_RQPN (22) = 0x2b3 = 691 */
	0x08, 0x00, 0x16, 0x00, 0xb3, 0x02, 0x00, 0x00,
	/*     RES_RQ_PSN (23) = 0x123456, RES_SQ_PSN (24) = 0x654321: not used */
	0x08, 0x00, 0x17, 0x00, 0x56, 0x34, 0x12, 0x00,
	0x08, 0x00, 0x18, 0x00, 0x21, 0x43, 0x65, 0x00,
	/*     RES_TYPE (26, u8, len 5 + 3 padding) = 2, RC */
	0x05, 0x00, 0x1a, 0x00, 0x02, 0x00, 0x00, 0x00,
	/*     RES_STATE (27, u8) = 3, RTS */
	0x05, 0x00, 0x1b, 0x00, 0x03, 0x00, 0x00, 0x00,
	/*     RES_PID (28) = 0x1092 = 4242 */
	0x08, 0x00, 0x1c, 0x00, 0x92, 0x10, 0x00, 0x00,
	/*   RES_QP_ENTRY (len 48, type 20): the GSI QP of the kernel, no RQPN */
	0x30, 0x00, 0x14, 0x00,
	/*     PORT_INDEX = 1, RES_LQPN = 1, RES_TYPE = 1 (GSI), RES_STATE = 3 */
	0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x15, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x1a, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x1b, 0x00, 0x03, 0x00, 0x00, 0x00,
	/*     RES_KERN_NAME (29, len 12) = "ib_core\0" */
	0x0c, 0x00, 0x1d, 0x00, 'i', 'b', '_', 'c', 'o', 'r', 'e', 0x00,
	/* NLMSG_DONE: len 20, type 3, flags NLM_F_MULTI, seq 2, pid 0; int 0 */
	0x14, 0x00, 0x00, 0x00, 0x03, 0x00, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
};

/* The CM ID of QP 282: its addresses, 192.168.1.10 -> 192.168.1.20. */
/* same layout as qp_msg above: netlink bytes written out by hand, each message its own attributes */
static const unsigned char cm_msg[] = {
	/* nlmsghdr: len 332, type 0x140b (RES_CM_ID_GET), NLM_F_MULTI, seq 3 */
	0x4c, 0x01, 0x00, 0x00, 0x0b, 0x14, 0x02, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* DEV_INDEX = 1, DEV_NAME = "mlx5_0" */
	0x08, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x0b, 0x00, 0x02, 0x00, 'm', 'l', 'x', '5', '_', '0', 0x00, 0x00,
	/* RES_CM_ID (len 296, type 30) */
	0x28, 0x01, 0x1e, 0x00,
	/*   RES_CM_ID_ENTRY (len 292 = 4 + 8 + 8 + 132 + 132 + 8, type 31) */
	0x24, 0x01, 0x1f, 0x00,
	/*     PORT_INDEX = 1, RES_LQPN = 282 */
	0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x15, 0x00, 0x1a, 0x01, 0x00, 0x00,
	/*     RES_SRC_ADDR (33, len 132): sockaddr_storage: family 2 (AF_INET, host
	 *     order), port 4791 (0x12b7, network order), 192.168.1.10, zeros */
	0x84, 0x00, 0x21, 0x00, 0x02, 0x00, 0x12, 0xb7, 0xc0, 0xa8, 0x01, 0x0a, Z120,
	/*     RES_DST_ADDR (34, len 132): AF_INET, port 4791, 192.168.1.20 */
	0x84, 0x00, 0x22, 0x00, 0x02, 0x00, 0x12, 0xb7, 0xc0, 0xa8, 0x01, 0x14, Z120,
	/*     RES_PID = 4242 */
	0x08, 0x00, 0x1c, 0x00, 0x92, 0x10, 0x00, 0x00,
};

/* A device dump answer: mlx5_1, index 7. */
static const unsigned char dev_msg[] = {
	/* nlmsghdr: len 36, type 0x1401 (CMD_GET), NLM_F_MULTI, seq 1 */
	0x24, 0x00, 0x00, 0x00, 0x01, 0x14, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* DEV_INDEX = 7, DEV_NAME = "mlx5_1" */
	0x08, 0x00, 0x01, 0x00, 0x07, 0x00, 0x00, 0x00,
	0x0b, 0x00, 0x02, 0x00, 'm', 'l', 'x', '5', '_', '1', 0x00, 0x00,
};

/* The kernel refusing a request: NLMSG_ERROR (2), len 36, error -95
 * (EOPNOTSUPP, 0xffffffa1), then the refused request's header. */
static const unsigned char err_msg[] = {
	0x24, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xa1, 0xff, 0xff, 0xff,
	0x10, 0x00, 0x00, 0x00, 0x0a, 0x14, 0x01, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void test_qp_dump(void)
{
	struct rt_qp_table t = { 0 };
	const __u8 a10[4] = { 192, 168, 1, 10 }, a20[4] = { 192, 168, 1, 20 };

	CHECK(sizeof(qp_msg) == 156 + 20, "qp_msg is %zu bytes", sizeof(qp_msg));
	CHECK(sizeof(cm_msg) == 332, "cm_msg is %zu bytes", sizeof(cm_msg));
	CHECK_EQ(rt_rdma_nl_parse(qp_msg, sizeof(qp_msg), &t), 1);	/* DONE seen */
	CHECK_EQ(t.n, 2);
	if (t.n == 2) {
		CHECK(!strcmp(t.q[0].dev, "mlx5_0"), "dev %s", t.q[0].dev);
		CHECK_EQ(t.q[0].dev_index, 1);
		CHECK_EQ(t.q[0].port, 1);
		CHECK_EQ(t.q[0].lqpn, 282);
		CHECK_EQ(t.q[0].rqpn, 691);
		CHECK_EQ(t.q[0].has_rqpn, 1);
		CHECK_EQ(t.q[0].type, 2);
		CHECK_EQ(t.q[0].state, 3);
		CHECK_EQ(t.q[0].pid, 4242);
		CHECK_EQ(t.q[0].family, 0);
		CHECK_EQ(t.q[1].lqpn, 1);
		CHECK_EQ(t.q[1].has_rqpn, 0);
		CHECK_EQ(t.q[1].type, 1);
		CHECK_EQ(t.q[1].pid, 0);
		CHECK(!strcmp(t.q[1].comm, "ib_core"), "comm %s", t.q[1].comm);
	}
	/* The CM ID gives QP 282 its addresses; no DONE in this buffer: 0. */
	CHECK_EQ(rt_rdma_nl_parse(cm_msg, sizeof(cm_msg), &t), 0);
	CHECK_EQ(t.n, 2);
	if (t.n == 2) {
		CHECK_EQ(t.q[0].family, 4);
		CHECK(!memcmp(t.q[0].src, a10, 4) && !t.q[0].src[4], "src");
		CHECK(!memcmp(t.q[0].dst, a20, 4) && !t.q[0].dst[4], "dst");
		CHECK_EQ(t.q[1].family, 0);
	}
	rt_qp_table_free(&t);
	TEST_END("nic_netlink_qp_and_cm_id_dump");
}

static void test_dev_error_truncated(void)
{
	struct rt_qp_table t = { 0 };

	CHECK_EQ(rt_rdma_nl_parse(dev_msg, sizeof(dev_msg), &t), 0);
	CHECK_EQ(t.ndevs, 1);
	CHECK_EQ(t.dev_index[0], 7);
	CHECK(!strcmp(t.dev_name[0], "mlx5_1"), "name %s", t.dev_name[0]);
	CHECK_EQ(t.n, 0);

	CHECK(rt_rdma_nl_parse(err_msg, sizeof(err_msg), &t) == -EOPNOTSUPP, "error message");
	/* A buffer cut inside the first message */
	CHECK(rt_rdma_nl_parse(qp_msg, 100, &t) == -EBADMSG, "truncated");
	CHECK_EQ(t.n, 0);
	/* A table whose entry claims more than there is: the walk stops, no row */
	{
		unsigned char bad[sizeof(qp_msg)];

		memcpy(bad, qp_msg, sizeof(bad));
		bad[40] = 0xff;		/* first RES_QP_ENTRY's length: 255 > 120 */
		rt_qp_table_clear(&t);
		CHECK_EQ(rt_rdma_nl_parse(bad, sizeof(bad), &t), 1);
		CHECK_EQ(t.n, 0);
	}
	rt_qp_table_free(&t);
	TEST_END("nic_netlink_devices_errors_truncation");
}

int main(void)
{
	test_qp_dump();
	test_dev_error_truncated();
	return TEST_EXIT();
}
