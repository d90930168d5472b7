#!/usr/bin/python3
"""Hostile and unlucky inputs for tests/robust, built with scapy and
struct from the file formats' specifications, never with rocetop:

  pcap-times FILE SEC...      classic pcap, one RoCE frame per u32 ts_sec given
  pcapng-times FILE TS...     pcapng (usec resolution), one RoCE frame per u64 timestamp
  pcapng-offset FILE OFF N    pcapng whose interface has if_tsoffset OFF (signed), N frames
  origlen FILE                2 frames with honest lengths, 3 claiming 4 GiB
  twoflows FILE               qp 0x21: 10 frames ECT(0); qp 0x22: 3 frames CE
  empty FILE                  a pcap header and no packet
  badfirst FILE               a pcap whose first record claims 1 MB and ends
  many FILE N [SECS]          N RoCE frames of N distinct flows over SECS seconds (default 1)

Every frame is RoCEv2 RDMA WRITE 10.0.0.1 -> 10.0.0.2, its length printed on
stdout by 'framelen'.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.pcap import header as pcap_hdr, ng_epb, ng_idb, ng_shb, record as pcap_rec  # noqa: E402
from rtlib.roce import roce  # noqa: E402


def frame(qp=0x11, src="10.0.0.1", ecn=2):
    from scapy.all import Raw
    from scapy.contrib.roce import BTH
    return bytes(roce(src, "10.0.0.2", BTH(opcode=0x0a, dqpn=qp, psn=1) / Raw(b"\xab" * 64),
                      tos=(26 << 2) | ecn, smac="02:00:00:00:00:01", dmac="02:00:00:00:00:02"))


def main():
    cmd, path = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None
    args = sys.argv[3:]
    if cmd == "framelen":
        print(len(frame()))
        return
    out = bytearray()
    if cmd == "pcap-times":
        out += pcap_hdr()
        for s in args:
            out += pcap_rec(int(s, 0), 0, frame())
    elif cmd == "pcapng-times":
        out += ng_shb() + ng_idb()
        for t in args:
            out += ng_epb(int(t, 0), frame())
    elif cmd == "pcapng-offset":
        off, n = int(args[0], 0), int(args[1])
        opt = struct.pack("<HHq", 14, 8, off) + struct.pack("<HH", 0, 0)
        out += ng_shb() + ng_idb(opt)
        for i in range(n):
            out += ng_epb((1700000000 + i) * 1000000, frame())
    elif cmd == "origlen":
        out += pcap_hdr()
        out += pcap_rec(1700000000, 0, frame())
        for i in range(3):
            out += pcap_rec(1700000000, 1000 * (i + 1), frame(), origlen=0xfffffff0)
        out += pcap_rec(1700000000, 5000, frame())
    elif cmd == "twoflows":
        out += pcap_hdr()
        for i in range(10):
            out += pcap_rec(1700000000, i, frame(qp=0x21, src="10.0.0.5"))
        for i in range(3):
            out += pcap_rec(1700000000, 100 + i, frame(qp=0x22, src="10.0.0.6", ecn=3))
    elif cmd == "empty":
        out += pcap_hdr()
    elif cmd == "badfirst":
        out += pcap_hdr() + struct.pack("<IIII", 1700000000, 0, 1000000, 1000000) + b"\0" * 10
    elif cmd == "many":
        out += pcap_hdr()
        base = frame()
        n, secs = int(args[0]), int(args[1]) if len(args) > 1 else 1
        for i in range(n):
            f = bytearray(base)
            # BTH dest QP (bytes 5-7 of the BTH at 14 + 20 + 8): a distinct flow each
            struct.pack_into(">I", f, 42 + 4, i + 1)
            f[42 + 4] = 0
            out += pcap_rec(1700000000 + i * secs // n, i % 1000000, bytes(f))
    else:
        sys.exit("unknown command " + cmd)
    open(path, "wb").write(out)


if __name__ == "__main__":
    main()
