#!/usr/bin/env bash
# rocetop report --html FILE and --perfetto FILE write their files and say
# where, one line each, on standard output, with nothing else there; --text
# (or --json) prints the report as well, the lines then on standard error;
# --text or --json beside '-' (the page on standard output) is refused in one
# sentence. The capture: 4 RoCEv2 packets written here with scapy. No root.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_need_cmd report_outputs cmp
$PY -c 'import scapy.contrib.roce' 2>/dev/null || rt_skip report_outputs "$PY has no scapy"
rt_tmpdir T
fails=0
pass() { echo "PASS report_outputs $1"; }
fail() { echo "FAIL report_outputs $1: $2"; fails=$((fails + 1)); }
$PY - "$T/f.pcap" <<'PY' 2>/dev/null || rt_skip report_outputs "cannot write the capture"
import sys
from scapy.all import Ether, IP, UDP, Raw, wrpcap
from scapy.contrib.roce import BTH
pkts = []
for i in range(4):
    # both MAC addresses given: for a bare Ether() scapy asks for 10.88.0.2's (ARP, 2 s a frame)
    p = Ether(src="02:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff") / IP(src="10.88.0.1", dst="10.88.0.2") / UDP(sport=5000, dport=4791) / \
        BTH(opcode=4, dqpn=0x111, psn=i) / Raw(b"a" * 32)
    p.time = 1700000000.0 + i + 0.5
    pkts.append(p)
wrpcap(sys.argv[1], pkts)
PY
html_line="rocetop report: the HTML page is in $T/p.html (open it in a browser)"
trace_line="rocetop report: the Perfetto trace is in $T/p.json (open it in ui.perfetto.dev)"
"$ROCETOP" report "$T/f.pcap" >"$T/text" 2>/dev/null && grep -q '^RoCE .* 4 pkts' "$T/text" ||
	fail text "the text report of 4 packets: $(head -3 "$T/text")"
"$ROCETOP" report "$T/f.pcap" --json >"$T/json" 2>/dev/null || fail json "report --json failed"

# run NAME WANT-STDOUT-FILE WANT-STDERR-LINES ARGS...: exit 0, standard
# output as WANT, the lines WANT on standard error, the files written.
run() {
	local name=$1 want=$2 err=$3
	shift 3
	rm -f "$T/p.html" "$T/p.json"
	"$ROCETOP" report "$T/f.pcap" "$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name" "exit $rc: $(cat "$T/err")"
	elif ! cmp -s "$T/out" "$want"; then
		fail "$name" "standard output is $(wc -l <"$T/out") lines, not $(wc -l <"$want"): $(head -2 "$T/out")"
	elif [ "$(cat "$T/err")" != "$err" ]; then
		fail "$name" "standard error: '$(cat "$T/err")'"
	elif [[ " $* " == *" --html "* ]] && ! head -c 15 "$T/p.html" | grep -q '^<!DOCTYPE html>'; then
		fail "$name" "no page in $T/p.html"
	elif [[ " $* " == *" --perfetto "* ]] && ! $PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/p.json"; then
		fail "$name" "no trace in $T/p.json"
	else
		pass "$name: $(wc -l <"$T/out") line(s) on standard output${err:+, '$err' on standard error}"
	fi
}
printf '%s\n' "$html_line" >"$T/want1"
printf '%s\n%s\n' "$html_line" "$trace_line" >"$T/want2"
printf '%s\n' "$trace_line" >"$T/want3"
run html "$T/want1" "" --html "$T/p.html"
run both "$T/want2" "" --html "$T/p.html" --perfetto "$T/p.json"
run perfetto "$T/want3" "" --perfetto "$T/p.json"
run html_text "$T/text" "$html_line" --html "$T/p.html" --text
run html_json "$T/json" "$html_line" --html "$T/p.html" --json
run text_alone "$T/text" "" --text

for a in --text --json; do
	"$ROCETOP" report "$T/f.pcap" --html - $a >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ] &&
		pass "--html - $a: refused in one sentence ($(cat "$T/err"))" ||
		fail "html-stdout$a" "exit $rc, $(wc -c <"$T/out") bytes out: $(cat "$T/err")"
done
exit $((fails > 0))
