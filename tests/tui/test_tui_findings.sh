#!/usr/bin/env bash
# The findings in the view: the header line (count by severity, the newest),
# the findings view (F) ranked as the report ranks them, a finding's detail
# (next step whole, wrapped), the jump from it to an involved flow's detail
# and back, the filter on findings, and a flow term refused in the NIC ports
# view. On the scapy capture of tests/findings/captures.py: a PFC storm on
# priority 3 from 2 s to 5 s with a victim flow (10.1.0.7 -> 10.1.0.9 QP 48),
# which opens pfc-storm (critical), pause-without-ecn and victim (warnings),
# all from 2 s to 5 s, still open at the end (6 s). The rank: critical
# first; the two warnings are as long, with the same peak (1000 pause
# frames), so by rule name: pause-without-ecn, then victim.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
S=rtfi$RT_ID
rt_tui_need tui_findings
rt_tmpdir DIR
rt_captures tui_findings "$DIR"
NEXT="Head-of-line blocking: this flow is slowed by someone else's congestion on its priority; find the culprit (pfc-storm, congestion findings on the priority) or move the traffic to another priority."

pass() { echo "PASS $1"; }
bad() { echo "FAIL $1: $2"; cap | head -24 | sed 's/^/    | /'; fail=1; }
cap() { rt_cap; }
wait_for() { rt_wait_for "$1"; }
# The selected line (reverse video) of the screen.
selected() { tmux capture-pane -e -p -t "$S" | grep -E $'\e\\[([0-9]+;)*7m' | sed 's/\x1b\[[0-9;]*m//g'; }

rt_tmux tui_findings "$S" 120 40
tmux send-keys -t "$S" "$ROCETOP -r $DIR/storm.pcap -d 1 --speed 50 --link-speed 100G; echo RC=\$?" Enter
if wait_for '\[END\]' && wait_for '^findings  1 critical  2 warning  0 info   newest: critical pfc-storm since [0-9:]+  ifname=storm.pcap dir=ingress'; then
	pass "tui_findings_header: 1 critical, 2 warning, the newest critical one named"
else
	bad tui_findings_header "no findings line with 1 critical and 2 warning"
fi
tmux send-keys -t "$S" F
if wait_for 'view findings' && wait_for '^critical +pfc-storm +[0-9:]+ +open +ifname=storm.pcap dir=ingress prio=3: priority 3' &&
   [ "$(cap | grep -oE '^(critical|warning) +[a-z-]+' | awk '{print $2}' | tr '\n' ' ')" = "pfc-storm pause-without-ecn victim " ]; then
	pass "tui_findings_view: F lists the three open findings ranked as the report: pfc-storm, pause-without-ecn, victim"
else
	bad tui_findings_view "the findings view is not as expected"
fi
# The victim's detail: its next step whole, wrapped at the 120 columns.
tmux send-keys -t "$S" Down Down Enter
# Its peak with its unit: the 1000 pause frames of an interval on its priority.
if wait_for 'view finding ' && wait_for '^warning victim  open' &&
   wait_for '^start [0-9:]+  end [0-9:]+ so far  \(3\.00 s\)  peak 1000 pause frames$'; then
	pass "tui_fdetail_head: the victim's detail, open, 3.00 s long, peak 1000 pause frames"
else
	bad tui_fdetail_head "no detail of the victim"
fi
got=$(cap | awk '/^next step /{on=1} on && /^[a-zA-Z]/ && !/^next step /{on=0} on' | cut -c11- | sed 's/ *$//' | paste -sd' ')
nlines=$(cap | awk '/^next step /{on=1} on && /^[a-zA-Z]/ && !/^next step /{on=0} on' | wc -l)
if [ "$got" = "$NEXT" ] && [ "$nlines" -ge 2 ]; then
	pass "tui_fdetail_next_whole: the next step whole over $nlines lines"
else
	bad tui_fdetail_next_whole "next step '$got' over $nlines lines"
fi
if cap | grep -qE '^QPs +48$' && cap | grep -qE '^ports +storm\.pcap$' &&
   cap | grep -qE '^Flows \(1\) ' && selected | grep -qE '^  10\.1\.0\.7 -> 10\.1\.0\.9 QP 48  storm\.pcap ingress  prio 3'; then
	pass "tui_fdetail_flows: QP 48, port storm.pcap, the one involved flow selected"
else
	bad tui_fdetail_flows "QPs, ports or the involved flow not as expected"
fi
# Enter: that flow's detail; Esc: back to the finding; Esc: the findings.
tmux send-keys -t "$S" Enter
if wait_for 'view detail' && wait_for '10\.1\.0\.7 .*10\.1\.0\.9' && ! cap | grep -q '10\.1\.0\.8 > '; then
	pass "tui_fdetail_jump: Enter opens the involved flow's detail"
else
	bad tui_fdetail_jump "no detail of 10.1.0.7 -> 10.1.0.9"
fi
tmux send-keys -t "$S" Escape
if wait_for 'view finding ' && wait_for '^warning victim  open'; then
	pass "tui_fdetail_back: Esc from the flow's detail comes back to the finding"
else
	bad tui_fdetail_back "Esc did not come back to the finding"
fi
tmux send-keys -t "$S" Escape
wait_for 'view findings' && pass tui_fdetail_esc || bad tui_fdetail_esc "Esc did not go back to the findings"
# The filter keeps the findings whose flows it keeps: every one involves QP
# 48 only; none involves 10.1.0.8.
tmux send-keys -t "$S" / 'src 10.1.0.8' Enter
if wait_for '\[filter: src 10\.1\.0\.8\]' && wait_for '\(none that the filter keeps\)'; then
	pass "tui_findings_filter_none: src 10.1.0.8 keeps no finding"
else
	bad tui_findings_filter_none "findings shown under src 10.1.0.8"
fi
tmux send-keys -t "$S" / 'qp 48 and paused' Enter
if wait_for '\[filter: qp 48 and paused\]' && sleep 0.3 && [ "$(cap | grep -cE '^(critical|warning) ')" = 3 ]; then
	pass "tui_findings_filter_qp: qp 48 and paused keeps the three"
else
	bad tui_findings_filter_qp "not three findings under qp 48 and paused"
fi
# A filter that does not parse: one sentence, the old filter stays.
tmux send-keys -t "$S" / src Enter
if wait_for "the filter's 'src' needs an address \(10\.0\.0\.1, fd00::1, 10\.0\.0\.0/24\) after it" &&
   cap | grep -q '\[filter: qp 48 and paused\]'; then
	pass "tui_filter_parse_error: one sentence, the old filter kept"
else
	bad tui_filter_parse_error "no parse error sentence, or the filter changed"
fi
# The NIC ports view cannot judge qp: it says so in one sentence.
tmux send-keys -t "$S" 4
if wait_for 'view NIC ports' && wait_for "the filter's 'qp' judges flows, and the NIC ports view has none \(only 'if NAME' applies to it\)"; then
	pass "tui_filter_ports_refused: a flow term refused in the NIC ports view"
else
	bad tui_filter_ports_refused "no refusal in the NIC ports view"
fi
tmux send-keys -t "$S" q
wait_for 'RC=0' || bad tui_findings_quit "q did not end the view with 0"

# A finding without flows (priority 5 paused 33% of the time from 0 to 3 s,
# no RoCE on it; one flow on priority 3): its detail says so, and Enter goes
# to its subject, the PFC view.
$PY - "$DIR/p5.pcap" <<'PYEOF' || { bad tui_fdetail_noflows "scapy could not write the capture"; exit 1; }
import os, sys
sys.path.insert(0, os.path.join("tests", "lib"))
from rtlib import roce
from scapy.all import wrpcap
pk = []
for i in range(3000):
    p = roce.pfc({5: 0xffff})
    p.time = 1700000000.0 + i * 0.001
    pk.append(p)
for i in range(40):
    p = roce.roce("10.5.0.1", "10.5.0.2", roce.write_only(77, i))
    p.time = 1700000000.0 + i * 0.1
    pk.append(p)
pk.sort(key=lambda p: p.time)
wrpcap(sys.argv[1], pk)
PYEOF
tmux send-keys -t "$S" C-l "clear; $ROCETOP -r $DIR/p5.pcap -d 1 --speed 50 --link-speed 100G; echo RC2=\$?" Enter
wait_for '\[END\]' || bad tui_fdetail_noflows "the view did not come up"
tmux send-keys -t "$S" F Enter
# Its peak, a share of the time, in percent (rocetop's share form, one
# decimal): 1000 pauses of 65535 quanta at 100G in each 1-s interval.
share=$(awk 'BEGIN { printf "%.1f%%", 100 * 1000 * 65535 * 512 / 1e11 }')
if wait_for '^critical pfc-storm  open' && wait_for "peak ${share}\$" &&
   cap | grep -qE '^evidence +priority 5 on p5\.pcap \(received\) paused 34% of 1\.00 s'; then
	pass "tui_fdetail_peak_share: the pfc-storm's peak in percent, $share, beside its evidence's 34%"
else
	bad tui_fdetail_peak_share "no 'peak $share' beside the evidence"
fi
if wait_for '^Flows \(0\)   none kept: Enter goes to the subject' ; then
	tmux send-keys -t "$S" Enter
	if wait_for 'view PFC' && wait_for 'pfc-storm: priority 5 on p5\.pcap'; then
		pass "tui_fdetail_noflows: a finding without flows; Enter goes to the PFC view"
	else
		bad tui_fdetail_noflows "Enter did not go to the PFC view"
	fi
else
	bad tui_fdetail_noflows "no detail of a pfc-storm without flows"
fi
tmux send-keys -t "$S" q
wait_for 'RC2=0' || bad tui_findings_quit2 "q did not end the view with 0"
exit $fail
