#!/usr/bin/python3
"""Send a known mix of RoCEv2, PFC and other frames with scapy, and write the
tally of what was sent, computed from scapy's own fields of the built frames.

usage: send.py IFACE SRC_MAC DST_MAC SRC_NET DST_IP SEED TALLY_PREFIX
       send.py --build DIR SRC_NET DST_IP SEED
Writes TALLY_PREFIX.flows.csv (src,dst,dqpn,pkts,bytes,not_ect,ect0,ect1,ce,cnp,
ack,nak,rnr_nak,nak_seq,nak_other) and TALLY_PREFIX.pfc.csv (prio,frames,xon,quanta).

--build writes the frames of SRC_NET, DST_IP and SEED (with stand-in MACs) and
their tally into DIR once; a later send with RT_FRAMES=DIR in its environment
sends those frames with its own MACs and copies their tally, without importing
scapy. The VM tests build on the host: scapy under emulation (TCG) took minutes
a send.
"""
import os
import random
import shutil
import socket
import struct
import sys

# The stand-in MACs of built frames, replaced by the sender's own.
BUILD_SMAC, BUILD_DMAC = "02:00:00:00:00:0a", "02:00:00:00:00:0b"


def key(src_net, dst_ip, seed):
    return os.path.join(os.environ.get("RT_FRAMES", ""), f"{src_net}-{dst_ip}-{seed}")


def read_pcap(path):
    """The frames of a little-endian pcap file, as scapy's wrpcap writes it."""
    with open(path, "rb") as f:
        data = f.read()
    frames, off = [], 24
    while off + 16 <= len(data):
        caplen = struct.unpack_from("<I", data, off + 8)[0]
        frames.append(data[off + 16:off + 16 + caplen])
        off += 16 + caplen
    return frames


def send_raw(iface, frames):
    with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as s:
        s.bind((iface, 0))
        for b in frames:
            s.send(b)


def send_built(argv):
    """Send the frames --build wrote, with this sender's MACs; False if none."""
    iface, smac, dmac, src_net, dst_ip, seed, prefix = argv
    base = key(src_net, dst_ip, seed)
    if not os.environ.get("RT_FRAMES") or not os.path.exists(base + ".pcap"):
        return False
    mac = {bytes.fromhex(BUILD_SMAC.replace(":", "")): bytes.fromhex(smac.replace(":", "")),
           bytes.fromhex(BUILD_DMAC.replace(":", "")): bytes.fromhex(dmac.replace(":", ""))}
    frames = [mac.get(b[0:6], b[0:6]) + mac.get(b[6:12], b[6:12]) + b[12:] for b in read_pcap(base + ".pcap")]
    send_raw(iface, frames)
    for ext in (".flows.csv", ".pfc.csv"):
        shutil.copyfile(base + ext, prefix + ext)
    print(f"sent {len(frames)} frames on {iface}")
    return True


if sys.argv[1:2] == ["--build"]:
    os.environ["RT_FRAMES"] = sys.argv[2]
    os.makedirs(sys.argv[2], exist_ok=True)
    iface, smac, dmac = None, BUILD_SMAC, BUILD_DMAC
    src_net, dst_ip, seed = sys.argv[3:6]
    prefix = key(src_net, dst_ip, seed)
elif send_built(sys.argv[1:8]):
    sys.exit(0)
else:
    iface, smac, dmac, src_net, dst_ip, seed, prefix = sys.argv[1:8]

from scapy.all import Ether, Dot1Q, IP, UDP, TCP, Raw, sendp, conf, wrpcap  # noqa: E402
from scapy.contrib.roce import BTH, AETH, CNPPadding  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.roce import count_mac_control, count_roce, flow_table, pfc_table, pfc_body, roce, write_tally  # noqa: E402

conf.verb = 0
rnd = random.Random(int(seed))

frames = []
# Data flows: several QPs from several sources, each ECN codepoint, some tagged.
for q in range(4):
    src = f"{src_net}.{10 + q}"
    for i in range(rnd.randint(20, 40)):
        tos = (26 << 2) | rnd.choice([0, 1, 2, 2, 2, 3, 3])
        op = rnd.choice([0x06, 0x07, 0x08, 0x0a, 0x04])  # WRITE first/middle/last/only, SEND only
        frames.append(roce(src, dst_ip, BTH(opcode=op, dqpn=0x100 + q, psn=i, ackreq=1) /
                           Raw(b"\x00" * rnd.choice([16, 64, 256, 1024])),
                           tos=tos, smac=smac, dmac=dmac, sport=49152 + q, vlan=100 if q % 2 else None))
# CNPs towards two QPs, ACKs, NAKs (PSN sequence error and another), RNR NAKs.
for q in range(2):
    for i in range(rnd.randint(5, 12)):
        frames.append(roce(f"{src_net}.{20 + q}", dst_ip, BTH(opcode=0x81, dqpn=0x200 + q) / CNPPadding(),
                           tos=48 << 2, smac=smac, dmac=dmac, sport=49300 + q))
for syn, n in ((0x00, 9), (0x60, 3), (0x61, 2), (0x20 | 0x0e, 4)):
    for i in range(n):
        frames.append(roce(f"{src_net}.30", dst_ip, BTH(opcode=0x11, dqpn=0x300, psn=i) / AETH(syndrome=syn, msn=i),
                           smac=smac, dmac=dmac, sport=49400))
# PFC: classes 3 and 5 paused, then XON on 3; 802.3x pause.
for times in ({3: 0xffff, 5: 0x1000}, {3: 0x800, 5: 0x10}, {3: 0}, {0: 7, 7: 9}):
    frames.append(Ether(src=smac, dst="01:80:c2:00:00:01", type=0x8808) / Raw(pfc_body(times)))
frames.append(Ether(src=smac, dst="01:80:c2:00:00:01", type=0x8808) /
              Raw(bytes([0x00, 0x01, 0x01, 0x00]) + b"\x00" * 42))
# Not RoCE: UDP elsewhere, TCP, IPv6 UDP to another port.
frames.append(Ether(src=smac, dst=dmac) / IP(src=f"{src_net}.40", dst=dst_ip) / UDP(dport=4792) / Raw(b"x" * 30))
frames.append(Ether(src=smac, dst=dmac) / IP(src=f"{src_net}.40", dst=dst_ip) / TCP(dport=80))
rnd.shuffle(frames)

flows, pfc = flow_table(), pfc_table()
raw = [bytes(f) for f in frames]
for b in raw:
    p = Ether(b)
    if p.type == 0x8808 or (p.haslayer(Dot1Q) and p[Dot1Q].type == 0x8808):
        count_mac_control(pfc, bytes(p.payload))
        continue
    if not p.haslayer(BTH) or p[UDP].dport != 4791:
        continue
    count_roce(flows[(p[IP].src, p[IP].dst, p[BTH].dqpn)], len(b), p[IP].tos, p[BTH].opcode,
               p[AETH].syndrome if p.haslayer(AETH) else None)

write_tally(prefix, flows, pfc)
if iface is None:
    wrpcap(prefix + ".pcap", [Ether(b) for b in raw])
    print(f"built {len(raw)} frames in {prefix}.pcap")
else:
    sendp(raw, iface=iface)
    print(f"sent {len(raw)} frames on {iface}")
