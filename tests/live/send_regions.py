#!/usr/bin/python3
"""Send N RoCEv2 frames of one flow with scapy and print what was sent, from
scapy's own bytes: "PKTS BYTES". The caller pins it to a CPU (taskset), so the
receiving veth's XDP program counts the flow in that CPU's region.

usage: send_regions.py IFACE SRC_MAC DST_MAC SRC_IP DST_IP DQPN N
"""
import os
import sys

from scapy.all import Ether, sendp, conf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.roce import roce, write_only  # noqa: E402

conf.verb = 0
iface, smac, dmac, src, dst, dqpn, n = sys.argv[1:8]
frames = [bytes(roce(src, dst, write_only(int(dqpn), i), smac=smac, dmac=dmac)) for i in range(int(n))]
sendp([Ether(f) for f in frames], iface=iface)
print(len(frames), sum(len(f) for f in frames))
