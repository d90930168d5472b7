#!/usr/bin/env bash
# The XDP program's cost against itself and against its split form, each in
# one process (bench/xdp_ab.c): first an A/A run (this build's rt_xdp twice:
# how small a difference this machine resolves right now), then rt_xdp
# against rt_xdp_split (bpf/rocetop.bpf.c), the form that kernels refusing
# the inlined program load. Usage: bench/xdp_ab.sh [BUILD]
set -u
BUILD=${1:-build}
"$BUILD/bench/xdp_ab" || exit 1
echo
"$BUILD/bench/xdp_ab" -p rt_xdp_split
