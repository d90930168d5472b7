#!/usr/bin/python3
"""Send sFlow datagrams as fast as possible for SECONDS to 127.0.0.1:PORT and
[::1]:PORT: valid ones (agent 192.0.2.1 over IPv4, agent 192.0.2.6 over IPv6,
one expanded flow sample of a RoCEv2 header each, built here field by field)
interleaved with junk (another sFlow version, not sFlow at all, cut short).
Prints what it sent: valid4 N, valid6 N, junk N.

usage: flood.py PORT SECONDS
"""
import socket
import struct
import sys
import time

port, secs = int(sys.argv[1]), float(sys.argv[2])


def roce_header():
    eth = bytes.fromhex("020000000002020000000001") + b"\x08\x00"
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 26 << 2 | 3, 20 + 8 + 12 + 4, 0, 0, 64, 17, 0,
                     socket.inet_aton("10.0.0.1"), socket.inet_aton("10.0.0.2"))
    udp = struct.pack("!HHHH", 49152, 4791, 8 + 12 + 4, 0)
    bth = bytes([0x0a, 0, 0xff, 0xff, 0, 0, 0x01, 0x23, 0, 0, 0, 7])
    return eth + ip + udp + bth + b"\0" * 4


def dgram(agent, seq):
    hdr = roce_header()
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
