#!/usr/bin/python3
"""Send RoCEv2 RDMA WRITE packets of several queue pairs with scapy and print
the tally counted from the built frames: "pkts N" and one "flow DQPN N" per QP.

usage: send_roce.py IFACE SRC_MAC DST_MAC SRC_IP DST_IP FLOWS PER_FLOW QP_BASE
"""
import sys
from collections import Counter

from scapy.all import Ether, IP, UDP, Raw, sendp, conf
from scapy.contrib.roce import BTH

conf.verb = 0
iface, smac, dmac, sip, dip = sys.argv[1:6]
nflows, per, base = int(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8])
frames = []
for i in range(per):
    for q in range(nflows):
        frames.append(Ether(src=smac, dst=dmac) / IP(src=sip, dst=dip, tos=26 << 2 | 2) /
                      UDP(sport=49152 + q, dport=4791) /
                      BTH(opcode=0x0a, dqpn=base + q, psn=i, ackreq=1) / Raw(b"\x00" * 64))
tally = Counter()
for f in frames:
    if f.haslayer(BTH):
        tally[f[BTH].dqpn] += 1
sendp(frames, iface=iface)
print(f"pkts {sum(tally.values())}")
for q, n in sorted(tally.items()):
    print(f"flow {q} {n}")
