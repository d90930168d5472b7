#!/usr/bin/env python3
"""Functions no longer than a screen (100 lines) in the C sources of bpf/,
user/, tui/, gen/ and exporters/ (tests/ and bench/ are not checked).

A function's extent is what universal-ctags reports (its first line, the one
that names it, to its closing brace). Exempt:
  - a generated table, marked by the comment "func-len: generated" on the
    line before the function or on its first line;
  - a function listed in the allowlist (tests/structure/long_functions.txt),
    one "file:function reason" a line, with its reason. A listed function
    that is no longer too long, or no longer there, is an error too: its
    line must go.

Usage: func_len.py [--root DIR] [--max N] [--allow FILE] [--list] [PATH...]
Prints "PASS name" or "FAIL name: why" lines; exits 1 on a failure.
"""
import argparse
import os
import shutil
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
DIRS = ['bpf', 'user', 'tui', 'gen', 'exporters']
MARK = 'func-len: generated'


def ctags_binary():
    for name in ('ctags-universal', 'universal-ctags', 'ctags'):
        path = shutil.which(name)
        if path:
            out = subprocess.run([path, '--version'], capture_output=True, text=True).stdout
            if 'Universal Ctags' in out:
                return path
    sys.exit('func_len: universal-ctags is not installed (make deps installs it)')


def functions(root, paths):
    """(file, name, first line, last line) of every C function under paths."""
    cmd = [ctags_binary(), '--languages=C', '--langmap=C:.c.h', '--kinds-C=f',
           '--fields=+ne', '-R', '-x', '--_xformat=%{input}\t%{name}\t%{line}\t%{end}'] + paths
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f, name, first, last = line.split('\t')
        if not last:
            sys.exit(f'func_len: ctags gave no end line for {f}:{name}')
        yield f, name, int(first), int(last)


def marked(root, f, first):
    with open(os.path.join(root, f), errors='replace') as fh:
        lines = fh.read().splitlines()
    return any(MARK in lines[i] for i in (first - 2, first - 1) if 0 <= i < len(lines))


def read_allow(path):
    allow = {}
    if not os.path.exists(path):
        return allow, []
    bad = []
    with open(path) as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            parts = line.split(None, 1)
            if len(parts) < 2 or ':' not in parts[0]:
                bad.append(f'{os.path.basename(path)}:{n}: "{line}" is not "file:function reason"')
                continue
            allow[parts[0]] = parts[1]
    return allow, bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', default=ROOT, help='the tree the paths are in')
    ap.add_argument('--max', type=int, default=100)
    ap.add_argument('--allow', default=os.path.join(ROOT, 'tests/structure/long_functions.txt'))
    ap.add_argument('--list', action='store_true', help='print every function over --max lines')
    ap.add_argument('paths', nargs='*', default=DIRS)
    a = ap.parse_args()

    allow, bad = read_allow(a.allow)
    long_ones, checked = [], 0
    for f, name, first, last in functions(a.root, a.paths):
        checked += 1
        n = last - first + 1
        if n > a.max and not marked(a.root, f, first):
            long_ones.append((n, f, name))
    long_ones.sort(reverse=True)
    if a.list:
        for n, f, name in long_ones:
            print(f'{n:5d} {f}:{name}')
        return 0

    fails = list(bad)
    seen = set()
    for n, f, name in long_ones:
        key = f'{f}:{name}'
        if key in allow:
            seen.add(key)
            continue
        fails.append(f'{key} is {n} lines (at most {a.max}): split it by the jobs it does')
    for key in allow:
        if key not in seen:
            fails.append(f'{key} is listed in {os.path.relpath(a.allow, a.root)} but is not over '
                         f'{a.max} lines any more: remove its line')
    for msg in fails:
        print(f'FAIL func_len: {msg}')
    if fails:
        return 1
    print(f'PASS func_len: {checked} functions of {" ".join(a.paths)} at most {a.max} lines'
          f' ({len(seen)} allowed in {os.path.relpath(a.allow, a.root)})')
    return 0


if __name__ == '__main__':
    sys.exit(main())
