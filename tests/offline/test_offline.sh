#!/usr/bin/env bash
# Offline sources and sinks: captures (pcap, pcapng, SLL, SLL2, raw IP) give the
# per-flow totals of the frames scapy wrote and of tshark's dissection; a
# recording replays to the same CSV; cut recordings and captures read up to the
# cut; bad files fail with one sentence; rotation; report --json.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_setup offline
H="$PY tests/offline/offline.py"
skip() { echo "SKIP $1: $2"; }

if ! $PY -c 'import scapy' 2>/dev/null; then
	skip offline "no scapy in $PY"
	exit 0
fi
$H gen "$T" 2>/dev/null || { fail gen "the scapy generator failed"; exit 1; }

# rocetop -r FILE --csv DIR -D, then the sums of DIR's CSV as JSON in DIR.json
run_csv() {	# file dir [args...]
	local f=$1 d=$2; shift 2
	"$ROCETOP" -r "$f" --csv "$d" -D -q "$@" 2>"$d.err" && $H csv "$d" >"$d.json"
}

# --- Ethernet pcap: the scapy tally, and tshark's dissection
if run_csv "$T/eth.pcap" "$T/E"; then
	$H pick "$T/tally.json" eth >"$T/want_eth.json"
	if out=$($H cmp "$T/E.json" "$T/want_eth.json"); then pass eth_pcap_vs_scapy_tally
	else fail eth_pcap_vs_scapy_tally "$out"; fi
	if command -v tshark >/dev/null; then
		$H tshark "$T/eth.pcap" >"$T/tshark.json" 2>/dev/null
		if out=$($H cmp "$T/E.json" "$T/tshark.json"); then pass eth_pcap_vs_tshark
		else fail eth_pcap_vs_tshark "$out"; fi
	else
		skip eth_pcap_vs_tshark "no tshark"
	fi
	# PFC per priority and frame totals
	out=$($PY - "$T/E.json" "$T/tally.json" "$T/E/stats.csv" <<'EOF'
import json, sys, csv
got, want = json.load(open(sys.argv[1]))["pfc"], json.load(open(sys.argv[2]))
rows = list(csv.DictReader(open(sys.argv[3])))
frames = sum(int(r["frames"]) for r in rows)
pause = sum(int(r["pause"]) for r in rows)
if got != want["pfc"]: print("pfc", got, "want", want["pfc"])
elif frames != want["frames"] or pause != want["pause_frames"]:
    print("frames %d pause %d, want %d %d" % (frames, pause, want["frames"], want["pause_frames"]))
EOF
)
rc=$?; [ $rc -eq 0 ] || out="the checker itself failed (exit $rc) $out"
	[ -z "$out" ] && pass eth_pcap_pfc_and_frames || fail eth_pcap_pfc_and_frames "$out"
else
	fail eth_pcap "rocetop -r failed: $(cat "$T/E.err")"
fi

# --- pcap and pcapng of the same frames: byte-identical CSV (same file name)
mkdir -p "$T/p1" "$T/p2"
cp "$T/eth.pcap" "$T/p1/cap"
cp "$T/eth.pcapng" "$T/p2/cap"
if run_csv "$T/p1/cap" "$T/C1" && run_csv "$T/p2/cap" "$T/C2" && diff -r "$T/C1" "$T/C2" >/dev/null; then
	pass pcap_equals_pcapng
else
	fail pcap_equals_pcapng "the CSV of the pcapng differs from the pcap's"
fi

# --- Linux cooked (direction from the packet type) and raw IP
for v in sll sll2 raw; do
	want=$v; [ $v = sll2 ] && want=sll
	$H pick "$T/tally.json" $want >"$T/want_$v.json"
	if run_csv "$T/$v.pcap" "$T/$v"; then
		if out=$($H cmp "$T/$v.json" "$T/want_$v.json"); then pass ${v}_vs_scapy_tally
		else fail ${v}_vs_scapy_tally "$out"; fi
	else
		fail ${v}_vs_scapy_tally "rocetop -r failed: $(cat "$T/$v.err")"
	fi
done

# --- record -> replay -> CSV equals the CSV written directly (meta.csv says
# which run wrote it: its options differ)
if "$ROCETOP" -r "$T/eth.pcap" --csv "$T/A" -w "$T/rec.rtr" -D -q &&
   "$ROCETOP" -r "$T/rec.rtr" --csv "$T/B" -D -q && diff -r -x meta.csv "$T/A" "$T/B" >/dev/null; then
	pass record_replay_same_csv
else
	fail record_replay_same_csv "$(diff -r -x meta.csv "$T/A" "$T/B" 2>&1 | head -5)"
fi

# --- a recording cut at every byte of its last block keeps the complete intervals.
# Block boundaries come from reading the format as record.h documents it.
bounds=$($PY - "$T/rec.rtr" <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89RTREC\r\n"
ver, dlen = struct.unpack_from("<II", b, 8)
off, starts = 16 + dlen + 4, []
while off < len(b):
    magic, zlen, rawlen, crc = struct.unpack_from("<IIII", b, off)
    assert magic == 0x4b425452
    starts.append(off)
    off += 16 + zlen
assert off == len(b)
print(starts[-1], len(b), len(starts))
EOF
)
if [ -z "$bounds" ]; then
	fail record_cut_every_byte "the recording does not follow the documented layout"
else
	read -r last size nblk <<<"$bounds"
	lasttime=$(tail -n 1 "$T/A/stats.csv" | cut -d, -f1)
	# Expected: the direct run's rows of every interval but the last.
	for f in flows pfc stats; do awk -F, -v t="$lasttime" 'NR == 1 || $1 != t' "$T/A/$f.csv" >"$T/want_$f.csv"; done
	bad=""
	for ((c = last; c < size; c++)); do
		head -c "$c" "$T/rec.rtr" >"$T/cut.rtr"
		rm -rf "$T/X"
		if ! "$ROCETOP" -r "$T/cut.rtr" --csv "$T/X" -D 2>"$T/X.err"; then bad="cut at $c: exit non-zero"; break; fi
		if [ "$c" -gt "$last" ] && ! grep -q "cut in the middle of a block at byte $last" "$T/X.err"; then
			bad="cut at $c: no warning naming byte $last: $(cat "$T/X.err")"; break
		fi
		for f in flows pfc stats; do
			cmp -s "$T/X/$f.csv" "$T/want_$f.csv" || { bad="cut at $c: $f.csv differs"; break 2; }
		done
	done
	[ -z "$bad" ] && pass "record_cut_every_byte ($((size - last)) cuts, $((nblk - 1)) intervals kept)" ||
		fail record_cut_every_byte "$bad"
fi

# --- rotation: every file stands alone and together they hold every count
# (8 KiB: a recording's header, with the command line in it, is near 4 KiB)
if "$ROCETOP" -r "$T/eth.pcap" -d 0.05 --csv "$T/R0" -w "$T/rot.rtr" --max-size 8192 --max-files 1000 -D -q; then
	n=$(ls "$T"/rot.rtr* | wc -l)
	for f in "$T"/rot.rtr*; do
		rm -rf "$T/RX"
		"$ROCETOP" -r "$f" --csv "$T/RX" -D -q && tail -n +2 "$T/RX/flows.csv" >>"$T/rot_rows.csv"
	done
	out=$($PY - "$T/R0/flows.csv" "$T/rot_rows.csv" <<'EOF'
import csv, sys
def tot(rows):
    t = {}
    for r in rows:
        k = (r[2], r[3], r[4], r[5])
        t[k] = [a + int(b) for a, b in zip(t.get(k, [0] * 12), r[6:18])]
    return t
a = tot(list(csv.reader(open(sys.argv[1])))[1:])
b = tot(list(csv.reader(open(sys.argv[2]))))
if a != b: print("sums differ", a, b)
EOF
)
rc=$?; [ $rc -eq 0 ] || out="the checker itself failed (exit $rc) $out"
	sizes_ok=1
	for f in "$T"/rot.rtr*; do [ "$(stat -c %s "$f")" -le 8192 ] || sizes_ok=0; done
	if [ "$n" -ge 3 ] && [ -z "$out" ] && [ $sizes_ok = 1 ]; then pass "rotation_sums ($n files)"
	else fail rotation_sums "files $n, sizes_ok $sizes_ok, $out"; fi
	rm -f "$T"/rot.rtr*
	"$ROCETOP" -r "$T/eth.pcap" -d 0.05 -w "$T/rot.rtr" --max-size 4096 --max-files 3 -D -q
	got=$(cd "$T" && ls rot.rtr* | tr '\n' ' ')
	[ "$got" = "rot.rtr rot.rtr.1 rot.rtr.2 " ] && pass rotation_max_files || fail rotation_max_files "files: $got"
else
	fail rotation_sums "rocetop -w with --max-size failed"
fi

# --- bad files: one sentence naming the file, non-zero exit
echo "just text" >"$T/text.pcap"
: >"$T/empty.pcap"
check_bad() {	# name file pattern
	local err rc
	err=$("$ROCETOP" -r "$2" -D 2>&1 >/dev/null); rc=$?
	if [ $rc -ne 0 ] && grep -q -- "$2" <<<"$err" && grep -qi -- "$3" <<<"$err" && [ "$(wc -l <<<"$err")" -eq 1 ]; then
		pass "$1"
	else
		fail "$1" "exit $rc, message: $err"
	fi
}
check_bad bad_not_a_capture "$T/text.pcap" "neither a pcap"
check_bad bad_empty "$T/empty.pcap" "is empty"
check_bad bad_link_type "$T/badlink.pcap" "link type"
check_bad bad_missing "$T/nonexistent.pcap" "no such file"
check_bad bad_directory "$T" "directory"

# A capture cut in the middle of a packet: the complete packets count, a warning says so.
read -r cutat complete <<<"$($PY - "$T/eth.pcap" <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read()
off, n = 24, 0
while off < len(b):
    incl = struct.unpack_from("<IIII", b, off)[2]
    if n == 60:
        print(off + 16 + incl // 2, n); break
    off += 16 + incl; n += 1
EOF
)"
head -c "$cutat" "$T/eth.pcap" >"$T/cut.pcap"
rm -rf "$T/K"
if "$ROCETOP" -r "$T/cut.pcap" --csv "$T/K" -D 2>"$T/K.err"; then
	frames=$(awk -F, 'NR > 1 { s += $4 } END { print s + 0 }' "$T/K/stats.csv")
	if [ "$frames" = "$complete" ] && grep -q "cut.pcap stops in the middle of a record after $complete complete packets" "$T/K.err"; then
		pass cut_capture_counts_complete_packets
	else
		fail cut_capture_counts_complete_packets "frames $frames want $complete; $(cat "$T/K.err")"
	fi
else
	fail cut_capture_counts_complete_packets "exit non-zero: $(cat "$T/K.err")"
fi

# --- report: valid JSON and the generator's numbers
for f in eth.pcap rec.rtr; do
	if "$ROCETOP" report "$T/$f" --json >"$T/rep.json" 2>"$T/rep.err" && $PY -m json.tool "$T/rep.json" >/dev/null; then
		out=$($PY - "$T/rep.json" "$T/tally.json" "$T/eth.pcap" <<'EOF'
import json, sys
r, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
tot = {k: sum(f[k] for f in t["eth"].values()) for k in ("pkts", "ce", "cnp", "ack", "nak", "rnr_nak")}
bad = []
for k, v in tot.items():
    if r["totals"][k] != v: bad.append("%s %s want %s" % (k, r["totals"][k], v))
if r["intervals"] != t["intervals"]: bad.append("intervals %s want %s" % (r["intervals"], t["intervals"]))
top = r["top"]["ce"][0]
if (top["src"], top["dst"], top["dqpn"], top["ce"]) != ("10.0.0.1", "10.0.0.2", 17, 10): bad.append("top CE %s" % top)
if r["top"]["cnp"][0]["cnp"] != 5 or r["top"]["nak"][0]["nak"] != 3: bad.append("top cnp/nak")
p3 = [p for p in r["pfc"]["priorities"] if p["prio"] == "3"][0]
w3 = t["pfc"]["3"]
if (p3["frames"], p3["xon"], p3["quanta"]) != (w3["frames"], w3["xon"], w3["quanta"]): bad.append("pfc prio 3 %s" % p3)
# Paused time: the union over time of priority 3's pauses at 100G assumed,
# worked out here from the capture's frames (each pauses until its time plus
# quanta x 512 bit times; a later frame restarts that, an XON ends it).
from scapy.all import rdpcap
paused, start, until, t0 = 0.0, None, None, None
for fr in rdpcap(sys.argv[3]):
    b = bytes(fr)
    if b[12:14] != b"\x88\x08" or b[14:16] != b"\x01\x01" or not b[17] & 8:
        continue
    t0 = fr.time if t0 is None else t0    # times from the first (a double near 1.7e9 keeps 0.2 us)
    t, q = float(fr.time - t0), int.from_bytes(b[24:26], "big")
    if start is not None:
        paused += min(t, until) - start
    start, until = (t, t + q * 512 / 100e9) if q else (None, None)
if start is not None:
    paused += until - start
if abs(p3["seconds"] - paused) > 1e-9 or r["pfc"]["link_speed_from"] != "assumed": bad.append("paused seconds %s, the frames' union %s" % (p3["seconds"], paused))
c = r["cnp_targets"][0]
# The fixture's CNP flow also carries the ACKs to QP 34, and one data QP (17)
# flows the other way: ARCHITECTURE.md's second rule (ACK-learnt) ties them.
if c["attribution"] != "ack" or c["data_flow"]["dqpn"] != 17 or c["cnp_flow"]["dqpn"] != 34: bad.append("cnp target %s" % c)
hp = r["host_pairs"][0]
if {hp["a"], hp["b"]} != {"10.0.0.1", "10.0.0.2"} or hp["ce"] != 10 or hp["cnp"] != 5: bad.append("host pair %s" % hp)
pk = r["moments"]["pfc_peaks"][0]
# 6 PFC frames at 1.1 s: prio 3 paused 5 times (and one XON), prio 0 once
if (pk["pause_frames"], pk["xon_frames"], pk["time"]) != (6, 1, 1700000002): bad.append("pfc peak %s" % pk)
print("; ".join(bad))
EOF
)
rc=$?; [ $rc -eq 0 ] || out="the checker itself failed (exit $rc) $out"
		[ -z "$out" ] && pass "report_json_$f" || fail "report_json_$f" "$out"
	else
		fail "report_json_$f" "$(cat "$T/rep.err")"
	fi
done
if "$ROCETOP" report "$T/eth.pcap" --link-speed 25G --top 3 >"$T/rep.txt" 2>&1 && grep -q "at 25000 Mb/s, given" "$T/rep.txt" &&
   grep -q "throttle eth.pcap ingress 10.0.0.1 -> 10.0.0.2 qp 17" "$T/rep.txt"; then
	pass report_text
else
	fail report_text "$(head -5 "$T/rep.txt")"
fi
"$ROCETOP" report "$T/text.pcap" >/dev/null 2>&1 && fail report_bad_file "exit 0 on a text file" || pass report_bad_file

# --- long gaps: 100 empty intervals, then a jump; --max-flows bounds the table
$PY - "$T" <<'EOF' 2>/dev/null
import sys
from scapy.all import Ether, IP, UDP, Raw, wrpcap
from scapy.contrib.roce import BTH
def p(t, qp):
    f = Ether() / IP(src="10.1.0.1", dst="10.1.0.2", tos=2) / UDP(dport=4791) / BTH(opcode=4, dqpn=qp) / Raw(b"x" * 16)
    f.time = t
    return f
wrpcap(sys.argv[1] + "/gap.pcap", [p(1000.0, 1), p(1000.0 + 86400 * 3, 1)])
wrpcap(sys.argv[1] + "/many.pcap", [p(1000.0 + i * 0.001, i + 1) for i in range(20)])
EOF
n=$("$ROCETOP" report "$T/gap.pcap" --json 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["intervals"])')
[ "$n" = 102 ] && pass gap_skipped_after_100_empty_intervals || fail gap_skipped_after_100_empty_intervals "intervals $n, want 1 + 100 + 1"
out=$("$ROCETOP" report "$T/many.pcap" --max-flows 16 --json 2>/dev/null | $PY -c 'import json,sys; t=json.load(sys.stdin)["totals"]; print(t["flows"], t["table_full"], t["roce_frames"])')
[ "$out" = "16 4 20" ] && pass max_flows_bounds_table || fail max_flows_bounds_table "flows, table_full, roce = $out; want 16 4 20"

exit $((fails > 0))
