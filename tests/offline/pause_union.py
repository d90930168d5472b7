#!/usr/bin/python3
"""Captures of PFC frames at exact times, and the time they paused worked out
from the frames alone, independently of rocetop (tests/offline/test_pause_union.sh).

usage: pause_union.py build FILE.pcap
       pause_union.py check FILE.pcap BATCH.jsonl REPORT.json OLD_REPORT.json SPEED_MBPS INTERVAL_S
       pause_union.py send IFACE
       pause_union.py live CAPTURE.pcap REPORT.json SPEED_MBPS

build writes a classic pcap (microsecond times, written here byte by byte so
that the times are exact) of these, on one link at 10 Gb/s, from T0:
  priority 3: a storm, 2,000 XOFF of 0xffff quanta every 1 ms (each pause,
              3.355392 ms, refreshed after 1 ms)
  priority 4: an XOFF of 0xffff ended by an XON 0.5 ms later
  priority 1: lone pauses of 1,000 and 20,000 quanta, and a lone XON
  priorities 5 and 6: one frame pausing both, 10,000 and 0xffff quanta
  global (802.3x): two pauses of 1,000 quanta 20 us apart
  priority 2: an XOFF of 0xffff 1 ms before the end of the third second,
              crossing into the fourth; priority 7: an XON at 3.5 s ends
              the capture.
check reads the frames back from FILE.pcap (times from the records, pause
times from the frames' bytes), takes each pause from its frame's time for
quanta x 512 bit times, cut short by the next frame of its priority (which
restarts or, as XON, ends it), and sums its parts inside each interval of
INTERVAL_S seconds from the first frame: the union of the pause intervals,
exactly, in nanoseconds (fractions). It then compares rocetop's --batch
--json (each interval's paused_s per priority), its report (seconds per
priority, the sum of the intervals) and, for the storm, the report of the
build before the union rule (OLD_REPORT.json, "-": not given), which summed
the quanta.

send sends the same frames on IFACE (a raw packet socket) at their times from
now; live checks a report of a live run on the receiving end against the
union worked out from a capture there (tcpdump: the times the frames arrived),
per priority, to 100 us + 0.1% (the capture's time of a frame and the XDP
program's are taken microseconds apart).
"""
import json
import struct
import sys
from fractions import Fraction

T0 = 1700000000
PFC_DST = bytes.fromhex("0180c2000001")


def frame(times=None, pause=None):
    """A 60-byte MAC control frame: PFC (times: prio -> quanta) or 802.3x."""
    head = PFC_DST + bytes.fromhex("020000000001") + b"\x88\x08"
    if pause is not None:
        return head + struct.pack("!HH", 0x0001, pause) + bytes(42)
    cev, t8 = 0, [0] * 8
    for c, q in times.items():
        cev |= 1 << c
        t8[c] = q
    return head + struct.pack("!HH8H", 0x0101, cev, *t8) + bytes(26)


def plan():
    """(microseconds from T0, frame), in time order."""
    f = [(i * 1000, frame({3: 0xffff})) for i in range(2000)]
    f += [(200500, frame({4: 0xffff})), (201000, frame({4: 0}))]
    f += [(300000, frame({1: 1000})), (600000, frame({1: 20000})), (900000, frame({1: 0}))]
    f += [(700000, frame({5: 10000, 6: 0xffff}))]
    f += [(1500000, frame(pause=1000)), (1500020, frame(pause=1000))]
    f += [(2999000, frame({2: 0xffff})), (3500000, frame({7: 0}))]
    return sorted(f, key=lambda x: x[0])


def build(path):
    with open(path, "wb") as o:
        o.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for us, b in plan():
            o.write(struct.pack("<IIII", T0 + us // 1000000, us % 1000000, len(b), len(b)))
            o.write(b)


def read(path):
    """(ns, {prio: quanta}) of each MAC control frame in a classic pcap."""
    data = open(path, "rb").read()
    assert struct.unpack("<I", data[:4])[0] == 0xa1b2c3d4
    out, off = [], 24
    while off < len(data):
        sec, usec, incl, _ = struct.unpack("<IIII", data[off:off + 16])
        b = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if b[12:14] != b"\x88\x08":
            continue
        op = struct.unpack("!H", b[14:16])[0]
        if op == 0x0001:
            pr = {"all": struct.unpack("!H", b[16:18])[0]}
        else:
            cev = struct.unpack("!H", b[16:18])[0] & 0xff
            t8 = struct.unpack("!8H", b[18:34])
            pr = {str(c): t8[c] for c in range(8) if cev & (1 << c)}
        out.append((sec * 10**9 + usec * 1000, pr))
    return out


def pauses(frames, mbps):
    """prio -> [(start, end)] ns (fractions): each frame's pause cut at the next frame's time."""
    by = {}
    for t, pr in frames:
        for p, q in pr.items():
            by.setdefault(p, []).append((t, Fraction(q * 512 * 1000, mbps)))
    out = {}
    for p, fs in by.items():
        fs.sort()
        spans = []
        for i, (t, ln) in enumerate(fs):
            end = t + ln
            if i + 1 < len(fs):
                end = min(end, fs[i + 1][0])
            if end > t:
                spans.append((t, end))
        out[p] = spans
    return out


def inside(spans, a, b):
    return sum(max(Fraction(0), min(e, b) - max(s, a)) for s, e in spans)


def check(pcap, batch, report, old, mbps, d):
    frames = read(pcap)
    t_first = frames[0][0]
    dn = int(Fraction(d) * 10**9)
    spans = pauses(frames, mbps)
    fails = 0
    ivs = [json.loads(ln) for ln in open(batch) if ln.strip()]
    ivs = [x for x in ivs if "pfc" in x or "flows" in x]
    n = 0
    tot = {}
    for k, iv in enumerate(ivs):
        a, b = t_first + k * dn, t_first + (k + 1) * dn
        got = {r["prio"]: r["paused_s"] for r in iv.get("pfc", [])}
        for p, sp in spans.items():
            want = inside(sp, a, b)
            tot[p] = tot.get(p, 0) + want
            g = got.get(p, 0.0)
            if abs(Fraction(g) - want / 10**9) > Fraction(1, 10**9):
                print(f"FAIL pause_union interval {k} priority {p}: {g} s paused, want {float(want) / 1e9:.9f}")
                fails += 1
            n += 1
    rep = json.load(open(report))
    rp = {x["prio"]: x for x in rep["pfc"]["priorities"]}
    for p, want in tot.items():
        g = rp.get(p, {}).get("seconds", 0.0)
        if abs(Fraction(g) - want / 10**9) > Fraction(1, 10**9):
            print(f"FAIL pause_union report priority {p}: {g} s paused, want {float(want) / 1e9:.9f}")
            fails += 1
        else:
            print(f"PASS pause_union report priority {p}: {g:.9f} s paused")
    if rep["pfc"].get("paused_estimated") != 0:
        print("FAIL pause_union report: a capture's paused time said estimated")
        fails += 1
    storm_old = sum(q for _, pr in frames for p, q in pr.items() if p == "3") * 512 / (mbps * 1e6)
    if old != "-":
        o = {x["prio"]: x for x in json.load(open(old))["pfc"]["priorities"]}["3"]["seconds"]
        print(f"INFO pause_union storm: {float(tot['3']) / 1e9:.9f} s paused (the build before: {o:.6f} s, "
              f"the quanta's sum {storm_old:.6f} s)")
    if fails == 0:
        print(f"PASS pause_union batch: {n} interval x priority values, each the union to 1 ns")
    return fails


def send(iface):
    """Each frame at its time, or when late, no sooner after the frame before
    than planned (a late frame does not bring the next ones with it: the XON
    0.5 ms after its XOFF stays 0.5 ms after it)."""
    import socket
    import time
    sk = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sk.bind((iface, 0))
    start = time.monotonic() + 0.05
    last_us, last_at = 0, start
    for us, b in plan():
        at = max(start + us / 1e6, last_at + (us - last_us) / 1e6)
        while True:
            left = at - time.monotonic()
            if left <= 0:
                break
            if left > 0.005:
                time.sleep(left - 0.004)
        sk.send(b)
        last_us, last_at = us, time.monotonic()
    print(f"sent {len(plan())} frames")


def live(cap, report, mbps):
    frames = read(cap)
    spans = pauses(frames, mbps)
    rp = {x["prio"]: x for x in json.load(open(report))["pfc"]["priorities"]}
    fails = 0
    if len(frames) != len(plan()):
        print(f"FAIL pause_live: the capture holds {len(frames)} frames, {len(plan())} sent")
        return 1
    for p, sp in sorted(spans.items()):
        want = float(sum(e - s for s, e in sp)) / 1e9
        g = rp.get(p, {}).get("seconds", 0.0)
        if abs(g - want) > 100e-6 + want * 1e-3:
            print(f"FAIL pause_live priority {p}: {g:.6f} s paused, the capture's union {want:.6f} s")
            fails += 1
        else:
            print(f"PASS pause_live priority {p}: {g:.6f} s paused, the capture's union {want:.6f} s")
    return fails


if __name__ == "__main__":
    if sys.argv[1] == "send":
        send(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "live":
        sys.exit(1 if live(sys.argv[2], sys.argv[3], int(sys.argv[4])) else 0)
    if sys.argv[1] == "build":
        build(sys.argv[2])
        sys.exit(0)
    sys.exit(1 if check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7]) else 0)
