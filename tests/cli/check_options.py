#!/usr/bin/env python3
# Do --help, the man pages' option lists and the bash completion name the
# options of each command's table (--dump-options=list), each with the same
# letter and argument, and no other? Each of the three is read here in its own
# form (--help's columns, roff, the completion's bash arrays as bash reads
# them), not through the code that wrote it.
#   check_options.py ROCETOP ROCETOP_GEN ROOT  (ROOT holds man/ and dist/)
# Prints "ok NAME" or "DRIFT NAME: ..." lines; exits 1 on any drift.
import re
import subprocess
import sys

ROCETOP, GEN, ROOT = sys.argv[1:4]
COMMANDS = {  # command: its man page
    'rocetop': 'man/rocetop.8', 'rocetop lab': 'man/rocetop.8', 'rocetop report': 'man/rocetop.8',
    'rocetop doctor': 'man/rocetop.8', 'rocetop-gen': 'man/rocetop-gen.1',
}
BASH = ROOT + '/dist/rocetop.bash-completion'


def run(command, *args):
    words = command.split()
    exe = GEN if words[0] == 'rocetop-gen' else ROCETOP
    return subprocess.run([exe] + words[1:] + list(args), capture_output=True, text=True).stdout


def table(command):
    """{long: (short, arg, values)} from the table itself."""
    out = {}
    for line in run(command, '--dump-options=list').splitlines():
        short, long, arg, values = line.split('\t')
        out[long] = (short, arg, values)
    return out


OPT = re.compile(r'^(?:-(\w), )?(--[a-z][a-z0-9-]*)(\[=[^\]]*\]| \S+)?$')


def parse_left(left):
    m = OPT.match(left)
    if not m:
        return None
    arg = (m.group(3) or ' -').strip()
    return m.group(2), ('-' + m.group(1) if m.group(1) else '-', arg)


def from_help(command):
    """Options as --help shows them: lines indented less than the help column."""
    out = {}
    for line in run(command, '--help').splitlines():
        m = re.match(r'^( {2,6})(-.*?)(?:  +\S.*)?$', line)
        if not m:
            continue
        got = parse_left(m.group(2))
        if got:
            out[got[0]] = got[1]
    return out


def from_man(command):
    """Options as the man page's block of command tags them (.TP lines)."""
    with open(ROOT + '/' + COMMANDS[command]) as f:
        text = f.read()
    m = re.search(r'(?ms)^\.\\" BEGIN OPTIONS %s\n(.*?)^\.\\" END OPTIONS %s$' %
                  (re.escape(command), re.escape(command)), text)
    if not m:
        return None
    out, lines = {}, m.group(1).splitlines()
    for i, line in enumerate(lines[:-1]):
        if line == '.TP':
            tag = re.sub(r'\\f[BIRP]', '', lines[i + 1]).replace('\\-', '-')
            got = parse_left(tag)
            out[got[0] if got else tag] = got[1] if got else ('?', '?')
    return out


def from_bash(command):
    """Options as bash reads the completion's array of command."""
    var = '_rocetop_opts_' + re.sub('[ -]', '_', command)
    r = subprocess.run(['bash', '-c', 'source "$1"; declare -n a=$2; for l in "${a[@]}"; do '
                        'printf "%s\\n" "$l"; done', 'x', BASH, var], capture_output=True, text=True)
    out = {}
    for line in r.stdout.splitlines():
        w = line.split()
        out[w[1]] = (w[0], w[2], ' '.join(w[3:]))
    return out if out else None


def compare(name, want, got):
    if got is None:
        return [f'{name}: no list at all']
    bad = []
    for k in sorted(set(want) | set(got)):
        if k not in got:
            bad.append(f'{name} lacks {k}')
        elif k not in want:
            bad.append(f'{name} has {k}, which the table has not')
        elif want[k] != got[k]:
            bad.append(f'{name} says {k} {got[k]}, the table {want[k]}')
    return bad


def main():
    drift = 0
    for command in COMMANDS:
        t = table(command)
        want = {k: v[:2] for k, v in t.items()}
        bash = from_bash(command)
        problems = (compare('--help', want, from_help(command)) +
                    compare('the man page', want, from_man(command)) +
                    compare('the completion', t, bash))
        for p in problems:
            print(f'DRIFT {command}: {p}')
        if not problems:
            print(f'ok {command}: {len(t)} options in --help, the man page and the completion')
        drift |= bool(problems)
    return 1 if drift else 0


if __name__ == '__main__':
    sys.exit(main())
