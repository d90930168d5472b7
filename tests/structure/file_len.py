#!/usr/bin/env python3
"""Files no longer than 1,000 lines under bpf/, user/, tui/, exporters/ and
gen/ (tests/ and bench/ are not checked), beside func_len.py's check of
functions: a file that long holds more than one job.

The files over it today are listed in tests/structure/long_files.txt, one
"file lines" a line: the count each had when it was listed is its ceiling.
A listed file that grows past its ceiling fails, and so does a file over
1,000 lines that is not listed; a listed file that is no longer over 1,000
lines (or no longer there) fails too: its line must go, so the list only
shrinks. A listed file below its ceiling passes; lower the ceiling with it.

Usage: file_len.py [--root DIR] [--max N] [--allow FILE] [--list] [PATH...]
Prints "PASS name" or "FAIL name: why" lines; exits 1 on a failure.
"""
import argparse
import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
DIRS = ['bpf', 'user', 'tui', 'exporters', 'gen']


def files(root, paths):
    """Each regular file under paths, relative to root, sorted."""
    out = []
    for p in paths:
        top = os.path.join(root, p)
        if os.path.isfile(top):
            out.append(p)
            continue
        for d, subdirs, names in os.walk(top):
            subdirs[:] = [s for s in subdirs if not s.startswith('.')]
            out += [os.path.relpath(os.path.join(d, n), root) for n in names if not n.startswith('.')]
    return sorted(out)


def count_lines(path):
    with open(path, 'rb') as fh:
        data = fh.read()
    return data.count(b'\n') + (1 if data and not data.endswith(b'\n') else 0)


def read_allow(path):
    allow, bad = {}, []
    if not os.path.exists(path):
        return allow, bad
    with open(path) as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            parts = line.split()
            if len(parts) != 2 or not parts[1].isdigit():
                bad.append(f'{os.path.basename(path)}:{n}: "{line}" is not "file lines"')
                continue
            allow[parts[0]] = int(parts[1])
    return allow, bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', default=ROOT, help='the tree the paths are in')
    ap.add_argument('--max', type=int, default=1000)
    ap.add_argument('--allow', default=os.path.join(ROOT, 'tests/structure/long_files.txt'))
    ap.add_argument('--list', action='store_true', help='print every file over --max lines')
    ap.add_argument('paths', nargs='*', default=DIRS)
    a = ap.parse_args()

    allow, fails = read_allow(a.allow)
    listed = os.path.relpath(a.allow, a.root)
    lengths = {f: count_lines(os.path.join(a.root, f)) for f in files(a.root, a.paths)}
    long_ones = sorted(((n, f) for f, n in lengths.items() if n > a.max), reverse=True)
    if a.list:
        for n, f in long_ones:
            print(f'{n:6d} {f}')
        return 0

    for n, f in long_ones:
        if f not in allow:
            fails.append(f'{f} is {n} lines (at most {a.max}): split it by the jobs it does')
        elif n > allow[f]:
            fails.append(f'{f} is {n} lines, past its ceiling of {allow[f]} in {listed}: '
                         f'it may only shrink')
    for f, ceiling in allow.items():
        if lengths.get(f, 0) <= a.max:
            fails.append(f'{f} is listed in {listed} but is '
                         + (f'{lengths[f]} lines, not over {a.max} any more' if f in lengths
                            else 'not there any more') + ': remove its line')
    for msg in fails:
        print(f'FAIL file_len: {msg}')
    if fails:
        return 1
    print(f'PASS file_len: {len(lengths)} files of {" ".join(a.paths)} at most {a.max} lines'
          f' ({len(long_ones)} listed in {listed}, none past its ceiling)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
