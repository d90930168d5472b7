#!/usr/bin/env bash
# Findings are episodes: a 10-minute capture (written by episodes.py from a
# schedule, read with -r in about a second) holds 7 steady PFC storms and 8
# host pairs with sequence NAKs, each easing for 3-4 s now and then. The
# schedule is the oracle: each condition is one episode (it was about 23
# before: closed after 2 quiet intervals), opened and closed once in
# findings.csv, printed by --batch only when it opens and closes, and the
# report ranks the 15 (severity, then length), shows 10 and "and 5 more",
# each starting and ending where the schedule says (within 1 s).
# And rocetop-gen's pfc-storm scenario for 17 s: its storms (tally
# model_pfc_storms 2; planned in cycles of 10 s, paused from 15% to 60% of
# each: 1.5-6 s and 11.5-16 s) are 5.5 s apart, less than the quiet period,
# so one pfc-storm episode from 1.5 s to 16 s (it was two), naming the
# senders of priority 3 the tally lists as the flows involved.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_tmpdir T
E=tests/findings/episodes.py
fails=0
ok() { if [ -z "$2" ]; then echo "PASS episodes_$1: $3"; else echo "FAIL episodes_$1: $2"; fails=$((fails + 1)); fi; }

"$PY" "$E" gen "$T" || { echo "FAIL episodes: episodes.py could not write the capture"; exit 1; }
S=(--link-speed 1G)

"$ROCETOP" -r "$T/ep.pcap" --csv "$T/csv" -D -q "${S[@]}" 2>"$T/err" || ok csv "rocetop -r --csv exited $?: $(head -2 "$T/err")"
ok csv "$("$PY" "$E" csv "$T/want.json" "$T/csv/findings.csv" 2>&1)" \
	"findings.csv: 15 conditions, each opened once and closed once"

"$ROCETOP" -r "$T/ep.pcap" --batch -q "${S[@]}" >"$T/batch.txt" 2>"$T/err" || ok batch "rocetop -r --batch exited $?: $(head -2 "$T/err")"
ok batch "$("$PY" "$E" batch "$T/want.json" "$T/batch.txt" 2>&1)" \
	"--batch prints each condition when it opens and when it closes, not every interval"

"$ROCETOP" report "$T/ep.pcap" --json "${S[@]}" >"$T/r.json" 2>"$T/err" || ok report "report --json exited $?: $(head -2 "$T/err")"
ok report_json "$("$PY" "$E" report "$T/want.json" "$T/r.json" 2>&1)" \
	"report --json: the 10 first episodes ranked as the schedule says, findings_more 5, times within 1 s"

"$ROCETOP" report "$T/ep.pcap" "${S[@]}" >"$T/r.txt" 2>"$T/err"
shown=$(grep -cE '^  [0-9-]+ [0-9:.]+ UTC \.\. ' "$T/r.txt")
if grep -q '^Findings (15), most severe first, then the longest' "$T/r.txt" && [ "$shown" = 10 ] &&
   grep -q '^  and 5 more$' "$T/r.txt"; then
	ok report_text "" "the text report shows 10 of the 15 episodes and 'and 5 more'"
else
	ok report_text "$(grep -m1 '^Findings' "$T/r.txt"), $shown shown, $(grep -c 'and 5 more' "$T/r.txt") 'and 5 more'" ""
fi
"$GEN" --scenario pfc-storm --duration 17 --rate 2000 --pcap "$T/g.pcap" --tally "$T/tally" -q ||
	ok gen "rocetop-gen exited $?" ""
"$ROCETOP" report "$T/g.pcap" --json --link-speed 25G >"$T/g.json" 2>"$T/err" || ok gen "report exited $?: $(head -2 "$T/err")" ""
ok gen "$("$PY" - "$T/g.pcap" "$T/tally/summary.txt" "$T/g.json" <<'PYEOF'
import json, struct, sys
with open(sys.argv[1], "rb") as f:      # the first frame's time, from the pcap's bytes
    f.read(24)
    s, us = struct.unpack("<II", f.read(8))
t0 = s + us / 1e6
tally = dict(l.split(None, 1) for l in open(sys.argv[2]) if " " in l)
storms = [f for f in json.load(open(sys.argv[3]))["findings"] if f["rule"] == "pfc-storm"]
got = [(round(f["start"] - t0, 1), round(f["end"] - t0, 1)) for f in storms]
if int(tally["model_pfc_storms"]) != 2 or len(got) != 1 or abs(got[0][0] - 1.5) > 1 or abs(got[0][1] - 16) > 1:
    print("tally %s storms; pfc-storm episodes %s, expected one 1.5..16 s" % (tally["model_pfc_storms"].strip(), got))
# the flows involved: the tally's senders on the storm's priority 3
want = sorted("%s -> 10.77.0.2 QP %s" % (w[1], w[6]) for w in (l.split() for l in open(sys.argv[2]))
              if w and w[0] == "sender" and w[8] == "3")
inv = sorted(storms[0].get("involved", "").split("; ")) if storms else []
if not want or inv != want:
    print("involved %s, the tally's senders on priority 3 %s" % (inv, want))
PYEOF
)" "rocetop-gen's two storms 5.5 s apart are one pfc-storm episode, 1.5 s to 16 s, its flows the tally's"
exit $((fails > 0))
