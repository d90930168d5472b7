#!/usr/bin/env bash
# The job of a flow in every output, exact, on the hwhost fixture (live on lo
# with --sysfs-root, the NIC's per-QP flows of pids 4242 and 5151: the
# numbers of tests/nic/test_qp_counters.sh) with a proc/ of the test's own
# below the root: pid 4242 placed in Slurm's cgroup/v2 layout (job 4711,
# step 0, SLURM_PROCID 3 of 8), pid 5151 in kubelet's systemd layout (pod
# train/trainer-0, container worker, RANK 1 of 2). check_outputs.py checks
# flows.csv, --batch --json, the recording replayed with --group-by, the
# report's jobs table and the findings against what was placed here; a second
# host's run (both pids ranks 5 and 6 of job 4711 there) and the report over
# both files: job 4711's ranks joined, its slowest rank beside the median.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/jobs/proc.sh
name=jobs_outputs
rt_need_cmd $name tmux
rt_fixture_start $name hwhost
rt_jobs_place "$tmp/proc" "$tmp/log"
# A second host: both pids ranks of Slurm job 4711 there (5 and 6 of 8).
rt_job_proc "$tmp/proc2" 4242 /system.slice/slurmstepd.scope/job_4711/step_0/user/task_5 \
	SLURM_JOB_ID=4711 SLURM_STEP_ID=0 SLURM_PROCID=5 SLURM_NTASKS=8
rt_job_proc "$tmp/proc2" 5151 /system.slice/slurmstepd.scope/job_4711/step_0/user/task_6 \
	SLURM_JOB_ID=4711 SLURM_STEP_ID=0 SLURM_PROCID=6 SLURM_NTASKS=8
for t in healthy healthy-t1; do
	cp -a "$FIX/$t" "$tmp/$t"
	ln -s "$tmp/proc" "$tmp/$t/proc"
	cp -a "$FIX/$t" "$tmp/b-$t"
	ln -s "$tmp/proc2" "$tmp/b-$t/proc"
done
# Host a's NIC pauses priority 0 (its QPs' flows' priority) on eth2 from t0
# to t1: 50 pause frames received, 0.8 s paused: a pfc-storm (one interval
# suffices here) whose evidence names the two jobs whose flows it pauses.
echo '     rx_prio0_pause_duration: 0' >>"$tmp/healthy/ethtool/eth2"
sed -i 's/rx_prio0_pause: 0/rx_prio0_pause: 50/' "$tmp/healthy-t1/ethtool/eth2"
echo '     rx_prio0_pause_duration: 800000' >>"$tmp/healthy-t1/ethtool/eth2"
rt_fixture_run $name "$tmp/healthy" "$tmp/healthy-t1" "$tmp/csv/qpctr.csv" --hostname hosta \
	-b --json -n 3 --interval 1 --csv "$tmp/csv" -w "$tmp/run.rtr" --pods-log-dir "$tmp/log/pods" \
	--threshold pfc-intervals=1
[ "$rc" = 0 ] || { echo "FAIL $name: rocetop exited $rc: $(head -c 300 "$tmp/err")"; exit 1; }
cp "$tmp/out" "$tmp/out.a"
rm "$tmp/root"
RT_ID=${RT_ID}9	# the second run's namespace
rt_fixture_run $name "$tmp/b-healthy" "$tmp/b-healthy-t1" "$tmp/csv2/qpctr.csv" --hostname hostb \
	-b -n 3 --interval 1 --csv "$tmp/csv2" -w "$tmp/run2.rtr"
[ "$rc" = 0 ] || { echo "FAIL $name: the second host's rocetop exited $rc: $(head -c 300 "$tmp/err")"; exit 1; }
cp "$tmp/out.a" "$tmp/out"
"$ROCETOP" report --json "$tmp/run.rtr" "$tmp/run2.rtr" >"$tmp/report2.json" 2>>"$tmp/err2"
"$ROCETOP" -r "$tmp/run.rtr" --json --group-by job >"$tmp/group-job.json" 2>"$tmp/err2"
"$ROCETOP" -r "$tmp/run.rtr" --json --group-by pod >"$tmp/group-pod.json" 2>>"$tmp/err2"
"$ROCETOP" report --json "$tmp/run.rtr" >"$tmp/report.json" 2>>"$tmp/err2"
# The filter language's job terms on the recording (rocetop(8), FILTERS).
fi=0
for e in "job 4711" "job slurm:4711 and rank 3" "pod train/trainer-0" "pod trainer-0 or rank 3" \
	"rank 1" "not job 4711" "unit x.service" "slurm:4711.0"; do
	"$ROCETOP" -r "$tmp/run.rtr" --csv "$tmp/filter$fi" --filter "$e" 2>>"$tmp/err2" >/dev/null
	echo "$e" >"$tmp/filter$fi/expr"
	fi=$((fi + 1))
done
"$ROCETOP" report "$tmp/run.rtr" >"$tmp/report.txt" 2>>"$tmp/err2"
# The live view on the same trees, with the NIC's pause durations (in
# microseconds) added: eth2 priority 0, the NIC flows' (DSCP 0), paused
# 1.25 s (received; at t0 1 s) and 0.14 s (sent); priority 3, which no flow
# crosses, 2 s. First the JOB column of each NIC flow; then, over the totals
# (t: the flows' since the start, the NIC's counters as they stand), the
# jobs view (J): the jobs by congestion with the moment's packets, the ranks
# and the longest pause of their interface and priority, 1.25 s.
S=rtjo$RT_ID
for t in healthy healthy-t1; do
	cp -a "$FIX/$t" "$tmp/tui-$t"
	ln -s "$tmp/proc" "$tmp/tui-$t/proc"
done
printf '     rx_prio0_pause_duration: %s\n     tx_prio0_pause_duration: %s\n     rx_prio3_pause_duration: %s\n' \
	1000000 40000 0 >>"$tmp/tui-healthy/ethtool/eth2"
printf '     rx_prio0_pause_duration: %s\n     tx_prio0_pause_duration: %s\n     rx_prio3_pause_duration: %s\n' \
	1250000 140000 2000000 >>"$tmp/tui-healthy-t1/ethtool/eth2"
ln -sfn "$tmp/tui-healthy" "$tmp/root"
tmux new-session -d -s "$S" -x 220 -y 40 "NO_COLOR=1 ip netns exec $FIX_NS $ROCETOP --sysfs-root $tmp/root \
	-i lo -d 0.3 --pods-log-dir $tmp/log/pods; echo EXITED \$? >$tmp/tui.rc; sleep 5"
rt_on_exit "tmux kill-session -t $S"
for _ in $(seq 200); do
	tmux capture-pane -p -t "$S" >"$tmp/screen"
	[ "$(grep -c ' nic:lo\| nic:eth2' "$tmp/screen")" -ge 3 ] && grep -q ' JOB' "$tmp/screen" && break
	sleep 0.1
done
ln -sfn "$tmp/tui-healthy-t1" "$tmp/root"
tmux send-keys -t "$S" t
tmux send-keys -t "$S" J
# until t1's counts show (or 10 s: check_outputs.py says what did)
for _ in $(seq 100); do
	tmux capture-pane -p -t "$S" >"$tmp/screen-jobs"
	grep -q '^JOB .*PAUSED s' "$tmp/screen-jobs" && grep -q '^slurm:4711  *2  *62 ' "$tmp/screen-jobs" && break
	sleep 0.1
done
tmux send-keys -t "$S" q
for _ in $(seq 50); do [ -s "$tmp/tui.rc" ] && break; sleep 0.1; done
"$PY" tests/jobs/check_outputs.py "$tmp"	# not exec: the cleanup on exit runs
