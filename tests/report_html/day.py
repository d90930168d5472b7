#!/usr/bin/env python3
# A day of RoCE traffic for rocetop report --html's size and its buckets:
# rocetop-gen's frames (a capture of any scenario) laid out again, PER of
# them in each second of SECONDS, in their order and round again, cut to 96
# bytes; in the second SPIKE_AT the first frame is the first CE-marked one,
# SPIKE + 1 times: a one-second spike that must survive the page's buckets.
# The frames' kinds are read from their bytes, and those counts checked
# against the generator's tally of the capture.
#
#   day.py GEN_PCAP TALLY_DIR OUT.pcap SECONDS PER SPIKE_AT SPIKE
#   prints: frames ce cnp spike (what the file holds; CE in the second SPIKE_AT)
import os, struct, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import pcap  # noqa: E402
from rtlib.outputs import kv  # noqa: E402

T0 = 1_700_000_000


def kind(f):
    if struct.unpack('>H', f[12:14])[0] != 0x0800 or f[23] != 17:
        return 'other'
    bth = 14 + (f[14] & 15) * 4 + 8
    op = f[bth]
    if op == 0x81:
        return 'cnp'
    if op in (0x11,):
        return 'ack'
    return 'ce' if f[15] & 3 == 3 else 'data'


def main():
    gen, tally_dir, out, secs, per, spike_at, spike = sys.argv[1:8]
    secs, per, spike_at, spike = int(secs), int(per), int(spike_at), int(spike)
    hdr, frames = pcap.read(gen)
    frames = [f for f, _ in frames]
    tally = kv(os.path.join(tally_dir, 'summary.txt'))
    kinds = [kind(f) for f in frames]
    assert kinds.count('cnp') == int(tally['frames_cnp']), "CNPs: bytes and tally disagree"
    assert kinds.count('ce') == int(tally['frames_data_ce']), "CE: bytes and tally disagree"
    ce_frame = kinds.index('ce')
    n = ce = cnp = spike_ce = 0
    with open(out, 'wb') as o:
        o.write(hdr)
        for s in range(secs):
            for j in range(per):
                i = (s * per + j) % len(frames)
                f = frames[i]
                copies = 1
                if s == spike_at and j == 0:
                    f, i, copies = frames[ce_frame], ce_frame, 1 + spike
                rec = struct.pack('<IIII', T0 + s, 1000 + j * (990000 // per), min(len(f), 96), len(f)) + f[:96]
                o.write(rec * copies)
                n += copies
                ce += copies if kinds[i] == 'ce' else 0
                spike_ce += copies if kinds[i] == 'ce' and s == spike_at else 0
                cnp += copies if kinds[i] == 'cnp' else 0
    print(n, ce, cnp, spike_ce)


if __name__ == "__main__":
    main()
