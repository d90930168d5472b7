#!/bin/bash
# The guest side of bench/probe_mesh.sh: the probe mesh's cost at 10 and 100
# peers. b answers on 100 addresses of its own (10.77.1.1-100 on eth0: each
# a RoCEv2 GID of rxe0); a probes 1, 10 and 100 of them at 10 probes a second
# each for 20 s, under /usr/bin/time (CPU seconds and peak RSS). Each run's
# figures and rocetop's own totals land under $SYNC/a for the bench to print.
# usage: probe-scale.sh BUILD_DIR
set -u
BUILD=$1
ROCETOP=$BUILD/rocetop
R=$SYNC/$ROLE
mkdir -p "$R"
exec 2>&1
# shellcheck source=tests/vm/guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
modprobe rdma_rxe && modprobe rdma_ucm && rdma link add rxe0 type rxe netdev eth0 ||
	echo "rdma_rxe could not be set up" >>"$R/errors"
if [ "$ROLE" = b ]; then
	for i in $(seq 1 100); do ip addr add 10.77.1.$i/16 dev eth0; done
	"$ROCETOP" probe --json -d 5 --answer-rate 5000 >"$R/answerer.json" 2>"$R/answerer.err" &
	ANS=$!
	end=$((SECONDS + 120))
	while [ $SECONDS -lt $end ] && ! grep -q 'answering on UD QP' "$R/answerer.err"; do sleep 0.2; done
	barrier answering
	barrier done
	kill -INT $ANS
	wait $ANS
	exit 0
fi
ip route add 10.77.1.0/24 dev eth0
barrier answering
for n in 1 10 100; do
	peers=$(for i in $(seq 1 $n); do echo 10.77.1.$i; done)
	# shellcheck disable=SC2086
	/usr/bin/time -f '%U %S %e %M' -o "$R/time.$n" "$ROCETOP" probe --no-answer --json -d 1 -n 20 \
		--probe-rate 10 $peers >"$R/out.$n.json" 2>"$R/err.$n"
	echo $? >"$R/rc.$n"
done
barrier done
