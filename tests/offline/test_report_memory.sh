#!/usr/bin/env bash
# rocetop report's memory follows the flows, not the length of the file
# (it once grew ~150 bytes per interval, 53 MB for 300k).
# A capture of 300,006 one-millisecond intervals with four flows is reported
# at --interval 0.001, and so is the same traffic over 30,006 intervals:
# the long report's peak RSS may exceed the short one's by at most 4 MB.
# Why 4 MB: the 270,000 intervals between them cost 39 MB at the old 144
# bytes per interval (the moments array, doubled by realloc), and 4 MB is
# 15 bytes per interval, room for allocator noise but not for a row per
# interval of any size. The figures are checked against the generator's
# tally (rocetop-gen --tally of the cycle the capture repeats) and the CE
# moments (the two highest, near the file's end, then the earliest) against
# the times the capture was written with (tests/offline/report_memory.py).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
GEN=${GEN:-$PWD/build/rocetop-gen}
H=tests/offline/report_memory.py
rt_tmpdir T
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

"$GEN" --frames 25 --pcap "$T/cycle.pcap" --tally "$T/tally" -q || { fail report_memory "rocetop-gen failed"; exit 1; }
$PY $H make "$T/cycle.pcap" "$T/tally" "$T/long.pcap" 16667 "$T/long.json" &&
	$PY $H make "$T/cycle.pcap" "$T/tally" "$T/short.pcap" 1667 "$T/short.json" ||
	{ fail report_memory "the capture could not be made"; exit 1; }

for n in short long; do
	if kb=$($PY $H rss "$T/$n.out" -- "$ROCETOP" report --json --interval 0.001 "$T/$n.pcap" 2>"$T/$n.err"); then
		eval "rss_$n=$kb"
		out=$($PY $H check "$T/$n.json" "$T/$n.out")
		[ -z "$out" ] && pass "report_${n}_figures_vs_tally" || fail "report_${n}_figures_vs_tally" "$out"
	else
		fail "report_${n}_figures_vs_tally" "report failed: $kb $(head -c 300 "$T/$n.err")"
		eval "rss_$n=0"
	fi
done
if [ "$rss_short" -gt 0 ] && [ "$rss_long" -gt 0 ]; then
	grow=$((rss_long - rss_short))
	echo "  peak RSS: 30,006 intervals ${rss_short} KB, 300,006 intervals ${rss_long} KB (+${grow} KB)"
	[ "$grow" -le 4096 ] && pass report_memory_bounded ||
		fail report_memory_bounded "peak RSS grew by ${grow} KB over 270,000 more intervals (bound 4096 KB)"
fi
exit $((fails > 0))
