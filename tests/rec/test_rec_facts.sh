#!/usr/bin/env bash
# Recordings and CSV directories are self-describing: a live run on
# a veth with a distinctive MTU records; its header names the rocetop version
# (the Makefile's), the kernel (uname) and the options given, and report
# --json and meta.csv give the interface's speed (ethtool's), where it came
# from and its MTU (ip link's). A recording written before these facts
# (tests/fixtures/rec, main at e7a5c90) still opens; its missing speed is said
# once on stderr, naming --link-speed, and --link-speed gives it.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
here=tests/rec
old=tests/fixtures/rec/main-e7a5c90-rtoldy-10G.rtr
id=$RT_ID
A=rtm${id}a B=rtm${id}b IFA=rtm${id}x IFB=rtm${id}y
pids=()
fails=0
fail() { echo "FAIL rec_facts $1"; fails=$((fails + 1)); }
pass() { echo "PASS rec_facts $1"; }

rt_need_root rec_facts "needs root for namespaces and BPF"
rt_need_cmd rec_facts ethtool
rt_tmpdir tmp
rt_on_exit 'for p in "${pids[@]}"; do kill -9 "$p"; done; wait'

# ---- an old recording: opens, says its missing speed once ----
"$ROCETOP" report "$old" --json >"$tmp/old.json" 2>"$tmp/old.err" || fail "old recording: report exited $?: $(cat "$tmp/old.err")"
n=$(grep -c "no link speed is known for rtoldy.*--link-speed" "$tmp/old.err")
[ "$n" = 1 ] && pass "old recording: the missing speed said once" || fail "old recording: said $n times: $(cat "$tmp/old.err")"
"$ROCETOP" -r "$old" --batch -d 0.2 >/dev/null 2>"$tmp/oldb.err" || fail "old recording: -r --batch exited $?"
n=$(grep -c "no link speed is known for rtoldy.*--link-speed" "$tmp/oldb.err")
[ "$n" = 1 ] && pass "old recording -r --batch: said once" || fail "old recording -r --batch: said $n times"
"$ROCETOP" report "$old" --json --link-speed 10G >"$tmp/old10.json" 2>"$tmp/old10.err" || fail "old recording --link-speed: exited $?"
"$PY" - "$tmp/old.json" "$tmp/old10.json" <<'PYEOF' || fails=$((fails + 1))
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def prio3(r):
    return [p for p in r["pfc"]["priorities"] if p["prio"] == "3"][0]
ok = True
# the fixture's tally: 45 frames of 30000 quanta (and 5 XON) on priority 3
for name, r, mbps in (("assumed", a, 100000), ("--link-speed 10G", b, 10000)):
    p = prio3(r)
    want = 1350000 * 512 / (mbps * 1e6)
    # no paused time measured in it: the quanta's time stands for it, said so
    if p["quanta"] != 1350000 or abs(p["seconds"] - want) > 1e-9 or r["pfc"].get("paused_estimated") != 1:
        print(f"FAIL rec_facts old recording {name}: {p['quanta']} quanta, {p['seconds']} s, want {want}")
        ok = False
ifs = a["recorded"]["interfaces"]
if [i["ifname"] for i in ifs] != ["rtoldy"] or ifs[0]["link_speed_mbps"] != 0 or ifs[0]["mtu"] != 0:
    print(f"FAIL rec_facts old recording: interfaces {ifs}, want rtoldy with nothing recorded")
    ok = False
if ok:
    print("PASS rec_facts old recording: opens, 100G assumed, --link-speed 10G gives 10G")
sys.exit(0 if ok else 1)
PYEOF

# ---- a new recording ----
rt_netns "$A" "$B" && rt_veth "$A" "$IFA" "$B" "$IFB" && rt_no_ipv6 "$A" "$B" &&
	ip -n "$B" link set "$IFB" mtu 4321 ||
	{ echo "FAIL rec_facts: cannot build the namespaces"; exit 1; }
mbps=$(ip netns exec "$B" ethtool "$IFB" 2>/dev/null | sed -n 's/^\s*Speed: \([0-9]*\)Mb\/s/\1/p')
[ -n "$mbps" ] || rt_skip rec_facts "this kernel's veth says no speed"
mtu=$(ip -n "$B" -o link show "$IFB" | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
version=$(sed -n 's/^VERSION *:= *//p' Makefile)
kernel="$(uname -s) $(uname -r) $(uname -m)"
opts="-i $IFB -w $tmp/new.rtr --csv $tmp/csv -D -d 0.2 --hostname facts$id"
# shellcheck disable=SC2086
ip netns exec "$B" "$ROCETOP" $opts 2>"$tmp/new.err" &
rt=$!; pids+=("$rt")
for _ in $(seq 100); do [ -s "$tmp/csv/flows.csv" ] && break; sleep 0.1; done
sleep 0.5
kill -INT "$rt"; wait "$rt" || fail "live: rocetop exited $?: $(cat "$tmp/new.err")"
head -c 8192 "$tmp/new.rtr" | tr -c '[:print:]\n' '.' >"$tmp/hdr.txt"
for want in "host facts$id" "rocetop $version" "kernel $kernel" "options $opts"; do
	grep -qxF "$want" "$tmp/hdr.txt" && pass "header: $want" || fail "header: no line '$want'"
done
"$ROCETOP" report "$tmp/new.rtr" --json >"$tmp/new.json" 2>"$tmp/newr.err" || fail "report of the new recording exited $?"
grep -q "no link speed" "$tmp/newr.err" && fail "report: says a recorded speed is unknown: $(cat "$tmp/newr.err")"
"$PY" - "$tmp/new.json" "$tmp/csv/meta.csv" "$IFB" "$mbps" "$mtu" "$version" "$kernel" "$opts" "facts$id" <<'PYEOF' || fails=$((fails + 1))
import csv, json, sys
rep, meta, ifb, mbps, mtu, version, kernel, opts, host = sys.argv[1:10]
mbps, mtu = int(mbps), int(mtu)
ok = True
def bad(msg):
    global ok
    print("FAIL rec_facts " + msg)
    ok = False
r = json.load(open(rep))
rec = r["recorded"]
if (rec["rocetop"], rec["kernel"], rec["options"]) != (version, kernel, opts):
    bad(f"report recorded {rec}, want {version!r} {kernel!r} {opts!r}")
i = [x for x in rec["interfaces"] if x["ifname"] == ifb]
if not i or (i[0]["link_speed_mbps"], i[0]["link_speed_from"], i[0]["mtu"]) != (mbps, "ethtool", mtu):
    bad(f"report interface {i}, want {mbps} Mb/s from ethtool, MTU {mtu}")
rows = [x for x in csv.DictReader(open(meta)) if x["ifname"] == ifb]
if len(rows) != 1:
    bad(f"meta.csv: {len(rows)} rows for {ifb}")
else:
    m = rows[0]
    # a text cell that starts with -, =, + or @ is written behind a ' (csv.c:
    # a spreadsheet must not take it for a formula): the options start with -i
    want = {"link_speed_mbps": str(mbps), "link_speed_from": "ethtool", "mtu": str(mtu), "pfc_enabled": "",
            "host": host, "kernel": kernel, "rocetop": version,
            "options": "'" + opts if opts[:1] in "-=+@" else opts}
    for k, v in want.items():
        if m[k] != v:
            bad(f"meta.csv {k} = {m[k]!r}, want {v!r}")
if ok:
    print("PASS rec_facts report and meta.csv: speed, its source, MTU, host, kernel, version, options")
sys.exit(0 if ok else 1)
PYEOF
exit $fails
