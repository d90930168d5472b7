#!/usr/bin/env bash
# A recording block that claims 1 GiB of raw record: 1 MB
# of zlib data inflating to 1 GiB of zeros, its CRC and its ratio valid, set
# between the two halves of a good recording. It is refused before it is
# inflated: the reader's peak memory (GNU time's maximum RSS) stays under
# 64 MB and it takes under 2 s (it took 1.06 GB and 15 s), and every good
# block around it is read: the intervals counted are the good file's (the
# test's own count of its blocks).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_setup bigblock
[ -x /usr/bin/time ] || { echo "SKIP bigblock: GNU time (/usr/bin/time) is not installed"; exit 0; }
rt_captures bigblock
"$ROCETOP" -r "$T/storm.pcap" -d 0.5 -w "$T/good.rtr" -D -q || { fail bigblock "cannot record"; exit 1; }
# good.rtr with the big block after its first half of blocks; prints the good blocks' count.
blocks=$($PY - "$T/good.rtr" "$T/big.rtr" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
n, = struct.unpack_from("<I", d, 12); o = 16 + n + 4; offs = []
while o < len(d):
    offs.append(o); o += 16 + struct.unpack_from("<I", d, o + 4)[0]
c = zlib.compressobj(9)
z = b"".join(c.compress(bytes(1 << 24)) for _ in range(64)) + c.flush()
big = struct.pack("<IIII", 0x4b425452, len(z), 1 << 30, zlib.crc32(z)) + z
cut = offs[len(offs) // 2]
open(sys.argv[2], "wb").write(d[:cut] + big + d[cut:])
print(len(offs))
PY
) || { fail bigblock "cannot build the file"; exit 1; }
/usr/bin/time -f '%M %e' -o "$T/time" "$ROCETOP" -r "$T/big.rtr" --csv "$T/csv" -D -q 2>"$T/err"; rc=$?
read -r kb secs <"$T/time"
rows=$(($(wc -l <"$T/csv/stats.csv") - 1))
if [ $rc = 0 ] && [ "$kb" -lt 65536 ] && awk -v s="$secs" 'BEGIN {exit !(s < 2)}' && [ "$rows" = "$blocks" ] &&
   grep -q 'is damaged' "$T/err"; then
	pass "bigblock_refused_before_inflating: peak RSS $kb KB, $secs s, all $blocks good intervals read"
else
	fail bigblock_refused_before_inflating "exit $rc, peak RSS $kb KB (want < 65536), $secs s (want < 2), intervals $rows (want $blocks): $(head -2 "$T/err")"
fi
