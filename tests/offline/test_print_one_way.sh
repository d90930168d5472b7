#!/usr/bin/env bash
# Values are printed one way in --batch (rocetop(8), -b): a capture built
# with scapy (the oracle: the fields given to it here) read with -r --batch:
#  - QP numbers in decimal: QP 0xabcdef is 11259375 in text and JSON;
#  - PRIO is the flow's priority, its PCP (a tagged flow, PCP 5: 5), else
#    DSCP / 8 (an untagged flow of DSCP 26: 3), never '-'; JSON prio;
#  - a rate in the SI form of the other rates: 1500 RNR NAKs in 1 s is 1.50k;
#  - an interface name of 15 characters (a capture named with 24) does not
#    shift the columns: DIR starts at the same place as after a short name.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_scapy_start print_one_way
fails=0
ok() { if [ -z "$2" ]; then echo "PASS print_one_way $1: $3"; else echo "FAIL print_one_way $1: $2"; fails=$((fails + 1)); fi; }

"$PY" - "$T/short.pcap" <<'PYEOF' || { echo "FAIL print_one_way: scapy could not write the capture"; exit 1; }
import sys
from scapy.all import Ether, Dot1Q, IP, UDP, Raw, wrpcap
from scapy.contrib.roce import BTH, AETH
t, pkts = 1700000000.0, []
def at(p, s):
    p.time = t + s
    pkts.append(p)
for i in range(20):     # untagged, DSCP 26: priority 3
    at(Ether() / IP(src="10.0.0.1", dst="10.0.0.2", tos=26 << 2 | 2) / UDP(sport=50000, dport=4791) /
       BTH(opcode=0x0a, dqpn=0x120, psn=i) / Raw(b"\0" * 64), 0.01 + i * 0.04)
for i in range(10):     # tagged PCP 5, DSCP 0: priority 5; QP 0xabcdef
    at(Ether() / Dot1Q(vlan=10, prio=5) / IP(src="10.0.0.3", dst="10.0.0.2", tos=2) / UDP(sport=50001, dport=4791) /
       BTH(opcode=0x0a, dqpn=0xabcdef, psn=i) / Raw(b"\0" * 64), 0.02 + i * 0.08)
for i in range(1500):   # 1500 RNR NAKs in the first second
    at(Ether() / IP(src="10.0.0.2", dst="10.0.0.1", tos=26 << 2) / UDP(sport=50002, dport=4791) /
       BTH(opcode=0x11, dqpn=0x110, psn=i) / AETH(syndrome=0x20, msn=i), 0.03 + i * 0.0006)
at(Ether() / IP(src="10.0.0.1", dst="10.0.0.2", tos=26 << 2 | 2) / UDP(sport=50000, dport=4791) /
   BTH(opcode=0x0a, dqpn=0x120, psn=99) / Raw(b"\0" * 64), 1.5)
wrpcap(sys.argv[1], sorted(pkts, key=lambda p: p.time))
PYEOF
cp "$T/short.pcap" "$T/a-long-capture-name-.pcap"

for f in short a-long-capture-name-; do
	"$ROCETOP" -r "$T/$f.pcap" --batch -d 1 -q --top 0 >"$T/$f.txt" 2>"$T/err" ||
		ok "$f" "rocetop -r --batch exited $?: $(head -2 "$T/err")" ""
done
"$ROCETOP" -r "$T/short.pcap" --batch --json -d 1 -q --top 0 >"$T/b.jsonl" 2>>"$T/err"

# The first interval's rows, by their source address.
row() { awk -v s="$2" '/^IFACE/ { n++ } n == 1 && $3 == s { print; exit }' "$T/$1.txt"; }
a=$(row short 10.0.0.1) b=$(row short 10.0.0.3) r=$(row short 10.0.0.2)
ok qp_decimal "$(echo "$b" | awk '$5 != 11259375 { print "DQPN " $5 " of QP 0xabcdef: " $0 }')" \
	"QP 0xabcdef is 11259375 in --batch"
ok prio "$(echo "$a" | awk '$6 != 3 { print "PRIO " $6 " of DSCP 26: " $0 }'; echo "$b" | awk '$6 != 5 { print "PRIO " $6 " of PCP 5: " $0 }')" \
	"PRIO 3 for DSCP 26 untagged, 5 for PCP 5"
ok rate_si "$(echo "$r" | awk '$13 != "1.50k" { print "RNR/s " $13 " for 1500 RNR NAKs in 1 s: " $0 }')" \
	"1500 RNR NAKs in 1 s: RNR/s 1.50k, the form of the other rates"
# Where DIR starts, in the header and the first interval's rows of each file.
cols() { awk '/^IFACE/ { n++; print index($0, "DIR"); next } n == 1 && / ingress | egress / { print index($0, $2) }' "$T/$1.txt" | sort -u | tr '\n' ' '; }
cs=$(cols short) cl=$(cols a-long-capture-name-)
name=$(awk '/^IFACE/ { getline; print $1; exit }' "$T/a-long-capture-name-.txt")
if [ "$cs" = "17 " ] && [ "$cl" = "17 " ]; then
	ok ifname_width "" "DIR at column 17 after 'short.pcap' and after '$name' alike"
else
	ok ifname_width "DIR at columns '$cs' (short name), '$cl' (long name '$name')" ""
fi
PYJ=$("$PY" - "$T/b.jsonl" <<'PYEOF'
import json, sys
fl = json.loads(open(sys.argv[1]).readline())["flows"]
got = {(f["src"], f["dqpn"]): (f.get("prio"), f.get("pcp")) for f in fl}
want = {("10.0.0.1", 288): (3, None), ("10.0.0.3", 11259375): (5, 5), ("10.0.0.2", 272): (3, None)}
if got != want:
    print("JSON (prio, pcp) %s, expected %s" % (got, want))
PYEOF
)
ok prio_json "$PYJ" "JSON: dqpn decimal, prio 3 (DSCP 26), 5 (PCP 5), pcp only when tagged"
# A duration one way (rocetop(8)): three significant digits and a unit, in
# --batch, findings.csv and the report alike: the intervals are the -d 1
# given here, the 1500 RNR NAKs were sent in the first second, and the
# report spans two of them; no other form (1.0 s, 0.500 s, 0.5s) anywhere.
"$ROCETOP" -r "$T/short.pcap" --csv "$T/csv" -D -d 1 -q 2>/dev/null
"$ROCETOP" report "$T/short.pcap" -d 1 >"$T/report.txt" 2>/dev/null
dur=""
[ "$(grep -c '  interval ' "$T/short.txt")" = "$(grep -c '  interval 1\.00 s$' "$T/short.txt")" ] ||
	dur="--batch: $(grep -m1 '  interval ' "$T/short.txt")"
for f in short.txt csv/findings.csv report.txt; do
	grep -q '1500 RNR NAKs in 1\.00 s' "$T/$f" || dur="$dur; $f has no '1500 RNR NAKs in 1.00 s'"
	bad=$(grep -oE '(^|[^0-9.])([0-9]\.[0-9]|[0-9]+\.[0-9]{3,}|[0-9.]+s) (s|ms|us)\b|[0-9]s\b' "$T/$f" | head -2 | tr '\n' ' ')
	[ -z "$bad" ] || dur="$dur; $f: '$bad'"
done
grep -q '^time .* UTC (2\.00 s, 2 intervals)$' "$T/report.txt" || dur="$dur; report: $(grep '^time' "$T/report.txt")"
ok duration "${dur#; }" "durations one way: interval 1.00 s, 1500 RNR NAKs in 1.00 s, the report's 2.00 s"
exit $((fails > 0))
