#!/usr/bin/env bash
# rocetop lab --mirror: the switch mirrors its congested port to a collector
# namespace (ERSPAN II, ERSPAN III, VXLAN) and rocetop --collector watches it.
# For each mirror type, the collector's flows.csv (per mirror session),
# pfc.csv and stats.csv equal the generator's tally exactly, and nothing is
# left behind after the run.
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
PY=${PYTHON:-/usr/bin/python3}
name=rtm$$
tmp=$(mktemp -d)
cleanup() {
	for ns in snd sw rcv col; do ip netns del "$name-$ns" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
if [ "$(id -u)" -ne 0 ]; then echo "SKIP lab mirror: needs root"; exit 0; fi

leftovers() { ip netns list | grep -c "^$name-" ; }
fails=0
for m in erspan2 erspan3 vxlan; do
	d=$tmp/$m; mkdir -p "$d"
	if ! timeout 60 "$ROCETOP" lab --name "$name" --mirror "$m" --scenario mixed --duration 1.5 \
		--rate 3000 --seed 5 --tally "$d/tally" --csv "$d/csv" -D -d 0.5 --flow-timeout 0 \
		>"$d.out" 2>"$d.err"; then
		echo "FAIL lab mirror $m: rocetop lab failed: $(tail -3 "$d.err")"; fails=$((fails + 1)); continue
	fi
	"$PY" tests/lab/compare_mirror_tally.py "lab mirror $m" "$d/csv" "$d/tally" col0 || fails=$((fails + 1))
	if [ "$(leftovers)" = 0 ]; then echo "PASS lab mirror $m: no namespace left after the run"
	else echo "FAIL lab mirror $m: namespaces left: $(ip netns list | grep "^$name-")"; fails=$((fails + 1)); fi
done
out=$("$ROCETOP" lab --name "$name" --mirror gre 2>&1); rc=$?
if [ $rc = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ]; then
	echo "PASS lab mirror: an unknown --mirror: exit 2 and one sentence: $out"
else
	echo "FAIL lab mirror: an unknown --mirror: exit $rc: $out"; fails=$((fails + 1))
fi
[ $fails -eq 0 ]
