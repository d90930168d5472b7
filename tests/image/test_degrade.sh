#!/usr/bin/env bash
# Degrading, not failing, in the image as the DaemonSet runs it: no BTF (the
# kernel's /sys/kernel/btf masked), no RDMA device (/sys/class/infiniband
# masked), an interface whose driver has no native XDP (lo), a read-only
# /sys and root: each thing that is off is said in one line, with why, and
# the rest runs: the counters of the other interface equal scapy's tally.
# About 20 s.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
BUILD=${BUILD:-build}
rt_need_root degrade "needs root for podman, namespaces and BPF"
rt_need_cmd degrade podman buildah curl
rt_need_py degrade prometheus_client
rt_two_hosts degrade rtd
rt_checks degrade "degrade: "
. tests/image/lib.sh
CTR=rocetop-degrade-$RT_ID
PORT=9465
inb() { ip netns exec "$B" "$@"; }
img_build degrade
img_podman

pod "$CTR" BPF,PERFMON,NET_ADMIN --security-opt mask=/sys/kernel/btf:/sys/class/infiniband \
	-e ROCETOP_LISTEN="127.0.0.1:$PORT" -e ROCETOP_INTERFACES="-i $IFB -i lo" \
	-e ROCETOP_OPTS="-b -d 0.2 --flow-timeout 0" || { fail run "podman run failed"; exit 1; }
rt_wait_until - 150 inb curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics" ||
	{ fail run "no /metrics: $(podman "${G[@]}" logs "$CTR" 2>&1 | tail -3)"; exit 1; }
if ip netns exec "$A" "$PY" tests/prom/send.py "$IFA" "$MAC_A" "$MAC_B" "$T/sent.pcap" >"$T/tally.json" 2>"$T/send.err"; then
	inb "$PY" tests/image/check_metrics.py "http://127.0.0.1:$PORT/metrics" "$T/tally.json" "$IFB" 20 |
		sed 's/^PASS image: /PASS degrade: no BTF, no RDMA device, lo without native XDP, read-only \/sys: /; s/^FAIL image:/FAIL degrade:/'
	[ "${PIPESTATUS[0]}" = 0 ] || fails=$((fails + 1))
else fail traffic "scapy could not send: $(tail -1 "$T/send.err")"; fi
podman "${G[@]}" stop -t 10 "$CTR" >/dev/null
podman "${G[@]}" logs "$CTR" >"$T/out" 2>"$T/err"
# stderr: the one line for lo, the exporter's address; nothing on BTF.
want="rocetop: lo: native XDP not available (Operation not supported), falling back to generic XDP.
rocetop: serving Prometheus metrics on http://127.0.0.1:$PORT/metrics"
[ "$(cat "$T/err")" = "$want" ] && pass "stderr: one line for lo's XDP, none for BTF (not needed)" ||
	fail stderr "$(cat "$T/err")"
# The NIC's part: the same one-line note in every interval's header.
notes=$(grep -c '^note: no RDMA device: /sys/class/infiniband: No such file or directory; verbs: .*; NIC counters from ethtool only$' "$T/out")
intervals=$(grep -c '^rocetop [0-9:]*  source ' "$T/out")
[ "$notes" -ge 1 ] && [ "$intervals" = "$notes" ] &&
	pass "no RDMA device: one note line in each of the $intervals intervals" ||
	fail "no RDMA device" "$notes notes in $intervals intervals: $(grep -m1 '^note' "$T/out")"
[ $fails -eq 0 ]
