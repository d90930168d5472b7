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


def json_lines(path, bad=None):
    """--batch --json output: one object per line. With bad (a list), a line
    that is not a JSON object is said there ("line N is not ...") and left
    out, instead of raising."""
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if bad is None:
                if line.strip():
                    out.append(json.loads(line))
                continue
            try:
                d = json.loads(line)
            except ValueError as e:
                bad.append("line %d is not JSON: %s" % (n, e))
                continue
            if not isinstance(d, dict):
                bad.append("line %d is not an object" % n)
                continue
            out.append(d)
    return out


def by_time(path):
    """A CSV file's rows grouped by their time column (to the microsecond)."""
    out = defaultdict(list)
    for r in rows(path):
        out[round(float(r["time"]), 6)].append(r)
    return out


def walk(o):
    """Every dict within a JSON document (o itself first), depth first."""
    if isinstance(o, dict):
        yield o
        for v in o.values():
            yield from walk(v)
    elif isinstance(o, list):
        for v in o:
            yield from walk(v)
