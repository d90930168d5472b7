#!/usr/bin/env bash
# Capabilities (user/core/caps.h; README.md, "Containers and Kubernetes"):
# root with one capability of the attach set taken away (setpriv's bounding
# set) is told which one, in one sentence, with a non-zero exit; once
# attached, every thread of rocetop holds only what the rest of the run
# needs, as the kernel reports it in /proc/PID/task/*/status.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_need_root caps
rt_need_cmd caps setpriv
rt_checks caps "caps: "
N=rtc${RT_ID}n
rt_netns "$N" || { fail namespace "cannot create a namespace"; exit 1; }

# expect NAME PATTERN CMD...: exit 1 and one stderr line matching PATTERN
expect() {
	local name=$1 pat=$2 err rc
	shift 2
	err=$("$@" 2>&1 >/dev/null); rc=$?
	if [ "$rc" = 1 ] && grep -qE -e "$pat" <<<"$err" && [ "$(grep -c . <<<"$err")" = 1 ]; then
		pass "$name: $err"
	else fail "$name" "exit $rc (want 1), said: $err"; fi
}
run() { ip netns exec "$N" setpriv "$@" "$ROCETOP" -i lo -b -n 1 --no-nic; }
expect "root without CAP_PERFMON" '^rocetop: attaching the BPF programs needs CAP_PERFMON, which this process lacks' \
	run --bounding-set=-perfmon,-sys_admin
expect "root without CAP_BPF" '^rocetop: attaching the BPF programs needs CAP_BPF, which this process lacks' \
	run --bounding-set=-bpf,-sys_admin
expect "root without CAP_NET_ADMIN" '^rocetop: attaching the BPF programs needs CAP_NET_ADMIN, which this process lacks' \
	run --bounding-set=-net_admin,-sys_admin

# Attached: CAP_BPF (39), CAP_NET_ADMIN (12), CAP_NET_BIND_SERVICE (10),
# CAP_DAC_READ_SEARCH (2), CAP_DAC_OVERRIDE (1) in every thread; with the
# NIC's part (jobs), CAP_SYS_PTRACE (19) too.
check_kept() {	# NAME WANT ARGS...
	local name=$1 want=$2 pid got
	shift 2
	ip netns exec "$N" "$ROCETOP" -i lo -D --listen 127.0.0.1:9465 "$@" 2>"$T/err" &
	pid=$!
	rt_kill_on_exit $pid
	# ip netns exec runs rocetop as its child; wait for the exporter's threads
	rt_wait_until $pid 100 eval '[ "$(ls /proc/$(pgrep -P $pid || echo $pid)/task 2>/dev/null | wc -l)" -ge 3 ]'
	got=$(grep -h '^CapEff' /proc/"$(pgrep -P $pid || echo $pid)"/task/*/status | awk '{print $2}' | sort -u | tr '\n' ' ')
	if [ "$got" = "$want " ]; then pass "$name: every thread's CapEff is $want"
	else fail "$name" "CapEff of the threads: '$got', want '$want'; stderr: $(cat "$T/err")"; fi
	kill -INT $pid
	wait $pid 2>/dev/null
}
check_kept "kept once attached (--no-nic)" 0000008000001406 --no-nic
check_kept "kept once attached (with the NIC's jobs)" 0000008000081406
[ $fails -eq 0 ]
