#!/usr/bin/env bash
# Findings as alerts, end to end: rocetop lab with a PFC storm serves
# /metrics; a real Prometheus scrapes it every second and evaluates the
# shipped rules (exporters/rocetop.rules.yml); a real Alertmanager sends
# their notifications to a webhook receiver written here. The receiver must
# get RoCEPFCStorm firing with the finding's labels (rule, severity,
# interface, direction, priority), then its resolved notice once the storm
# has ended (the lab stops with its traffic).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
ROCETOP=${ROCETOP:-$PWD/$BUILD/rocetop}
PY=${PYTHON:-/usr/bin/python3}
PROMETHEUS=${PROMETHEUS:-/usr/bin/prometheus}
ALERTMANAGER=${ALERTMANAGER:-/usr/bin/prometheus-alertmanager}
here=tests/prom
. tests/lib.sh
rt_need_root alertmanager
rt_need_cmd alertmanager "$PROMETHEUS" "$ALERTMANAGER" curl
rt_tmpdir tmp
name=rta$RT_ID
fails=0
pass() { echo "PASS alertmanager: $*"; }
fail() { echo "FAIL alertmanager: $*"; fails=$((fails + 1)); }
freeport() { rt_free_port; }
ready() {	# URL PID WHAT: wait up to 20 s for URL to answer
	for _ in $(seq 200); do
		curl -sf -o /dev/null "$1" && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	fail "$3 did not start"; exit 1
}

"$PY" $here/webhook.py "$tmp/hook.port" "$tmp/hook.json" &
rt_kill_on_exit $!
for _ in $(seq 50); do [ -f "$tmp/hook.port" ] && break; sleep 0.1; done
HOOK=$(cat "$tmp/hook.port")
AMPORT=$(freeport) PPORT=$(freeport) PORT=$(freeport)

# Alertmanager: notify at once, and again as soon as anything changes.
cat >"$tmp/am.yml" <<YML
route:
  receiver: hook
  group_by: [alertname, instance, interface]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: 'http://127.0.0.1:$HOOK/'
        send_resolved: true
YML
"$ALERTMANAGER" --config.file="$tmp/am.yml" --storage.path="$tmp/am" --cluster.listen-address= \
	--web.listen-address="127.0.0.1:$AMPORT" --log.level=warn 2>"$tmp/am.err" &
am=$!; rt_kill_on_exit $am
cat >"$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: ['$PWD/exporters/rocetop.rules.yml']
alerting:
  alertmanagers:
    - static_configs:
        - targets: ['127.0.0.1:$AMPORT']
scrape_configs:
  - job_name: rocetop
    static_configs:
      - targets: ['127.0.0.1:$PORT']
YML
"$PROMETHEUS" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$PPORT" --log.level=warn 2>"$tmp/prom.err" &
pp=$!; rt_kill_on_exit $pp
ready "http://127.0.0.1:$AMPORT/-/ready" $am "Alertmanager: $(tail -2 "$tmp/am.err")"
ready "http://127.0.0.1:$PPORT/-/ready" $pp "Prometheus: $(tail -2 "$tmp/prom.err")"

# A PFC storm for 15 s; the lab's /metrics on the host's loopback.
rt_on_exit "pkill -9 -f 'rocetop lab --name $name '; for ns in snd sw rcv; do ip netns del $name-\$ns; done"
"$ROCETOP" lab --name "$name" --scenario pfc-storm --duration 15 -D -d 0.5 --listen "$PORT" \
	>"$tmp/lab.out" 2>"$tmp/lab.err" &
lab=$!
t0=$(date +%s)
if out=$("$PY" $here/check_webhook.py "$tmp/hook.json" firing RoCEPFCStorm 40 0 rule=pfc-storm \
	severity=critical interface=rcv0 direction=egress priority=3 job=rocetop instance="127.0.0.1:$PORT"); then
	fired=$(date +%s)
	pass "the webhook got RoCEPFCStorm firing $((fired - t0)) s after the lab started: $out"
else fail "$out; lab: $(tail -2 "$tmp/lab.err")"; fired=$(date +%s); fi
wait $lab; rc=$?
[ $rc = 0 ] && pass "the lab exits 0 after its 15 s storm" || fail "the lab exited $rc: $(tail -2 "$tmp/lab.err")"
t1=$(date +%s)
if out=$("$PY" $here/check_webhook.py "$tmp/hook.json" resolved RoCEPFCStorm 30 "$fired" rule=pfc-storm \
	interface=rcv0 priority=3); then
	pass "the webhook got RoCEPFCStorm resolved after it fired, by $(( $(date +%s) - t1 )) s after the lab ended: $out"
else fail "$out"; fi
[ $fails -eq 0 ]
