#!/usr/bin/env python3
# The kernel's RDMA netlink answers for one Soft-RoCE device, as bytes laid
# out as drivers/infiniband/core/nldev.c writes them, for tests/nic/fake_rdma_nl.c.
# Usage: rdma_nl_answers.py DIR SCENARIO
#   rxe:     rxe0 (index 3), port 1 on enp0s4 (ifindex 2); one RC QP 17 of
#            pid 4321; per-QP mode "none" at first, "auto type" once set;
#            the port's counter dump is empty: the driver binds no counter
#   bound:   the same, with counter 4 bound to QPs 178 and 180 holding
#            rcvd_pkts 4096 and rcvd_seq_err 3
#   refuse:  the mode query answered EINVAL (as every kernel answered
#            rocetop's before it named STAT_MODE)
# In each, the first QP dump is empty: QP 17 comes after rocetop starts.
# Files: <op>[d][.n] (d: a dump, n: the n-th such request), see fake_rdma_nl.c.
# Numbers from <rdma/rdma_netlink.h>: client RDMA_NL_NLDEV 5 (type 0x1400 + op);
# ops GET 1, PORT_GET 5, RES_QP_GET 10, STAT_GET 17; attributes DEV_INDEX 1,
# DEV_NAME 2, PORT_INDEX 3, PORT_STATE 12, PORT_PHYS_STATE 13, RES_QP 19,
# RES_QP_ENTRY 20, RES_LQPN 21, RES_RQPN 22, RES_TYPE 26, RES_STATE 27,
# RES_PID 28, NDEV_INDEX 50, NDEV_NAME 51, STAT_MODE 74, STAT_AUTO_MODE_MASK 76,
# STAT_COUNTER 77, STAT_COUNTER_ENTRY 78, STAT_COUNTER_ID 79, STAT_HWCOUNTERS 80,
# HWCOUNTER_ENTRY 81, ENTRY_NAME 82, ENTRY_VALUE 83. `rdma` reading these files
# as the kernel's answers (test_qp_counters_iproute2.sh) checks the layout.
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.netlink import MULTI, NLDEV, attr, done, msg, u8, u32, u64, s  # noqa: E402,F401


def error(op, err):
    return msg(2, 0, struct.pack("<i", err) + struct.pack("<IHHII", 16, NLDEV + op, 5, 0, 0))


def ack(op):
    # NLMSG_ERROR 0, then the request's header (its length and seq do not matter to readers)
    return error(op, 0)


HANDLE = u32(1, 3) + s(2, "rxe0")


def main():
    out, scen = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    files = {
        # the devices: rxe0 with one port (PORT_INDEX: the number of ports)
        "1d": msg(NLDEV + 1, MULTI, HANDLE + u32(3, 1)) + done(),
        # the port: ACTIVE (4), LinkUp (5), its netdev
        "5": msg(NLDEV + 5, 0, HANDLE + u32(3, 1) + u8(12, 4) + u8(13, 5) +
                  u32(50, 2) + s(51, "enp0s4")) + ack(5),
        # the QPs: RC (2) QP 17 in RTS (3), peer QP 18, of pid 4321
        "10d": msg(NLDEV + 10, MULTI, HANDLE + attr(19, attr(20, u32(3, 1) + u32(21, 17) +
                   u32(22, 18) + u8(26, 2) + u8(27, 3) + u32(28, 4321)))) + done(),
        "10d.1": done(),
        # the port's mode: none at first, auto by QP type once set
        "17.1": msg(NLDEV + 17, 0, HANDLE + u32(3, 1) + u32(74, 0)) + ack(17),
        "17": msg(NLDEV + 17, 0, HANDLE + u32(3, 1) + u32(74, 1) + u32(76, 1)) + ack(17),
    }
    if scen == "rxe":
        files["17d"] = done()
    elif scen == "bound":
        hw = attr(81, s(82, "rcvd_pkts") + u64(83, 4096)) + attr(81, s(82, "rcvd_seq_err") + u64(83, 3))
        qps = attr(20, u32(21, 178)) + attr(20, u32(21, 180))
        ent = attr(78, u32(3, 1) + u32(79, 4) + attr(80, hw) + attr(19, qps))
        files["17d"] = msg(NLDEV + 17, MULTI, HANDLE + attr(77, ent)) + done()
    elif scen == "refuse":
        files["17d"] = done()
        files["17.1"] = error(17, -22)
    else:
        sys.exit("unknown scenario " + scen)
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


main()
