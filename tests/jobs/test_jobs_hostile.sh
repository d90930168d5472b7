#!/usr/bin/env bash
# The jobs reader on a proc/ tree that fights back (--sysfs-root, as
# tests/jobs/proc.sh lays one out): a FIFO as a pid's cgroup, stat or
# environ (opened without O_NONBLOCK they hung --job-of and the live run),
# a directory as its cgroup (read as empty: an empty row and exit 0), and a
# --sysfs-root of 300 characters (cut short at about 250 without a word) or
# of more than 2048 (refused). Each case has 10 s: 124 means it hung.
# Expected rows: what proc.sh placed (job 4711, step 0, rank 3 of 8).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/jobs/proc.sh
rt_setup jobs_hostile
pass() { echo "PASS jobs_hostile: $1"; }
fail() { echo "FAIL jobs_hostile: $1"; fails=$((fails + 1)); }
root=$T/root
rt_jobs_place "$root/proc" "$T/log"
want=$(printf '4242\tslurm\t4711\t0\t3\t8\t1\t/system.slice/slurmstepd.scope/job_4711/step_0/user/task_3')
job_of() { timeout 10 "$ROCETOP" --sysfs-root "$1" --pods-log-dir "$T/log/pods" --job-of "$2" >"$T/out" 2>"$T/err"; }
row() { sed -n 2p "$T/out"; }

job_of "$root" 4242; rc=$?
[ $rc = 0 ] && [ "$(row)" = "$want" ] && pass "pid 4242 as placed: $(row | tr '\t' ' ')" ||
	fail "pid 4242: exit $rc, row '$(row)', $(cat "$T/err")"

# a FIFO as the cgroup, and a directory: one sentence, exit 1, no row
for kind in fifo dir; do
	rt_job_proc "$root/proc" 6000 /x
	rm "$root/proc/6000/cgroup"
	[ $kind = fifo ] && mkfifo "$root/proc/6000/cgroup" || mkdir "$root/proc/6000/cgroup"
	job_of "$root" 6000; rc=$?
	[ $rc = 1 ] && [ -z "$(row)" ] && [ "$(grep -c . "$T/err")" = 1 ] &&
	grep -q "process 6000: its cgroup cannot be read: it is not a regular file" "$T/err" &&
		pass "a $kind as the cgroup: exit 1, $(cat "$T/err")" ||
		fail "a $kind as the cgroup: exit $rc (124: it hung), row '$(row)', stderr: $(cat "$T/err")"
	rm -rf "$root/proc/6000"
done

# a FIFO as stat: the process reads as gone (its start time unknown), no hang
rt_job_proc "$root/proc" 6001 /system.slice/slurmstepd.scope/job_1/step_0/user/task_0
rm "$root/proc/6001/stat" && mkfifo "$root/proc/6001/stat"
job_of "$root" 6001; rc=$?
[ $rc = 1 ] && grep -q "process 6001: no such process" "$T/err" &&
	pass "a FIFO as stat: exit 1, $(cat "$T/err")" ||
	fail "a FIFO as stat: exit $rc (124: it hung), stderr: $(cat "$T/err")"

# a FIFO as environ: the job from the cgroup, no rank (environ not read)
rt_job_proc "$root/proc" 6002 /system.slice/slurmstepd.scope/job_4712/step_1/user/task_2
rm "$root/proc/6002/environ" && mkfifo "$root/proc/6002/environ"
job_of "$root" 6002; rc=$?
w=$(printf '6002\tslurm\t4712\t1\t-1\t-1\t-1\t/system.slice/slurmstepd.scope/job_4712/step_1/user/task_2')
[ $rc = 0 ] && [ "$(row)" = "$w" ] && pass "a FIFO as environ: the job from its cgroup, no rank" ||
	fail "a FIFO as environ: exit $rc (124: it hung), row '$(row)', stderr: $(cat "$T/err")"

# a root of 300 characters is read whole
long=$T/$(printf 'd%.0s' $(seq 200))/$(printf 'e%.0s' $(seq $((298 - 200 - ${#T}))))
mkdir -p "$long" && cp -a "$root/proc" "$long/"
job_of "$long" 4242; rc=$?
[ $rc = 0 ] && [ "$(row)" = "$want" ] && pass "a --sysfs-root of ${#long} characters: pid 4242 as placed" ||
	fail "a --sysfs-root of ${#long} characters: exit $rc, row '$(row)', $(cat "$T/err")"
# one of 2049 is refused in one sentence
job_of "$(printf 'r%.0s' $(seq 2049))" 4242; rc=$?
[ $rc = 2 ] && [ "$(grep -c . "$T/err")" = 1 ] && grep -q "at most 2048 characters" "$T/err" &&
	pass "a --sysfs-root of 2049 characters: exit 2, one sentence" ||
	fail "a --sysfs-root of 2049 characters: exit $rc, $(cut -c1-200 "$T/err")"
[ $fails -eq 0 ]
