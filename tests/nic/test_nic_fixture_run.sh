#!/usr/bin/env bash
# rocetop end to end with --sysfs-root on the mlx5-host fixture, live on lo:
# the batch text shows the NIC counters, ports.csv holds every counter with
# its source, and when the tree moves from t0 to t1 between two intervals the
# deltas are the hand-computed ones (see make-fixtures.sh):
#   np_cnp_sent 1000 -> 1250 (250), port_xmit_data 4294967000 -> 200 (32-bit
#   wrap: 296 + 200 = 496), ethtool rx_prio3_pause 100 -> 160 (60).
set -u
cd "$(dirname "$0")/../.."
name=nic_fixture_run
. tests/lib.sh
rt_fixture_start $name
rt_fixture_run $name "$FIX/t0" "$FIX/t1" "$tmp/csv/ports.csv" -b -n 3 --interval 1 --csv "$tmp/csv"
fail=0
[ $rc = 0 ] || { echo "  rocetop exited with $rc: $(cat "$tmp/err")"; fail=1; }

# 152 counters at t0 (4 ports x (21 hw_counters + 13 counters) + 16 ethtool), 151 at t1.
rows=$(($(wc -l < "$tmp/csv/ports.csv") - 1))
[ "$rows" = $((152 + 151 + 151)) ] || { echo "  ports.csv has $rows rows, expected 454"; fail=1; }
head -1 "$tmp/csv/ports.csv" | grep -qx 'time,device,port,netdev,counter,value,delta,scope' ||
	{ echo "  ports.csv header: $(head -1 "$tmp/csv/ports.csv")"; fail=1; }
want() {	# want LINE-SUFFIX: a row ending so, after the time column
	grep -q "^[0-9.]*,$1\$" "$tmp/csv/ports.csv" || { echo "  no ports.csv row ...,$1"; fail=1; }
}
want 'mlx5_0,1,eth2,np_cnp_sent,1000,0,hw_counters'
want 'mlx5_0,1,eth2,np_cnp_sent,1250,250,hw_counters'
want 'mlx5_0,1,eth2,port_xmit_data,4294967000,0,counters'
want 'mlx5_0,1,eth2,port_xmit_data,200,496,counters'
want 'mlx5_0,1,eth2,rx_prio3_pause,160,60,ethtool'
want 'mlx5_1,2,eth5,np_cnp_sent,0,0,hw_counters'
grep -q ',rx_packets,' "$tmp/csv/ports.csv" && { echo "  rx_packets should be filtered"; fail=1; }
grep -Eq '^  mlx5_0 +1 +eth2 +np_cnp_sent +1250 +[0-9.]+  hw_counters$' "$tmp/out" ||
	{ echo "  batch output lacks np_cnp_sent 1250 of mlx5_0 port 1"; fail=1; }
grep -q '^note:' "$tmp/out" && { echo "  unexpected note: $(grep '^note:' "$tmp/out" | head -1)"; fail=1; }
if [ $fail = 0 ]; then echo "PASS $name"; else echo "FAIL $name: see above"; fi
exit $fail
