#!/usr/bin/env bash
# The egress program on frames whose headers are not all in the skb's linear
# part: UDP datagrams to port 4791 sent with MSG_ZEROCOPY leave their payload
# (BTH, payload, ICRC) in the sender's pages, so the linear part ends at the
# UDP header. rt_tc must make the headers linear and count these as RoCE,
# exactly like the same datagrams sent the plain way (linear): packets and
# bytes per QP equal tshark's dissection of a capture at the far end, and no
# frame is truncated. (With the pull taken out of rt_tc, the 20 zero-copy
# frames count as truncated and this test fails.)
#   A [x] -- [y] B         rocetop -i x --no-ingress in A
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
N=20
rt_need_cmd tc_split tcpdump tshark
rt_two_hosts tc_split rts
X=$IFA Y=$IFB
rt_on_exit 'kill -9 "${rt:-0}" "${td:-0}"'
ip -n "$A" addr add 10.97.0.1/24 dev "$X" && ip -n "$B" addr add 10.97.0.2/24 dev "$Y" ||
	{ echo "FAIL tc_split: cannot address the veth pair"; exit 1; }
ip -n "$A" neigh add 10.97.0.2 lladdr "$MAC_B" dev "$X"

ip netns exec "$B" tcpdump -q -i "$Y" -w "$tmp/cap.pcap" -U 2>/dev/null & td=$!
ip netns exec "$A" "$ROCETOP" -i "$X" --no-ingress --csv "$tmp/csv" -D -d 0.2 --flow-timeout 0 2>"$tmp/err" & rt=$!
rt_wait_file "$tmp/csv/flows.csv" "$rt" 50
sleep 0.5
ip netns exec "$A" "$PY" tests/live/send_split.py 10.97.0.2 "$N" 2>"$tmp/py.err" ||
	{ echo "FAIL tc_split: the sender failed: $(cat "$tmp/py.err")"; exit 1; }
for _ in $(seq 30); do
	[ "$(tcpdump -r "$tmp/cap.pcap" 2>/dev/null | grep -c '10.97.0.1.* > 10.97.0.2.4791')" -ge $((2 * N)) ] && break
	sleep 0.1
done
sleep 0.3
kill -INT $rt; wait $rt; rc=$?
kill -INT $td; wait $td 2>/dev/null

# tshark: the datagrams A sent (not the ICMP errors quoting them), per QP.
want=$(tshark -r "$tmp/cap.pcap" -Y 'ip.src == 10.97.0.1 && udp.dstport == 4791 && !icmp' \
	-T fields -e infiniband.bth.destqp -e frame.len 2>/dev/null |
	awk 'function hex(s,  i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	{ q = hex($1); n[q]++; b[q] += $2 } END { for (k in n) printf "%d:%d:%d ", k, n[k], b[k] }' |
	tr ' ' '\n' | sort | tr '\n' ' ')
got=$(awk -F, 'NR > 1 && $3 == "egress" { n[$6] += $7; b[$6] += $8 } END { for (k in n) printf "%d:%d:%d ", k, n[k], b[k] }' \
	"$tmp/csv/flows.csv" | tr ' ' '\n' | sort | tr '\n' ' ')
trunc=$(awk -F, 'NR > 1 && $3 == "egress" { t += $9 } END { print t + 0 }' "$tmp/csv/stats.csv")
# Hand-worked: QP 0x77 (119) sent zero-copy and QP 0x78 (120) sent plainly,
# N each, 122 bytes each (Ethernet 14, IPv4 20, UDP 8, BTH 12, 64, ICRC 4).
hand="119:$N:$((N * 122)) 120:$N:$((N * 122)) "
if [ $rc = 0 ] && [ "$want" = "$hand" ] && [ "$got" = "$want" ] && [ "$trunc" = 0 ]; then
	echo "PASS tc_split: frames whose headers continue past the skb's linear part count as RoCE on egress, as tshark counts them ($want)"
else
	echo "FAIL tc_split: rc=$rc rocetop '$got' tshark '$want' hand '$hand' truncated $trunc $(cat "$tmp/err")"
	exit 1
fi
