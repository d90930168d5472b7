#!/usr/bin/python3
"""Send the tuning test's RoCEv2 traffic on IFACE with scapy: for each
DSCP:COUNT:CE:CNP argument, COUNT RDMA WRITE packets of one QP with that DSCP,
CE-marked when CE is 1 (else ECT(0)), and CNP CNPs (BTH opcode 0x81) with that
DSCP. Prints the tally: "dscp D pkts N ce N cnp N" per argument.

usage: send_tune.py IFACE DSCP:COUNT:CE:CNP...
"""
import os
import sys

from scapy.all import sendp, conf, Raw
from scapy.contrib.roce import BTH

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.roce import roce, write_only  # noqa: E402

conf.verb = 0
iface = sys.argv[1]
frames = []
for k, arg in enumerate(sys.argv[2:]):
    dscp, count, ce, cnp = (int(x) for x in arg.split(":"))
    tos = dscp << 2 | (3 if ce else 2)
    for i in range(count):
        frames.append(roce("10.9.0.1", "10.9.0.2", write_only(0x100 + k, i), tos=tos, sport=49152 + k))
    for i in range(cnp):
        frames.append(roce("10.9.0.2", "10.9.0.1", BTH(opcode=0x81, dqpn=0x200 + k, psn=i) / Raw(bytes(16)),
                           tos=dscp << 2 | 2, sport=49152 + k))
    print(f"dscp {dscp} pkts {count} ce {count if ce else 0} cnp {cnp}")
sendp(frames, iface=iface)
