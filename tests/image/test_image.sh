#!/usr/bin/env bash
# The container image (dist/image/, make image) run as the DaemonSet runs it,
# never privileged: podman with --cap-drop=ALL and the matrix's set (README.md,
# "Containers and Kubernetes"), the shipped seccomp profile, a read-only root,
# in a network namespace of this test's own whose veth carries RoCEv2 frames
# scapy sends (tests/prom/send.py): the /metrics counters equal scapy's tally.
# Then: the image is reproducible and holds no shell; rocetop keeps only
# CAP_BPF and CAP_NET_ADMIN once attached; each capability of the set taken
# away is named in one sentence while sFlow and the exporter run on; the
# entrypoint refuses a container with no interface, passes SIGTERM on and
# exits 0. About 20 s.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
BUILD=${BUILD:-build}
rt_need_root image "needs root for podman, namespaces and BPF"
rt_need_cmd image podman buildah curl
rt_need_py image prometheus_client
rt_two_hosts image rti
rt_checks image "image: "
. tests/image/lib.sh
CTR=rocetop-test-$RT_ID
PORT=9465
inb() { ip netns exec "$B" "$@"; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# 1. Built twice from the same tree and date: the same image, no shell in it.
export SOURCE_DATE_EPOCH=1700000000
img_build image
first=$IMG
img_build image-again
id1=$(podman image inspect --format '{{.Id}}' "$first") id2=$(podman image inspect --format '{{.Id}}' "$IMG")
size=$(podman image inspect --format '{{.Size}}' "$IMG")
[ -n "$id1" ] && [ "$id1" = "$id2" ] && pass "two builds give one image (${id1:0:12}, $size bytes)" ||
	fail reproducible "two builds gave $id1 and $id2"
shells=$(tar -tf "$IMG_DIR/rootfs.tar" | grep -E '/(sh|bash|dash|busybox|ash)$' | tr '\n' ' ')
[ -z "$shells" ] && pass "no shell in the image" || fail "no shell" "the image holds $shells"

img_podman

# 3. The matrix's set: the exported counters equal scapy's tally.
t0=$(date +%s.%N)
pod "$CTR" BPF,PERFMON,NET_ADMIN -e ROCETOP_LISTEN="127.0.0.1:$PORT" -e ROCETOP_INTERFACES="-i $IFB" -e ROCETOP_OPTS="-d 0.2 --flow-timeout 0 --no-nic" ||
	{ fail run "podman run failed"; exit 1; }
if ! rt_wait_until - 100 inb curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics"; then
	fail run "no /metrics: $(podman "${G[@]}" logs "$CTR" 2>&1 | tail -3)"; exit 1
fi
pass "up and serving in $(since "$t0") s with BPF, PERFMON and NET_ADMIN"
if ip netns exec "$A" "$PY" tests/prom/send.py "$IFA" "$MAC_A" "$MAC_B" "$T/sent.pcap" >"$T/tally.json" 2>"$T/send.err"; then
	inb "$PY" tests/image/check_metrics.py "http://127.0.0.1:$PORT/metrics" "$T/tally.json" "$IFB" 20 || fails=$((fails + 1))
else fail traffic "scapy could not send: $(tail -1 "$T/send.err")"; fi
pid=$(podman "${G[@]}" inspect --format '{{.State.Pid}}' "$CTR")
rpid=$(pgrep -P "$pid" | head -1)
eff=$(grep -h '^CapEff' /proc/"$rpid"/task/*/status | awk '{print $2}' | sort -u | tr '\n' ' ')
[ "$eff" = "0000008000001000 " ] && pass "once attached rocetop keeps CAP_BPF and CAP_NET_ADMIN alone (CapEff $eff)" ||
	fail "caps kept" "CapEff of rocetop's threads: $eff, want 0000008000001000"
t0=$(date +%s.%N)
podman "${G[@]}" stop -t 10 "$CTR" >/dev/null
code=$(podman "${G[@]}" inspect --format '{{.State.ExitCode}}' "$CTR")
secs=$(since "$t0")
[ "$code" = 0 ] && pass "SIGTERM through the entrypoint: exit 0 (not 137: no SIGKILL) in $secs s" ||
	fail stop "podman stop: exit code $code after $secs s"
podman "${G[@]}" logs "$CTR" >"$T/logs" 2>&1
grep -q 'rocetop: serving Prometheus metrics on http://127.0.0.1:9465/metrics' "$T/logs" ||
	fail logs "the log: $(cat "$T/logs")"

# 4. One capability of the set taken away: named in one sentence; sFlow and
# the exporter keep running.
for cap in BPF PERFMON NET_ADMIN; do
	set=$(echo BPF,PERFMON,NET_ADMIN | tr ',' '\n' | grep -vx "$cap" | paste -sd,)
	name=$CTR-$cap
	pod "$name" "$set" -e ROCETOP_LISTEN="127.0.0.1:$PORT" -e ROCETOP_INTERFACES="-i $IFB" -e ROCETOP_OPTS="-d 0.2 --no-nic --sflow 127.0.0.1:6343"
	up=0
	rt_wait_until - 100 inb curl -sf -o "$T/m.$cap" "http://127.0.0.1:$PORT/metrics" && up=1
	podman "${G[@]}" logs "$name" >"$T/log.$cap" 2>&1
	want="rocetop: attaching the BPF programs needs CAP_$cap, which this process lacks: run rocetop as root, or grant it (podman run --cap-add, the capabilities in dist/kubernetes/rocetop-daemonset.yaml)."
	if [ $up = 1 ] && [ "$(head -1 "$T/log.$cap")" = "$want" ] &&
	   grep -qx 'rocetop: the interfaces are not watched: sFlow and the outputs run on without them.' "$T/log.$cap" &&
	   grep -q '^rocetop_build_info{version="0.1.0"} 1$' "$T/m.$cap"; then
		pass "without CAP_$cap: said in one sentence, sFlow and /metrics run on"
	else fail "without CAP_$cap" "served=$up, log: $(cat "$T/log.$cap")"; fi
	podman "${G[@]}" rm -f "$name" >/dev/null
done

# The engines' default seccomp profile: bpf() refused, said with the fix.
name=$CTR-seccomp
if [ -f /usr/share/containers/seccomp.json ]; then
	SECCOMP=/usr/share/containers/seccomp.json pod "$name" BPF,PERFMON,NET_ADMIN \
		-e ROCETOP_LISTEN="127.0.0.1:$PORT" -e ROCETOP_INTERFACES="-i $IFB" -e ROCETOP_OPTS="--no-nic"
	podman "${G[@]}" wait "$name" >"$T/seccomp.rc" 2>/dev/null
	podman "${G[@]}" logs "$name" >"$T/seccomp.log" 2>&1
	[ "$(cat "$T/seccomp.rc")" = 1 ] && [ "$(grep -c . "$T/seccomp.log")" = 1 ] &&
		grep -q "a seccomp filter guards this process .*: run the container with dist/kubernetes/rocetop-seccomp.json" "$T/seccomp.log" &&
		pass "the default seccomp profile: exit 1 and one sentence naming rocetop-seccomp.json" ||
		fail "default seccomp" "exit $(cat "$T/seccomp.rc"): $(cat "$T/seccomp.log")"
	podman "${G[@]}" rm -f "$name" >/dev/null
else fail "default seccomp" "no /usr/share/containers/seccomp.json (golang-github-containers-common)"; fi

# 5. sFlow and the exporter need no capability at all.
name=$CTR-none
pod "$name" "" -e ROCETOP_LISTEN="127.0.0.1:$PORT" -e ROCETOP_OPTS="-d 0.2 --sflow 127.0.0.1:6343"
if rt_wait_until - 100 inb curl -sf -o "$T/m.none" "http://127.0.0.1:$PORT/metrics" &&
   grep -q '^rocetop_build_info{version="0.1.0"} 1$' "$T/m.none" &&
   [ -z "$(podman "${G[@]}" logs "$name" 2>&1 | grep -v '^rocetop: serving Prometheus metrics')" ]; then
	pass "no capability at all: sFlow and /metrics run, nothing to say"
else fail "no capability" "$(podman "${G[@]}" logs "$name" 2>&1 | tail -3)"; fi
podman "${G[@]}" rm -f "$name" >/dev/null

# 6. No interface named: one sentence, exit 2.
out=$(podman "${G[@]}" run --rm "${R[@]}" --cap-drop=ALL "$IMG" 2>&1); rc=$?
[ $rc = 2 ] && [ "$out" = 'rocetop-entrypoint: no interface to watch: set ROCETOP_INTERFACES (e.g. ROCETOP_INTERFACES="-i eth0") or pass -i IFACE as the container'"'"'s arguments.' ] &&
	pass "no interface: exit 2 and one sentence" || fail "no interface" "exit $rc: $out"
[ $fails -eq 0 ]
