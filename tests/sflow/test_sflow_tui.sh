#!/usr/bin/env bash
# rocetop lab --sflow in the live view, under tmux: view 5 lists the lab's
# switch port (10.77.0.254:1, the congested egress with its queue depth, the
# ingress with the receiver's answers), the flows view marks every sFlow row
# as an estimate (~) and none of the exact rcv0 rows, and the header shows
# the sFlow estimates apart from the exact wire totals. The numbers themselves
# are checked against the generator's tally in test_sflow_lab.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
name=rtsft$RT_ID
S=rtsft$RT_ID
fail=0
rt_need_root sflow_tui "needs root for the lab"
rt_need_cmd sflow_tui tmux
rt_on_exit 'for ns in snd sw rcv; do ip netns del "$name-$ns"; done'
pass() { echo "PASS $1"; }
bad() { echo "FAIL $1: $2"; fail=1; }
cap() { rt_cap; }
wait_for() { rt_wait_for "$1"; }

rt_tmux sflow_tui "$S" 140 40
tmux send-keys -t "$S" "$ROCETOP lab --name $name --scenario incast --duration 30 --rate 8000 --sflow --sflow-rate 16 -d 0.5; echo RC=\$?" Enter
if ! wait_for '10\.77\.0\.254:1'; then
	bad sflow_tui_start "no sFlow flow on screen: $(cap | head -5)"
	exit 1
fi
sleep 1
scr=$(cap)
est=$(echo "$scr" | grep -E '10\.77\.0\.254:1 ' | grep -cE ' ~[0-9]')
all=$(echo "$scr" | grep -cE '10\.77\.0\.254:1 ')
exact_marked=$(echo "$scr" | grep -E ' rcv0 ' | grep -c '~')
if [ "$all" -gt 0 ] && [ "$est" = "$all" ] && [ "$exact_marked" = 0 ]; then
	pass "sflow_tui_flows: $all sFlow rows marked ~, the rcv0 rows not"
else
	bad sflow_tui_flows "sFlow rows $all, marked $est, rcv0 rows marked $exact_marked"
fi
echo "$scr" | grep -qE 'sFlow ~[0-9.]+[kM]? pkt/s' && pass sflow_tui_header ||
	bad sflow_tui_header "no sFlow estimate in the header"
tmux send-keys -t "$S" 5
if wait_for 'SWITCH PORT \(sFlow\)'; then
	sleep 0.6
	scr=$(cap)
	if echo "$scr" | grep -qE '^10\.77\.0\.254:1 +out +[0-9]+ +[0-9.]+[kM]? +[0-9.]+ +[0-9.]+ +[0-9.kM-]+ +[0-9]+ +[0-9]+' &&
	   echo "$scr" | grep -qE '^10\.77\.0\.254:1 +in ' && echo "$scr" | grep -qE '^agent 10\.77\.0\.254: '; then
		pass "sflow_tui_switch_ports: the congested port, its queue, both directions and the agent"
	else
		bad sflow_tui_switch_ports "$(echo "$scr" | sed -n 5,12p)"
	fi
else
	bad sflow_tui_switch_ports "view 5 did not open"
fi
tmux send-keys -t "$S" q
wait_for 'RC=0' && pass sflow_tui_quit || bad sflow_tui_quit "$(cap | tail -3)"
exit $fail
