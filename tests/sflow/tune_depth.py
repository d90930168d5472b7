#!/usr/bin/python3
"""A capture for report --tune's PFC-before-ECN rule with sFlow queue depths,
built byte by byte (tests/lib/rtlib/sflow.py, pcap.py, roce.py), and what the
rule must say of it, worked out here from the plan below.

usage: tune_depth.py PCAP EXPECT_JSON

Eight seconds of a host's view of priority 3 (RoCE data tagged VLAN 10 PCP 3,
DSCP 26): in each second, data packets (some CE-marked) and PFC frames pausing
priority 3, as the plan says, and a switch's sFlow datagram with one flow
sample of a RoCE header whose egress queue (record 1036) is 3 and whose queue
depth (1040) the plan gives. Distractors that must not count: every second a
sample on queue 5 with a 999999-byte depth and one with a 888888-byte depth
and no queue index. Episodes (CE or PFC, ended by a second with neither):
seconds 0-1 (PFC first, marking in the second), 3 (PFC only), 5-6 (PFC
first, marking in the second): 3 episodes, all begun by PFC.
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import pcap as P  # noqa: E402
from rtlib import roce as R  # noqa: E402
from rtlib import sflow as S  # noqa: E402

T0 = 1_790_000_000
# second -> (data packets, of them CE, PFC frames on 3, queue 3's depth or None)
PLAN = {
    0: (20, 0, 4, 150000),
    1: (20, 6, 3, 420000),
    2: (20, 0, 0, 30000),
    3: (20, 0, 5, 160000),
    4: (20, 0, 0, None),
    5: (20, 0, 2, 170000),
    6: (20, 9, 1, 410000),
    7: (20, 0, 0, 20000),
}
AGENT = "192.0.2.60"


def vlan(frame, vid, pcp):
    """frame with an 802.1Q tag after its MAC addresses."""
    return frame[:12] + struct.pack("!HH", 0x8100, pcp << 13 | vid) + frame[12:]


def udp_frame(src, dst, sport, dport, payload):
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                    bytes(map(int, src.split("."))), bytes(map(int, dst.split("."))))
    h = h[:10] + struct.pack("!H", R.ip_csum(h)) + h[12:]
    return bytes.fromhex("02000000fe01" "02000000fe02" "0800") + h + udp


def egress_queue(index):
    """Flow record 1036, the extended egress queue: its index."""
    return struct.pack("!III", 1036, 4, index)


def sflow_dgram(sec, depth):
    hdr = S.roce_frame("10.9.0.1", "10.9.0.2", 0x123, ecn=2)
    samples = []
    if depth is not None:
        samples.append(S.flow_sample(sec * 3 + 1, 7, 100, 100 * (sec + 1),
                                     [S.raw_header(hdr), egress_queue(3), S.queue_depth(depth)], 1, 7))
    samples.append(S.flow_sample(sec * 3 + 2, 8, 100, 100 * (sec + 1),
                                 [S.raw_header(hdr), egress_queue(5), S.queue_depth(999999)], 1, 8))
    samples.append(S.flow_sample(sec * 3 + 3, 9, 100, 100 * (sec + 1),
                                 [S.raw_header(hdr), S.queue_depth(888888)], 1, 9))
    return S.datagram(AGENT, sec + 1, 1000 * (sec + 1), samples)


def main():
    path, expect = sys.argv[1:3]
    recs, psn = [P.header()], 0
    for sec in sorted(PLAN):
        data, ce, pfc, depth = PLAN[sec]
        frames = []
        for k in range(data):
            tos = 26 << 2 | (3 if k < ce else 2)
            frames.append(vlan(R.raw_roce("10.1.0.1", "10.1.0.2", tos, 0x0a, 0x11, psn, bytes(256)), 10, 3))
            psn += 1
        for _ in range(pfc):
            frames.append(bytes.fromhex("0180c2000001" "020000000002" "8808") + R.pfc_body({3: 100}))
        frames.append(udp_frame(AGENT, "192.0.2.254", 40000, 6343, sflow_dgram(sec, depth)))
        for i, f in enumerate(frames):
            recs.append(P.record(T0 + sec, 200000 + i * 1000, f))
    with open(path, "wb") as f:
        f.write(b"".join(recs))
    # The episodes and the depths at which pausing and marking began, from the plan.
    eps, first, pause_d, mark_d, open_, marked, paused = 0, 0, [], [], False, False, False
    for sec in sorted(PLAN):
        data, ce, pfc, depth = PLAN[sec]
        if not ce and not pfc:
            open_ = False
            continue
        if not open_:
            open_, marked, paused = True, False, False
            eps += 1
            first += 1 if pfc and not ce else 0
        if ce and not marked:
            marked = True
            mark_d.append(depth)
        if pfc and not paused:
            paused = True
            pause_d.append(depth)

    def say(ds):
        n = len(ds)
        return (f"{min(ds)} bytes in {n} episode{'s' if n > 1 else ''}" if min(ds) == max(ds)
                else f"{min(ds)}..{max(ds)} bytes in {n} episodes")
    with open(expect, "w") as f:
        json.dump({"episodes": eps, "pause_first": first,
                   "data": sum(p[0] for p in PLAN.values()), "ce": sum(p[1] for p in PLAN.values()),
                   "pfc": sum(p[2] for p in PLAN.values()),
                   "evidence": f"{first} of {eps} congestion episodes on priority 3 began with PFC frames and no "
                   f"CE mark; switch queue 3's depth (sFlow) when pausing began: {say(pause_d)}, "
                   f"when marking began: {say(mark_d)}"}, f)


main()
