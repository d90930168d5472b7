#!/usr/bin/python3
"""Send N RoCEv2 RDMA WRITE datagrams to DST:4791 with MSG_ZEROCOPY (their UDP
payload - BTH, 64 bytes, ICRC - stays in the sender's pages, so the skb's
linear part ends at the UDP header), then N the plain way (linear). QP 0x77
zero-copy, QP 0x78 plain. Usage: send_split.py DST N"""
import socket
import sys

SO_ZEROCOPY, MSG_ZEROCOPY = 60, 0x4000000


def bth(qp):
    """RDMA WRITE ONLY, P_Key 0xffff, destination QP qp, PSN 0x100."""
    return bytes([0x0a, 0, 0xff, 0xff, 0, (qp >> 16) & 255, (qp >> 8) & 255, qp & 255,
                  0, 0, 1, 0])


dst, n = sys.argv[1], int(sys.argv[2])
split = bth(0x77) + bytes(64) + bytes(4)
linear = bth(0x78) + bytes(64) + bytes(4)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, SO_ZEROCOPY, 1)
for _ in range(n):
    if s.sendto(split, MSG_ZEROCOPY, (dst, 4791)) != len(split):
        sys.exit("short zero-copy send")
for _ in range(n):
    if s.sendto(linear, (dst, 4791)) != len(linear):
        sys.exit("short send")
