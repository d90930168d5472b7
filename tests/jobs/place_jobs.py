#!/usr/bin/env python3
"""Places processes in cgroups laid out as the schedulers lay them out, with
rank variables in their environment, and checks rocetop --job-of's answer for
each pid exactly against what was placed (test_jobs_cgroups.sh).
Usage: place_jobs.py ROCETOP V2_MOUNT V1_FREEZER_MOUNT|'' TMPDIR ID"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.check import Checker  # noqa: E402

ROCETOP, V2, V1, TMP, ID = sys.argv[1:6]
ID = int(ID)
made = []	# cgroup directories made, removed deepest first
procs = []


def mkcg(root, path):
    """Make root/path's missing directories (remembered for the cleanup)."""
    cur = root
    for part in path.strip("/").split("/"):
        cur = os.path.join(cur, part)
        if not os.path.isdir(cur):
            os.mkdir(cur)
            made.append(cur)
    return cur


def start(env, *cgroups):
    """A sleep with env alone as its environment, moved into each cgroup dir."""
    p = subprocess.Popen(["sleep", "120"], env=env)
    procs.append(p)
    for d in cgroups:
        with open(os.path.join(d, "cgroup.procs"), "w") as f:
            f.write(str(p.pid))
    return p.pid


def want(kind, job, step, cgroup, rank=-1, size=-1, local=-1):
    return {"kind": kind, "job": job, "step": step, "cgroup": cgroup,
            "rank": rank, "size": size, "local_rank": local}


def place():
    """The pids placed and what each must be named."""
    out = {}
    slurm = "/system.slice/slurmstepd.scope/job_%d/step_0/user" % ID
    for task in (0, 1):
        cg = "%s/task_%d" % (slurm, task)
        env = {"SLURM_JOB_ID": str(ID), "SLURM_STEP_ID": "0", "SLURM_PROCID": str(task),
               "SLURM_NTASKS": "2", "SLURM_LOCALID": str(task)}
        out[start(env, mkcg(V2, cg))] = want("slurm", str(ID), "0", cg, task, 2, task)
    # kubelet, systemd driver: a burstable pod with its log directories
    uid = "%08x-1d2e-4f3a-9b8c-%012x" % (ID, ID)
    ctr = "%064x" % (ID * 7919)
    pod = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice" % uid.replace("-", "_")
    cg = "%s/cri-containerd-%s.scope" % (pod, ctr)
    logs = os.path.join(TMP, "log")
    os.makedirs(os.path.join(logs, "pods", "train_trainer-%d_%s" % (ID, uid), "worker"))
    os.makedirs(os.path.join(logs, "containers"))
    os.symlink("../pods/x/worker/0.log", os.path.join(
        logs, "containers", "trainer-%d_train_worker-%s.log" % (ID, ctr)))
    out[start({"RANK": "2", "WORLD_SIZE": "4", "LOCAL_RANK": "0"}, mkcg(V2, cg))] = \
        want("k8s", "train/trainer-%d" % ID, "worker", cg, 2, 4, 0)
    # a guaranteed pod no log directory names: its uid and the id's first 12
    gp = "/kubepods.slice/kubepods-pod%s.slice/crio-%s.scope" % (uid.replace("-", "_")[::-1], ctr)
    out[start({"PMI_RANK": "1", "PMI_SIZE": "3"}, mkcg(V2, gp))] = \
        want("k8s", uid[::-1].replace("_", "-"), ctr[:12], gp, 1, 3)
    svc = "/system.slice/rt-jobs-%d.service" % ID
    out[start({}, mkcg(V2, svc))] = want("unit", "rt-jobs-%d.service" % ID, "", svc)
    odd = "/rt-jobs-%d/a b,c\"d" % ID
    out[start({"OMPI_COMM_WORLD_RANK": "9", "OMPI_COMM_WORLD_SIZE": "10"}, mkcg(V2, odd))] = \
        want("cgroup", odd, "", odd, 9, 10)
    # (a newline in a cgroup's name the kernel refuses: EINVAL; the parser's
    # handling of one is tests/unit/test_jobs.c's)
    if V1:
        v1 = "/slurm/uid_0/job_%d/step_batch/task_0" % (ID + 1)
        out[start({"OMPI_COMM_WORLD_RANK": "5", "OMPI_COMM_WORLD_SIZE": "6"}, mkcg(V1, v1))] = \
            want("slurm", str(ID + 1), "batch", v1, 5, 6)
    return out, logs


def job_of(pids, logs, nobody=False):
    cmd = [ROCETOP, "--json", "--pods-log-dir", os.path.join(logs, "pods")]
    for p in pids:
        cmd += ["--job-of", str(p)]
    if nobody:
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    got = {}
    for line in r.stdout.splitlines():
        o = json.loads(line)
        got[o.pop("pid")] = {k: o[k] for k in ("kind", "job", "step", "cgroup", "rank", "size",
                                               "local_rank")}
    return r.returncode, got, r.stderr


def checks(c, placed, logs):
    rc, got, err = job_of(sorted(placed), logs)
    c.check("exit status of --job-of", rc, 0)
    for pid, w in sorted(placed.items()):
        c.check("pid placed in %r" % w["cgroup"], got.get(pid), w)
    # as nobody: the cgroups still read, the environments not (ranks unknown;
    # the Slurm job still comes from its cgroup)
    rc, got, err = job_of(sorted(placed), logs, nobody=True)
    c.check("exit status of --job-of as nobody", rc, 0)
    for pid, w in sorted(placed.items()):
        w = dict(w, rank=-1, size=-1, local_rank=-1)
        c.check("pid placed in %r, environ unreadable" % w["cgroup"], got.get(pid), w)
    # a pid that is gone: one sentence, exit 1
    gone = subprocess.Popen(["true"])
    gone.wait()
    rc, got, err = job_of([gone.pid], logs)
    c.check("a gone pid: exit 1 and one line said", (rc, got, err.count("\n")), (1, {}, 1))


def main():
    c = Checker(prefix="jobs_cgroups: ")
    try:
        placed, logs = place()
        print("placed %d processes%s" % (len(placed), "" if V1 else " (no v1 freezer: no v1 layout)"))
        checks(c, placed, logs)
    finally:
        for p in procs:
            p.kill()
            p.wait()
        time.sleep(0.1)
        for d in reversed(made):
            try:
                os.rmdir(d)
            except OSError as e:
                print("could not remove %s: %s" % (d, e))
    c.done()


main()
