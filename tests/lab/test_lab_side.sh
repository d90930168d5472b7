#!/usr/bin/env bash
# Labs side by side: a second lab of the same name runs as NAME-2 beside the
# first, which keeps its namespaces (the same ones: their inodes do not
# change) and its lock file holding its pid; both exit 0 and leave nothing.
# After kill -9 of one lab, the next start removes that lab's leftovers and
# only those.
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
. tests/lib.sh
rt_need_root "lab side"
name=rtk$RT_ID
fails=0
pass() { echo "PASS lab side: $*"; }
fail() { echo "FAIL lab side: $*"; fails=$((fails + 1)); }
rt_tmpdir tmp
rt_on_exit "for p in \$(pgrep -f 'rocetop lab --name $name '); do kill -9 \$p; done; sleep 0.5
	for ns in \$(ip netns list | grep -o '^$name\(-[0-9]*\)\?-[a-z]*'); do ip netns del \$ns; done
	rm -f /run/rocetop/lab-$name.lock /run/rocetop/lab-$name-[0-9]*.lock"

ino() { stat -c %i "/run/netns/$1-rcv" 2>/dev/null; }
ready() {	# PREFIX PID: wait for the instance's namespaces and its first interval
	for _ in $(seq 300); do
		[ -n "$(ino "$1")" ] && [ -e "/run/netns/$1-snd" ] && grep -q '^rocetop ' "$tmp/$1.out" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	return 1
}
lab() {	# PREFIX-IT-SHOULD-GET DURATION: start a lab named $name, output in $tmp/PREFIX.out
	"$ROCETOP" lab --name "$name" --scenario steady --duration "$2" --rate 2000 -b -d 0.5 \
		>"$tmp/$1.out" 2>"$tmp/$1.err" &
}
left() { ip netns list | grep -o "^$name\(-[0-9]*\)\?-[a-z]*" | sort | tr '\n' ' '; }

# 1. Two labs side by side, each to its end.
lab "$name" 12; a=$!
ready "$name" $a || { fail "the first lab did not start: $(tail -2 "$tmp/$name.err")"; exit 1; }
ino_a=$(ino "$name")
[ "$(cat /run/rocetop/lab-$name.lock)" = "$a" ] && pass "the lock file /run/rocetop/lab-$name.lock holds the first lab's pid" ||
	fail "the lock file holds '$(cat /run/rocetop/lab-$name.lock 2>&1)', want $a"
lab "$name-2" 3; b=$!
ready "$name-2" $b || fail "the second lab did not start: $(tail -2 "$tmp/$name-2.err")"
if [ "$(ino "$name")" = "$ino_a" ] && [ -e "/run/netns/$name-snd" ] && [ -e "/run/netns/$name-sw" ]; then
	pass "the second lab runs in $name-2-* and the first keeps its namespaces (rcv inode $ino_a)"
else fail "the first lab's namespaces changed under the second: rcv inode $(ino "$name") was $ino_a"; fi
wait $b; rc_b=$?
grep -q "in $name-2-rcv" "$tmp/$name-2.err" && grep -q "in $name-rcv" "$tmp/$name.err" ||
	fail "the labs did not say their namespaces: $(head -1 "$tmp/$name.err") / $(head -1 "$tmp/$name-2.err")"
[ "$(ino "$name")" = "$ino_a" ] && kill -0 $a 2>/dev/null &&
	pass "the second lab's end leaves the first running in its namespaces" ||
	fail "the first lab is hurt by the second's end"
wait $a; rc_a=$?
n_a=$(grep -c '^rocetop ' "$tmp/$name.out"); n_b=$(grep -c '^rocetop ' "$tmp/$name-2.out")
if [ $rc_a = 0 ] && [ $rc_b = 0 ] && [ -z "$(left)" ] && [ "$n_a" -ge 10 ] && [ "$n_b" -ge 3 ]; then
	pass "both exit 0 ($n_a and $n_b intervals) and leave no namespace"
else fail "exits $rc_a and $rc_b, intervals $n_a and $n_b, namespaces left: $(left)"; fi
ls /run/rocetop/lab-$name*.lock >/dev/null 2>&1 && fail "lock files left: $(ls /run/rocetop/lab-$name*)" ||
	pass "no lock file left"

# 2. kill -9 of the second; a new lab removes its leftovers, not the first's.
lab "$name" 60; a=$!
ready "$name" $a || { fail "the first lab did not start again: $(tail -2 "$tmp/$name.err")"; exit 1; }
lab "$name-2" 60; b=$!
ready "$name-2" $b || fail "the second lab did not start again"
ino_a=$(ino "$name") ino_b=$(ino "$name-2")
kill -9 $b; wait $b 2>/dev/null
for _ in $(seq 50); do pgrep -f "rocetop-gen .*$name-2-" >/dev/null || break; sleep 0.1; done
[ "$(left)" = "$name-2-rcv $name-2-snd $name-2-sw $name-rcv $name-snd $name-sw " ] &&
	pass "kill -9 leaves the killed lab's namespaces behind ($name-2-*)" || fail "after kill -9: namespaces $(left)"
lab "$name-2" 2; c=$!
wait $c; rc_c=$?
if [ $rc_c = 0 ] && grep -q "removing the leftovers of an earlier lab run (namespaces $name-2-\*)" "$tmp/$name-2.err" &&
   [ "$(ino "$name")" = "$ino_a" ] && [ "$(left)" = "$name-rcv $name-snd $name-sw " ]; then
	pass "the next lab took $name-2, removed the dead lab's leftovers (rcv inode $ino_b) and left the running one's (inode $ino_a)"
else fail "the next lab: exit $rc_c, namespaces now $(left), first's inode $(ino "$name") was $ino_a: $(head -2 "$tmp/$name-2.err")"; fi
kill -TERM $a; wait $a; rc_a=$?
[ $rc_a = 0 ] && [ -z "$(left)" ] && pass "the first lab still ends cleanly on SIGTERM (exit 0, nothing left)" ||
	fail "the first lab on SIGTERM: exit $rc_a, namespaces $(left)"
[ $fails -eq 0 ]
