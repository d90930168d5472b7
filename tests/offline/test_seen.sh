#!/usr/bin/env bash
# flows.csv's first_seen and last_seen: for a capture they are the capture
# times of each flow's first and last packet, as scapy reads them.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_tmpdir tmp
"$GEN" --scenario mixed --duration 0.5 --rate 4000 --pcap "$tmp/cap.pcap" -q 2>"$tmp/gen.err" ||
	{ echo "FAIL seen: rocetop-gen: $(cat "$tmp/gen.err")"; exit 1; }
"$ROCETOP" -r "$tmp/cap.pcap" --csv "$tmp/csv" -D -d 0.1 2>"$tmp/err" ||
	{ echo "FAIL seen: rocetop -r: $(cat "$tmp/err")"; exit 1; }
"$PY" - "$tmp/cap.pcap" "$tmp/csv/flows.csv" <<'PY'
import csv, sys
from scapy.all import PcapReader, IP, UDP
from scapy.contrib.roce import BTH
first, last = {}, {}
for p in PcapReader(sys.argv[1]):
    if p.haslayer(BTH) and p[UDP].dport == 4791:
        k = (p[IP].src, p[IP].dst, p[BTH].dqpn)
        first.setdefault(k, float(p.time))
        last[k] = float(p.time)
got_first, got_last = {}, {}
for r in csv.DictReader(open(sys.argv[2])):
    k = (r["src"], r["dst"], int(r["dqpn"]))
    got_first.setdefault(k, float(r["first_seen"]))
    got_last[k] = float(r["last_seen"])
bad = [k for k in first if k not in got_first or abs(got_first[k] - first[k]) > 2e-6 or abs(got_last[k] - last[k]) > 2e-6]
if bad or len(first) < 8 or set(got_first) != set(first):
    print(f"FAIL seen: {len(bad)} of {len(first)} flows differ, e.g. {bad[:2]}")
    sys.exit(1)
print(f"PASS seen: first_seen and last_seen of all {len(first)} flows equal scapy's capture times")
PY
