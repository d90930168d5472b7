#!/usr/bin/env bash
# The exporter against slow and remote clients:
#   -   70 clients sending one header line a second never finish: every
#       normal scrape is still answered (the guard cuts them)
#   -   --listen 0.0.0.0:P and [::]:P warn that the metrics are reachable from
#       the network; a bare port (loopback) does not
# The replay is a capture of this test's own (tests/robust/craft.py).
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
PY=${PYTHON:-/usr/bin/python3}
T=$(mktemp -d /tmp/rto-pg.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$T"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
$PY tests/robust/craft.py pcap-times "$T/long.pcap" $(seq 1700000000 1700000040) ||
	{ fail prom_guard "cannot write the capture"; exit 1; }
# a port the kernel finds free on every address (the wildcard specs below
# bind them all): not a fixed or random one another test may hold
port=$($PY -c 'import socket; s=socket.socket(); s.bind(("0.0.0.0",0)); print(s.getsockname()[1])')

# --- 9: slow-header clients
"$ROCETOP" -r "$T/long.pcap" --listen 127.0.0.1:$port -D 2>"$T/err" &
pid=$!
for _ in $(seq 50); do curl -s -o /dev/null 127.0.0.1:$port/metrics && break; sleep 0.1; done
out=$($PY tests/prom/slowloris.py 127.0.0.1 $port 70 12)
kill $pid; wait $pid 2>/dev/null; pid=
read -r ok frac cutw cut <<<"$(tail -1 <<<"$out")"
if [ "$ok" = ok ] && [ "${frac%/*}" = "${frac#*/}" ] && [ "${frac#*/}" -ge 10 ]; then
	pass "prom_slow_clients_do_not_block_scrapes ($frac scrapes answered, $cut slow connections cut)"
else
	fail prom_slow_clients_do_not_block_scrapes "$out"
fi

# --- 14: wildcard addresses warn, loopback does not
for spec in 0.0.0.0:$port "[::]:$port" $port; do
	timeout 10 "$ROCETOP" -r "$T/long.pcap" --listen "$spec" -D --speed 1000 2>"$T/w" >/dev/null
	if [ "$spec" = $port ]; then
		grep -q 'binds every address' "$T/w" && fail prom_listen_loopback_quiet "--listen $spec warned: $(cat "$T/w")" ||
			pass prom_listen_loopback_quiet
	else
		grep -qF -- "--listen $spec binds every address" "$T/w" && grep -q 'reachable from the network' "$T/w" &&
			pass "prom_listen_wildcard_warns ($spec)" || fail prom_listen_wildcard_warns "--listen $spec: $(cat "$T/w")"
	fi
done
exit 0
