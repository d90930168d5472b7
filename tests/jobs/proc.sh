# Sourced by the jobs tests that run on the hwhost fixture: a proc/ tree of
# the test's own for the pids of the fixture's QP table (4242, 5151), read
# by rocetop below --sysfs-root as it reads /proc (rocetop(8), JOBS).

# rt_job_proc DIR PID CGROUP-PATH ENV...: PID's cgroup, environ and stat
# files below DIR (its comm holds a space and a ')'; starttime, field 22, 777).
rt_job_proc() {
	local d=$1/$2 cg=$3
	shift 3
	mkdir -p "$d"
	printf '0::%s\n' "$cg" >"$d/cgroup"
	printf '%s\0' "$@" >"$d/environ"
	echo "$(basename "$d") (a b) c) S 1 1 1 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 777 1 1" >"$d/stat"
}

# rt_jobs_place PROC LOG: pid 4242 in Slurm's cgroup/v2 layout (job 4711,
# step 0, SLURM_PROCID 3 of 8, local 1), pid 5151 in kubelet's systemd
# layout (pod train/trainer-0, container worker, RANK 1 of 2), its names in
# LOG/pods and LOG/containers as kubelet keeps them (--pods-log-dir LOG/pods).
RT_POD_UID=0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9
RT_POD_CTR=$(printf '%064x' 51515151)
rt_jobs_place() {
	rt_job_proc "$1" 4242 /system.slice/slurmstepd.scope/job_4711/step_0/user/task_3 \
		SLURM_JOB_ID=4711 SLURM_STEP_ID=0 SLURM_PROCID=3 SLURM_NTASKS=8 SLURM_LOCALID=1
	rt_job_proc "$1" 5151 "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${RT_POD_UID//-/_}.slice/cri-containerd-$RT_POD_CTR.scope" \
		RANK=1 WORLD_SIZE=2 LOCAL_RANK=0
	mkdir -p "$2/pods/train_trainer-0_$RT_POD_UID/worker" "$2/containers"
	ln -s "../pods/train_trainer-0_$RT_POD_UID/worker/0.log" "$2/containers/trainer-0_train_worker-$RT_POD_CTR.log"
}
