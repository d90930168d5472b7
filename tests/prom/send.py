#!/usr/bin/python3
"""Send a known mix of RoCEv2 and pause frames, and say exactly what was sent.

Usage: send.py IFACE SRC_MAC DST_MAC PCAP_OUT
Prints one JSON object: per host pair and per flow the packets, bytes (frame
length without FCS, as sent), ECN codepoints, CNPs, ACKs, NAKs and RNR NAKs;
PFC frames, XONs and quanta per priority; the RoCE and pause frame totals.
The frames are also written to PCAP_OUT.
"""
import json
import logging
import sys

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import Ether, IP, UDP, Raw, sendp, wrpcap  # noqa: E402
from scapy.contrib.roce import BTH, AETH, CNPPadding  # noqa: E402

iface, smac, dmac, pcap = sys.argv[1:5]
ECN = {0: "not_ect", 1: "ect1", 2: "ect0", 3: "ce"}
frames = []
tally = {"hostpair": {}, "flow": {}, "pfc": {}, "roce": 0, "pause": 0}


def count(table, key, ecn, kind):
    t = table.setdefault(key, {"packets": 0, "bytes": 0, "not_ect": 0, "ect0": 0, "ect1": 0, "ce": 0,
                               "cnps": 0, "acks": 0, "naks_psn_sequence": 0, "naks_other": 0, "rnr_naks": 0})
    t["packets"] += 1
    t["bytes"] += len(bytes(frames[-1]))
    t[ECN[ecn]] += 1
    if kind:
        t[kind] += 1


def roce(src, dst, dqpn, opcode, ecn, dscp, kind=None, payload=b"", syndrome=None, psn=0):
    bth = BTH(opcode=opcode, dqpn=dqpn, psn=psn, ackreq=0)
    if opcode == 0x81:
        l4 = bth / CNPPadding()
    elif syndrome is not None:
        l4 = bth / AETH(syndrome=syndrome, msn=psn)
    else:
        l4 = bth / Raw(payload)
    f = Ether(src=smac, dst=dmac) / IP(src=src, dst=dst, tos=(dscp << 2) | ecn, ttl=64) / \
        UDP(sport=49152 + dqpn % 1000, dport=4791, chksum=0) / l4
    frames.append(Ether(bytes(f)))
    tally["roce"] += 1
    count(tally["hostpair"], "%s>%s" % (src, dst), ecn, kind)
    count(tally["flow"], "%s>%s>%d" % (src, dst, dqpn), ecn, kind)


def pfc(enable, times):
    # 802.1Qbb: opcode 0x0101, class-enable vector, eight pause times
    body = (0x0101).to_bytes(2, "big") + enable.to_bytes(2, "big") + \
        b"".join(t.to_bytes(2, "big") for t in times)
    frames.append(Ether(src=smac, dst="01:80:c2:00:00:01", type=0x8808) / Raw(body + bytes(26)))
    tally["pause"] += 1
    for p in range(8):
        if enable & (1 << p):
            t = tally["pfc"].setdefault(str(p), {"frames": 0, "xon": 0, "quanta": 0})
            t["frames"] += 1
            t["xon"] += times[p] == 0
            t["quanta"] += times[p]


def pause(time):
    # 802.3x global pause: opcode 0x0001, one pause time
    body = (0x0001).to_bytes(2, "big") + time.to_bytes(2, "big")
    frames.append(Ether(src=smac, dst="01:80:c2:00:00:01", type=0x8808) / Raw(body + bytes(42)))
    tally["pause"] += 1
    t = tally["pfc"].setdefault("all", {"frames": 0, "xon": 0, "quanta": 0})
    t["frames"] += 1
    t["xon"] += time == 0
    t["quanta"] += time


A, B, C = "10.98.0.1", "10.98.0.2", "10.98.0.3"
# host pair A>B: data on QP 0x101, 15 of 40 CE-marked
for i in range(40):
    roce(A, B, 0x101, 0x04, 3 if i % 8 < 3 else 2, 26, payload=bytes(256), psn=i)
# CNPs on QP 0x202
for i in range(6):
    roce(A, B, 0x202, 0x81, 0, 48, kind="cnps")
# ACK, NAK (PSN sequence error), RNR NAK on QP 0x303
for i in range(5):
    roce(A, B, 0x303, 0x11, 2, 26, kind="acks", syndrome=0x1f, psn=i)
for i in range(3):
    roce(A, B, 0x303, 0x11, 2, 26, kind="naks_psn_sequence", syndrome=0x60, psn=i)
for i in range(2):
    roce(A, B, 0x303, 0x11, 2, 26, kind="rnr_naks", syndrome=0x21, psn=i)
# host pair C>B: QP 0x404, 2 CE and 5 ECT(1)
for i in range(7):
    roce(C, B, 0x404, 0x0a, 3 if i < 2 else 1, 26, payload=bytes(100), psn=i)
# PFC on priority 3: four pauses of 4096 quanta, then an XON; two 802.3x pauses of 100
for i in range(4):
    pfc(1 << 3, [0, 0, 0, 4096, 0, 0, 0, 0])
pfc(1 << 3, [0] * 8)
for i in range(2):
    pause(100)

wrpcap(pcap, frames)
sendp(frames, iface=iface, verbose=False, inter=0.001)
print(json.dumps(tally))
