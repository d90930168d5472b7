#!/usr/bin/python3
"""Send RoCEv2 RDMA WRITE packets of several queue pairs with scapy and print
the tally counted from the built frames: "pkts N" and one "flow DQPN N" per QP.

usage: send_roce.py IFACE SRC_MAC DST_MAC SRC_IP DST_IP FLOWS PER_FLOW QP_BASE
"""
import os
import sys
from collections import Counter

from scapy.all import sendp, conf
from scapy.contrib.roce import BTH

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.roce import roce, write_only  # noqa: E402

conf.verb = 0
iface, smac, dmac, sip, dip = sys.argv[1:6]
nflows, per, base = int(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8])
frames = []
for i in range(per):
    for q in range(nflows):
        frames.append(roce(sip, dip, write_only(base + q, i, 64, ackreq=1), smac=smac, dmac=dmac,
                           sport=49152 + q))
tally = Counter()
for f in frames:
    if f.haslayer(BTH):
        tally[f[BTH].dqpn] += 1
sendp(frames, iface=iface)
print(f"pkts {sum(tally.values())}")
for q, n in sorted(tally.items()):
    print(f"flow {q} {n}")
