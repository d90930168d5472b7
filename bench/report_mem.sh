#!/usr/bin/env bash
# bench/report_mem.sh BUILD: what `rocetop report` keeps per interval
# (it once grew ~150 bytes an interval). The same traffic (four flows, one frame per millisecond,
# tests/offline/report_memory.py) reported at --interval 0.001 over 30,006 and
# over 300,006 intervals: peak RSS of each (the baseline is the short run, in
# the same run of this script), the growth per interval between them, and CPU
# time per 1,000 intervals. Target: growth <= 15 bytes per interval (the
# report before the bound grew ~144).
. "$(dirname "$0")/lib.bash"
PY=${PYTHON:-/usr/bin/python3}
H=tests/offline/report_memory.py
bench_start bench/report_mem.sh rtrm-bench "$BUILD/rocetop" "$BUILD/rocetop-gen"
"$BUILD/rocetop-gen" --frames 25 --pcap "$D/cycle.pcap" --tally "$D/tally" -q || exit 1
$PY $H make "$D/cycle.pcap" "$D/tally" "$D/short.pcap" 1667 "$D/short.json" || exit 1
$PY $H make "$D/cycle.pcap" "$D/tally" "$D/long.pcap" 16667 "$D/long.json" || exit 1
for n in short long; do
	u=$($PY $H usage "$D/$n.out" -- "$BUILD/rocetop" report --json --interval 0.001 "$D/$n.pcap") || exit 1
	read -r kb s <<<"$u"
	eval "kb_$n=$kb s_$n=$s"
done
awk -v ks="$kb_short" -v kl="$kb_long" -v ss="$s_short" -v sl="$s_long" 'BEGIN {
	printf "report peak RSS, 30,006 intervals (baseline):  %8d KB   CPU %.3f s (%.3f ms per 1k intervals)\n", ks, ss, ss / 30.006 * 1000
	printf "report peak RSS, 300,006 intervals:            %8d KB   CPU %.3f s (%.3f ms per 1k intervals)\n", kl, sl, sl / 300.006 * 1000
	printf "growth per interval: %.1f bytes   (target <= 15; before the bound ~144)\n", (kl - ks) * 1024 / 270000
}'
