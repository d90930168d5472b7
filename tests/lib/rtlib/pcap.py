"""A classic pcap file's frames, read without a dissector (rocetop-gen writes
microsecond pcap)."""
import struct


def read(path):
    """The file's 24-byte header and its records as (frame bytes, original length)."""
    with open(path, "rb") as f:
        b = f.read()
    assert struct.unpack("<I", b[:4])[0] == 0xa1b2c3d4, "rocetop-gen writes microsecond pcap"
    out, off = [], 24
    while off < len(b):
        _, _, incl, orig = struct.unpack("<IIII", b[off:off + 16])
        out.append((b[off + 16:off + 16 + incl], orig))
        off += 16 + incl
    return b[:24], out
