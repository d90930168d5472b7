#!/usr/bin/env bash
# The incremental flow table and changed-only deltas (user/core/snapshot.h)
# write byte for byte the CSV files and recordings that full snapshots,
# sorted and compared in full every interval, wrote: the expected files in
# tests/fixtures/incremental/expect were made by rocetop at 82b647a, main just
# before the change (tests/fixtures/incremental/make.sh; rerun it with that
# commit's rocetop plus a deliberate CSV or recording format change, if one
# lands), from the scapy captures of
# tests/offline/offline.py and captures of each rocetop-gen scenario. A
# recording read back gives the same CSV files too.
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
FX=$PWD/tests/fixtures/incremental
T=$(mktemp -d /tmp/rti.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
[ -x "$ROCETOP" ] || { echo "FAIL incremental: no $ROCETOP"; exit 1; }
# A recording less what differs from run to run by design: its header's
# recording-id, created-ns and writer lines (issue 33; record.h), which the
# expected files, older, do not have. The layout text and every block compare.
rec_same() { ${PYTHON:-python3} - "$1" "$2" <<'PY'
import struct, sys
def body(p):
    d = open(p, "rb").read(); n, = struct.unpack_from("<I", d, 12)
    text = [l for l in d[16:16 + n].split(b"\n") if not l.startswith((b"recording-id ", b"created-ns ", b"writer "))]
    return d[:12], text, d[16 + n + 4:]
sys.exit(0 if body(sys.argv[1]) == body(sys.argv[2]) else 1)
PY
}
. "$FX/cases"
for c in "${cases[@]}"; do
	set -- $c
	name=$1 d=$2
	gunzip -c "$FX/$name.gz" >"$T/$name"
	if ! (cd "$T" && "$ROCETOP" -r "$name" -D -q -d "$d" --csv out -w rec.rtr 2>err &&
	      "$ROCETOP" -r rec.rtr -D -q -d "$d" --csv replay 2>>err); then
		echo "FAIL incremental_$name: rocetop failed: $(head -3 "$T/err")"
		fails=$((fails + 1))
		continue
	fi
	bad=""
	for f in flows.csv pfc.csv stats.csv ports.csv; do
		cmp -s "$T/out/$f" "$FX/expect/$name/$f" || bad="$bad $f"
		cmp -s "$T/replay/$f" "$FX/expect/$name/replay-$f" || bad="$bad replay:$f"
	done
	rec_same "$T/rec.rtr" "$FX/expect/$name/rec.rtr" || bad="$bad rec.rtr"
	rows=$(($(wc -l <"$T/out/flows.csv") - 1))
	if [ -z "$bad" ]; then
		echo "PASS incremental_$name: CSV ($rows flow rows), recording and its replay byte-identical to full snapshots' (82b647a)"
	else
		echo "FAIL incremental_$name: differs from 82b647a's output in:$bad"
		fails=$((fails + 1))
	fi
	rm -rf "$T/out" "$T/replay" "$T/rec.rtr" "$T/$name"
done
[ $fails -eq 0 ]
