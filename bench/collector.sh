#!/usr/bin/env bash
# How many mirror copies a collector port takes: on a veth pair between two
# namespaces, build/bench/mirror_blast sends ERSPAN III copies of a RoCE
# frame as fast as it can for a few seconds, first into an XDP program that
# only drops (bpf/bench_drop.bpf.c, the cheapest possible collector), then
# into rocetop --collector, alternating, median of RUNS. The frames each
# XDP program handled per second come from the veth's own counters (ethtool
# -S: rx_queue_*_xdp_packets). Reported: rocetop ÷ drop-only (target >= 0.8).
# Usage: bench/collector.sh [BUILD] [SECONDS] [RUNS]
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-build} SECS=${2:-2} RUNS=${3:-3}
id=$$ A=rtb${id}a B=rtb${id}b IFA=rtb${id}x IFB=rtb${id}y
tmp=$(mktemp -d)
rt=
cleanup() {
	[ -n "$rt" ] && kill "$rt" 2>/dev/null && wait "$rt" 2>/dev/null
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
[ "$(id -u)" = 0 ] || { echo "collector bench: needs root"; exit 1; }
ip netns add "$A" && ip netns add "$B" &&
ip link add "$IFA" netns "$A" type veth peer name "$IFB" netns "$B" &&
ip -n "$A" link set "$IFA" up && ip -n "$B" link set "$IFB" up ||
	{ echo "collector bench: cannot build the namespaces"; exit 1; }

xdp_pkts() {	# frames the XDP program on IFB has seen
	ip netns exec "$B" ethtool -S "$IFB" | awk '/rx_queue_[0-9]+_xdp_packets/ {s += $2} END {print s + 0}'
}
measure() {	# frames per second through the XDP program attached now
	local a b
	a=$(xdp_pkts)
	ip netns exec "$A" "$BUILD/bench/mirror_blast" "$IFA" "$SECS" >/dev/null || return 1
	b=$(xdp_pkts)
	echo $(( (b - a) / SECS ))
}
drop_run() {
	ip -n "$B" link set dev "$IFB" xdpdrv obj "$BUILD/bench_drop.bpf.o" sec xdp.frags || return 1
	measure
	local rc=$?
	ip -n "$B" link set dev "$IFB" xdpdrv off
	return $rc
}
rocetop_run() {
	ip netns exec "$B" "$BUILD/rocetop" -i "$IFB" --collector --xdp-mode native --no-nic -D \
		--csv "$tmp/csv$1" -d 1 2>"$tmp/err" &
	rt=$!
	for _ in $(seq 100); do [ -s "$tmp/csv$1/flows.csv" ] && break; sleep 0.1; done
	measure
	local rc=$?
	kill -INT "$rt"; wait "$rt" 2>/dev/null; rt=
	return $rc
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

d=() r=()
for i in $(seq "$RUNS"); do
	x=$(drop_run) || { echo "collector bench: the drop-only run failed"; exit 1; }
	y=$(rocetop_run "$i") || { echo "collector bench: the rocetop run failed: $(cat "$tmp/err")"; exit 1; }
	d+=("$x") r+=("$y")
done
dm=$(printf '%s\n' "${d[@]}" | median) rm_=$(printf '%s\n' "${r[@]}" | median)
echo "collector port on a veth pair, ERSPAN III copies of a RoCE RDMA WRITE, ${SECS} s x $RUNS runs"
printf '  %-32s %12s frames/s   (runs: %s)\n' "XDP drop only (baseline)" "$dm" "${d[*]}"
printf '  %-32s %12s frames/s   (runs: %s)\n' "rocetop --collector" "$rm_" "${r[*]}"
awk -v a="$rm_" -v b="$dm" 'BEGIN { r = b ? a / b : 0;
	printf "  ratio rocetop / drop-only: %.2f (target >= 0.8: %s)\n", r, (r >= 0.8 ? "met" : "NOT met") }'
