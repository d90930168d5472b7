"""A pause storm made on purpose, with real frames on veths: the programs of
the pause-origin test (tests/lab/test_pause_origin.sh), run in network
namespaces, each writing a JSON log of what it sent and when (time.time(),
the wall clock rocetop's recordings use).

  python3 -m rtlib.pausesw host IF LOG GO --until T [--storm-at T --storm-for S --prio P]
          [--data DST_MAC,SRC_IP,DST_IP,QPN --data-at T --data-for S --pps N]
      A host: from --storm-at it stops draining (sends PFC XOFF on --prio
      out of IF every 10 ms for --storm-for seconds); it also sends one RoCEv2
      flow (RDMA WRITEs) for the report's clocks.
  python3 -m rtlib.pausesw switch PORT,PORT,... LOG GO --until T --prio P --delay D
      A switch that forwards pause upstream: a port that received XOFF on
      --prio within the last 0.25 s is paused downstream; one paused for
      --delay seconds makes the switch pause every other port on --prio
      (XOFF every 10 ms while it stays paused). It decides only from the
      frames it receives; its own frames (PACKET_OUTGOING) are not counted.

Each writes LOG.ready once set up, then waits for the file GO, which holds
the wall-clock time t0 its times (--until, --storm-at, --data-at) count from.

Log: {"tx": {IF: {"first": t, "frames": n}}, "rx": {IF: {"first": t, "frames": n}}}.
"""
import argparse
import json
import os
import select
import socket
import struct
import sys
import time

from .roce import PFC_DST, pfc_body

ETH_P_PAUSE = 0x8808
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
TICK = 0.010		# XOFF refresh and the loop's step
HOLD = 0.25		# a port stays paused this long after its last XOFF (ten
			# ticks and more: a busy machine may hold a program that long)
QUANTA = 0xffff


def mac_of(ifname):
    with open(f"/sys/class/net/{ifname}/address") as f:
        return bytes.fromhex(f.read().strip().replace(":", ""))


def xoff_frame(ifname, prio):
    dst = bytes.fromhex(PFC_DST.replace(":", ""))
    return dst + mac_of(ifname) + struct.pack("!H", ETH_P_PAUSE) + pfc_body({prio: QUANTA})


def open_port(ifname):
    """Every frame of the port: a bridge port's MAC control frames reach only
    the taps of all protocols (the bridge consumes them before the rest)."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((ifname, ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    s.setblocking(False)
    return s


def paused_prios(frame):
    """The priorities a PFC frame pauses with a non-zero time."""
    if len(frame) < 14 + 20 or frame[12:14] != b"\x88\x08" or frame[14:16] != b"\x01\x01":
        return set()
    cev = struct.unpack("!H", frame[16:18])[0]
    times = struct.unpack("!8H", frame[18:34])
    return {c for c in range(8) if cev & (1 << c) and times[c]}


class Log:
    def __init__(self, path):
        self.path, self.d = path, {"tx": {}, "rx": {}}

    def add(self, kind, ifname, t, done=None):
        e = self.d[kind].setdefault(ifname, {"first": t, "frames": 0})
        if done is not None:
            e.setdefault("first_sent", done)
        e["frames"] += 1

    def write(self):
        with open(self.path, "w") as f:
            json.dump(self.d, f)


def send(sock, frame, log, ifname):
    """Send frame, logged with the times before and after the send (a busy
    machine may hold the program between the two)."""
    t = time.time()
    sock.send(frame)
    log.add("tx", ifname, t, time.time())


def roce_frame(ifname, data, psn):
    from scapy.all import Ether  # noqa: F401 (scapy's layers for roce())
    from .roce import roce, write_only
    dmac, sip, dip, qpn = data.split(",")
    smac = ":".join("%02x" % b for b in mac_of(ifname))
    return bytes(roce(sip, dip, write_only(int(qpn), psn, 64), smac=smac, dmac=dmac))


def go(a):
    """Say ready, wait for the start: the times of a made absolute."""
    open(a.log + ".ready", "w").close()
    while not os.path.exists(a.go):
        time.sleep(0.01)
    time.sleep(0.01)
    with open(a.go) as f:
        t0 = float(f.read())
    for k in ("until", "storm_at", "data_at"):
        if getattr(a, k, None) is not None:
            setattr(a, k, t0 + getattr(a, k))


def host(a):
    log = Log(a.log)
    s = open_port(a.ifname)
    d = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    d.bind((a.ifname, 0))
    xoff = xoff_frame(a.ifname, a.prio)
    frames = [roce_frame(a.ifname, a.data, i) for i in range(int(a.data_for * a.pps))] if a.data else []
    go(a)
    nxt_storm, nxt_data, k = a.storm_at or 0, a.data_at or 0, 0
    late = [t for t in (a.storm_at, a.data_at) if t is not None and t < time.time()]
    if late:
        sys.exit(f"pausesw: ready {time.time() - min(late):.3f} s after the time it was to begin: start it earlier")
    while time.time() < a.until:
        now = time.time()
        if a.storm_at is not None and a.storm_at <= now < a.storm_at + a.storm_for and now >= nxt_storm:
            send(s, xoff, log, a.ifname)
            nxt_storm = now + TICK
        if k < len(frames) and now >= nxt_data:
            d.send(frames[k])
            k += 1
            nxt_data = a.data_at + k / a.pps
        drain(s, a.ifname, log, None, a.prio)
        # until the next frame is due (at most a tick): on a busy machine
        # the programs share the CPUs with the recorders
        due = [t for t, on in ((nxt_storm, a.storm_at is not None and time.time() < a.storm_at + a.storm_for),
                               (nxt_data, k < len(frames))) if on]
        select.select([s], [], [], max(0.0, min([time.time() + TICK] + due) - time.time()))
    log.d["data_frames"] = k
    log.write()


def drain(sock, ifname, log, last, prio):
    """Read the PFC frames that arrived on sock: logged; last[ifname] the
    time of the last XOFF on prio."""
    while True:
        try:
            frame, addr = sock.recvfrom(2048)
        except BlockingIOError:
            return
        if addr[2] == PACKET_OUTGOING or prio not in paused_prios(frame):
            continue
        t = time.time()
        log.add("rx", ifname, t)
        if last is not None:
            last[ifname] = t


def switch(a):
    ports = a.ports.split(",")
    log = Log(a.log)
    socks = {p: open_port(p) for p in ports}
    xoff = {p: xoff_frame(p, a.prio) for p in ports}
    go(a)
    last, since, nxt = {}, {}, {p: 0.0 for p in ports}
    while time.time() < a.until:
        select.select(list(socks.values()), [], [], TICK / 2)
        for p, s in socks.items():
            drain(s, p, log, last, a.prio)
        now = time.time()
        for p in ports:		# a run of being paused downstream begins or ends
            if now - last.get(p, -1e9) <= HOLD:
                since.setdefault(p, last[p])
            else:
                since.pop(p, None)
        for q in ports:		# pause q while another port has been paused for --delay
            if now >= nxt[q] and any(p != q and now - t0 >= a.delay for p, t0 in since.items()):
                send(socks[q], xoff[q], log, q)
                nxt[q] = now + TICK
    log.write()


def command(sub, name, where):
    """A subcommand with the arguments both take: WHERE (its port or ports),
    the log, the go file, --until and --prio."""
    p = sub.add_parser(name)
    for arg in (where, "log", "go"):
        p.add_argument(arg)
    p.add_argument("--until", type=float, required=True)
    p.add_argument("--prio", type=int, default=3)
    return p


def main():
    ap = argparse.ArgumentParser(prog="pausesw")
    sub = ap.add_subparsers(dest="cmd", required=True)
    h = command(sub, "host", "ifname")
    h.add_argument("--storm-at", type=float)
    h.add_argument("--storm-for", type=float, default=0)
    h.add_argument("--data")
    h.add_argument("--data-at", type=float)
    h.add_argument("--data-for", type=float, default=0)
    h.add_argument("--pps", type=float, default=100)
    command(sub, "switch", "ports").add_argument("--delay", type=float, required=True)
    a = ap.parse_args()
    host(a) if a.cmd == "host" else switch(a)


if __name__ == "__main__":
    main()
