#!/usr/bin/env bash
# Run in one VM (tests/vm/vm.sh run VER -- bash tests/vm/kernel.sh BUILD) on
# one of Debian's kernels: rocetop's BPF programs and their attachment there,
# with the same tests as on the build machine: the scapy corpus through the
# programs this kernel loads, exact against the parser's tally
# (BUILD/tests/test_bpf: the split programs alone before 6.12, both kinds
# from 6.12, where the inlined ones must verify), what is attached and left
# after exit and kill -9 (tests/live/test_attach.sh: a TC filter where the
# kernel has no tcx), and live counting on a veth pair against scapy's tally
# and tshark (tests/live/test_live.sh). Each line it prints is prefixed with
# the kernel's version, so tests/vm/run can count them.
set -u
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
export BUILD ROCETOP="$BUILD/rocetop" PYTHON=/usr/bin/python3
v=$(uname -r)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
run() {
	"$@" >"$out" 2>&1
	local rc=$?
	sed "s/^\(PASS\|FAIL\|SKIP\) /\1 $v: /" "$out"
	[ "$rc" = 0 ] || grep -q '^FAIL ' "$out" || echo "FAIL $v: $* exited with $rc"
}
run "$BUILD/tests/test_bpf"
run bash tests/live/test_attach.sh
run bash tests/live/test_live.sh
