#!/usr/bin/env bash
# The live run's first interval, taken late: the first snapshot counts every
# frame since the BPF programs attached, so it is rated over the time since
# then, not over one interval (-d) when it came later than that. rocetop is
# stopped (SIGSTOP) from the moment its XDP program is on the interface
# until the sender has sent its frames and 2 s more have passed; the first
# interval must cover that hold by the test's own clock, and its packet rate
# times its length must give back the sender's tally.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
A=rtf${RT_ID}a B=rtf${RT_ID}b IFA=rtf${RT_ID}x IFB=rtf${RT_ID}y
rt_need_root first_late
rt_tmpdir tmp
rt_on_exit 'kill -CONT "${rt:-0}" 2>/dev/null; kill -9 "${rt:-0}" "${sender:-0}" 2>/dev/null'
rt_netns "$A" "$B" && rt_veth "$A" "$IFA" "$B" "$IFB" && rt_no_ipv6 "$A" "$B" ||
	{ echo "FAIL first_late: cannot build the namespaces"; exit 1; }

# The sender imports scapy first and sends once "go" exists: 40 frames of
# one RoCE flow, then prints how many it sent.
ip netns exec "$A" "$PY" - "$IFA" "$tmp/go" <<'PY' >"$tmp/sent" 2>/dev/null &
import os, sys, time
from scapy.all import Ether, IP, UDP, Raw, conf
from scapy.contrib.roce import BTH
conf.verb = 0
f = (Ether(dst="02:00:00:00:00:02") / IP(src="10.97.0.1", dst="10.97.0.100", tos=2) /
     UDP(sport=50000, dport=4791) / BTH(opcode=0x0a, dqpn=0x41) / Raw(b"\0" * 64))
for _ in range(1200):
    if os.path.exists(sys.argv[2]):
        break
    time.sleep(0.05)
sock = conf.L2socket(iface=sys.argv[1])
for _ in range(40):
    sock.send(f)
print(40)
PY
sender=$!
ip netns exec "$B" "$ROCETOP" -i "$IFB" -b --json --top 0 -d 1 -n 2 --no-egress >"$tmp/out" 2>"$tmp/err" &
rt=$!
# Stopped as soon as its XDP program is attached: its timer cannot have run
# out yet (one interval, 1 s, from after the attach).
for _ in $(seq 600); do ip -n "$B" link show dev "$IFB" | grep -q 'prog/xdp' && break; sleep 0.01; done
kill -STOP $rt
t_stop=$(date +%s.%N)
touch "$tmp/go"
wait $sender
sleep 2
t_cont=$(date +%s.%N)
kill -CONT $rt
for _ in $(seq 1000); do [ -s "$tmp/out" ] && break; sleep 0.01; done
t_first=$(date +%s.%N)
wait $rt
rc=$?
read -r sent <"$tmp/sent"
# By this clock: held, the seconds rocetop was stopped after its attach (the
# least the first interval can be); most, from its attach to its first
# line, 0.3 s more for the attach itself (the most it can be).
held=$(awk -v a="$t_stop" -v b="$t_cont" 'BEGIN {printf "%.3f", b - a}')
most=$(awk -v a="$t_stop" -v b="$t_first" 'BEGIN {printf "%.3f", b - a + 0.3}')
read -r interval pkts <<<"$("$PY" - "$tmp/out" <<'PY'
import json, sys
first = json.loads(open(sys.argv[1]).readline())
flows = [f for f in first.get("flows", []) if f.get("src") == "10.97.0.1"]
pps = sum(f.get("pkts_per_s", 0) for f in flows)
print("%.3f %.1f" % (first["interval"], pps * first["interval"]))
PY
)"
if [ "$rc" = 0 ] && awk -v i="${interval:-0}" -v h="$held" -v m="$most" 'BEGIN {exit !(i >= h && i <= m)}'; then
	echo "PASS first_late: the first interval covers the ${held} s rocetop was held after attaching, and no more than until its first line (${interval} s, at most $most)"
else
	echo "FAIL first_late: rc=$rc, the first interval ${interval:-none} s; rocetop was held ${held} s after attaching, its first line came at most $most s after ($(head -c 300 "$tmp/err"))"
	exit 1
fi
if awk -v p="${pkts:-0}" -v n="${sent:-x}" 'BEGIN {exit !(p >= n - 0.5 && p <= n + 0.5)}'; then
	echo "PASS first_late: its packet rate times its length gives the $sent frames sent"
else
	echo "FAIL first_late: its packet rate times its length gives ${pkts:-none}, sent ${sent:-none}"
	exit 1
fi
