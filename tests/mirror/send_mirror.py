#!/usr/bin/python3
"""Send switch-style mirror copies with scapy, and write the tally of what is
inside them, computed from scapy's own fields of the frames it built.

usage: send_mirror.py IFACE SRC_MAC DST_MAC SEED TALLY_PREFIX

RoCEv2 frames (data with each ECN codepoint, some 802.1Q-tagged; CNPs; ACKs,
NAKs, RNR NAKs) and PFC frames, each wrapped in one of six mirror sessions:
GRE + ERSPAN type I (0x88BE without the sequence number, no ERSPAN header; the
inner destination MAC's first nibble made 1, the version an ERSPAN II header
would have), GRE + ERSPAN II session 5 (the same inner MACs), GRE + ERSPAN III session 300 (ingress) and 301
(egress, with the platform sub-header), GRE TEB (with a key), VXLAN VNI 4660
(outer IPv6). Beside them frames that are not mirror copies: RoCE seen
directly, plain UDP and TCP, and an ERSPAN of an unknown version.

Writes TALLY_PREFIX.flows.csv (mirror,src,dst,dqpn,pkts,bytes,not_ect,ect0,
ect1,ce,cnp,ack,nak,rnr_nak,nak_seq,nak_other; bytes: the inner frame),
TALLY_PREFIX.pfc.csv (prio,frames,xon,quanta) and TALLY_PREFIX.frames
(sent=N mirrored=M direct=D: what a --collector port must drop and pass).
"""
import os
import random
import sys

from scapy.all import Ether, Dot1Q, IP, IPv6, UDP, TCP, Raw, sendp, conf
from scapy.layers.l2 import GRE
from scapy.layers.vxlan import VXLAN
from scapy.contrib.erspan import ERSPAN_II, ERSPAN_III, ERSPAN_PlatformSpecific
from scapy.contrib.roce import BTH, AETH, CNPPadding

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.roce import count_pause, count_roce, flow_table, pfc_table, write_tally  # noqa: E402

conf.verb = 0
iface, smac, dmac, seed, prefix = sys.argv[1:6]
rnd = random.Random(int(seed))
SW4, COL4 = "172.31.0.1", "172.31.0.2"     # the switch and the collector
SW6, COL6 = "fd31::1", "fd31::2"
IMAC_A, IMAC_B = "02:00:00:00:10:01", "02:00:00:00:10:02"   # the mirrored wire


def outer4(proto):
    return Ether(src=smac, dst=dmac) / IP(src=SW4, dst=COL4, proto=proto)


def nibble1(f):
    return bytes([0x10 | (f[0] & 0x0F)]) + f[1:]


SESSIONS = {
    "erspan1": lambda f, i: outer4(47) / GRE(proto=0x88BE) / Raw(nibble1(f)),
    "erspan2:5": lambda f, i: outer4(47) / GRE(proto=0x88BE, seqnum_present=1, seqence_number=i) /
    ERSPAN_II(ver=1, session_id=5, index=7) / Raw(nibble1(f)),
    "erspan3:300:ingress": lambda f, i: outer4(47) / GRE(proto=0x22EB, seqnum_present=1, seqence_number=i) /
    ERSPAN_III(ver=2, session_id=300, timestamp=i, d=0, o=0) / Raw(f),
    "erspan3:301:egress": lambda f, i: outer4(47) / GRE(proto=0x22EB, seqnum_present=1, seqence_number=i) /
    ERSPAN_III(ver=2, session_id=301, timestamp=i, d=1, o=1, hw=9) /
    ERSPAN_PlatformSpecific(platf_id=3, info1=1, info2=i) / Raw(f),
    "gre": lambda f, i: outer4(47) / GRE(proto=0x6558, key_present=1, key=77) / Raw(f),
    "vxlan:4660": lambda f, i: Ether(src=smac, dst=dmac) / IPv6(src=SW6, dst=COL6) /
    UDP(sport=50000 + i % 64, dport=4789) / VXLAN(flags=0x08, vni=4660) / Raw(f),
}

inner = []
# data: several QPs, each ECN codepoint, some tagged
for q in range(6):
    for i in range(rnd.randint(15, 30)):
        l2 = Ether(src=IMAC_A, dst=IMAC_B)
        if q % 3 == 1:
            l2 = l2 / Dot1Q(prio=3, vlan=100)
        tos = (26 << 2) | rnd.choice([0, 1, 2, 2, 3, 3])
        inner.append(l2 / IP(src=f"10.40.0.{10 + q}", dst="10.40.1.1", tos=tos) /
                     UDP(sport=49152 + q, dport=4791) /
                     BTH(opcode=rnd.choice([0x06, 0x07, 0x08, 0x0A, 0x04]), dqpn=0x100 + q, psn=i) /
                     Raw(b"\x00" * rnd.choice([16, 64, 512, 1024])))
for q in range(2):
    for i in range(rnd.randint(4, 10)):
        inner.append(Ether(src=IMAC_B, dst=IMAC_A) / IP(src="10.40.1.1", dst=f"10.40.0.{10 + q}", tos=48 << 2) /
                     UDP(sport=49300 + q, dport=4791) / BTH(opcode=0x81, dqpn=0x500 + q) / CNPPadding())
for syn, n in ((0x00, 7), (0x60, 3), (0x61, 2), (0x2E, 4)):
    for i in range(n):
        inner.append(Ether(src=IMAC_B, dst=IMAC_A) / IP(src="10.40.1.1", dst="10.40.0.10", tos=(26 << 2) | 2) /
                     UDP(sport=49400, dport=4791) / BTH(opcode=0x11, dqpn=0x600, psn=i) /
                     AETH(syndrome=syn, msn=i))
pfc_inner = []
for cev, times in ((0x08, [0, 0, 0, 0x400, 0, 0, 0, 0]), (0x08, [0] * 8), (0x28, [0, 0, 0, 9, 0, 0x100, 0, 0])):
    body = bytes([0x01, 0x01, 0x00, cev]) + b"".join(t.to_bytes(2, "big") for t in times)
    pfc_inner.append((cev, times, Ether(src=IMAC_B, dst="01:80:c2:00:00:01", type=0x8808) / Raw(body + bytes(26))))

flows, pfc = flow_table(), pfc_table()
frames = []
names = sorted(SESSIONS)
nmirror = 0


def count(mirror, wire):
    p = Ether(wire)
    count_roce(flows[(mirror, p[IP].src, p[IP].dst, p[BTH].dqpn)], len(wire), p[IP].tos, p[BTH].opcode,
               p[AETH].syndrome if p.haslayer(AETH) else None)


for i, p in enumerate(inner):
    w = bytes(p)
    m = rnd.choice(names)
    frames.append(bytes(SESSIONS[m](w, i)))
    count(m, w)
    nmirror += 1
for i, (cev, times, p) in enumerate(pfc_inner):
    frames.append(bytes(SESSIONS[names[i % len(names)]](bytes(p), i)))
    nmirror += 1
    for c in range(8):
        if cev & (1 << c):
            count_pause(pfc, str(c), times[c])
# not mirror copies: these pass even on a collector port
direct = []
for i in range(5):
    p = Ether(src=smac, dst=dmac) / IP(src="10.41.0.1", dst="10.41.0.2", tos=(26 << 2) | 3) / \
        UDP(sport=49999, dport=4791) / BTH(opcode=0x0A, dqpn=0x700, psn=i) / Raw(bytes(64))
    direct.append(bytes(p))
    count("", bytes(p))
direct.append(bytes(Ether(src=smac, dst=dmac) / IP(src=SW4, dst=COL4) / UDP(dport=53) / Raw(b"x" * 20)))
direct.append(bytes(Ether(src=smac, dst=dmac) / IP(src=SW4, dst=COL4) / TCP(dport=80)))
# an ERSPAN header of an unknown version: not a mirror copy to rocetop, passed
direct.append(bytes(outer4(47) / GRE(proto=0x88BE, seqnum_present=1) / ERSPAN_II(ver=3, session_id=5) /
                    Raw(bytes(60))))
frames += direct
rnd.shuffle(frames)
sendp(frames, iface=iface)

write_tally(prefix, flows, pfc, ("mirror", "src", "dst", "dqpn"))
with open(prefix + ".frames", "w") as o:
    o.write(f"sent={len(frames)} mirrored={nmirror} direct={len(direct)}\n")
print(f"sent {len(frames)} frames on {iface}: {nmirror} mirror copies, {len(direct)} others")
