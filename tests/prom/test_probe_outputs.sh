#!/usr/bin/env bash
# The probe table in the main run's outputs, read back by independent
# parsers: tests/unit/test_probe_out.c renders three hand-built probe rows
# (a lossy path, a dead one whose peer's name holds a quote and a comma, a
# clean one whose name holds UTF-8 and a stray byte) through --batch --json,
# --csv and the Prometheus renderer and leaves the documents here. promtool
# must accept the exposition and find each family; python's json must read
# the line and its "probes" array must hold the rows' values; python's csv
# module must read probes.csv back into the rows (the name with its quote and
# comma whole, no sample an empty cell). Expected values are the rows', by
# hand, not the C code's.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_checks probe_outputs "probe_outputs "
bin=${BUILD:-build}/tests/test_probe_out
[ -x "$bin" ] || { fail build "no $bin (run make)"; exit 1; }
PROBE_OUT_DIR=$T "$bin" >"$T/unit.out" 2>&1 || { fail unit "$(grep FAIL "$T/unit.out")"; exit 1; }

if command -v promtool >/dev/null; then
	if out=$(promtool check metrics <"$T/probes.prom" 2>&1); then
		pass "promtool check metrics accepts the probe families"
	else fail promtool "$out"; fi
else
	echo "SKIP probe_outputs: promtool is not installed"
fi

out=$("$PY" - "$T" <<'PY'
import csv, json, re, sys
d = sys.argv[1]
bad = []
# The rows as the C test built them: times in us (None: no sample).
rows = [
    dict(peer="b-host", addr="10.0.0.2", path=0, flow_label=100, udp_sport=49153, size=64, sent=10,
         answered=9, lost=1, rtt_p50_us=41.4, rtt_p99_us=97.6, net_p50_us=38.2, resp_p50_us=3.4,
         clock="system", finding="path-loss", sent_total=30, answered_total=28, lost_total=2, base=37),
    dict(peer='c "q", x', addr="10.0.0.3", path=1, flow_label=7, udp_sport=0, size=4096, sent=5,
         answered=0, lost=5, rtt_p50_us=None, rtt_p99_us=None, net_p50_us=None, resp_p50_us=None,
         clock="device", finding="path-down", sent_total=5, answered_total=0, lost_total=5, base=0),
    dict(peer=b"na\xc3\xafve\xff".decode("utf-8", "replace"), addr="10.0.0.4", path=0, flow_label=200,
         udp_sport=49154, size=1024, sent=4, answered=4, lost=0, rtt_p50_us=1234.5, rtt_p99_us=2000,
         net_p50_us=1200.25, resp_p50_us=34.25, clock="system", finding=None, sent_total=12,
         answered_total=12, lost_total=0, base=1100),
]
TIMES = ("rtt_p50_us", "rtt_p99_us", "net_p50_us", "resp_p50_us")
def us(v):
    return None if v is None else int("%.0f" % v)

# JSON: the keys of rocetop probe --json, in its order
line = json.loads(open(d + "/batch.jsonl").read())
keys = ["peer", "addr", "path", "flow_label", "udp_sport", "size", "sent", "answered", "lost",
        "rtt_p50_us", "rtt_p99_us", "net_p50_us", "resp_p50_us", "clock", "finding"]
got = line.get("probes")
if not isinstance(got, list) or len(got) != 3:
    bad.append("json: probes is %r" % (got,))
else:
    for r, g in zip(rows, got):
        if list(g) != keys:
            bad.append("json keys %s" % list(g))
        want = {k: (us(r[k]) if k in TIMES else r[k]) for k in keys}
        if g != want:
            bad.append("json row %r != %r" % (g, want))

# CSV: the header, then the rows with empty cells for no sample
with open(d + "/probes.csv", newline="", encoding="utf-8", errors="surrogateescape") as f:
    recs = list(csv.reader(f))
hdr = "time,peer,flow_label,udp_sport,size,sent,lost,rtt_p50_us,rtt_p99_us,net_p50_us,resp_p50_us,clock,answered,finding".split(",")
if recs[0] != hdr:
    bad.append("csv header %r" % recs[0])
if len(recs) != 7:
    bad.append("csv: %d records, expected a header and 6 rows" % len(recs))
for i, rec in enumerate(recs[1:]):
    r = rows[i % 3]
    t = "1700000001.000000" if i < 3 else "1700000002.500000"
    peer = r["peer"] if i % 3 != 2 else "na\xefve\udcff"
    want = [t, peer, str(r["flow_label"]), str(r["udp_sport"]), str(r["size"]), str(r["sent"]),
            str(r["lost"])] + ["" if r[k] is None else str(us(r[k])) for k in TIMES] + \
           [r["clock"], str(r["answered"]), r["finding"] or ""]
    if rec != want:
        bad.append("csv row %d %r != %r" % (i, rec, want))

# Prometheus: each row's counters and gauges, parsed from the text format
lab = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')
series = {}
for l in open(d + "/probes.prom", encoding="utf-8"):
    if l.startswith("#") or not l.startswith("rocetop_probe"):
        continue
    name_labels, value = l.rsplit(" ", 1)
    name, _, ls = name_labels.partition("{")
    labels = {k: v.replace('\\"', '"').replace("\\\\", "\\") for k, v in lab.findall(ls)}
    series[(name, labels.get("peer"), labels.get("finding"))] = (labels, float(value))
for r in rows:
    peer = r["peer"].replace("\ufffd", "?")
    want_labels = dict(peer=peer, addr=r["addr"], path=str(r["path"]), flow_label=str(r["flow_label"]),
                       udp_sport=str(r["udp_sport"]), size=str(r["size"]), clock=r["clock"])
    for fam, key in (("sent", "sent_total"), ("answered", "answered_total"), ("lost", "lost_total")):
        s = series.get(("rocetop_probe_%s_total" % fam, peer, None))
        if not s or s[0] != want_labels or s[1] != r[key]:
            bad.append("prom %s of %s: %r" % (fam, peer, s))
    for fam, key in (("rtt_p50", "rtt_p50_us"), ("rtt_p99", "rtt_p99_us"), ("net_p50", "net_p50_us"),
                     ("resp_p50", "resp_p50_us"), ("net_base", "base")):
        s = series.get(("rocetop_probe_%s_seconds" % fam, peer, None))
        v = r[key] if r[key] else None
        if v is None and s is not None or v is not None and (not s or abs(s[1] - v / 1e6) > 1e-15):
            bad.append("prom %s of %s: %r, expected %r s" % (fam, peer, s, v and v / 1e6))
    s = series.get(("rocetop_probe_finding", peer, r["finding"]))
    if (s is None) != (r["finding"] is None):
        bad.append("prom finding of %s: %r" % (peer, s))
print("\n".join(bad))
PY
)
[ -z "$out" ] && pass "python's json, csv and a reading of the exposition give back the three rows" ||
	fail parse "$out"
[ $fails -eq 0 ]
