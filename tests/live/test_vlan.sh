#!/usr/bin/env bash
# An 802.1Q tag the kernel keeps beside the packet (here: a bridge forwarding
# a tagged frame, which the stack untagged into skb metadata) is still on the
# wire: the egress program must count its 4 bytes and take the priority from
# its PCP. tshark's dissection of a capture at the far end is the truth.
#   A [xa] -- [pa] S: br0 [pb] -- [xb] B        rocetop -i pb --no-ingress
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
A=rtw${RT_ID}a B=rtw${RT_ID}b S=rtw${RT_ID}s
rt_need_root vlan
rt_tmpdir tmp
rt_on_exit 'kill -9 "${rt:-0}" "${td:-0}"'

# veths made here and moved: both ends made inside namespaces can get equal
# ifindexes, and iproute2 then pairs the names up wrongly.
XA=rtw${RT_ID}xa PA=rtw${RT_ID}pa XB=rtw${RT_ID}xb PB=rtw${RT_ID}pb
rt_netns "$A" "$B" "$S" &&
ip link add "$XA" type veth peer name "$PA" && ip link set "$XA" netns "$A" && ip link set "$PA" netns "$S" &&
ip link add "$XB" type veth peer name "$PB" && ip link set "$XB" netns "$B" && ip link set "$PB" netns "$S" &&
ip -n "$S" link add br0 type bridge &&
ip -n "$S" link set "$PA" master br0 && ip -n "$S" link set "$PB" master br0 && ip -n "$S" link set br0 up &&
ip -n "$S" link set "$PA" up && ip -n "$S" link set "$PB" up &&
ip -n "$A" link set "$XA" up && ip -n "$B" link set "$XB" up ||
	{ echo "FAIL vlan: cannot build the namespaces"; exit 1; }
rt_no_ipv6 "$A" "$B" "$S"

ip netns exec "$B" tcpdump -q -i "$XB" -w "$tmp/cap.pcap" -U 2>/dev/null & td=$!
ip netns exec "$S" "$ROCETOP" -i "$PB" --no-ingress --csv "$tmp/csv" -D -d 0.2 --flow-timeout 0 2>"$tmp/err" & rt=$!
for _ in $(seq 50); do [ -s "$tmp/csv/flows.csv" ] && break; sleep 0.1; done
sleep 0.5
MAC_B=$(rt_mac "$B" "$XB")
"$GEN" --scenario fixed --frames 50 --rate 2000 --vlan 100 --tx-data "$A:$XA" --dst-mac "$MAC_B" -q 2>"$tmp/gen.err" ||
	{ echo "FAIL vlan: rocetop-gen failed: $(cat "$tmp/gen.err")"; exit 1; }
for _ in $(seq 30); do [ "$(tcpdump -r "$tmp/cap.pcap" 2>/dev/null | grep -c 'vlan 100')" -ge 50 ] && break; sleep 0.1; done
sleep 0.3
kill -INT $rt; wait $rt
kill -INT $td; wait $td 2>/dev/null
[ -n "${DEBUG:-}" ] && { tcpdump -enr "$tmp/cap.pcap" | head -5; cat "$tmp/csv/flows.csv" "$tmp/csv/stats.csv"; }

want=$(tshark -r "$tmp/cap.pcap" -Y 'vlan.id == 100 && udp.dstport == 4791' -T fields -e frame.len -e vlan.priority |
	awk '{n++; b += $1; p[$2]++} END {for (k in p) printf "%d %d prio %s:%d\n", n, b, k, p[k]}')
got=$(awk -F, 'NR > 1 && $3 == "egress" {n += $7; b += $8; p[$20] += $7} END {for (k in p) printf "%d %d prio %s:%d\n", n, b, k, p[k]}' "$tmp/csv/flows.csv")
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	echo "PASS vlan: a tag kept beside the packet is counted on egress: packets, bytes and PCP equal tshark's ($want)"
else
	echo "FAIL vlan: rocetop '$got', tshark '$want' $(cat "$tmp/err")"; exit 1
fi
