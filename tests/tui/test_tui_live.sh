#!/usr/bin/env bash
# The live view under tmux, on known traffic: a veth pair with one end in a
# namespace, rocetop -i on the other end, and send_known.py sending a fixed
# set of RoCEv2 packets and PFC frames. Every number asserted below comes from
# send_known.py's own tally (see its comments), never from rocetop's output.
#
#   ingress: flow A 10.77.0.2 > 10.77.0.1 QP 0xabc  40 pkts, 10 CE
#            flow B 10.77.0.2 > 10.77.0.1 QP 0x222  20 pkts, 0 CE
#            PFC prio 3: 5 pauses of 0xffff quanta + 2 XON = 7 frames
#   egress:  CNPs   10.77.0.1 > 10.77.0.2 QP 0x345   6 CNPs
#            flow C 10.77.0.1 > 10.77.0.2 QP 0x456  5 ACK + 4 NAK + 3 RNR NAK = 12
#   total RoCE 78 packets, 10 CE (12.82 %), 6 CNPs, 4 NAKs, 3 RNR NAKs, 4 flows
set -u
cd "$(dirname "$0")/../.."
SEND=$PWD/tests/tui/send_known.py
. tests/lib.sh
N=rtu$RT_ID
S=rtu$RT_ID
rt_need_root tui_live "needs root for namespaces and BPF"
rt_tui_need tui_live
$PY -c 'import scapy.contrib.roce' 2>/dev/null || skip "$PY has no scapy"

rt_on_exit 'tmux kill-session -t "$S"; tmux kill-session -t "${S}b"; ip link del "${N}a"'
rt_netns "${N}n" || skip "cannot create a network namespace"
ip link add "${N}a" type veth peer name "${N}b" || skip "cannot create a veth pair"
ip link set "${N}b" netns "${N}n"
sysctl -qw "net.ipv6.conf.${N}a.disable_ipv6=1"
ip netns exec "${N}n" sysctl -qw "net.ipv6.conf.${N}b.disable_ipv6=1"
ip addr add 10.77.0.1/24 dev "${N}a"
ip link set "${N}a" up
ip netns exec "${N}n" ip addr add 10.77.0.2/24 dev "${N}b"
ip netns exec "${N}n" ip link set "${N}b" up

pass() { echo "PASS $1"; }
bad() { echo "FAIL $1: $2"; fail=1; }
cap() { tmux capture-pane -p -t "${1:-$S}"; }
# wait_for PATTERN [SESSION]: up to 6 s for an extended regex on the screen
wait_for() {
	for _ in $(seq 60); do
		cap "${2:-$S}" | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
keys() { tmux send-keys -t "$S" "$@"; sleep 0.3; }
# The destination QPs of the table, top to bottom (decimal, as every output prints them).
qps() { cap | grep -oE '^10\.77\.0\.[0-9]+ +10\.77\.0\.[0-9]+ +[0-9]+ ' | awk '{ print $3 }' | tr '\n' ' ' | sed 's/ $//'; }
expect_qps() {	# waits up to 3 s: a loaded machine draws late
	local got _
	for _ in $(seq 30); do
		got=$(qps)
		[ "$got" = "$2" ] && break
		sleep 0.1
	done
	[ "$got" = "$2" ] && pass "$1" || bad "$1" "rows '$got', expected '$2'"
}
# expect_line NAME REGEX: some line of the screen matches
expect_line() {
	if cap | grep -qE -- "$2"; then pass "$1"; else bad "$1" "no line matches /$2/"; cap | sed 's/^/    | /'; fi
}
widths_ok() {	# name width height: no line wider, and the screen has that many lines
	local w
	w=$(cap | awk -v W="$2" 'length($0) > W { print length($0); exit }')
	[ -z "$w" ] && [ "$(cap | wc -l)" -eq "$3" ] && pass "$1" ||
		bad "$1" "a line of $w columns or $(cap | wc -l) lines on a $2x$3 screen"
}

tmux new-session -d -s "$S" -x 80 -y 24 "env PS1='$ ' TERM=screen bash --norc --noprofile" ||
	skip "tmux cannot start a session"
tmux send-keys -t "$S" "$ROCETOP -i ${N}a -d 0.5 --no-nic; echo RC=\$?" Enter
wait_for 'no RoCEv2 flows seen yet' || { bad tui_start "the view did not come up"; cap; exit 1; }
[ "$(tmux display -p -t "$S" '#{alternate_on}')" = 1 ] && pass tui_alternate_screen ||
	bad tui_alternate_screen "the view is not on the alternate screen"

MAC=$(cat "/sys/class/net/${N}a/address")
PMAC=$(ip netns exec "${N}n" cat "/sys/class/net/${N}b/address")
ip netns exec "${N}n" timeout 20 $PY "$SEND" in "${N}b" "$MAC" >/dev/null 2>&1 || bad tui_send "send_known.py in failed"
timeout 20 $PY "$SEND" out "${N}a" "$PMAC" >/dev/null 2>&1 || bad tui_send "send_known.py out failed"

# Totals since the start: exact counts.
keys t
wait_for 'RoCE 78 pkts' || bad tui_totals "the header never showed 78 RoCE packets"
expect_line tui_header_roce '^wire  RoCE 78 pkts .* CE 12\.82% \(10\)  CNP 6  NAK 4  RNR 3$'
expect_line tui_header_flows '^flows 4  evicted 0 '
expect_line tui_header_pfc '^PFC  p3 7 xon 2 paused '
expect_line tui_header_source "^rocetop [0-9:]{8}  every 500 ms  \[TOTALS\]  view flows  ${N}a$"
# default order: congestion (CE + CNP + NAK + RNR): A 10, C 7, CNPs 6, B 0
expect_qps tui_sort_congestion '2748 1110 837 546'
expect_line tui_row_a '^10\.77\.0\.2 +10\.77\.0\.1 +2748 in +40 +4\.88k +10 +0 +0$'
expect_line tui_row_b '^10\.77\.0\.2 +10\.77\.0\.1 +546 in +20 +2\.76k +0 +0 +0$'
expect_line tui_row_cnp '^10\.77\.0\.1 +10\.77\.0\.2 +837 out +6 +444 +0 +6 +0$'
expect_line tui_row_c '^10\.77\.0\.1 +10\.77\.0\.2 +1110 out +12 +744 +0 +0 +4$'
widths_ok tui_80x24_layout 80 24
expect_line tui_80x24_titles '^SRC +DST +DQPN DIR +PKTS +BYTES +CE +CNP +NAK$'
expect_line tui_80x24_keys '^F1Help +F3Search F4Filter F5View'

# F6: the sort menu; pkts is the 8th entry (congestion src dst dqpn dir iface prio pkts)
keys F6
expect_line tui_sort_menu '^ Sort by '
keys Down Down Down Down Down Down Down Enter
expect_qps tui_sort_pkts '2748 546 1110 837'
keys I
expect_qps tui_sort_invert '837 1110 546 2748'
# > moves the sort to the next column (BYTES), < back to PKTS, descending again
keys '>'
expect_qps tui_sort_next_col '2748 546 1110 837'
expect_line tui_sort_status 'sort bytes '
keys '<' '<' '<'
expect_line tui_sort_prev_col 'sort dqpn '
expect_qps tui_sort_dqpn '546 837 1110 2748'
# a mouse click on the title of CNP (x 67, on the titles' line): X10 encoding,
# press then release; the line is found on the screen (the header's height varies)
ty=$(cap | grep -nE '^SRC +DST' | head -1 | cut -d: -f1)
yc=$(printf "\\$(printf '%03o' $((32 + ${ty:-5})))")
tmux send-keys -t "$S" -l "$(printf '\033[M d')$yc"
tmux send-keys -t "$S" -l "$(printf '\033[M#d')$yc"
sleep 0.3
expect_line tui_mouse_sort 'sort cnp '
expect_qps tui_mouse_sort_rows '837 546 2748 1110'

# Filter: / text Enter keeps the matching rows, / Esc clears.
keys / 5 4 6 Enter
expect_qps tui_filter_qp '546'
expect_line tui_filter_status '^\[filter: 546\]'
keys / Escape
expect_qps tui_filter_cleared '837 546 2748 1110'
keys / 0 x 4 5 6 Enter
expect_qps tui_filter_hexqp '1110'
keys / BSpace BSpace BSpace BSpace BSpace '1' '0' '.' '7' '7' '.' '0' '.' '2' Enter
expect_line tui_filter_addr 'rows 4( |$)'
# / shows the filter in force; what is typed first replaces it (not appended:
# "10.77.0.2546" would match nothing)
keys / 0 x 2 2 2 Enter
expect_qps tui_filter_replaced '546'
expect_line tui_filter_replaced_status '^\[filter: 0x222\]'
keys / Escape

# Host pairs: over QPs and directions.
keys 2
expect_line tui_pairs_fwd '^10\.77\.0\.2 +10\.77\.0\.1 +2 +60 +7\.64k +10 +0 +0 +0$'
expect_line tui_pairs_rev '^10\.77\.0\.1 +10\.77\.0\.2 +2 +18 +1\.19k +0 +6 +4 +3$'
# PFC per interface and priority: 7 frames, 2 XON, 5 x 65535 quanta
keys 3
expect_line tui_pfc_row "^${N}a +in +3 +7 +2 +327675 "
# Detail of flow A (first by congestion again): its reverse flows are the CNP and the ACK/NAK flows
keys 1 F6 Home Enter Home Enter
expect_line tui_detail_title '^flow 10\.77\.0\.2 > 10\.77\.0\.1  QP 2748  ingress'
expect_line tui_detail_reverse_cnp '^  10\.77\.0\.1 +> 10\.77\.0\.2 +837 out .* CNP 6 '
expect_line tui_detail_reverse_nak '^  10\.77\.0\.1 +> 10\.77\.0\.2 +1110 out .* NAK 4 '
expect_line tui_detail_pkts '^pkts/s .* 40$'
keys Escape
expect_line tui_detail_back 'view flows'

# Pause, interval, help.
keys Space
expect_line tui_pause '\[PAUSED\]'
keys Space +
expect_line tui_interval_up 'every 1\.00 s'
keys h
expect_line tui_help '^rocetop keys'
keys x

# 200x60 with the averages: more columns, nothing wider than the screen.
keys a
tmux resize-window -t "$S" -x 200 -y 60
sleep 0.8
widths_ok tui_200x60_layout 200 60
expect_line tui_200x60_titles '^SRC +DST +DQPN DIR IFACE +DSCP/P +PKTS +BYTES +CE +CNP +NAK +RNR +Gb2s +Gb10s +Gb40s +CE2s +CE10s +CE40s +CNP2s +CNP10s +CNP40s +IDLE +AGE$'
expect_line tui_200x60_header 'RoCE 78 pkts'

# q quits: exit 0, the alternate screen is gone, the shell is back.
keys q
if wait_for '^RC=0$'; then pass tui_quit_exit0; else bad tui_quit_exit0 "no RC=0 after q"; cap | tail -5; fi
[ "$(tmux display -p -t "$S" '#{alternate_on}')" = 0 ] && pass tui_quit_restores ||
	bad tui_quit_restores "the alternate screen is still on"

# -n 3 quits by itself after three refreshes; NO_COLOR leaves no colour on screen.
tmux new-session -d -s "${S}b" -x 80 -y 24 "env PS1='$ ' TERM=screen bash --norc --noprofile"
tmux send-keys -t "${S}b" "NO_COLOR=1 $ROCETOP -i ${N}a -d 0.6 -n 3 --no-nic; echo RC=\$?" Enter
wait_for '^F1Help' "${S}b" || bad tui_no_color "the view did not come up"
if tmux capture-pane -e -p -t "${S}b" | grep -qP '\x1b\[([0-9;]*;)?(3[0-7]|4[0-7]|9[0-7]|38|48)(;|m)'; then
	bad tui_no_color "colour escape sequences on screen with NO_COLOR set"
else
	pass tui_no_color
fi
if wait_for '^RC=0$' "${S}b"; then pass tui_iterations; else bad tui_iterations "-n 3 did not end with exit 0"; fi
[ "$(tmux display -p -t "${S}b" '#{alternate_on}')" = 0 ] && pass tui_iterations_restores ||
	bad tui_iterations_restores "the alternate screen is still on"
# ...and with colours allowed, the title bar is coloured.
tmux send-keys -t "${S}b" "clear; $ROCETOP -i ${N}a -d 0.6 -n 2 --no-nic; echo RC2=\$?" Enter
wait_for '^F1Help' "${S}b"
tmux capture-pane -e -p -t "${S}b" | grep -qP '\x1b\[([0-9;]*;)?(3[0-7]|4[0-7])(;|m)' && pass tui_color ||
	bad tui_color "no colour on screen without NO_COLOR"
wait_for '^RC2=0$' "${S}b" || bad tui_iterations2 "-n 2 did not end with exit 0"
exit $fail
