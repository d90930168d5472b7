#!/usr/bin/env bash
# Files and the persistent flow table (user/core/snapshot.h): churn over many
# intervals (flows appearing and going idle every interval) with exact totals,
# --flow-timeout in capture time keeping the table to the flows alive, a file
# with more flows than the kernel's default table counted whole, and a
# --max-flows the user gave named with the frames it cost. The oracle is the
# generator's own tally (tests/offline/churn.py).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_setup churn

# 120 intervals, 50 new flows each, 3 intervals of life, forgotten after 5 s idle.
$PY tests/offline/churn.py churn "$T/churn.pcap" "$T/churn.json" 120 50 3 5 || { fail churn "the generator failed"; exit 1; }
if "$ROCETOP" -r "$T/churn.pcap" -b --top 0 -d 1 --flow-timeout 5 --csv "$T/c" >"$T/c.out" 2>"$T/c.err"; then
	out=$($PY - "$T/churn.json" "$T/c/flows.csv" "$T/c/stats.csv" "$T/c.out" <<'PY'
import csv, json, re, sys
t = json.load(open(sys.argv[1]))
got = {}
for r in csv.DictReader(open(sys.argv[2])):
    g = got.setdefault(r["dqpn"], [0, 0])
    g[0] += int(r["pkts"]); g[1] += int(r["bytes"])
bad = []
if got != t["flows"]:
    miss = [k for k in t["flows"] if got.get(k) != t["flows"][k]][:3]
    bad.append("per-flow totals differ for %d flows, e.g. %s: %s want %s" % (
        sum(1 for k in t["flows"] if got.get(k) != t["flows"][k]) + len(set(got) - set(t["flows"])),
        miss, [got.get(k) for k in miss], [t["flows"][k] for k in miss]))
ev = sum(int(r["evicted"]) for r in csv.DictReader(open(sys.argv[3])))
if ev != t["evicted"]:
    bad.append("stats.csv evicted %d, want %d" % (ev, t["evicted"]))
tab = [int(m) for m in re.findall(r"flows (\d+)  evicted \d+", open(sys.argv[4]).read())]
if tab != t["table"]:
    bad.append("rows in the table per interval %s..., want %s..." % (tab[:12], t["table"][:12]))
print("; ".join(bad))
PY
)
	[ -z "$out" ] && pass "churn: $(grep -c . "$T/c/flows.csv") CSV rows hold the tally's packets and bytes for each of $($PY -c "import json; print(len(json.load(open('$T/churn.json'))['flows']))" ) flows; the table holds the flows alive (at most $($PY -c "import json; print(max(json.load(open('$T/churn.json'))['table']))")), evictions as the tally says" || fail churn "$out"
else
	fail churn "rocetop failed: $(head -3 "$T/c.err")"
fi

# 20000 flows: more than the kernel table's default 16384; a file keeps them all.
$PY tests/offline/churn.py many "$T/many.pcap" "$T/many.json" 20000 1000 || { fail many "the generator failed"; exit 1; }
read -r nflows frames lost < <($PY -c "import json; t = json.load(open('$T/many.json')); print(t['flows'], t['frames'], t['lost_frames'])")
if "$ROCETOP" -r "$T/many.pcap" -D -q --csv "$T/m" 2>"$T/m.err"; then
	got=$(awk -F, 'NR > 1 {f[$6] = 1; p += $7} END {print length(f), p}' "$T/m/flows.csv")
	full=$(awk -F, 'NR > 1 {s += $12} END {print s + 0}' "$T/m/stats.csv")
	if [ "$got" = "$nflows $frames" ] && [ "$full" = 0 ] && [ ! -s "$T/m.err" ]; then
		pass "many_flows: all $nflows flows and $frames frames of the file counted, no table_full, nothing on stderr"
	else
		fail many_flows "flows, frames: $got (want $nflows $frames); table_full $full; stderr: $(head -2 "$T/m.err")"
	fi
else
	fail many_flows "rocetop failed: $(head -3 "$T/m.err")"
fi

# --max-flows 1000 given: the frames of the other flows are named, exit 0.
if "$ROCETOP" -r "$T/many.pcap" -D -q --max-flows 1000 --csv "$T/b" 2>"$T/b.err"; then
	full=$(awk -F, 'NR > 1 {s += $12} END {print s + 0}' "$T/b/stats.csv")
	nf=$(awk -F, 'NR > 1 {f[$6] = 1} END {print length(f)}' "$T/b/flows.csv")
	nmsg=$(grep -c . "$T/b.err")
	if [ "$full" = "$lost" ] && [ "$nf" = 1000 ] && [ "$nmsg" = 1 ] &&
	   grep -q ": $lost RoCE frames of flows beyond --max-flows 1000 were not counted per flow" "$T/b.err"; then
		pass "max_flows: 1000 flows kept, the other flows' $lost frames in table_full and named once on stderr; exit 0"
	else
		fail max_flows "table_full $full (want $lost), flows $nf (want 1000), stderr ($nmsg lines): $(head -2 "$T/b.err")"
	fi
else
	fail max_flows "rocetop exited non-zero: $(head -3 "$T/b.err")"
fi
# ... and the report says so.
if "$ROCETOP" report "$T/many.pcap" --max-flows 1000 >"$T/r.out" 2>"$T/r.err"; then
	if grep -q "table full $lost;" "$T/r.out" && grep -q "$lost RoCE frames of flows beyond --max-flows 1000" "$T/r.out" "$T/r.err"; then
		pass "max_flows_report: the report names the $lost frames lost to --max-flows 1000"
	else
		fail max_flows_report "$(grep -i 'table full\|max-flows' "$T/r.out" "$T/r.err" | head -3)"
	fi
else
	fail max_flows_report "rocetop report failed: $(head -3 "$T/r.err")"
fi
[ $fails -eq 0 ]
