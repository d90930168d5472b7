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
import csv
import subprocess
import sys

FLOW_COLS = ["pkts", "bytes", "not_ect", "ect0", "ect1", "ce", "cnp", "ack", "nak",
             "rnr_nak", "nak_seq", "nak_other"]
FIELDS = ["frame.number", "frame.len", "eth.src", "ip.src", "ip.dst", "ip.dsfield.dscp",
          "ip.dsfield.ecn", "infiniband.bth.opcode", "infiniband.bth.destqp",
          "infiniband.aeth.syndrome", "macc.opcode", "macc.cbfc.enbv", "macc.pause_time"] + \
         ["macc.cbfc.pause_time.c%d" % i for i in range(8)]


def num(s):
    return int(s, 0) if s else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tally", required=True)
    ap.add_argument("--pcap", required=True)
    ap.add_argument("--rcv-mac", required=True)
    ap.add_argument("--storm-dscp", type=int)
    ap.add_argument("--victims", type=int, default=0)
    a = ap.parse_args()
    rcv_mac = a.rcv_mac.lower()

    cmd = ["tshark", "-n", "-r", a.pcap, "-T", "fields", "-E", "separator=|",
           "-E", "occurrence=f"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout

    flows = collections.defaultdict(lambda: collections.Counter())
    pfc = collections.defaultdict(lambda: collections.Counter())
    other = 0
    storm_on = False
    victim_in_storm = bystander_in_storm = storms = 0
    for line in out.splitlines():
        v = dict(zip(FIELDS, line.split("|")))
        side = "rcv" if v["eth.src"].lower() == rcv_mac else "data"
        if v["infiniband.bth.opcode"]:
            key = (v["ip.src"], v["ip.dst"], str(num(v["infiniband.bth.destqp"])), side)
            c = flows[key]
            c["pkts"] += 1
            c["bytes"] += int(v["frame.len"])
            c[{0: "not_ect", 1: "ect1", 2: "ect0", 3: "ce"}[num(v["ip.dsfield.ecn"])]] += 1
            op = num(v["infiniband.bth.opcode"])
            if op == 0x81:
                c["cnp"] += 1
            elif op == 0x11:
                syn = num(v["infiniband.aeth.syndrome"])
                t = (syn >> 5) & 3
                if t == 0:
                    c["ack"] += 1
                elif t == 1:
                    c["rnr_nak"] += 1
                else:
                    c["nak"] += 1
                    c["nak_seq" if t == 3 and (syn & 0x1f) == 0 else "nak_other"] += 1
            elif side == "data" and storm_on:
                if a.storm_dscp is not None and num(v["ip.dsfield.dscp"]) == a.storm_dscp:
                    victim_in_storm += 1
                else:
                    bystander_in_storm += 1
        elif v["macc.opcode"]:
            op = num(v["macc.opcode"])
            if op == 0x0101:
                vec = num(v["macc.cbfc.enbv"])
                for i in range(8):
                    if vec >> i & 1:
                        t = num(v["macc.cbfc.pause_time.c%d" % i])
                        p = pfc[(str(i), side)]
                        p["frames"] += 1
                        p["quanta"] += t
                        p["xon"] += t == 0
                        if a.storm_dscp is not None:
                            if t and not storm_on:
                                storms += 1
                            storm_on = t != 0
            elif op == 0x0001:
                t = num(v["macc.pause_time"])
                p = pfc[("all", side)]
                p["frames"] += 1
                p["quanta"] += t
                p["xon"] += t == 0
        else:
            other += 1

    bad = 0
    tflows = {}
    with open(a.tally + "/flows.csv") as fh:
        r = csv.DictReader(fh)
        if r.fieldnames != ["src", "dst", "dqpn"] + FLOW_COLS + ["side"]:
            print("MISMATCH flows.csv header", r.fieldnames)
            bad += 1
        for row in r:
            tflows[(row["src"], row["dst"], row["dqpn"], row["side"])] = row
    for key in sorted(set(tflows) | set(flows)):
        for col in FLOW_COLS:
            want = int(tflows[key][col]) if key in tflows else 0
            got = flows[key][col] if key in flows else 0
            if want != got:
                print("MISMATCH flow %s %s: tally %d, capture %d" % (",".join(key), col, want, got))
                bad += 1
    tpfc = {}
    with open(a.tally + "/pfc.csv") as fh:
        r = csv.DictReader(fh)
        if r.fieldnames != ["prio", "frames", "xon", "quanta", "side"]:
            print("MISMATCH pfc.csv header", r.fieldnames)
            bad += 1
        for row in r:
            tpfc[(row["prio"], row["side"])] = row
    for key in sorted(set(tpfc) | set(pfc)):
        for col in ["frames", "xon", "quanta"]:
            want = int(tpfc[key][col]) if key in tpfc else 0
            got = pfc[key][col] if key in pfc else 0
            if want != got:
                print("MISMATCH pfc %s %s: tally %d, capture %d" % (",".join(key), col, want, got))
                bad += 1
    total = sum(c["pkts"] for c in flows.values())
    summ = dict(l.split(" ", 1) for l in open(a.tally + "/summary.txt").read().splitlines()
                if " " in l)
    frames_pfc = int(summ.get("frames_pfc", 0)) + int(summ.get("frames_pause_8023x", 0))
    if int(summ.get("frames_total", -1)) != total + frames_pfc:
        print("MISMATCH summary frames_total %s, capture RoCE %d + PFC/pause %d"
              % (summ.get("frames_total"), total, frames_pfc))
        bad += 1
    if a.storm_dscp is not None:
        print("storms %d victim_frames_in_storm %d bystander_frames_in_storm %d"
              % (storms, victim_in_storm, bystander_in_storm))
        if storms < 1 or victim_in_storm > a.victims or bystander_in_storm < 1:
            print("MISMATCH storm: victims must stall while bystanders flow")
            bad += 1
    agg = collections.Counter()
    for c in flows.values():
        agg.update(c)
    print("flows %d roce %d ce %d cnp %d ack %d nak_seq %d nak_other %d rnr %d pfc_rows %d other %d mismatches %d"
          % (len(flows), total, agg["ce"], agg["cnp"], agg["ack"], agg["nak_seq"],
             agg["nak_other"], agg["rnr_nak"], len(pfc), other, bad))
    sys.exit(1 if bad else 0)


main()
