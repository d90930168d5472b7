#!/usr/bin/python3
"""Captures with known incidents, built with scapy, and the findings a report
of each must hold (the oracle: the times and fields given to scapy here).

  gen DIR                 write DIR/{storm,incast,nak,rnr}.pcap and DIR/NAME.want.json
  check WANT REPORT.json  the report's findings against the wanted ones: the
                          same rules (as many of each), each with the subject
                          named and start/end within one interval (1 s)
"""
import os
import json
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.check import errors  # noqa: E402

T0 = 1700000000.0
A, B = "02:00:00:00:00:01", "02:00:00:00:00:02"


def frames_roce():
    from scapy.all import Ether, IP, UDP, Raw
    from scapy.contrib.roce import BTH, AETH

    def roce(src, dst, qp, op, ecn, dscp=26, aeth=None, psn=0):
        pl = IP(src=src, dst=dst, tos=(dscp << 2) | ecn) / UDP(sport=49152, dport=4791) / \
            BTH(opcode=op, dqpn=qp, psn=psn & 0xffffff)
        pl = pl / (AETH(syndrome=aeth, msn=1) if aeth is not None else Raw(b"\xab" * 256))
        return Ether(src=A, dst=B) / pl
    return roce


def pfc(prio, quanta):
    from scapy.all import Ether, Raw
    times = [0] * 8
    times[prio] = quanta
    return Ether(src=A, dst="01:80:c2:00:00:01", type=0x8808) / \
        Raw(struct.pack("!HH8H", 0x0101, 1 << prio, *times) + b"\0" * 26)


def write(path, ev):
    from scapy.all import wrpcap
    ev.sort(key=lambda e: e[0])
    out = []
    for t, fr in ev:
        fr.time = t
        out.append(fr)
    wrpcap(path, out)


def flow_subj(name, src, dst, qp, **extra):
    s = {"ifname": name, "dir": "ingress", "src": src, "dst": dst, "dqpn": qp}
    s.update(extra)
    return s


def gen(d):
    roce = frames_roce()
    wants = {}

    # storm: priority 3 paused from 2 s to 5 s by a pause of 0xffff quanta every
    # millisecond (335.5 us each at 100 Gb/s: 33.5% of the time), no CE on it;
    # a flow on priority 3 (DSCP 26) is the victim, one on priority 1 (DSCP 10)
    # is not paused. XON at 5 s.
    ev = []
    for i in range(300):
        t = i * 0.02
        ev.append((T0 + t, roce("10.1.0.7", "10.1.0.9", 0x30, 0x0a, 2, dscp=26, psn=i)))
        ev.append((T0 + t + 0.005, roce("10.1.0.8", "10.1.0.9", 0x31, 0x0a, 2, dscp=10, psn=i)))
    for i in range(3000):
        ev.append((T0 + 2.0 + i * 0.001, pfc(3, 0xffff)))
    ev.append((T0 + 5.0, pfc(3, 0)))
    write(d + "/storm.pcap", ev)
    wants["storm"] = [
        {"rule": "pfc-storm", "severity": "critical", "start": T0 + 2, "end": T0 + 5,
         "subject": {"ifname": "storm.pcap", "dir": "ingress", "prio": 3}},
        {"rule": "pause-without-ecn", "severity": "warning", "start": T0 + 2, "end": T0 + 5,
         "subject": {"ifname": "storm.pcap", "prio": 3}},
        {"rule": "victim", "severity": "warning", "start": T0 + 2, "end": T0 + 5,
         "subject": flow_subj("storm.pcap", "10.1.0.7", "10.1.0.9", 0x30, prio=3)},
    ]

    # incast: four senders into 10.2.0.9, every 4th packet CE-marked from 1 s
    # to 3 s (25%); one more flow to another host, never marked.
    ev = []
    for k in range(4):
        for i in range(400):
            t = i * 0.01 + k * 0.001
            ce = 1.0 <= t < 3.0 and i % 4 == 0
            ev.append((T0 + t, roce("10.2.0.%d" % (k + 1), "10.2.0.9", 0x41 + k, 0x0a, 3 if ce else 2, psn=i)))
    for i in range(400):
        ev.append((T0 + i * 0.01 + 0.005, roce("10.2.0.5", "10.2.0.8", 0x45, 0x0a, 2, psn=i)))
    write(d + "/incast.pcap", ev)
    wants["incast"] = [{"rule": "incast", "severity": "warning", "start": T0 + 1, "end": T0 + 3,
                        "subject": {"dst": "10.2.0.9"}}] + \
        [{"rule": "congestion", "severity": "warning", "start": T0 + 1, "end": T0 + 3,
          "subject": flow_subj("incast.pcap", "10.2.0.%d" % (k + 1), "10.2.0.9", 0x41 + k)}
         for k in range(4)]

    # nak / rnr: a flow with its responder's ACKs; from 2 s to 3 s five NAKs
    # for PSN sequence errors (syndrome 0x60) or five RNR NAKs (0x2e).
    for name, syn, rule in (("nak", 0x60, "loss"), ("rnr", 0x2e, "receiver-not-ready")):
        ev = []
        for i in range(400):
            ev.append((T0 + i * 0.01, roce("10.3.0.1", "10.3.0.2", 0x51, 0x0a, 2, psn=i)))
        for i in range(40):
            ev.append((T0 + i * 0.1 + 0.003, roce("10.3.0.2", "10.3.0.1", 0x61, 0x11, 2, aeth=0x1f, psn=i)))
        for i in range(5):
            ev.append((T0 + 2.2 + i * 0.1, roce("10.3.0.2", "10.3.0.1", 0x61, 0x11, 2, aeth=syn, psn=100 + i)))
        write(d + "/%s.pcap" % name, ev)
        wants[name] = [{"rule": rule, "severity": "warning", "start": T0 + 2, "end": T0 + 3,
                        "subject": flow_subj(name + ".pcap", "10.3.0.2", "10.3.0.1", 0x61)}]
    for name, w in wants.items():
        with open("%s/%s.want.json" % (d, name), "w") as f:
            json.dump(w, f, indent=1)


def check(want_path, report_path):
    want = json.load(open(want_path))
    got = json.load(open(report_path))["findings"]
    errs = []
    rules_w = sorted(w["rule"] for w in want)
    rules_g = sorted(g["rule"] for g in got)
    if rules_w != rules_g:
        errs.append("rules %s, expected %s" % (rules_g, rules_w))
    # what each rule's peak counts, as rocetop(8) FINDINGS documents peak_unit
    units = {"pfc-storm": "share", "pause-without-ecn": "pause frames", "victim": "pause frames",
             "congestion": "share", "incast": "sources", "loss": "NAKs for PSN sequence errors",
             "receiver-not-ready": "RNR NAKs", "ecn-without-cnp": "CE-marked packets"}
    for g in got:
        if set(g) - {"involved"} != {"rule", "severity", "start", "end", "peak", "peak_unit", "subject", "evidence",
                                     "next"}:
            errs.append("fields %s" % sorted(g))
        elif g["peak_unit"] != units.get(g["rule"], g["peak_unit"]):
            errs.append("%s: peak_unit %r, expected %r" % (g["rule"], g["peak_unit"], units[g["rule"]]))
    for w in want:
        match = [g for g in got if g["rule"] == w["rule"] and g["subject"] == w["subject"]]
        if len(match) != 1:
            errs.append("%s %s: %d findings with that subject (subjects: %s)" %
                        (w["rule"], w["subject"], len(match),
                         [g["subject"] for g in got if g["rule"] == w["rule"]]))
            continue
        g = match[0]
        if g["severity"] != w["severity"]:
            errs.append("%s: severity %s, expected %s" % (w["rule"], g["severity"], w["severity"]))
        for k in ("start", "end"):
            if abs(g[k] - w[k]) > 1.0:
                errs.append("%s %s: %s %.3f, expected %.3f within 1 s" % (w["rule"], w["subject"], k, g[k] - T0, w[k] - T0))
    return errors(errs)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
