#!/usr/bin/env bash
# CSV formula injection: a capture read under names the
# test chooses (=, +, -, @ first) names the interface in flows.csv and
# stats.csv. Each such cell is written quoted with a leading ' ("'=x.pcap"),
# as OWASP's CSV injection guidance says; the counts stay bare numbers: the
# frames summed over stats.csv equal those the test counts in the capture
# itself (its record headers), and no numeric cell is quoted.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_setup csv_inject
rt_captures csv_inject
# frames in the capture: its classic pcap record headers, counted here
frames=$($PY -c '
import struct, sys
d = open(sys.argv[1], "rb").read(); o, n = 24, 0
while o + 16 <= len(d):
    n += 1; o += 16 + struct.unpack_from("<I", d, o + 8)[0]
print(n)' "$T/storm.pcap")
bad=""
for name in '=1+2.pcap' '+SUM(A1).pcap' '-2+3.pcap' '@cmd.pcap'; do
	cp "$T/storm.pcap" "$T/$name"
	rm -rf "$T/c"
	(cd "$T" && "$ROCETOP" -r "./$name" -d 0.5 --csv c -D -q) 2>"$T/err" || { bad="$bad; $name: rocetop failed: $(head -1 "$T/err")"; continue; }
	out=$($PY - "$T/c" "$name" "$frames" <<'PY'
import csv, re, sys
d, name, frames = sys.argv[1], sys.argv[2], int(sys.argv[3])
why = []
for f, numcols in (("flows.csv", ("pkts", "bytes", "ce", "cnp", "dqpn")), ("stats.csv", ("frames", "bytes", "roce"))):
    raw = open("%s/%s" % (d, f)).read().split("\n")
    rows = list(csv.DictReader(raw))
    if not rows:
        why.append("%s has no rows" % f); continue
    for r in rows:
        if r["ifname"] != "'" + name:
            why.append("%s ifname %r, want %r" % (f, r["ifname"], "'" + name)); break
        for c in numcols:
            if not re.fullmatch(r"[0-9]+", r[c]):
                why.append("%s %s %r is not a number" % (f, c, r[c])); break
    # the raw line: the quoted cell, then bare numbers
    cell = '"\'' + name.replace('"', '""') + '"'
    if not all((",%s," % cell) in l for l in raw[1:] if l):
        why.append("%s rows lack the cell %s" % (f, cell))
pk = sum(int(r["frames"]) for r in csv.DictReader(open(d + "/stats.csv")))
if pk != frames:
    why.append("stats.csv frames sum to %d, the capture holds %d" % (pk, frames))
print("; ".join(why))
PY
)
	[ -n "$out" ] && bad="$bad; $name: $out"
done
[ -z "$bad" ] && pass "csv_formula_names_quoted: =, +, - and @ names written as \"'NAME\", counts bare numbers, $frames frames as in the capture" ||
	fail csv_formula_names_quoted "${bad#; }"
