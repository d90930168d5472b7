#!/usr/bin/env bash
# < and > move the sort round a ring: congestion (the default, no column of
# its own), then the columns on screen left to right, and back to congestion,
# either way. At 80 columns the flows view shows SRC DST DQPN DIR PKT/s Gb/s
# CE% CNP/s NAK/s, whose sort names (the F6 menu's) are the ring below. The
# capture: 3 RoCEv2 packets of one flow, written here with scapy. No root.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
S=rtus$RT_ID
rt_tui_need tui_sort
$PY -c 'import scapy.contrib.roce' 2>/dev/null || skip "$PY has no scapy"
rt_tmpdir DIR
$PY - "$DIR/f.pcap" <<'PY' || skip "cannot write the capture"
import sys
from scapy.all import Ether, IP, UDP, Raw, wrpcap
from scapy.contrib.roce import BTH
pkts = []
for i in range(3):
    # both MAC addresses given: for a bare Ether() scapy asks for 10.88.0.2's (ARP, 2 s a frame)
    p = Ether(src="02:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff") / IP(src="10.88.0.1", dst="10.88.0.2") / UDP(sport=5000, dport=4791) / \
        BTH(opcode=4, dqpn=0x111, psn=i) / Raw(b"a" * 32)
    p.time = 1700000000.0 + i + 0.5
    pkts.append(p)
wrpcap(sys.argv[1], pkts)
PY
ring=(congestion src dst dqpn dir pkts bytes ce cnp nak)
titles='^SRC +DST +DQPN +DIR +PKT/s +Gb/s +CE% +CNP/s +NAK/s *$'

rt_tmux tui_sort "$S" 80 24
tmux send-keys -t "$S" "$ROCETOP -r $DIR/f.pcap -d 1 --speed 0.2" Enter
rt_wait_for 'pos 0 s ' || { echo "FAIL tui_sort_start: the view did not come up"; rt_cap; exit 1; }
tmux send-keys -t "$S" Space
rt_wait_for '\[PAUSED\]' || { echo "FAIL tui_sort_pause: no [PAUSED]"; exit 1; }
rt_wait_for "$titles" 10 && echo "PASS tui_sort_titles: the 9 columns the ring names" ||
	{ echo "FAIL tui_sort_titles: $(rt_cap | grep '^SRC')"; fail=1; }

# press KEY N: press KEY N times, each time waiting for the status the ring
# says comes next; the first status that differs fails.
press() {
	local key=$1 n=$2 i=0 step=1 got
	[ "$key" = '<' ] && step=$((${#ring[@]} - 1))
	for ((k = 0; k < n; k++)); do
		i=$(((i + step) % ${#ring[@]}))
		tmux send-keys -t "$S" "$key"
		if ! rt_wait_for "^sort ${ring[i]} " 20; then
			got=$(rt_cap | grep -o '^sort [a-z]*')
			echo "FAIL tui_sort_$3: press $((k + 1)) of '$key' gave '$got', the ring says 'sort ${ring[i]}'"
			fail=1
			return
		fi
	done
	echo "PASS tui_sort_$3: $n presses of '$key' went round to 'sort ${ring[i]}'"
}
rt_wait_for '^sort congestion ' 10 || { echo "FAIL tui_sort_default: not sorted by congestion"; fail=1; }
press '>' ${#ring[@]} right
press '<' ${#ring[@]} left
# and past the end once more: > from nak is congestion, < from congestion is nak
press '<' 1 left_wrap
tmux send-keys -t "$S" '>'
rt_wait_for '^sort congestion ' 20 && echo "PASS tui_sort_right_wrap: > after nak is congestion" ||
	{ echo "FAIL tui_sort_right_wrap: $(rt_cap | grep -o '^sort [a-z]*')"; fail=1; }
tmux send-keys -t "$S" q
exit $fail
