#!/usr/bin/env bash
# rocetop lab --listen: the metrics endpoint the lab prints is on the host's
# loopback (the namespace rocetop was started in), not in the lab's receiver
# namespace, and it serves the lab's counts while the lab runs.
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
name=rtll$$
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	for ns in snd sw rcv; do ip netns del "$name-$ns" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
if [ "$(id -u)" -ne 0 ]; then echo "SKIP lab listen: needs root"; exit 0; fi

# A free port on the host's loopback (the kernel picks it).
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
fails=0
"$ROCETOP" lab --name "$name" --scenario steady --duration 20 --rate 1000 -D -d 0.2 \
	--listen "$port" >"$tmp/out" 2>"$tmp/err" &
pid=$!
code=000
for _ in $(seq 100); do
	code=$(curl -s -o "$tmp/metrics" -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/metrics")
	[ "$code" = 200 ] && grep -q '^rocetop_flow_packets_total' "$tmp/metrics" && break
	sleep 0.1
done
said=$(grep -o 'serving Prometheus metrics on [^ ]*' "$tmp/err")
if [ "$code" = 200 ] && [ "$said" = "serving Prometheus metrics on http://127.0.0.1:$port/metrics" ]; then
	echo "PASS lab listen: the printed endpoint http://127.0.0.1:$port/metrics answers 200 on the host"
else
	echo "FAIL lab listen: host curl got HTTP $code; the lab said '$said': $(tail -2 "$tmp/err")"
	fails=$((fails + 1))
fi
# The lab's flows (10.77.0.x, the lab's fixed addresses) are in what it serves.
if grep -q '^rocetop_flow_packets_total{.*src="10\.77\.0\.' "$tmp/metrics"; then
	echo "PASS lab listen: the host's endpoint serves the lab's flows (10.77.0.x)"
else
	echo "FAIL lab listen: no lab flow in the metrics: $(grep -m3 '^rocetop_flow' "$tmp/metrics")"
	fails=$((fails + 1))
fi
# Nothing listens on that port inside the receiver namespace.
incode=$(ip netns exec "$name-rcv" curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
	"http://127.0.0.1:$port/metrics")
if [ "$incode" = 000 ]; then
	echo "PASS lab listen: the port is not open in the lab's namespace $name-rcv"
else
	echo "FAIL lab listen: $name-rcv answers HTTP $incode on port $port"
	fails=$((fails + 1))
fi
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
if [ $rc = 0 ] && ! ip netns list | grep -q "^$name-"; then
	echo "PASS lab listen: SIGTERM ends the run, exit 0, nothing left"
else
	echo "FAIL lab listen: exit $rc after SIGTERM; namespaces: $(ip netns list | grep "^$name-")"
	fails=$((fails + 1))
fi
[ $fails -eq 0 ]
