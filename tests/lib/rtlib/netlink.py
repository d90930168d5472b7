"""Netlink messages as bytes (little-endian host, as the kernel writes them),
for fixtures of the kernel's answers: attributes, messages, the dump's end."""
import struct

NLDEV = 5 << 10         # RDMA_NL_NLDEV << 10: the rdma netlink client's types
MULTI = 2               # NLM_F_MULTI


def attr(t, payload):
    n = 4 + len(payload)
    return struct.pack("<HH", n, t) + payload + b"\0" * ((4 - n % 4) % 4)


def u8(t, v): return attr(t, struct.pack("<B", v))
def u32(t, v): return attr(t, struct.pack("<I", v))
def u64(t, v): return attr(t, struct.pack("<Q", v))
def s(t, v): return attr(t, v.encode() + b"\0")


def msg(typ, flags, body, seq=0):
    return struct.pack("<IHHII", 16 + len(body), typ, flags, seq, 0) + body


def done(seq=0):
    """NLMSG_DONE of a multipart dump."""
    return msg(3, MULTI, struct.pack("<i", 0), seq)


# ---- rdma netlink dumps (RDMA_NLDEV_*: include/uapi/rdma/rdma_netlink.h) ----
CMD_GET, RES_QP_GET, RES_CM_ID_GET, STAT_GET = 1, 10, 11, 17
A_DEV_INDEX, A_DEV_NAME, A_PORT, A_RES_QP, A_QP_ENTRY, A_LQPN, A_RQPN = 1, 2, 3, 19, 20, 21, 22
A_TYPE, A_STATE, A_PID = 26, 27, 28
A_CTR_ID, A_HWCS, A_HWC, A_HWC_NAME, A_HWC_VAL = 79, 80, 81, 82, 83
A_STAT_COUNTER, A_STAT_COUNTER_ENTRY = 77, 78


def res_qp(qps, dev="mlx5_0", dev_index=1, seq=2):
    """The QP dump (`rdma resource show qp`): qps [(lqpn, rqpn, pid, ...)],
    each an RC QP (type 2) in RTS (state 3) on port 1, then the dump's end."""
    ents = b"".join(attr(A_QP_ENTRY, u32(A_PORT, 1) + u32(A_LQPN, q[0]) + u32(A_RQPN, q[1]) +
                         u8(A_TYPE, 2) + u8(A_STATE, 3) + u32(A_PID, q[2]))
                    for q in qps)
    return msg(NLDEV + RES_QP_GET, MULTI, u32(A_DEV_INDEX, dev_index) + s(A_DEV_NAME, dev) +
               attr(A_RES_QP, ents), seq) + done(seq)


def stat_qp(counters, dev="mlx5_0", dev_index=1, seq=4):
    """The per-QP statistics dump: counters [(id, [lqpn...], {name: value})],
    as the kernel's res_get_common_dumpit lays them out: the device, then a
    STAT_COUNTER table of STAT_COUNTER_ENTRY (`rdma statistic qp show` reads
    it so), then the dump's end."""
    ents = b""
    for cid, qps, vals in counters:
        hw = b"".join(attr(A_HWC, s(A_HWC_NAME, n) + u64(A_HWC_VAL, v)) for n, v in vals.items())
        q = b"".join(attr(A_QP_ENTRY, u32(A_LQPN, x)) for x in qps)
        ents += attr(A_STAT_COUNTER_ENTRY, u32(A_PORT, 1) + u32(A_CTR_ID, cid) + attr(A_HWCS, hw) +
                     attr(A_RES_QP, q))
    return msg(NLDEV + STAT_GET, MULTI, u32(A_DEV_INDEX, dev_index) + s(A_DEV_NAME, dev) +
               attr(A_STAT_COUNTER, ents), seq) + done(seq)
