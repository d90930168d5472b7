#!/usr/bin/env python3
"""Hostile input for rocetop probe's answerer (run in VM a by
tests/vm/probe-pair.sh): RoCEv2 UD SEND ONLY frames built with scapy (its BTH
computes the ICRC Soft-RoCE checks), sent raw to the answering QP on b:
  10 payloads shorter than a probe's header, 10 that are not rocetop's
  (another magic), 10 answers sent as requests, 10 whose size field is not
  the bytes sent, 10 well-formed probes under another Q_Key (the NIC drops
  them), then a flood of FLOOD well-formed probes (the same frame) as fast as
  a raw socket sends them.
Every frame comes from source QP 0x77 (no QP on a), so the answers are told
apart in the capture. Prints the tally as JSON: what was sent, by kind.
usage: probe_bad.py IFACE SRC DST DST_MAC QPN QKEY FLOOD"""
import json
import logging
import socket
import struct
import sys
import time

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import Ether, IP, UDP, Raw, raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

iface, src, dst, dmac, qpn, qkey, flood = sys.argv[1:8]
qpn, qkey, flood = int(qpn), int(qkey, 0), int(flood)
SRC_QP = 0x77
smac = open(f"/sys/class/net/{iface}/address").read().strip()


def probe(kind=1, size=64, said=None, magic=b"RTPB", seq=1):
    """rocetop's probe header (user/probe/probe_wire.c's layout), padded to size."""
    h = magic + bytes([1, kind]) + struct.pack("!HIB3xQQQQ", 0, size if said is None else said, 0, seq, 0, 0, 0)
    return h + bytes(size - len(h))


def frame(payload, key=qkey):
    deth = struct.pack("!II", key, SRC_QP & 0xffffff)
    pkt = (Ether(src=smac, dst=dmac) / IP(src=src, dst=dst, tos=106, flags="DF") / UDP(sport=0xc077, dport=4791)
           / BTH(opcode=0x64, dqpn=qpn, psn=0) / Raw(deth + payload))
    return raw(pkt)


kinds = {
    "short": frame(b"RTPB\x01\x01" + bytes(14)),
    "not_ours": frame(probe(magic=b"XXXX")),
    "wrong_type": frame(probe(kind=2)),
    "bad_size": frame(probe(size=100, said=64)),
    "other_qkey": frame(probe(seq=0xdead), key=qkey ^ 0x1000),
}
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
sent = {}
for name, f in kinds.items():
    for _ in range(10):
        s.send(f)
        time.sleep(0.01)
    sent[name] = 10
time.sleep(1)
good = frame(probe(seq=0xf100d))
t0 = time.time()
for _ in range(flood):
    s.send(good)
sent["flood"] = flood
sent["flood_secs"] = round(time.time() - t0, 3)
sent["flood_len"] = len(good)
print(json.dumps(sent))
