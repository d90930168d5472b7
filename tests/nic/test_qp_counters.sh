#!/usr/bin/env bash
# Per-QP NIC counters end to end, live on lo with --sysfs-root on the hwhost
# fixture (tests/fixtures/hwhost/make-fixtures.py wrote the kernel's rdma
# netlink answers as bytes). The tree moves from healthy/ to healthy-t1/
# after the first interval; the numbers below are the fixture's, by hand:
#   counter 5 (QP 282 of pid 4242, 192.168.1.10 <-> .20, peer QP 691):
#     cc_rx_ce_pkts 40 -> 100 (+60), cc_rx_cnp_pkts 7 -> 7, cc_tx_cnp_pkts 3 -> 5 (+2),
#     out_of_sequence 0xfffffff0 -> 0x10: a 32-bit mlx5 Q counter wraps, +32
#   counter 6 (QPs 300 and 301 of pid 5151; 300 talks to .30, peer QP 700):
#     cc_rx_ce_pkts 1000 -> 1500 (+500)
# flows.csv then holds, for the second interval, three flows of origin nic
# (pkts: the CE-marked packets and CNPs the NIC counted); qpctr.csv every
# counter by name; the recording replays them and the report counts them.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
name=qp_counters
rt_fixture_start $name hwhost
rt_fixture_run $name "$FIX/healthy" "$FIX/healthy-t1" "$tmp/csv/qpctr.csv" \
	-b -n 3 --interval 1 --csv "$tmp/csv" -w "$tmp/run.rtr"
IN="ip netns exec $FIX_NS"
fail=0
[ $rc = 0 ] || { echo "  rocetop exited with $rc: $(cat "$tmp/err")"; fail=1; }

# flows.csv: time,ifname,dir,src,dst,dqpn,pkts,bytes,not_ect,ect0,ect1,ce,cnp,ack,nak,
#   rnr_nak,nak_seq,nak_other,dscp,pcp,sport,lqpn,pid,comm,first_seen,last_seen,samples,origin,
#   mirror (empty: the NIC's flows are not mirror copies),job_kind,job,step,rank,size (empty:
#   a fixture's pids are not this host's),prios,dscps (the DSCP 0 the NIC's flows show)
head -1 "$tmp/csv/flows.csv" | grep -q ',last_seen,samples,origin,mirror,job_kind,job,step,rank,size,prios,dscps$' ||
	{ echo "  flows.csv header: $(head -1 "$tmp/csv/flows.csv")"; fail=1; }
flow() {	# flow EXPECTED-ROW-AFTER-TIME
	grep -qx "[0-9.]*,$1" "$tmp/csv/flows.csv" || { echo "  no flows.csv row ...,$1"; fail=1; }
}
flow 'eth2,ingress,192.168.1.20,192.168.1.10,282,60,0,0,0,0,60,0,0,0,0,0,0,0,,0,282,4242,,,,,nic,,,,,,,0,0'
flow 'eth2,ingress,192.168.1.30,192.168.1.10,300,500,0,0,0,0,500,0,0,0,0,0,0,0,,0,300,5151,,,,,nic,,,,,,,0,0'
flow 'eth2,egress,192.168.1.10,192.168.1.20,691,2,0,0,0,0,0,2,0,0,0,0,0,0,,0,282,4242,,,,,nic,,,,,,,0,0'
nflows=$(($(wc -l < "$tmp/csv/flows.csv") - 1))
[ "$nflows" = 3 ] || { echo "  flows.csv has $nflows rows, expected 3"; fail=1; }

# qpctr.csv: time,device,port,netdev,lqpn,nqps,rqpn,pid,comm,counter,value,delta
head -1 "$tmp/csv/qpctr.csv" | grep -qx 'time,device,port,netdev,lqpn,nqps,rqpn,pid,comm,counter,value,delta' ||
	{ echo "  qpctr.csv header: $(head -1 "$tmp/csv/qpctr.csv")"; fail=1; }
qp() {
	grep -qx "[0-9.]*,$1" "$tmp/csv/qpctr.csv" || { echo "  no qpctr.csv row ...,$1"; fail=1; }
}
qp 'mlx5_0,1,eth2,282,1,691,4242,,out_of_sequence,4294967280,0'
qp 'mlx5_0,1,eth2,282,1,691,4242,,out_of_sequence,16,32'
qp 'mlx5_0,1,eth2,282,1,691,4242,,cc_rx_ce_pkts,100,60'
qp 'mlx5_0,1,eth2,282,1,691,4242,,cc_tx_cnp_pkts,5,2'
qp 'mlx5_0,1,eth2,300,2,700,5151,,cc_rx_ce_pkts,1500,500'
# 5 rows at first, then the 4 that moved; nothing after
nq=$(($(wc -l < "$tmp/csv/qpctr.csv") - 1))
[ "$nq" = 9 ] || { echo "  qpctr.csv has $nq rows, expected 9"; fail=1; }
grep -q ',qp,\|,cc_rx_ce_pkts,' "$tmp/csv/ports.csv" && { echo "  per-QP counters in ports.csv"; fail=1; }

# batch: the NIC's flows say so
grep -Eq '^eth2 +nic-in +192\.168\.1\.30 +192\.168\.1\.10 +300 ' "$tmp/out" ||
	{ echo "  batch output lacks the nic-in flow of QP 300"; fail=1; }
grep -q '^note:' "$tmp/out" && { echo "  unexpected note: $(grep '^note:' "$tmp/out" | head -1)"; fail=1; }

# The recording replays the NIC flows (origin kept) and the report counts them.
"$ROCETOP" -r "$tmp/run.rtr" --csv "$tmp/csv2" -D > /dev/null 2> "$tmp/err2" ||
	{ echo "  replay failed: $(cat "$tmp/err2")"; fail=1; }
grep -qx '[0-9.]*,eth2,ingress,192.168.1.30,192.168.1.10,300,500,0,0,0,0,500,0,0,0,0,0,0,0,,0,300,5151,,,,,nic,,,,,,,0,0' \
	"$tmp/csv2/flows.csv" || { echo "  the replayed flows.csv lacks QP 300's NIC flow"; fail=1; }
"$ROCETOP" report "$tmp/run.rtr" --json > "$tmp/report.json" 2> "$tmp/err3" ||
	{ echo "  report failed: $(cat "$tmp/err3")"; fail=1; }
"${PYTHON:-python3}" - "$tmp/report.json" <<'EOF' || fail=1
import json, sys
sys.path.insert(0, "tests/lib")
from rtlib.outputs import walk
r = json.load(open(sys.argv[1]))
ce = sorted(d.get("ce") for d in walk(r) if isinstance(d.get("ce"), int) and d.get("dqpn") in (282, 300))
if 60 not in ce or 500 not in ce:
    print("  report: the NIC flows' CE (60 and 500) not found, got %s" % ce)
    sys.exit(1)
EOF
# --qp-counters degrades to a note: under --sysfs-root it changes nothing, and
# (on a host without RDMA, as the test machines are) there is no port to bind;
# no state file is left either way.
export ROCETOP_RUN_DIR="$tmp/run"
$IN "$ROCETOP" --sysfs-root "$FIX/healthy" -i lo --qp-counters=cc -b -n 1 > "$tmp/q1" 2>&1 ||
	{ echo "  --qp-counters under --sysfs-root failed: $(cat "$tmp/q1")"; fail=1; }
grep -q '^note: --qp-counters changes nothing under --sysfs-root' "$tmp/q1" ||
	{ echo "  no note for --qp-counters under --sysfs-root"; fail=1; }
if [ ! -e /sys/class/infiniband ]; then
	$IN "$ROCETOP" -i lo --qp-counters -b -n 1 > "$tmp/q2" 2>&1 ||
		{ echo "  --qp-counters without RDMA failed: $(cat "$tmp/q2")"; fail=1; }
	grep -q '^note: --qp-counters: no RDMA port to bind' "$tmp/q2" ||
		{ echo "  no note for --qp-counters without RDMA: $(grep note "$tmp/q2")"; fail=1; }
fi
[ -e "$tmp/run/qp-counters.state" ] && { echo "  a state file was left"; fail=1; }

if [ $fail = 0 ]; then echo "PASS $name"; else echo "FAIL $name: see above"; fi
exit $fail
