#!/usr/bin/env bash
# The link-flap rule on a real link: rocetop on one end of a veth pair, the
# other end set down and up again between two of its intervals. The kernel's
# own /sys/class/net/IF/carrier_changes, read before and after, is the
# oracle: ports.csv has the counter's row (scope netdev) growing by exactly
# that much in one interval, and link-flap opens once with that number and
# the downs it makes. Intervals without a flap open nothing.
set -u
cd "$(dirname "$0")/../.."
name=link_flap_veth
. tests/lib.sh
rt_need_root $name "needs root for network namespaces"
[ -x "$ROCETOP" ] || { echo "FAIL $name: $ROCETOP not built"; exit 1; }

ns=rtlf$RT_ID
a=rtlf${RT_ID}a
b=rtlf${RT_ID}b
rt_tmpdir tmp
rt_netns $ns || { echo "FAIL $name: cannot add netns"; exit 1; }
ip -n $ns link add $a type veth peer name $b || { echo "FAIL $name: cannot add veth"; exit 1; }
ip -n $ns link set $a up && ip -n $ns link set $b up
cc() { ip netns exec $ns cat /sys/class/net/$a/carrier_changes; }

ip netns exec $ns "$ROCETOP" -i $a -b -n 5 --interval 1 --csv "$tmp/csv" > "$tmp/out" 2> "$tmp/err" &
pid=$!
rt_on_exit "kill $pid"
rt_wait_rows "$tmp/csv/ports.csv" || { echo "FAIL $name: no ports.csv rows: $(cat "$tmp/err")"; exit 1; }
# Right after an interval's rows are written: the flap falls inside the next one.
rows=$(wc -l < "$tmp/csv/ports.csv")
for _ in $(seq 300); do [ "$(wc -l < "$tmp/csv/ports.csv")" -gt "$rows" ] && break; sleep 0.01; done
before=$(cc)
ip -n $ns link set $b down && ip -n $ns link set $b up
after=$(cc)
wait $pid; rc=$?
fail=0
[ $rc = 0 ] || { echo "  rocetop exited with $rc: $(cat "$tmp/err")"; fail=1; }
flap=$((after - before))
[ $flap = 2 ] || { echo "  the kernel counted $flap carrier changes for a down and an up (want 2)"; fail=1; }
deltas=$(awk -F, -v a=$a '$4 == a && $5 == "carrier_changes" && $8 == "netdev" { print $7 }' "$tmp/csv/ports.csv")
nz=$(echo "$deltas" | grep -vc '^0$')
sum=$(echo "$deltas" | awk '{ s += $1 } END { print s + 0 }')
[ "$nz" = 1 ] && [ "$sum" = $flap ] ||
	{ echo "  ports.csv carrier_changes deltas of $a: $(echo $deltas), want one of $flap"; fail=1; }
[ "$(echo "$deltas" | wc -l)" = 5 ] || { echo "  $(echo "$deltas" | wc -l) carrier_changes rows, want 5"; fail=1; }
opens=$(awk -F, '$2 == "open" && $3 == "link-flap"' "$tmp/csv/findings.csv")
[ "$(echo "$opens" | grep -c .)" = 1 ] || { echo "  link-flap opened: '$opens'"; fail=1; }
# the interval's length as rt_fmt_dur says it: "1.00 s", or "998 ms" for one cut short
echo "$opens" | grep -Eq ",ifname=$a counter=carrier_changes,$a: carrier_changes \+$flap in [0-9.]+ (s|ms): the link lost its carrier $((flap / 2)) time " ||
	{ echo "  link-flap evidence: $opens"; fail=1; }
if [ $fail = 0 ]; then echo "PASS $name"; else echo "FAIL $name: see above"; fi
exit $fail
