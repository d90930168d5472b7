#!/usr/bin/python3
"""Send N RoCEv2 frames of one flow with scapy and print what was sent, from
scapy's own bytes: "PKTS BYTES". The caller pins it to a CPU (taskset), so the
receiving veth's XDP program counts the flow in that CPU's region.

usage: send_regions.py IFACE SRC_MAC DST_MAC SRC_IP DST_IP DQPN N
"""
import sys

from scapy.all import Ether, IP, UDP, Raw, sendp, conf
from scapy.contrib.roce import BTH

conf.verb = 0
iface, smac, dmac, src, dst, dqpn, n = sys.argv[1:8]
frames = [bytes(Ether(src=smac, dst=dmac) / IP(src=src, dst=dst, tos=(26 << 2) | 2) /
                UDP(sport=49152, dport=4791) / BTH(opcode=0x0a, dqpn=int(dqpn), psn=i) /
                Raw(b"\x00" * 64)) for i in range(int(n))]
sendp([Ether(f) for f in frames], iface=iface)
print(len(frames), sum(len(f) for f in frames))
