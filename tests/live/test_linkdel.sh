#!/usr/bin/env bash
# A watched interface deleted and created again: rocetop
# says so on stderr and in a note, keeps running, re-attaches when the name
# returns, and counts the frames sent after that. Expected counts are the
# frames this test sends with scapy (K1 before, K2 after the deletion).
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
PY=${PYTHON:-/usr/bin/python3}
name=link_deleted_and_back
if [ "$(id -u)" -ne 0 ]; then echo "FAIL $name: needs root (CI runs as root)"; exit 1; fi
S=$$$RANDOM
NA=rto-lda-$S NB=rto-ldb-$S
T=$(mktemp -d /tmp/rto-ld.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; ip netns del $NA 2>/dev/null; ip netns del $NB 2>/dev/null; rm -rf "$T"' EXIT
K1=30 K2=45
pair() {
	ip -n $NA link add vA type veth peer name vB netns $NB &&
	ip -n $NA link set vA address 02:00:00:00:0a:01 && ip -n $NB link set vB address 02:00:00:00:0b:01 &&
	ip -n $NA link set vA up && ip -n $NB link set vB up
}
send() {	# send N: N RoCEv2 WRITEs from nsA to vB
	ip netns exec $NA $PY - "$1" 2>/dev/null <<'PY'
import sys
from scapy.all import Ether, IP, UDP, Raw, sendp, conf
from scapy.contrib.roce import BTH
conf.verb = 0
f = Ether(src="02:00:00:00:0a:01", dst="02:00:00:00:0b:01") / IP(src="10.9.0.1", dst="10.9.0.2", tos=0x6a) / \
    UDP(sport=49152, dport=4791) / BTH(opcode=0x0a, dqpn=0x77, psn=1) / Raw(b"\xab" * 64)
sendp([f] * int(sys.argv[1]), iface="vA")
PY
}
ip netns add $NA && ip netns add $NB && pair || { echo "FAIL $name: cannot build the namespaces"; exit 1; }
ip netns exec $NB "$ROCETOP" -i vB -b -d 0.3 --no-nic --csv "$T/csv" >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 100); do [ -s "$T/csv/stats.csv" ] || [ -s "$T/out" ] && break; sleep 0.1; done
sleep 0.5
send $K1
sleep 1
ip -n $NB link del vB
sleep 1.5
pair
sleep 1.5
send $K2
sleep 1.5
kill -INT $pid; wait $pid; rc=$?; pid=
fail=0
[ $rc = 0 ] || { echo "  rocetop exited with $rc"; fail=1; }
grep -q 'vB has disappeared' "$T/err" || { echo "  stderr does not say vB disappeared: $(head -c 300 "$T/err")"; fail=1; }
grep -q 'vB is back (ifindex [0-9]*): attached again' "$T/err" || { echo "  stderr does not say vB is back"; fail=1; }
grep -q '^note: vB is gone' "$T/out" || { echo "  no note 'vB is gone' in the view"; fail=1; }
got=$($PY - "$T/csv/flows.csv" <<'PY'
import csv, sys
print(sum(int(r["pkts"]) for r in csv.DictReader(open(sys.argv[1]))
          if r["ifname"] == "vB" and r["dir"] == "ingress" and r["dqpn"] == str(0x77)))
PY
)
[ "$got" = $((K1 + K2)) ] || { echo "  flows.csv counts $got RoCE frames on vB, sent $K1 + $K2"; fail=1; }
[ $fail = 0 ] && echo "PASS $name: said, noted, re-attached; $got frames = $K1 before + $K2 after" || echo "FAIL $name"
exit 0
