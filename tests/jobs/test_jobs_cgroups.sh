#!/usr/bin/env bash
# The job of a process, checked exactly against what the test placed: real
# cgroup v2 hierarchies (this host's, wherever cgroup2 is mounted) laid out as
# Slurm's cgroup/v2 plugin, kubelet's systemd driver and a systemd service lay
# them out, a Slurm cgroup/v1 layout under a v1 freezer if one is mounted, and
# odd names; processes started in each with rank variables in their
# environment; rocetop --job-of read as root and as nobody (environ then
# unreadable). See place_jobs.py.
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_need_root jobs_cgroups
rt_need_cmd jobs_cgroups setpriv
V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
V1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)freezer(,|$)/ { print $2; exit }' /proc/mounts)
[ -n "$V2" ] || { echo "FAIL jobs_cgroups: no cgroup2 mount"; exit 1; }
rt_tmpdir T
chmod 755 "$T"	# nobody reads the pod logs too
"$PY" tests/jobs/place_jobs.py "$ROCETOP" "$V2" "${V1:-}" "$T" "$RT_ID"	# not exec: the cleanup on exit runs
