#!/usr/bin/env bash
# A finding's next step comes out whole (it was once cut at 191
# bytes, mid-word): a scapy capture with PSN sequence NAKs raises `loss`,
# whose advice is the longest of the rules (203 bytes); -r --batch (text and
# JSON), report --json and findings.csv must each carry the whole sentence.
# Without a pause frame in it, nothing says the capture's speed is unknown.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_scapy_start next_whole
NEXT="Packets are lost between sender and receiver: look for drops at the switch (buffer overflow, PFC off on this priority) and link errors; retransmissions cost the collective far more than the lost packets."

"$PY" - "$T/nak.pcap" <<'PYEOF' || { echo "FAIL next_whole: scapy could not write the capture"; exit 1; }
import sys
from scapy.all import Ether, IP, UDP, Raw, wrpcap
from scapy.contrib.roce import BTH, AETH
pkts = []
t = 1700000000.0
for i in range(40):   # data 10.0.0.1 -> 10.0.0.2 QP 0x120, and NAKs back to QP 0x110
    p = Ether() / IP(src="10.0.0.1", dst="10.0.0.2", tos=26 << 2 | 2) / UDP(sport=50000, dport=4791) / \
        BTH(opcode=0x0a, dqpn=0x120, psn=i) / Raw(b"\0" * 64)
    p.time = t + i * 0.05
    pkts.append(p)
    if i % 4 == 3:
        n = Ether() / IP(src="10.0.0.2", dst="10.0.0.1", tos=26 << 2) / UDP(sport=50001, dport=4791) / \
            BTH(opcode=0x11, dqpn=0x110, psn=i) / AETH(syndrome=0x60, msn=i)
        n.time = t + i * 0.05 + 0.001
        pkts.append(n)
wrpcap(sys.argv[1], pkts)
PYEOF

fails=0
check() {	# NAME FILE: the file holds the whole sentence, once at least, never cut
	if grep -qF "$NEXT" "$2"; then echo "PASS next_whole $1: the whole next step"
	else echo "FAIL next_whole $1: no whole next step in $(grep -o 'Packets are lost[^"]*' "$2" | head -1)"; fails=$((fails + 1)); fi
}
"$ROCETOP" -r "$T/nak.pcap" --batch -d 0.5 >"$T/batch.txt" 2>"$T/err" || { echo "FAIL next_whole: -r --batch exited $?: $(cat "$T/err")"; exit 1; }
check "--batch" "$T/batch.txt"
"$ROCETOP" -r "$T/nak.pcap" --batch --json -d 0.5 >"$T/batch.jsonl" 2>>"$T/err" || { echo "FAIL next_whole: --batch --json exited $?"; exit 1; }
"$PY" - "$T/batch.jsonl" "$NEXT" <<'PYEOF' || fails=$((fails + 1))
import json, sys
nexts = [f.get("next") for l in open(sys.argv[1]) if l.startswith("{")
         for f in json.loads(l)["findings"]["events"] if f["rule"] == "loss"]
if nexts and all(n == sys.argv[2] for n in nexts):
    print(f"PASS next_whole --batch --json: the whole next step in {len(nexts)} findings")
else:
    print(f"FAIL next_whole --batch --json: next {nexts[:1]}")
    sys.exit(1)
PYEOF
"$ROCETOP" report "$T/nak.pcap" --json -d 0.5 >"$T/report.json" 2>>"$T/err" || { echo "FAIL next_whole: report exited $?"; exit 1; }
"$PY" - "$T/report.json" "$NEXT" <<'PYEOF' || fails=$((fails + 1))
import json, sys
nexts = [f.get("next") for f in json.load(open(sys.argv[1]))["findings"] if f["rule"] == "loss"]
if nexts and all(n == sys.argv[2] for n in nexts):
    print("PASS next_whole report --json: the whole next step")
else:
    print(f"FAIL next_whole report --json: next {nexts[:1]}")
    sys.exit(1)
PYEOF
"$ROCETOP" -r "$T/nak.pcap" --csv "$T/csv" -D -d 0.5 2>>"$T/err" || { echo "FAIL next_whole: --csv exited $?"; exit 1; }
check "findings.csv" "$T/csv/findings.csv"
# The capture has no pause frame: no output needs its link speed, so none
# says it is unknown (rocetop(8), --link-speed).
if grep -q "link speed" "$T/err"; then
	echo "FAIL next_whole no pause, no speed said: $(grep "link speed" "$T/err" | head -1)"; fails=$((fails + 1))
else
	echo "PASS next_whole no pause, no speed said"
fi
exit $fails
