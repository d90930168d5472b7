#!/usr/bin/python3
"""Compare rocetop-gen's tally with tshark's dissection of a capture.

Usage: check_tally.py --tally DIR --pcap FILE --rcv-mac MAC [--storm-dscp D --victims N]

Per flow (src, dst, BTH dest QP, side) it counts, from tshark's fields, frames,
bytes, ECN codepoints, CNPs (BTH opcode 0x81), ACKs, NAKs (PSN sequence error /
other) and RNR NAKs (AETH syndrome), and per class the PFC frames, XONs and
quanta (802.3x as 'all'), and requires them to equal DIR/flows.csv and
DIR/pfc.csv exactly. The side of a frame is 'rcv' when its source MAC is the
receiver's, else 'data'. Prints 'MISMATCH ...' lines and a summary line;
exits 1 on any difference.
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import outputs, tshark  # noqa: E402
from rtlib.roce import FLOW_COLS, OP_ACKS, OP_CNP, PFC_COLS, count_pause, count_roce  # noqa: E402

FIELDS = ["frame.number", "frame.len", "eth.src", "ip.src", "ip.dst", "ip.dsfield.dscp",
          "ip.dsfield.ecn", "infiniband.bth.opcode", "infiniband.bth.destqp",
          "infiniband.aeth.syndrome", "macc.opcode", "macc.cbfc.enbv", "macc.pause_time"] + \
         ["macc.cbfc.pause_time.c%d" % i for i in range(8)]


def num(s):
    return int(s, 0) if s else None


class Capture:
    """The capture's counts per (flow, side) and (class, side), and how the
    data frames fared while a PFC storm paused their class."""

    def __init__(self, rcv_mac, storm_dscp):
        self.rcv_mac, self.storm_dscp = rcv_mac, storm_dscp
        self.flows = collections.defaultdict(collections.Counter)
        self.pfc = collections.defaultdict(collections.Counter)
        self.other = 0
        self.storm_on = False
        self.victim_in_storm = self.bystander_in_storm = self.storms = 0

    def frame(self, v):
        side = "rcv" if v["eth.src"].lower() == self.rcv_mac else "data"
        if v["infiniband.bth.opcode"]:
            self.roce(v, side)
        elif v["macc.opcode"]:
            self.mac_control(v, side)
        else:
            self.other += 1

    def roce(self, v, side):
        op = num(v["infiniband.bth.opcode"])
        key = (v["ip.src"], v["ip.dst"], str(num(v["infiniband.bth.destqp"])), side)
        count_roce(self.flows[key], int(v["frame.len"]), num(v["ip.dsfield.ecn"]), op,
                   num(v["infiniband.aeth.syndrome"]))
        if op != OP_CNP and op not in OP_ACKS and side == "data" and self.storm_on:
            if self.storm_dscp is not None and num(v["ip.dsfield.dscp"]) == self.storm_dscp:
                self.victim_in_storm += 1
            else:
                self.bystander_in_storm += 1

    def mac_control(self, v, side):
        op = num(v["macc.opcode"])
        if op == 0x0101:
            vec = num(v["macc.cbfc.enbv"])
            for i in range(8):
                if vec >> i & 1:
                    t = num(v["macc.cbfc.pause_time.c%d" % i])
                    count_pause(self.pfc, (str(i), side), t)
                    if self.storm_dscp is not None:
                        if t and not self.storm_on:
                            self.storms += 1
                        self.storm_on = t != 0
        elif op == 0x0001:
            count_pause(self.pfc, ("all", side), num(v["macc.pause_time"]))


def compare(noun, path, header, keycols, got, cols):
    """The tally file's rows (a flow's, a class's: noun) against the
    capture's counts: the mismatches, each printed."""
    bad = 0
    if outputs.columns(path) != header:
        print("MISMATCH %s header" % os.path.basename(path), outputs.columns(path))
        bad += 1
    want = {tuple(r[c] for c in keycols): r for r in outputs.rows(path)}
    for key in sorted(set(want) | set(got)):
        for col in cols:
            w = int(want[key][col]) if key in want else 0
            g = got[key][col] if key in got else 0
            if w != g:
                print("MISMATCH %s %s %s: tally %d, capture %d" % (noun, ",".join(key), col, w, g))
                bad += 1
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tally", required=True)
    ap.add_argument("--pcap", required=True)
    ap.add_argument("--rcv-mac", required=True)
    ap.add_argument("--storm-dscp", type=int)
    ap.add_argument("--victims", type=int, default=0)
    a = ap.parse_args()

    cap = Capture(a.rcv_mac.lower(), a.storm_dscp)
    for line in tshark.fields(a.pcap, FIELDS, roce_port=False, extra=("-n", "-E", "occurrence=f")):
        cap.frame(dict(zip(FIELDS, line)))
    flows, pfc = cap.flows, cap.pfc

    bad = compare("flow", a.tally + "/flows.csv", ["src", "dst", "dqpn"] + FLOW_COLS + ["side"],
                  ("src", "dst", "dqpn", "side"), flows, FLOW_COLS)
    bad += compare("pfc", a.tally + "/pfc.csv", ["prio"] + list(PFC_COLS) + ["side"],
                   ("prio", "side"), pfc, PFC_COLS)
    total = sum(c["pkts"] for c in flows.values())
    summ = outputs.kv(a.tally + "/summary.txt")
    frames_pfc = int(summ.get("frames_pfc", 0)) + int(summ.get("frames_pause_8023x", 0))
    if int(summ.get("frames_total", -1)) != total + frames_pfc:
        print("MISMATCH summary frames_total %s, capture RoCE %d + PFC/pause %d"
              % (summ.get("frames_total"), total, frames_pfc))
        bad += 1
    if a.storm_dscp is not None:
        print("storms %d victim_frames_in_storm %d bystander_frames_in_storm %d"
              % (cap.storms, cap.victim_in_storm, cap.bystander_in_storm))
        if cap.storms < 1 or cap.victim_in_storm > a.victims or cap.bystander_in_storm < 1:
            print("MISMATCH storm: victims must stall while bystanders flow")
            bad += 1
    agg = collections.Counter()
    for c in flows.values():
        agg.update(c)
    print("flows %d roce %d ce %d cnp %d ack %d nak_seq %d nak_other %d rnr %d pfc_rows %d other %d mismatches %d"
          % (len(flows), total, agg["ce"], agg["cnp"], agg["ack"], agg["nak_seq"],
             agg["nak_other"], agg["rnr_nak"], len(pfc), cap.other, bad))
    sys.exit(1 if bad else 0)


main()
