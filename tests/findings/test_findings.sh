#!/usr/bin/env bash
# Findings, the flight recorder and the multi-host timeline.
#  - captures built with scapy (a PFC storm with a victim, an incast of four, a
#    NAK burst, an RNR burst): the report's JSON holds the expected findings,
#    subjects and times (within one interval) that the captures were built with;
#    findings.csv and --batch show them too;
#  - the lab's pfc-storm and incast scenarios open the findings their traffic
#    calls for (checked against the generator's tally), live, in findings.csv and
#    in Prometheus; steady opens none;
#  - a flight recording triggered in the lab holds the snapshots from before
#    the trigger; SIGUSR1 writes one; --max-files keeps the newest;
#  - recordings made on the lab's sender and receiver merge into one timeline
#    with the receiver's CNPs matched to the sender's data flows.
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
PY=${PYTHON:-/usr/bin/python3}
name=rtf$$
T=$(mktemp -d /tmp/rtf.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	for ns in snd sw rcv; do ip netns del "$name-$ns" 2>/dev/null; done
	rm -rf "$T"
}
. tests/lib.sh
trap cleanup EXIT
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
T0=1700000000

# ---- captures built with scapy
rt_captures captures
for c in storm incast nak rnr; do
	if ! "$ROCETOP" report "$T/$c.pcap" --json --link-speed 100G >"$T/$c.json" 2>"$T/$c.err"; then
		fail "report_$c" "report failed: $(head -2 "$T/$c.err")"
	elif out=$($PY tests/findings/captures.py check "$T/$c.want.json" "$T/$c.json"); then
		pass "report_$c: the findings scapy's capture calls for, subjects and times within 1 s"
	else
		fail "report_$c" "$out"
	fi
done
# The text report puts the timeline first.
"$ROCETOP" report "$T/storm.pcap" --link-speed 100G >"$T/storm.txt" 2>&1
first=$(grep -n -m1 '^Findings (3)' "$T/storm.txt" | cut -d: -f1)
top=$(grep -n -m1 '^Top flows' "$T/storm.txt" | cut -d: -f1)
if [ -n "$first" ] && [ -n "$top" ] && [ "$first" -lt "$top" ] &&
   grep -q 'critical pfc-storm  *ifname=storm.pcap dir=ingress prio=3' "$T/storm.txt"; then
	pass "report_text: the findings timeline comes first"
else
	fail report_text "$(sed -n 1,12p "$T/storm.txt")"
fi
# findings.csv: the header, and the three findings opening at 2 s + the pending interval.
"$ROCETOP" -r "$T/storm.pcap" --csv "$T/csv" -D -q --link-speed 100G
hdr=$(head -1 "$T/csv/findings.csv")
opens=$(awk -F, -v t0=$T0 '$2=="open" { printf "%s:%s:%d\n", $3, $4, $5 - t0 }' "$T/csv/findings.csv" | sort | tr '\n' ' ')
if [ "$hdr" = "time,event,rule,severity,start,end,subject,evidence,id,next,involved" ] &&
   [ "$opens" = "pause-without-ecn:warning:2 pfc-storm:critical:2 victim:warning:2 " ]; then
	pass "findings_csv: header and the open rows of the storm (start at 2 s)"
else
	fail findings_csv "header '$hdr', opens '$opens'"
fi
# --batch counts the open findings after the header and prints each when it
# opens (once: the storm is one episode), not every interval; the capture
# ends during the storm, so its close comes in the last block, at the end of
# the file.
"$ROCETOP" -r "$T/storm.pcap" -b -q --link-speed 100G >"$T/batch.txt"
if grep -q '^findings 3 open: 1 critical, 2 warning, 0 info' "$T/batch.txt" &&
   [ "$(grep -c '^  open   critical pfc-storm' "$T/batch.txt")" = 1 ] &&
   [ "$(grep -v 'next:' "$T/batch.txt" | grep -c ' pfc-storm ')" = 2 ] &&
   [ "$(awk '/  end of file$/ { e = 1 } e && /^  close  critical pfc-storm / { n++ } END { print n + 0 }' "$T/batch.txt")" = 1 ]; then
	pass "batch: the open findings counted after the header, the storm printed when it opens and closed at the end of the file"
else
	fail batch "$(grep -m3 '^findings' "$T/batch.txt"; grep -m3 'pfc-storm' "$T/batch.txt")"
fi
# A bad threshold is one sentence and exit 2.
if ! "$ROCETOP" report "$T/storm.pcap" --threshold pfc-share=2 >/dev/null 2>"$T/bad.err" &&
   [ "$(wc -l <"$T/bad.err")" = 1 ] && grep -q 'pfc-share' "$T/bad.err" &&
   "$ROCETOP" report "$T/storm.pcap" --json --threshold pfc-share=40% >"$T/s40.json" &&
   ! grep -q '"rule":"pfc-storm"' "$T/s40.json"; then
	pass "threshold: pfc-share=40% (above the storm's 33.5%) opens no pfc-storm; 200% is refused"
else
	fail threshold "$(cat "$T/bad.err")"
fi

if [ "$(id -u)" -ne 0 ]; then echo "SKIP findings_lab: needs root"; exit $((fails > 0)); fi

# ---- the doctor's checks as findings, live on lo of a namespace of our own,
# with the NIC fixtures: bad-ecn's files say ECN is off for the reaction point
# on priority 3 (ecn/roce_rp/enable/3 = 0), healthy's have nothing wrong.
ns=rtfd$$
ip netns add "$ns" && ip -n "$ns" link set lo up
for fx in bad-ecn healthy; do
	ip netns exec "$ns" "$ROCETOP" --sysfs-root tests/fixtures/hwhost/$fx -i lo -D -n 2 -d 0.3 --csv "$T/doc-$fx" >/dev/null 2>&1
done
ip netns del "$ns"
got=$(awk -F, '$2=="open" {print $3 ":" $4 ":" $7}' "$T/doc-bad-ecn/findings.csv" 2>/dev/null)
if [ "$got" = "doctor:warning:ifname=eth2 counter=doctor:pfc-ecn-off" ] &&
   [ "$(wc -l <"$T/doc-healthy/findings.csv" 2>/dev/null)" = 1 ]; then
	pass "doctor: a failed check of the host's configuration is a finding (bad-ecn), none on a healthy host"
else
	fail doctor "bad-ecn opened '$got'; healthy: $(tail -n +2 "$T/doc-healthy/findings.csv" 2>&1 | head -2)"
fi

# ---- the lab, live: findings.csv against the generator's tally; Prometheus
# A free port on the host's loopback (the lab serves metrics there).
port=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# Two of these runs serve later checks too: pfc-storm's (6 s) triggers the
# flight recorder (the flight check below), incast's is recorded on the
# receiver (-w) while a second rocetop records the sender (the merge check).
mkdir -p "$T/flight/dir" "$T/merge"
for sc in pfc-storm incast steady; do
	d=$T/lab-$sc; mkdir -p "$d"
	args=(--duration 5)
	[ "$sc" = pfc-storm ] && args=(--duration 6 --listen "$port" --flight-recorder 2s --flight-dir "$T/flight/dir")
	[ "$sc" = incast ] && args=(--duration 5 -w "$T/merge/rcv.rtr" --hostname receiver)
	"$ROCETOP" lab --name "$name" --scenario "$sc" --rate 4000 --seed 3 --tally "$d/tally" \
		--csv "$d/csv" -D -d 0.5 "${args[@]}" >"$d.out" 2>"$d.err" &
	lp=$!
	if [ "$sc" = incast ]; then
		for _ in $(seq 100); do ip -n "$name-snd" link show snd0 >/dev/null 2>&1 && break; sleep 0.05; done
		ip netns exec "$name-snd" "$ROCETOP" -i snd0 --no-nic -D -d 0.5 -w "$T/merge/snd.rtr" --hostname sender \
			>"$T/merge/snd.out" 2>"$T/merge/snd.err" &
		sp=$!; pids+=("$sp")
	fi
	if [ "$sc" = pfc-storm ]; then
		for _ in $(seq 60); do
			curl -sf --max-time 2 "http://127.0.0.1:$port/metrics" >"$T/metrics" 2>/dev/null &&
				grep -q '^rocetop_findings_open{rule="pfc-storm",severity="critical"} 1' "$T/metrics" && break
			sleep 0.1
		done
	fi
	wait $lp; lrc=$?
	[ "$sc" = incast ] && { kill $sp 2>/dev/null; wait $sp; merge_rc=$lrc; }
	[ $lrc = 0 ] || { fail "lab_$sc" "rocetop lab failed: $(tail -2 "$d.err")"; continue; }
	if out=$($PY tests/findings/lab_check.py csv "$d/csv/findings.csv" "$d/tally" "$sc"); then
		pass "lab_$sc: the findings the generator's traffic calls for, and no others"
	else
		fail "lab_$sc" "$out"
	fi
	if [ "$sc" = pfc-storm ]; then
		if grep -q '^rocetop_findings_open{rule="pfc-storm",severity="critical"} 1' "$T/metrics" &&
		   grep -q '^rocetop_findings_opened_total{rule="pfc-storm"} 1' "$T/metrics" &&
		   grep -q '^rocetop_findings_open{rule="congestion",severity="warning"} 0' "$T/metrics" &&
		   { ! command -v promtool >/dev/null || promtool check metrics <"$T/metrics" >/dev/null 2>&1; }; then
			pass "prom: rocetop_findings_open and rocetop_findings_opened_total during the storm, promtool-valid"
		else
			fail prom "$(grep findings "$T/metrics" | head -5)"
		fi
	fi
done

# ---- sFlow from the lab's modelled switch: switch-drops and deep-queue
d=$T/sflow; mkdir -p "$d"
if "$ROCETOP" lab --name "$name" --scenario incast --duration 3 --rate 8000 --seed 3 --sflow --sflow-rate 16 \
	--tally "$d/tally" --csv "$d/csv" -D -d 1 --threshold queue-bytes=50000 >"$d.out" 2>"$d.err"; then
	drops=$(awk '$1=="model_switch_drops"{print $2}' "$d/tally/summary.txt")
	qmax=$(awk '$1=="model_queue_max_bytes"{print $2}' "$d/tally/summary.txt")
	sd=$(awk -F, '$2=="open" && $3=="switch-drops"' "$d/csv/findings.csv" | grep -c 'agent=10.77.0.254 port=1')
	dq=$(awk -F, '$2=="open" && $3=="deep-queue"' "$d/csv/findings.csv" | grep -o 'queue up to [0-9]*' | awk '{print $4}' | sort -n | tail -1)
	if [ "${drops:-0}" -gt 0 ] && [ "$sd" -ge 1 ] && [ -n "$dq" ] && [ "$dq" -ge 50000 ] && [ "$dq" -le "${qmax%.*}" ]; then
		pass "sflow: switch-drops ($drops drops in the model) and deep-queue ($dq bytes sampled, model max $qmax) at the switch port"
	else
		fail sflow "model drops '$drops' max queue '$qmax'; switch-drops findings $sd, deep-queue '$dq'"
	fi
else
	fail sflow "rocetop lab --sflow failed: $(tail -2 "$d.err")"
fi

# ---- the flight recorder in the lab: triggered by the storm (critical), in
# the pfc-storm run above
d=$T/flight
f=$(ls "$d"/dir/rocetop-*.rtr 2>/dev/null | head -1)
opened=$(awk -F, '$2=="open" && $3=="pfc-storm" {print $1; exit}' "$T/lab-pfc-storm/csv/findings.csv")
if [ -n "$f" ] && [ -n "$opened" ] && "$ROCETOP" report "$f" --json --link-speed 10G >"$d/r.json" 2>"$d/r.err"; then
	if $PY - "$d/r.json" "$opened" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1])); opened = float(sys.argv[2])
start = r["start"]
rules = {f["rule"] for f in r["findings"]}
# The file starts at least 1.5 s (3 intervals of the 2 s kept) before the
# interval the storm opened in, ends 2 s after it, and shows the storm.
ok = start <= opened - 1.5 and r["end"] >= opened + 1.5 and "pfc-storm" in rules
print("flight file %.2f..%.2f, storm opened at %.2f, findings %s" % (start, r["end"], opened, sorted(rules)))
sys.exit(0 if ok else 1)
PYEOF
	then pass "flight: the storm's file holds the snapshots from before the trigger and the storm"
	else fail flight "see above"; fi
else
	fail flight "no flight file ($(ls "$d/dir")) or no storm in findings.csv: $(tail -3 "$T/lab-pfc-storm.err")"
fi
# SIGUSR1 writes one on demand; --max-files 1 keeps the newest of two.
d=$T/usr1; mkdir -p "$d/dir"; : >"$d.err"	# there before the first grep of it
"$ROCETOP" lab --name "$name" --scenario steady --duration 60 --rate 1000 -D -d 0.5 \
	--flight-recorder 1s --flight-dir "$d/dir" --max-files 1 >"$d.out" 2>"$d.err" &
lp=$!; pids+=("$lp")
for _ in $(seq 50); do grep -q 'keeping the last' "$d.err" && break; sleep 0.1; done
sleep 2; kill -USR1 $lp
for _ in $(seq 50); do grep -q 'written' "$d.err" && break; sleep 0.1; done
first=$(ls "$d"/dir); sleep 1.2; kill -USR1 $lp
for _ in $(seq 50); do [ "$(grep -c 'written' "$d.err")" = 2 ] && break; sleep 0.1; done
kill $lp; wait $lp; rc=$?
left=$(ls "$d"/dir)
n=$("$ROCETOP" report "$d/dir/$left" --json 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["intervals"])')
if [ $rc = 0 ] && [ "$(echo "$left" | wc -w)" = 1 ] && [ "$left" != "$first" ] && [ -n "$n" ] && [ "$n" -ge 4 ]; then
	pass "flight_usr1: SIGUSR1 writes the last second and the next ($n intervals); --max-files 1 keeps the newest"
else
	fail flight_usr1 "exit $rc, files '$first' then '$left', intervals '$n': $(grep flight "$d.err" | tail -3)"
fi

# ---- two recordings, the sender's and the receiver's, one timeline: those
# of the incast run above
d=$T/merge
if [ "${merge_rc:-}" = 0 ] && "$ROCETOP" report "$d/snd.rtr" "$d/rcv.rtr" --json --top 0 >"$d/m.json" 2>"$d/m.err" &&
   out=$($PY tests/findings/lab_check.py merge "$d/m.json" "$T/lab-incast/tally"); then
	pass "merge: the sender's and the receiver's recordings in one timeline, each CNP flow matched to its sender's data flow"
else
	fail merge "lab ${merge_rc:-not run}; ${out:-$(tail -2 "$d/m.err") $(tail -2 "$d/snd.err")}"
fi
"$ROCETOP" report "$d/snd.rtr" "$d/rcv.rtr" >"$d/m.txt" 2>&1
if grep -q '^rocetop report: 2 files, one timeline' "$d/m.txt" && grep -q '\[receiver\] ' "$d/m.txt" &&
   grep -q 'throttle \[sender\]' "$d/m.txt"; then
	pass "merge_text: lines name their hosts"
else
	fail merge_text "$(head -5 "$d/m.txt")"
fi
[ $fails -eq 0 ]
