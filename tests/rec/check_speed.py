#!/usr/bin/python3
"""Compare the paused time of a recording read elsewhere with the live run's
and with the hand computation from the sent quanta at the recorded speed.

usage: check_speed.py NAME LIVE_PFC_CSV REPORT_JSON BATCH_JSONL QUANTA SPEED_MBPS PRIO
Prints PASS/FAIL lines; exits 1 on a failure.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.check import Checker  # noqa: E402
from rtlib.outputs import json_lines, rows  # noqa: E402

name, live_csv, rep_json, batch_jsonl, quanta, mbps, prio = sys.argv[1:8]
quanta, mbps = int(quanta), int(mbps)
hand = quanta * 512 / (mbps * 1e6)
ck = Checker()


def check(what, got, want, tol):
    ck.ok(f"{name} {what}", abs(got - want) <= tol * want, f"{got:.6f} s (want {want:.6f})",
          f"quanta {quanta} at {mbps} Mb/s")


def sent(what, q):
    ck.ok(f"{name} {what} quanta", q == quanta, f"{q}", f"the generator sent {quanta}")


def prio_sums(items, qkey, skey, missing_ok=False):
    """The quanta and seconds (empty: 0; absent: only when missing_ok) of
    the items of priority prio."""
    mine = [p for p in items if p["prio"] == prio]
    return (sum(int(p[qkey]) for p in mine),
            sum(float((p.get(skey) if missing_ok else p[skey]) or 0) for p in mine))


live_q, live = prio_sums(rows(live_csv), "quanta", "paused_seconds")
sent("live", live_q)
check("live paused (pfc.csv)", live, hand, 1e-6)

with open(rep_json) as f:
    rq, rs = prio_sums(json.load(f)["pfc"]["priorities"], "quanta", "seconds")
sent("report", rq)
check("report paused", rs, live, 0.01)
check("report paused by hand", rs, hand, 1e-6)

bq, bs = prio_sums([p for o in json_lines(batch_jsonl, []) for p in o.get("pfc", [])], "quanta", "paused_s",
                   missing_ok=True)
sent("-r --batch", bq)
check("-r --batch paused", bs, live, 0.01)
check("-r --batch paused by hand", bs, hand, 1e-6)
ck.done()
