#!/usr/bin/env bash
# rocetop lab: for each scenario a bounded run whose flows.csv and pfc.csv
# totals equal the generator's tally exactly; nothing is left behind after a
# run, and the leftovers of a killed run are removed at the next start.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
name=rtl$RT_ID
rt_need_root lab
rt_tmpdir tmp
# The lab makes its own namespaces; a killed run's are removed here.
rt_on_exit 'pkill -9 -f "rocetop lab .*--name $name"; for ns in snd sw rcv; do ip netns del "$name-$ns"; done'


leftovers() { ip netns list | grep -c "^$name-" ; }
fails=0
for sc in incast pfc-storm steady mixed; do
	d=$tmp/$sc; mkdir -p "$d"
	if ! "$ROCETOP" lab --name "$name" --scenario "$sc" --duration 1.5 --rate 4000 --seed 7 \
		--tally "$d/tally" --csv "$d/csv" -D -d 0.5 --flow-timeout 0 >"$d.out" 2>"$d.err"; then
		echo "FAIL lab $sc: rocetop lab failed: $(tail -3 "$d.err")"; fails=$((fails + 1)); continue
	fi
	"$PY" tests/lab/compare_tally.py "lab $sc" "$d/csv" "$d/tally" rcv0 || fails=$((fails + 1))
	if [ "$(leftovers)" = 0 ]; then echo "PASS lab $sc: no namespace left after the run"
	else echo "FAIL lab $sc: namespaces left: $(ip netns list | grep "^$name-")"; fails=$((fails + 1)); fi
done

# Busy flows are never evicted: at 30k frames/s many packets land while the
# maps are read, which once made their last-seen time look far in the past.
if "$ROCETOP" lab --name "$name" --scenario steady --senders 16 --duration 2 --rate 30000 -b -d 0.1 \
	--flow-timeout 1 --top 1 >"$tmp/busy.out" 2>"$tmp/busy.err"; then
	ev=$(grep -o 'evicted [0-9]*' "$tmp/busy.out" | awk '{print $2}' | sort -un | tr '\n' ' ')
	n=$(grep -c '^rocetop ' "$tmp/busy.out")
	if [ "$ev" = "0 " ] && [ "$n" -ge 15 ]; then echo "PASS lab: no busy flow evicted in $n intervals at 30k frames/s"
	else echo "FAIL lab: busy flows evicted: counts seen '$ev' over $n intervals"; fails=$((fails + 1)); fi
else
	echo "FAIL lab: busy steady run failed: $(tail -2 "$tmp/busy.err")"; fails=$((fails + 1))
fi

# SIGTERM and SIGINT end a run cleanly: exit 0, no namespace, no generator,
# no program left on the lab's interfaces.
for sig in TERM INT; do
	"$ROCETOP" lab --name "$name" --scenario mixed --duration 60 --rate 2000 -D --csv "$tmp/sig$sig" >/dev/null 2>"$tmp/sig.err" &
	pid=$!
	# Ready means a data row in flows.csv: the loop, which handles the
	# signals, has run an interval. The header alone is written before the
	# BPF programs load, which can take 10 s on a loaded machine.
	for _ in $(seq 600); do
		[ -f "$tmp/sig$sig/flows.csv" ] && [ "$(wc -l <"$tmp/sig$sig/flows.csv")" -gt 1 ] &&
			[ "$(leftovers)" = 3 ] && break
		sleep 0.1
	done
	kill -$sig $pid; wait $pid; rc=$?
	gens=$(pgrep -f "rocetop-gen .*$name-" | wc -l)
	if [ $rc = 0 ] && [ "$(leftovers)" = 0 ] && [ "$gens" = 0 ] && [ "$(wc -l <"$tmp/sig$sig/flows.csv")" -gt 1 ]; then
		echo "PASS lab: SIG$sig ends the run with exit 0, its counts written, nothing left behind"
	else
		echo "FAIL lab: SIG$sig: exit $rc, namespaces $(leftovers), generators $gens: $(tail -2 "$tmp/sig.err")"
		fails=$((fails + 1))
	fi
done

# A stop signal while the lab is still being built (namespaces up, BPF
# programs loading) ends the run the same way once the loop starts.
"$ROCETOP" lab --name "$name" --scenario steady --duration 60 --rate 500 -D >/dev/null 2>"$tmp/early.err" &
pid=$!
for _ in $(seq 600); do [ "$(leftovers)" -ge 1 ] && break; sleep 0.02; done
kill -TERM $pid; wait $pid; rc=$?
if [ $rc = 0 ] && [ "$(leftovers)" = 0 ]; then
	echo "PASS lab: SIGTERM during the set-up ends the run with exit 0, nothing left behind"
else
	echo "FAIL lab: SIGTERM during the set-up: exit $rc, namespaces $(leftovers): $(tail -2 "$tmp/early.err")"
	fails=$((fails + 1))
fi

# A run killed with -9 leaves its namespaces; the next start removes them.
"$ROCETOP" lab --name "$name" --scenario steady --duration 30 --rate 500 -D >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do [ "$(leftovers)" = 3 ] && break; sleep 0.1; done
sleep 0.5
kill -9 $pid; wait $pid 2>/dev/null
pkill -9 -f "rocetop-gen .*$name-" 2>/dev/null
left=$(leftovers)
"$ROCETOP" lab --name "$name" --scenario steady --duration 0.5 --rate 500 -D >/dev/null 2>"$tmp/again.err"
if [ "$left" = 3 ] && grep -q "removing the leftovers" "$tmp/again.err" && [ "$(leftovers)" = 0 ]; then
	echo "PASS lab: a killed run's namespaces are removed, with a message, at the next start"
else
	echo "FAIL lab: after kill -9 $left namespaces; next start said '$(head -2 "$tmp/again.err")'; now $(leftovers) left"
	fails=$((fails + 1))
fi
[ $fails -eq 0 ]
