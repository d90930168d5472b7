#!/usr/bin/python3
# Send a known set of RoCEv2 packets and PFC frames for the TUI tests.
# The counts below are the independent source the tests assert against.
#   part "in":  sent from the namespace, seen on ingress of the watched veth
#   part "out": sent from the watched veth itself, seen on egress
# Usage: send_known.py in|out IFACE DST_MAC
import os
import sys
from scapy.all import Raw, sendp
from scapy.contrib.roce import BTH, AETH, cnp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import roce as rl  # noqa: E402

part, iface, dmac = sys.argv[1], sys.argv[2], sys.argv[3]
A, B = "10.77.0.1", "10.77.0.2"
pkts = []


def roce(src, dst, tos, bth, sport=49152):
    return rl.roce(src, dst, bth, tos=tos, dmac=dmac, sport=sport)


if part == "in":
    # flow A: B -> A, QP 0xabc, SEND only, 40 packets, 10 of them CE (DSCP 26)
    for i in range(40):
        tos = (26 << 2) | (3 if i % 4 == 0 else 2)
        pkts.append(roce(B, A, tos, BTH(opcode=0x04, dqpn=0xabc, psn=i) / Raw(b"x" * 64)))
    # flow B: B -> A, QP 0x222, RDMA WRITE only, 20 packets, ECT(0), no CE
    for i in range(20):
        pkts.append(roce(B, A, (26 << 2) | 2, BTH(opcode=0x0a, dqpn=0x222, psn=i) / Raw(b"y" * 16 + b"z" * 64), 49153))
    # PFC on priority 3: 5 pauses (0xffff quanta) and 2 XON
    for t in [0xffff] * 5 + [0] * 2:
        pkts.append(rl.pfc({3: t}))
else:
    # CNPs: A -> B to QP 0x345 (B's QP, the sender of flow A), DSCP 48
    for i in range(6):
        pkts.append(roce(A, B, (48 << 2) | 2, cnp(0x345), 49154))
    # flow C: A -> B, QP 0x456: 5 ACKs, 4 NAKs (PSN sequence error), 3 RNR NAKs
    for syn in [0x1f] * 5 + [0x60] * 4 + [0x2e] * 3:
        pkts.append(roce(A, B, (26 << 2) | 2, BTH(opcode=0x11, dqpn=0x456) / AETH(syndrome=syn), 49155))
sendp(pkts, iface=iface, verbose=False)
print("sent", len(pkts))
