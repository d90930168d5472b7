#!/usr/bin/python3
"""Check rocetop's outputs for the capture of sflow_capture.py against tshark's
dissection of that capture, and the live collector's against -r's.

usage: compare_capture.py PCAP DIR
DIR holds live/ and off/ (--csv of the live collector fed the capture's
datagrams, and of -r PCAP), rec/ (--csv of -r of the live run's recording),
live.json and off.json (--json of each), live.prom (a scrape of the live
collector after the last datagram), tui.txt (the view's switch ports at the
end of -r PCAP).

- A port that sends only counter samples (agent 192.0.2.50, ports 3 and 4) is
  in switchports.csv, in the JSON's switch_ports and in the metrics, with its
  discards and errors: per row the increase since its previous counter sample,
  as tshark reads the samples' ifInDiscards, ifOutDiscards, ifInErrors and
  ifOutErrors; the metrics hold the last totals.
- The live collector and -r give the same switchports.csv, drops.csv and
  flows.csv rows (time and the link's utilisation aside: the live intervals
  are the clock's), and open the same findings.
- Flow samples and estimated packets per port and direction equal tshark's
  count of the flow samples and the sum of their sampling rates.
- The recording gives back the live switchports.csv exactly.
- The view's switch ports at the end of the capture show the counter-only
  ports' discards and errors of the last interval (the last counter sample's).
"""
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import tshark  # noqa: E402
from rtlib.check import Checker  # noqa: E402
from rtlib import outputs  # noqa: E402

pcap, d = sys.argv[1:3]
C = Checker("sflow_capture: ", "rocetop", "tshark", need_want=True)
CTR_AGENT = "192.0.2.50"


def rows(path):
    """A CSV file's rows; none when rocetop did not write it (checked below)."""
    return outputs.rows(path) if os.path.exists(path) else []


def json_lines(path):
    return outputs.json_lines(path) if os.path.exists(path) else []


def ints(s):
    return [int(x, 0) for x in s.split(",") if x]


# ---- tshark's dissection ----
F = ["sflow_245.agent", "sflow_245.ifindex", "sflow_245.ifindisc", "sflow_245.ifoutdisc",
     "sflow_245.ifinerr", "sflow_245.ifouterr", "sflow.flow_sample.source_id_index",
     "sflow.flow_sample.sampling_rate", "sflow.flow_sample.output_interface_value"]
totals = defaultdict(list)     # (agent, port) -> successive (in_disc, out_disc, in_err, out_err)
flows = defaultdict(lambda: {"samples": 0, "est_pkts": 0})
for line in tshark.fields(pcap, F, "sflow", roce_port=False, extra=("-E", "occurrence=a")):
    v = dict(zip(F, line))
    agent = v["sflow_245.agent"]
    cols = [ints(v[f]) for f in F[1:6]]
    for port, *c in zip(*cols):
        totals[(agent, port)].append(tuple(c))
    for port, rate, out in zip(*(ints(v[f]) for f in F[6:9])):
        k = (agent, str(port), "egress" if out == port else "ingress")
        flows[k]["samples"] += 1
        flows[k]["est_pkts"] += rate


def increases(seq):
    prev, out = (0, 0, 0, 0), []
    for t in seq:
        out.append(tuple(b - a for a, b in zip(prev, t)))
        prev = t
    return out


want_rows = {(a, str(p)): increases(s) for (a, p), s in totals.items() if a == CTR_AGENT}

# ---- switchports.csv: the counter-only ports, row by row ----
SIDES = ("in_discards", "out_discards", "in_errors", "out_errors")
for run in ("live", "off"):
    sp = rows(f"{d}/{run}/switchports.csv")
    for dirn in ("ingress", "egress"):
        got = defaultdict(list)
        for r in sp:
            if r["agent"] == CTR_AGENT and r["dir"] == dirn:
                got[(r["agent"], r["port"])].append(tuple(int(r[c]) for c in SIDES))
        C.check(f"{run}: switchports.csv rows of the counter-only ports ({dirn}): discards and errors "
                "per counter sample", dict(got), want_rows)
    n = [int(r["counter_samples"]) for r in sp if r["agent"] == CTR_AGENT]
    C.check(f"{run}: switchports.csv: one counter sample in each row of the counter-only ports",
            (len(n), set(n)), (2 * sum(len(v) for v in want_rows.values()), {1}))

# ---- JSON: switch_ports, the row's own direction ----
for run in ("live", "off"):
    got = defaultdict(list)
    for obj in json_lines(f"{d}/{run}.json"):
        for p in (obj.get("sflow") or {}).get("switch_ports", []):
            m = re.match(r"^(.*):(\d+)$", p["port"])
            if m.group(1) == CTR_AGENT and p.get("counter_samples"):
                got[(m.group(1), m.group(2), p["dir"])].append((p["discards"], p["errors"]))
    want = {}
    for (a, port), inc in want_rows.items():
        want[(a, port, "ingress")] = [(x[0], x[2]) for x in inc]
        want[(a, port, "egress")] = [(x[1], x[3]) for x in inc]
    C.check(f"{run}: --json switch_ports of the counter-only ports: discards and errors", dict(got), want)

# ---- Prometheus: the last totals ----
got = {}
for line in open(f"{d}/live.prom"):
    m = re.match(r'^rocetop_sflow_port_interface_(discards|errors)_total\{agent="([^"]+)",port="(\d+)",'
                 r'side="(in|out)"\} (\d+)$', line)
    if m and m.group(2) == CTR_AGENT:
        got[(m.group(2), m.group(3), m.group(4) + "_" + m.group(1))] = int(m.group(5))
want = {}
for (a, p), s in totals.items():
    if a == CTR_AGENT:
        for i, name in enumerate(SIDES):
            want[(a, str(p), name)] = s[-1][i]
C.check("metrics: the counter-only ports' interface discards and errors totals", got, want)

# ---- live against -r, and both against tshark's flow samples ----
DROP = {"time", "util_pct", "first_seen", "last_seen"}


def table(path, keep=lambda r: True):
    return [{k: v for k, v in r.items() if k not in DROP} for r in rows(path) if keep(r)]


for f in ("switchports", "drops"):
    C.check(f"live and -r: {f}.csv rows equal", table(f"{d}/live/{f}.csv"), table(f"{d}/off/{f}.csv"))
sflow_if = lambda r: re.match(r"^192\.0\.2\.\d+:\d+$", r["ifname"]) is not None  # noqa: E731
lf, of = table(f"{d}/live/flows.csv", sflow_if), table(f"{d}/off/flows.csv", sflow_if)
C.check("live and -r: flows.csv rows of the switches' flows equal", lf, of)
C.ok("sflow_capture", len(lf) > 0, "live and -r: flows.csv has the sampled flows", f"{len(lf)} rows")
opened = lambda p: sorted((r["rule"], r["severity"], r["subject"]) for r in rows(p)  # noqa: E731
                          if r["event"] == "open")
lo, oo = opened(f"{d}/live/findings.csv"), opened(f"{d}/off/findings.csv")
C.check("live and -r: the same findings open", lo, oo)
C.check("-r: the findings of the capture's switch: deep queue and drops on port 7",
        sorted(r for r, _, s in oo if "port=7" in s), ["deep-queue", "switch-drops"])
for run in ("live", "off"):
    got = defaultdict(lambda: {"samples": 0, "est_pkts": 0})
    for r in rows(f"{d}/{run}/switchports.csv"):
        if int(r["samples"]):
            k = (r["agent"], r["port"], r["dir"])
            got[k]["samples"] += int(r["samples"])
            got[k]["est_pkts"] += int(r["est_pkts"])
    C.check(f"{run}: switchports.csv flow samples and estimated packets per port and direction",
            dict(got), dict(flows))
got = {}
for line in open(f"{d}/tui.txt"):
    m = re.match(r"^(192\.0\.2\.50):(\d+) +(in|out) .* (\d+) +(\d+)\s*$", line)
    if m:
        got[(m.group(1), m.group(2), m.group(3))] = (int(m.group(4)), int(m.group(5)))
want = {}
for (a, port), inc in want_rows.items():
    want[(a, port, "in")] = (inc[-1][0], inc[-1][2])
    want[(a, port, "out")] = (inc[-1][1], inc[-1][3])
C.check("the view's switch ports: the counter-only ports' DISCARDS and ERRORS of the last interval",
        got, want)
C.check("the recording of the live run: switchports.csv as live",
        rows(f"{d}/rec/switchports.csv"), rows(f"{d}/live/switchports.csv"))
C.done()
