#!/usr/bin/env bash
# What rocetop loads and leaves behind, as the kernel reports it:
#  - only the programs asked for: --no-egress loads rt_xdp alone, --no-ingress
#    rt_tc alone, --bpf-split their split forms (the kernel's own fdinfo of the
#    running rocetop names the program ids, bpftool their names);
#  - egress through a TC filter (--tc-filter, what kernels without tcx get):
#    `tc filter show` sees rocetop's filter while it runs and none after it
#    exits; after kill -9 the filter stays, and the next rocetop removes it,
#    saying so; a second rocetop beside a running one refuses in one sentence
#    and the first keeps its filter; a filter of another program at rocetop's
#    handle and priority is refused in one sentence and left alone.
#   A [x] -- [y] B         rocetop -i x in A
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
BUILD=${BUILD:-build}
A=rta${RT_ID}a B=rta${RT_ID}b X=rta${RT_ID}x Y=rta${RT_ID}y
rt_need_root attach
rt_need_cmd attach tc bpftool
rt_tmpdir tmp
rt_on_exit 'kill -9 ${rt:-} ${rt2:-} 2>/dev/null'
rt_netns "$A" "$B" && rt_veth "$A" "$X" "$B" "$Y" ||
	{ echo "FAIL attach: cannot build the namespaces"; exit 1; }
fails=0
ok() { echo "PASS attach: $*"; }
bad() { echo "FAIL attach: $*"; fails=$((fails + 1)); }

# start NAME ROCETOP-OPTIONS...: rocetop on X in the background ($rt), up
# once its CSV files appear.
start() {
	local name=$1
	shift
	ip netns exec "$A" "$ROCETOP" -i "$X" "$@" --csv "$tmp/$name" -D -d 0.2 2>"$tmp/$name.err" &
	rt=$!
	rt_wait_file "$tmp/$name/flows.csv" "$rt" 150
}
# The names of the BPF programs process $1 holds, sorted: the kernel's fdinfo
# gives their ids (a program's own fd and its link's both name it), bpftool
# their names.
held_progs() {
	local id
	for id in $(cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' | sort -u); do
		bpftool prog show id "$id" 2>/dev/null | awk 'NR == 1 { for (i = 1; i < NF; i++) if ($i == "name") print $(i + 1) }'
	done | sort | tr '\n' ' '
}
# rocetop's filter on X's egress hook: its line in `tc filter show`, if any.
our_filter() { ip netns exec "$A" tc filter show dev "$X" egress 2>/dev/null | grep 'handle 0x7274'; }

# ---- only the programs asked for ----
check_progs() {
	local want=$1
	shift
	if start "p$RANDOM" "$@"; then
		local got
		got=$(held_progs "$rt")
		if [ "$got" = "$want" ]; then ok "rocetop $* holds the programs '$want' and no other"
		else bad "rocetop $* holds '$got', expected '$want'"; fi
	else
		bad "rocetop $* did not start"
	fi
	kill -INT "$rt"; wait "$rt" 2>/dev/null
}
# The inlined programs by default from Linux 6.12 on, the split ones before
# (user/sources/live_maps.c, rt_kernel_inlined).
IFS=. read -r kmaj kmin _ <<<"$(uname -r)"
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" = 6 ] && [ "${kmin%%[!0-9]*}" -ge 12 ]; }; then sfx= ; else sfx=_split; fi
check_progs "rt_tc$sfx rt_xdp$sfx "
check_progs "rt_xdp$sfx " --no-egress
check_progs "rt_tc$sfx " --no-ingress
check_progs "rt_tc_split rt_xdp_split " --bpf-split
check_progs "rt_xdp_split " --bpf-split --no-egress

# ---- the TC filter ----
if start f1 --tc-filter; then
	line=$(our_filter)
	case "$line" in
	*"pref 29300"*rt_tc*) ok "with --tc-filter, tc lists rocetop's filter on egress: $line" ;;
	*) bad "with --tc-filter, tc shows no rocetop filter: '$line'" ;;
	esac
	# a second rocetop beside it: refused in one sentence, the first unharmed
	ip netns exec "$A" "$ROCETOP" -i "$X" --tc-filter --no-ingress -b -n 1 >/dev/null 2>"$tmp/second.err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/second.err")" = 1 ] &&
		grep -q "another rocetop (pid $rt) counts egress here" "$tmp/second.err" && [ -n "$(our_filter)" ]; then
		ok "a second rocetop with --tc-filter is refused in one sentence naming the first (pid $rt), whose filter stays"
	else
		bad "second rocetop: rc=$rc, '$(cat "$tmp/second.err")', filter now '$(our_filter)'"
	fi
	kill -INT "$rt"; wait "$rt"; rc=$?
	if [ $rc = 0 ] && [ -z "$(our_filter)" ]; then ok "after rocetop exits no filter of it is left"
	else bad "after exit (rc $rc): '$(our_filter)'"; fi
else
	bad "rocetop --tc-filter did not start: $(cat "$tmp/f1.err")"
fi

if start f2 --tc-filter; then
	kill -9 "$rt"; wait "$rt" 2>/dev/null
	left=$(our_filter)
	if start f3 --tc-filter; then
		now=$(our_filter)
		kill -INT "$rt"; wait "$rt"; rc=$?
		if [ -n "$left" ] && grep -q 'removed the TC filter a stopped rocetop left on egress' "$tmp/f3.err" &&
			[ -n "$now" ] && [ "$now" != "$left" ] && [ $rc = 0 ] && [ -z "$(our_filter)" ]; then
			ok "kill -9 leaves the filter; the next rocetop removes it (and says so), attaches its own, and exit leaves none"
		else
			bad "after kill -9: left '$left', next run's '$now', rc $rc, stderr '$(cat "$tmp/f3.err")', after '$(our_filter)'"
		fi
	else
		bad "rocetop after kill -9 did not start: $(cat "$tmp/f3.err")"
	fi
else
	bad "rocetop --tc-filter did not start: $(cat "$tmp/f2.err")"
fi

# another program's filter at rocetop's place
ip netns exec "$A" tc qdisc add dev "$X" clsact 2>/dev/null
if ip netns exec "$A" tc filter add dev "$X" egress prio 29300 handle 0x7274 bpf da \
	obj "$BUILD/bench_pass_tc.bpf.o" sec tc 2>"$tmp/tc.err"; then
	ip netns exec "$A" "$ROCETOP" -i "$X" --tc-filter --no-ingress -b -n 1 >/dev/null 2>"$tmp/foreign.err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/foreign.err")" = 1 ] &&
		grep -q 'another program .* holds the TC filter place rocetop uses' "$tmp/foreign.err" &&
		our_filter | grep -qv 'rt_tc'; then
		ok "a foreign filter at rocetop's handle and priority is refused in one sentence and left in place"
	else
		bad "foreign filter: rc=$rc, '$(cat "$tmp/foreign.err")', filter '$(our_filter)'"
	fi
else
	bad "tc could not add the foreign filter: $(cat "$tmp/tc.err")"
fi
[ $fails -eq 0 ]
