#!/usr/bin/env bash
# Classic pcap files are read in place (user/sources/pcap_classic.c, mmap);
# a FIFO holding the same bytes is read by libpcap alone. The oracle is that
# libpcap path: for captures in both byte orders and both time precisions,
# and for damaged ones (cut inside a header and inside the data, a record
# bigger than the snapshot length, one bigger than any snapshot, a wire
# length below the captured one, times that cannot be placed, version 2.3),
# the file and the FIFO must give byte-identical flows.csv, pfc.csv and
# stats.csv, the same messages and the same exit status; the file must
# really have been read in place (rocetop -v says so, and where libpcap took
# over). The captures' totals are the generator's tally (tests/gen checks it
# against tshark), so the undamaged file is also checked against that.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_setup inplace

"$GEN" --scenario mixed --duration 0.3 --rate 20000 --seed 7 --pcap "$T/base.pcap" \
	--tally "$T/tally" -q >/dev/null 2>&1 || { fail inplace_gen "rocetop-gen failed"; exit 1; }

# The variants, built from the base capture's records (pcap-savefile(5)).
$PY - "$T/base.pcap" "$T/v" <<'EOF' || { fail inplace_variants "cannot build the variants"; exit 1; }
import os, struct, sys
b = open(sys.argv[1], "rb").read()
out = sys.argv[2]
os.makedirs(out)
magic, vmaj, vmin, zone, sig, snap, lt = struct.unpack_from("<IHHiIII", b, 0)
assert magic == 0xa1b2c3d4 and (vmaj, vmin) == (2, 4)
recs, off = [], 24
while off + 16 <= len(b):
    sec, usec, incl, orig = struct.unpack_from("<IIII", b, off)
    recs.append([sec, usec, incl, orig, b[off + 16:off + 16 + incl]])
    off += 16 + incl
assert off == len(b) and len(recs) > 100

def write(name, rs, end="<", nano=False, snaplen=snap, minor=4, raw=None):
    m = 0xa1b23c4d if nano else 0xa1b2c3d4
    parts = [struct.pack(end + "IHHiIII", m, 2, minor, 0, 0, snaplen, lt)]
    for sec, usec, incl, orig, data in rs:
        parts += [struct.pack(end + "IIII", sec, usec * 1000 if nano and usec < 1000000 else usec, incl, orig), data]
    d = b"".join(parts)  # joined once: adding to one bytes object copied it at every record
    open(os.path.join(out, name), "wb").write(d if raw is None else raw(d))

write("le-us.pcap", recs)
write("be-us.pcap", recs, ">")
write("le-ns.pcap", recs, nano=True)
write("be-ns.pcap", recs, ">", nano=True)
whole = 24 + sum(16 + r[2] for r in recs)
first = 24 + 16 + recs[0][2]
write("cut-header.pcap", recs, raw=lambda d: d[:whole - 16 - recs[-1][2] + 7])
write("cut-data.pcap", recs, ">", raw=lambda d: d[:whole - 5])
write("cut-first.pcap", recs, raw=lambda d: d[:first - 1])
mid = len(recs) // 2
big = [list(r) for r in recs]
big[mid][2] = big[mid][3] = 300000
big[mid][4] = bytes(300000)
write("over-max.pcap", big)
small = max(r[2] for r in recs) - 10
write("over-snaplen.pcap", recs, snaplen=small)
bad = [list(r) for r in recs]
bad[mid][3] = bad[mid][2] - 1
bad[mid + 1][1] = 1000000
bad[mid + 2][1] = 0x80000000
bad[mid + 3][0] = 0xFFFFFFFF
write("lengths-times.pcap", bad)
write("be-lengths-times.pcap", bad, ">")
write("v23.pcap", recs, minor=3)
EOF

# rocetop -r on a path; the directory of CSVs, messages and status in $2.
run() {
	local src=$1 out=$2
	mkdir -p "$out"
	"$ROCETOP" -r "$src" -D -d 0.05 --csv "$out/csv" 2>"$out/err"
	echo $? >"$out/rc"
	# the messages name the path read
	sed -i "s#$src#FILE#g" "$out/err"
}

inplace=0
for f in "$T"/v/*.pcap; do
	n=$(basename "$f" .pcap)
	run "$f" "$T/file-$n"
	mkdir -p "$T/fifo-$n"
	mkfifo "$T/fifo-$n/$n.pcap"
	cat "$f" >"$T/fifo-$n/$n.pcap" &
	run "$T/fifo-$n/$n.pcap" "$T/pipe-$n"
	wait
	why=""
	for c in flows.csv pfc.csv stats.csv; do
		cmp -s "$T/file-$n/csv/$c" "$T/pipe-$n/csv/$c" || why="$why $c differs;"
	done
	cmp -s "$T/file-$n/err" "$T/pipe-$n/err" ||
		why="$why messages differ: $(diff "$T/file-$n/err" "$T/pipe-$n/err" | head -4 | tr '\n' ' ');"
	cmp -s "$T/file-$n/rc" "$T/pipe-$n/rc" || why="$why exit $(cat "$T/file-$n/rc") against $(cat "$T/pipe-$n/rc");"
	[ -s "$T/pipe-$n/csv/flows.csv" ] || why="$why no flows.csv;"
	# read in place? (every variant but version 2.3, which libpcap reads)
	"$ROCETOP" -r "$f" -D -v -d 0.05 2>&1 | grep -q "read in place" && placed=1 || placed=0
	if [ "$n" = v23 ]; then
		[ $placed = 0 ] || why="$why version 2.3 was read in place;"
	else
		[ $placed = 1 ] || why="$why not read in place;"
		inplace=$((inplace + 1))
	fi
	[ -z "$why" ] && pass "inplace_same_as_libpcap_$n" || fail "inplace_same_as_libpcap_$n" "$why"
done

# Damaged files: libpcap takes over at the damaged record and says what it says.
"$ROCETOP" -r "$T/v/over-max.pcap" -D -v -d 0.05 2>&1 | grep -q "libpcap reads on from byte" &&
	grep -q "bigger than" "$T/file-over-max/err" &&
	pass inplace_hands_over || fail inplace_hands_over "$(cat "$T/file-over-max/err")"
# the damaged fields did reach the checks they are meant for (counted the same
# way by both paths above): a time that cannot be placed, a malformed length
grep -q "cannot be placed" "$T/file-lengths-times/err" &&
	awk -F, 'NR > 1 && $10 > 0 { m = 1 } END { exit !m }' "$T/file-lengths-times/csv/stats.csv" &&
	pass inplace_damage_seen || fail inplace_damage_seen "no skipped time or malformed frame"
[ "$(cat "$T/file-cut-data/rc")" = 0 ] && grep -q "stops in the middle of a record" "$T/file-cut-data/err" &&
	pass inplace_cut_counted || fail inplace_cut_counted "$(cat "$T/file-cut-data/err")"

# The undamaged capture read in place against the generator's tally: frames
# and bytes per flow (tally: flows.csv src,dst,dqpn,...,pkts,bytes).
$PY - "$T/tally" "$T/file-be-ns/csv/flows.csv" <<'EOF' && pass inplace_tally || fail inplace_tally "totals differ from the generator's"
import csv, glob, sys
want = {}
for row in csv.DictReader(open(glob.glob(sys.argv[1] + "/flows.csv")[0])):
    k = (row["src"], row["dst"], int(row["dqpn"]))
    want[k] = (want.get(k, (0, 0))[0] + int(row["pkts"]), want.get(k, (0, 0))[1] + int(row["bytes"]))
got = {}
for row in csv.DictReader(open(sys.argv[2])):
    k = (row["src"], row["dst"], int(row["dqpn"]))
    got[k] = (got.get(k, (0, 0))[0] + int(row["pkts"]), got.get(k, (0, 0))[1] + int(row["bytes"]))
if not want or want != got:
    print("want", sorted(want.items())[:4], "got", sorted(got.items())[:4])
    sys.exit(1)
EOF
[ $inplace -eq 11 ] || fail inplace_count "$inplace variants read in place, expected 11"
exit $((fails > 0))
