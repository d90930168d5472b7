#!/usr/bin/python3
"""Helpers of the offline tests (run with /usr/bin/python3, which has scapy).

  gen DIR            write eth.pcap, eth.pcapng, sll.pcap, sll2.pcap, raw.pcap,
                     badlink.pcap and DIR/tally.json: the expected totals, from
                     the fields scapy was given
  csv DIR            sum DIR/flows.csv and DIR/pfc.csv per flow / priority (JSON)
  tshark FILE        per-flow totals from tshark's dissection of FILE (JSON)
  sent FILE          per-flow totals of the frames in FILE, parsed by scapy (JSON)
  pick TALLY VARIANT the expected flows of one capture variant (eth, sll, raw)
  cmp A.json B.json [KEYS]  compare two such JSON files on the flow counters
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import tshark  # noqa: E402
from rtlib.outputs import sums  # noqa: E402
from rtlib.roce import FLOW_COLS as FIELDS, PFC_COLS, count_roce  # noqa: E402

T0 = 1700000000.0


def new_flow():
    return {f: 0 for f in FIELDS}


def classify(ecn, opcode, syndrome):
    """What one RoCE packet adds, from its field values (bytes left to the caller)."""
    d = new_flow()
    count_roce(d, 0, ecn, opcode, syndrome)
    return d


def add(tally, key, d):
    f = tally.setdefault(key, new_flow())
    for k, v in d.items():
        f[k] += v


def gen(outdir):
    from scapy.all import (Ether, Dot1Q, IP, IPv6, UDP, TCP, Raw, wrpcap,
                           CookedLinux, CookedLinuxV2)
    from scapy.utils import PcapNgWriter
    from scapy.contrib.roce import BTH, AETH, CNPPadding

    A, B = "02:00:00:00:00:01", "02:00:00:00:00:02"
    ev = []  # (time, frame, outgoing)

    def roce(t, src, dst, qp, op, ecn, aeth=None, v6=False, vlan=None, out=False, dscp=26):
        if v6:
            l3 = IPv6(src=src, dst=dst, tc=(dscp << 2) | ecn)
        else:
            l3 = IP(src=src, dst=dst, tos=(dscp << 2) | ecn)
        pl = l3 / UDP(sport=49152 + qp, dport=4791) / BTH(opcode=op, dqpn=qp, psn=int(t * 10) & 0xffffff)
        if aeth is not None:
            pl = pl / AETH(syndrome=aeth, msn=1)
        elif op == 0x81:
            pl = pl / CNPPadding()
        else:
            pl = pl / Raw(b"\xab" * 256)
        if vlan is not None:
            fr = Ether(src=A, dst=B) / Dot1Q(vlan=vlan[0], prio=vlan[1]) / pl
        else:
            fr = Ether(src=A, dst=B) / pl
        ev.append((T0 + t, fr, out))

    # F1: 10.0.0.1 -> 10.0.0.2 qp 0x11, RDMA WRITE, every 4th CE
    for i in range(40):
        roce(i * 0.09, "10.0.0.1", "10.0.0.2", 0x11, 0x0a, 3 if i % 4 == 0 else 2, out=True)
    # F2: 10.0.0.2 -> 10.0.0.1 qp 0x22: CNPs, ACKs, NAKs, RNR NAKs
    for i in range(5):
        roce(0.05 + i * 0.7, "10.0.0.2", "10.0.0.1", 0x22, 0x81, 2, dscp=48)
    for i, syn in enumerate([0x1f, 0x1f, 0x00, 0x1f, 0x1f, 0x1f, 0x60, 0x60, 0x63, 0x21]):
        roce(0.07 + i * 0.33, "10.0.0.2", "10.0.0.1", 0x22, 0x11, 2, aeth=syn)
    # F3: IPv6 fd00::1 -> fd00::2 qp 0x33, ECT(1) and CE
    for i in range(15):
        roce(0.02 + i * 0.21, "fd00::1", "fd00::2", 0x33, 0x04, 3 if i % 5 == 0 else 1, v6=True, out=True)
    # F4: VLAN 100 PCP 3, 10.0.1.1 -> 10.0.1.2 qp 0x44, not ECT
    for i in range(10):
        roce(0.03 + i * 0.3, "10.0.1.1", "10.0.1.2", 0x44, 0x04, 0, vlan=(100, 3))
    # not RoCE
    for i in range(3):
        ev.append((T0 + 0.5 + i, Ether(src=A, dst=B) / IP(src="10.0.0.9", dst="10.0.0.1") /
                   UDP(sport=999, dport=53) / Raw(b"q" * 20), False))
    for i in range(2):
        ev.append((T0 + 0.6 + i, Ether(src=A, dst=B) / IP(src="10.0.0.9", dst="10.0.0.1") /
                   TCP(sport=999, dport=80), False))
    # PFC: prio 3 pauses, one XON, one frame for prio 0 and 3; 802.3x pauses
    import struct
    pfc = []
    for i, (cev, times) in enumerate([(0x08, [0, 0, 0, 0xffff, 0, 0, 0, 0])] * 4 +
                                     [(0x08, [0] * 8), (0x09, [100, 0, 0, 200, 0, 0, 0, 0])]):
        pfc.append((cev, times))
        ev.append((T0 + 1.1 + i * 0.01, Ether(src=A, dst="01:80:c2:00:00:01", type=0x8808) /
                   Raw(struct.pack("!HH8H", 0x0101, cev, *times) + b"\0" * 26), False))
    for i in range(2):
        ev.append((T0 + 2.2 + i * 0.01, Ether(src=A, dst="01:80:c2:00:00:01", type=0x8808) /
                   Raw(struct.pack("!HH", 0x0001, 500) + b"\0" * 42), False))
    ev.sort(key=lambda e: e[0])

    # Expected totals from the fields given to scapy.
    tally = {"eth": {}, "sll": {}, "raw": {}}
    for t, fr, out in ev:
        if UDP not in fr or fr[UDP].dport != 4791:
            continue
        l3 = fr[IPv6] if IPv6 in fr else fr[IP]
        tos = l3.tc if IPv6 in fr else l3.tos
        syn = fr[AETH].syndrome if AETH in fr else None
        d = classify(tos & 3, fr[BTH].opcode, syn)
        d["bytes"] = len(bytes(fr))
        key = "%s|%s|%d" % (l3.src, l3.dst, fr[BTH].dqpn)
        add(tally["eth"], "ingress|" + key, d)
        add(tally["sll"], ("egress|" if out else "ingress|") + key, d)
        if Dot1Q not in fr:
            add(tally["raw"], "ingress|" + key, d)
    prio = {}
    for cev, times in pfc:
        for p in range(8):
            if cev & (1 << p):
                x = prio.setdefault(str(p), {"frames": 0, "xon": 0, "quanta": 0})
                x["frames"] += 1
                x["quanta"] += times[p]
                x["xon"] += times[p] == 0
    prio["all"] = {"frames": 2, "xon": 0, "quanta": 1000}
    tally["pfc"] = prio
    tally["frames"] = len(ev)
    tally["pause_frames"] = len(pfc) + 2
    tally["intervals"] = int((ev[-1][0] - ev[0][0]) // 1) + 1
    with open(outdir + "/tally.json", "w") as f:
        json.dump(tally, f, indent=1, sort_keys=True)

    frames = []
    for t, fr, out in ev:
        fr.time = t
        frames.append(fr)
    wrpcap(outdir + "/eth.pcap", frames)
    w = PcapNgWriter(outdir + "/eth.pcapng")
    for fr in frames:
        w.write(fr)
    w.close()
    sll, sll2, raw = [], [], []
    for t, fr, out in ev:
        pl = fr.payload
        c = CookedLinux(pkttype=4 if out else 0, lladdrtype=1, lladdrlen=6,
                        src=b"\x02\0\0\0\0\x01\0\0", proto=fr.type) / pl.copy()
        c.time = t
        sll.append(c)
        c2 = CookedLinuxV2(proto=fr.type, ifindex=2, lladdrtype=1, pkttype=4 if out else 0,
                           lladdrlen=6, src=b"\x02\0\0\0\0\x01\0\0") / pl.copy()
        c2.time = t
        sll2.append(c2)
        if fr.type in (0x0800, 0x86dd):
            r = pl.copy()
            r.time = t
            raw.append(r)
    wrpcap(outdir + "/sll.pcap", sll, linktype=113)
    wrpcap(outdir + "/sll2.pcap", sll2, linktype=276)
    wrpcap(outdir + "/raw.pcap", raw, linktype=101)
    wrpcap(outdir + "/badlink.pcap", [Raw(b"hello")], linktype=147)


def csv_sum(d):
    flows = sums(d + "/flows.csv", lambda r: "%s|%s|%s|%s" % (r["dir"], r["src"], r["dst"], r["dqpn"]), FIELDS)
    pfc = sums(d + "/pfc.csv", lambda r: r["prio"], PFC_COLS)
    print(json.dumps({"flows": flows, "pfc": pfc}, sort_keys=True))


def tshark_sum(path):
    flows = {}
    for s4, d4, s6, d6, qp, op, e4, e6, syn, flen in tshark.fields(
            path, ["ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "infiniband.bth.destqp", "infiniband.bth.opcode",
                   "ip.dsfield.ecn", "ipv6.tclass.ecn", "infiniband.aeth.syndrome", "frame.len"], "infiniband"):
        src, dst, ecn = (s4, d4, e4) if s4 else (s6, d6, e6)
        d = classify(int(ecn, 0), int(op, 0), int(syn, 0) if syn else None)
        d["bytes"] = int(flen)
        add(flows, "%s|%s|%d" % (src, dst, int(qp, 0)), d)
    print(json.dumps({"flows": flows}, sort_keys=True))


def sent_sum(path):
    """Frames of a capture parsed by scapy: for the tcpdump test."""
    from scapy.all import rdpcap, IP, IPv6, UDP
    from scapy.contrib.roce import BTH, AETH
    flows = {}
    for fr in rdpcap(path):
        if UDP not in fr or fr[UDP].dport != 4791 or BTH not in fr:
            continue
        l3 = fr[IPv6] if IPv6 in fr else fr[IP]
        tos = l3.tc if IPv6 in fr else l3.tos
        d = classify(tos & 3, fr[BTH].opcode, fr[AETH].syndrome if AETH in fr else None)
        d["bytes"] = len(fr)
        add(flows, "%s|%s|%d" % (l3.src, l3.dst, fr[BTH].dqpn), d)
    print(json.dumps({"flows": flows}, sort_keys=True))


def cmp(a, b, keys):
    """Exit 0 when the flows (ignoring the direction prefix in A if B has none) agree."""
    x = json.load(open(a))
    y = json.load(open(b))
    fx, fy = x.get("flows", x), y.get("flows", y)
    if fy and "|" in next(iter(fy)) and next(iter(fy)).count("|") == 2:
        fx = {k.split("|", 1)[1]: v for k, v in fx.items()}
    keys = keys or FIELDS
    bad = []
    for k in sorted(set(fx) | set(fy)):
        for f in keys:
            va, vb = fx.get(k, {}).get(f), fy.get(k, {}).get(f)
            if va != vb:
                bad.append("%s %s: %s vs %s" % (k, f, va, vb))
    if bad:
        print("; ".join(bad[:6]))
        sys.exit(1)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2])
    elif cmd == "csv":
        csv_sum(sys.argv[2])
    elif cmd == "tshark":
        tshark_sum(sys.argv[2])
    elif cmd == "sent":
        sent_sum(sys.argv[2])
    elif cmd == "pick":
        t = json.load(open(sys.argv[2]))
        print(json.dumps({"flows": t[sys.argv[3]]}, sort_keys=True))
    elif cmd == "cmp":
        cmp(sys.argv[2], sys.argv[3], sys.argv[4].split(",") if len(sys.argv) > 4 else None)
