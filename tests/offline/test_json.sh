#!/usr/bin/env bash
# --batch --json: one JSON object per interval (python3 -m json.tool reads
# each line) whose flows, totals, PFC rows and frame counts equal the CSV of
# the same run, interval by interval, and whose flows add up to tshark's count
# of the capture; --top cuts the flows and says how many more there were; the
# text of --batch alone is unchanged; --json alone means --batch --json.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_checks json "json "
command -v tshark >/dev/null || { echo "SKIP json: tshark is not installed"; exit 0; }

# Three seconds of the mixed scenario (CE, CNPs, NAKs, PFC) as a capture.
"$GEN" --scenario mixed --duration 3 --rate 3000 --pcap "$T/cap.pcap" -q 2>"$T/gen.err" ||
	{ fail gen "$(cat "$T/gen.err")"; exit 1; }
roce=$(tshark -r "$T/cap.pcap" -Y 'udp.dstport == 4791' 2>/dev/null | wc -l)
ce=$(tshark -r "$T/cap.pcap" -Y 'udp.dstport == 4791 && ip.dsfield.ecn == 3' 2>/dev/null | wc -l)
cnp=$(tshark -r "$T/cap.pcap" -Y 'infiniband.bth.opcode == 129' 2>/dev/null | wc -l)

if "$ROCETOP" -r "$T/cap.pcap" --batch --json --top 0 -d 0.5 --csv "$T/csv" >"$T/all.jsonl" 2>"$T/all.err"; then
	n=$(wc -l <"$T/all.jsonl") ok=0
	while IFS= read -r line; do
		printf '%s\n' "$line" | $PY -m json.tool >/dev/null 2>&1 && ok=$((ok + 1))
	done <"$T/all.jsonl"
	[ "$n" -ge 6 ] && [ "$ok" = "$n" ] && pass "python3 -m json.tool reads each of the $n lines" ||
		fail lines "$ok of $n lines are JSON"
	out=$($PY tests/offline/check_json.py "$T/all.jsonl" "$T/csv" "$roce" "$ce" "$cnp" 0)
	[ -z "$out" ] && pass "every interval's flows, totals, PFC and frames equal the CSV; $roce pkts, $ce CE, $cnp CNPs as tshark" ||
		fail csv "$out"
else
	fail run "$(cat "$T/all.err")"
fi

if "$ROCETOP" -r "$T/cap.pcap" --batch --json --top 2 -d 0.5 --csv "$T/csv2" >"$T/top.jsonl" 2>"$T/top.err"; then
	out=$($PY tests/offline/check_json.py "$T/top.jsonl" "$T/csv2" "$roce" "$ce" "$cnp" 2)
	[ -z "$out" ] && pass "--top 2: two flows per line, flows_more counts the rest" || fail top "$out"
else
	fail top "$(cat "$T/top.err")"
fi

# Every key the lines hold is in the man page's JSON LINES list.
missing=$($PY - "$T/all.jsonl" man/rocetop.8 <<'PY'
import json, re, sys
sec = open(sys.argv[2]).read().split(".SH JSON LINES", 1)[1].split("\n.SH ", 1)[0]
words = set(re.findall(r"[a-z][a-z0-9_]*", sec.replace("\\-", "-")))
keys = set()
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            keys.add(k); walk(x)
    elif isinstance(v, list):
        for x in v: walk(x)
for line in open(sys.argv[1]): walk(json.loads(line))
print(" ".join(sorted(keys - words)))
PY
)
[ -z "$missing" ] && pass "every key of the lines is listed in rocetop(8) JSON LINES" || fail man "not in the man page: $missing"

# The text of --batch is what it was: no JSON in it, the same tables.
"$ROCETOP" -r "$T/cap.pcap" --batch --top 0 -d 0.5 >"$T/text" 2>&1
if [ "$(grep -c '^rocetop ' "$T/text")" = "$(wc -l <"$T/all.jsonl")" ] && ! grep -q '^{' "$T/text"; then
	pass "--batch without --json prints the text tables, one per interval"
else
	fail text "$(head -3 "$T/text")"
fi

# --json alone is --batch --json; a bad --top still gets one sentence.
"$ROCETOP" -r "$T/cap.pcap" --json --top 0 -d 0.5 >"$T/alone.jsonl" 2>/dev/null
cmp -s "$T/alone.jsonl" "$T/all.jsonl" && pass "--json alone writes the same lines as --batch --json" ||
	fail alone "--json alone differs from --batch --json"
"$ROCETOP" -r "$T/cap.pcap" --json --top x >/dev/null 2>"$T/bad.err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/bad.err")" = 1 ] && pass "a bad --top with --json: exit 2, '$(cat "$T/bad.err")'" ||
	fail refuse "exit $rc: $(cat "$T/bad.err")"
[ $fails -eq 0 ]
