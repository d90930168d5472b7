#!/usr/bin/env python3
"""The floors of user space, checked on the sources and on the built objects.

user/lib/ (the option engine, number parsing, logging) is the floor below
everything, shared with rocetop-gen: its files include only its own headers
and its objects call only its own functions or system libraries. user/core/
is the ground floor of rocetop above it: its files include only headers of
user/lib/, user/core/ and bpf/ (the BPF programs' shared structs) and its
objects call only functions of lib and core objects or of system libraries.
gen/ (rocetop-gen, an independent tally) includes only its own headers and
user/lib/'s. Above the core: no floor reaches into user/cmd/ (the commands,
and the command line's struct rt_opts, from which user/cmd/ fills each part's
own config), user/sinks/ and exporters/ do not reach into user/sources/.
user/report/ (rocetop report's aggregation, merge and writers) uses the
core's and the sinks' interfaces and nothing else above the core; only
user/cmd/ uses it (no other floor includes or calls it). The modules of lib
and of core, and the files of tui/, call each other in no circle.

Usage: layers.py ROOT OBJDIR   (OBJDIR: BUILD/obj, objects laid out as ROOT)
Prints one line per breach and exits 1 when there is any, else 0.
"""
import os
import re
import subprocess
import sys

FLOORS = ["user/lib", "user/core", "user/sources", "user/sinks", "user/report", "user/nic", "user/probe", "user/cmd", "tui", "exporters"]
# folder -> folders whose headers and functions it must not use
FORBIDDEN = {
    "user/lib": ["user/core", "user/sources", "user/sinks", "user/report", "user/nic", "user/probe", "user/cmd", "tui", "exporters"],
    "user/core": ["user/sources", "user/sinks", "user/report", "user/nic", "user/probe", "user/cmd", "tui", "exporters"],
    "user/nic": ["user/report", "user/cmd"],
    "user/probe": ["user/sources", "user/sinks", "user/report", "user/cmd", "tui", "exporters"],
    "user/sources": ["user/report", "user/cmd"],
    "user/sinks": ["user/sources", "user/report", "user/cmd"],
    "user/report": ["user/sources", "user/nic", "user/probe", "user/cmd", "tui", "exporters"],
    "tui": ["user/report", "user/cmd"],
    "exporters": ["user/sources", "user/report", "user/cmd"],
}
# The folders whose headers each ground floor may include, and nothing else
# of the tree (bpf/: the kernel side's structs, below every floor of user space).
HEADER_DIRS = {
    "user/lib": ["user/lib"],
    "user/core": ["user/lib", "user/core", "bpf"],
    "gen": ["gen", "user/lib"],
}
# The floors whose modules must call each other in no circle.
CIRCLE_FREE = ["user/lib", "user/core", "tui"]
# Breaches known and allowed for now, each as printed: none.
ALLOWED = set()

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def files(root, d, exts):
    p = os.path.join(root, d)
    return sorted(f for f in os.listdir(p) if f.endswith(exts)) if os.path.isdir(p) else []


def header_home(root):
    """Each header's name -> the floors (or bpf/) that hold one of that name."""
    home = {}
    for d in FLOORS + ["bpf", "gen"]:
        for h in files(root, d, (".h",)):
            home.setdefault(h, []).append(d)
    return home


def check_includes(root, out):
    home = header_home(root)
    for d in FLOORS + ["gen"]:
        for f in files(root, d, (".c", ".h")):
            text = open(os.path.join(root, d, f), encoding="utf-8", errors="replace").read()
            for inc in INCLUDE.findall(text):
                name = os.path.basename(inc)
                where = home.get(name, [])
                if d in HEADER_DIRS:
                    ok = HEADER_DIRS[d]
                    if not any(w in ok for w in where):
                        out.append(f"{d}/{f}: includes \"{inc}\", not a header of {' or '.join(ok)}"
                                   + (f" (it is {', '.join(where)}'s)" if where else ""))
                    continue
                bad = [w for w in where if w in FORBIDDEN.get(d, [])]
                if bad and not any(w == d for w in where):
                    out.append(f"{d}/{f}: includes \"{inc}\" of {bad[0]}/, which {d}/ must not use")


def nm_all(paths):
    """Each object's global symbols, {path: (defined, undefined)}, from one nm run."""
    table = {p: (set(), set()) for p in paths}
    res = subprocess.run(["nm", "-g", "-A", *sorted(paths)], capture_output=True, text=True, check=True)
    for line in res.stdout.splitlines():
        path, _, rest = line.partition(":")
        parts = rest.split()
        if path in table and len(parts) >= 2:
            table[path][1 if len(parts) == 2 else 0].add(parts[-1])  # undefined: no address
    return table


def objects(root, objdir, d):
    """The objects of the sources of folder d (stale objects of removed sources left out)."""
    objs = {}
    for f in files(root, d, (".c",)):
        o = os.path.join(objdir, d, f[:-2] + ".o")
        if not os.path.exists(o):
            sys.exit(f"layers.py: {o} is missing: build first (make)")
        objs[f"{d}/{f}"] = o
    return objs


def check_symbols(root, objdir, out):
    objs = {d: objects(root, objdir, d) for d in FLOORS}
    syms = nm_all([o for d in FLOORS for o in objs[d].values()])

    def nm(o, defined):
        return syms[o][0 if defined else 1]
    defs = {d: {} for d in FLOORS}		# floor -> symbol -> source file
    for d in FLOORS:
        for src, o in objs[d].items():
            for s in nm(o, True):
                defs[d][s] = src
    for d, bad in FORBIDDEN.items():
        for src, o in objs[d].items():
            for s in sorted(nm(o, False)):
                if s in defs[d]:
                    continue
                for b in bad:
                    if s in defs[b]:
                        out.append(f"{src}: calls {s} of {defs[b][s]}, which {d}/ must not use")
    for d in CIRCLE_FREE:
        check_circles(root, d, objs[d], defs[d], nm, out)


def check_circles(root, d, objs, defs, nm, out):
    """No circle among the modules of folder d. A module is a file, or the
    files that share an internal header NAME_int.h (NAME.c and NAME_*.c: one
    concept split into files of one job each, calling each other freely)."""
    internal = [f[:-6] for f in files(root, d, (".h",)) if f.endswith("_int.h")]

    def module(src):
        stem = os.path.basename(src)[:-2]
        for m in internal:
            if stem == m or stem.startswith(m + "_"):
                return f"{d}/{m}*.c"
        return src
    uses = {}
    for src, o in objs.items():
        mine = module(src)
        uses.setdefault(mine, set()).update(module(defs[s]) for s in nm(o, False) if s in defs)
        uses[mine].discard(mine)
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in sorted(uses[n]):
            if state.get(m) == 1:
                cyc = path[path.index(m):] + [m]
                out.append(f"{d}: " + " -> ".join(cyc) + " call each other in a circle")
            elif m not in state:
                visit(m, path + [m])
        state[n] = 2

    for n in sorted(uses):
        if n not in state:
            visit(n, [n])

def main():
    if len(sys.argv) != 3:
        sys.exit("usage: layers.py ROOT OBJDIR")
    root, objdir = sys.argv[1], sys.argv[2]
    out = []
    check_includes(root, out)
    check_symbols(root, objdir, out)
    for a in sorted(ALLOWED - set(out)):
        print(f"note: no longer seen, remove it from ALLOWED: {a}", file=sys.stderr)
    out = [o for o in out if o not in ALLOWED]
    for o in out:
        print(o)
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
