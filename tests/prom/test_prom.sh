#!/usr/bin/env bash
# The Prometheus exporter end to end. rocetop watches one end of a veth pair
# in a namespace with --listen -D; scapy sends a known mix from the other
# end; a real Prometheus server (started here, on the namespace's loopback)
# scrapes it every second and its query API must return exactly the sent
# totals. promtool checks the text format, prometheus_client's parser the
# OpenMetrics one; 20 scrapers and 10 stalled clients must neither fail nor
# make the collector miss an interval; a port in use is one sentence and a
# non-zero exit.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PROMETHEUS=${PROMETHEUS:-/usr/bin/prometheus}
here=tests/prom
. tests/lib.sh
id=$RT_ID
A=rtp${id}a B=rtp${id}b IFA=rtp${id}x IFB=rtp${id}y
INTERVAL=0.2
pids=()
fails=0
rt_tmpdir tmp
rt_on_exit 'for p in "${pids[@]}"; do kill -9 "$p"; done; wait'

pass() { echo "PASS prom: $*"; }
fail() { echo "FAIL prom: $*"; fails=$((fails + 1)); }
inb() { ip netns exec "$B" "$@"; }

have_om_parser=0
"$PY" -c 'import prometheus_client.openmetrics.parser' 2>/dev/null && have_om_parser=1
om_check() {	# file, what
	if [ $have_om_parser = 0 ]; then
		echo "SKIP prom: OpenMetrics parse of $2: python3-prometheus-client is not installed"; return
	fi
	if out=$("$PY" - "$1" <<'PYEOF' 2>&1
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = list(text_string_to_metric_families(open(sys.argv[1]).read()))
print(len(fams), sum(len(f.samples) for f in fams))
PYEOF
	); then pass "OpenMetrics parser accepts $2 ($out families/samples)"
	else fail "OpenMetrics parser rejects $2: $(echo "$out" | tail -1)"; fi
}

# 1. The renderer's hand-built document, no root needed.
if [ -x "$BUILD/tests/test_prom" ] && command -v promtool >/dev/null; then
	PROM_DUMP_DIR=$tmp "$BUILD/tests/test_prom" >/dev/null
	if out=$(promtool check metrics <"$tmp/render1.prom" 2>&1); then
		pass "promtool check metrics accepts the unit test's document"
	else fail "promtool check metrics on the unit test's document: $out"; fi
	om_check "$tmp/render1.om" "the unit test's document"
else
	echo "SKIP prom: promtool on the unit document: no $BUILD/tests/test_prom or promtool"
fi

if [ "$(id -u)" -ne 0 ]; then echo "SKIP prom live: needs root for namespaces and BPF"; exit $((fails > 0)); fi
for t in "$PROMETHEUS" promtool curl ss; do
	command -v "$t" >/dev/null || { echo "SKIP prom live: $t is not installed"; exit $((fails > 0)); }
done

rt_netns "$A" "$B" && rt_veth "$A" "$IFA" "$B" "$IFB" ||
	{ fail "cannot build the namespaces"; exit 1; }
rt_no_ipv6 "$A" "$B"
MAC_A=$(rt_mac "$A" "$IFA")
MAC_B=$(rt_mac "$B" "$IFB")

freeport() { rt_free_port "$B"; }
PORT=$(freeport)

# 2. rocetop, daemon mode, a bare port: loopback only.
ip netns exec "$B" "$ROCETOP" -i "$IFB" --listen "$PORT" -D -d $INTERVAL --flow-timeout 0 --no-nic 2>"$tmp/rt.err" &
rt=$!; pids+=("$rt")
if ! rt_wait_until "$rt" 100 inb curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics"; then fail "rocetop --listen $PORT did not serve /metrics: $(cat "$tmp/rt.err")"; exit 1; fi
listening=$(inb ss -ltnH "sport = :$PORT" | awk '{print $4}' | tr '\n' ' ')
if [ "$listening" = "127.0.0.1:$PORT " ]; then pass "--listen $PORT binds 127.0.0.1:$PORT only"
else fail "--listen $PORT listens on '$listening', want 127.0.0.1:$PORT only"; fi

# 3. A real Prometheus server scraping it every second.
PPORT=$(freeport)
cat >"$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: rocetop
    static_configs:
      - targets: ['127.0.0.1:$PORT']
YML
ip netns exec "$B" "$PROMETHEUS" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$PPORT" --log.level=warn 2>"$tmp/prom.err" &
pp=$!; pids+=("$pp")
if ! rt_wait_until "$pp" 150 inb curl -sf -o /dev/null "http://127.0.0.1:$PPORT/-/ready"; then fail "Prometheus did not start: $(tail -3 "$tmp/prom.err")"; exit 1; fi

# 4. Known traffic, then Prometheus must return the sent totals exactly.
if ! ip netns exec "$A" "$PY" $here/send.py "$IFA" "$MAC_A" "$MAC_B" "$tmp/sent.pcap" >"$tmp/tally.json" 2>"$tmp/send.err"; then
	fail "scapy could not send: $(tail -1 "$tmp/send.err")"; exit 1
fi
speed=$(inb cat "/sys/class/net/$IFB/speed" 2>/dev/null || echo 0)
[ "${speed:-0}" -gt 0 ] 2>/dev/null || speed=0
inb "$PY" $here/check_prom.py "http://127.0.0.1:$PPORT" "$tmp/tally.json" "$IFB" "$speed" 20 >"$tmp/check.out"
rc=$?
if [ $rc = 0 ]; then pass "Prometheus returns the sent totals exactly ($(grep -c '^PASS' "$tmp/check.out") queries)"
else grep '^FAIL' "$tmp/check.out"; fails=$((fails + 1)); fi
health=$(inb curl -s "http://127.0.0.1:$PPORT/api/v1/targets" | "$PY" -c \
	'import json,sys; t=json.load(sys.stdin)["data"]["activeTargets"][0]; print(t["health"], repr(t["lastError"]))')
if [ "$health" = "up ''" ]; then pass "Prometheus's target is up with no scrape error"
else fail "Prometheus's target: $health"; fi

inb "$PY" $here/check_dashboard.py "http://127.0.0.1:$PPORT" exporters/grafana-dashboard.json || fails=$((fails + 1))
inb promtool check config exporters/prometheus.yml >/dev/null 2>&1 && pass "promtool check config accepts exporters/prometheus.yml" ||
	fail "promtool check config rejects exporters/prometheus.yml"

# 5. Both formats of the live document.
inb curl -s "http://127.0.0.1:$PORT/metrics" -o "$tmp/live.prom" -D "$tmp/live.hdr"
if out=$(promtool check metrics <"$tmp/live.prom" 2>&1); then pass "promtool check metrics accepts the live text format"
else fail "promtool check metrics on the live document: $out"; fi
grep -qi '^content-type: text/plain; version=0.0.4' "$tmp/live.hdr" && pass "text format served as version 0.0.4" ||
	fail "text content type: $(grep -i content-type "$tmp/live.hdr")"
inb curl -s -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
	"http://127.0.0.1:$PORT/metrics" -o "$tmp/live.om" -D "$tmp/live.omhdr"
if grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$tmp/live.omhdr" &&
   [ "$(tail -1 "$tmp/live.om")" = "# EOF" ] && [ "$(grep -c '^# EOF' "$tmp/live.om")" = 1 ]; then
	pass "OpenMetrics on request, ending in a single # EOF"
else fail "OpenMetrics negotiation: $(grep -i content-type "$tmp/live.omhdr"), last line '$(tail -1 "$tmp/live.om")'"; fi
om_check "$tmp/live.om" "the live document"

# 6. Other methods and paths.
code() { inb curl -s -o /dev/null -w '%{http_code}' "$@"; }
c1=$(code -X POST -d x "http://127.0.0.1:$PORT/metrics"); c2=$(code "http://127.0.0.1:$PORT/nope")
c3=$(code "http://127.0.0.1:$PORT/"); c4=$(code -I "http://127.0.0.1:$PORT/metrics")
if [ "$c1 $c2 $c3 $c4" = "405 404 200 200" ]; then pass "POST 405, unknown path 404, / 200, HEAD 200"
else fail "POST/404/root/HEAD gave $c1 $c2 $c3 $c4, want 405 404 200 200"; fi

# 7. Load: 20 scrapers for 3 s beside 10 stalled clients.
inb "$PY" $here/load.py 127.0.0.1 "$PORT" 20 3 10 $INTERVAL >"$tmp/load.out" 2>&1 || fails=$((fails + 1))
cat "$tmp/load.out"

# 8. A port in use: one sentence, non-zero exit.
inb "$ROCETOP" -q -r "$tmp/sent.pcap" --listen "127.0.0.1:$PORT" -D 2>"$tmp/inuse.err" >/dev/null
rc=$?
if [ $rc -ne 0 ] && [ "$(grep -c . "$tmp/inuse.err")" = 1 ] && grep -q 'already in use' "$tmp/inuse.err"; then
	pass "a port in use: exit $rc and one sentence: $(cat "$tmp/inuse.err")"
else fail "a port in use: exit $rc, stderr: $(cat "$tmp/inuse.err")"; fi

# 9. SIGINT stops the daemon cleanly with its HTTP thread.
kill -INT "$rt"
for _ in $(seq 50); do kill -0 "$rt" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$rt" 2>/dev/null; then fail "rocetop did not stop within 5 s of SIGINT"
else wait "$rt"; rc=$?; [ $rc = 0 ] && pass "rocetop exits 0 on SIGINT" || fail "rocetop exited $rc: $(cat "$tmp/rt.err")"; fi
[ $fails -eq 0 ]
