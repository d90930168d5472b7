"""rocetop's output files (--csv's CSV files, --batch --json lines) and
rocetop-gen's tally files, read back for comparison."""
import csv
import json
from collections import defaultdict


def rows(path):
    """A CSV file's rows as dicts."""
    with open(path) as f:
        return list(csv.DictReader(f))


def columns(path):
    """A CSV file's header: its column names ([] for an empty file)."""
    with open(path) as f:
        return next(csv.reader(f), [])


def sums(path, keyf, cols, keep=lambda r: True):
    """The integer columns cols of a CSV file summed per keyf(row), over the
    rows keep(row) accepts."""
    out = defaultdict(lambda: {c: 0 for c in cols})
    for r in rows(path):
        if keep(r):
            for c in cols:
                out[keyf(r)][c] += int(r[c])
    return dict(out)


def kv(path):
    """A file of "KEY VALUE" lines (rocetop-gen's summary.txt, sflow.txt)."""
    with open(path) as f:
        return {k: v.strip() for k, v in (line.split(None, 1) for line in f if " " in line.strip())}


def json_lines(path):
    """--batch --json output: one object per line."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]
