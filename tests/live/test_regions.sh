#!/usr/bin/env bash
# One flow counted by two CPUs, live: the kernel flow table has a region per
# CPU, and user space reads a flow from the regions it saw it in
# (user/sources/live.c, read_changed). The sender is pinned to CPU 0, then to
# CPU 1 in a later interval (a region seen for the first time), then to both
# at once (both regions in one interval); the receiving veth's XDP program
# runs on the sender's CPU. flows.csv's rows of the flow must add up to what
# the sender sent (its own tally from scapy's bytes), and the kernel table
# (bpftool's dump, regions of 16 slots with --max-flows 16) must hold the
# flow in two regions, with the same total: else the test did not test it.
# --no-nic: the wire's flows alone (no NIC here to join).
#   A [x] -- [y] B         rocetop -i y --no-egress --no-nic in B
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
DQPN=4660
rt_need_cmd regions taskset bpftool
[ "$(nproc)" -ge 2 ] || rt_skip regions "needs two CPUs"
rt_two_hosts regions rtr
X=$IFA Y=$IFB MAC_X=$MAC_A MAC_Y=$MAC_B
rt_on_exit 'kill -9 "${rt:-0}" 2>/dev/null'

ip netns exec "$B" "$ROCETOP" -i "$Y" --no-egress --no-nic --max-flows 16 --csv "$tmp/csv" -D -d 0.2 \
	--flow-timeout 0 2>"$tmp/err" & rt=$!
rt_wait_file "$tmp/csv/flows.csv" "$rt"
sleep 0.3
send() {	# CPU N: sends N frames from CPU, appends "PKTS BYTES" to the tally
	ip netns exec "$A" taskset -c "$1" "$PY" tests/live/send_regions.py "$X" "$MAC_X" "$MAC_Y" \
		10.98.0.1 10.98.0.2 "$DQPN" "$2" >>"$tmp/tally" 2>>"$tmp/py.err"
}
send 0 10 && sleep 0.7 && send 1 15 && sleep 0.7 || { echo "FAIL regions: the sender failed: $(cat "$tmp/py.err")"; exit 1; }
send 0 7 & s0=$!
send 1 9 & s1=$!
wait $s0 && wait $s1 || { echo "FAIL regions: the sender failed: $(cat "$tmp/py.err")"; exit 1; }
sleep 0.7
# The kernel table: slot index / 16 is the region (CPU); the flow's slots.
# Other rocetops may run (maps named flows too): this one's, by its fds.
id=
for m in $(sed -n 's/^map_id:[[:space:]]*//p' /proc/$rt/fdinfo/* 2>/dev/null | sort -u); do
	bpftool -j map show id "$m" 2>/dev/null | grep -q '"name":"flows"' && id=$m
done
bpftool -j map dump id "${id:-0}" >"$tmp/dump.json" 2>"$tmp/bpftool.err"
slots=$("$PY" -c '
import json, sys
want = int(sys.argv[1])
per = {}
for e in json.load(open(sys.argv[2])):
    e = e.get("formatted", e)
    v = e["value"]
    n = sum(v["v"]["ecn"])  # a slot keeps no pkts: one ECN codepoint a frame
    if v["k"]["dqpn"] == want and n:
        r = int(e["key"]) // 16
        per[r] = per.get(r, 0) + n
print(len(per), sum(per.values()), " ".join(f"cpu{r}:{n}" for r, n in sorted(per.items())))' \
	"$DQPN" "$tmp/dump.json" 2>&1)
kill -INT $rt; wait $rt; rc=$?
want=$(awk '{ n += $1; b += $2 } END { print n + 0, b + 0 }' "$tmp/tally")
got=$(awk -F, -v q="$DQPN" 'NR > 1 && $6 == q && $4 == "10.98.0.1" { n += $7; b += $8; r++ }
	END { print n + 0, b + 0 }' "$tmp/csv/flows.csv")
rows=$(awk -F, -v q="$DQPN" 'NR > 1 && $6 == q { r++ } END { print r + 0 }' "$tmp/csv/flows.csv")
# Hand-worked: 10 + 15 + 7 + 9 = 41 frames of 122 bytes (Ethernet 14, IPv4 20,
# UDP 8, BTH 12, 64 of payload, ICRC 4).
hand="41 $((41 * 122))"
if [ "$rc" = 0 ] && [ "$want" = "$hand" ] && [ "$got" = "$want" ] && [ "$(echo "$slots" | cut -d" " -f1-2)" = "2 41" ] && [ "$rows" -ge 3 ]; then
	echo "PASS regions: one flow counted by CPU 0, then CPU 1, then both: $rows rows of flows.csv add up to the sender's $want (packets, bytes), the kernel table holds it in 2 regions"
else
	echo "FAIL regions: rc=$rc rocetop '$got' in $rows rows, sender '$want', hand '$hand', kernel table (regions, packets) '$slots' $(cat "$tmp/err")"
	exit 1
fi
