#!/usr/bin/env bash
# --flow-timeout: flows idle past the timeout leave the kernel table, each
# counted once as evicted, after their counts were reported; nothing is
# evicted while traffic flows.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
A=rtv${RT_ID}a B=rtv${RT_ID}b IFA=rtv${RT_ID}x IFB=rtv${RT_ID}y
rt_need_root evict
rt_tmpdir tmp
rt_on_exit 'kill -9 "${rt:-0}"'
rt_netns "$A" "$B" && rt_veth "$A" "$IFA" "$B" "$IFB" && rt_no_ipv6 "$A" "$B" ||
	{ echo "FAIL evict: cannot build the namespaces"; exit 1; }

# Steady traffic for 2 s, then silence: idle flows go after 1.5 s (a sender
# paused longer than that on a busy machine would see its flows evicted twice).
# Under load, loading the BPF programs and importing scapy each take seconds,
# so nothing here is timed by guesswork: the sender imports scapy first and
# waits for "go"; rocetop runs until the test stops it; "go" is given once
# rocetop printed its first table (attached: it counts from then on); rocetop
# is stopped once every flow was evicted (or after 30 s: a failure).
ip netns exec "$A" "$PY" - "$IFA" "$tmp/go" <<'PY' >"$tmp/sent" 2>/dev/null &
import os, sys, time
from scapy.all import Ether, IP, UDP, Raw, sendp, conf
from scapy.contrib.roce import BTH
conf.verb = 0
frames = [Ether(dst="02:00:00:00:00:02") / IP(src=f"10.98.0.{q + 1}", dst="10.98.0.100", tos=2) /
          UDP(sport=50000 + q, dport=4791) / BTH(opcode=0x0a, dqpn=0x40 + q) / Raw(b"\0" * 64) for q in range(5)]
for _ in range(1200):
    if os.path.exists(sys.argv[2]):
        break
    time.sleep(0.05)
sock = conf.L2socket(iface=sys.argv[1])
end = time.time() + 2.0
n = 0
while time.time() < end:
    for f in frames:
        sock.send(f)
    n += 1
    time.sleep(0.02)
print(len(frames), n * len(frames))
PY
sender=$!
rt_on_exit "kill -9 $sender"
ip netns exec "$B" "$ROCETOP" -i "$IFB" -b --top 0 -d 0.2 --flow-timeout 1.5 --no-egress --csv "$tmp/csv" >"$tmp/out" 2>"$tmp/err" &
rt=$!
for _ in $(seq 600); do grep -q '^rocetop ' "$tmp/out" && break; sleep 0.05; done
touch "$tmp/go"
wait $sender
for _ in $(seq 300); do grep -q 'flows 0  evicted 5' "$tmp/out" && break; sleep 0.1; done
sleep 0.5	# one more interval after the last eviction
kill -INT $rt
wait $rt; rc=$?
read nflows npkts <"$tmp/sent"
tables=$(grep '^rocetop ' "$tmp/out" | grep -vc '  end of run$')
# Each table's header line: "RoCE ... flows F  evicted E"
grep -o 'flows [0-9]*  evicted [0-9]*' "$tmp/out" >"$tmp/fe"
last=$(tail -1 "$tmp/fe")
busy=$(grep -c "^flows $nflows  evicted 0$" "$tmp/fe")
values=$(awk '{print $4}' "$tmp/fe" | uniq | tr '\n' ' ')
# The count only rises, from 0 to one eviction per flow (flows whose last
# packets straddle an interval boundary go in different intervals).
rising=$(awk -v n="$nflows" 'NR == 1 && $4 != 0 {bad = 1} $4 < prev || $4 > n {bad = 1} {prev = $4} END {print bad ? "no" : "yes"}' "$tmp/fe")
if [ $rc = 0 ] && [ "$last" = "flows 0  evicted $nflows" ] && [ "$rising" = yes ] && [ "$busy" -ge 8 ]; then
	echo "PASS evict: $nflows idle flows evicted once each after the timeout, none in $busy busy intervals"
else
	echo "FAIL evict: rc=$rc tables=$tables last='$last' evicted over time: $values busy=$busy"
	exit 1
fi
# Nothing sent was lost to eviction: flows.csv adds up to what was sent.
total=$(awk -F, 'NR > 1 && $3 == "ingress" && $4 ~ /^10\.98\.0\./ {s += $7} END {print s + 0}' "$tmp/csv/flows.csv")
if [ "$total" = "$npkts" ]; then echo "PASS evict: every packet sent was reported before its flow was evicted ($npkts)"
else echo "FAIL evict: flows.csv holds $total packets, sent $npkts"; exit 1; fi
# stats.csv counts the evictions where they happened: the watched interface's
# ingress rows add up to the flows sent, and no other row has any.
ev_in=$(awk -F, -v i="$IFB" 'NR > 1 && $2 == i && $3 == "ingress" {s += $13} END {print s + 0}' "$tmp/csv/stats.csv")
ev_other=$(awk -F, -v i="$IFB" 'NR > 1 && !($2 == i && $3 == "ingress") {s += $13} END {print s + 0}' "$tmp/csv/stats.csv")
if [ "$ev_in" = "$nflows" ] && [ "$ev_other" = 0 ]; then echo "PASS evict: stats.csv has the $nflows evictions on $IFB ingress, none elsewhere"
else echo "FAIL evict: stats.csv evictions: $ev_in on $IFB ingress (want $nflows), $ev_other elsewhere"; exit 1; fi
