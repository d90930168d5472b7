# shellcheck shell=bash
# What the VM pairs' guest scripts share (tests/vm/rdma-pair.sh,
# probe-pair.sh, probe-scale.sh), sourced by each: a log line stamped with the
# role and the guest's uptime, and barriers between the two VMs through
# $SYNC (vm.sh pair sets ROLE, PEER and SYNC; the script sets R, its results
# directory). BARRIER_SECS bounds the wait (default 300 s).
log() { echo "[$ROLE $(cut -d' ' -f1 /proc/uptime)] $*"; }

# barrier NAME: both VMs reach NAME, or the wait ends with a line in
# $R/errors (the peer is gone: its kernel crashed, say) and this script exits.
barrier() {
	touch "$SYNC/$ROLE.$1"
	local end=$((SECONDS + ${BARRIER_SECS:-300}))
	while [ ! -e "$SYNC/$PEER.$1" ]; do
		[ $SECONDS -lt $end ] || { log "barrier $1: the peer never came"; echo "barrier $1" >>"$R/errors"; exit 1; }
		sleep 0.1
	done
}
