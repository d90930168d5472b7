#!/usr/bin/python3
"""The parser's test corpus, built with scapy.

Writes one line per frame to stdout (or to the file given as argument):

    name=NAME kind=KIND hex=BYTES snap=N minlen=N [field=value ...]

kind is what rt_parse() must return (roce, other, pfc, pause, trunc, malformed).
The other fields are taken from scapy's own dissection of the bytes
(Ether(wire)), never from rocetop's parser:

  nvlan pcp                  802.1Q/802.1ad tags and the outer tag's PCP
  family tos src dst         IP version, TOS/traffic class, addresses (32 hex digits)
  sport opcode dqpn psn fecn becn ackreq has_aeth syndrome   UDP and BTH/AETH (RoCE)
  v6u                        1: IPv6 with an extension header the parser does not walk
  cev pause                  PFC enable vector, the eight pause times (802.3x: pause[0])
  ifout                      the rt_if_val outcome: roce not_roce truncated malformed mac_ctrl
  flowctr                    the flow counter the frame adds to: none cnp ack nak_seq
                             nak_other rnr_nak (plus ecn[tos & 3] and pkts/bytes)
  mirror ioff ilen           a mirror copy: TYPE:SESSION:DIR (TYPE 1 ERSPAN II,
                             2 ERSPAN III, 3 GRE TEB, 4 VXLAN, 5 ERSPAN I; SESSION the ERSPAN
                             session ID or VNI; DIR 0 ingress, 1 egress), where
                             the inner frame starts and its length; the fields
                             above are then the inner frame's (scapy's dissection
                             of the inner bytes), ifout counts mirrored too

Mirror copies wrap every well-formed frame of the direct corpus in each kind of
mirror (GRE + ERSPAN II, GRE + ERSPAN III with and without the platform
sub-header, GRE TEB with each GRE option, VXLAN, GRE 0x88BE without the sequence
number = ERSPAN type I, no ERSPAN header; in both ERSPAN I and II the inner
destination MAC's first nibble is 1, as an ERSPAN II version; outer IPv4 and
IPv6), plus inner
frames cut at every byte of their headers and encapsulations the parser must
refuse (nested, unknown ERSPAN version, GRE routing, VXLAN without the I flag).

snap is the number of bytes that must be readable for the full classification
when frame_len is the whole frame (a capture cut at a snap length); with fewer,
the parser must say trunc. minlen is the smallest frame length (everything
readable) that is classified like the whole frame; shorter frames are trunc.
Both follow from the header lengths the protocols announce.

Usage: packets.py [OUT]
"""
import logging
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.roce import PFC_DST, count_roce, flow_table  # noqa: E402

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import (Ether, Dot1Q, Dot1AD, IP, IPv6, UDP, TCP, ARP, Raw,  # noqa: E402
                       IPOption_RR, IPv6ExtHdrHopByHop, IPv6ExtHdrDestOpt,
                       IPv6ExtHdrFragment, PadN, raw)
from scapy.layers.ipsec import AH, ESP  # noqa: E402
from scapy.layers.l2 import GRE  # noqa: E402
from scapy.layers.vxlan import VXLAN  # noqa: E402
from scapy.contrib.erspan import (ERSPAN_II, ERSPAN_III,  # noqa: E402
                                  ERSPAN_PlatformSpecific)
from scapy.contrib.roce import BTH, AETH, cnp  # noqa: E402
from scapy.contrib.mac_control import (MACControlPause,  # noqa: E402
                                       MACControlClassBasedFlowControl)

MAC_A = "02:00:00:00:00:01"
MAC_B = "02:00:00:00:00:02"
V4_A, V4_B, V4_C = "10.0.0.1", "10.0.0.2", "192.168.7.9"
V6_A, V6_B = "fd00::1", "fd00:0:0:1::2"

# RC opcodes (IBTA vol. 1, 9.2)
SEND_ONLY, WRITE_ONLY, READ_RESP_FIRST, ACK, ATOMIC_ACK = 0x04, 0x0A, 0x0D, 0x11, 0x12
AETH_OPCODES = (0x0D, 0x0F, 0x10, 0x11, 0x12)
DSCP_DATA, DSCP_CNP = 26, 48
ECN = {"notect": 0, "ect1": 1, "ect0": 2, "ce": 3}

out_lines = []
direct = []          # (name, wire, kind) of the well-formed direct frames, to wrap


def addr_hex(fam, a):
    b = socket.inet_pton(socket.AF_INET if fam == 4 else socket.AF_INET6, a)
    return (b + bytes(16 - len(b))).hex()


def eth(vlans=(), dst=MAC_B, src=MAC_A):
    """Ethernet with tags: vlans is a list of (tpid, pcp, vid), outer first."""
    if not vlans:
        return Ether(dst=dst, src=src)
    p = Ether(dst=dst, src=src, type=vlans[0][0])
    for i, (_tpid, pcp, vid) in enumerate(vlans):
        nxt = vlans[i + 1][0] if i + 1 < len(vlans) else None
        tag = (Dot1AD if _tpid == 0x88A8 else Dot1Q)(prio=pcp, vlan=vid)
        if nxt is not None:
            tag.type = nxt
        p = p / tag
    return p


def flow_counter(opcode, syndrome):
    """The flow counter a frame adds to beside pkts, bytes and its ECN
    codepoint, by rtlib's tally (rtlib.roce.count_roce): none or one of cnp,
    ack, rnr_nak, nak_seq, nak_other."""
    f = flow_table()[None]
    count_roce(f, 0, 0, opcode, syndrome)
    return next((c for c in ("cnp", "ack", "rnr_nak", "nak_seq", "nak_other") if f[c]), "none")


def l2_info(d):
    tags = []
    layer = d.payload
    while isinstance(layer, (Dot1Q, Dot1AD)):
        tags.append(layer)
        layer = layer.payload
    return tags, 14 + 4 * len(tags), layer


def emit(name, pkt, kind, **over):
    """Dissect the bytes with scapy and write the expected fields."""
    wire = raw(pkt)
    if kind == "trunc":                  # only the outcome is defined
        f = {"name": name, "kind": kind, "hex": wire.hex(), "ifout": "truncated",
             "flowctr": "none", "snap": len(wire) + 1, "minlen": len(wire) + 1}
        f.update(over)
        out_lines.append(" ".join("%s=%s" % kv for kv in f.items()))
        return wire
    if "mirror" not in over and "snap" not in over:
        direct.append((name, wire, kind))
    f = dissect(wire, kind)
    f = dict([("name", name), ("kind", kind), ("hex", wire.hex())] + list(f.items()))
    f.update(over)
    out_lines.append(" ".join("%s=%s" % (k, ",".join(map(str, v)) if isinstance(v, list) else v)
                              for k, v in f.items()))
    return wire


def dissect(wire, kind):
    """The expected fields of a frame, from scapy's dissection of its bytes."""
    d = Ether(wire)
    l4 = None
    room = 0
    tags, l2, l3 = l2_info(d)
    f = {}
    f["nvlan"] = len(tags)
    f["pcp"] = tags[0].prio if tags else 0xFF
    snap = minlen = l2
    if isinstance(l3, IP):
        ihl = l3.ihl
        snap = minlen = l2 + 20
        if ihl >= 5 and l3.len >= ihl * 4:      # else no field of it is worth reading
            f["family"], f["tos"] = 4, l3.tos
            f["src"], f["dst"] = addr_hex(4, l3.src), addr_hex(4, l3.dst)
            minlen = l2 + l3.len
            if l3.proto == 17 and l3.frag == 0 and not (l3.flags & 1):
                snap = l2 + ihl * 4 + 8
                l4, room = l3.payload, l3.len - ihl * 4
    elif isinstance(l3, IPv6):
        f["family"], f["tos"] = 6, l3.tc
        f["src"], f["dst"] = addr_hex(6, l3.src), addr_hex(6, l3.dst)
        minlen = l2 + 40 + l3.plen
        off = l2 + 40
        snap = off
        h = l3.payload
        walked = (IPv6ExtHdrHopByHop, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment)
        while isinstance(h, walked):
            snap = off + 8
            if isinstance(h, IPv6ExtHdrFragment) and (h.offset or h.m):
                h = None                        # a real fragment: no UDP header to trust
                break
            off += 8 if isinstance(h, IPv6ExtHdrFragment) else (h.len + 1) * 8
            h = h.payload
        if isinstance(h, UDP):
            snap = off + 8
            l4, room = h, minlen - off
        if isinstance(h, (AH, ESP)):
            f["v6u"] = 1
    elif d.type == 0x8808 or (tags and tags[-1].type == 0x8808):
        if MACControlClassBasedFlowControl in d:
            l3 = d[MACControlClassBasedFlowControl]
            snap = minlen = l2 + 20
            f["cev"] = sum(getattr(l3, "c%d_enabled" % i) << i for i in range(8))
            f["pause"] = [getattr(l3, "c%d_pause_time" % i) for i in range(8)]
        elif MACControlPause in d:
            snap = minlen = l2 + 4
            f["pause"] = [d[MACControlPause].pause_time] + [0] * 7
        else:
            snap = minlen = l2 + 2
    if l4 is not None and l4.dport == 4791 and 8 + 12 + 4 <= l4.len <= room:
        snap += 12                       # the BTH
        bth = l4[BTH]
        if kind == "roce" and bth.opcode in AETH_OPCODES:
            snap += 4                    # the AETH
    if kind == "roce":
        bth = d[BTH]
        f["sport"] = d[UDP].sport
        f["opcode"], f["dqpn"], f["psn"] = bth.opcode, bth.dqpn, bth.psn
        f["fecn"], f["becn"], f["ackreq"] = bth.fecn, bth.becn, bth.ackreq
        f["has_aeth"], f["syndrome"] = 0, 0
        if bth.opcode in AETH_OPCODES:
            aeth = d[AETH] if AETH in d else AETH(raw(bth.payload))
            f["has_aeth"], f["syndrome"] = 1, aeth.syndrome
        f["flowctr"] = flow_counter(bth.opcode, f["syndrome"])
    else:
        f["flowctr"] = "none"
    f["ifout"] = {"roce": "roce", "other": "not_roce", "pfc": "mac_ctrl",
                  "pause": "mac_ctrl", "trunc": "truncated",
                  "malformed": "malformed"}[kind]
    f["snap"], f["minlen"] = snap, max(snap, minlen)
    assert minlen <= len(wire) and snap <= len(wire)
    return f


def roce_v4(op, ecn="ect0", dqpn=0x000123, psn=0x0A0B0C, payload=b"", vlans=(),
            src=V4_A, dst=V4_B, dscp=DSCP_DATA, sport=49152, options=None, **bth):
    ip = IP(src=src, dst=dst, tos=(dscp << 2) | ECN[ecn], id=7, flags="DF")
    if options:
        ip.options = options
    return eth(vlans) / ip / UDP(sport=sport, dport=4791, chksum=0) / \
        BTH(opcode=op, dqpn=dqpn, psn=psn, **bth) / Raw(payload)


def roce_v6(op, ecn="ect0", dqpn=0x000456, psn=0x00FFFF, payload=b"", ext=None,
            dscp=DSCP_DATA, sport=50000, **bth):
    ip = IPv6(src=V6_A, dst=V6_B, tc=(dscp << 2) | ECN[ecn], fl=0x12345, hlim=64)
    if ext is not None:
        ip = ip / ext
    # scapy computes no ICRC over IPv6: fix it to a value, the parser ignores it.
    return eth() / ip / UDP(sport=sport, dport=4791) / \
        BTH(opcode=op, dqpn=dqpn, psn=psn, icrc=0x11223344, **bth) / Raw(payload)


def aeth_pkt(op, syndrome, msn=5, dqpn=0x000777, psn=0x000100, extra=b""):
    return eth(dst=MAC_A, src=MAC_B) / IP(src=V4_B, dst=V4_A, tos=(DSCP_DATA << 2) | 2) / \
        UDP(sport=61000, dport=4791, chksum=0) / BTH(opcode=op, dqpn=dqpn, psn=psn) / \
        AETH(syndrome=syndrome, msn=msn) / Raw(extra)


def pfc(cev, times, vlans=()):
    kw = {"c%d_enabled" % i: (cev >> i) & 1 for i in range(8)}
    kw.update({"c%d_pause_time" % i: t for i, t in enumerate(times)})
    return eth(vlans, dst=PFC_DST) / MACControlClassBasedFlowControl(**kw)


def build():
    reth = bytes.fromhex("00000000deadbe00") + bytes.fromhex("0000abcd") + bytes.fromhex("00000040")
    data = bytes(range(64))
    # RoCE data with each ECN codepoint: WRITE on one flow, SEND on another
    for e in ("notect", "ect0", "ect1", "ce"):
        emit("write_v4_" + e, roce_v4(WRITE_ONLY, ecn=e, payload=reth + data, ackreq=1), "roce")
        emit("send_v4_" + e, roce_v4(SEND_ONLY, ecn=e, dqpn=0xABCDEF, psn=0xFFFFFF,
                                     payload=data[:32], sport=1234), "roce")
    emit("write_v4_fecn", roce_v4(WRITE_ONLY, ecn="ce", payload=reth, fecn=1, becn=1), "roce")
    emit("send_v4_vlan", roce_v4(SEND_ONLY, vlans=[(0x8100, 3, 100)], dqpn=0x12, payload=data),
         "roce")
    emit("send_v4_qinq", roce_v4(SEND_ONLY, vlans=[(0x88A8, 5, 10), (0x8100, 1, 200)],
                                 dqpn=0x13, ecn="ce", payload=data), "roce")
    emit("send_v4_dot1q_dot1q", roce_v4(SEND_ONLY, vlans=[(0x8100, 6, 10), (0x8100, 2, 20)],
                                        dqpn=0x14, payload=data), "roce")
    emit("send_v4_options", roce_v4(SEND_ONLY, dqpn=0x15, ecn="ect1", payload=data,
                                    options=[IPOption_RR(routers=["1.2.3.4", "5.6.7.8"])]),
         "roce")
    emit("send_v4_min", roce_v4(SEND_ONLY, dqpn=0x16), "roce")     # no payload at all
    # a short RoCE frame with Ethernet padding after the ICRC
    emit("send_v4_padded", roce_v4(SEND_ONLY, dqpn=0x16) / Raw(b"\0\0"), "roce")
    # a jumbo frame: with XDP it spans several buffers (frags)
    emit("write_v4_jumbo", roce_v4(WRITE_ONLY, ecn="ce", dqpn=0x99, psn=1,
                                   payload=reth + bytes(range(256)) * 16), "roce")
    for e in ("notect", "ect0", "ect1", "ce"):
        emit("write_v6_" + e, roce_v6(WRITE_ONLY, ecn=e, payload=reth + data), "roce")
    emit("send_v6_hbh_dst", roce_v6(SEND_ONLY, ecn="ce", dqpn=0x457, payload=data,
                                    ext=IPv6ExtHdrHopByHop() /
                                    IPv6ExtHdrDestOpt(options=[PadN(optdata=b"\0" * 10)])),
         "roce")
    emit("send_v6_atomic_frag", roce_v6(SEND_ONLY, dqpn=0x458, payload=data,
                                        ext=IPv6ExtHdrFragment(offset=0, m=0, id=9)), "roce")
    # IPv6 with extension headers the parser does not walk
    emit("v6_ah", eth() / IPv6(src=V6_A, dst=V6_B) / AH(spi=1, seq=1, icv=b"\0" * 12) /
         UDP(sport=1, dport=4791) / BTH(opcode=SEND_ONLY, icrc=0) / Raw(data), "other")
    emit("v6_hbh_esp", eth() / IPv6(src=V6_A, dst=V6_B) / IPv6ExtHdrHopByHop() /
         ESP(spi=2, seq=3, data=data), "other")
    emit("v6_frag_more", eth() / IPv6(src=V6_A, dst=V6_B) /
         IPv6ExtHdrFragment(offset=0, m=1, id=10) / UDP(sport=5, dport=4791) / Raw(data),
         "other")
    # congestion notification and acknowledgements
    emit("cnp_v4", eth(dst=MAC_A, src=MAC_B) /
         IP(src=V4_B, dst=V4_A, tos=DSCP_CNP << 2) / UDP(sport=55555, dport=4791, chksum=0) /
         cnp(0x000123), "roce")
    emit("cnp_v4_2", eth(dst=MAC_A, src=MAC_B) /
         IP(src=V4_B, dst=V4_A, tos=(DSCP_CNP << 2) | 1) / UDP(sport=55556, dport=4791, chksum=0) /
         cnp(0x000123), "roce")
    emit("cnp_v6", eth() / IPv6(src=V6_B, dst=V6_A, tc=DSCP_CNP << 2) /
         UDP(sport=4000, dport=4791) / BTH(opcode=0x81, becn=1, dqpn=0x456, icrc=0) /
         Raw(bytes(16)), "roce")
    emit("ack", aeth_pkt(ACK, 0x1F), "roce")
    emit("ack_credit0", aeth_pkt(ACK, 0x00, psn=0x101), "roce")
    emit("nak_psn_seq", aeth_pkt(ACK, 0x60, psn=0x102), "roce")
    emit("nak_inv_req", aeth_pkt(ACK, 0x61, psn=0x103), "roce")
    emit("nak_remote_op", aeth_pkt(ACK, 0x63, psn=0x104), "roce")
    emit("rnr_nak", aeth_pkt(ACK, 0x2E, psn=0x105), "roce")
    emit("ack_reserved_type", aeth_pkt(ACK, 0x40, psn=0x106), "roce")
    emit("atomic_ack", aeth_pkt(ATOMIC_ACK, 0x00, psn=0x107, extra=bytes(8)), "roce")
    emit("read_resp_first", aeth_pkt(READ_RESP_FIRST, 0x60, psn=0x108, extra=data), "roce")
    # PFC and pause
    emit("pfc_3_5_0", pfc(0b00101001, [100, 0, 0, 0xFFFF, 0, 0, 7, 0]), "pfc")
    emit("pfc_all", pfc(0xFF, [0, 1, 2, 3, 0xFFFF, 0, 0x8000, 9]), "pfc")
    emit("pfc_xon_3", pfc(0b00001000, [0] * 8), "pfc")
    emit("pfc_vlan", pfc(0b10000000, [0, 0, 0, 0, 0, 0, 0, 500], vlans=[(0x8100, 7, 0)]), "pfc")
    emit("pause", eth(dst=PFC_DST) / MACControlPause(pause_time=0x1234), "pause")
    emit("pause_xon", eth(dst=PFC_DST) / MACControlPause(pause_time=0), "pause")
    emit("macctrl_other", Ether(dst=PFC_DST, src=MAC_A, type=0x8808) / Raw(bytes.fromhex("0002") + bytes(44)),
         "other")
    # not RoCE
    emit("udp_53", eth() / IP(src=V4_A, dst=V4_C) / UDP(sport=4791, dport=53) / Raw(data),
         "other")
    emit("tcp", eth() / IP(src=V4_A, dst=V4_C, tos=3) / TCP(sport=4791, dport=4791) / Raw(data),
         "other")
    emit("tcp_v6", eth() / IPv6(src=V6_A, dst=V6_B) / TCP(dport=22), "other")
    emit("arp", Ether(src=MAC_A, dst="ff:ff:ff:ff:ff:ff") / ARP(psrc=V4_A, pdst=V4_B), "other")
    emit("v4_frag_first", eth() / IP(src=V4_A, dst=V4_B, flags="MF", id=33) /
         UDP(sport=1, dport=4791, len=200) / BTH(opcode=SEND_ONLY) / Raw(data), "other")
    emit("v4_frag_later", eth() / IP(src=V4_A, dst=V4_B, frag=10, proto=17, id=33) / Raw(data),
         "other")
    # malformed
    emit("v4_ihl4", eth() / IP(src=V4_A, dst=V4_B, ihl=4) / UDP(dport=4791) /
         BTH(opcode=SEND_ONLY) / Raw(data), "malformed")
    emit("v4_totlen_lt_ihl", eth() / IP(src=V4_A, dst=V4_B, len=16) / UDP(dport=4791) /
         BTH(opcode=SEND_ONLY) / Raw(data), "malformed")
    emit("udp_len_short", eth() / IP(src=V4_A, dst=V4_B) / UDP(dport=4791, len=8 + 12) /
         BTH(opcode=SEND_ONLY) / Raw(data), "malformed")
    emit("udp_len_gt_ip", eth() / IP(src=V4_A, dst=V4_B) / UDP(dport=4791, len=1000) /
         BTH(opcode=SEND_ONLY) / Raw(data), "malformed")
    emit("bth_tver1", roce_v4(SEND_ONLY, payload=data, version=1), "malformed")
    emit("ack_no_room_for_aeth", eth() / IP(src=V4_B, dst=V4_A) /
         UDP(sport=2, dport=4791, len=8 + 12 + 4) / BTH(opcode=ACK), "malformed")
    # truncated: an ACK and a PFC frame cut at every byte of their headers
    ack = raw(aeth_pkt(ACK, 0x60, psn=0x200))
    for n in range(len(ack)):
        emit("ack_cut_%d" % n, Raw(ack[:n]), "trunc")
    p = raw(pfc(0b00000110, [0, 0xFFFF, 0, 0, 0, 0, 0, 0]))
    for n in range(14 + 20):
        emit("pfc_cut_%d" % n, Raw(p[:n]), "trunc")


# ---- mirror copies ----

MAC_C, MAC_D = "02:00:00:00:00:0c", "02:00:00:00:00:0d"
OUT4_A, OUT4_B = "172.16.0.1", "172.16.0.9"
OUT6_A, OUT6_B = "fd10::1", "fd10::9"
M_ERSPAN2, M_ERSPAN3, M_GRE, M_VXLAN, M_ERSPAN1 = 1, 2, 3, 4, 5


def outer_ip(v6, proto):
    if v6:
        return Ether(dst=MAC_D, src=MAC_C) / IPv6(src=OUT6_A, dst=OUT6_B, nh=proto, tc=0)
    return Ether(dst=MAC_D, src=MAC_C) / IP(src=OUT4_A, dst=OUT4_B, proto=proto, id=1, flags="DF")


def gre(proto, opts=(), seq=1):
    kw = {}
    if "c" in opts:
        kw["chksum_present"] = 1
    if "k" in opts:
        kw.update(key_present=1, key=0xA1B2C3D4)
    if "s" in opts:
        kw.update(seqnum_present=1, seqence_number=seq)
    return GRE(proto=proto, **kw)


def w_erspan2(inner, session=7, v6=False, opts="s", ver=1):
    return outer_ip(v6, 47) / gre(0x88BE, opts) / \
        ERSPAN_II(ver=ver, vlan=100, cos=3, session_id=session, index=42) / Raw(inner)


def w_erspan1(inner, v6=False, opts=""):
    """ERSPAN type I: GRE 0x88BE without the S bit, the frame right after GRE."""
    assert "s" not in opts
    return outer_ip(v6, 47) / gre(0x88BE, opts) / Raw(inner)


def nibble1(wire):
    """The frame with its destination MAC's first nibble 1, the top nibble an
    ERSPAN II header's version 1 has."""
    return bytes([0x10 | (wire[0] & 0x0F)]) + wire[1:]


def w_erspan3(inner, session=300, egress=0, plat=False, v6=False, opts="s", ver=2, ft=0):
    h = outer_ip(v6, 47) / gre(0x22EB, opts) / \
        ERSPAN_III(ver=ver, vlan=100, cos=5, session_id=session, timestamp=0x01020304,
                   sgt_other=0xBEEF, ft=ft, hw=0x2A, d=egress, gra=3, o=1 if plat else 0)
    if plat:
        h = h / ERSPAN_PlatformSpecific(platf_id=3, info1=0x12345, info2=0x6789ABCD)
    return h / Raw(inner)


def w_teb(inner, v6=False, opts=""):
    return outer_ip(v6, 47) / gre(0x6558, opts) / Raw(inner)


def w_vxlan(inner, vni=0x123456, v6=False, flags=0x08):
    return outer_ip(v6, 17) / UDP(sport=40000, dport=4789) / \
        VXLAN(flags=flags, vni=vni) / Raw(inner)


def emit_mirror(name, outer, inner, kind, mtype, session, mdir):
    """A mirror copy of the frame inner: its fields are the inner frame's."""
    wire = raw(outer)
    h = len(wire) - len(inner)
    assert wire[h:] == inner, name
    m = {"mirror": "%d:%d:%d" % (mtype, session, mdir), "ioff": h, "ilen": len(inner)}
    if kind == "trunc":
        emit(name, Raw(wire), kind, **m)
        return
    f = dissect(inner, kind)
    m["snap"] = h + f["snap"]
    m["minlen"] = max(h + f["minlen"], len(wire))   # the outer IP packet ends the frame
    f.update(m)
    f = dict([("name", name), ("kind", kind), ("hex", wire.hex())] + list(f.items()))
    out_lines.append(" ".join("%s=%s" % (k, ",".join(map(str, v)) if isinstance(v, list) else v)
                              for k, v in f.items()))


def build_mirror():
    gre_opts = ("", "c", "k", "s", "ck", "cks")
    for i, (name, wire, kind) in enumerate(list(direct)):
        v6 = bool(i & 1)
        n1 = nibble1(wire)
        emit_mirror("erspan2_" + name, w_erspan2(n1, v6=v6), n1, kind, M_ERSPAN2, 7, 0)
        emit_mirror("erspan3_" + name, w_erspan3(wire, v6=v6), wire, kind, M_ERSPAN3, 300, 0)
        emit_mirror("erspan3p_" + name, w_erspan3(wire, session=1023, egress=1, plat=True,
                                                   v6=not v6), wire, kind, M_ERSPAN3, 1023, 1)
        emit_mirror("teb_" + name, w_teb(wire, v6=v6, opts=gre_opts[i % len(gre_opts)]), wire,
                    kind, M_GRE, 0, 0)
        emit_mirror("vxlan_" + name, w_vxlan(wire, v6=not v6), wire, kind, M_VXLAN, 0x123456, 0)
        emit_mirror("erspan1_" + name, w_erspan1(n1, v6=not v6, opts=("", "c", "k", "ck")[i % 4]),
                    n1, kind, M_ERSPAN1, 0, 0)
    # inner frames cut at every byte of their headers: truncated, still mirrored
    ack = raw(aeth_pkt(ACK, 0x60, psn=0x200))
    for n in range(len(ack)):
        emit_mirror("erspan3_ack_cut_%d" % n, w_erspan3(ack[:n], plat=True), ack[:n], "trunc",
                    M_ERSPAN3, 300, 0)
        emit_mirror("vxlan_ack_cut_%d" % n, w_vxlan(ack[:n], v6=True), ack[:n], "trunc",
                    M_VXLAN, 0x123456, 0)
    p = raw(pfc(0b00000110, [0, 0xFFFF, 0, 0, 0, 0, 0, 0]))
    for n in range(14 + 20):
        emit_mirror("erspan2_pfc_cut_%d" % n, w_erspan2(p[:n]), p[:n], "trunc", M_ERSPAN2, 7, 0)
    # bad input: never parsed further, never RoCE. snap: the bytes read before
    # the parser gives up (outer Ethernet 14, IPv4 20 / IPv6 40, GRE 4 + 4 per
    # option, ERSPAN II 8 / III 12, UDP 8, VXLAN 8)
    data = raw(roce_v4(SEND_ONLY, ecn="ce", dqpn=0x31, payload=bytes(32)))
    vx = raw(w_vxlan(data))
    teb = raw(w_teb(data))
    # nested: the inner frame is itself a mirror copy -> other, outer one counted
    emit_mirror("nested_erspan2_vxlan", w_erspan2(vx), vx, "other", M_ERSPAN2, 7, 0)
    emit_mirror("nested_vxlan_teb", w_vxlan(teb), teb, "other", M_VXLAN, 0x123456, 0)
    emit_mirror("nested_teb_erspan3", w_teb(raw(w_erspan3(data)), v6=True), raw(w_erspan3(data)),
                "other", M_GRE, 0, 0)
    def bad(name, pkt, snap):
        wire = raw(pkt)
        emit(name, Raw(wire), "other", snap=snap, minlen=len(wire))
    bad("erspan2_ver2", w_erspan2(data, ver=2), 14 + 20 + 8 + 8)
    # (scapy sets GRE's S bit under ERSPAN even when not asked: 8 bytes of GRE)
    bad("erspan2_ver0", w_erspan2(data, ver=0, opts=""), 14 + 20 + 8 + 8)
    bad("erspan3_ver1", w_erspan3(data, ver=1, v6=True), 14 + 40 + 8 + 12)
    bad("erspan3_ft_ip", w_erspan3(data, ft=2), 14 + 20 + 8 + 12)
    routed = outer_ip(False, 47) / GRE(routing_present=1, proto=0x6558) / Raw(bytes(4) + data)
    bad("gre_routing", routed, 14 + 20 + 4)
    bad("gre_version1", outer_ip(False, 47) / GRE(version=1, proto=0x880B) / Raw(data),
        14 + 20 + 4)
    bad("gre_other_proto", outer_ip(True, 47) / GRE(proto=0x0800) / Raw(data[14:]), 14 + 40 + 4)
    bad("vxlan_no_i_flag", w_vxlan(data, flags=0x00), 14 + 20 + 8 + 8)
    # the outer packet ends inside the GRE header or the ERSPAN header
    emit("gre_cut_by_ip", outer_ip(False, 47) / Raw(b"\x10\x00\x88"), "trunc")
    emit("erspan3_cut_by_ip", outer_ip(True, 47) / gre(0x22EB, "s") / Raw(bytes(11)), "trunc")
    emit("vxlan_cut_by_udp", outer_ip(False, 17) / UDP(sport=1, dport=4789) / Raw(bytes(7)),
         "trunc")


def main():
    build()
    build_mirror()
    text = "\n".join(out_lines) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
