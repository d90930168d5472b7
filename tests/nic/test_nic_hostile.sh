#!/usr/bin/env bash
# A hostile --sysfs-root: a counter file replaced by a
# link to /dev/zero, another by a FIFO, an ethtool file linked to /dev/zero.
# The run must end on time with every other counter read: the values expected
# are the fixture's own (tests/fixtures/sysfs/make-fixtures.sh wrote them).
# Live on the loopback of a namespace of this test's own.
set -u
cd "$(dirname "$0")/../.."
name=nic_hostile_sysfs
. tests/lib.sh
if [ "$(id -u)" -ne 0 ]; then echo "FAIL $name: needs root to attach (CI runs as root)"; exit 1; fi
FIX=$PWD/tests/fixtures/sysfs/mlx5-host
NS=rto-hos-$RT_ID-$RANDOM
rt_tmpdir tmp
cp -a "$FIX/t0" "$tmp/root"
P=$tmp/root/sys/class/infiniband/mlx5_0/ports/1
rm "$P/hw_counters/np_cnp_sent" "$P/hw_counters/rp_cnp_handled" "$tmp/root/ethtool/eth3"
ln -s /dev/zero "$P/hw_counters/np_cnp_sent"
mkfifo "$P/hw_counters/rp_cnp_handled"
ln -s /dev/zero "$tmp/root/ethtool/eth3"
rt_netns "$NS" || { echo "FAIL $name: cannot create a namespace"; exit 1; }
start=$(date +%s)
timeout -k 5 30 ip netns exec "$NS" "$ROCETOP" --sysfs-root "$tmp/root" -i lo -b -n 2 -d 0.5 \
	--csv "$tmp/csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
took=$(($(date +%s) - start))
fail=0
[ $rc = 0 ] || { echo "  rocetop exited with $rc after $took s: $(head -c 300 "$tmp/err")"; fail=1; }
grep -q ',mlx5_0,1,eth2,port_xmit_data,4294967000,' "$tmp/csv/ports.csv" 2>/dev/null ||
	{ echo "  ports.csv lacks port_xmit_data 4294967000 of mlx5_0 port 1"; fail=1; }
grep -q ',mlx5_0,1,eth2,np_cnp_sent,' "$tmp/csv/ports.csv" 2>/dev/null &&
	{ echo "  np_cnp_sent (a link to /dev/zero) was read"; fail=1; }
[ $fail = 0 ] && echo "PASS $name: ended in $took s, the link and the FIFO skipped, the rest read" ||
	echo "FAIL $name"
exit 0
