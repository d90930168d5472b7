#!/usr/bin/env bash
# Who is hurt, and by whom, end to end: rocetop live on a veth named eth2 (the
# hwhost fixture's RDMA port's netdev, so its QP table's QPs own the flows on
# it: pids 4242 and 5151) with --sysfs-root on the fixture and a proc/ of the
# test's own placing pid 4242 in Slurm job 4711 (rank 3) and 5151 in job 4712
# (rank 0). send_blame.py sends RoCEv2 data and CNPs both ways, CE-marked on
# a known number, at two shared destinations: 192.168.1.10 (this host, a
# receiver: CE seen) and .31 (a sender's: CNPs come back). One interval (a
# long --interval, ended by SIGINT: everything in it). check_blame.py works
# out the culprit and victim shares, the job-throttled finding and the
# incast's evidence from what was sent and checks them in --group-by job
# JSON, the report's JSON over the recording, findings.csv and, through tmux,
# the live view's jobs and findings views over the recording.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/jobs/proc.sh
name=jobs_blame
rt_need_root $name "needs root for namespaces and BPF"
[ -x "$ROCETOP" ] || { echo "FAIL $name: $ROCETOP not built"; exit 1; }
FIX=$PWD/tests/fixtures/hwhost
rt_tmpdir tmp
A=rtjb${RT_ID}a B=rtjb${RT_ID}b
rt_netns "$A" "$B" && rt_veth "$A" eth2 "$B" peer0 && rt_no_ipv6 "$A" "$B" ||
	{ echo "FAIL $name: cannot build the namespaces"; exit 1; }
rt_job_proc "$tmp/proc" 4242 /system.slice/slurmstepd.scope/job_4711/step_0/user/task_3 \
	SLURM_JOB_ID=4711 SLURM_STEP_ID=0 SLURM_PROCID=3 SLURM_NTASKS=8
rt_job_proc "$tmp/proc" 5151 /system.slice/slurmstepd.scope/job_4712/step_0/user/task_0 \
	SLURM_JOB_ID=4712 SLURM_STEP_ID=0 SLURM_PROCID=0 SLURM_NTASKS=4
cp -a "$FIX/healthy" "$tmp/root"
ln -s "$tmp/proc" "$tmp/root/proc"
ip netns exec "$A" "$ROCETOP" --sysfs-root "$tmp/root" -i eth2 -b --json --group-by job --interval 600 \
	--csv "$tmp/csv" -w "$tmp/run.rtr" >"$tmp/out" 2>"$tmp/err" &
rt=$!
rt_on_exit "kill -9 $rt"
rt_wait_file "$tmp/csv/flows.csv" "$rt" || { echo "FAIL $name: rocetop did not start: $(head -c 300 "$tmp/err")"; exit 1; }
ip netns exec "$B" "$PY" tests/jobs/send_blame.py in peer0 "$tmp/in.tally" >/dev/null 2>"$tmp/send.err" &&
	ip netns exec "$A" "$PY" tests/jobs/send_blame.py out eth2 "$tmp/out.tally" >/dev/null 2>>"$tmp/send.err" ||
	{ echo "FAIL $name: scapy could not send: $(head -c 300 "$tmp/send.err")"; exit 1; }
sleep 0.5
kill -INT $rt
wait $rt; rc=$?
[ "$rc" = 0 ] || { echo "FAIL $name: rocetop exited $rc: $(head -c 300 "$tmp/err")"; exit 1; }
"$ROCETOP" report --json "$tmp/run.rtr" >"$tmp/report.json" 2>"$tmp/err2" ||
	{ echo "FAIL $name: rocetop report: $(head -c 300 "$tmp/err2")"; exit 1; }
"$PY" tests/jobs/check_blame.py "$tmp" || exit 1
# The live view over the recording: the jobs view (J) shows each job's
# CULPRIT and VICTIM as check_blame.py worked them out, and the findings view
# (F) the job-throttled finding, whose detail names the job.
command -v tmux >/dev/null || { echo "FAIL $name: no tmux"; exit 1; }
fail=0
rt_tmux $name "rtjbv$RT_ID" 160 40
tmux send-keys -t "$RT_TMUX" "$ROCETOP -r $tmp/run.rtr" Enter
rt_wait_for '\[END\]' && tmux send-keys -t "$RT_TMUX" J && rt_wait_for '^JOB +FLOWS .* CULPRIT +VICTIM'
got=$(rt_cap | awk '/^JOB +FLOWS/ { on = 1; next } on && $2 ~ /^[0-9]+$/ { print $1, $8, $9 }' | sort)
if [ "$got" = "$(cat "$tmp/want.view")" ]; then
	echo "PASS $name: the jobs view's CULPRIT and VICTIM: $(echo $got)"
else
	echo "FAIL $name: the jobs view shows '$(echo $got)', not '$(echo $(cat "$tmp/want.view"))'"
	fail=1
fi
tmux send-keys -t "$RT_TMUX" F
if rt_wait_for '^warning +job-throttled +[0-9:]+ +open +job=slurm:4712: job slurm:4712 rank 0 throttled: 2 flows'; then
	echo "PASS $name: the findings view lists job-throttled on job=slurm:4712"
else
	echo "FAIL $name: no job-throttled in the findings view"
	rt_cap | sed -n 8,14p | sed 's/^/    | /'
	fail=1
fi
exit $fail
