#!/usr/bin/env bash
# Every error a user can cause on the live path: one clear sentence naming the
# thing, a non-zero exit, and nothing left attached.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
BUILD=${BUILD:-build}
A=rtr${RT_ID}a B=rtr${RT_ID}b
# lo of a namespace of our own: the host's lo is shared with other runs.
N=rtr${RT_ID}n
pin=/sys/fs/bpf/rtr$RT_ID
fails=0

# expect NAME STATUS PATTERN CMD...: exit status and a stderr line matching PATTERN
expect() {
	local name=$1 want=$2 pat=$3; shift 3
	local err rc
	err=$("$@" 2>&1 >/dev/null); rc=$?
	if [ "$rc" = "$want" ] && grep -qE -e "$pat" <<<"$err" && [ "$(grep -c . <<<"$err")" -le 2 ]; then
		echo "PASS errors: $name"
	else
		echo "FAIL errors: $name: exit $rc (want $want), said: $err"
		fails=$((fails + 1))
	fi
}

rt_need_root errors
rt_on_exit "ip link del '$A'; rm -f '$pin'"
ip link add "$A" type veth peer name "$B" && ip link set "$A" up && ip link set "$B" up && rt_netns "$N" ||
	{ echo "FAIL errors: cannot create a veth pair and a namespace"; exit 1; }

expect "no such interface" 1 "no such interface: nosuch0" "$ROCETOP" -i nosuch0 -b -n 1
expect "unknown option" 2 "unrecognized option" "$ROCETOP" -i "$A" --bogus
expect "bad interval" 2 "--interval 'abc' is not valid" "$ROCETOP" -i "$A" -d abc
expect "nothing to watch" 2 "nothing to watch" "$ROCETOP"
expect "-i with -r" 2 "cannot be combined" "$ROCETOP" -i "$A" -r x.pcap
expect "an interface named twice" 2 "-i $A is given twice" "$ROCETOP" -i "$A" -i "$A" -b -n 1
expect "not privileged" 1 "needs CAP_NET_ADMIN, CAP_PERFMON and CAP_BPF, which this process lacks" setpriv --reuid=65534 --regid=65534 --clear-groups "$ROCETOP" -i "$A" -b -n 1
expect "native XDP where there is none" 1 "cannot attach XDP in native mode to lo" ip netns exec "$N" "$ROCETOP" -i lo --xdp-mode native -b -n 1

# Another XDP program already there: refused, and that program stays.
if bpftool prog load "$BUILD/bench_pass.bpf.o" "$pin" type xdp 2>/dev/null &&
   ip link set dev "$A" xdp pinned "$pin"; then
	before=$(ip link show "$A" | grep -o 'prog/xdp id [0-9]*')
	expect "XDP program already attached" 1 "another XDP program is already attached to $A.*--no-ingress" "$ROCETOP" -i "$A" -b -n 1
	after=$(ip link show "$A" | grep -o 'prog/xdp id [0-9]*')
	if [ -n "$before" ] && [ "$before" = "$after" ]; then echo "PASS errors: the other XDP program is left in place"
	else echo "FAIL errors: the other XDP program changed: '$before' -> '$after'"; fails=$((fails + 1)); fi
	ip link set dev "$A" xdp off
else
	echo "SKIP errors: XDP program already attached: cannot load the pass program"
fi

# Another rocetop holds the interface through a BPF link: the hint names bpftool, since 'ip link set dev X xdp off' cannot
# remove a link.
"$ROCETOP" -i "$A" -D -d 0.2 2>/dev/null &
first=$!
for _ in $(seq 50); do ip link show "$A" | grep -q 'xdp' && break; sleep 0.1; done
expect "XDP held through a link by another rocetop" 1 "possibly another rocetop holding it through a BPF link; 'bpftool net show dev $A' names it" \
	"$ROCETOP" -i "$A" -b -n 1
kill -INT $first; wait $first

# Auto mode falls back from native to generic with a message (lo has no native XDP).
out=$(ip netns exec "$N" "$ROCETOP" -i lo -b -n 1 -d 0.1 2>&1 >/dev/null); rc=$?
if [ $rc = 0 ] && grep -q "lo: native XDP not available .* falling back to generic XDP" <<<"$out"; then
	echo "PASS errors: native to generic fallback says so"
else
	echo "FAIL errors: fallback on lo: exit $rc, said: $out"; fails=$((fails + 1))
fi
[ $fails -eq 0 ]
