#!/usr/bin/env bash
# pause-without-ecn names the jobs of the flows it pauses, end to end. The
# hwhost fixture (live on lo with --sysfs-root, as test_jobs_outputs.sh runs
# it) with that test's proc/ (pid 4242 rank 3 of Slurm job 4711, pid 5151
# rank 1 of pod train/trainer-0), but per-QP statistics of the test's own:
# the NIC counts the QPs' packets (mlx5's optional rdma_rx_packets and
# rdma_tx_packets) and not one CE mark: from t0 to t1 QP 282 receives 300
# packets and sends 120 (to QP 691), QP 300 receives 700, cc_rx_ce_pkts
# stays. Meanwhile eth2 receives 50 pause frames on priority 0, the NIC's
# per-QP flows' priority (they carry no DSCP). The finding's evidence must
# name exactly those 3 flows, 1120 packets, 0 ECN-capable, and the jobs and
# ranks placed here, in findings.csv and in the report of the recording (the
# rule asks for one interval, the one the fixture moves in, in both).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/jobs/proc.sh
name=jobs_pause
rt_fixture_start $name hwhost
rt_jobs_place "$tmp/proc" "$tmp/log"
# counter 5 bound to QP 282 (pid 4242), 6 to QPs 301 and 300 (pid 5151), as
# tests/fixtures/hwhost/make-fixtures.py binds them
RX282=(1000 1300) TX282=(400 520) RX300=(5000 5700)
for i in 0 1; do
	cat >"$tmp/stat$i.json" <<JSON
[[5, [282], {"rdma_rx_packets": ${RX282[i]}, "rdma_rx_bytes": $((RX282[i] * 1100)),
             "rdma_tx_packets": ${TX282[i]}, "rdma_tx_bytes": $((TX282[i] * 1100)),
             "cc_rx_ce_pkts": 40, "cc_rx_cnp_pkts": 7, "cc_tx_cnp_pkts": 3}],
 [6, [301, 300], {"rdma_rx_packets": ${RX300[i]}, "cc_rx_ce_pkts": 1000}]]
JSON
done
"$PY" tests/jobs/jobs_tree.py qpstat "$FIX/healthy" "$tmp/t0" "$tmp/proc" "$tmp/stat0.json" &&
	"$PY" tests/jobs/jobs_tree.py qpstat "$FIX/healthy-t1" "$tmp/t1" "$tmp/proc" "$tmp/stat1.json" ||
	{ echo "FAIL $name: cannot build the trees"; exit 1; }
PAUSES=50
sed -i "s/rx_prio0_pause: 0/rx_prio0_pause: $PAUSES/" "$tmp/t1/ethtool/eth2"
rt_fixture_run $name "$tmp/t0" "$tmp/t1" "$tmp/csv/qpctr.csv" -b -n 3 --interval 1 --csv "$tmp/csv" \
	-w "$tmp/run.rtr" --pods-log-dir "$tmp/log/pods" --threshold pwe-intervals=1
[ "$rc" = 0 ] || { echo "FAIL $name: rocetop exited $rc: $(head -c 300 "$tmp/err")"; exit 1; }
"$ROCETOP" report --json --threshold pwe-intervals=1 "$tmp/run.rtr" >"$tmp/report.json" 2>"$tmp/err2" ||
	{ echo "FAIL $name: rocetop report: $(head -c 300 "$tmp/err2")"; exit 1; }
# What the test wrote: the packets each counter moved by, the pauses, the
# jobs and ranks placed (sorted by name, as the evidence lists them).
flows=3
pkts=$((RX282[1] - RX282[0] + TX282[1] - TX282[0] + RX300[1] - RX300[0]))
jobs="job k8s:train/trainer-0 rank 1, job slurm:4711 rank 3"
want="priority 0 on eth2: $PAUSES pause frames while its $flows RoCE flows ($jobs) carried $pkts data packets (0 ECN-capable) and not one CE mark"
"$PY" - "$tmp" "$want" <<'PYEOF'
import json
import os
import sys

sys.path.insert(0, os.path.join("tests", "lib"))
from rtlib.check import Checker  # noqa: E402
from rtlib.outputs import rows, walk  # noqa: E402

t, want = sys.argv[1:3]
c = Checker(prefix="jobs_pause: ")
got = [(r["event"], r["subject"], r["evidence"]) for r in rows(os.path.join(t, "csv", "findings.csv"))
       if r["rule"] == "pause-without-ecn"]
c.check("findings.csv: pause-without-ecn opens once on eth2 priority 0, its evidence naming the jobs",
        [g for g in got if g[0] == "open"], [("open", "ifname=eth2 prio=0", want)])



rep = json.load(open(os.path.join(t, "report.json")))
got = sorted({d.get("evidence") for d in walk(rep) if d.get("rule") == "pause-without-ecn"}, key=str)
c.check("report --json of the recording: the pause-without-ecn finding's evidence", got, [want])
c.done()
PYEOF
