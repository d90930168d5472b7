#!/usr/bin/env bash
# rocetop probe's command line: every mistake gets one sentence naming it and
# exit 2 (a size out of range, a Q_Key with the privileged bit, a peer that
# is no address, a peers file with a bad line or that cannot be read,
# nothing to do); on a host without rdma_cm (this one: no RDMA stack) one
# sentence and exit 1. The mesh itself runs in the VM test
# (tests/vm/probe-pair.sh, real rdma_rxe).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_setup probe_cli
T=$(mktemp -d)
rt_on_exit "rm -rf $T"
printf '10.0.0.1 a\n10.0.0.2 b extra\n' >"$T/three"
printf '# a comment\n10.0.0.1 a # and one here\n\n' >"$T/good"
printf '10.0.0.300\n' >"$T/badaddr"
bad() { # bad NAME WANT_RC PATTERN ARGS...: one line on stderr matching PATTERN, exit WANT_RC
	local name=$1 want=$2 pat=$3 rc
	shift 3
	timeout 10 "$ROCETOP" probe "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc = "$want" ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q -- "$pat" "$T/err"; then
		pass "probe_cli_$name"
	else
		fail "probe_cli_$name" "exit $rc (want $want), stderr: $(head -3 "$T/err" | tr '\n' '|')"
	fi
}
bad size_small 2 "probe-sizes '32' is not valid" --probe-sizes 32 10.0.0.1
bad size_large 2 "probe-sizes '64,5000' is not valid" --probe-sizes 64,5000 10.0.0.1
bad size_many 2 "takes 4 sizes at most" --probe-sizes 64,128,256,512,mtu 10.0.0.1
bad size_word 2 "probe-sizes 'big' is not valid" --probe-sizes big 10.0.0.1
bad qkey_priv 2 "qkey '0x80010000' is not valid" --qkey 0x80010000 10.0.0.1
bad qkey_neg 2 "qkey '-1' is not valid" --qkey -1 10.0.0.1
bad paths 2 "give 1 to 4 paths" --probe-paths 5 10.0.0.1
bad peer 2 "'fe80::1' is no IPv4 address" fe80::1
bad peers_line 2 "line 2 has more than an address and a name" --probe-peers "$T/three"
bad peers_addr 2 "'10.0.0.300' (.*line 1) is no IPv4 address" --probe-peers "$T/badaddr"
bad peers_missing 2 "cannot read --probe-peers $T/nope" --probe-peers "$T/nope"
bad peers_dir 2 "cannot read --probe-peers" --probe-peers "$T"
bad nothing 2 "nothing to do" --no-answer
# This host has no RDMA stack: rdma_cm cannot be opened, said once, exit 1,
# after the peers file was read whole.
if [ -e /dev/infiniband/rdma_cm ]; then
	fail probe_cli_no_rdma "this host has /dev/infiniband/rdma_cm: the test expects none"
else
	bad no_rdma 1 "rdma_cm is not there" --probe-peers "$T/good" -n 1
fi
# The main command line's --probe-* options: the findings' thresholds are
# those of rocetop probe, bounded alike; without --probe they tune nothing,
# which is said rather than ignored.
badmain() { # badmain NAME PATTERN ARGS...: rocetop (no subcommand), one line, exit 2
	local name=$1 pat=$2 rc
	shift 2
	timeout 10 "$ROCETOP" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q -- "$pat" "$T/err"; then
		pass "probe_cli_main_$name"
	else
		fail "probe_cli_main_$name" "exit $rc (want 2), stderr: $(head -3 "$T/err" | tr '\n' '|')"
	fi
}
badmain no_probe "tune the probe mesh, which --probe (or --probe-peers) turns on" -i lo -b -n 1 --probe-net-us 500
badmain no_probe_rate "tune the probe mesh" -i lo -b -n 1 --probe-rate 5
badmain net_zero "probe-net-us '0' is not valid: give microseconds from 1 to 10000000" -i lo -b -n 1 --probe --probe-net-us 0
badmain resp_word "probe-resp-us 'slow' is not valid" -i lo -b -n 1 --probe --probe-resp-us slow
badmain window "probe-window '40' is not valid: give 1 to 32 intervals" -i lo -b -n 1 --probe --probe-window 40
badmain loss "probe-loss '101' is not valid: give a percentage from 0 to 100" -i lo -b -n 1 --probe --probe-loss 101
