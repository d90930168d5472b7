#!/usr/bin/env bash
# kill -9 of `rocetop lab`: the traffic generator the lab
# started (its child, found by its parent pid) is gone within 2 s, not left
# sending for ever in the leftover namespaces; and the next lab of that name
# stops a generator an older lab left running there (one the test starts in
# the leftover receiver namespace, as such a lab did), removes the leftovers,
# runs, and leaves no namespace. Every pid is the test's own; /proc says
# whether each still runs.
set -u
cd "$(dirname "$0")/../.."
ROCETOP_GEN=${ROCETOP_GEN:-$PWD/build/rocetop-gen}
. tests/lib.sh
name=rtk$RT_ID
rt_need_root lab_kill
rt_tmpdir tmp
rt_on_exit 'for ns in snd sw rcv col; do ip netns del "$name-$ns"; done'
# alive PID: it runs (a zombie waiting for its reaper has stopped running)
alive() { [ -r "/proc/$1/stat" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
# the lab's generator: its child named rocetop-gen
gen_of() {
	local c
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		[ "$(cat /proc/"$c"/comm 2>/dev/null)" = rocetop-gen ] && { echo "$c"; return; }
	done
}

"$ROCETOP" lab --name "$name" --scenario steady --duration 60 --rate 200 -D -d 0.5 >"$tmp/a.out" 2>"$tmp/a.err" &
lp=$!
rt_kill_on_exit "$lp"
gp=""
for _ in $(seq 100); do gp=$(gen_of "$lp"); [ -n "$gp" ] && break; sleep 0.1; done
[ -n "$gp" ] || { echo "FAIL lab_kill: the lab started no generator: $(tail -2 "$tmp/a.err")"; exit 1; }
rt_on_exit "kill -9 $gp"
sleep 0.5
kill -9 "$lp"; wait "$lp" 2>/dev/null
for _ in $(seq 20); do alive "$gp" || break; sleep 0.1; done
if alive "$gp"; then
	echo "FAIL lab_kill9_generator_dies: rocetop-gen (pid $gp) still runs 2 s after kill -9 of its lab"
else
	echo "PASS lab_kill9_generator_dies: rocetop-gen (pid $gp) gone with its lab"
fi
kill -9 "$gp" 2>/dev/null

# The leftovers of an older lab: its namespaces (still here) and its generator.
if ! ip netns list | grep -q "^$name-rcv"; then
	echo "FAIL lab_leftover_generator: the killed lab left no namespace to test with"; exit 1
fi
op=$(ip netns exec "$name-rcv" setsid "$ROCETOP_GEN" --scenario steady --tx-data "$name-snd:snd0" \
	--tx-rcv "$name-rcv:rcv0" --sink "$name-rcv" --duration 60 --rate 100 >/dev/null 2>&1 & echo $!)
rt_on_exit "kill -9 $op"
sleep 0.5
alive "$op" || { echo "FAIL lab_leftover_generator: the stand-in for an old generator did not start"; exit 1; }
"$ROCETOP" lab --name "$name" --scenario steady --duration 1 --rate 200 -D -d 0.5 >"$tmp/b.out" 2>"$tmp/b.err"; rc=$?
for _ in $(seq 20); do alive "$op" || break; sleep 0.1; done
left=$(ip netns list | grep -c "^$name-")
if [ $rc = 0 ] && ! alive "$op" && [ "$left" = 0 ] && grep -q 'removing the leftovers' "$tmp/b.err" &&
   grep -q "stopped the traffic generator an earlier lab left running (pid $op" "$tmp/b.err"; then
	echo "PASS lab_leftover_generator: the next lab stops the old generator (pid $op), removes the namespaces, runs"
else
	echo "FAIL lab_leftover_generator: exit $rc, old generator $(alive "$op" && echo still runs || echo gone), $left namespaces left: $(grep -h 'leftover\|generator\|rocetop:' "$tmp/b.err" | tail -3)"
fi
