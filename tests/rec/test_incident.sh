#!/usr/bin/env bash
# An incident recorded live and read back after the fact, on another host.
# The lab runs the mixed scenario on its veths (10 Gb/s by ethtool) for 12 s:
# a PFC storm on priority 4, a CE-marked incast on priority 3 with its RNR
# NAKs (the receiver-not-ready episodes), recorded with -w, by the flight
# recorder (triggered by the storm, its window longer than the run) and
# --csv (the live run's findings and paused time). Once the generator has
# written its tally, the lab lingers; 2 s later the recorder is killed with
# kill -9 (no clean end: the episodes still open stay open in the live CSV).
# The recording and the flight file are then read in another namespace whose
# rcv0 is a tap at 25 Gb/s: `report` and `-r --batch` of each must give the
# generator's packet totals exactly, the live run's paused time and the tally's
# quanta at 10 Gb/s to 1%, and the live run's episodes (the same, starting
# where they started live, ending where it closed them; -r --batch closes the
# ones the kill left open in an "end of file" block), each storm one episode
# (tests/rec/incident.py). The episodes are printed for the log.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
H=tests/rec/incident.py
name=rti$RT_ID C=rti${RT_ID}c
rt_need_root incident "needs root for namespaces and BPF"
rt_need_cmd incident ethtool
rt_tmpdir T
fails=0
ok() { if [ -z "$2" ]; then echo "PASS incident_$1: $3"; else echo "FAIL incident_$1: $2"; fails=$((fails + 1)); fi; }
lp=
rt_on_exit '[ -n "$lp" ] && kill -9 "$lp" 2>/dev/null; for n in snd sw rcv; do ip netns del "$name-$n" 2>/dev/null; done; true'

mkdir -p "$T/fl"
"$ROCETOP" lab --name "$name" --scenario mixed --duration 12 --rate 4000 --seed 3 --tally "$T/tally" \
	--linger 60 -D -d 0.5 -w "$T/run.rtr" --csv "$T/live" --flight-recorder 60s --flight-dir "$T/fl" \
	>"$T/lab.out" 2>"$T/lab.err" &
lp=$!
for _ in $(seq 600); do
	grep -q 'watching 60 s more' "$T/lab.err" && [ -s "$T/tally/summary.txt" ] && break
	kill -0 "$lp" 2>/dev/null || break
	sleep 0.1
done
if ! grep -q 'watching 60 s more' "$T/lab.err"; then
	echo "FAIL incident: the lab did not run its traffic to the end: $(tail -3 "$T/lab.err")"
	exit 1
fi
sleep 2		# four intervals after the last frame
{ kill -9 "$lp"; wait "$lp"; } 2>/dev/null; rc=$?; lp=
for n in snd sw rcv; do ip netns del "$name-$n" 2>/dev/null; done
fl=$(ls "$T"/fl/rocetop-*.rtr 2>/dev/null | head -1)
[ $rc = 137 ] && [ -s "$T/run.rtr" ] && [ -n "$fl" ] &&
	ok kill "" "the recorder killed with kill -9 (exit $rc) after the generator's tally; $(grep -m1 '^rocetop-gen:' "$T/lab.err")" ||
	{ ok kill "exit $rc, recording $(ls -la "$T/run.rtr" 2>&1), flight file '$fl': $(tail -3 "$T/lab.err")" ""; exit 1; }

ok involved "$("$PY" $H involved "$T/tally" "$T/live")" \
	"findings.csv's involved column: the storm's flows are the generator's senders on its priority"

# Another host: rcv0 there is a tap at 25 Gb/s.
rt_netns "$C" && ip -n "$C" tuntap add rcv0 mode tap && ip netns exec "$C" ethtool -s rcv0 speed 25000 duplex full ||
	{ echo "FAIL incident: cannot make a 25G rcv0 in $C"; exit 1; }
speed=$(ip netns exec "$C" ethtool rcv0 2>/dev/null | sed -n 's/^\s*Speed: \([0-9]*\)Mb\/s/\1/p')
[ "$speed" = 25000 ] || { echo "FAIL incident: the tap says $speed Mb/s, not 25000"; exit 1; }
in_c() { ip netns exec "$C" "$ROCETOP" "$@"; }
for f in run flight; do
	file=$T/run.rtr
	[ $f = flight ] && file=$fl
	if in_c report "$file" --json --episodes 0 >"$T/$f.json" 2>"$T/$f.err"; then
		ok "report_$f" "$("$PY" $H report "$T/tally" "$T/live" "$T/$f.json")" \
			"report of the $f file: the generator's totals, the live paused time and episodes"
	else
		ok "report_$f" "report exited $?: $(head -2 "$T/$f.err")" ""
	fi
	if in_c -r "$file" --batch --json --top 0 -q >"$T/$f.jsonl" 2>"$T/$f.berr"; then
		ok "batch_$f" "$("$PY" $H batch "$T/tally" "$T/live" "$T/$f.jsonl")" \
			"-r --batch of the $f file: the same, the open episodes closed at the end of the file"
	else
		ok "batch_$f" "-r --batch exited $?: $(head -2 "$T/$f.berr")" ""
	fi
done
in_c -r "$T/run.rtr" --batch -q >"$T/run.txt" 2>/dev/null
n=$(awk '/ end of file$/ { e = 1 } e && /^  close / { n++ } END { print n + 0 }' "$T/run.txt")
left=$(awk -F, '$2 == "open" { o++ } $2 == "close" { c++ } END { print o - c }' "$T/live/findings.csv")
[ "$n" -gt 0 ] && [ "$n" = "$left" ] &&
	ok batch_text "" "-r --batch's text ends with the closes of the $n episodes the kill left open" ||
	ok batch_text "$n closes after 'end of file', the kill left $left open" ""
"$PY" - "$T/run.json" "$T/live/pfc.csv" "$T/tally/pfc.csv" <<'PYEOF'
import csv, json, sys
r = json.load(open(sys.argv[1]))
live = sum(float(x["paused_seconds"] or 0) for x in csv.DictReader(open(sys.argv[2])))
tally = sum(int(x["quanta"]) * 512 / 10e9 for x in csv.DictReader(open(sys.argv[3])))
t = r["totals"]
print("the incident: %d frames (%d RoCE, %d CE, %d CNP, %d RNR NAK, %d pause) over %d intervals; paused %.4f s "
      "(report), %.4f s (live), %.4f s (tally at 10G); %d episodes" %
      (t["frames"], t["pkts"], t["ce"], t["cnp"], t["rnr_nak"], t["pause_frames"], r["intervals"],
       sum(p["seconds"] for p in r["pfc"]["priorities"]), live, tally, len(r["findings"])))
PYEOF
echo "the incident's episodes (report of the recording, read at 25G; start .. end, peak):"
"$PY" $H episodes run "$T/run.json"
"$PY" $H episodes flight "$T/flight.json"
exit $((fails > 0))
