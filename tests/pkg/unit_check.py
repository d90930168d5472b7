#!/usr/bin/env python3
"""Checks of rocetop-exporter.service against systemd's own tables.
  unit_check.py prestart UNIT DEFAULTS [VAR=VALUE...]
      runs the unit's ExecStartPre as systemd would (its quoting and $$
      undone) with the environment of DEFAULTS (and the overrides); prints
      its exit status and output.
  unit_check.py syscalls UNIT TRACE
      every system call in the strace -f output TRACE must be allowed by the
      unit's SystemCallFilter lines, expanded by systemd-analyze
      syscall-filter; prints the calls and exits 1 naming any refused."""
import os
import re
import shlex
import subprocess
import sys


def unit_lines(unit, key):
    return [l.split("=", 1)[1].strip() for l in open(unit) if l.startswith(key + "=")]


def prestart(unit, defaults, overrides):
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
    for line in open(defaults):
        m = re.match(r'^([A-Z_]+)=(.*)$', line.strip())
        if m:
            env[m.group(1)] = shlex.split(m.group(2))[0] if shlex.split(m.group(2)) else ""
    env.update(o.split("=", 1) for o in overrides)
    line = unit_lines(unit, "ExecStartPre")[0]
    exe, rest = line.split(" ", 1)
    flag, script = rest.split(" ", 1)
    assert script[0] == "'" and script[-1] == "'", script
    # systemd: C escapes inside quotes, "$$" a literal dollar
    script = script[1:-1].replace("\\\\", "\\").replace("$$", "$")
    p = subprocess.run([exe, flag, script], env=env, capture_output=True, text=True)
    print(p.returncode)
    sys.stdout.write(p.stdout + p.stderr)


def expand(names):
    out = set()
    for n in names:
        if n.startswith("@"):
            txt = subprocess.run(["systemd-analyze", "syscall-filter", n], capture_output=True,
                                 text=True, check=True).stdout
            for l in txt.splitlines()[1:]:	# the first line names the group
                l = l.strip()
                if l and not l.startswith("#") and " " not in l and not l.endswith(":"):
                    out |= expand([l]) if l.startswith("@") else {l}
        else:
            out.add(n)
    return out


def syscalls(unit, trace):
    allow, deny = set(), set()
    for v in unit_lines(unit, "SystemCallFilter"):
        if v.startswith("~"):
            deny |= expand(v[1:].split())
        else:
            allow |= expand(v.split())
    used = set()
    for l in open(trace):
        m = re.match(r'^\d+\s+(?:<\.\.\. )?([a-z0-9_]+)[( ]', l)
        if m and not l.split(None, 1)[1].startswith(("+++", "---")):
            used.add(m.group(1))
    # execve runs before the filter matters to the exporter, exit_group ends it
    refused = sorted(s for s in used if s not in allow or s in deny)
    print(len(used), " ".join(sorted(used)))
    if refused:
        print("refused:", " ".join(refused))
        sys.exit(1)


if sys.argv[1] == "prestart":
    prestart(sys.argv[2], sys.argv[3], sys.argv[4:])
else:
    syscalls(sys.argv[2], sys.argv[3])
