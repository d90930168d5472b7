#!/usr/bin/env bash
# bench/report_week.sh BUILD: `rocetop report` of a week of 1-s intervals.
# A recording of 604,800 one-second intervals (and one of a day, 86,400, the
# baseline of the same run) written by rocetop's own writer (-r of a capture
# -w FILE): rocetop-gen's mixed traffic laid out two frames a second
# (tests/report_html/day.py). Printed: each report's peak RSS and CPU time
# and the growth between a day and a week. Target: under 64 MB for the week
# (a report that kept ~150 bytes an interval held about 100 MB).
# ROCETOP_OLD=PATH also reports the week's recording with another build
# (an older rocetop) in the same run, for a before and after.
# The report's totals are checked against what the capture was laid out with.
. "$(dirname "$0")/lib.bash"
PY=${PYTHON:-/usr/bin/python3}
M=tests/offline/report_memory.py
bench_start bench/report_week.sh rtrw-bench "$BUILD/rocetop" "$BUILD/rocetop-gen"
"$BUILD/rocetop-gen" --scenario mixed --duration 20 --rate 3000 --senders 8 --pcap "$D/m.pcap" \
	--tally "$D/t" -q || exit 1

# measure NAME SECONDS ROCETOP: write the recording, report it; prints "KB CPU".
measure() {
	local n=$1 secs=$2 rt=$3 laid got u
	laid=$($PY tests/report_html/day.py "$D/m.pcap" "$D/t" "$D/$n.pcap" "$secs" 2 0 0) || return 1
	"$rt" -r "$D/$n.pcap" -d 1 -w "$D/$n.rtr" -D -q --link-speed 100G 2>"$D/$n.err" || return 1
	rm -f "$D/$n.pcap"
	u=$($PY $M usage "$D/$n.json" -- "$rt" report --json --link-speed 100G "$D/$n.rtr") || return 1
	got=$($PY -c 'import json,sys; r=json.load(open(sys.argv[1])); t=r["totals"]
print(t["frames"], t["ce"], t["cnp"], r["intervals"])' "$D/$n.json")
	read -r f ce cnp _ <<<"$laid"
	[ "$got" = "$f $ce $cnp $secs" ] ||
		{ echo "bench/report_week.sh: $n: the report says '$got', the file holds '$f $ce $cnp $secs'" >&2; return 1; }
	echo "$u"
}
read -r kb_day s_day < <(measure day 86400 "$BUILD/rocetop") || exit 1
read -r kb_week s_week < <(measure week 604800 "$BUILD/rocetop") || exit 1
size=$(stat -c %s "$D/week.rtr")
awk -v kd="$kb_day" -v kw="$kb_week" -v sd="$s_day" -v sw="$s_week" -v sz="$size" 'BEGIN {
	printf "report peak RSS, a day of 1-s intervals (86,400, baseline):  %8d KB   CPU %.2f s\n", kd, sd
	printf "report peak RSS, a week of 1-s intervals (604,800, %d MB):  %8d KB   CPU %.2f s\n", sz / 1e6, kw, sw
	printf "growth per interval: %.1f bytes; the week %s 64 MB (target: under)\n",
		(kw - kd) * 1024 / 518400, kw < 65536 ? "under" : "OVER"
}'
if [ -n "${ROCETOP_OLD:-}" ]; then
	u=$($PY $M usage "$D/old.json" -- "$ROCETOP_OLD" report --json --link-speed 100G "$D/week.rtr") || exit 1
	read -r kb s <<<"$u"
	echo "the same week reported by $ROCETOP_OLD: $kb KB, CPU $s s"
fi
