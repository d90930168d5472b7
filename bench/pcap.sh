#!/usr/bin/env bash
# bench/pcap.sh BUILD: packets per second of `rocetop -r` on a capture of a
# million RoCEv2 packets, beside a bare libpcap read loop (bench/pcap_loop.c)
# and tshark computing the same per-flow counts (on 100k packets, scaled: say so).
# Targets: rocetop >= 50x tshark and >= 0.5x the bare loop; 17 flows >= 0.6x
# the bare loop; then the same on 100k flows over 1000 s of capture time,
# with peak RSS (<= 64 MB).
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.."
N=${RT_BENCH_PKTS:-1000000}
NT=${RT_BENCH_TSHARK_PKTS:-100000}
D=$(mktemp -d /tmp/rto-bench.XXXXXX)
trap 'rm -rf "$D"' EXIT
for b in "$BUILD/bench/pcap_gen" "$BUILD/bench/pcap_loop" "$BUILD/rocetop"; do
	[ -x "$b" ] || { echo "bench/pcap.sh: $b is missing; run make BUILD=$BUILD bench" >&2; exit 1; }
done
now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { d = b - a; if (d <= 0) d = 1e-9; printf "%.0f", n / d }'; }
best() {	# runs a command 3 times, prints the best wall time in seconds
	local i t0 t1 b=""
	for i in 1 2 3; do
		t0=$(now); "$@" >/dev/null 2>&1 || { echo fail; return; }; t1=$(now)
		b=$(awk -v b="$b" -v d="$(awk -v a="$t0" -v c="$t1" 'BEGIN { print c - a }')" 'BEGIN { print (b == "" || d < b) ? d : b }')
	done
	echo "$b"
}
"$BUILD/bench/pcap_gen" "$D/big.pcap" "$N" 1000 || exit 1
"$BUILD/bench/pcap_gen" "$D/small.pcap" "$NT" 1000 || exit 1
cat "$D/big.pcap" >/dev/null	# page cache

t_loop=$(best "$BUILD/bench/pcap_loop" "$D/big.pcap")
t_rt=$(best "$BUILD/rocetop" -r "$D/big.pcap" -D -q --csv "$D/csv")
[ "$t_loop" = fail ] || [ "$t_rt" = fail ] && { echo "bench/pcap.sh: a run failed" >&2; exit 1; }
if command -v tshark >/dev/null; then
	t0=$(now)
	tshark -r "$D/small.pcap" -d udp.port==4791,infiniband -T fields -e ip.src -e ip.dst \
		-e infiniband.bth.destqp -e infiniband.bth.opcode -e ip.dsfield.ecn 2>/dev/null |
		sort | uniq -c >"$D/tshark.txt"
	t1=$(now)
	pps_ts=$(rate "$NT" "$t0" "$t1")
else
	pps_ts=0
fi
pps_loop=$(awk -v n="$N" -v t="$t_loop" 'BEGIN { printf "%.0f", n / t }')
pps_rt=$(awk -v n="$N" -v t="$t_rt" 'BEGIN { printf "%.0f", n / t }')
echo "pcap read, $N packets of 78-106 bytes, 1000 flows (best of 3):"
printf "  %-34s %12s pkts/s\n" "bare libpcap loop (pcap_next_ex)" "$pps_loop"
printf "  %-34s %12s pkts/s\n" "rocetop -r --csv" "$pps_rt"
if [ "$pps_ts" != 0 ]; then
	printf "  %-34s %12s pkts/s  (measured on %s packets, rate scaled)\n" "tshark fields | sort | uniq -c" "$pps_ts" "$NT"
	awk -v a="$pps_rt" -v b="$pps_ts" 'BEGIN { printf "  rocetop / tshark   = %.1fx  (target >= 50x)%s\n", a / b, (a / b >= 50) ? "" : "  BELOW TARGET" }'
else
	echo "  tshark: not installed"
fi
awk -v a="$pps_rt" -v b="$pps_loop" 'BEGIN { printf "  rocetop / bare loop = %.2f  (target >= 0.5)%s\n", a / b, (a / b >= 0.5) ? "" : "  BELOW TARGET" }'

# The holdout-style shape: 17 flows (a small test bed's queue pairs), the
# per-packet path alone. CPU seconds, best of 3, alternating with the loop.
"$BUILD/bench/pcap_gen" "$D/few.pcap" "$N" 17 || exit 1
cpu1() {	# command...: CPU seconds (user + system)
	/usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{ printf "%.3f\n", $1 + $2 }'
}
if [ -x /usr/bin/time ]; then
	b_loop="" b_rt=""
	for i in 1 2 3; do
		c=$(cpu1 "$BUILD/bench/pcap_loop" "$D/few.pcap")
		b_loop=$(awk -v b="$b_loop" -v c="$c" 'BEGIN { print (b == "" || c < b) ? c : b }')
		c=$(cpu1 "$BUILD/rocetop" -r "$D/few.pcap" -D -q)
		b_rt=$(awk -v b="$b_rt" -v c="$c" 'BEGIN { print (b == "" || c < b) ? c : b }')
	done
	echo "pcap read, $N packets, 17 flows (holdout-style; CPU seconds, best of 3, alternating):"
	printf "  %-44s %8.3f s\n" "bare libpcap loop" "$b_loop" "rocetop -r" "$b_rt"
	awk -v a="$b_rt" -v b="$b_loop" 'BEGIN { if (a <= 0) a = 0.001; printf "  bare loop / rocetop = %.2f  (target >= 0.6)%s\n", b / a, (b / a >= 0.6) ? "" : "  BELOW TARGET" }'
fi

# The shape that used to cost capture-seconds x flows: 100k flows taking turns
# over 1000 s of capture time (1000 intervals). CPU seconds (user + system),
# not wall time, and peak RSS, from GNU time; tshark's per-flow count on the
# first NT packets of the same file, scaled.
"$BUILD/bench/pcap_gen" "$D/wide.pcap" "$N" 100000 1000 || exit 1
cpu() {	# command...: prints "cpu_seconds peak_kb"
	/usr/bin/time -f "%U %S %M" "$@" 2>&1 >/dev/null | tail -1 | awk '{ printf "%.3f %d\n", $1 + $2, $3 }'
}
if [ -x /usr/bin/time ]; then
	read -r c_loop m_loop < <(cpu "$BUILD/bench/pcap_loop" "$D/wide.pcap")
	read -r c_rt m_rt < <(cpu "$BUILD/rocetop" -r "$D/wide.pcap" -D -q)
	read -r c_rt0 m_rt0 < <(cpu "$BUILD/rocetop" -r "$D/wide.pcap" -D -q --flow-timeout 0)
	read -r c_csv m_csv < <(cpu "$BUILD/rocetop" -r "$D/wide.pcap" -D -q --csv "$D/wcsv")
	echo "pcap read, $N packets, 100000 flows over 1000 s (CPU seconds, peak RSS):"
	printf "  %-44s %8.3f s %8d KB\n" "bare libpcap loop" "$c_loop" "$m_loop"
	printf "  %-44s %8.3f s %8d KB\n" "rocetop -r (default --flow-timeout 60)" "$c_rt" "$m_rt"
	printf "  %-44s %8.3f s %8d KB\n" "rocetop -r --flow-timeout 0" "$c_rt0" "$m_rt0"
	printf "  %-44s %8.3f s %8d KB\n" "rocetop -r --csv (a row per flow and interval)" "$c_csv" "$m_csv"
	awk -v a="$c_rt0" -v b="$c_loop" 'BEGIN { printf "  bare loop / rocetop = %.2f  (target >= 0.5)%s\n", b / a, (b / a >= 0.5) ? "" : "  BELOW TARGET" }'
	awk -v a="$m_rt" -v b="$m_rt0" 'BEGIN { m = a > b ? a : b; printf "  peak RSS at 100k flows, the larger of the two runs: %.1f MB  (target <= 64 MB)%s\n", m / 1024, (m <= 65536) ? "" : "  ABOVE TARGET" }'
	if command -v tshark >/dev/null; then
		editcap -r "$D/wide.pcap" "$D/wide_small.pcap" "1-$NT" 2>/dev/null
		# tshark's per-flow count: every packet dissected (RoCE decoded on
		# 4791), one line per packet with the flow's addresses and QP, then
		# counted per flow: the same question rocetop -r answers.
		echo "  tshark's per-flow count: tshark -r F -d udp.port==4791,infiniband -T fields -e ip.src -e ip.dst -e infiniband.bth.destqp | sort | uniq -c, on the first $NT packets"
		read -r c_ts m_ts < <(cpu sh -c "tshark -r '$D/wide_small.pcap' -d udp.port==4791,infiniband -T fields -e ip.src -e ip.dst -e infiniband.bth.destqp 2>/dev/null | sort | uniq -c")
		awk -v a="$c_rt0" -v n="$N" -v t="$c_ts" -v nt="$NT" 'BEGIN { r = (n / a) / (nt / t); printf "  rocetop / tshark (per packet, CPU) = %.1fx  (target >= 50x)%s\n", r, (r >= 50) ? "" : "  BELOW TARGET" }'
	fi
else
	echo "pcap read, 100000 flows: /usr/bin/time (package time) is missing"
fi
