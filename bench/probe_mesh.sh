#!/usr/bin/env bash
# The probe mesh's cost (rocetop probe, user/probe/) at 1, 10 and 100 peers,
# on real verbs: two VMs with rdma_rxe (tests/vm/vm.sh pair, Debian's 6.1),
# b answering on 100 addresses, a probing 1, 10 and 100 of them at 10 probes
# a second each for 20 s (tests/vm/probe-scale.sh). Prints, per peer count,
# the prober's CPU as a share of one core (user and system time over wall
# time, from /usr/bin/time), its peak RSS, the memory the mesh states it
# holds, and the probes sent and lost; and the ratios of 10 and 100 peers to
# 1 (the baseline, measured in the same VM in the same run). The VM runs
# under TCG where KVM refuses the stock kernel: absolute CPU shares there are
# an emulator's, many times a real host's; the ratios are the figure.
# Usage: bench/probe_mesh.sh [BUILD]
set -u
cd "$(dirname "$0")/.."
BUILD=$(realpath "${1:-build}")
res=$(mktemp -d "${TMPDIR:-/tmp}/rocetop-probe-bench.XXXXXX")
trap 'rm -rf "$res"' EXIT
tests/vm/vm.sh fetch 6.1 >/dev/null 2>&1
if ! VM_RESULTS=$res tests/vm/vm.sh pair 6.1 tests/vm/probe-scale.sh "$BUILD" >"$res/log" 2>&1; then
	echo "probe_mesh: the VM pair failed:"; tail -n 20 "$res/log"; exit 1
fi
[ ! -s "$res/a/errors" ] || { cat "$res/a/errors"; exit 1; }
"${PYTHON:-/usr/bin/python3}" - "$res/a" "$res/b" <<'PY'
import json, sys, os
d = sys.argv[1]
ans = [json.loads(x) for x in open(os.path.join(sys.argv[2], 'answerer.json')) if x.strip()]
a = [x['answerer'] for x in ans if 'answerer' in x]
rows = {}
for n in (1, 10, 100):
    u, s, e, m = open(os.path.join(d, f'time.{n}')).read().split()[-4:]
    lines = [json.loads(x) for x in open(os.path.join(d, f'out.{n}.json')) if x.strip()]
    tot = [x['total'] for x in lines if 'total' in x]
    mem = [x['memory_bytes'] for x in lines if 'memory_bytes' in x]
    iv = [x for x in lines if 'paths' in x]
    rows[n] = dict(cpu=(float(u) + float(s)) / float(e), rss=int(m) / 1024, mesh=(mem[-1] if mem else 0) / 1e6,
                   sent=sum(t['sent'] for t in tot), lost=sum(t['lost'] for t in tot),
                   peers=len({t['peer'] for t in tot}), late=iv[-1]['late'] if iv else None,
                   unsent=iv[-1]['unsent'] if iv else None)
for n, r in rows.items():
    print(f"probe mesh, {n:3d} peers ({r['peers']} answered rows' peers): CPU {100 * r['cpu']:.2f}% of one core, "
          f"peak RSS {r['rss']:.1f} MB, mesh holds {r['mesh']:.2f} MB; {r['sent']} probes sent, {r['lost']} lost, "
          f"{r['unsent']} not sent (no slot), {r['late']} answers late")
if a:
    print(f"the answerer, over the three runs: {a[-1]['answered']} answered, {a[-1]['dropped_rate']} dropped at its bound")
for n in (10, 100):
    print(f"probe mesh, {n} peers against 1: CPU x{rows[n]['cpu'] / rows[1]['cpu']:.2f}, "
          f"RSS x{rows[n]['rss'] / rows[1]['rss']:.2f} (goal: at most 1% of one core at 100 peers on a real host)")
PY
