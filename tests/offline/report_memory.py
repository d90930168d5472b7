#!/usr/bin/env python3
# A long capture for rocetop report's memory, and its
# expected figures, from rocetop-gen's fixed cycle and the generator's tally.
#
#   report_memory.py make GEN_PCAP TALLY_DIR OUT.pcap CYCLES OUT.json
#       one frame per millisecond of capture time: the cycle's data, CNP and
#       ACK frames (its NAKs, RNR NAK and pauses are left out, so no finding
#       opens and closes every few intervals), CYCLES times, cut to 96 bytes
#       (the wire length kept). Two late moments get extra CE copies of the
#       cycle's first CE frame at the same time: the highest CE rates of the
#       file are near its end, not its start.
#   report_memory.py check OUT.json REPORT.json
#   report_memory.py rss OUT -- CMD...   run CMD (stdout to OUT), print its peak RSS in KB
#   report_memory.py usage OUT -- CMD... the same, and its user + system CPU seconds
import json, os, resource, struct, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import pcap  # noqa: E402
from rtlib.outputs import kv  # noqa: E402

T0_MS = 1_700_000_000_000


def kind(f):
    """The frame's kind, read from its bytes (IPv4, untagged, as the fixed cycle sends)."""
    et = struct.unpack('>H', f[12:14])[0]
    if et != 0x0800:
        return 'other', 0
    ecn = f[15] & 3
    bth = 14 + (f[14] & 15) * 4 + 8
    op = f[bth]
    if op == 0x81:
        return 'cnp', 0
    if op == 0x11:
        syn = f[bth + 12]
        return ('ack' if (syn >> 5) & 3 == 0 else 'nak'), 0
    return 'data', int(ecn == 3)


def make(gen_pcap, tally_dir, out, cycles, out_json):
    hdr, frames = pcap.read(gen_pcap)
    tally = kv(os.path.join(tally_dir, 'summary.txt'))
    keep = [(f, o) for f, o in frames if kind(f)[0] in ('data', 'cnp', 'ack')]
    kinds = [kind(f) for f, _ in keep]
    # The bytes' reading and the generator's tally agree on what a cycle holds.
    got = {'frames_data': sum(k == 'data' for k, _ in kinds), 'frames_data_ce': sum(c for _, c in kinds),
           'frames_cnp': sum(k == 'cnp' for k, _ in kinds), 'frames_ack': sum(k == 'ack' for k, _ in kinds)}
    for k, v in got.items():
        if int(tally[k]) != v:
            sys.exit("the cycle holds %d %s, the tally says %s" % (v, k, tally[k]))
    ce_first = next(i for i, (k, c) in enumerate(kinds) if c)
    n = len(keep)
    extra = {(cycles - 3) * n + ce_first: 3, (cycles // 2) * n + ce_first: 2}   # frame index -> extra copies
    ce_moments = []   # (time of the interval's end in ms, CE in it)
    with open(out, 'wb') as o:
        o.write(hdr)
        for c in range(cycles):
            for j, (f, orig) in enumerate(keep):
                i = c * n + j
                t = T0_MS + i
                rec = struct.pack('<IIII', t // 1000, (t % 1000) * 1000, min(len(f), 96), orig) + f[:96]
                copies = 1 + extra.get(i, 0)
                o.write(rec * copies)
                if kinds[j][1]:
                    ce_moments.append((t + 1, copies))
    ce_moments.sort(key=lambda m: (-m[1], m[0]))
    want = {
        'intervals': cycles * n,
        'pkts': cycles * n + sum(extra.values()),
        'ce': cycles * got['frames_data_ce'] + sum(extra.values()),
        'cnp': cycles * got['frames_cnp'],
        'ack': cycles * got['frames_ack'],
        'nak': 0, 'rnr_nak': 0,
        'ce_peaks': ce_moments[:10],
    }
    json.dump(want, open(out_json, 'w'))


def check(want_json, report_json):
    w, r = json.load(open(want_json)), json.load(open(report_json))
    bad = []
    if r['intervals'] != w['intervals']:
        bad.append('intervals %d, want %d' % (r['intervals'], w['intervals']))
    for k in ('pkts', 'ce', 'cnp', 'ack', 'nak', 'rnr_nak'):
        if r['totals'][k] != w[k]:
            bad.append('%s %d, want %d' % (k, r['totals'][k], w[k]))
    got = [(round(m['time'] * 1000), m['ce']) for m in r['moments']['ce_peaks']]
    want = [tuple(m) for m in w['ce_peaks']]
    if got != want:
        bad.append('CE moments %s, want %s' % (got[:4], want[:4]))
    if any(abs(m['seconds'] - 0.001) > 1e-9 for m in r['moments']['ce_peaks']):
        bad.append('a CE moment is not 1 ms long')
    print('; '.join(bad))


def rss(cmd, out, cpu=False):
    with open(out, 'wb') as f:
        p = subprocess.Popen(cmd, stdout=f)
        _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit('%s exited with %d' % (cmd[0], os.waitstatus_to_exitcode(status)))
    if cpu:
        print(ru.ru_maxrss, '%.3f' % (ru.ru_utime + ru.ru_stime))
    else:
        print(ru.ru_maxrss)


if __name__ == '__main__':
    a = sys.argv
    if a[1] == 'make':
        make(a[2], a[3], a[4], int(a[5]), a[6])
    elif a[1] == 'check':
        check(a[2], a[3])
    elif a[1] == 'rss':
        rss(a[4:], a[2])
    elif a[1] == 'usage':     # peak RSS in KB and user + system CPU seconds
        rss(a[4:], a[2], True)
