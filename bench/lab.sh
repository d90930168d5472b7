#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/lab.sh BUILD — packets per second through a veth pair with rocetop
# attached, against the same veth with nothing attached, in three modes:
#
#   native   rocetop --xdp-mode native on the receiving interface (ingress)
#   generic  rocetop --xdp-mode generic on the receiving interface (ingress)
#   tc-only  rocetop --no-ingress on the sending interface (tcx egress)
#
# rocetop-gen blasts RoCEv2 frames (the 'fixed' cycle: data, CNP, ACK, NAKs,
# PFC, 802.3x) as fast as it can for a fixed time from one namespace into the
# other; the pps is what arrived: the receiver's rx_packets over the run's wall
# time. Runs without and with rocetop alternate (ABBA), REPS of each, and the
# ratio is the median over adjacent (without, with) pairs of with / without,
# so the load other jobs put on the machine cancels out as far as it can. The
# XDP modes also run an XDP program that only passes (BUILD/bench_pass.bpf.o),
# to tell the veth's own XDP cost from rocetop's. A run "with" rocetop
# also checks that rocetop counted the frames (its stats.csv against
# rx_packets / the generator's tally), so a program that silently did not run
# cannot pass.
#
# Then the in-kernel cost per frame of each program, from the kernel's own
# accounting (bpf_prog_info run_time_ns / run_cnt): REPS more blasts per mode
# with rocetop attached and REPS with the pass-only program, alternating,
# medians (the pass-only XDP program through ip link; on tcx egress
# BUILD/bench_pass_tc.bpf.o, attached by the helper), each blast under
# BUILD/bench/bpf_stats, which turns the statistics on with BPF_ENABLE_STATS
# only for that blast (the kernel turns them off when its descriptor closes,
# even if the bench dies; kernel.bpf_stats_enabled is never written). These
# blasts are apart from the ABBA runs: statistics cost two clock reads per
# program run, which would lower the throughput the ratios compare. The
# pass-only program's ns per frame is the price of those clock reads and of
# calling a program at all; rocetop's minus it is what rocetop's program adds.
#
# Target: ratio >= 0.90 in every mode. Exit 0 when it ran (the table says
# whether the target was met; BENCH_STRICT=1 makes a missed target exit 1),
# 1 when it cannot run (not root, no veth, no binaries), with the reason, or
# when rocetop's counts disagree with what crossed (the numbers mean nothing).
#
# Knobs: BENCH_REPS (default 5 of each), BENCH_SECS (default 0.8 s per run),
# BENCH_RATE (default 2000000 pps, more than one core can send).

BUILD=${1:-build}
REPS=${BENCH_REPS:-5}
SECS=${BENCH_SECS:-0.8}
RATE=${BENCH_RATE:-2000000}
TARGET=0.90

P=rtb$$
NSA=${P}a		# sender namespace
NSB=${P}b		# receiver namespace
IFS_=${P}s		# sender's end of the veth (in NSA)
IFR=${P}r		# receiver's end (in NSB)
TMP=
ROCETOP_PID=

skip() {
	echo "lab.sh: SKIP: $*" >&2
	exit 1
}

cleanup() {
	if [ -n "$ROCETOP_PID" ]; then
		kill -TERM "$ROCETOP_PID" 2>/dev/null
		wait "$ROCETOP_PID" 2>/dev/null
	fi
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	[ -n "$TMP" ] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, veth, BPF); run it with sudo."
ROCETOP=$BUILD/rocetop
GEN=$BUILD/rocetop-gen
[ -x "$ROCETOP" ] || skip "$ROCETOP is missing: make BUILD=$BUILD first."
[ -x "$GEN" ] || skip "$GEN is missing: make BUILD=$BUILD first."
STATS=$BUILD/bench/bpf_stats
PASS_TC_OBJ=$BUILD/bench_pass_tc.bpf.o
[ -x "$STATS" ] || skip "$STATS is missing: make BUILD=$BUILD bench first."
[ -f "$PASS_TC_OBJ" ] || skip "$PASS_TC_OBJ is missing: make BUILD=$BUILD first."
command -v ip >/dev/null || skip "the ip command (iproute2) is missing."
command -v awk >/dev/null || skip "awk is missing."

TMP=$(mktemp -d /tmp/rtb-lab.XXXXXX) || skip "cannot create a temporary directory."

ip netns add "$NSA" 2>/dev/null || skip "cannot create network namespaces (ip netns add)."
ip netns add "$NSB" 2>/dev/null || skip "cannot create network namespaces (ip netns add)."
for ns in "$NSA" "$NSB"; do
	# No IPv6 chatter (router solicitations, MLD) in the counts.
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1
	ip -n "$ns" link set lo up
done
ip link add "$IFS_" netns "$NSA" type veth peer name "$IFR" netns "$NSB" 2>/dev/null ||
	skip "cannot create a veth pair (is the veth module available?)."
ip -n "$NSA" link set "$IFS_" up && ip -n "$NSB" link set "$IFR" up ||
	skip "cannot bring the veth pair up."

rx_packets() {
	ip netns exec "$NSB" cat "/sys/class/net/$IFR/statistics/rx_packets"
}

now() {
	date +%s.%N
}

# Start rocetop in namespace $1 on interface $2 with the options that follow;
# return once it is attached (its CSV sink exists only after the source is up).
start_rocetop() {
	ns=$1 ifn=$2
	shift 2
	rm -rf "$TMP/csv" "$TMP/rocetop.err"
	ip netns exec "$ns" "$ROCETOP" -i "$ifn" "$@" -D --csv "$TMP/csv" -d 1 \
		>/dev/null 2>"$TMP/rocetop.err" &
	ROCETOP_PID=$!
	i=0
	while [ ! -s "$TMP/csv/flows.csv" ]; do
		if ! kill -0 "$ROCETOP_PID" 2>/dev/null; then
			wait "$ROCETOP_PID"
			ROCETOP_PID=
			echo "lab.sh: rocetop did not start:" >&2
			cat "$TMP/rocetop.err" >&2
			return 1
		fi
		i=$((i + 1))
		[ $i -gt 200 ] && { echo "lab.sh: rocetop did not attach in 10 s" >&2; return 1; }
		sleep 0.05
	done
	return 0
}

stop_rocetop() {
	kill -TERM "$ROCETOP_PID" 2>/dev/null
	wait "$ROCETOP_PID"
	rc=$?
	ROCETOP_PID=
	return $rc
}

# One blast; prints "pps arrived sent pps_per_cpu": pps is what arrived over
# the run's wall time; pps_per_cpu is what arrived per second of the sender's
# CPU time (user + system: without IRQ time accounting the softirq work the
# veth does in the sender's context is charged to it), a measure of the cost
# per packet that other jobs on the machine disturb much less.
blast() {
	a=$(rx_packets)
	t0=$(now)
	times >"$TMP/times0"
	"$GEN" --scenario fixed --rate "$RATE" --duration "$SECS" \
		--tx-data "$NSA:$IFS_" -q --tally "$TMP/tally" >/dev/null 2>"$TMP/gen.err" || {
		echo "lab.sh: rocetop-gen failed:" >&2
		cat "$TMP/gen.err" >&2
		return 1
	}
	times >"$TMP/times1"
	t1=$(now)
	b=$(rx_packets)
	# The children's user and system time, before and after: the generator's.
	cpu=$(cat "$TMP/times0" "$TMP/times1" | awk 'NR % 2 == 0 { gsub(/[ms]/, " ");
		c[NR] = $1 * 60 + $2 + $3 * 60 + $4 } END { print c[4] - c[2] }')
	sent=$(awk '$1 == "frames_total" { print $2 }' "$TMP/tally/summary.txt")
	awk -v a="$a" -v b="$b" -v t0="$t0" -v t1="$t1" -v s="$sent" -v c="$cpu" \
		'BEGIN { printf "%.0f %d %d %.0f\n", (b - a) / (t1 - t0), b - a, s, (c > 0) ? (b - a) / c : 0 }'
}

# One blast under bpf_stats: the program(s) at hook $3 (xdp, egress) of
# interface $2 in namespace $1, further bpf_stats options after; prints the
# in-kernel ns per frame and the frames the program ran on.
kstats() {
	kns=$1 kif=$2 khook=$3
	shift 3
	ip netns exec "$kns" "$STATS" "$kif" "$khook" "$@" -- \
		"$GEN" --scenario fixed --rate "$RATE" --duration "$SECS" \
		--tx-data "$NSA:$IFS_" -q --tally "$TMP/tally" >"$TMP/stats.out" 2>"$TMP/stats.err" || {
		echo "lab.sh: bpf_stats on $kif ($khook) failed:" >&2
		cat "$TMP/stats.err" >&2
		return 1
	}
	# one line per program; more than one on a hook is not this bench's setup
	awk '$1 == "prog" { n++; r = $5; v = $9 } END {
		if (n != 1 || r == 0) exit 1; printf "%.1f %d\n", v, r }' "$TMP/stats.out" || {
		echo "lab.sh: bpf_stats on $kif ($khook) did not see one program run:" >&2
		cat "$TMP/stats.out" "$TMP/stats.err" >&2
		return 1
	}
}

# Frames rocetop counted in direction $1 (ingress/egress), from its stats.csv.
counted() {
	awk -F, -v d="$1" 'NR > 1 && $3 == d { n += $4 } END { print n + 0 }' "$TMP/csv/stats.csv" 2>/dev/null
}

median() {
	tr ' ' '\n' | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print 0; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The path the kernel took, as ip link reports it: xdp (native), xdpgeneric.
xdp_path() {
	ip -n "$NSB" link show dev "$IFR" | awk '
		/ xdpgeneric / || /xdpgeneric\// { print "xdpgeneric"; found = 1; exit }
		/ xdp / || /prog\/xdp / { print "xdp"; found = 1; exit }
		END { if (!found) print "none" }'
}

veth_xdp_packets() {
	ip netns exec "$NSB" ethtool -S "$IFR" 2>/dev/null |
		awk '/rx_queue_[0-9]+_xdp_packets/ { n += $2 } END { print n + 0 }'
}

FAIL=0
BAD=0
RESULTS=$TMP/results
: >"$RESULTS"
: >"$TMP/kadded"
# An XDP program that only passes (bench/, built by make) in mode $1 (xdpdrv or
# xdpgeneric): what the XDP path of the veth costs without rocetop's work.
PASS_OBJ=$BUILD/bench_pass.bpf.o
pass_on() {
	ip -n "$NSB" link set dev "$IFR" "$1" obj "$PASS_OBJ" sec xdp.frags 2>"$TMP/pass.err"
}
pass_off() {
	ip -n "$NSB" link set dev "$IFR" "$1" off 2>/dev/null
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", (b > 0) ? a / b : 0 }'
}

# One mode: name, namespace, interface, direction counted, pass mode ("-": none),
# rocetop options.
bench_mode() {
	mode=$1 ns=$2 ifn=$3 dir=$4 pmode=$5
	shift 5
	without= with= pass= ratios= pratios= cwithout= cwith= cpass= cratios= cpratios=
	path=- cnt_ok=yes worst=
	if [ "$pmode" != - ] && { [ ! -f "$PASS_OBJ" ] || ! pass_on "$pmode"; }; then
		echo "  $mode: no pass-only baseline ($PASS_OBJ: $(cat "$TMP/pass.err" 2>/dev/null))" >&2
		pmode=-
	fi
	[ "$pmode" != - ] && pass_off "$pmode"
	r=1
	while [ $r -le "$REPS" ]; do
		# ABBA: odd reps go without, pass-only, with; even reps the other way.
		if [ $((r % 2)) = 1 ]; then order="off pass on"; else order="on pass off"; fi
		for which in $order; do
			case $which in
			on)
				start_rocetop "$ns" "$ifn" "$@" || return 1
				if [ "$dir" = ingress ]; then
					path=$(xdp_path)
					vx0=$(veth_xdp_packets)
				fi
				out=$(blast) || { stop_rocetop; return 1; }
				[ "$dir" = ingress ] && vx1=$(veth_xdp_packets)
				stop_rocetop || { echo "lab.sh: rocetop exited with an error:" >&2;
						  cat "$TMP/rocetop.err" >&2; return 1; }
				set -- $out "$@"
				on_pps=$1 arrived=$2 sent=$3 on_cpu=$4
				shift 4
				c=$(counted "$dir")
				# rocetop must have counted what crossed: every frame sent in
				# tc-only, every frame that arrived on ingress (a few frames of
				# stray traffic allowed).
				if [ "$dir" = egress ]; then want=$sent; else want=$arrived; fi
				if [ "$c" -lt "$want" ] || [ "$c" -gt $((want + 16)) ]; then
					cnt_ok=no
					worst="counted $c, expected $want"
				fi
				# Native XDP on a veth runs in the veth's NAPI, which counts
				# rx_queue_N_xdp_packets: it must have seen every frame.
				if [ "$mode" = native ] && [ "$path" = xdp ] &&
				   [ $((vx1 - vx0)) -lt "$arrived" ]; then
					path="xdp(not-napi)"
				fi
				with="$with $on_pps"
				cwith="$cwith $on_cpu"
				;;
			pass)
				[ "$pmode" = - ] && continue
				pass_on "$pmode" || return 1
				out=$(blast) || { pass_off "$pmode"; return 1; }
				pass_off "$pmode"
				set -- $out "$@"
				pass_pps=$1 pass_cpu=$4
				shift 4
				pass="$pass $pass_pps"
				cpass="$cpass $pass_cpu"
				;;
			off)
				out=$(blast) || return 1
				set -- $out "$@"
				off_pps=$1 off_cpu=$4
				shift 4
				without="$without $off_pps"
				cwithout="$cwithout $off_cpu"
				;;
			esac
		done
		ratios="$ratios $(ratio "$on_pps" "$off_pps")"
		cratios="$cratios $(ratio "$on_cpu" "$off_cpu")"
		if [ "$pmode" != - ]; then
			pratios="$pratios $(ratio "$pass_pps" "$off_pps")"
			cpratios="$cpratios $(ratio "$pass_cpu" "$off_cpu")"
		fi
		r=$((r + 1))
	done
	# The in-kernel cost per frame: REPS blasts with rocetop's program and REPS
	# with the pass-only one, alternating (ABBA), medians.
	if [ "$dir" = ingress ]; then hook=xdp; else hook=egress; fi
	kon= kpass= kruns_on= kruns_pass=
	r=1
	while [ $r -le "$REPS" ]; do
		if [ $((r % 2)) = 1 ]; then order="on pass"; else order="pass on"; fi
		for which in $order; do
			if [ $which = on ]; then
				start_rocetop "$ns" "$ifn" "$@" || return 1
				ks=$(kstats "$ns" "$ifn" "$hook") || { stop_rocetop; return 1; }
				stop_rocetop || { echo "lab.sh: rocetop exited with an error:" >&2;
						  cat "$TMP/rocetop.err" >&2; return 1; }
				set -- $ks "$@"
				kon="$kon $1" kruns_on="$kruns_on $2"
				shift 2
			elif [ "$pmode" != - ]; then
				pass_on "$pmode" || return 1
				ks=$(kstats "$NSB" "$IFR" xdp) || { pass_off "$pmode"; return 1; }
				pass_off "$pmode"
				set -- $ks "$@"
				kpass="$kpass $1" kruns_pass="$kruns_pass $2"
				shift 2
			elif [ "$dir" = egress ]; then
				ks=$(kstats "$ns" "$ifn" egress --attach "$PASS_TC_OBJ") || return 1
				set -- $ks "$@"
				kpass="$kpass $1" kruns_pass="$kruns_pass $2"
				shift 2
			fi
		done
		r=$((r + 1))
	done
	kns_on=$(printf '%.1f' "$(echo "$kon" | median)")
	if [ -n "$kpass" ]; then kns_pass=$(printf '%.1f' "$(echo "$kpass" | median)"); else kns_pass=-; fi
	kadd=$(awk -v a="$kns_on" -v b="$kns_pass" 'BEGIN {
		if (b == "-") print "-"; else printf "%.1f", a - b }')
	echo "$mode $kadd" >>"$TMP/kadded"

	mw=$(echo "$without" | median)
	mr=$(echo "$with" | median)
	rt=$(echo "$ratios" | median)
	crt=$(echo "$cratios" | median)
	if [ "$pmode" != - ]; then
		mp=$(echo "$pass" | median)
		prt=$(printf '%.3f' "$(echo "$cpratios" | median)")
	else
		mp=- prt=-
	fi
	met=$(awk -v r="$rt" -v t="$TARGET" 'BEGIN { print (r >= t) ? "yes" : "NO" }')
	[ "$met" = yes ] || FAIL=1
	[ "$cnt_ok" = yes ] || { met="$met, BAD COUNT"; BAD=1; }
	printf '%-8s %-11s %10s %10s %10s %6.3f %6.3f %6s %7s %7s %7s  %s\n' "$mode" "$path" \
		"$mw" "$mr" "$mp" "$rt" "$crt" "$prt" "$kns_on" "$kns_pass" "$kadd" "$met" >>"$RESULTS"
	{
		echo "  $mode: pps without:$without  with:$with${pass:+  pass-only:$pass}"
		echo "  $mode:   paired ratios with/without:$ratios${pratios:+  pass-only/without:$pratios}"
		echo "  $mode: pps/cpu-s without:$cwithout  with:$cwith${cpass:+  pass-only:$cpass}"
		echo "  $mode:   paired ratios with/without:$cratios${cpratios:+  pass-only/without:$cpratios}"
		echo "  $mode: rocetop counted every frame: $cnt_ok${worst:+ ($worst)}"
		echo "  $mode: bpf_stats ns/frame rocetop:$kon  pass-only:${kpass:- -}"
		echo "  $mode: bpf_stats runs    rocetop:$kruns_on  pass-only:${kruns_pass:- -}"
	} >&2
	return 0
}

echo "lab.sh: veth $IFS_ ($NSA) -> $IFR ($NSB), rocetop-gen --scenario fixed --rate $RATE," \
	"$SECS s per run, $REPS runs with and $REPS without per mode, alternating"
bench_mode native "$NSB" "$IFR" ingress xdpdrv --xdp-mode native || exit 1
bench_mode generic "$NSB" "$IFR" ingress xdpgeneric --xdp-mode generic || exit 1
bench_mode tc-only "$NSA" "$IFS_" egress - --no-ingress || exit 1

# TCP through the egress program: the stack's segments carry their headers in
# the linear part and the payload in page fragments, and are clones (TCP keeps
# the original for retransmission), so making their headers linear would copy
# each skb's head. In-kernel ns per segment of rt_tc and of the pass-only tc
# program, over one TCP stream of TCP_MB MiB from NSA to NSB.
TCP_MB=${BENCH_TCP_MB:-300}
tcp_stream() {
	ip netns exec "$NSB" python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("192.168.237.2", 5001)); s.listen(1); s.settimeout(20)
c, _ = s.accept(); c.settimeout(20)
while c.recv(1 << 20): pass' &
	srv=$!
	sleep 0.3
	ip netns exec "$1" "$STATS" "$IFS_" egress $2 -- python3 -c '
import socket, sys
s = socket.create_connection(("192.168.237.2", 5001), timeout=20); b = bytes(1 << 20)
for _ in range(int(sys.argv[1])): s.sendall(b)
s.close()' "$TCP_MB" >"$TMP/stats.out" 2>"$TMP/stats.err"
	krc=$?
	wait "$srv"
	[ $krc = 0 ] && awk '$1 == "prog" { n++; v = $9; r = $5 } END {
		if (n != 1 || r == 0) exit 1; printf "%.1f %d\n", v, r }' "$TMP/stats.out" || {
		echo "lab.sh: bpf_stats over a TCP stream failed:" >&2
		cat "$TMP/stats.out" "$TMP/stats.err" >&2
		return 1
	}
}
ip -n "$NSA" addr add 192.168.237.1/30 dev "$IFS_" && ip -n "$NSB" addr add 192.168.237.2/30 dev "$IFR" ||
	skip "cannot address the veth pair for the TCP stream."
start_rocetop "$NSA" "$IFS_" --no-ingress || exit 1
tcp_on=$(tcp_stream "$NSA" "") || { stop_rocetop; exit 1; }
stop_rocetop
tcp_pass=$(tcp_stream "$NSA" "--attach $PASS_TC_OBJ") || exit 1

echo
echo "Packets per second through a veth pair, rocetop attached vs not (median of $REPS each; target ratio >= $TARGET)"
printf '%-8s %-11s %10s %10s %10s %6s %6s %6s %7s %7s %7s  %s\n' MODE PATH "PPS OFF" "PPS ON" \
	"PPS PASS" RATIO "R/CPU" "P/CPU" "K-NS" "K-PASS" "K-ADDED" "TARGET MET"
cat "$RESULTS"
cat <<EOF
PPS OFF / ON: median pps arrived with nothing attached / with rocetop attached.
PPS PASS: with an XDP program that only passes, in the same XDP mode: the cost of the
  veth's XDP path itself, apart from rocetop's program.
RATIO: median over the $REPS adjacent (off, on) pairs of pps on / pps off: the verdict.
R/CPU, P/CPU: the same for on and for pass, with pps per second of the sender's CPU time,
  which other jobs on the machine disturb much less than wall-clock pps.
K-NS, K-PASS: in-kernel ns per frame from bpf_stats (run_time_ns / run_cnt, statistics
  on only for those blasts; median of $REPS each, alternating) of rocetop's program and
  of a pass-only program on the same hook (XDP: bench_pass.bpf.o in the same XDP mode;
  tc-only: bench_pass_tc.bpf.o on tcx egress); both include the kernel's two clock
  reads per run. K-ADDED = K-NS - K-PASS: what rocetop's program costs a frame in the
  kernel.
PATH: what 'ip link show' reports while rocetop is attached: xdp = native XDP, run in the
  veth's NAPI (its rx_queue_*_xdp_packets grew by every frame); xdpgeneric = generic XDP;
  '-' for tcx egress.
EOF
awk '{ k[$1] = $2 } END {
	if (k["native"] != "" && k["native"] != "-" && k["native"] > 0 && k["tc-only"] != "-")
		printf "in-kernel added cost, tcx egress / native XDP: %.1f / %.1f ns = %.2f (target <= 1.2)\n",
			k["tc-only"], k["native"], k["tc-only"] / k["native"] }' "$TMP/kadded"
set -- $tcp_on $tcp_pass
echo "tcx egress on a TCP stream ($TCP_MB MiB; segments with their payload in page fragments):" \
	"rocetop $1 ns/segment over $2, pass-only $3 ns over $4, added" \
	"$(awk -v a="$1" -v b="$3" 'BEGIN { printf "%.1f", a - b }') ns"
if [ "$BAD" = 1 ]; then
	echo "lab.sh: rocetop's counts disagree with what crossed the veth: the measurement is not valid." >&2
	exit 1
fi
if [ "$FAIL" = 1 ] && [ "${BENCH_STRICT:-0}" = 1 ]; then
	exit 1
fi
exit 0
