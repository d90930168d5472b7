#!/bin/bash
# Where a pause storm started, made on purpose and found by `rocetop report`
# over one recording per host. Four namespaces: a receiver R, a switch S (a
# bridge whose forwarder, tests/lib/rtlib/pausesw.py, pauses its other
# ports on a priority once one port has been paused on it for DELAY
# seconds) and two senders A and B, each sending a RoCEv2 flow to R (the
# flows the report aligns the hosts' clocks by):
#
#   A [a0] ── [swa] S: br0 [swr] ── [r0] R
#   B [b0] ── [swb]
#
# one: R stops draining (XOFF on priority 3 out of r0): the report names R
# r0 the one origin, S (paused on swr, pausing swa and swb) spread it, A and
# B were paused; each time is checked against the programs' own logs of
# when they sent their first pause, and each count against what they sent.
# The --perfetto trace holds the same: the origins' slices, and an arrow from
# each host to those it paused.
# two: A also stops draining, before S passes R's storm on to it: two
# origins, R and A, and the report does not pick one.
# lab: `rocetop lab --scenario pause-origin --record DIR` (the lab's own
# receiver and switch programs, the lab's three namespaces), checked alike.
. "$(dirname "$0")/../lib.sh"
rt_setup pause_origin pause_origin:
rt_need_root pause_origin "needs root for namespaces and BPF"
rt_need_py pause_origin scapy

PRIO=3 DELAY=0.8 IV=0.2
R=po${RT_ID}r S=po${RT_ID}s A=po${RT_ID}a B=po${RT_ID}b
pids=()
rt_on_exit 'for p in "${pids[@]}"; do kill -9 "$p"; done; wait'
rt_netns "$R" "$S" "$A" "$B" && rt_no_ipv6 "$R" "$S" "$A" "$B" &&
	rt_veth "$R" r0 "$S" swr && rt_veth "$A" a0 "$S" swa && rt_veth "$B" b0 "$S" swb &&
	ip -n "$S" link add br0 type bridge && ip -n "$S" link set br0 up &&
	for p in swr swa swb; do ip -n "$S" link set "$p" master br0 || exit 1; done &&
	ip -n "$S" link set br0 up ||
	{ fail setup "cannot build the namespaces"; exit 1; }
MAC_R=$(rt_mac "$R" r0)
# the switch knows where R is: A's and B's flows go to swr only
ip netns exec "$S" bridge fdb add "$MAC_R" dev swr master static ||
	{ fail setup "cannot add R's address to the bridge"; exit 1; }

export PYTHONPATH=$PWD/tests/lib
plus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a + b }'; }

# run_case NAME A_STORMS: record every host while the storm is made, then report.
run_case() {
	local name=$1 a_storm=$2 d=$T/$1 rp=() t0 ns h
	mkdir -p "$d"
	for h in R:r0 S:swr:swa:swb A:a0 B:b0; do
		ns=${h%%:*}
		local ifs=${h#*:} args=()
		for i in ${ifs//:/ }; do args+=(-i "$i"); done
		ip netns exec "${!ns}" "$ROCETOP" "${args[@]}" --no-nic -D -d $IV -w "$d/$ns.rtr" --hostname "host$ns" \
			>"$d/$ns.out" 2>"$d/$ns.err" &
		rp+=($!)
		pids+=($!)
	done
	# the recorders are up once each has written its first interval
	for ns in R S A B; do
		rt_wait_until - 150 test -s "$d/$ns.rtr" || { fail "$name" "no recording from $ns: $(tail -2 "$d/$ns.err")"; return; }
	done
	# the programs set up (scapy builds the data frames: seconds on a loaded
	# machine), then begin together: their times count from the time in GO
	ip netns exec "$S" "$PY" -m rtlib.pausesw switch swr,swa,swb "$d/S.log" "$d/GO" --until 4.5 \
		--prio $PRIO --delay $DELAY 2>"$d/S.pyerr" &
	pids+=($!)
	ip netns exec "$R" "$PY" -m rtlib.pausesw host r0 "$d/R.log" "$d/GO" --until 4.5 --prio $PRIO \
		--storm-at 1 --storm-for 2 2>"$d/R.pyerr" &
	pids+=($!)
	local astorm=()
	[ "$a_storm" = 1 ] && astorm=(--storm-at 1.3 --storm-for 1.5)
	ip netns exec "$A" "$PY" -m rtlib.pausesw host a0 "$d/A.log" "$d/GO" --until 4.5 --prio $PRIO "${astorm[@]}" \
		--data "$MAC_R,10.9.0.1,10.9.0.9,17" --data-at 0 --data-for 4 --pps 100 2>"$d/A.pyerr" &
	pids+=($!)
	ip netns exec "$B" "$PY" -m rtlib.pausesw host b0 "$d/B.log" "$d/GO" --until 4.5 --prio $PRIO \
		--data "$MAC_R,10.9.0.2,10.9.0.9,18" --data-at 0 --data-for 4 --pps 100 2>"$d/B.pyerr" &
	pids+=($!)
	for ns in R S A B; do
		rt_wait_until - 600 test -e "$d/$ns.log.ready" || { fail "$name" "the $ns program did not start: $(tail -2 "$d/$ns.pyerr")"; return; }
	done
	t0=$(plus "$(date +%s.%N)" 1)
	echo "$t0" >"$d/GO.tmp" && mv "$d/GO.tmp" "$d/GO"
	for ns in R S A B; do rt_wait_until - 250 test -s "$d/$ns.log"; done
	sleep 0.6
	kill -INT "${rp[@]}"
	wait "${rp[@]}"
	for ns in R S A B; do
		[ -s "$d/$ns.log" ] || { fail "$name" "no log from the $ns program: $(tail -2 "$d/$ns.pyerr")"; return; }
	done
	"$ROCETOP" report "$d/R.rtr" "$d/S.rtr" "$d/A.rtr" "$d/B.rtr" --json >"$d/report.json" 2>"$d/report.err" ||
		{ fail "$name" "report exited $?: $(tail -2 "$d/report.err")"; return; }
	"$ROCETOP" report "$d/R.rtr" "$d/S.rtr" "$d/A.rtr" "$d/B.rtr" >"$d/report.txt" 2>&1
	"$ROCETOP" report "$d/R.rtr" "$d/S.rtr" "$d/A.rtr" "$d/B.rtr" --perfetto "$d/trace.json" >/dev/null 2>&1
	"$PY" tests/lab/check_pause_origin.py "$name" "$d" $PRIO $DELAY $IV R=hostR,S=hostS,A=hostA,B=hostB \
		R/r0=S/swr,A/a0=S/swa,B/b0=S/swb || fails=$((fails + 1))
}

run_case one 0
run_case two 1

# lab: rocetop lab --scenario pause-origin --record DIR makes the same with
# its own programs (user/cmd/lab_pause.c) and records each host.
d=$T/lab
"$ROCETOP" lab --name "po$RT_ID" --scenario pause-origin --duration 7 --rate 300 --record "$d" -D -d 0.5 \
	>"$d.out" 2>&1 || fail lab "rocetop lab exited $?: $(tail -2 "$d.out")"
if "$ROCETOP" report "$d/rcv.rtr" "$d/sw.rtr" "$d/snd.rtr" --json >"$d/report.json" 2>"$d/report.err" &&
	"$ROCETOP" report "$d/rcv.rtr" "$d/sw.rtr" "$d/snd.rtr" >"$d/report.txt" 2>&1 &&
	"$ROCETOP" report "$d/rcv.rtr" "$d/sw.rtr" "$d/snd.rtr" --perfetto "$d/trace.json" >/dev/null 2>&1; then
	"$PY" tests/lab/check_pause_origin.py lab "$d" 3 2 0.5 rcv=rcv,sw=sw,snd=snd \
		rcv/rcv0=sw/sw-rcv,snd/snd0=sw/sw-snd || fails=$((fails + 1))
else
	fail lab "report exited: $(tail -2 "$d/report.err")"
fi
[ $fails -eq 0 ]
