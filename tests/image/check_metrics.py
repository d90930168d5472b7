#!/usr/bin/python3
"""Scrape rocetop's /metrics (in the container) and compare its counters with
what tests/prom/send.py says it sent.

Usage: check_metrics.py URL TALLY_JSON IFACE DEADLINE_SECONDS
The document is read by prometheus_client's own text parser (not rocetop's
code); the per-flow, per-host-pair, PFC and parser counters must equal the
tally. Polls until they do or the deadline passes, then prints one PASS line,
or a FAIL line per difference; exit 1 on any.
"""
import json
import sys
import time
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

url, tally_file, iface, deadline = sys.argv[1:5]
tally = json.load(open(tally_file))
deadline = time.monotonic() + float(deadline)
IN = {"interface": iface, "direction": "ingress"}

want = {}  # (name, frozenset(labels)) -> value


def expect(name, labels, value):
    want[(name, frozenset(dict(IN, **labels).items()))] = float(value)


for pair, t in tally["hostpair"].items():
    src, dst = pair.split(">")
    hp = {"src": src, "dst": dst}
    for name, key in [("packets", "pkts"), ("bytes", "bytes"), ("cnps", "cnp"), ("acks", "ack"),
                      ("rnr_naks", "rnr_nak")]:
        expect("rocetop_hostpair_%s_total" % name, hp, t[key])
    for e in ("not_ect", "ect0", "ect1", "ce"):
        expect("rocetop_hostpair_ecn_packets_total", dict(hp, ecn=e), t[e])
for flow, t in tally["flow"].items():
    src, dst, qp = flow.split(">")
    fl = {"src": src, "dst": dst, "dqpn": qp}
    expect("rocetop_flow_packets_total", fl, t["pkts"])
    expect("rocetop_flow_bytes_total", fl, t["bytes"])
    expect("rocetop_flow_cnps_total", fl, t["cnp"])
for prio, t in tally["pfc"].items():
    expect("rocetop_pfc_frames_total", {"priority": prio}, t["frames"])
    expect("rocetop_pfc_xon_frames_total", {"priority": prio}, t["xon"])
    expect("rocetop_pfc_pause_quanta_total", {"priority": prio}, t["quanta"])
expect("rocetop_parser_frames_total", {"outcome": "roce"}, tally["roce"])
expect("rocetop_parser_frames_total", {"outcome": "pause"}, tally["pause"])


def scrape():
    with urllib.request.urlopen(url, timeout=5) as r:
        text = r.read().decode()
    got = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            got[(s.name, frozenset(s.labels.items()))] = s.value
    return got




while True:
    try:
        got = scrape()
        why = None
    except Exception as e:  # noqa: BLE001 - whatever the scrape did is the answer
        got, why = {}, str(e)
    # A series may carry more labels than the test names: match on those named.
    diffs = []
    for (name, labels), value in want.items():
        vals = [v for (n, ls), v in got.items() if n == name and labels <= ls]
        if vals != [value]:
            diffs.append("%s{%s}: %s, sent %g" % (name, ",".join("%s=%s" % kv for kv in sorted(labels)),
                                                  vals or why or "absent", value))
    if not diffs or time.monotonic() > deadline:
        break
    time.sleep(0.3)
if diffs:
    for d in diffs:
        print("FAIL image: %s" % d)
    sys.exit(1)
print("PASS image: /metrics equals the sent tally (%d series: %d flows, %d host pairs, %d PFC priorities)"
      % (len(want), len(tally["flow"]), len(tally["hostpair"]), len(tally["pfc"])))
