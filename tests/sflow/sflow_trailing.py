#!/usr/bin/python3
"""A capture of sFlow datagrams with bytes after their announced samples, and
damaged ones, each from an agent not seen before (built byte by byte with
tests/lib/rtlib/sflow.py, one datagram a second, UDP to port 6343).

usage: sflow_trailing.py PCAP

- 192.0.2.70: a flow sample (rate 100, QP 0x123) and 7 bytes of junk after
  it; then a flow sample (rate 200, QP 0x123), a counter sample and 4 zero
  bytes. Its samples count, and both datagrams count as with errors.
- 192.0.2.71: announces 1 sample and carries 2 (rate 50, QP 0x456, then a whole
  flow sample of rate 1000): the second is bytes after the announced samples.
- 192.0.2.72: announces 2 samples and carries 1: refused.
- 192.0.2.73: its one sample's length runs past the datagram's end: refused.
- 192.0.2.74: a clean datagram (rate 10, QP 0x789).
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import sflow as S  # noqa: E402

T0 = 1_790_000_000.25


def fs(seq, rate, qp, pool):
    frame = S.roce_frame("10.9.0.1", "10.9.0.2", qp, ecn=3)
    return S.flow_sample(seq, 7, rate, pool, [S.raw_header(frame)], input_if=1, output_if=7)


def announce(dgram, n):
    """The datagram with its sample count (the IPv4 header's last word) set to n."""
    return dgram[:24] + struct.pack("!I", n) + dgram[28:]


d = [
    ("192.0.2.70", S.datagram("192.0.2.70", 1, 1000, [fs(1, 100, 0x123, 100)]) + b"\xde\xad\xbe\xef\x01\x02\x03"),
    ("192.0.2.70", S.datagram("192.0.2.70", 2, 2000, [fs(2, 200, 0x123, 300),
                                                      S.counter_sample(1, 7, [S.if_counters(7)])]) + bytes(4)),
    ("192.0.2.71", announce(S.datagram("192.0.2.71", 1, 1000, [fs(1, 50, 0x456, 50), fs(2, 1000, 0x456, 1050)]), 1)),
    ("192.0.2.72", announce(S.datagram("192.0.2.72", 1, 1000, [fs(1, 30, 0x456, 30)]), 2)),
    ("192.0.2.73", S.datagram("192.0.2.73", 1, 1000, [fs(1, 40, 0x456, 40)])[:-8]),
    ("192.0.2.74", S.datagram("192.0.2.74", 1, 1000, [fs(1, 10, 0x789, 10)])),
]
S.write_pcap(sys.argv[1], [(T0 + i, a, p, None) for i, (a, p) in enumerate(d)])
