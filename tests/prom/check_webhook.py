#!/usr/bin/env python3
"""Waits for an Alertmanager notification in the webhook's file (webhook.py).
Usage: check_webhook.py FILE STATUS ALERTNAME TIMEOUT AFTER LABEL=VALUE...
Exits 0 when a notification of STATUS (firing, resolved) received after the
time AFTER (seconds since the epoch) carries an alert ALERTNAME with every
LABEL=VALUE given, printing its labels; 1 at TIMEOUT."""
import json
import sys
import time

path, status, name, timeout = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
after = float(sys.argv[5])
want = dict(a.split("=", 1) for a in sys.argv[6:])
want["alertname"] = name
end = time.time() + timeout
seen = []
while time.time() < end:
    try:
        lines = open(path).read().splitlines()
    except FileNotFoundError:
        lines = []
    for line in lines:
        when, body = line.split(" ", 1)
        if float(when) < after:
            continue
        msg = json.loads(body)
        for a in msg.get("alerts", []):
            seen.append((a["status"], a["labels"].get("alertname")))
            if a["status"] == status and all(a["labels"].get(k) == v for k, v in want.items()):
                print(" ".join(f"{k}={v}" for k, v in sorted(a["labels"].items())))
                sys.exit(0)
    time.sleep(0.2)
print(f"no {status} {name} with {want} in {timeout:g} s; notifications seen: {sorted(set(seen))}")
sys.exit(1)
