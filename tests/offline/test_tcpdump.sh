#!/usr/bin/env bash
# A capture taken by tcpdump on a veth carrying known RoCEv2 traffic (scapy
# sendp in a namespace): rocetop -r gives the sender's tally and tshark's
# dissection, for the Ethernet capture of the veth and for `tcpdump -i any`
# (Linux cooked SLL2, direction from the packet type).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
H="$PY tests/offline/offline.py"
NA=rtoa$RT_ID NB=rtob$RT_ID
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

rt_need_root tcpdump_capture "needs root for namespaces"
rt_need_cmd tcpdump_capture ip tcpdump tshark
$PY -c 'import scapy' 2>/dev/null || rt_skip tcpdump_capture "no scapy"
rt_tmpdir T
rt_on_exit '[ -n "${P1:-}" ] && kill "$P1"; [ -n "${P2:-}" ] && kill "$P2"'

rt_netns "$NA" "$NB" && rt_no_ipv6 "$NA" "$NB" && rt_veth "$NA" "$NA" "$NB" "$NB" ||
	{ fail tcpdump_capture "cannot build the veth pair"; exit 1; }

ip netns exec "$NB" tcpdump -i "$NB" -U -n -w "$T/veth.pcap" udp port 4791 2>"$T/td1.err" & P1=$!
ip netns exec "$NB" tcpdump -i any -U -n -w "$T/any.pcap" udp port 4791 2>"$T/td2.err" & P2=$!
for _ in $(seq 50); do
	grep -q listening "$T/td1.err" && grep -q listening "$T/td2.err" && break
	sleep 0.1
done

# 120 frames: data with ECN marks, CNPs, ACKs and NAKs, IPv4 and IPv6; the tally from the fields given.
ip netns exec "$NA" $PY - "$NA" "$T/sent.json" <<'EOF' 2>"$T/send.err"
import json, sys
sys.path.insert(0, "tests/offline")
from offline import classify, add
from scapy.all import Ether, IP, IPv6, UDP, Raw, sendp
from scapy.contrib.roce import BTH, AETH, CNPPadding
frames, tally = [], {}
for i in range(120):
    kind = i % 6
    v6 = i % 5 == 0
    src, dst = ("fd00::1", "fd00::2") if v6 else ("10.9.0.1", "10.9.0.2")
    ecn = [2, 3, 2, 1, 0, 2][kind]
    if kind == 4:
        op, qp, tail, syn = 0x81, 0x700 + (i % 2), CNPPadding(), None
    elif kind == 5:
        syn = [0x1f, 0x60, 0x21][i % 3]
        op, qp, tail = 0x11, 0x700 + (i % 2), AETH(syndrome=syn, msn=i)
    else:
        op, qp, tail, syn = 0x0a, 0x100 + (i % 3), Raw(b"d" * 200), None
    l3 = IPv6(src=src, dst=dst, tc=(26 << 2) | ecn) if v6 else IP(src=src, dst=dst, tos=(26 << 2) | ecn)
    fr = Ether(src="02:00:00:00:00:0a", dst="02:00:00:00:00:0b") / l3 / UDP(sport=50000 + i, dport=4791) / BTH(opcode=op, dqpn=qp, psn=i) / tail
    d = classify(ecn, op, syn)
    d["bytes"] = len(bytes(fr))
    add(tally, "%s|%s|%d" % (src, dst, qp), d)
    frames.append(fr)
sendp(frames, iface=sys.argv[1], verbose=False)
json.dump({"flows": tally}, open(sys.argv[2], "w"))
EOF
[ -s "$T/sent.json" ] || { fail tcpdump_capture "scapy could not send: $(tail -2 "$T/send.err")"; exit 1; }
for _ in $(seq 30); do	# until both captures hold the 120 frames (bounded)
	a=$(tshark -r "$T/veth.pcap" 2>/dev/null | wc -l); b=$(tshark -r "$T/any.pcap" 2>/dev/null | wc -l)
	[ "$a" -ge 120 ] && [ "$b" -ge 120 ] && break
	sleep 0.2
done
kill "$P1" "$P2" 2>/dev/null; wait "$P1" "$P2" 2>/dev/null; P1= P2=

for c in veth any; do
	rm -rf "$T/$c"
	if ! "$ROCETOP" -r "$T/$c.pcap" --csv "$T/$c" -D -q 2>"$T/$c.err"; then
		fail "tcpdump_${c}_capture" "rocetop -r failed: $(cat "$T/$c.err")"
		continue
	fi
	$H csv "$T/$c" >"$T/$c.json"
	dirs=$($PY -c 'import json,sys; print(",".join(sorted({k.split("|")[0] for k in json.load(open(sys.argv[1]))["flows"]})))' "$T/$c.json")
	if out=$($H cmp "$T/$c.json" "$T/sent.json"); then pass "tcpdump_${c}_vs_sent_tally"
	else fail "tcpdump_${c}_vs_sent_tally" "$out"; fi
	$H tshark "$T/$c.pcap" >"$T/$c.ts.json" 2>/dev/null
	# tshark's frame.len of an SLL2 frame counts the 20-byte cooked header: compare it without bytes
	keys=pkts,not_ect,ect0,ect1,ce,cnp,ack,nak,rnr_nak,nak_seq,nak_other
	[ $c = veth ] && keys=$keys,bytes
	if out=$($H cmp "$T/$c.json" "$T/$c.ts.json" $keys); then pass "tcpdump_${c}_vs_tshark"
	else fail "tcpdump_${c}_vs_tshark" "$out"; fi
	[ "$dirs" = ingress ] && pass "tcpdump_${c}_direction" || fail "tcpdump_${c}_direction" "directions: $dirs"
done
exit $((fails > 0))
