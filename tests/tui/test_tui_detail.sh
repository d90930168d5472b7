#!/usr/bin/env bash
# The flow detail of a stalled flow, in tmux at 80x24 in the C locale (the
# sparklines in ASCII, "_" lowest to "#" highest):
#   - a pkts/s sparkline that shows the stall: the capture (scapy, written
#     here) sends 10 packets in each second 0..11 but 5, 6 and 7 (a flow
#     PFC stopped), so the 12 intervals of -d 1 are 10 x5, 0 x3, 10 x4:
#     "#####___####", max 10;
#   - the last opcode by the name tshark's dissection of the same capture
#     gives (Opcode: Reliable Connection (RC) - RDMA WRITE Middle (7)), as
#     "RC RDMA WRITE Middle (0x07)". No root.
# The frames name both MAC addresses: a bare Ether() makes scapy ask the
# network for the destination's (an ARP of 2 s per frame when 10.88.0.2 has
# a route but no answer: 3 minutes for these 90 frames).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
S=rtud$RT_ID
rt_tui_need tui_detail tshark
$PY -c 'import scapy.contrib.roce' 2>/dev/null || skip "$PY has no scapy"
rt_tmpdir DIR
$PY - "$DIR/f.pcap" <<'PY' 2>/dev/null || skip "cannot write the capture"
import sys
from scapy.all import Ether, IP, UDP, Raw, wrpcap
from scapy.contrib.roce import BTH
pkts, psn = [], 0
for sec in range(12):
    if 5 <= sec <= 7:
        continue
    for j in range(10):
        p = Ether(src="02:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff") / IP(src="10.88.0.1", dst="10.88.0.2", tos=(26 << 2) | 2) / \
            UDP(sport=5000, dport=4791) / BTH(opcode=7, dqpn=0x111, psn=psn) / Raw(b"a" * 32)
        p.time = 1700000000.0 + sec + 0.05 + j * 0.09
        psn += 1
        pkts.append(p)
wrpcap(sys.argv[1], pkts)
PY
# tshark's name of the last packet's opcode, in short: "RC RDMA WRITE Middle (0x07)"
op=$(tshark -r "$DIR/f.pcap" -V 2>/dev/null | grep -o 'Opcode: .*' | tail -1 |
	sed -E 's/^Opcode: [^(]*\(([A-Z]+)\) - (.*) \(([0-9]+)\)$/\1 \2 \3/')
op_name=${op% *} op_num=$(printf '0x%02x' "${op##* }")
[ "$op_name" = "RC RDMA WRITE Middle" ] || skip "tshark names the opcode '$op'"

rt_tmux tui_detail "$S" 80 24
tmux send-keys -t "$S" "LC_ALL=C LANG=C $ROCETOP -r $DIR/f.pcap -d 1 --speed 100" Enter
rt_wait_for '\[END\]' 100 || { echo "FAIL tui_detail_start: the capture did not play to its end"; rt_cap; exit 1; }
tmux send-keys -t "$S" Enter
rt_wait_for '^flow 10\.88\.0\.1 > 10\.88\.0\.2' 20 || { echo "FAIL tui_detail_open: no detail"; rt_cap; exit 1; }
if rt_wait_for '^pkts/s +max +10 #####___####$' 10; then
	echo "PASS tui_detail_pkts_spark: $(rt_cap | grep '^pkts/s  max')"
else
	echo "FAIL tui_detail_pkts_spark: want 'pkts/s  max 10 #####___####', the detail shows:"
	rt_cap | sed -n '6,20p' | sed 's/^/    | /'
	fail=1
fi
if rt_cap | grep -qxF "last opcode $op_name ($op_num)"; then
	echo "PASS tui_detail_opcode: last opcode $op_name ($op_num), as tshark names it"
else
	echo "FAIL tui_detail_opcode: want 'last opcode $op_name ($op_num)': $(rt_cap | grep opcode)"
	fail=1
fi
tmux send-keys -t "$S" q
exit $fail
