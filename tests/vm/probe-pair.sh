#!/bin/bash
# The guest side of the probe mesh's VM test (tests/vm/run): runs in both VMs
# of "vm.sh pair" with rdma_rxe on eth0. b answers on two addresses (its own
# and a second one, 10.77.0.22); a probes both, phase by phase, while the
# kernel makes the faults: netem loss and delay, an nftables rule on frame
# length, the answerer's CPU throttled by its cgroup (cpu.max) or stopped
# (SIGSTOP). dumpcap on a's eth0 is the independent record of every frame.
# Everything lands under $SYNC/$ROLE for tests/vm/probe_check.py.
# usage: probe-pair.sh BUILD_DIR
set -u
BUILD=$1
ROCETOP=$BUILD/rocetop
R=$SYNC/$ROLE
mkdir -p "$R"
exec 2>&1
# shellcheck source=tests/vm/guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
B2=10.77.0.22
modprobe rdma_rxe || echo "modprobe rdma_rxe failed" >>"$R/errors"
modprobe rdma_ucm || echo "modprobe rdma_ucm failed" >>"$R/errors"
rdma link add rxe0 type rxe netdev eth0 || echo "rdma link add failed" >>"$R/errors"
[ "$ROLE" = b ] && ip addr add $B2/24 dev eth0
uname -r >"$R/kver"
ibv_devinfo -v -d rxe0 >"$R/devinfo.txt" 2>&1
cat /sys/class/net/eth0/address >"$R/mac"
barrier up

if [ "$ROLE" = b ]; then
	# The answerer, in a cgroup of its own so that a phase can throttle it.
	mkdir -p /sys/fs/cgroup/answerer
	echo "+cpu" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	( echo $BASHPID >/sys/fs/cgroup/answerer/cgroup.procs && exec "$ROCETOP" probe --json -d 1 --answer-rate 200 ) >"$R/answerer.json" 2>"$R/answerer.err" &
	echo $! >"$R/answerer.pid"
	# answering once it says its QP (its device set up; seconds under TCG)
	end=$((SECONDS + 120))
	while [ $SECONDS -lt $end ] && ! grep -q 'answering on UD QP' "$R/answerer.err"; do sleep 0.2; done
	grep -q 'answering on UD QP' "$R/answerer.err" || echo "the answerer never said its QP" >>"$R/errors"
	barrier answering
	barrier size
	nft -f - <<NFT
table netdev probe_test {
	chain in {
		type filter hook ingress device eth0 priority 0; policy accept;
		ip daddr $B2 udp dport 4791 meta length > 1024 counter drop
	}
}
NFT
	barrier size_on
	barrier size_done
	nft list table netdev probe_test >"$R/nft.txt"
	nft delete table netdev probe_test
	# rxe's own count of the RoCE frames it took in (after its header and
	# ICRC checks) at either end: a frame of the flood lost before the QP
	# (a's qdisc, either NIC's ring) never reaches the answerer to be counted
	barrier bad_start
	sleep 2
	wc -l <"$R/answerer.json" >"$R/bad_start"
	cat /sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts >"$R/bad_rx_start"
	ethtool -S eth0 >"$R/bad_nic_start.txt" 2>&1
	barrier bad_ready
	barrier bad_end
	sleep 4
	wc -l <"$R/answerer.json" >"$R/bad_end"
	cat /sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts >"$R/bad_rx_end"
	ethtool -S eth0 >"$R/bad_nic_end.txt" 2>&1
	barrier throttle
	( echo $BASHPID >/sys/fs/cgroup/answerer/cgroup.procs && exec sh -c 'while :; do :; done' ) &
	HOG=$!
	echo "20000 100000" >/sys/fs/cgroup/answerer/cpu.max
	barrier unthrottle
	kill $HOG
	echo "max 100000" >/sys/fs/cgroup/answerer/cpu.max
	# a says when: 5 s into its phase, once the peers are resolved
	while [ ! -e "$SYNC/a.stop" ]; do sleep 0.1; done
	kill -STOP "$(cat "$R/answerer.pid")"
	barrier resume
	kill -CONT "$(cat "$R/answerer.pid")"
	# restart: the answerer killed and started again (its UD QP is another)
	while [ ! -e "$SYNC/a.restart" ]; do sleep 0.1; done
	kill -KILL "$(cat "$R/answerer.pid")"
	sleep 1
	"$ROCETOP" probe --json -d 1 >"$R/answerer2.json" 2>"$R/answerer2.err" &
	echo $! >"$R/answerer.pid"
	barrier restarted
	# live: an RC connection by rdma_cm from a (its QP names b to a's QP
	# table), a slow one, while a's live view probes
	barrier live
	timeout 150 chrt --idle 0 ib_send_bw -R -D 3 -s 64 --rate_limit=20 --rate_units=p --rate_limit_type=SW \
		>"$R/live_bw.txt" 2>&1 &
	barrier live_server
	barrier done
	kill -INT "$(cat "$R/answerer.pid")" 2>/dev/null
	sleep 3
	exit 0
fi

barrier answering
# The answerer's QP (b says it on stderr once its port answers).
sed -n 's/.*answering on UD QP \([0-9]*\).*/\1/p' "$SYNC/b/answerer.err" | head -n 1 >"$R/answerer_qpn"
# probe_phase NAME SECONDS ARGS...: a probes b's two addresses for SECONDS
# intervals of 1 s, 50 probes a second each. The thresholds fit this bed:
# under TCG a round trip takes 2-6 ms and a VM can be held for tens of ms.
probe_phase() {
	local name=$1 secs=$2
	shift 2
	log "phase $name"
	mkdir -p "$R/$name"
	timeout -s INT $((secs + 40)) "$ROCETOP" probe --no-answer --json --csv "$R/$name" -d 1 -n "$secs" \
		--probe-timeout 3 --probe-net-us 6500 --probe-resp-us 15000 --probe-window 5 --probe-rate 50 "$@" \
		"$PEER_IP" $B2 >"$R/$name/out.json" 2>"$R/$name/stderr"
	echo $? >"$R/$name/rc"
}
# Only the probes to b's second address go through the fault: a prio qdisc
# whose band 1:1 takes, by a u32 filter, IPv4 to 10.77.0.22, UDP port 4791
# and the probes' Q_Key in the DETH (offset 40: IP 20, UDP 8, BTH 12), so
# rdma_cm's MADs (Q_Key 0x80010000) and the answers never do.
fault_on() {
	tc qdisc add dev eth0 root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
	tc qdisc add dev eth0 parent 1:1 handle 10: netem "$@"
	tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst $B2/32 match ip dport 4791 0xffff \
		match u32 0x00524f43 0xffffffff at 40 flowid 1:1
}
fault_off() { # fault_off NAME: netem's own counters kept, then the qdisc goes
	tc -s qdisc show dev eth0 >"$R/$1/tc.txt"
	tc qdisc del dev eth0 root
}
# capture_on / capture_off NAME: dumpcap records a phase on a's eth0 (the
# snap length keeps the probe's header, its send time among it). It is
# capturing once its file has its first block (under TCG that takes seconds).
capture_on() {
	rm -f /tmp/probe.pcapng
	dumpcap -q -s 128 -B 64 -i eth0 -f 'udp port 4791' -w /tmp/probe.pcapng >/tmp/dumpcap.log 2>&1 &
	DUMPCAP=$!
	local end=$((SECONDS + 120))
	while [ $SECONDS -lt $end ] && [ ! -s /tmp/probe.pcapng ]; do sleep 0.2; done
	sleep 2
}
capture_off() {
	sleep 1
	kill -INT $DUMPCAP
	wait $DUMPCAP
	cp /tmp/probe.pcapng /tmp/dumpcap.log "$R/$1/"
}
# The clean phase: every probe a counts as sent, and every answer, must be
# in the capture.
capture_on
probe_phase clean 10
capture_off clean
fault_on loss 2%
probe_phase loss 25
fault_off loss
fault_on delay 5ms
capture_on
probe_phase delay 20
capture_off delay
fault_off delay
# Large frames only: b's ingress drops the probes to 10.77.0.22 over 1,024
# bytes (nftables). On a's output instead, Soft-RoCE would send the refused
# frame again and again.
barrier size
barrier size_on
probe_phase size 12
barrier size_done
# Hostile input (tests/vm/probe_bad.py): malformed probes, another Q_Key, and a
# flood of 500 (the answerer's receive queue holds 512) against its bound of
# 200 answers a second; b notes its answerer's JSON lines at either end.
mkdir -p "$R/bad"
capture_on
barrier bad_start
barrier bad_ready
"${PYTHON:-/usr/bin/python3}" "$(dirname "$0")/probe_bad.py" eth0 "$MY_IP" $B2 \
	"$(cat "$SYNC/b/mac")" "$(cat "$R/answerer_qpn")" 0x524f43 500 \
	>"$R/bad/tally.json" 2>"$R/bad/stderr"
tc -s qdisc show dev eth0 >"$R/bad/tc.txt" 2>&1
ethtool -S eth0 >"$R/bad/nic.txt" 2>&1
barrier bad_end
capture_off bad
# b's answerer shares a cgroup held to 20 ms of CPU in 100 ms with a job that
# burns it (the throttled host: most probes come while the cgroup is held,
# so the responder's p50 is the throttle's; at 50 ms, half did, and the p50
# sat at the edge); then it is stopped (SIGSTOP) mid-phase.
barrier throttle
probe_phase throttle 15 --probe-net-us 20000 --probe-timeout 10 --probe-rate 20
barrier unthrottle
mkdir -p "$R/stop"
( sleep 5; touch "$SYNC/a.stop" ) &
probe_phase stop 15
barrier resume
# b's answerer is killed 4 s into the phase and starts again on another QP:
# a finds it again (a peer none of whose paths answered is looked up anew).
mkdir -p "$R/restart"
( sleep 4; touch "$SYNC/a.restart" ) &
probe_phase restart 20
barrier restarted
# The live view with --probe (rocetop -i eth0): b's first address comes from
# a's QP table (an RC connection by rdma_cm, a slow ib_send_bw of 3 s once the
# view runs, at idle priority on both ends: its rate limiter spins, and took
# the one vCPU from the mesh, whose answers then came past the timeout), the
# second from --probe-peers. The probes to the second lose 2% to netem for
# 10 s from the view's first line, so that every probe lost has timed out by
# the end; the first rests --flow-timeout (4 s) after its QP went.
barrier live
mkdir -p "$R/live"
barrier live_server
# the fault's qdisc in place before the view (netem losing nothing yet): a
# root qdisc added or deleted under traffic drops what it held, uncounted
fault_on loss 0%
echo "$B2 second # a name for b's second address" >"$R/live/peers"
timeout -s INT 150 "$ROCETOP" -i eth0 --probe --probe-peers "$R/live/peers" --probe-rate 50 --probe-timeout 3 --flow-timeout 4 \
	-b --json --csv "$R/live" -w "$R/live/rec.rtr" --listen 127.0.0.1:9977 -d 1 -n 40 >"$R/live/out.json" \
	2>"$R/live/stderr" &
LIVE=$!
end=$((SECONDS + 90))
while [ $SECONDS -lt $end ] && [ ! -s "$R/live/out.json" ]; do sleep 0.2; done
timeout 60 chrt --idle 0 ib_send_bw -R -D 3 -s 64 --rate_limit=20 --rate_units=p --rate_limit_type=SW "$PEER_IP" \
	>"$R/live/bw.txt" 2>&1 &
BW=$!
# the exporter, scraped until the QP table's peer is in it (it is probed for
# a few seconds only: from its connection until it rests)
(
	end=$((SECONDS + 40))
	while [ $SECONDS -lt $end ]; do
		curl -s -m 5 http://127.0.0.1:9977/metrics >"$R/live/metrics.txt"
		grep -q "^rocetop_probe_sent_total{.*peer=\"$PEER_IP\"" "$R/live/metrics.txt" && break
		sleep 0.5
	done
) &
SCRAPE=$!
tc qdisc change dev eth0 parent 1:1 handle 10: netem loss 2%
sleep 10
tc qdisc change dev eth0 parent 1:1 handle 10: netem loss 0%
wait $SCRAPE
wait $LIVE
echo $? >"$R/live/rc"
fault_off live
wait $BW
barrier done
