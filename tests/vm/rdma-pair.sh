#!/bin/bash
# The guest side of tests/vm/run: runs in both VMs of "vm.sh pair" (ROLE a: the
# client, requester and sender; ROLE b: the server), with rdma_rxe on eth0 and
# real RDMA traffic between them, phase by phase, while dumpcap and rocetop watch
# eth0 on each end. Everything lands under $SYNC/$ROLE for tests/vm/compare.py.
# usage: rdma-pair.sh BUILD_DIR (absolute: the rocetop build to test)
set -u
BUILD=$1
ROCETOP=$BUILD/rocetop
R=$SYNC/$ROLE
mkdir -p "$R"
exec 2>&1

BARRIER_SECS=180
# shellcheck source=tests/vm/guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

uname -r >"$R/kver"
echo "$MY_IP" >"$R/ip"
modprobe rdma_rxe || echo "modprobe rdma_rxe failed" >>"$R/errors"
rdma link add rxe0 type rxe netdev eth0 || echo "rdma link add failed" >>"$R/errors"
rdma link show >"$R/rdma-link"
# The GID of this host's IPv4 address (RoCE v2), for the tools that take an index.
GID=
for g in /sys/class/infiniband/rxe0/ports/1/gids/*; do
	i=${g##*/}
	case "$(cat "$g")" in 0000:0000:0000:0000:0000:ffff:*)
		[ "$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/"$i" 2>/dev/null)" = "RoCE v2" ] && { GID=$i; break; } ;;
	esac
done
echo "${GID:-none}" >"$R/gid"
HW=/sys/class/infiniband/rxe0/ports/1/hw_counters
hw_snap() { for f in "$HW"/*; do echo "${f##*/} $(cat "$f")"; done >"$R/hw.$1"; }

# ---- the watchers: dumpcap (the independent source), rocetop, the QP table ----
# dumpcap keeps the headers only (the dissection needs 74 bytes, frame.len
# keeps the length on the wire) in a 64 MiB buffer: with the default 2 MiB it
# lost frames under TCG, which made the capture, not rocetop, disagree.
dumpcap -q -s 256 -B 64 -i eth0 -w /tmp/cap.pcapng >/tmp/dumpcap.log 2>&1 &
DUMPCAP=$!
rocetop_start() { # rocetop_start NAME ARGS...: a live run of rocetop on eth0
	local name=$1
	shift
	mkdir -p "$R/$name"
	"$ROCETOP" -i eth0 --batch --top 0 --csv "$R/$name" -d 1 "$@" >"$R/$name/batch.out" 2>"$R/$name/stderr" &
	ROCETOP_PID=$!
	# Running once its XDP program is on eth0 (loading the BPF programs under
	# TCG takes seconds, a refusal by the verifier too; the CSV files are
	# written in blocks, so they tell nothing yet); bounded.
	local end=$((SECONDS + 180))
	while [ $SECONDS -lt $end ] && kill -0 $ROCETOP_PID 2>/dev/null && ! ip link show dev eth0 | grep -q xdp; do
		sleep 0.2
	done
	if kill -0 $ROCETOP_PID 2>/dev/null; then echo running >"$R/$name/status"; else
		wait $ROCETOP_PID
		echo "exited $?" >"$R/$name/status"
	fi
	sleep 2 # the TC program follows the XDP one
}
rocetop_stop() { # rocetop_stop NAME
	if kill -0 "$ROCETOP_PID" 2>/dev/null; then
		kill -INT "$ROCETOP_PID"
		wait "$ROCETOP_PID"
		echo "stopped $?" >>"$R/$1/status"
	elif grep -q running "$R/$1/status"; then
		wait "$ROCETOP_PID"
		echo "exited $? before the end" >>"$R/$1/status"
	fi
}
# Jobs: the write phase runs in a cgroup laid out as Slurm's cgroup/v2 plugin
# lays out a task (job 4711, step 0, task = the rank), with Slurm's variables;
# the send phase in one laid out as kubelet's systemd driver does (a burstable
# pod's containerd container), named by pod log directories as the kubelet
# writes them, with torchrun's variables. $R/jobs says what each phase must
# show (phase, job_kind, job, step, rank, size: tab-separated), the incident
# phase's processes too (incident.NAME, below); the other phases run in the
# root cgroup (compare.py: cgroup "/").
RANK_HERE=0
[ "$ROLE" = b ] && RANK_HERE=1
SLURM_CG=/sys/fs/cgroup/system.slice/slurmstepd.scope/job_4711/step_0/user/task_$RANK_HERE
POD_UID=6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5$RANK_HERE
CTR=$(printf '%064x' $((3054 + RANK_HERE)))
K8S_CG=/sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${POD_UID//-/_}.slice/cri-containerd-$CTR.scope
LOGS=/tmp/rtlogs
mkdir -p "$SLURM_CG" "$K8S_CG" "$LOGS/pods/train_trainer-$RANK_HERE"_"$POD_UID/worker" "$LOGS/containers" ||
	echo "job cgroups could not be made" >>"$R/errors"
ln -s "../pods/train_trainer-$RANK_HERE"_"$POD_UID/worker/0.log" \
	"$LOGS/containers/trainer-$RANK_HERE"_train_worker-"$CTR.log"
printf 'write\tslurm\t4711\t0\t%d\t2\n' $RANK_HERE >"$R/jobs"
printf 'send\tk8s\ttrain/trainer-%d\tworker\t%d\t4\n' $RANK_HERE $((RANK_HERE + 2)) >>"$R/jobs"
# job_exec PHASE CMD...: CMD in PHASE's job (its cgroup and variables), as this
# process (exec: the tool keeps the pid the caller took).
job_exec() {
	local name=$1
	shift
	case $name in
	write) exec sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$SLURM_CG" env SLURM_JOB_ID=4711 \
		SLURM_STEP_ID=0 SLURM_PROCID=$RANK_HERE SLURM_NTASKS=2 SLURM_LOCALID=0 "$@" ;;
	send) exec sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$K8S_CG" env RANK=$((RANK_HERE + 2)) \
		WORLD_SIZE=4 LOCAL_RANK=0 "$@" ;;
	*) exec "$@" ;;
	esac
}
# slurm_exec JOB STEP RANK NTASKS LOCALID CMD...: CMD in that Slurm task's
# cgroup with Slurm's variables, as this process (as job_exec).
slurm_exec() {
	local cg=/sys/fs/cgroup/system.slice/slurmstepd.scope/job_$1/step_$2/user/task_$3
	mkdir -p "$cg" || echo "cgroup $cg could not be made" >>"$R/errors"
	exec sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" env SLURM_JOB_ID="$1" SLURM_STEP_ID="$2" \
		SLURM_PROCID="$3" SLURM_NTASKS="$4" SLURM_LOCALID="$5" "${@:6}"
}
# The whole run is also recorded (-w): tests/vm/compare.py reads it back with
# rocetop report; with KEEP=1 it stays in the results (a/rocetop/run.rtr,
# b/rocetop/run.rtr), the incident phase's among the rest.
rocetop_start rocetop --pods-log-dir "$LOGS/pods" -w "$R/rocetop/run.rtr"
( while [ ! -e "$R/qp.stop" ]; do
	echo "@ $(cut -d' ' -f1 /proc/uptime)"
	rdma -j -d resource show qp
	echo
	sleep 0.3
done >"$R/qp.log" 2>&1 ) &
QPLOG=$!
hw_snap before
rdma statistic qp mode >"$R/qpmode.before" 2>&1
# dumpcap writes its first packets' file header at once; wait for it.
end=$((SECONDS + 30))
while [ ! -s /tmp/cap.pcapng ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
barrier ready

# phase NAME TOOL SERVER_ARGS -- CLIENT_ARGS: b runs TOOL SERVER_ARGS, a runs TOOL
# CLIENT_ARGS PEER_IP once b listens; each records "phase pid comm rc t0 t1
# try" (t0 and t1: the wall clock around the tool's run, which compare.py uses
# to tell phases apart where the kernel gives every QP the same number, as 5.10
# does). A tool still running after 60 s is left alone and recorded as rc
# "hung": killing it destroys its QP, and 5.10's rxe can crash doing that
# (rxe_qp_do_cleanup). Under TCG the tools fail now and then (a tail of lost
# frames that 5.10's rxe never retransmits, an rdma_cm event that times out):
# a phase that failed on either end runs once more, on a new port (a hung
# server still holds the old one), and compare.py reports the retry.
PORT=18515
phase() {
	local name=$1 tool=$2 sargs=() cargs=() try
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	cargs=("$@")
	for try in 1 2; do
		PORT=$((PORT + 1))
		phase_try "$name" "$try" "$tool" -p "$PORT" "${sargs[@]}" -- -p "$PORT" "${cargs[@]}"
		grep -qx 0 "$SYNC/a.$name.$try.rc" && grep -qx 0 "$SYNC/b.$name.$try.rc" && break
		log "phase $name: try $try failed ($(cat "$SYNC/a.$name.$try.rc") on a, $(cat "$SYNC/b.$name.$try.rc") on b)"
	done
}
phase_try() {
	local name=$1 try=$2 tool=$3 sargs=() cargs=() pid rc t0 t1 out
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	cargs=("$@")
	out=$R/$name.out
	[ "$try" = 1 ] || out=$R/$name.try$try.out
	log "phase $name (try $try)"
	netsnap "$name.$try.0"
	t0=$(date +%s.%N)
	if [ "$ROLE" = b ]; then
		(job_exec "$name" stdbuf -oL "$tool" "${sargs[@]}") >"$out" 2>&1 &
		pid=$!
		# Listening: on the phase's TCP port (perftest, ibv_rc_pingpong) or
		# an rdma_cm id on it (rping, perftest -R).
		local end=$((SECONDS + 60))
		while [ $SECONDS -lt $end ] && ! ss -Hltn "sport = :$PORT" | grep -q . &&
			! rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q ":$PORT "; do
			sleep 0.1
		done
		sleep 0.5
		barrier "$name.$try.srv"
	else
		barrier "$name.$try.srv"
		(job_exec "$name" stdbuf -oL "$tool" "${cargs[@]}") >"$out" 2>&1 &
		pid=$!
	fi
	# stdbuf execs the tool: its pid is $pid.
	local end=$((SECONDS + 60))
	# The QP table while the tool runs (the poller alone may miss a short QP).
	while kill -0 $pid 2>/dev/null && [ $SECONDS -lt $end ]; do
		rdma -j -d resource show qp >>"$R/qp.log" 2>/dev/null && echo >>"$R/qp.log"
		sleep 0.2
	done
	if kill -0 $pid 2>/dev/null; then
		rc=hung
		log "phase $name: $tool still runs after 60 s; left alone"
	else
		wait $pid
		rc=$?
	fi
	t1=$(date +%s.%N)
	echo "$name $pid $tool $rc $t0 $t1 $try" >>"$R/procs"
	# perftest measures the CPU's clock after the test for its report; under
	# TCG that fails ("Can't produce a report") with the traffic done: not a
	# failure of the traffic (compare.py says so).
	[ "$rc" = 1 ] && grep -q "Can't produce a report" "$out" && grep -q '#bytes' "$out" && rc=0
	echo "$rc" >"$SYNC/$ROLE.$name.$try.rc"
	netsnap "$name.$try.1"
	barrier "$name.$try.done"
	# Two quiet seconds: no interval of rocetop's (1 s) holds two phases.
	sleep 2
}

# Where packets go missing, when they do: the netdev's and the stack's drop
# counters and rxe's own, before and after each phase.
netsnap() {
	{ ip -s -s link show dev eth0; ethtool -S eth0; cat /proc/net/softnet_stat
	  nstat -az 2>/dev/null | grep -iE "udp|drop"; tc -s qdisc show dev eth0; ip neigh show dev eth0
	  grep -H . "$HW"/*; } >"$R/net.$1" 2>&1
}
G=(-x "$GID")
# perftest keeps 128 messages in flight by default; 16 keep the bursts small
# for a single TCG vCPU (the hangs first blamed on rxe's in-flight mark came
# from the link's stalled virtio queue: vm.sh).
G+=(-t 16)
# Three seconds each (-D 3), not a count: on a quiet host 1000 reads took
# less than one of rocetop's 1-s intervals, and a QP made and gone between
# two reads of the QP table is never seen, so its flow names no owner.
phase write ib_write_bw "${G[@]}" -D 3 -s 4096 -- "${G[@]}" -D 3 -s 4096 "$PEER_IP"
phase send ib_send_bw "${G[@]}" -D 3 -s 4096 -- "${G[@]}" -D 3 -s 4096 "$PEER_IP"
phase read ib_read_bw -x "$GID" -D 3 -s 4096 -- -x "$GID" -D 3 -s 4096 "$PEER_IP"
phase pingpong ibv_rc_pingpong -g "$GID" -n 200 -s 1024 -- -g "$GID" -n 200 -s 1024 "$PEER_IP"
phase rping rping -s -a "$MY_IP" -C 50 -S 64 -v -- -c -a "$PEER_IP" -C 50 -S 64 -v
# perftest at its own depth (128 in flight) for 4 s, as users run it: a run on
# 5.10 was reported where the egress count (a clsact filter) had more packets
# for the writer than the wire carried; every flow of it is judged as the others' (compare.py:
# a's egress equals a's capture, b's ingress b's; what the link lost between
# the two captures, both counted on a). A 5.10 run of this phase alone: a's
# egress 2528 packets and 2745488 bytes, as a's capture and rxe's sent_pkts;
# 141 lost on the link, b's capture and ingress 2387.
phase deep ib_write_bw -x "$GID" -D 4 -s 4096 -- -x "$GID" -D 4 -s 4096 "$PEER_IP"
# Loss: netem drops 5% of the RoCE packets a sends (a prio qdisc sends RoCE to
# its band 4, netem's; everything else to band 1), so netem's drop count is
# RoCE's alone.
[ "$ROLE" = a ] && tc qdisc add dev eth0 root handle 1: prio bands 4 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
	tc qdisc add dev eth0 parent 1:4 handle 40: netem loss 5% &&
	tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff match ip dport 4791 0xffff flowid 1:4
phase loss ib_write_bw "${G[@]}" -n 300 -s 4096 -- "${G[@]}" -n 300 -s 4096 "$PEER_IP"
[ "$ROLE" = a ] && { tc -s qdisc show dev eth0 >"$R/qdisc.loss"; tc qdisc del dev eth0 root; }
# CE: a's egress is a 20 Mbit/s bucket feeding fq_codel, which marks CE on
# ECN-capable packets that waited over 1 ms (ce_mark); its CoDel target is out of
# reach (1 s), so it marks nothing else. rdma_cm's ToS 106 is DSCP 26 + ECT(0),
# which rxe writes into the IP header.
[ "$ROLE" = a ] && tc qdisc add dev eth0 root handle 1: tbf rate 20mbit burst 16k latency 2s &&
	tc qdisc add dev eth0 parent 1:1 handle 10: fq_codel ce_threshold 1ms target 1s interval 2s
phase ce ib_write_bw -R -T 106 -t 16 -n 500 -s 4096 -- -R -T 106 -t 16 -n 500 -s 4096 "$PEER_IP"
[ "$ROLE" = a ] && { tc -s qdisc show dev eth0 >"$R/qdisc.ce"; tc qdisc del dev eth0 root; }
# RNR: the server posts one receive at a time; the client sends 32 deep (at
# 128 deep, under a loaded TCG host, rxe's RNR retries outlasted the 60 s).
phase rnr ib_send_bw -x "$GID" -n 200 -s 64 -r 1 -- -x "$GID" -n 200 -s 64 -t 32 "$PEER_IP"

# ---- The incident: two jobs in one congested queue ----
# The culprit, Slurm job 4712 (six ranks: 0-2 on a, 3-5 on b), writes 4 KiB
# messages 8 deep from three ranks on a to three on b; the victim, Slurm job
# 4711 step 1 (rank 0 on a, rank 1 on b), writes 512-byte ones 4 deep, and
# starts a second later for a shorter time, inside the culprit's load. Each
# culprit rank sends from its own address (a RoCE v2 GID of rxe0 made by
# adding the address to eth0; perftest's -x picks it), so that b sees three
# culprit sources and the victim's (rocetop's incast rule wants 3). a's egress
# is one 20 Mbit/s queue: tbf feeding fq_codel with a single flow queue (its
# default of 1024 would keep the victim apart from the culprit), which marks
# CE on ECN-capable packets that waited over 1 ms; every QP's traffic class is
# 106 (DSCP 26 + ECT(0)), so the victim is marked because of the culprit's
# packets ahead of it. A QP timeout of 0.5 s (-u 17) outlasts the queue's
# delay (perftest's default, 67 ms, does not under TCG).
INC_ADDRS=(10.77.0.11 10.77.0.12 10.77.0.13)
gid_of() { # gid_of IPV4: rxe0's RoCE v2 GID index of this address (bounded wait)
	# Read with read, in index order: rxe's table has 1024 entries, and a
	# cat of each (a fork under TCG) in the glob's order took a minute.
	local want end=$((SECONDS + 10)) i g t d=/sys/class/infiniband/rxe0/ports/1
	# shellcheck disable=SC2086
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${1//./ })
	while [ $SECONDS -lt $end ]; do
		for ((i = 0; i < 1024; i++)); do
			read -r g <"$d/gids/$i" 2>/dev/null || continue
			[ "$g" = "$want" ] || continue
			read -r t <"$d/gid_attrs/types/$i" 2>/dev/null
			[ "$t" = "RoCE v2" ] && { echo "$i"; return 0; }
		done
		sleep 0.2
	done
	echo "no RoCE v2 GID of $1 on rxe0" >>"$R/errors"
	echo "$GID"
}
INC=(c0 c1 c2 v)
INC_GID=("$GID" "$GID" "$GID" "$GID")
if [ "$ROLE" = a ]; then
	for k in 0 1 2; do
		ip addr add "${INC_ADDRS[$k]}/24" dev eth0 || echo "ip addr add ${INC_ADDRS[$k]} failed" >>"$R/errors"
	done
	for k in 0 1 2; do INC_GID[k]=$(gid_of "${INC_ADDRS[$k]}"); done
	INC_PEER=("$PEER_IP" "$PEER_IP" "$PEER_IP" "$PEER_IP")
	INC_SELF=("${INC_ADDRS[@]}" "$MY_IP")
else
	INC_PEER=("${INC_ADDRS[@]}" "$PEER_IP")
	INC_SELF=("$MY_IP" "$MY_IP" "$MY_IP" "$MY_IP")
fi
# member K: job step rank size localid, and the tool's arguments of its size and length
inc_job() {
	local k=$1
	if [ "$k" -lt 3 ]; then
		[ "$ROLE" = a ] && echo "4712 0 $k 6 $k" || echo "4712 0 $((k + 3)) 6 $k"
	else
		[ "$ROLE" = a ] && echo "4711 1 0 2 0" || echo "4711 1 1 2 0"
	fi
}
inc_args() { [ "$1" -lt 3 ] && echo "-s 4096 -t 8 -D 6" || echo "-s 512 -t 4 -D 4"; }
for k in 0 1 2 3; do
	read -r j st rk sz _ <<<"$(inc_job $k)"
	printf 'incident.%s\tslurm\t%s\t%s\t%s\t%s\n' "${INC[$k]}" "$j" "$st" "$rk" "$sz" >>"$R/jobs"
done
# incident_try TRY: the four members at once (servers on b, clients on a);
# each records "incident.NAME pid tool rc t0 t1 try peer self" in procs (t0,
# t1: the whole phase's), peer and self the two ends' RoCE addresses.
incident_try() {
	local try=$1 k pids=() rcs=() t0 t1 out end all=0 p
	log "phase incident (try $try)"
	netsnap "incident.$try.0"
	t0=$(date +%s.%N)
	[ "$ROLE" = a ] && barrier "incident.$try.srv"
	for k in 0 1 2 3; do
		out=$R/incident.${INC[$k]}.out
		[ "$try" = 1 ] || out=$R/incident.${INC[$k]}.try$try.out
		# shellcheck disable=SC2046
		if [ "$ROLE" = b ]; then
			(slurm_exec $(inc_job $k) stdbuf -oL ib_write_bw -x "${INC_GID[$k]}" --tclass=106 -u 17 \
				-p $((PORT + k)) $(inc_args $k)) >"$out" 2>&1 &
		else
			[ "$k" = 3 ] && sleep 1
			(slurm_exec $(inc_job $k) stdbuf -oL ib_write_bw -x "${INC_GID[$k]}" --tclass=106 -u 17 \
				-p $((PORT + k)) $(inc_args $k) "$PEER_IP") >"$out" 2>&1 &
		fi
		pids+=($!)
	done
	if [ "$ROLE" = b ]; then
		end=$((SECONDS + 60))
		for k in 0 1 2 3; do
			while [ $SECONDS -lt $end ] && ! ss -Hltn "sport = :$((PORT + k))" | grep -q .; do sleep 0.1; done
		done
		sleep 0.5
		barrier "incident.$try.srv"
	fi
	end=$((SECONDS + 60))
	while [ $SECONDS -lt $end ]; do
		all=0
		for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && all=1; done
		[ $all = 1 ] || break
		rdma -j -d resource show qp >>"$R/qp.log" 2>/dev/null && echo >>"$R/qp.log"
		sleep 0.2
	done
	t1=$(date +%s.%N)
	all=0
	for k in 0 1 2 3; do
		p=${pids[$k]}
		if kill -0 "$p" 2>/dev/null; then
			rcs[k]=hung
			log "incident: ${INC[$k]} still runs after 60 s; left alone"
		else
			wait "$p"
			rcs[k]=$?
		fi
		out=$R/incident.${INC[$k]}.out
		[ "$try" = 1 ] || out=$R/incident.${INC[$k]}.try$try.out
		[ "${rcs[$k]}" = 1 ] && grep -q "Can't produce a report" "$out" && grep -q '#bytes' "$out" && rcs[k]=0
		[ "${rcs[$k]}" = 0 ] || all=1
		echo "incident.${INC[$k]} $p ib_write_bw ${rcs[$k]} $t0 $t1 $try ${INC_PEER[$k]} ${INC_SELF[$k]}" >>"$R/procs"
	done
	echo "$all" >"$SYNC/$ROLE.incident.$try.rc"
	netsnap "incident.$try.1"
	barrier "incident.$try.done"
	sleep 2
}
[ "$ROLE" = a ] && tc qdisc add dev eth0 root handle 1: tbf rate 20mbit burst 16k latency 2s &&
	tc qdisc add dev eth0 parent 1:1 handle 10: fq_codel flows 1 ce_threshold 1ms target 1s interval 2s
for try in 1 2; do
	PORT=$((PORT + 10))
	incident_try "$try"
	grep -qx 0 "$SYNC/a.incident.$try.rc" && grep -qx 0 "$SYNC/b.incident.$try.rc" && break
	log "phase incident: try $try failed"
done
[ "$ROLE" = a ] && { tc -s qdisc show dev eth0 >"$R/qdisc.incident"; tc qdisc del dev eth0 root; }

# Two intervals with no traffic, then the NIC's counters and rocetop's end.
sleep 3
hw_snap after
rocetop_stop rocetop
touch "$R/qp.stop"
wait $QPLOG
# The capture covers what rocetop watched, no more.
kill -INT $DUMPCAP
wait $DUMPCAP
cp /tmp/cap.pcapng "$R/cap.pcapng"
barrier watched

# doctor names the device and its netdev.
"$ROCETOP" doctor -d 0 >"$R/doctor.out" 2>&1
echo $? >"$R/doctor.rc"
"$ROCETOP" doctor -d 0 --json >"$R/doctor.json" 2>"$R/doctor.json.err"
# The kernel's own lines on a crash of rocetop (a segfault's ip and offset
# in the binary), kept for the failure message: the console shows none.
dmesg | grep -E 'rocetop.*(segfault|trap|general protection)' >"$R/dmesg.rocetop"

# --qp-counters during one more exchange: per-QP counters, or a refusal; and the
# mode found is put back.
rocetop_start qpc --qp-counters
barrier qpc
phase qpc ib_send_bw "${G[@]}" -n 300 -s 1024 -- "${G[@]}" -n 300 -s 1024 "$PEER_IP"
sleep 2
rocetop_stop qpc
rdma statistic qp mode >"$R/qpmode.after" 2>&1
rdma statistic qp show >"$R/qpstat.after" 2>&1

tc -s qdisc show dev eth0 >"$R/qdisc.end"
barrier end
log "done"
