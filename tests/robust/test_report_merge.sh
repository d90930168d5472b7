#!/usr/bin/env bash
# rocetop report over several files. The expected numbers
# are scapy's tally of the capture (tests/offline/offline.py: its frames, its
# RoCE packets, its one CNP flow of 5 CNPs from 10.0.0.2) and the blocks the
# test counts in the files itself.
#   - one file given three times (two spellings and a hard link: one device
#     and inode), and a recording with its copy (one host, recording id and
#     creation time): one report, the capture's packets counted once;
#   - a rotated set (-w --max-size) given in a shuffled order: one report, its
#     files in creation order, every block an interval, the capture's counts;
#   - three recordings of one host (x.rtr in three directories): three
#     distinct labels and no CNP matched to a data flow of the same host;
#     recordings of two hosts still match the CNP flow to the data flow.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_setup report_merge
rt_need_py report_merge scapy
$PY tests/offline/offline.py gen "$T" >/dev/null 2>&1 || { fail report_merge "the scapy generator failed"; exit 1; }
read -r FRAMES PKTS <<<"$($PY -c 'import json,sys; t = json.load(open(sys.argv[1]))
print(t["frames"], sum(v["pkts"] for v in t["eth"].values()))' "$T/tally.json")"
cd "$T"
rec() { "$ROCETOP" -r eth.pcap -D -q -d 0.25 "$@"; }
# report --json FILES... | what: "single FILE INTERVALS PKTS FRAMES" or "multi LABELS... | MATCHES"
summary() { "$ROCETOP" report --json "$@" 2>>"$T/err" | $PY -c '
import json, sys
r = json.load(sys.stdin)
if "hosts" not in r:
    print("single", r["file"].replace(" ", ""), r["intervals"], r["totals"]["pkts"], r["totals"]["frames"])
else:
    m = r["cnp_matches"]
    print("multi", " ".join(h["host"] for h in r["hosts"]), "|", len(m),
          " ".join("%s>%s:%d" % (x["cnp_host"], x["data_host"], x["cnp_flow"]["cnp"]) for x in m))'; }

# ---- one file, three times; a recording and its copy
rec -w one.rtr --hostname hR && ln one.rtr hard.rtr && cp one.rtr copy.rtr
got=$(summary one.rtr ./one.rtr hard.rtr)
want="single one.rtr 15 $PKTS $FRAMES"
[ "${got% *}" = "${want% *}" ] && [ "${got##* }" = "$FRAMES" ] &&
	pass "report_same_file_once: one.rtr, ./one.rtr and a hard link read once ($PKTS packets, $FRAMES frames as scapy sent)" ||
	fail report_same_file_once "got '$got', want '$want'"
got=$(summary one.rtr copy.rtr)
[ "$got" = "single one.rtr 15 $PKTS $FRAMES" ] && pass "report_copy_once: a copy of a recording (one host, id, creation time) read once" ||
	fail report_copy_once "got '$got', want 'single one.rtr 15 $PKTS $FRAMES'"

# ---- a rotated set, shuffled
rec -w rot.rtr --max-size 4096 --hostname hR
n=$(ls rot.rtr* | wc -l)
blocks=$($PY -c '
import struct, sys
total = 0
for p in sys.argv[1:]:
    d = open(p, "rb").read(); n, = struct.unpack_from("<I", d, 12); o = 16 + n + 4
    while o < len(d):
        total += 1; o += 16 + struct.unpack_from("<I", d, o + 4)[0]
print(total)' rot.rtr*)
order=$(for ((k = n - 1; k >= 1; k--)); do printf 'rot.rtr.%d,' $k; done; printf 'rot.rtr')
got=$(summary $(ls rot.rtr* | sort -R))
want="single $order $blocks $PKTS $FRAMES"
[ "$n" -ge 3 ] && [ "$got" = "$want" ] &&
	pass "report_rotated_set_one_host: $n files in creation order, $blocks intervals, $PKTS packets, $FRAMES frames" ||
	fail report_rotated_set_one_host "$n files; got '$got', want '$want'"

# ---- one host thrice: distinct labels, no CNP matched to the same host
mkdir d1 d2 d3
for d in d1 d2 d3; do rec -w $d/x.rtr --hostname hR; done
rec -w hb.rtr --hostname hB
got=$(summary d1/x.rtr d2/x.rtr d3/x.rtr)
labels=$(echo "$got" | sed 's/^multi //; s/ |.*//')
nd=$(echo "$labels" | tr ' ' '\n' | sort -u | wc -l)
matches=$(echo "$got" | sed 's/.*| //' | awk '{print $1}')
[ "$nd" = 3 ] && [ "$matches" = 0 ] && pass "report_one_host_thrice: labels '$labels' distinct, no CNP matched within one host" ||
	fail report_one_host_thrice "got '$got': want 3 distinct labels and 0 CNP matches"
got=$(summary one.rtr hb.rtr)
[ "$got" = "multi hR hB | 2 hR>hB:5 hB>hR:5" ] && pass "report_two_hosts_match: each host's 5 CNPs matched to the other's data flow" ||
	fail report_two_hosts_match "got '$got', want 'multi hR hB | 2 hR>hB:5 hB>hR:5'"
[ -s "$T/err" ] && grep -v 'read once' "$T/err" | head -3
exit 0
