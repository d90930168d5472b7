#!/usr/bin/python3
"""Ask a Prometheus server, through its HTTP API, for rocetop's series and
compare them with what send.py says it sent.

Usage: check_prom.py PROM_URL TALLY_JSON IFACE LINK_MBPS DEADLINE_SECONDS
Polls until every query returns the expected value or the deadline passes,
then prints one PASS or FAIL line per query. Exit 1 on any FAIL.
"""
import json
import sys
import time
import urllib.parse
import urllib.request

url, tally_file, iface, mbps, deadline = sys.argv[1:6]
tally = json.load(open(tally_file))
mbps = int(mbps)
deadline = time.monotonic() + float(deadline)

checks = []  # (promql, expected value)
sel_if = 'interface="%s",direction="ingress"' % iface
for pair, t in tally["hostpair"].items():
    src, dst = pair.split(">")
    sel = '%s,src="%s",dst="%s"' % (sel_if, src, dst)
    for name, key in [("packets", "pkts"), ("bytes", "bytes"), ("cnps", "cnp"), ("acks", "ack"),
                      ("rnr_naks", "rnr_nak")]:
        checks.append(("rocetop_hostpair_%s_total{%s}" % (name, sel), t[key]))
    for e in ("not_ect", "ect0", "ect1", "ce"):
        checks.append(('rocetop_hostpair_ecn_packets_total{%s,ecn="%s"}' % (sel, e), t[e]))
    checks.append(('rocetop_hostpair_naks_total{%s,reason="psn_sequence"}' % sel, t["nak_seq"]))
    checks.append(('rocetop_hostpair_naks_total{%s,reason="other"}' % sel, t["nak_other"]))
for flow, t in tally["flow"].items():
    src, dst, qp = flow.split(">")
    sel = '%s,src="%s",dst="%s",dqpn="%s"' % (sel_if, src, dst, qp)
    checks.append(("rocetop_flow_packets_total{%s}" % sel, t["pkts"]))
    checks.append(("rocetop_flow_bytes_total{%s}" % sel, t["bytes"]))
    checks.append(('rocetop_flow_ecn_packets_total{%s,ecn="ce"}' % sel, t["ce"]))
    checks.append(("rocetop_flow_cnps_total{%s}" % sel, t["cnp"]))
    checks.append(('rocetop_flow_naks_total{%s,reason="psn_sequence"}' % sel, t["nak_seq"]))
for prio, t in tally["pfc"].items():
    sel = '%s,priority="%s"' % (sel_if, prio)
    checks.append(("rocetop_pfc_frames_total{%s}" % sel, t["frames"]))
    checks.append(("rocetop_pfc_xon_frames_total{%s}" % sel, t["xon"]))
    checks.append(("rocetop_pfc_pause_quanta_total{%s}" % sel, t["quanta"]))
    if mbps:
        # a quantum is 512 bit times. send.py's frames go 1 ms apart (sendp's
        # inter), longer than any of their pauses (4096 quanta: 0.21 ms at
        # 10G), so the time paused, the union of the pauses (rocetop(8)
        # PAUSED TIME), is the quanta's sum, each pause counted to the
        # nanosecond below: to 1 ns a frame
        checks.append(("rocetop_pfc_paused_seconds_total{%s}" % sel,
                       (t["quanta"] * 512 / (mbps * 1e6), t["frames"] * 1e-9)))
checks.append(('rocetop_pfc_frames_total{%s,priority="5"}' % sel_if, 0))
checks.append(('rocetop_parser_frames_total{%s,outcome="roce"}' % sel_if, tally["roce"]))
checks.append(('rocetop_parser_frames_total{%s,outcome="pause"}' % sel_if, tally["pause"]))
checks.append(('count(rocetop_hostpair_packets_total{%s})' % sel_if, len(tally["hostpair"])))
checks.append(('count(rocetop_flow_packets_total{%s})' % sel_if, len(tally["flow"])))
checks.append(('up{job="rocetop"}', 1))


def query(q):
    u = url + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
    with urllib.request.urlopen(u, timeout=5) as r:
        res = json.load(r)
    if res.get("status") != "success":
        return None, "status %s" % res.get("status")
    vec = res["data"]["result"]
    if len(vec) != 1:
        return None, "%d series" % len(vec)
    return vec[0]["value"][1], None


def same(got, want):
    if got is None:
        return False
    if isinstance(want, tuple):     # (value, tolerance)
        return abs(float(got) - want[0]) <= want[1]
    if isinstance(want, float):
        return abs(float(got) - want) <= 1e-12 * max(1.0, abs(want))
    return got == str(want)


results = {}
while True:
    pending = [c for c in checks if not same(results.get(c[0], (None,))[0], c[1])]
    for q, want in pending:
        try:
            results[q] = query(q)
        except Exception as e:  # noqa: BLE001 - report whatever the API did
            results[q] = (None, str(e))
    if all(same(results[q][0], w) for q, w in checks) or time.monotonic() > deadline:
        break
    time.sleep(0.5)

fails = 0
for q, want in checks:
    got, why = results[q]
    if same(got, want):
        print("PASS prom query: %s = %s" % (q, got))
    else:
        fails += 1
        print("FAIL prom query: %s = %s (%s), sent %s" % (q, got, why or "value", want))
sys.exit(1 if fails else 0)
