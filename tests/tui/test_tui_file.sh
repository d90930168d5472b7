#!/usr/bin/env bash
# The view's time controls on a capture (-r): pause, step, seek, speed, end.
# The capture is written here with scapy: 30 RoCEv2 packets of one flow (QP
# 0x111), packet i at i + 0.5 s, packets 10..19 CE-marked. With -d 1, the
# snapshot at position P s holds packets 0..P: P + 1 packets, of which
# max(0, min(P + 1, 20) - 10) CE. No root needed. The frames name both MAC
# addresses: a bare Ether() makes scapy ask the network for the
# destination's (an ARP of 2 s per frame when 10.88.0.2 has a route but no
# answer).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
S=rtuf$RT_ID
rt_tui_need tui_file
$PY -c 'import scapy.contrib.roce' 2>/dev/null || skip "$PY has no scapy"
rt_tmpdir DIR

$PY - "$DIR/f.pcap" <<'EOF' || skip "cannot write the capture"
import sys
from scapy.all import Ether, IP, UDP, Raw, wrpcap
from scapy.contrib.roce import BTH
pkts = []
for i in range(30):
    ecn = 3 if 10 <= i < 20 else 2
    p = (Ether(src="02:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff") / IP(src="10.88.0.1", dst="10.88.0.2", tos=(26 << 2) | ecn) /
         UDP(sport=5000, dport=4791) / BTH(opcode=4, dqpn=0x111, psn=i) / Raw(b"a" * 32))
    p.time = 1700000000.0 + i + 0.5
    pkts.append(p)
wrpcap(sys.argv[1], pkts)
EOF

pass() { echo "PASS $1"; }
bad() { echo "FAIL $1: $2"; fail=1; }
cap() { rt_cap; }
wait_for() { rt_wait_for "$1"; }
# at NAME POS PKTS CE: the header shows that position and those totals
at() {
	if wait_for "pos $2(\.0+)? s " && wait_for "^wire  RoCE $3 pkts .* CE [0-9.]+% \($4\) "; then
		pass "$1"
	else
		bad "$1" "expected pos $2 s, $3 packets, $4 CE"
		cap | head -3 | sed 's/^/    | /'
	fi
}

rt_tmux tui_file "$S" 80 24
# 0.2x: one snapshot every 5 s, time enough to pause on the first
tmux send-keys -t "$S" "$ROCETOP -r $DIR/f.pcap -d 1 --speed 0.2; echo RC=\$?" Enter
wait_for 'pos 0 s ' || { bad tui_file_start "the view did not come up"; cap; exit 1; }
tmux send-keys -t "$S" Space t
wait_for '\[PAUSED\]' && pass tui_file_pause || bad tui_file_pause "no [PAUSED]"
at tui_file_first 0 1 0
expect_speed() { wait_for "x$2 " && pass "$1" || bad "$1" "speed x$2 not shown"; }
tmux send-keys -t "$S" '}' '}'
expect_speed tui_file_speed_up 0.8
tmux send-keys -t "$S" .
at tui_file_step 1 2 0
tmux send-keys -t "$S" ']'
at tui_file_seek_forward 11 12 2
# the "seek to" status went with the seek (it stayed until a key once)
sleep 0.3
if cap | grep -q 'seek to'; then bad tui_file_seek_status "'seek to' still shown after the seek"; cap | head -3 | sed 's/^/    | /'
else pass tui_file_seek_status; fi
tmux send-keys -t "$S" '['
at tui_file_seek_back 1 2 0
tmux send-keys -t "$S" ']' ']'
sleep 0.5
at tui_file_seek_twice 21 22 10
tmux send-keys -t "$S" g
at tui_file_seek_start 0 1 0
tmux send-keys -t "$S" '{'
expect_speed tui_file_speed_down 0.4
# play to the end fast
tmux send-keys -t "$S" '}' '}' '}' '}' '}' '}' Space
if wait_for '\[END\]'; then pass tui_file_end; else bad tui_file_end "no [END]"; fi
at tui_file_end_totals 29 30 10
tmux send-keys -t "$S" q
wait_for '^RC=0$' && pass tui_file_quit || bad tui_file_quit "no RC=0 after q"
exit $fail
