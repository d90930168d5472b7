#!/usr/bin/env bash
# The SIOCETHTOOL reader against the real ethtool on a veth pair: every
# statistic, in order, with the same value as `ethtool -S` prints it. And the
# NIC source on a real -i interface keeps none of veth's statistics (none is
# about pause, priorities, ECN, CNPs or discards).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/tests/test_nic_ethtool
name=ethtool_veth_matches_ethtool_S
. tests/lib.sh
rt_need_root $name "needs root for network namespaces"
rt_need_cmd $name ethtool
[ -x "$BIN" ] || { echo "FAIL $name: $BIN not built"; exit 1; }

ns=rtn$RT_ID
a=rtn${RT_ID}a
b=rtn${RT_ID}b
rt_tmpdir tmpd
tmp=$tmpd/t
rt_netns $ns || { echo "FAIL $name: cannot add netns"; exit 1; }
ip -n $ns link add $a type veth peer name $b || { echo "FAIL $name: cannot add veth"; exit 1; }
ip -n $ns link set $a up && ip -n $ns link set $b up
ip -n $ns addr add 10.250.0.1/24 dev $a
ip -n $ns addr add 10.250.0.2/24 dev $b

fail=0
for dev in $a $b; do
	ip netns exec $ns ethtool -S $dev > "$tmp.want" 2>&1
	ip netns exec $ns "$BIN" --ioctl $dev > "$tmp.got" 2>&1
	if ! diff -u "$tmp.want" "$tmp.got" > "$tmp.diff"; then
		echo "  $dev differs (ethtool -S, then the ioctl reader):"; cat "$tmp.diff"
		fail=1
	fi
	# non-trivial content: veth's stats start with peer_ifindex, the peer's index
	peer=$(ip netns exec $ns cat /sys/class/net/$([ $dev = $a ] && echo $b || echo $a)/ifindex)
	if ! grep -qx "     peer_ifindex: $peer" "$tmp.got"; then
		echo "  $dev: no peer_ifindex $peer in the reader's output"; fail=1
	fi
	n=$(grep -c ': ' "$tmp.want")
	[ "$n" -ge 2 ] || { echo "  $dev: ethtool -S shows only $n statistics"; fail=1; }
done
if [ $fail = 0 ]; then echo "PASS $name"; else echo "FAIL $name: see above"; fi

# An interface without ethtool statistics at all: lo.
name=ethtool_lo_has_none
if ip netns exec $ns "$BIN" --ioctl lo > "$tmp.lo" 2>&1; then
	echo "FAIL $name: lo gave statistics: $(head -3 "$tmp.lo")"; fail=1
elif grep -q "Operation not supported" "$tmp.lo"; then
	echo "PASS $name"
else
	echo "FAIL $name: $(cat "$tmp.lo")"; fail=1
fi

# The standard pause statistics through ethtool netlink: veth has none, and
# the reader must say so as `ethtool -I -a` does.
name=ethtool_pause_netlink_veth
want=$(ip netns exec $ns ethtool -I -a $a 2>&1)
got=$(ip netns exec $ns "$BIN" --pause $a 2>&1)
if [[ "$want" == *"Operation not supported"* ]]; then
	if [[ "$got" == *"Operation not supported"* ]]; then echo "PASS $name"
	else echo "FAIL $name: ethtool says '$want', the reader '$got'"; fail=1; fi
else
	echo "SKIP $name: this kernel's veth answers pause requests: $want"
fi

# The standard FEC statistics (corrected and uncorrectable blocks) through
# ethtool netlink: veth has no FEC, and the reader must say so as
# `ethtool -I --show-fec` does.
name=ethtool_fec_netlink_veth
want=$(ip netns exec $ns ethtool -I --show-fec $a 2>&1)
got=$(ip netns exec $ns "$BIN" --fec $a 2>&1)
if [[ "$want" == *"Operation not supported"* ]]; then
	if [[ "$got" == *"Operation not supported"* ]]; then echo "PASS $name"
	else echo "FAIL $name: ethtool says '$want', the reader '$got'"; fail=1; fi
else
	echo "FAIL $name: this kernel's veth answers FEC requests: $want"; fail=1
fi

# The PFC storm prevention timeout (ETHTOOL_GTUNABLE): veth has no such
# tunable, `ethtool --get-tunable` cannot get it, the reader says not
# supported, and doctor on the veth calls it unknown rather than off.
name=ethtool_pfc_tout_veth
want=$(ip netns exec $ns ethtool --get-tunable $a pfc-prevention-tout 2>&1); wrc=$?
got=$(ip netns exec $ns "$BIN" --tout $a 2>&1)
jt=$(ip netns exec $ns "$ROCETOP" doctor -i $a -d 0 --json 2>/dev/null |
	"${PYTHON:-python3}" -c 'import json, sys; j = json.load(sys.stdin)
print(j["netdevs"][0]["pfc_prevention_tout"], [f["id"] for f in j["findings"] if "storm" in f["id"]])')
if [ $wrc != 0 ] && [[ "$want" == *"Cannot get tunable"* ]] && [[ "$got" == *"Operation not supported"* ]] &&
   [ "$jt" = "-1 []" ]; then
	echo "PASS $name"
else
	echo "FAIL $name: ethtool says '$want' ($wrc), the reader '$got', doctor '$jt'"; fail=1
fi
exit $fail
