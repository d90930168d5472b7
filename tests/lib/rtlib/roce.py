"""RoCEv2 and PFC frames built with scapy, and the tally of what frames add to
rocetop's counters, computed from the frames' own fields (never by rocetop).
scapy is imported only by the builders, so the tally helpers serve scripts
that read tshark's fields too."""
import logging
import struct
from collections import defaultdict

# rocetop's per-flow counter columns (flows.csv) and PFC columns (pfc.csv)
FLOW_COLS = "pkts,bytes,not_ect,ect0,ect1,ce,cnp,ack,nak,rnr_nak,nak_seq,nak_other".split(",")
PFC_COLS = ("frames", "xon", "quanta")
ECN_COL = ("not_ect", "ect1", "ect0", "ce")     # by the IP header's ECN bits
OP_CNP = 0x81
OP_ACKS = (0x11, 0x12)                          # Acknowledge, Atomic Acknowledge
PFC_DST = "01:80:c2:00:00:01"


def flow_table():
    """Per-flow counters, every column 0 until counted."""
    return defaultdict(lambda: {c: 0 for c in FLOW_COLS})


def pfc_table():
    return defaultdict(lambda: {c: 0 for c in PFC_COLS})


def count_roce(f, length, ecn, opcode, syndrome=None):
    """What one RoCEv2 packet adds to flow f: its frame, bytes, ECN codepoint,
    a CNP, and for an (Atomic) Acknowledge its AETH syndrome: ACK, RNR NAK,
    or NAK (a PSN sequence error or another), as bpf/count.h counts them."""
    f["pkts"] += 1
    f["bytes"] += length
    f[ECN_COL[ecn & 3]] += 1
    if opcode == OP_CNP:
        f["cnp"] += 1
    if opcode in OP_ACKS and syndrome is not None:
        t = (syndrome >> 5) & 3
        if t == 0:
            f["ack"] += 1
        elif t == 1:
            f["rnr_nak"] += 1
        elif t == 3:
            f["nak"] += 1
            f["nak_seq" if (syndrome & 0x1f) == 0 else "nak_other"] += 1


def count_pause(pfc, prio, quanta):
    """One pause (or XON, quanta 0) of priority prio ("all" for 802.3x)."""
    p = pfc[prio]
    p["frames"] += 1
    p["quanta"] += quanta
    p["xon"] += quanta == 0


def count_mac_control(pfc, body):
    """A MAC control frame's payload (after the EtherType): PFC adds a pause
    to each priority its class-enable vector names, 802.3x to "all"."""
    op = int.from_bytes(body[0:2], "big")
    if op == 0x0101:
        cev = body[3]
        for c in range(8):
            if cev & (1 << c):
                count_pause(pfc, str(c), int.from_bytes(body[4 + 2 * c:6 + 2 * c], "big"))
    elif op == 0x0001:
        count_pause(pfc, "all", int.from_bytes(body[2:4], "big"))


def write_tally(prefix, flows, pfc, keycols=("src", "dst", "dqpn")):
    """PREFIX.flows.csv (the key's columns, then FLOW_COLS) and
    PREFIX.pfc.csv (prio,frames,xon,quanta), rows in key order."""
    with open(prefix + ".flows.csv", "w") as o:
        o.write(",".join(keycols) + "," + ",".join(FLOW_COLS) + "\n")
        for k, f in sorted(flows.items()):
            o.write(",".join(str(x) for x in k) + "," + ",".join(str(f[c]) for c in FLOW_COLS) + "\n")
    with open(prefix + ".pfc.csv", "w") as o:
        o.write("prio," + ",".join(PFC_COLS) + "\n")
        for prio, f in sorted(pfc.items()):
            o.write(f"{prio}," + ",".join(str(f[c]) for c in PFC_COLS) + "\n")


# ---- builders with struct (no scapy: fast enough for captures of millions
# of frames, and for senders that must keep up) ----

def ip_csum(h):
    """The IPv4 header checksum of h (its own checksum field zero)."""
    s = sum(struct.unpack("!%dH" % (len(h) // 2), h))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def raw_roce(src, dst, tos, opcode, dqpn, psn, extra=b"", smac=b"\x02\0\0\0\0\x01",
             dmac=b"\x02\0\0\0\0\x02"):
    """A RoCEv2 frame's bytes: Ethernet, IPv4 (DF, TTL 64, its checksum),
    UDP from 49152 + the QP's low byte to 4791, a BTH (pkey 0xffff), extra
    (what follows the BTH), a zero ICRC (rocetop does not check it)."""
    bth = struct.pack("!BBHBBHBBH", opcode, 0, 0xffff, 0, dqpn >> 16, dqpn & 0xffff, 0, psn >> 16, psn & 0xffff)
    pay = bth + extra + b"\0\0\0\0"
    udp = struct.pack("!HHHH", 49152 + (dqpn & 0xff), 4791, 8 + len(pay), 0) + pay
    h = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                    bytes(map(int, src.split("."))), bytes(map(int, dst.split("."))))
    h = h[:10] + struct.pack("!H", ip_csum(h)) + h[12:]
    return dmac + smac + struct.pack("!H", 0x0800) + h + udp


# ---- builders (scapy) ----

def roce(src, dst, bth, tos=(26 << 2) | 2, smac=None, dmac=None, sport=49152, vlan=None, prio=3):
    """Ethernet (802.1Q-tagged with vlan), IPv4, UDP to 4791, then bth (a BTH
    and what follows it)."""
    from scapy.all import Ether, Dot1Q, IP, UDP
    l2 = Ether(**{k: v for k, v in (("src", smac), ("dst", dmac)) if v})
    if vlan is not None:
        l2 = l2 / Dot1Q(prio=prio, vlan=vlan)
    return l2 / IP(src=src, dst=dst, tos=tos) / UDP(sport=sport, dport=4791) / bth


def write_only(dqpn, psn, payload=64, ackreq=0):
    """An RDMA WRITE ONLY BTH and a payload of that many zero bytes."""
    from scapy.all import Raw
    from scapy.contrib.roce import BTH
    return BTH(opcode=0x0a, dqpn=dqpn, psn=psn, ackreq=ackreq) / Raw(bytes(payload))


def pfc_body(times):
    """An 802.1Qbb payload enabling every class given a time in times (a dict
    prio -> quanta), padded to the 60-byte minimum frame."""
    cev = 0
    t8 = [0] * 8
    for c, t in times.items():
        cev |= 1 << c
        t8[c] = t
    return struct.pack("!HH8H", 0x0101, cev, *t8) + bytes(26)


def pfc(times, smac=None):
    """A PFC frame pausing each priority of times (prio -> quanta; 0: XON)."""
    from scapy.all import Ether, Raw
    kw = {"src": smac} if smac else {}
    return Ether(dst=PFC_DST, type=0x8808, **kw) / Raw(pfc_body(times))


def pause(quanta, smac=None):
    """An 802.3x pause frame of quanta (0: XON), padded to the 60-byte minimum."""
    from scapy.all import Ether, Raw
    kw = {"src": smac} if smac else {}
    return Ether(dst=PFC_DST, type=0x8808, **kw) / Raw(struct.pack("!HH", 0x0001, quanta) + bytes(42))


def icrc_ok(frame):
    """Whether a RoCEv2 frame's ICRC is the one scapy computes from the
    frame's own fields (the masked pseudo-header CRC); None for a frame that
    is not RoCEv2 (UDP to 4791 with a BTH)."""
    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    from scapy.all import Ether, UDP, raw
    from scapy.contrib.roce import BTH
    pkt = Ether(frame)
    if BTH not in pkt or UDP not in pkt or pkt[UDP].dport != 4791:
        return None
    pkt[BTH].icrc = None
    return raw(pkt) == frame
