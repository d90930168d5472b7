#!/usr/bin/env python3
"""The exporter's figures on itself against the kernel's: /proc/PID/stat
read here (CPU, resident memory, start time), /proc/PID/fd counted here, and
bpftool's run_cnt of each BPF program. Usage: check_self.py URL PID FRAMES
(FRAMES: frames sent to the watched interface, each one XDP run)."""
import json
import os
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.check import Checker  # noqa: E402

url, pid, frames = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ck = Checker()


def ok(cond, msg):
    ck.ok("prom self", cond, msg)


def scrape():
    vals = {}
    for line in urllib.request.urlopen(url, timeout=5).read().decode().splitlines():
        if line and not line.startswith("#"):
            name, v = line.rsplit(" ", 1)
            vals[name] = float(v)
    return vals


def stat():
    raw = open(f"/proc/{pid}/stat").read()
    f = raw[raw.rindex(")") + 2:].split()
    tck = os.sysconf("SC_CLK_TCK")
    btime = next(int(l.split()[1]) for l in open("/proc/stat") if l.startswith("btime "))
    return {"cpu": (int(f[11]) + int(f[12])) / tck, "start": btime + int(f[19]) / tck,
            "rss": int(f[21]) * os.sysconf("SC_PAGE_SIZE")}


interval = 0.5
before = stat()
time.sleep(2 * interval)
m = scrape()
after = stat()
ok(before["cpu"] <= m["process_cpu_seconds_total"] <= after["cpu"],
   f"process_cpu_seconds_total {m['process_cpu_seconds_total']} between /proc's {before['cpu']} and {after['cpu']}")
ok(abs(m["process_start_time_seconds"] - before["start"]) < 1e-3,
   f"process_start_time_seconds {m['process_start_time_seconds']} = btime + starttime/CLK_TCK {before['start']}")
lo, hi = min(before["rss"], after["rss"]), max(before["rss"], after["rss"])
ok(lo * 0.9 <= m["process_resident_memory_bytes"] <= hi * 1.1,
   f"process_resident_memory_bytes {m['process_resident_memory_bytes']:.0f} within 10% of /proc's {lo}..{hi}")

# Open descriptors: counted here with no scrape open; a render that happened
# while one was open counts its socket too, so try again a few times.
for attempt in range(5):
    n = len(os.listdir(f"/proc/{pid}/fd"))
    time.sleep(2 * interval)
    got = scrape()["process_open_fds"]
    if got == n:
        break
ok(got == n, f"process_open_fds {got:.0f} = entries of /proc/{pid}/fd {n}")

# The BPF programs: run counts equal bpftool's, the XDP one the frames sent.
progs = {}
for k, v in m.items():
    if k.startswith("rocetop_bpf_prog_runs_total{"):
        labels = dict(p.split("=", 1) for p in k[k.index("{") + 1:-1].split(","))
        progs[int(labels["id"].strip('"'))] = labels["prog"].strip('"')
ok(m.get("rocetop_bpf_stats_enabled") == 1.0, "rocetop_bpf_stats_enabled 1 while the sysctl is on")
ok(len(progs) >= 2, f"the run counts of {len(progs)} BPF programs: {sorted(progs.values())}")
xdp_runs = None
for pid_, name in progs.items():
    b = json.loads(subprocess.run(["bpftool", "-j", "prog", "show", "id", str(pid_)],
                                  capture_output=True, text=True, check=True).stdout)
    runs = m[f'rocetop_bpf_prog_runs_total{{prog="{name}",id="{pid_}"}}']
    secs = m[f'rocetop_bpf_prog_run_seconds_total{{prog="{name}",id="{pid_}"}}']
    ok(runs == b.get("run_cnt", 0) and abs(secs - b.get("run_time_ns", 0) / 1e9) < 1e-9,
       f"{name} (id {pid_}): runs {runs:.0f}, {secs} s = bpftool's run_cnt {b.get('run_cnt', 0)}, "
       f"run_time_ns {b.get('run_time_ns', 0)}")
    if b["type"] == "xdp":
        xdp_runs = runs
ok(xdp_runs == frames, f"the XDP program ran {xdp_runs} times for the {frames} frames sent")
ck.done()
