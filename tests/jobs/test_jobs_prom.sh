#!/usr/bin/env bash
# The Prometheus families of the jobs (rocetop_job_*, rocetop_jobs_unexported)
# through a real Prometheus server. rocetop runs live on lo in a namespace
# with --listen -D and --sysfs-root on the hwhost fixture, with the proc/ of
# test_jobs_outputs.sh: pid 4242 rank 3 of Slurm job 4711, pid 5151 rank 1
# of pod train/trainer-0. The tree moves from healthy/ to healthy-t1/: the
# NIC's per-QP counters move by the hand-counted packets of
# tests/nic/test_qp_counters.sh (job 4711: 60 CE in on QP 282, 2 CNPs out to
# QP 691; the pod: 500 CE in on QP 300). Prometheus scrapes it twice (honor
# labels off and on: rocetop names its jobs job_name, which both keep)
# and check_jobs_prom.py reads every job series back through the query API.
# Then the bound: the tree gains 70 QPs of 70 more pids, each rank 0 of a
# Slurm job of its own, whose CE counters move by 3, 6, ... 210 packets (the
# QP table and statistics dumps grow by a message each, as a dump of many QPs
# does): of 72 jobs the 64 most congested are exported, the 8 least not.
# (The table's own limit, 4096 jobs, is tests/unit/test_jobs.c's.)
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/jobs/proc.sh
name=jobs_prom
PROMETHEUS=${PROMETHEUS:-/usr/bin/prometheus}
rt_need_cmd $name curl "$PROMETHEUS"
rt_fixture_start $name hwhost
rt_jobs_place "$tmp/proc" "$tmp/log"
for t in healthy healthy-t1; do
	cp -a "$FIX/$t" "$tmp/$t"
	ln -s "$tmp/proc" "$tmp/$t/proc"
done
# the bound's trees: healthy-t1's counters as they stand, 70 QPs more
N=70
for s in 0 3; do
	"$PY" tests/jobs/jobs_tree.py many "$FIX/healthy-t1" "$tmp/many$s" "$tmp/proc" $N 100 $s ||
		{ echo "FAIL $name: cannot build the trees of many jobs"; exit 1; }
	# a port counter no job counts: ports.csv says when rocetop has read the tree
	echo 561 >"$tmp/many$s/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent"
done

FIX_NS=rtfx${RT_ID}p
rt_netns "$FIX_NS" || { echo "FAIL $name: cannot create a namespace"; exit 1; }
inb() { ip netns exec "$FIX_NS" "$@"; }
PORT=$(rt_free_port "$FIX_NS")
ln -s "$tmp/healthy" "$tmp/root"
ip netns exec "$FIX_NS" "$ROCETOP" --sysfs-root "$tmp/root" -i lo --listen "$PORT" -D -d 0.2 --csv "$tmp/csv" \
	--pods-log-dir "$tmp/log/pods" 2>"$tmp/err" &
rt=$!
rt_on_exit "kill $rt 2>/dev/null"
rt_wait_rows "$tmp/csv/qpctr.csv"
ln -sfn "$tmp/healthy-t1" "$tmp/root"
rt_wait_until "$rt" 100 inb curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics" ||
	{ echo "FAIL $name: rocetop --listen $PORT did not serve /metrics: $(head -c 300 "$tmp/err")"; exit 1; }

PPORT=$(rt_free_port "$FIX_NS")
cat >"$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: rocetop
    static_configs:
      - targets: ['127.0.0.1:$PORT']
  - job_name: rocetop-honor
    honor_labels: true
    static_configs:
      - targets: ['127.0.0.1:$PORT']
YML
ip netns exec "$FIX_NS" "$PROMETHEUS" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$PPORT" --log.level=warn 2>"$tmp/prom.err" &
pp=$!
rt_on_exit "kill $pp 2>/dev/null"
rt_wait_until "$pp" 150 inb curl -sf -o /dev/null "http://127.0.0.1:$PPORT/-/ready" ||
	{ echo "FAIL $name: Prometheus did not start: $(tail -3 "$tmp/prom.err")"; exit 1; }

# What the fixture's counters moved by (tests/fixtures/hwhost/make-fixtures.py,
# healthy -> healthy-t1): job 4711 QP 282's cc_rx_ce_pkts 40 -> 100 and
# cc_tx_cnp_pkts 3 -> 5 (the NIC's flows: their packets are these), the pod's
# counter 6 cc_rx_ce_pkts 1000 -> 1500; of the 64 exported.
cat >"$tmp/want1.json" <<'JSON'
{"bound": 64, "jobs": [["slurm", "4711", {"pkts": 62, "ce": 60, "cnp": 2}],
                       ["k8s", "train/trainer-0", {"pkts": 500, "ce": 500}]]}
JSON
fails=0
inb "$PY" tests/jobs/check_jobs_prom.py "http://127.0.0.1:$PPORT" "127.0.0.1:$PORT" "$tmp/want1.json" \
	"two jobs" 20 || fails=$((fails + 1))

# The bound: the 70 QPs appear (their counters' first values: nothing
# counted yet), then move by 3 (i + 1) for job 9000 + i.
ln -sfn "$tmp/many0" "$tmp/root"
rt_wait_until "$rt" 200 grep -q ',np_cnp_sent,561,' "$tmp/csv/ports.csv" ||
	{ echo "FAIL $name: rocetop did not read the 70 QPs' counters: $(head -c 300 "$tmp/err")"; exit 1; }
ln -sfn "$tmp/many3" "$tmp/root"
"$PY" -c 'import json, sys
w = json.load(open(sys.argv[1]))
w["jobs"] += [["slurm", str(9000 + i), {"pkts": 3 * (i + 1), "ce": 3 * (i + 1)}] for i in range(int(sys.argv[3]))]
json.dump(w, open(sys.argv[2], "w"))' "$tmp/want1.json" "$tmp/want2.json" $N
inb "$PY" tests/jobs/check_jobs_prom.py "http://127.0.0.1:$PPORT" "127.0.0.1:$PORT" "$tmp/want2.json" \
	"72 jobs" 20 || fails=$((fails + 1))
kill -INT $rt
wait $rt
rc=$?
[ $rc = 0 ] && echo "PASS $name: rocetop exits 0 on SIGINT" ||
	{ echo "FAIL $name: rocetop exited $rc: $(head -c 300 "$tmp/err")"; fails=$((fails + 1)); }
[ $fails = 0 ]
