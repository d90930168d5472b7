#!/usr/bin/env bash
# IPFIX over UDP while the collector is away and after it comes back. The
# ICMP port unreachable answering one message used to make the next send
# fail, and that message (a template, or flows' records) was lost: "1 of 3
# messages were not sent". rocetop -i on a veth (-d 0.25, --csv) counts
# rocetop-gen's traffic for 3 s and exports over UDP to a port of its
# namespace's loopback that nobody holds for the first second; then a UDP
# socket of the test's binds it. tcpdump on that loopback is the truth of what
# went out: tshark's dissection holds both templates and as many data records
# as flows.csv has rows, with the same per-flow sums (nothing lost to an ICMP
# error); the socket received every message tshark saw sent after it bound;
# ICMP port unreachables were seen (the case happened); rocetop says no
# message went unsent.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_need_cmd ipfix_icmp tshark tcpdump
rt_two_hosts ipfix_icmp rtic
T=$tmp
CHK="$PY tests/ipfix/ipfix_check.py"
U=$(ip netns exec "$B" "$PY" -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for c in udp icmp; do
	f="udp dst port $U"; [ $c = icmp ] && f=icmp
	ip netns exec "$B" tcpdump -i lo -U --immediate-mode -n -w "$T/$c.pcap" "$f" 2>"$T/$c.err" &
	pids+=("$!")
	rt_wait_until "$!" 100 grep -q "listening on" "$T/$c.err" || { echo "FAIL ipfix_icmp: tcpdump did not start"; exit 1; }
done
tds="${pids[*]: -2}"
ip netns exec "$B" "$ROCETOP" -i "$IFB" -d 0.25 -D --flow-timeout 0 --csv "$T/csv" --ipfix "127.0.0.1:$U" 2>"$T/rt.err" &
rt=$!; pids+=("$rt")
rt_wait_file "$T/csv/flows.csv" "$rt" 300 || { echo "FAIL ipfix_icmp: rocetop did not start: $(cat "$T/rt.err")"; exit 1; }
"$ROCETOP_GEN" --scenario steady --duration 3 --rate 400 --tx-data "$A:$IFA" -q &
gen=$!; pids+=("$gen")
sleep 1
ip netns exec "$B" "$PY" - "$U" "$T/got" <<'PYEOF' &
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
bound = time.time()
s.settimeout(2)
n = 0
try:
    while True:
        s.recv(65536)
        n += 1
except OSError:
    pass
open(sys.argv[2], "w").write(f"{bound:.6f} {n}\n")
PYEOF
col=$!; pids+=("$col")
wait "$gen" || { echo "FAIL ipfix_icmp: rocetop-gen failed"; exit 1; }
sleep 0.6
kill -INT "$rt"; wait "$rt"; rc=$?
wait "$col"
sleep 0.3
for p in $tds; do kill -INT "$p"; wait "$p"; done
[ "$rc" = 0 ] || { echo "FAIL ipfix_icmp: rocetop exited $rc: $(head -3 "$T/rt.err")"; exit 1; }
fails=0
$CHK csv "$T/csv" >"$T/csv.json"
$CHK tshark "$T/udp.pcap" udp "$U" >"$T/ts.json"
if out=$($CHK cmp "$T/csv.json" "$T/ts.json" tshark 2>&1); then
	echo "PASS ipfix_icmp: every flows.csv record went out ($($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["records"], "records in", d["messages"], "messages,", d["templates"], "template records")' "$T/ts.json"))"
else
	echo "FAIL ipfix_icmp: what went out differs from flows.csv: $out"; fails=$((fails + 1))
fi
read -r bound got <"$T/got"
sent=$(tshark -r "$T/udp.pcap" -Y "frame.time_epoch > $bound" -T fields -e frame.number | wc -l)
icmp=$(tshark -r "$T/icmp.pcap" -Y "icmp.type == 3 && icmp.code == 3" -T fields -e frame.number | wc -l)
tmpl=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["templates"])' "$T/ts.json")
if [ "$got" = "$sent" ] && [ "$sent" -gt 0 ] && [ "$icmp" -gt 0 ] && [ "$tmpl" -ge 2 ]; then
	echo "PASS ipfix_icmp: after $icmp port unreachables the collector received all $got messages sent once it was there"
else
	echo "FAIL ipfix_icmp: collector received $got, tshark saw $sent sent after it bound, $icmp ICMP, $tmpl template records"
	fails=$((fails + 1))
fi
if grep -q "were not sent" "$T/rt.err"; then
	echo "FAIL ipfix_icmp: rocetop says: $(grep "were not sent" "$T/rt.err")"; fails=$((fails + 1))
else
	echo "PASS ipfix_icmp: rocetop lost no message"
fi
exit $((fails > 0))
