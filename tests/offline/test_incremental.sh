#!/usr/bin/env bash
# The incremental flow table and changed-only deltas (user/core/snapshot.h)
# write byte for byte the CSV files that full snapshots,
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
. "$FX/cases"
# nodscp FILE: flows.csv without its dscp column (the 19th)
nodscp() { awk -F, -v OFS=, 'NR > 1 { $19 = "" } { print }' "$1"; }
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
	# flows.csv's last two columns, prios and dscps (every packet's, where
	# 82b647a had only the last packet's in dscp and pcp), came after it, and
	# its dscp is now the lowest of them: tests/offline/test_prio_set.sh holds
	# the sets to tshark; here every other column byte for byte.
	for o in out replay; do
		sed -E '1s/,prios,dscps$//; 2,$s/,("[0-9,]+"|[0-9]+),("[0-9,]+"|[0-9]+)$//' "$T/$o/flows.csv" \
			>"$T/$o/flows.cut" && mv "$T/$o/flows.cut" "$T/$o/flows.csv"
	done
	cmp -s <(nodscp "$T/out/flows.csv") <(nodscp "$FX/expect/$name/flows.csv") || bad="$bad flows.csv"
	cmp -s <(nodscp "$T/replay/flows.csv") <(nodscp "$FX/expect/$name/replay-flows.csv") || bad="$bad replay:flows.csv"
	for f in stats.csv ports.csv; do
		cmp -s "$T/out/$f" "$FX/expect/$name/$f" || bad="$bad $f"
		cmp -s "$T/replay/$f" "$FX/expect/$name/replay-$f" || bad="$bad replay:$f"
	done
	# pfc.csv: every column but paused_seconds byte for byte. 82b647a left it
	# empty where the capture's speed was not known, and it is now the union
	# of the pauses in time at 100G assumed (rocetop(8) PAUSED TIME), which
	# tests/offline/test_pause_union.sh holds to the frames' own times: here
	# a number, never more than the quanta's sum (quanta * 512 bit times).
	for f in pfc.csv replay-pfc.csv; do
		got=$T/out/pfc.csv; [ $f = replay-pfc.csv ] && got=$T/replay/pfc.csv
		cut -d, -f1-7 "$FX/expect/$name/$f" | cmp -s - <(cut -d, -f1-7 "$got") || bad="$bad $f"
		awk -F, 'NR > 1 && !($8 ~ /^[0-9]+\.[0-9]+$/ && $8 <= $7 * 512 / 1e11 + 1e-9) { bad = 1 }
			END { exit bad }' "$got" || bad="$bad $f:paused_seconds"
	done
	# The recording now names the kernel and options and keeps more of each
	# interface, so it is no longer 82b647a's bytes: 82b647a's recording read
	# by this build gives the CSV files this build's recording gives.
	# (An old recording has no sets: the last packet's DSCP and priority stand
	# for them, so its flows.csv is compared, as above, without them.)
	if (cd "$T" && "$ROCETOP" -r "$FX/expect/$name/rec.rtr" -D -q -d "$d" --csv oldrec 2>>err); then
		sed -E '1s/,prios,dscps$//; 2,$s/,("[0-9,]+"|[0-9]+),("[0-9,]+"|[0-9]+)$//' "$T/oldrec/flows.csv" \
			>"$T/oldrec/flows.cut" && mv "$T/oldrec/flows.cut" "$T/oldrec/flows.csv"
		# (nor paused time: an old recording's is estimated from its quanta)
		for f in pfc.csv; do
			cut -d, -f1-7 "$T/oldrec/$f" | cmp -s - <(cut -d, -f1-7 "$T/replay/$f") || bad="$bad rec.rtr:$f"
		done
		cmp -s <(nodscp "$T/oldrec/flows.csv") <(nodscp "$T/replay/flows.csv") || bad="$bad rec.rtr:flows.csv"
		for f in stats.csv ports.csv; do
			cmp -s "$T/oldrec/$f" "$T/replay/$f" || bad="$bad rec.rtr:$f"
		done
	else
		bad="$bad rec.rtr (82b647a's does not read)"
	fi
	rows=$(($(wc -l <"$T/out/flows.csv") - 1))
	if [ -z "$bad" ]; then
		echo "PASS incremental_$name: CSV ($rows flow rows) and its replay byte-identical to full snapshots' (82b647a), the recording read as 82b647a's"
	else
		echo "FAIL incremental_$name: differs from 82b647a's output in:$bad"
		fails=$((fails + 1))
	fi
	rm -rf "$T/out" "$T/replay" "$T/oldrec" "$T/rec.rtr" "$T/$name"
done
[ $fails -eq 0 ]
