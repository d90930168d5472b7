#!/usr/bin/env bash
# The probe mesh's rows in a recording, read back by rocetop report: a
# recording written through the -w sink by test_record --probes (its
# comment gives the rows: 6 intervals, peer node-b's 64- and 1024-byte
# probes on path 0, the 1024-byte ones losing 4 of 10 in intervals 2 and 3;
# a peer named as markup whose responder stalls in interval 4). report
# --json's probes section is checked against sums and medians worked out
# here from those values; its episodes (path-loss naming the size,
# host-stall) and the congestion finding's sentence on the probes to its
# peer; the text names the peer as text; a recording from before the probe
# struct has no probes section.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
PY=${PYTHON:-/usr/bin/python3}
fails=0
fail() { echo "FAIL rec_probes $1"; fails=$((fails + 1)); }
pass() { echo "PASS rec_probes $1"; }
rt_tmpdir tmp
rec=$tmp/probes.rtr
"$BUILD/tests/test_record" --probes "$rec" || { fail "test_record --probes could not write $rec"; exit 1; }
"$ROCETOP" report --json "$rec" >"$tmp/r.json" 2>"$tmp/r.err" || fail "report --json exited $?: $(head -2 "$tmp/r.err")"
out=$("$PY" - "$tmp/r.json" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
p = d["probes"]
evil = "<img src=x onerror=alert(1)>\"'&"
want = [  # peer, addr, path, size, sent, lost, rtt, net, resp, judged
    ("node-b", "10.0.0.2", 0, 64, 60, 0, statistics.median(50 + i for i in range(6)),
     statistics.median(38 + i for i in range(6)), 12, {}),
    ("node-b", "10.0.0.2", 0, 1024, 60, 2 * 4, 60, 40, 12, {"path-loss": 2}),
    (evil, "10.0.0.3", 1, 64, 60, 0, statistics.median([40] * 5 + [41040]), 30,
     statistics.median([10] * 5 + [41000]), {"host-stall": 1}),
]
bad = []
if len(p["rows"]) != 3 or p["rows_left"] != 0:
    bad.append("rows %d, left %d" % (len(p["rows"]), p["rows_left"]))
for r, w in zip(p["rows"], want):
    got = (r["peer"], r["addr"], r["path"], r["size"], r["sent"], r["lost"], r["rtt_p50_us"], r["net_p50_us"],
           r["resp_p50_us"], r["intervals_judged"])
    if got != w:
        bad.append("row %r != %r" % (got, w))
    if r["flow_label"] != 0x100 + w[2] or r["udp_sport"] != 49152 + w[2] or r["clock"] != "system":
        bad.append("path fields %r" % r)
    if abs(r["loss_pct"] - 100.0 * w[5] / w[4]) > 1e-9 or r["answered"] != w[4] - w[5] or r["intervals"] != 6:
        bad.append("loss %r" % r)
eps = [(e["rule"], e["start"], e["end"]) for e in p["episodes"]]
t0 = 1700000000
if eps != [("path-loss", t0 + 1, t0 + 3), ("host-stall", t0 + 3, t0 + 4)]:
    bad.append("episodes %r" % eps)
pl = p["episodes"][0] if p["episodes"] else {}
if not pl.get("evidence", "").startswith("only the 1024-byte probes die (4 of 10 probes lost (40.0%) in the last 5 "
                                         "intervals), the 64-byte ones on the same path lose none; peer node-b "
                                         "(10.0.0.2) path 0, flow label 0x00100, UDP sport 49152"):
    bad.append("path-loss evidence %r" % pl.get("evidence"))
if pl.get("subject") != {"dst": "10.0.0.2", "peer": "node-b", "path": 0, "flow_label": 256}:
    bad.append("path-loss subject %r" % pl.get("subject"))
hs = [f for f in d["findings"] if f["rule"] == "host-stall"]
if len(hs) != 1 or hs[0]["subject"].get("peer") != evil:
    bad.append("host-stall finding %r" % hs)
cg = [f for f in d["findings"] if f["rule"] == "congestion"]
if len(cg) != 1 or "; probes to 10.0.0.2: network p50 40.0 us (usual 37.0 us), responder 12.0 us, 0 of 20 lost: " \
        "neither the path nor the peer host" not in cg[0]["evidence"]:
    bad.append("congestion evidence %r" % [f["evidence"] for f in cg])
print("\n".join(bad) if bad else "ok")
PY
)
[ "$out" = ok ] && pass "report --json: 3 rows' sums and medians, the path-loss and host-stall episodes, the congestion finding's probes" ||
	fail "report --json: $out"
"$ROCETOP" report "$rec" >"$tmp/r.txt" 2>&1 || fail "report exited $?"
if grep -q '^Probes (per peer, path and size' "$tmp/r.txt" &&
	grep -Eq '^  node-b +10\.0\.0\.2 +0 0x00100 49152  1024 +60 +8 +13\.33% +60\.0 us +40\.0 us +12\.0 us system path-loss x2$' "$tmp/r.txt"; then
	pass "report: the probes section's rows as text"
else fail "report text: $(grep -A4 '^Probes' "$tmp/r.txt")"; fi
# Perfetto: a counter per peer of its network p50 and of its lost probes,
# each interval's value from its start (the interval before's end), 0 at the end.
"$ROCETOP" report "$rec" --perfetto "$tmp/t.json" >/dev/null 2>"$tmp/t.err" || fail "report --perfetto exited $?: $(head -2 "$tmp/t.err")"
out=$("$PY" - "$tmp/t.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
tr = {}
for e in d["traceEvents"]:
    if e.get("ph") == "C" and e["name"].startswith(("probe network p50 us: ", "probes lost: ")):
        tr.setdefault(e["name"], []).append((round(e["ts"] / 1e6), e["args"]["value"]))
t0 = 1700000000
ts = [t0 - 1 + i for i in range(7)]
evil = "<img src=x onerror=alert(1)>\"'&"
want = {
    "probe network p50 us: node-b (10.0.0.2)": list(zip(ts, [max(38 + i, 40) for i in range(6)] + [0])),
    "probes lost: node-b (10.0.0.2)": list(zip(ts, [0, 0, 4, 4, 0, 0, 0])),
    "probe network p50 us: %s (10.0.0.3)" % evil: list(zip(ts, [30] * 6 + [0])),
    "probes lost: %s (10.0.0.3)" % evil: list(zip(ts, [0] * 7)),
}
print("ok" if tr == want else "got %r" % tr)
PY
)
[ "$out" = ok ] && pass "report --perfetto: each peer's network p50 and lost probes per interval" ||
	fail "report --perfetto: $out"
old=tests/fixtures/rec/main-e7a5c90-rtoldy-10G.rtr
"$ROCETOP" report --json "$old" >"$tmp/old.json" 2>/dev/null || fail "the old recording's report exited $?"
"$PY" -c 'import json,sys; sys.exit("probes" in json.load(open(sys.argv[1])))' "$tmp/old.json" &&
	pass "a recording from before the probe struct: a report without a probes section" ||
	fail "the old recording's report has a probes section"
[ $fails -eq 0 ]
