#!/usr/bin/python3
"""Send sFlow datagrams as fast as possible for SECONDS to 127.0.0.1:PORT and
[::1]:PORT: valid ones (agent 192.0.2.1 over IPv4, agent 192.0.2.6 over IPv6,
one expanded flow sample of a RoCEv2 header each, built field by field with
struct: rtlib.roce.raw_roce)
interleaved with junk (another sFlow version, not sFlow at all, cut short).
Prints what it sent: valid4 N, valid6 N, junk N.

usage: flood.py PORT SECONDS
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.roce import raw_roce  # noqa: E402

port, secs = int(sys.argv[1]), float(sys.argv[2])
# An RDMA WRITE of QP 0x123, CE-marked, DSCP 26.
HDR = raw_roce("10.0.0.1", "10.0.0.2", 26 << 2 | 3, 0x0a, 0x123, 7)


def dgram(agent, seq):
    hdr = HDR
    rec = struct.pack("!IIII", 1, len(hdr) + 4, 4, len(hdr)) + hdr
    rec += b"\0" * (-len(rec) % 4)
    body = struct.pack("!IIIIIIIIIII", seq, 0, 5, 100, seq * 100, 0, 0, 3, 0, 5, 1)
    body += struct.pack("!II", 1, len(rec)) + rec
    sample = struct.pack("!II", 3, len(body)) + body
    return struct.pack("!II4sIIII", 5, 1, socket.inet_aton(agent), 0, seq, 1000, 1) + sample


s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
junk = [struct.pack("!I", 4) + b"\0" * 60, b"GET / HTTP/1.1\r\n\r\n", dgram("192.0.2.9", 1)[:40]]
n4 = n6 = nj = 0
end = time.monotonic() + secs
while time.monotonic() < end:
    for _ in range(50):
        try:
            s4.sendto(dgram("192.0.2.1", n4 + 1), ("127.0.0.1", port))
            n4 += 1
            s6.sendto(dgram("192.0.2.6", n6 + 1), ("::1", port))
            n6 += 1
            s4.sendto(junk[nj % 3], ("127.0.0.1", port))
            nj += 1
        except OSError:
            pass
print(f"valid4 {n4}\nvalid6 {n6}\njunk {nj}")
