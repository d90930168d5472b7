#!/usr/bin/env bash
# The findings in the view: the header line (count by severity, the newest),
# the findings view (F), and Enter on a finding going to its subject. On the
# scapy capture of tests/findings/captures.py: a PFC storm on priority 3 from
# 2 s to 5 s with a victim flow, which opens pfc-storm (critical),
# pause-without-ecn and victim (warnings), all still open at the end (6 s).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
S=rtfi$RT_ID
rt_tui_need tui_findings
rt_tmpdir DIR
$PY tests/findings/captures.py gen "$DIR" || skip "cannot write the captures (scapy)"

pass() { echo "PASS $1"; }
bad() { echo "FAIL $1: $2"; cap | head -12 | sed 's/^/    | /'; fail=1; }
cap() { rt_cap; }
wait_for() { rt_wait_for "$1"; }

rt_tmux tui_findings "$S" 200 30
tmux send-keys -t "$S" "$ROCETOP -r $DIR/storm.pcap -d 1 --speed 50 --link-speed 100G; echo RC=\$?" Enter
if wait_for '\[END\]' && wait_for '^findings  1 critical  2 warning  0 info   newest: critical pfc-storm since [0-9:]+  ifname=storm.pcap dir=ingress prio=3'; then
	pass "tui_findings_header: 1 critical, 2 warning, the newest critical one named"
else
	bad tui_findings_header "no findings line with 1 critical and 2 warning"
fi
tmux send-keys -t "$S" F
if wait_for 'view findings' && wait_for '^critical +pfc-storm +[0-9:]+ +open +ifname=storm.pcap dir=ingress prio=3: priority 3' &&
   [ "$(cap | grep -cE '^(critical|warning) ')" = 3 ] &&
   cap | grep -A2 '^critical' | tail -2 | head -1 | grep -q '^warning  pause-without-ecn' ; then
	pass "tui_findings_view: F lists the three open findings, the critical one first"
else
	bad tui_findings_view "the findings view is not as expected"
fi
tmux send-keys -t "$S" Enter
if wait_for 'view PFC' && wait_for 'pfc-storm: priority 3 on storm.pcap'; then
	pass "tui_findings_enter_prio: Enter on pfc-storm shows the PFC view"
else
	bad tui_findings_enter_prio "Enter did not go to the PFC view"
fi
# The second flow selected first; Enter on the victim selects the first.
tmux send-keys -t "$S" 1 Down
sleep 0.3
tmux send-keys -t "$S" 6 Down Down Enter
if wait_for 'view flows' && wait_for 'victim: the flow selected' &&
   tmux capture-pane -e -p -t "$S" | grep '10\.1\.0\.7 ' | grep -q $'^\e\[7m' &&
   ! tmux capture-pane -e -p -t "$S" | grep '10\.1\.0\.8 ' | grep -q $'^\e\[7m'; then
	pass "tui_findings_enter_flow: Enter on the victim selects its flow"
else
	bad tui_findings_enter_flow "Enter did not go to the flow"
fi
tmux send-keys -t "$S" q
wait_for 'RC=0' || bad tui_findings_quit "q did not end the view with 0"
exit $fail
