#!/usr/bin/python3
"""Send a known mix of RoCEv2, PFC and other frames with scapy, and write the
tally of what was sent, computed from scapy's own fields of the built frames.

usage: send.py IFACE SRC_MAC DST_MAC SRC_NET DST_IP SEED TALLY_PREFIX
Writes TALLY_PREFIX.flows.csv (src,dst,dqpn,pkts,bytes,not_ect,ect0,ect1,ce,cnp,
ack,nak,rnr_nak,nak_seq,nak_other) and TALLY_PREFIX.pfc.csv (prio,frames,xon,quanta).
"""
import random
import sys
from collections import defaultdict

from scapy.all import Ether, Dot1Q, IP, IPv6, UDP, TCP, Raw, sendp, conf
from scapy.contrib.roce import BTH, AETH, CNPPadding

conf.verb = 0
iface, smac, dmac, src_net, dst_ip, seed, prefix = sys.argv[1:8]
rnd = random.Random(int(seed))

frames = []
# Data flows: several QPs from several sources, each ECN codepoint, some tagged.
for q in range(4):
    src = f"{src_net}.{10 + q}"
    for i in range(rnd.randint(20, 40)):
        tos = (26 << 2) | rnd.choice([0, 1, 2, 2, 2, 3, 3])
        l2 = Ether(src=smac, dst=dmac)
        if q % 2:
            l2 = l2 / Dot1Q(prio=3, vlan=100)
        op = rnd.choice([0x06, 0x07, 0x08, 0x0a, 0x04])  # WRITE first/middle/last/only, SEND only
        frames.append(l2 / IP(src=src, dst=dst_ip, tos=tos) /
                      UDP(sport=49152 + q, dport=4791) /
                      BTH(opcode=op, dqpn=0x100 + q, psn=i, ackreq=1) /
                      Raw(b"\x00" * rnd.choice([16, 64, 256, 1024])))
# CNPs towards two QPs, ACKs, NAKs (PSN sequence error and another), RNR NAKs.
for q in range(2):
    for i in range(rnd.randint(5, 12)):
        frames.append(Ether(src=smac, dst=dmac) / IP(src=f"{src_net}.{20 + q}", dst=dst_ip, tos=48 << 2) /
                      UDP(sport=49300 + q, dport=4791) / BTH(opcode=0x81, dqpn=0x200 + q) / CNPPadding())
for syn, n in ((0x00, 9), (0x60, 3), (0x61, 2), (0x20 | 0x0e, 4)):
    for i in range(n):
        frames.append(Ether(src=smac, dst=dmac) / IP(src=f"{src_net}.30", dst=dst_ip, tos=(26 << 2) | 2) /
                      UDP(sport=49400, dport=4791) / BTH(opcode=0x11, dqpn=0x300, psn=i) /
                      AETH(syndrome=syn, msn=i))
# PFC: classes 3 and 5 paused, then XON on 3; 802.3x pause.
pfc_frames = [(0x28, [0, 0, 0, 0xffff, 0, 0x1000, 0, 0]), (0x28, [0, 0, 0, 0x800, 0, 0x10, 0, 0]),
              (0x08, [0] * 8), (0x81, [7, 0, 0, 0, 0, 0, 0, 9])]
for cev, times in pfc_frames:
    body = bytes([0x01, 0x01, 0x00, cev]) + b"".join(t.to_bytes(2, "big") for t in times)
    frames.append(Ether(src=smac, dst="01:80:c2:00:00:01", type=0x8808) / Raw(body + b"\x00" * 26))
frames.append(Ether(src=smac, dst="01:80:c2:00:00:01", type=0x8808) /
              Raw(bytes([0x00, 0x01, 0x01, 0x00]) + b"\x00" * 42))
# Not RoCE: UDP elsewhere, TCP, IPv6 UDP to another port.
frames.append(Ether(src=smac, dst=dmac) / IP(src=f"{src_net}.40", dst=dst_ip) / UDP(dport=4792) / Raw(b"x" * 30))
frames.append(Ether(src=smac, dst=dmac) / IP(src=f"{src_net}.40", dst=dst_ip) / TCP(dport=80))
rnd.shuffle(frames)

flows = defaultdict(lambda: defaultdict(int))
pfc = defaultdict(lambda: defaultdict(int))
raw = [bytes(f) for f in frames]
for b in raw:
    p = Ether(b)
    if p.type == 0x8808 or (p.haslayer(Dot1Q) and p[Dot1Q].type == 0x8808):
        body = bytes(p.payload)
        op = int.from_bytes(body[0:2], "big")
        if op == 0x0101:
            cev = body[3]
            for c in range(8):
                if cev & (1 << c):
                    t = int.from_bytes(body[4 + 2 * c:6 + 2 * c], "big")
                    pfc[str(c)]["frames"] += 1
                    pfc[str(c)]["quanta"] += t
                    pfc[str(c)]["xon"] += t == 0
        elif op == 0x0001:
            t = int.from_bytes(body[2:4], "big")
            pfc["all"]["frames"] += 1
            pfc["all"]["quanta"] += t
            pfc["all"]["xon"] += t == 0
        continue
    if not p.haslayer(BTH) or p[UDP].dport != 4791:
        continue
    k = (p[IP].src, p[IP].dst, p[BTH].dqpn)
    f = flows[k]
    f["pkts"] += 1
    f["bytes"] += len(b)
    f[["not_ect", "ect1", "ect0", "ce"][p[IP].tos & 3]] += 1
    op = p[BTH].opcode
    if op == 0x81:
        f["cnp"] += 1
    if op == 0x11 and p.haslayer(AETH):
        syn = p[AETH].syndrome
        t = (syn >> 5) & 3
        if t == 0:
            f["ack"] += 1
        elif t == 1:
            f["rnr_nak"] += 1
        elif t == 3:
            f["nak"] += 1
            f["nak_seq" if (syn & 0x1f) == 0 else "nak_other"] += 1

sendp(raw, iface=iface)

cols = "pkts,bytes,not_ect,ect0,ect1,ce,cnp,ack,nak,rnr_nak,nak_seq,nak_other".split(",")
with open(prefix + ".flows.csv", "w") as o:
    o.write("src,dst,dqpn," + ",".join(cols) + "\n")
    for (s, d, q), f in sorted(flows.items()):
        o.write(f"{s},{d},{q}," + ",".join(str(f[c]) for c in cols) + "\n")
with open(prefix + ".pfc.csv", "w") as o:
    o.write("prio,frames,xon,quanta\n")
    for prio, f in sorted(pfc.items()):
        o.write(f"{prio},{f['frames']},{f['xon']},{f['quanta']}\n")
print(f"sent {len(raw)} frames on {iface}")
