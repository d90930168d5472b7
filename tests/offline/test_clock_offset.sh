#!/usr/bin/env bash
# The multi-host report puts every host on the first host's clock. One
# capture of RoCEv2 traffic (rocetop-gen) is given as several hosts' captures
# whose clocks editcap (Wireshark's, an independent tool) moved by known
# amounts: the report must find those amounts from the flows the hosts share
# (to the captures' microsecond timestamps), say them in text, JSON, the
# HTML page and the Perfetto trace, and line the hosts' timelines up. A
# host that shares no flow is "not estimated", and CNPs are matched to
# another host's data flow only when both were active at about one time.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_checks clock_offset "clock_offset: "

for t in editcap tshark; do
	command -v $t >/dev/null || { echo "FAIL clock_offset: $t is not installed (make deps)"; exit 1; }
done
"$GEN" --scenario mixed --duration 3 --rate 3000 --pcap "$T/A.pcap" -q 2>"$T/gen.err" ||
	{ echo "FAIL clock_offset: rocetop-gen: $(cat "$T/gen.err")"; exit 1; }
editcap -t 2.5 "$T/A.pcap" "$T/B.pcap" && editcap -t -0.75 "$T/A.pcap" "$T/C.pcap" ||
	{ echo "FAIL clock_offset: editcap failed"; exit 1; }
# the incast's data (its senders' flows last the whole run) in the first
# second only, a minute later: shorter than those flows of A (so not one of
# them), and never active when A's CNPs were; the control E is the same
# second at its own time
tshark -r "$T/A.pcap" -F pcap -w "$T/E.pcap" \
	-Y 'ip.dst == 10.77.0.2 && ip.src in {10.77.0.11, 10.77.0.12, 10.77.0.13, 10.77.0.14} && frame.time_relative < 1' \
	2>/dev/null &&
	editcap -t 60 "$T/E.pcap" "$T/D.pcap" || { echo "FAIL clock_offset: tshark/editcap failed"; exit 1; }

# what tshark sees: the flows (source, destination, QP) and each file's first frame
tshark -r "$T/A.pcap" -Y infiniband -T fields -e ip.src -e ip.dst -e infiniband.bth.destqp 2>/dev/null |
	sort -u >"$T/flows"
first() { tshark -r "$1" -c 1 -T fields -e frame.time_epoch 2>/dev/null; }
nflows=$(wc -l <"$T/flows")
shiftB=$($PY -c "print(round(float('$(first "$T/B.pcap")') - float('$(first "$T/A.pcap")'), 6))")
shiftC=$($PY -c "print(round(float('$(first "$T/C.pcap")') - float('$(first "$T/A.pcap")'), 6))")
echo "INFO clock_offset: tshark: $nflows flows; B's first frame $shiftB s after A's, C's $shiftC s"

rep() {
	local out=$1
	shift
	"$ROCETOP" report "$@" >"$out" 2>"$out.err" || { fail "report $*" "$(tail -1 "$out.err")"; return 1; }
}
rep "$T/abc.txt" "$T/A.pcap" "$T/B.pcap" "$T/C.pcap"
rep "$T/abc.json" "$T/A.pcap" "$T/B.pcap" "$T/C.pcap" --json
rep "$T/a.json" "$T/A.pcap" --json
rep "$T/b.json" "$T/B.pcap" --json
rep "$T/viz.txt" "$T/A.pcap" "$T/B.pcap" --html "$T/ab.html" --perfetto "$T/ab.trace"
rep "$T/ab.json" "$T/A.pcap" "$T/B.pcap" --json
rep "$T/ad.txt" "$T/A.pcap" "$T/D.pcap"
rep "$T/ad.json" "$T/A.pcap" "$T/D.pcap" --json
rep "$T/ae.json" "$T/A.pcap" "$T/E.pcap" --json

# text: the line per host, as tshark's shift, on every shared flow
for h in B:$shiftB C:$shiftC; do
	want=$($PY -c "print('clock offset of [%s.pcap]: %+.3f s from $nflows shared flows' % ('${h%%:*}', float('${h#*:}')))")
	grep -qF "$want" "$T/abc.txt" && pass "text: $want" || fail "text" "no '$want' in: $(grep 'clock offset' "$T/abc.txt")"
done

$PY - "$T" "$nflows" "$shiftB" "$shiftC" <<'PY'
import json, re, sys
T, nflows, sb, sc = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
fails = 0
def ok(cond, what, got=""):
    global fails
    print(("PASS" if cond else "FAIL") + " clock_offset: " + what + ("" if cond else ": got %s" % got))
    fails += not cond
J = lambda n: json.load(open("%s/%s.json" % (T, n)))
abc, a, b, ab = J("abc"), J("a"), J("b"), J("ab")
co = {c["host"]: c for c in abc["clock_offsets"]}
# the captures' timestamps are microseconds: the offset to 1 us
for h, want in (("A.pcap", 0.0), ("B.pcap", sb), ("C.pcap", sc)):
    c = co.get(h, {})
    ok(c.get("estimated") and abs(c.get("offset_s", 1e9) - want) <= 1e-6 and
       (h == "A.pcap" or (c.get("applied") and c.get("flows") == nflows)),
       "JSON clock_offsets: %s %+.6f s from %d flows" % (h, want, nflows), c)
# alone, B starts 2.5 s after A; on one timeline, with A
ok(abs(b["start"] - a["start"] - sb) <= 1e-6, "B's own report starts %.6f s after A's" % sb, b["start"] - a["start"])
st = [f["start"] for f in abc["files"]] + [f["end"] for f in abc["files"]]
ok(max(st[:3]) - min(st[:3]) <= 1e-6 and max(st[3:]) - min(st[3:]) <= 1e-6,
   "the three hosts' files start and end at one time on A's clock", st)
# the same storm (every finding) at the same reference time on every host
by = {}
for f in abc["findings"]:
    by.setdefault(f["host"], []).append((f["rule"], round(f["start"], 6), round(f["end"], 6)))
fa = sorted(by.get("A.pcap", []))
ok(fa and all(sorted(by.get(h, [])) == fa for h in ("B.pcap", "C.pcap")),
   "each of A's %d findings (%s) at the same times on B and C" % (len(fa), ", ".join(sorted(set(r for r, _, _ in fa)))),
   {h: sorted(v)[:2] for h, v in by.items()})
ok(abc.get("cnp_window_s") == 1.0 and len(abc.get("cnp_matches", [])) >= 4,
   "the CNP window (1 s) stated; CNPs matched across hosts (%d)" % len(abc.get("cnp_matches", [])))
# HTML: the sentence's data; the trace: otherData, process labels, episodes lined up
html = open(T + "/ab.html").read()
m = re.search(r'<script type="application/json" id="rt-data">(.*?)</script>', html, re.S)
d = json.loads(m.group(1)) if m else {"hosts": []}
want = "%+.3f s against A.pcap from %d shared flows (applied)" % (sb, nflows)
ok([h.get("clock") for h in d["hosts"]] == ["the reference", want], "HTML: B's clock '%s'" % want,
   [h.get("clock") for h in d["hosts"]])
ok(d["hosts"] and d["hosts"][0]["t"] == d["hosts"][1]["t"], "HTML: the two hosts' points at the same times")
ok("not estimated; 0 s applied" not in html, "HTML: no 'not estimated' sentence left")
tr = json.load(open(T + "/ab.trace"))
oc = {c["host"]: c for c in tr["otherData"]["clock_offsets"]}
ok(abs(oc["B.pcap"]["offset_s"] - sb) <= 1e-6 and oc["B.pcap"]["flows"] == nflows,
   "trace otherData clock_offsets: B %+.6f s" % sb, oc)
lab = [e["args"]["labels"] for e in tr["traceEvents"] if e.get("name") == "process_labels"]
ok(lab == ["clock: the reference", "clock: " + want], "trace: each process labelled with its clock", lab)
ev = {1: [], 2: []}
for e in tr["traceEvents"]:
    if e.get("ph") in ("X", "C") and e.get("cat") != "cnp":
        # names and evidence name the host's interface (its file): A's for both
        ev[e["pid"]].append((e["ph"], e["name"].replace("B.pcap", "A.pcap"), e["ts"], e.get("dur"),
                             json.dumps(e.get("args"), sort_keys=True).replace("B.pcap", "A.pcap")))
ok(ev[1] and sorted(ev[1]) == sorted(ev[2]), "trace: %d counter and episode events of A at the same times on B" % len(ev[1]))
# no shared flow: D not estimated, and A's CNPs not matched to data a minute away
ad, ae = J("ad"), J("ae")
cd = ad["clock_offsets"][1]
ok(not cd["estimated"] and cd["why"] == "no flow shared with another host" and cd["offset_s"] == 0,
   "D (no flow shared): not estimated, 0 applied", cd)
ok(not [m for m in ad["cnp_matches"] if m["cnp_host"] == "A.pcap"],
   "A's CNPs not matched to D's data flows 60 s later", len(ad["cnp_matches"]))
ok(len([m for m in ae["cnp_matches"] if m["cnp_host"] == "A.pcap"]) == 4 and not ae["clock_offsets"][1]["estimated"],
   "control: the same data at its own time (E) is matched to A's 4 CNP flows", len(ae["cnp_matches"]))
sys.exit(1 if fails else 0)
PY
[ $? -eq 0 ] || fails=$((fails + 1))
grep -q "not estimated: no flow shared with another host" "$T/ad.txt" &&
	pass "text: D not estimated: no flow shared with another host" ||
	fail "text" "$(grep 'clock offset' "$T/ad.txt")"

# the page in a browser with no network (tests/report_html/check_html.py):
# its clock sentence, numbers, episodes and charts as report --json says.
# Its episode click needs an episode shorter than half the capture, which a
# 3-s capture may not have: that check alone is not this test's.
unshare -n sh -c 'ip link set lo up && exec "$@"' sh "$PY" tests/report_html/check_html.py clock-ab \
	"$T/ab.html" "$T/ab.json" >"$T/browse.out" 2>&1
bad=$(grep -v '^PASS' "$T/browse.out" | grep -v 'FAIL clock-ab: no episode shorter than the recording to click$')
if [ -z "$bad" ] && grep -q "PASS clock-ab: the page states each host's clock offset" "$T/browse.out"; then
	pass "the HTML page in a browser ($(grep -c PASS "$T/browse.out") checks)"
	grep "clock offset" "$T/browse.out"
else
	fail "the HTML page in a browser" "$(echo "$bad" | head -5)"
fi

# recordings carry their host's name: the same with -w ... --hostname; a
# second recording of hosta (another recording id) is on hosta's clock
"$ROCETOP" -r "$T/A.pcap" -w "$T/A.rtr" --hostname hosta -D -q 2>/dev/null &&
	"$ROCETOP" -r "$T/B.pcap" -w "$T/B.rtr" --hostname hostb -D -q 2>/dev/null &&
	"$ROCETOP" -r "$T/A.pcap" -w "$T/A2.rtr" --hostname hosta -D -q 2>/dev/null &&
	rep "$T/rec.txt" "$T/A.rtr" "$T/B.rtr" &&
	want=$($PY -c "print('clock offset of [hostb]: %+.3f s from $nflows shared flows with [hosta]' % $shiftB)") &&
	grep -qF "$want" "$T/rec.txt" && pass "recordings: $want" ||
	fail "recordings" "$(grep 'clock offset' "$T/rec.txt" 2>/dev/null)"
if rep "$T/rec2.json" "$T/B.rtr" "$T/A.rtr" "$T/A2.rtr" --json; then
	got=$($PY -c "import json,sys; print(' '.join('%s:%+.6f:%s' % (c['host'], c['offset_s'], c.get('same_host_as', '-'))
		for c in json.load(open(sys.argv[1]))['clock_offsets']))" "$T/rec2.json")
	want=$($PY -c "print('hostb:+0.000000:- hosta:%+.6f:- A2.rtr:%+.6f:hosta' % (-$shiftB, -$shiftB))")
	[ "$got" = "$want" ] && pass "recordings: hosta's second recording on hosta's clock ($got)" ||
		fail "recordings" "got $got, want $want"
fi

[ "$fails" -eq 0 ]
