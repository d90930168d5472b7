#!/usr/bin/env python3
"""Churn captures for tests/offline/test_churn.sh, written as raw pcap records
(no scapy: tens of thousands of frames), with the generator's own tally.

churn OUT.pcap TALLY.json INTERVALS NEW LIFE TIMEOUT
  every interval of 1 s, NEW flows appear; each sends one RDMA WRITE frame per
  interval for LIFE intervals, then goes idle for good. The tally says, for
  rocetop -r -d 1 --flow-timeout TIMEOUT: per-flow packets and bytes, how many
  flows are evicted by the end, and how many flows the table holds at the end
  of each interval.
many OUT.pcap TALLY.json FLOWS MAX
  FLOWS flows of (i % 7) + 1 frames each, in turn; with --max-flows MAX the
  first MAX flows to appear keep a row: the tally says how many RoCE frames the
  others had.
"""
import json, os, struct, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import pcap  # noqa: E402

T0 = 1700000000


def frame(i, ce=False):
    """RDMA WRITE ONLY from 10.(i>>16).(i>>8).i to 10.255.0.1, DQPN 0x100 + i."""
    payload = b"\0" * 32
    bth = bytes([0x0a, 0, 0xff, 0xff, 0]) + (0x100 + i).to_bytes(3, "big") + bytes(4)
    udp_len = 8 + len(bth) + len(payload) + 4
    udp = struct.pack("!HHHH", 49152 + (i & 0x3fff), 4791, udp_len, 0)
    ip_len = 20 + udp_len
    tos = (26 << 2) | (3 if ce else 2)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, tos, ip_len, 0, 0, 64, 17, 0,
                     bytes([10, (i >> 16) & 0xff, (i >> 8) & 0xff, i & 0xff]), bytes([10, 255, 0, 1]))
    eth = bytes.fromhex("020000000002020000000001") + b"\x08\x00"
    return eth + ip + udp + bth + payload + b"\0" * 4


def write(out, recs):
    with open(out, "wb") as f:
        f.write(pcap.header(nano=True))
        for ns, fr in recs:
            f.write(pcap.record(T0 + ns // 10**9, ns % 10**9, fr))


def churn(out, tally, intervals, new, life, timeout):
    recs, flows = [], {}
    for k in range(intervals):
        for n in range(new):
            flows[k * new + n] = k
        slot = 0
        for i, born in sorted(flows.items()):
            if born <= k < born + life:
                ns = k * 10**9 + 1000 * slot + 1  # inside interval k
                slot += 1
                fr = frame(i, ce=(i + k) % 5 == 0)
                recs.append((ns, fr))
    recs.sort()
    per = {}
    last = {}
    first = {}
    for ns, fr in recs:
        i = int.from_bytes(fr[14 + 20 + 8 + 5:14 + 20 + 8 + 8], "big") - 0x100
        p = per.setdefault(i, [0, 0])
        p[0] += 1
        p[1] += len(fr)
        last[i] = ns
        first.setdefault(i, ns)
    # rocetop's grid: interval j ends at t0 + (j + 1) s, t0 = the first packet.
    t0 = recs[0][0]
    end_last = t0 + ((recs[-1][0] - t0) // 10**9 + 1) * 10**9
    ends = list(range(t0 + 10**9, end_last + 1, 10**9))
    tns = int(timeout * 10**9)
    table = []
    for e in ends:
        table.append(sum(1 for i in per if first[i] < e and not last[i] < e - tns))
    evicted = sum(1 for i in per if last[i] < end_last - tns)
    json.dump({"flows": {str(0x100 + i): v for i, v in per.items()}, "evicted": evicted,
               "table": table, "pkts": len(recs)}, open(tally, "w"))
    write(out, recs)


def many(out, tally, nflows, maxf):
    recs, per = [], {}
    order = []
    ns = 0
    for rnd in range(7):
        for i in range(nflows):
            if i % 7 + 1 > rnd:
                fr = frame(i)
                recs.append((ns, fr))
                ns += 1000
                per[i] = per.get(i, 0) + 1
                if i not in order:
                    order.append(i)
    kept = set(order[:maxf])
    lost = sum(c for i, c in per.items() if i not in kept)
    json.dump({"flows": len(per), "frames": len(recs), "lost_frames": lost}, open(tally, "w"))
    write(out, recs)


if __name__ == "__main__":
    if sys.argv[1] == "churn":
        churn(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]),
              float(sys.argv[7]))
    else:
        many(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
