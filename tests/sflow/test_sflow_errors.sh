#!/usr/bin/env bash
# Bad --sflow command lines get one clear sentence and exit 2; a port another
# program holds gets one sentence naming the port and exit 1.
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
PY=${PYTHON:-/usr/bin/python3}
ns=rtsfe$$
cleanup() { [ -n "${holder:-}" ] && kill "$holder" 2>/dev/null; ip netns del "$ns" 2>/dev/null; }
trap cleanup EXIT
fails=0
check() {	# want_rc pattern args...
	local want=$1 pat=$2 out rc
	shift 2
	out=$("$@" 2>&1 >/dev/null); rc=$?
	if [ "$rc" = "$want" ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && printf '%s' "$out" | grep -q -- "$pat"; then
		echo "PASS sflow_errors: ${*:2}: exit $rc, '$out'"
	else
		echo "FAIL sflow_errors: ${*:2}: exit $rc (want $want), '$out'"; fails=$((fails + 1))
	fi
}
check 2 "is not valid: give a UDP port" "$ROCETOP" --sflow abc -b -n 1
check 2 "is not valid: give a UDP port" "$ROCETOP" --sflow 70000 -b -n 1
check 2 "is not an IPv4 or IPv6 address" "$ROCETOP" --sflow host.example:6343 -b -n 1
check 2 "--sflow-allow 'bogus' is not valid" "$ROCETOP" --sflow 6343 --sflow-allow bogus -b -n 1
check 2 "--sflow-allow '10.0.0.0/33' is not valid" "$ROCETOP" --sflow 6343 --sflow-allow 10.0.0.0/33 -b -n 1
check 2 "restricts --sflow, which is not given" "$ROCETOP" --sflow-allow 10.0.0.0/8 -i lo -b -n 1
check 2 "cannot be combined with -r" "$ROCETOP" --sflow 6343 -r /dev/null
if [ "$(id -u)" -eq 0 ] && ip netns add "$ns" 2>/dev/null; then
	ip -n "$ns" link set lo up
	ip netns exec "$ns" "$PY" -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 6343)); time.sleep(30)' &
	holder=$!
	sleep 0.5
	check 1 "cannot listen for sFlow on 127.0.0.1:6343: Address already in use" \
		ip netns exec "$ns" "$ROCETOP" --sflow 127.0.0.1:6343 -b -n 1
else
	echo "SKIP sflow_errors: a port in use needs root for a namespace"
fi
exit $((fails > 0))
