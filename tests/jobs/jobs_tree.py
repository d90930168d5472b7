#!/usr/bin/env python3
"""Fixture trees for the jobs tests (test_jobs_prom.sh, test_jobs_pause.sh):
copies of a tests/fixtures/hwhost tree whose recorded rdma netlink dumps get
more messages (a real dump of many QPs comes in several), and proc/ entries
placing pids in jobs, as the schedulers lay them out.

  jobs_tree.py many SRC DST PROC N CE0 STEP
      DST: SRC with N more QPs (lqpn 1000+i, peer 2000+i, pid 6000+i), each
      bound to counter 100+i with cc_rx_ce_pkts CE0 + STEP * (i + 1); PROC
      gets pid 6000+i as rank 0 of 1 of Slurm job 9000+i (step 0); DST/proc
      links to PROC.
  jobs_tree.py qpstat SRC DST PROC JSON
      DST: SRC whose per-QP statistics dump is replaced by the counters of
      JSON ([[id, [lqpn...], {name: value}]...]); DST/proc links to PROC.
"""
import json
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import netlink  # noqa: E402

EXTRA_LQPN, EXTRA_RQPN, EXTRA_PID, EXTRA_JOB, EXTRA_CTR = 1000, 2000, 6000, 9000, 100


def messages(b):
    """A dump's messages (bytes each), in order."""
    out, at = [], 0
    while at + 16 <= len(b):
        n = struct.unpack_from("<I", b, at)[0]
        out.append(b[at:at + n])
        at += (n + 3) & ~3
    return out


def add_to_dump(path, body):
    """body's messages (their own NLMSG_DONE dropped) before path's NLMSG_DONE."""
    old = messages(open(path, "rb").read())
    new = [m for m in messages(body) if struct.unpack_from("<H", m, 4)[0] != 3]
    assert struct.unpack_from("<H", old[-1], 4)[0] == 3, path + " does not end a dump"
    with open(path, "wb") as f:
        f.write(b"".join(old[:-1] + new + old[-1:]))


def proc(d, pid, cgroup, env):
    """pid's cgroup (v2), environ and stat below d, as /proc has them."""
    p = os.path.join(d, str(pid))
    os.makedirs(p, exist_ok=True)
    with open(os.path.join(p, "cgroup"), "w") as f:
        f.write("0::%s\n" % cgroup)
    with open(os.path.join(p, "environ"), "wb") as f:
        f.write(b"".join(("%s=%s" % kv).encode() + b"\0" for kv in env.items()))
    with open(os.path.join(p, "stat"), "w") as f:	# starttime: field 22
        f.write("%d (rank) S 1 1 1 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 777 1 1\n" % pid)


def copy(src, dst, procdir):
    shutil.copytree(src, dst, symlinks=True)
    if os.path.lexists(os.path.join(dst, "proc")):
        os.unlink(os.path.join(dst, "proc"))
    os.symlink(procdir, os.path.join(dst, "proc"))


def many(src, dst, procdir, n, ce0, step):
    copy(src, dst, procdir)
    nl = os.path.join(dst, "rdma-netlink")
    qps = [(EXTRA_LQPN + i, EXTRA_RQPN + i, EXTRA_PID + i) for i in range(n)]
    add_to_dump(os.path.join(nl, "res_qp"), netlink.res_qp(qps))
    add_to_dump(os.path.join(nl, "stat_qp"), netlink.stat_qp(
        [(EXTRA_CTR + i, [EXTRA_LQPN + i], {"cc_rx_ce_pkts": ce0 + step * (i + 1)}) for i in range(n)]))
    for i in range(n):
        job = EXTRA_JOB + i
        proc(procdir, EXTRA_PID + i, "/system.slice/slurmstepd.scope/job_%d/step_0/user/task_0" % job,
             {"SLURM_JOB_ID": job, "SLURM_STEP_ID": 0, "SLURM_PROCID": 0, "SLURM_NTASKS": 1})


def qpstat(src, dst, procdir, counters):
    copy(src, dst, procdir)
    with open(os.path.join(dst, "rdma-netlink", "stat_qp"), "wb") as f:
        f.write(netlink.stat_qp([(c[0], c[1], c[2]) for c in counters]))


if sys.argv[1] == "many":
    many(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]))
elif sys.argv[1] == "qpstat":
    qpstat(sys.argv[2], sys.argv[3], sys.argv[4], json.load(open(sys.argv[5])))
else:
    sys.exit("jobs_tree.py: unknown command %r" % sys.argv[1])
