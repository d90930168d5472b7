"""A classic pcap file's frames, read without a dissector (rocetop-gen writes
microsecond pcap); classic pcap and pcapng files written from their
specifications."""
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


# ---- writing (from the formats' specifications, never with rocetop) ----

def header(linktype=1, snaplen=65535, nano=False):
    """A classic pcap file's 24-byte header (little-endian): microsecond
    timestamps, or nanosecond ones with nano."""
    return struct.pack("<IHHiIII", 0xa1b23c4d if nano else 0xa1b2c3d4, 2, 4, 0, 0, snaplen, linktype)


def record(sec, usec, data, origlen=None):
    """A classic pcap record: its 16-byte header (usec: the fraction of the
    second in the file's unit; origlen: the wire length claimed, by default
    the frame's own), then the frame."""
    return struct.pack("<IIII", sec, usec, len(data), len(data) if origlen is None else origlen) + data


def ng_block(btype, body):
    """A pcapng block of type btype: its lengths around body padded to 4."""
    pad = (-len(body)) % 4
    total = 12 + len(body) + pad
    return struct.pack("<II", btype, total) + body + b"\0" * pad + struct.pack("<I", total)


def ng_shb():
    """pcapng's section header block (little-endian, section length unknown)."""
    return ng_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))


def ng_idb(options=b""):
    """An Ethernet interface description block (microsecond timestamps
    unless options say otherwise)."""
    return ng_block(1, struct.pack("<HHI", 1, 0, 65535) + options)


def ng_epb(ts, data):
    """An enhanced packet block of interface 0, timestamp ts in the
    interface's units."""
    body = struct.pack("<IIIII", 0, ts >> 32, ts & 0xffffffff, len(data), len(data))
    body += data + b"\0" * ((-len(data)) % 4)
    return ng_block(6, body)
