#!/usr/bin/env bash
# Findings are episodes: a 10-minute capture (written by episodes.py from a
# schedule, read with -r in about a second) holds 7 steady PFC storms and 8
# host pairs with sequence NAKs, each easing for 3-4 s now and then. The
# schedule is the oracle: each condition is one episode (it was about 23
# before: closed after 2 quiet intervals), opened and closed once in
# findings.csv, printed by --batch only when it opens and closes, and the
# report ranks the 15 (severity, then length), shows 10 and "and 5 more",
# each starting and ending where the schedule says (within 1 s).
# And rocetop-gen's pfc-storm scenario for 20 s at 25G (its pauses cover about
# 27% of the time: pfc-share=10% leaves room for a busy machine): its two storms (tally
# model_pfc_storms 2; planned in cycles of 10 s, paused from 15% to 60% of
# each; their times read from its PFC frames in the pcap) are about 5.5 s
# apart, less than the quiet period, so one pfc-storm episode from the
# first's start to the second's end (it was two), naming the senders of
# priority 3 the tally lists as the flows involved.
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

"$ROCETOP" report "$T/ep.pcap" --json --episodes 0 "${S[@]}" >"$T/all.json" 2>"$T/err"
ok report_all "$("$PY" - "$T/want.json" "$T/all.json" 2>&1 <<'PYEOF'
import json, sys
want, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
got = [(f["rule"], f["subject"].get("prio", f["subject"].get("dst"))) for f in r["findings"]]
exp = [(w["rule"], w.get("prio", w.get("dst"))) for w in want]
if got != exp or r.get("findings_more") != 0:
    print("--episodes 0: %s, findings_more %s; the schedule's %s" % (got, r.get("findings_more"), exp))
PYEOF
)" "report --episodes 0: all 15 episodes, each condition once, in the schedule's rank"

"$ROCETOP" report "$T/ep.pcap" "${S[@]}" >"$T/r.txt" 2>"$T/err"
shown=$(grep -cE '^  [0-9-]+ [0-9:.]+ UTC \.\. ' "$T/r.txt")
if grep -q '^Findings (15), most severe first, then the longest' "$T/r.txt" && [ "$shown" = 10 ] &&
   grep -q '^  and 5 more$' "$T/r.txt"; then
	ok report_text "" "the text report shows 10 of the 15 episodes and 'and 5 more'"
else
	ok report_text "$(grep -m1 '^Findings' "$T/r.txt"), $shown shown, $(grep -c 'and 5 more' "$T/r.txt") 'and 5 more'" ""
fi
"$GEN" --scenario pfc-storm --duration 20 --rate 2000 --pcap "$T/g.pcap" --tally "$T/tally" -q ||
	ok gen "rocetop-gen exited $?" ""
"$ROCETOP" report "$T/g.pcap" --json --link-speed 25G --threshold pfc-share=10% >"$T/g.json" 2>"$T/err" || ok gen "report exited $?: $(head -2 "$T/err")" ""
ok gen "$("$PY" - "$T/g.pcap" "$T/tally/summary.txt" "$T/g.json" 2>&1 <<'PYEOF'
import json, struct, sys
# The storms as the generator put them on the wire: its PFC frames, read from
# the pcap's bytes, in runs with less than 3 s between frames.
pfc = []
with open(sys.argv[1], "rb") as f:
    f.read(24)
    while True:
        h = f.read(16)
        if len(h) < 16:
            break
        s, us, incl, _ = struct.unpack("<IIII", h)
        b = f.read(incl)
        if b[12:16] == b"\x88\x08\x01\x01":
            pfc.append(s + us / 1e6)
runs = [[pfc[0], pfc[0]]] if pfc else []
for t in pfc[1:]:
    if t - runs[-1][1] < 3:
        runs[-1][1] = t
    else:
        runs.append([t, t])
tally = dict(l.split(None, 1) for l in open(sys.argv[2]) if " " in l)
storms = [f for f in json.load(open(sys.argv[3]))["findings"] if f["rule"] == "pfc-storm"]
got = [(f["start"], f["end"]) for f in storms]
# A loaded machine slows the model: the tally says how many storms it sent
# (two unless the machine is very busy), and a gap may grow. One episode
# needs gaps under the quiet period (10 s) less the two partial intervals
# at its ends: 8 s.
gaps = [b[0] - a[1] for a, b in zip(runs, runs[1:])]
if not runs or int(tally["model_pfc_storms"]) != len(runs) or any(not 3 <= g < 8 for g in gaps):
    print("tally %s storms, on the wire %s (gaps %s s: this test needs them under 8 s)" %
          (tally["model_pfc_storms"].strip(), runs, [round(g, 1) for g in gaps]))
elif len(got) != 1 or abs(got[0][0] - runs[0][0]) > 1 or abs(got[0][1] - runs[-1][1]) > 1:
    print("pfc-storm episodes %s, expected one %.1f..%.1f" % (got, runs[0][0], runs[-1][1]))
# the flows involved: the tally's senders on the storm's priority 3
want = sorted("%s -> 10.77.0.2 QP %s" % (w[1], w[6]) for w in (l.split() for l in open(sys.argv[2]))
              if w and w[0] == "sender" and w[8] == "3")
inv = sorted(storms[0].get("involved", "").split("; ")) if storms else []
if not want or inv != want:
    print("involved %s, the tally's senders on priority 3 %s" % (inv, want))
PYEOF
)" "rocetop-gen's two storms 5.5 s apart are one pfc-storm episode, first start to last end, its flows the tally's"
exit $((fails > 0))
