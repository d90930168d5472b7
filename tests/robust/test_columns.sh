#!/usr/bin/env bash
# Very large Gb/s values keep --batch's columns: a
# recording of a scapy capture whose last block the test patches itself (the
# first flow's byte counter set to 2^62, the block recompressed, its CRC
# redone). Every flow row's Gb/s and CE% cells end where the header's titles
# end, and --json still gives the exact rate the test computes from the
# counters it wrote: (2^62 - the flow's bytes in the block before) * 8 / 0.5 s.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_setup columns
rt_captures columns
"$ROCETOP" -r "$T/storm.pcap" -d 0.5 -w "$T/a.rtr" -D -q || { fail columns "cannot record"; exit 1; }
# Patch the last block; print the Gb/s the flow must show in that interval.
want=$($PY - "$T/a.rtr" "$T/big.rtr" <<'PY'
import struct, sys, zlib
d = bytearray(open(sys.argv[1], "rb").read())
n, = struct.unpack_from("<I", d, 12)
text = d[16:16 + n].decode()
size, field, cur = {}, {}, None
for l in text.split("\n"):
    w = l.split()
    if w[:1] == ["struct"]: cur = w[1]; size[cur] = int(w[2])
    elif w[:1] == ["field"]: field[(cur, w[1])] = int(w[2])
o = 16 + n + 4; blocks = []
while o < len(d):
    zl, = struct.unpack_from("<I", d, o + 4); blocks.append((o, zl)); o += 16 + zl
def flow0_bytes(raw):
    assert struct.unpack_from("<I", raw, field[("snap", "nflows")])[0] >= 1
    return size["snap"] + field[("flow", "v.bytes")]
prev = zlib.decompress(bytes(d[blocks[-2][0] + 16:blocks[-2][0] + 16 + blocks[-2][1]]))
o, zl = blocks[-1]
raw = bytearray(zlib.decompress(bytes(d[o + 16:o + 16 + zl])))
at = flow0_bytes(raw)
before, = struct.unpack_from("<Q", prev, at)
struct.pack_into("<Q", raw, at, 1 << 62)
z = zlib.compress(bytes(raw))
out = d[:o] + struct.pack("<IIII", 0x4b425452, len(z), len(raw), zlib.crc32(z)) + z
open(sys.argv[2], "wb").write(out)
print(((1 << 62) - before) * 8 / 0.5 / 1e9)
PY
) || { fail columns "cannot patch the recording"; exit 1; }
"$ROCETOP" -r "$T/big.rtr" -d 0.5 --batch --top 0 >"$T/b.txt" 2>"$T/err"; rc=$?
bad=$($PY - "$T/b.txt" <<'PY'
import sys
bad, hdr, rows = [], None, 0
for l in open(sys.argv[1]).read().split("\n"):
    if l.startswith("IFACE "):
        hdr = l; continue
    if not l.strip() or hdr is None:
        hdr = None if not l.strip() else hdr; continue
    rows += 1
    for t in ("Gb/s", "CE%"):
        e = hdr.index(t) + len(t)
        if len(l) <= e or l[e] != " " or l[e - 1] == " ":
            bad.append("%s cell not under its title: %r" % (t, l))
print(bad[0] if bad else ("" if rows else "no flow rows"))
PY
)
# the last interval's line (a replay may end with a line of the episodes' closes, "end": true)
"$ROCETOP" -r "$T/big.rtr" -d 0.5 --batch --json --top 0 2>/dev/null | grep -v '^{"time":[0-9.e+]*,"end":true' | tail -1 >"$T/last.json"
got=$($PY -c 'import json,sys; print(max(f["gbps"] for f in json.load(open(sys.argv[1]))["flows"]))' "$T/last.json" 2>&1)
if [ $rc = 0 ] && [ -z "$bad" ] && $PY -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(a - b) > 1e-6 * b)' "$got" "$want"; then
	pass "batch_huge_gbps_keeps_columns: $want Gb/s shown in its column, exact in JSON"
else
	fail batch_huge_gbps_keeps_columns "exit $rc; ${bad:-aligned}; JSON gbps $got, want $want"
fi
