#!/usr/bin/python3
"""Compare the paused time of a recording read elsewhere with the live run's
and with the hand computation from the sent quanta at the recorded speed.

usage: check_speed.py NAME LIVE_PFC_CSV REPORT_JSON BATCH_JSONL QUANTA SPEED_MBPS PRIO
Prints PASS/FAIL lines; exits 1 on a failure.
"""
import csv
import json
import sys

name, live_csv, rep_json, batch_jsonl, quanta, mbps, prio = sys.argv[1:8]
quanta, mbps = int(quanta), int(mbps)
hand = quanta * 512 / (mbps * 1e6)
fails = 0


def check(what, got, want, tol):
    global fails
    if abs(got - want) <= tol * want:
        print(f"PASS {name} {what}: {got:.6f} s (want {want:.6f})")
    else:
        print(f"FAIL {name} {what}: {got:.6f} s, want {want:.6f} (quanta {quanta} at {mbps} Mb/s)")
        fails += 1


live = 0.0
live_q = 0
with open(live_csv) as f:
    for row in csv.DictReader(f):
        if row["prio"] == prio:
            live_q += int(row["quanta"])
            live += float(row["paused_seconds"] or 0)
if live_q != quanta:
    print(f"FAIL {name} live quanta: {live_q}, the generator sent {quanta}")
    fails += 1
check("live paused (pfc.csv)", live, hand, 1e-6)

rep = json.load(open(rep_json))
rq, rs = 0, 0.0
for p in rep["pfc"]["priorities"]:
    if p["prio"] == prio:
        rq += p["quanta"]
        rs += p["seconds"]
if rq != quanta:
    print(f"FAIL {name} report quanta: {rq}, the generator sent {quanta}")
    fails += 1
check("report paused", rs, live, 0.01)
check("report paused by hand", rs, hand, 1e-6)

bq, bs = 0, 0.0
for line in open(batch_jsonl):
    line = line.strip()
    if not line.startswith("{"):
        continue
    o = json.loads(line)
    for p in o.get("pfc", []):
        if p["prio"] == prio:
            bq += p["quanta"]
            bs += p.get("paused_s", 0.0)
if bq != quanta:
    print(f"FAIL {name} -r --batch quanta: {bq}, the generator sent {quanta}")
    fails += 1
check("-r --batch paused", bs, live, 0.01)
check("-r --batch paused by hand", bs, hand, 1e-6)
sys.exit(1 if fails else 0)
