#!/usr/bin/python3
"""Write rocetop's seccomp profile (dist/kubernetes/rocetop-seccomp.json) from
the container engines' default one (containers-common's
/usr/share/containers/seccomp.json, the same rules as Docker's and
containerd's): the default allows bpf() and perf_event_open() only to a
container holding CAP_SYS_ADMIN, which rocetop does not need; this profile
allows those two calls to every process of the container and leaves the
kernel's own checks (CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN) to decide. Every
other rule is the default's, unchanged.

Usage: gen-seccomp.py [DEFAULT_JSON] > rocetop-seccomp.json
"""
import json
import sys

CALLS = ["bpf", "perf_event_open"]
src = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/containers/seccomp.json"
with open(src) as f:
    prof = json.load(f)
rules = []
for r in prof["syscalls"]:
    names = [n for n in r["names"] if n not in CALLS]
    if names:
        rules.append(dict(r, names=names))
rules.append({
    "names": CALLS,
    "action": "SCMP_ACT_ALLOW",
    "args": [],
    "comment": "rocetop: load and attach its BPF programs with CAP_BPF, CAP_PERFMON and "
               "CAP_NET_ADMIN, without CAP_SYS_ADMIN (the kernel checks the capabilities)",
    "includes": {},
    "excludes": {},
})
prof["syscalls"] = rules
json.dump(prof, sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
