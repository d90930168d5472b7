#!/usr/bin/python3
"""Send a known mix of RoCEv2 and pause frames, and say exactly what was sent.

Usage: send.py IFACE SRC_MAC DST_MAC PCAP_OUT
Prints one JSON object: per host pair ("SRC>DST") and per flow
("SRC>DST>DQPN") rocetop's flow counters (rtlib.roce.FLOW_COLS: packets,
bytes as sent without FCS, ECN codepoints, CNPs, ACKs, NAKs, RNR NAKs); PFC
frames, XONs and quanta per priority ("all" for 802.3x); the RoCE and pause
frame totals. Each frame is tallied from its own bytes by rtlib's counting
(never by rocetop). The frames are also written to PCAP_OUT.
"""
import json
import logging
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import roce as R  # noqa: E402

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import Ether, IP, UDP, Raw, sendp, wrpcap  # noqa: E402
from scapy.contrib.roce import BTH, AETH, CNPPadding  # noqa: E402

iface, smac, dmac, pcap = sys.argv[1:5]
frames = []
hostpair, flow, pfc = R.flow_table(), R.flow_table(), R.pfc_table()
total = {"roce": 0, "pause": 0}


def roce(src, dst, dqpn, opcode, ecn, dscp, payload=b"", syndrome=None, psn=0):
    bth = BTH(opcode=opcode, dqpn=dqpn, psn=psn, ackreq=0)
    if opcode == 0x81:
        l4 = bth / CNPPadding()
    elif syndrome is not None:
        l4 = bth / AETH(syndrome=syndrome, msn=psn)
    else:
        l4 = bth / Raw(payload)
    f = R.roce(src, dst, l4, tos=(dscp << 2) | ecn, smac=smac, dmac=dmac, sport=49152 + dqpn % 1000)
    f[UDP].chksum = 0
    f = Ether(bytes(f))
    frames.append(f)
    total["roce"] += 1
    b = f[BTH]
    syn = f[AETH].syndrome if AETH in f else None
    for table, key in ((hostpair, "%s>%s" % (src, dst)), (flow, "%s>%s>%d" % (src, dst, b.dqpn))):
        R.count_roce(table[key], len(bytes(f)), f[IP].tos & 3, b.opcode, syn)


def mac_control(f):
    frames.append(f)
    total["pause"] += 1
    R.count_mac_control(pfc, f[Raw].load)


A, B, C = "10.98.0.1", "10.98.0.2", "10.98.0.3"
# host pair A>B: data on QP 0x101, 15 of 40 CE-marked
for i in range(40):
    roce(A, B, 0x101, 0x04, 3 if i % 8 < 3 else 2, 26, payload=bytes(256), psn=i)
# CNPs on QP 0x202
for i in range(6):
    roce(A, B, 0x202, 0x81, 0, 48)
# ACK, NAK (PSN sequence error), RNR NAK on QP 0x303
for i in range(5):
    roce(A, B, 0x303, 0x11, 2, 26, syndrome=0x1f, psn=i)
for i in range(3):
    roce(A, B, 0x303, 0x11, 2, 26, syndrome=0x60, psn=i)
for i in range(2):
    roce(A, B, 0x303, 0x11, 2, 26, syndrome=0x21, psn=i)
# host pair C>B: QP 0x404, 2 CE and 5 ECT(1)
for i in range(7):
    roce(C, B, 0x404, 0x0a, 3 if i < 2 else 1, 26, payload=bytes(100), psn=i)
# PFC on priority 3: four pauses of 4096 quanta, then an XON; two 802.3x pauses of 100
for i in range(4):
    mac_control(R.pfc({3: 4096}, smac))
mac_control(R.pfc({3: 0}, smac))
for i in range(2):
    mac_control(R.pause(100, smac))

wrpcap(pcap, frames)
sendp(frames, iface=iface, verbose=False, inter=0.001)
print(json.dumps({"hostpair": hostpair, "flow": flow, "pfc": pfc, **total}))
