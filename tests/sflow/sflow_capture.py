#!/usr/bin/python3
"""A capture of sFlow datagrams built byte by byte (tests/lib/rtlib/sflow.py),
one datagram a second, and its replay to a live collector.

usage: sflow_capture.py gen PCAP
       sflow_capture.py send PCAP PORT    (to 127.0.0.1:PORT, at the capture's pace)

Agent 192.0.2.50 sends only counter samples, for ports 3 and 4, three times
(in the capture over IPv6, tagged VLAN 100); agent 192.0.2.60 sends flow
samples of RoCEv2 headers on port 7 (egress and ingress, one with a 2 MB queue
depth), a dropped-packet notification and one counter sample of port 7.
"""
import os
import sys
import time
import socket

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import sflow as S  # noqa: E402

CTR, FLW = "192.0.2.50", "192.0.2.60"
T0 = 1_790_000_000.0
# the counter-only agent's totals at each of its three datagrams:
# (in_discards, in_errors, out_discards, out_errors) per port
CTRS = [
    {3: (100, 7, 250, 3), 4: (0, 0, 9, 1)},
    {3: (130, 7, 290, 5), 4: (0, 0, 9, 4)},
    {3: (131, 8, 290, 5), 4: (2, 0, 9, 4)},
]


def ctr_dgram(seq, uptime, ctrs):
    samples = []
    for port, (idisc, ierr, odisc, oerr) in sorted(ctrs.items()):
        rec = S.if_counters(port, in_octets=seq * 10**9 + port, in_discards=idisc, in_errors=ierr,
                            out_octets=seq * 2 * 10**9 + port, out_discards=odisc, out_errors=oerr)
        samples.append(S.counter_sample(seq * 10 + port, port, [rec, S.eth_counters()]))
    return S.datagram(CTR, seq, uptime, samples)


def gen(path):
    data = S.roce_frame("10.9.0.1", "10.9.0.2", 0x123, ecn=3)
    cnp = S.roce_frame("10.9.0.2", "10.9.0.1", 0x321, ecn=0, opcode=0x81, payload=16)
    ack = S.roce_frame("10.9.0.2", "10.9.0.1", 0x456, ecn=2, opcode=0x11, payload=4)
    d = []
    d.append((0, FLW, S.datagram(FLW, 1, 1000, [
        S.counter_sample(1, 7, [S.if_counters(7, in_discards=5, out_discards=6, in_errors=1, out_errors=2)]),
        S.flow_sample(1, 7, 100, 100, [S.raw_header(data)], input_if=1, output_if=7)])))
    d.append((1, CTR, ctr_dgram(1, 5000, CTRS[0])))
    d.append((2, FLW, S.datagram(FLW, 2, 3000, [
        S.flow_sample(2, 7, 100, 300, [S.raw_header(data), S.queue_depth(2_000_000)], input_if=1, output_if=7),
        S.flow_sample(3, 7, 100, 400, [S.raw_header(ack)], input_if=7, output_if=1)])))
    d.append((3, FLW, S.datagram(FLW, 3, 4000, [
        S.drop_sample(1, 7, 1, [S.raw_header(data)], input_if=1, output_if=7)])))
    d.append((4, CTR, ctr_dgram(2, 8000, CTRS[1])))
    d.append((5, FLW, S.datagram(FLW, 4, 6000, [
        S.flow_sample(4, 7, 50, 600, [S.raw_header(cnp)], input_if=1, output_if=7)])))
    d.append((6, CTR, ctr_dgram(3, 10000, CTRS[2])))
    # the counter-only agent's datagrams come over IPv6 with an 802.1Q tag
    S.write_pcap(path, [(T0 + 0.25 + t, a, p, None) if a == FLW else (T0 + 0.25 + t, "fd00::50", p, 100)
                        for t, a, p in d])


def send(path, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dg = S.read_pcap_udp(path)
    start = time.monotonic()
    for t, pl in dg:
        wait = start + (t - dg[0][0]) - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        s.sendto(pl, ("127.0.0.1", port))
    print(f"sent {len(dg)} datagrams")


if sys.argv[1] == "gen":
    gen(sys.argv[2])
else:
    send(sys.argv[2], int(sys.argv[3]))
