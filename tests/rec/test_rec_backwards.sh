#!/usr/bin/env bash
# A rotated set read in an order where its times go backwards: scapy's
# capture of 40 packets over 4 s, recorded with -w and --max-size into
# several files of one recording id; then the last two files trade their
# creation times (the "created-ns" line of their headers: a clock set
# back between them), so that rocetop report, which reads a set in creation
# order, meets the last file's times first. It says once that the next file
# begins before the previous one ends, naming both; the set as written (its
# times only go forward) gets no such note.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_checks rec_backwards "rec_backwards: "
rt_scapy_start rec_backwards
"$PY" - "$T" <<'PY' || { fail capture "scapy could not write the capture"; exit 1; }
import os, sys
sys.path.insert(0, "tests/lib")
from scapy.all import wrpcap
from rtlib.roce import roce, write_only
out = []
for i in range(40):
    p = roce("10.0.0.1", "10.0.0.2", write_only(0x100 + i % 4, i, payload=512))
    p.time = 1000.0 + i * 0.1
    out.append(p)
wrpcap(os.path.join(sys.argv[1], "c.pcap"), out)
PY
# swap_created A B: the two files trade their "created-ns N" header lines;
# the header (magic and version, 4 bytes of text length, the text) keeps
# its CRC-32 right after the text (user/core/record.c).
swap_created() {
	"$PY" - "$1" "$2" <<'PY'
import re, struct, sys, zlib
a, b = (open(f, "rb").read() for f in sys.argv[1:3])
ca, cb = (re.search(rb"\ncreated-ns (\d+)\n", x).group(1) for x in (a, b))
assert len(ca) == len(cb)
def fix(x, old, new):
    x = bytearray(x.replace(b"created-ns " + old, b"created-ns " + new, 1))
    end = 16 + struct.unpack_from("<I", x, 12)[0]
    struct.pack_into("<I", x, end, zlib.crc32(bytes(x[:end])))
    return bytes(x)
open(sys.argv[1], "wb").write(fix(a, ca, cb))
open(sys.argv[2], "wb").write(fix(b, cb, ca))
PY
}
for c in back fwd; do
	mkdir -p "$T/$c"
	if ! "$ROCETOP" -r "$T/c.pcap" -q -D -d 0.5 -w "$T/$c/w.rtr" --max-size 5k >"$T/$c.out" 2>"$T/$c.err"; then
		fail "$c record" "rocetop -r -w failed: $(head -2 "$T/$c.err")"; continue
	fi
	n=$(ls "$T/$c" | wc -l)
	[ "$n" -ge 3 ] || { fail "$c record" "--max-size 5k made $n file(s), want at least 3"; continue; }
	[ $c = back ] && { swap_created "$T/$c/w.rtr.$((n - 2))" "$T/$c/w.rtr.$((n - 1))" ||
		{ fail "$c record" "cannot swap the files' creation times"; continue; }; }
	"$ROCETOP" report "$T/$c"/w.rtr* >"$T/$c.rep" 2>"$T/$c.rerr"
	rc=$?
	notes=$(grep -c 'times go backwards' "$T/$c.rerr")
	if [ $c = back ]; then
		if [ $rc = 0 ] && [ "$notes" = 1 ] && grep 'times go backwards' "$T/$c.rerr" | grep -Eq "w\.rtr\.($((n - 2))|$((n - 1))) begins .* before .*w\.rtr\.($((n - 2))|$((n - 1))) ends"; then
			pass "the report of a set read with its times going back says so once, naming the files ($(grep 'times go backwards' "$T/$c.rerr"))"
		else fail back "exit $rc, $notes notes: $(head -3 "$T/$c.rerr")"; fi
	elif [ $rc = 0 ] && [ "$notes" = 0 ]; then
		pass "the report of a set whose times go forward has no such note ($n files)"
	else fail fwd "exit $rc, $notes notes: $(head -3 "$T/$c.rerr")"; fi
done
exit $((fails > 0))
