#!/usr/bin/env bash
# rocetop doctor on this host, which has no RDMA device: one sentence saying
# so and exit 1 (nothing judged is no pass), and the kernel's BPF features,
# each against what bpftool says of the same kernel (its feature probe, and
# the kernel's own BTF as bpftool dumps it):
#   BTF            /sys/kernel/btf/vmlinux is there
#   XDP, TC        "eBPF program_type xdp / sched_cls is available"
#   XDP link       BTF has struct bpf_xdp_link
#   xdp.frags      BTF has bpf_prog_aux's member xdp_has_frags
#   tcx            BTF's enum bpf_attach_type has BPF_TCX_EGRESS
#   ring buffer    "eBPF map_type ringbuf is available"
#   mmapable       BTF has BPF_F_MMAPABLE
#   bounded loops  "Bounded loop support is available"
#   bpf_loop       bpf_loop in the helpers of program type xdp
# and the egress attach: tcx link with tcx, else a TC clsact filter.
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
name=doctor_bpf
[ -x "$ROCETOP" ] || { echo "FAIL $name: $ROCETOP not built"; exit 1; }
if [ "$(id -u)" -ne 0 ]; then echo "SKIP $name: the probes load BPF programs: needs root"; exit 0; fi
command -v bpftool >/dev/null || { echo "SKIP $name: no bpftool to compare with"; exit 0; }
[ -e /sys/class/infiniband ] && [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ] &&
	{ echo "SKIP $name: this host has an RDMA device"; exit 0; }
tmp=$(mktemp -d /tmp/rtdb$$.XXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

"$ROCETOP" doctor -d 0 > "$tmp/out" 2> "$tmp/err"; rc=$?
"$ROCETOP" doctor -d 0 --json > "$tmp/json" 2>&1
[ "$rc" = 3 ] || { echo "  no RDMA device: exit $rc, want 3"; fail=1; }
grep -qx 'no RDMA device on this host (/sys/class/infiniband: No such file or directory): nothing to judge; load the NIC.s RDMA driver (Soft-RoCE: rdma link add rxe0 type rxe netdev IF)' "$tmp/out" ||
	{ echo "  no sentence saying there is no RDMA device: $(cat "$tmp/out")"; fail=1; }
grep -q 'findings' "$tmp/out" && { echo "  a findings count though nothing was judged"; fail=1; }

bpftool feature probe kernel > "$tmp/probe" 2>/dev/null
have_btf=0; [ -e /sys/kernel/btf/vmlinux ] && have_btf=1
[ $have_btf = 1 ] && bpftool btf dump file /sys/kernel/btf/vmlinux > "$tmp/btf" 2>/dev/null
btf() { [ $have_btf = 1 ] && grep -q "$1" "$tmp/btf"; }
probe() { grep -qx "$1" "$tmp/probe"; }
yn() { if "$@"; then echo True; else echo False; fi; }
helper_xdp() {	# bpf_loop among the helpers listed for program type xdp
	awk '/^eBPF helpers supported for program type xdp:/ {on=1; next} /^eBPF helpers/ {on=0} on' "$tmp/probe" |
		grep -qx $'\t- bpf_loop'
}
want_btf=$([ $have_btf = 1 ] && echo True || echo False)
want_xdp=$(yn probe 'eBPF program_type xdp is available')
want_xdp_link=$(yn btf "STRUCT 'bpf_xdp_link'")
want_xdp_frags=$(yn btf "'xdp_has_frags' type_id")
want_tc=$(yn probe 'eBPF program_type sched_cls is available')
want_tcx=$(yn btf "'BPF_TCX_EGRESS' val=")
want_ringbuf=$(yn probe 'eBPF map_type ringbuf is available')
want_mmap_array=$(yn btf "'BPF_F_MMAPABLE' val=")
want_bounded_loops=$(yn probe 'Bounded loop support is available')
want_bpf_loop=$(yn helper_xdp)
want_egress=$([ "$want_tcx" = True ] && echo "tcx link" || echo "TC clsact filter")
${PYTHON:-python3} - "$tmp/json" <<PYEOF || fail=1
import json, sys
d = json.load(open(sys.argv[1]))["bpf"]
want = {"btf": $want_btf, "xdp": $want_xdp, "xdp_link": $want_xdp_link, "xdp_frags": $want_xdp_frags,
        "tc": $want_tc, "tcx": $want_tcx, "ringbuf": $want_ringbuf, "mmap_array": $want_mmap_array,
        "bounded_loops": $want_bounded_loops, "bpf_loop": $want_bpf_loop, "egress_attach": "$want_egress"}
bad = [f"{k}: doctor says {d.get(k)!r}, bpftool {v!r}" for k, v in want.items() if d.get(k) != v]
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PYEOF
grep -q "^  egress attach: *$want_egress (" "$tmp/out" || { echo "  text: no 'egress attach: $want_egress'"; fail=1; }
grep -q '^  tcx link  *\(yes\|no (Linux 6.6 has it)\)$' "$tmp/out" || { echo "  text: no tcx line"; fail=1; }
[ $fail = 0 ] && echo "PASS $name: no RDMA device is exit 3 with one sentence; 10 BPF features as bpftool finds them (tcx $want_tcx, egress: $want_egress)" ||
	echo "FAIL $name: doctor's report differs (above)"
