#!/usr/bin/env bash
# bench/fleet.sh BUILD: the exporter at the scale of a fleet.
#  1. Series per host: one `rocetop -r --listen` replaying a capture of 1k,
#     10k and 100k flows (bench/pcap_gen), scraped once every flow is in its
#     table (rocetop_flows): series, bytes and seconds of /metrics, the
#     largest metric families. Target: <= 5,000 series whatever the flow count.
#  2. One real Prometheus (Debian's) scraping RT_FLEET_N (200) exporters,
#     each replaying the same recording (-r, paced at capture speed by
#     --listen) on its own loopback port, every 15 s, until every target was
#     scraped RT_FLEET_SCRAPES (3) times: the scrape duration's p50/p99/max
#     from Prometheus's own scrape_duration_seconds (its HTTP API), and the
#     exporters' CPU per scrape from /proc (their CPU while scraped, less
#     their CPU over as long a time unscraped, over the scrapes).
# Bounded: about 2 minutes, and the exporters' summed RSS is printed. The
# load average is printed too: other work on the machine inflates the figures.
# The fleet's exporters hold RT_FLEET_FLOWS (10) flows each: at 1000 (11,213
# series each, part 1) 200 exporters and Prometheus overloaded a 2-core
# machine (load average 230, scrapes up to 69 s, exporters gone).
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.."
RT=$PWD/$BUILD/rocetop
GEN=$PWD/$BUILD/bench/pcap_gen
N=${RT_FLEET_N:-200}
FLOWS=${RT_FLEET_FLOWS:-10}
SCRAPES=${RT_FLEET_SCRAPES:-3}
PY=/usr/bin/python3
D=$(mktemp -d /tmp/rto-fleet.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT
for b in "$RT" "$GEN"; do
	[ -x "$b" ] || { echo "bench/fleet.sh: $b is missing; run make BUILD=$BUILD" >&2; exit 1; }
done
command -v prometheus >/dev/null || { echo "bench/fleet.sh: no prometheus (make deps)" >&2; exit 1; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# free_ports K: K loopback TCP ports the kernel picks, one a line
free_ports() {
	$PY -c 'import socket, sys
s = [socket.socket() for _ in range(int(sys.argv[1]))]
for x in s: x.bind(("127.0.0.1", 0))
print("\n".join(str(x.getsockname()[1]) for x in s))' "$1"
}

# --- 1. series per host
echo "series per host (one exporter, -r of bench/pcap_gen's capture, --flow-timeout 0; load $(load)):"
printf '  %8s %9s %11s %9s  %s\n' flows series bytes seconds "largest families"
for nf in 1000 10000 100000; do
	# Every flow in the first second of capture, which a file with --listen
	# shows at once; the next interval is 20 s away (--speed 0.05).
	"$GEN" "$D/f.pcap" $((nf * 3)) "$nf" 3 >/dev/null || exit 1
	port=$(free_ports 1)
	"$RT" -r "$D/f.pcap" --listen "127.0.0.1:$port" -D -q --speed 0.05 --flow-timeout 0 \
		2>"$D/one.err" &
	pid=$!
	pids+=($pid)
	got=0
	for _ in $(seq 60); do
		stat=$(curl -s -o "$D/m.txt" -w '%{time_total} %{size_download}' "http://127.0.0.1:$port/metrics")
		got=$(awk '/^rocetop_flows /{ print $2 }' "$D/m.txt" 2>/dev/null)
		[ "${got:-0}" -ge "$nf" ] && break
		sleep 0.5
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ "${got:-0}" -lt "$nf" ]; then
		echo "bench/fleet.sh: the exporter never held $nf flows ($got): $(head -2 "$D/one.err")" >&2
		exit 1
	fi
	series=$(grep -vc '^#' "$D/m.txt")
	fam=$(grep -v '^#' "$D/m.txt" | sed 's/[{ ].*//' | sort | uniq -c | sort -rn | head -3 |
	      awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1 }')
	printf '  %8d %9d %11d %9s  %s\n' "$nf" "$series" "${stat#* }" "${stat% *}" "$fam"
done
echo "  target: <= 5000 series whatever the flow count"
rm -f "$D/f.pcap"

# --- 2. Prometheus scraping N exporters
"$GEN" "$D/fleet.pcap" $((FLOWS * 600)) "$FLOWS" 600 >/dev/null || exit 1
"$RT" -r "$D/fleet.pcap" -w "$D/fleet.rtr" -D -q --flow-timeout 0 2>"$D/rec.err" ||
	{ echo "bench/fleet.sh: recording failed: $(head -2 "$D/rec.err")" >&2; exit 1; }
rm -f "$D/fleet.pcap"
mapfile -t ports < <(free_ports $((N + 1)))
pport=${ports[$N]}
expids=()
for ((i = 0; i < N; i++)); do
	"$RT" -r "$D/fleet.rtr" --listen "127.0.0.1:${ports[$i]}" -D -q 2>>"$D/ex.err" &
	expids+=($!)
	pids+=($!)
done
# every exporter answers before anything is measured
for ((i = 0; i < N; i++)); do
	for _ in $(seq 100); do
		curl -s -o /dev/null "http://127.0.0.1:${ports[$i]}/metrics" && break
		sleep 0.1
	done
done
echo "${expids[*]}" >"$D/expids"
each=$(curl -s "http://127.0.0.1:${ports[0]}/metrics" | grep -vc '^#')
cpu() {	# the exporters' CPU seconds so far, their summed RSS in MB, how many run
	$PY - "$D/expids" <<'EOF'
import os, sys
tck = os.sysconf("SC_CLK_TCK")
cpu = rss = n = 0
for p in open(sys.argv[1]).read().split():
    try:
        f = open("/proc/%s/stat" % p).read().rsplit(")", 1)[1].split()
        if f[0] == "Z":
            continue
        cpu += int(f[11]) + int(f[12])
        rss += int(f[21]) * os.sysconf("SC_PAGE_SIZE")
        n += 1
    except OSError:
        pass
print("%.2f %.0f %d" % (cpu / tck, rss / 1e6, n))
EOF
}
now() { date +%s.%N; }
alive=$(for p in "${expids[@]}"; do kill -0 "$p" 2>/dev/null && echo; done | wc -l)
# unscraped: what replaying costs them
t0=$(now); read -r c0 _ <<<"$(cpu)"
sleep 15
t1=$(now); read -r c1 rss _ <<<"$(cpu)"
{
	echo "global: { scrape_interval: 15s, scrape_timeout: 10s, evaluation_interval: 15s }"
	echo "scrape_configs:"
	echo "  - job_name: rocetop"
	echo "    static_configs:"
	echo "      - targets:"
	for ((i = 0; i < N; i++)); do echo "        - 127.0.0.1:${ports[$i]}"; done
} >"$D/prometheus.yml"
prometheus --config.file="$D/prometheus.yml" --storage.tsdb.path="$D/tsdb" \
	--web.listen-address="127.0.0.1:$pport" --log.level=warn >"$D/prom.log" 2>&1 &
ppid=$!
pids+=($ppid)
t2=$(now); read -r c2 _ <<<"$(cpu)"
api() { curl -s --get "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1"; }
val() { $PY -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else 0)' 2>/dev/null || echo 0; }
ok=0
for _ in $(seq 120); do
	sleep 1
	m=$(api "min(count_over_time(scrape_duration_seconds{job=\"rocetop\"}[10m]))" | val)
	c=$(api "count(count_over_time(scrape_duration_seconds{job=\"rocetop\"}[10m]))" | val)
	if [ "${c%.*}" = "$N" ] && [ "${m%.*}" -ge "$SCRAPES" ] 2>/dev/null; then ok=1; break; fi
done
t3=$(now); read -r c3 _ alive3 <<<"$(cpu)"
[ $ok = 1 ] || echo "bench/fleet.sh: after 120 s not every target was scraped $SCRAPES times (min ${m:-0}, targets ${c:-0})" >&2
api "scrape_duration_seconds{job=\"rocetop\"}[10m]" >"$D/durations.json"
api "up{job=\"rocetop\"}" >"$D/up.json"
api "prometheus_target_interval_length_seconds{interval=\"15s\",quantile=\"0.99\"}" >"$D/ivl.json"
prss=$(awk '/VmRSS/ { print int($2 / 1024) }' "/proc/$ppid/status" 2>/dev/null)
[ "$alive3" = "$N" ] || echo "bench/fleet.sh: only $alive3 of $N exporters still ran at the end: the CPU figures below are wrong" >&2
$PY - "$D" "$N" "$alive" "$c0 $c1 $t0 $t1" "$c2 $c3 $t2 $t3" "$rss" "${prss:-?}" "$FLOWS" "$each" <<'EOF'
import json, sys
d, n, alive = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c0, c1, t0, t1 = map(float, sys.argv[4].split())
c2, c3, t2, t3 = map(float, sys.argv[5].split())
res = json.load(open(d + "/durations.json"))["data"]["result"]
v = sorted(float(x[1]) for r in res for x in r["values"])
up = sum(float(r["value"][1]) for r in json.load(open(d + "/up.json"))["data"]["result"])
ivl = json.load(open(d + "/ivl.json"))["data"]["result"]
def q(p):
    return v[min(len(v) - 1, int(p * len(v)))] * 1000 if v else float("nan")
base = (c1 - c0) / (t1 - t0)
busy = c3 - c2
print("Prometheus 2 scraping %d exporters (%d alive at the start; each -r of a recording of %s flows, "
      "--listen, paced at capture speed) every 15 s:" % (n, alive, sys.argv[8]))
print("  targets up %d of %d, %s series each; %d scrapes in %.0f s" % (up, n, sys.argv[9], len(v), t3 - t2))
print("  scrape duration (scrape_duration_seconds): p50 %.1f ms, p99 %.1f ms, max %.1f ms"
      % (q(0.5), q(0.99), v[-1] * 1000 if v else float("nan")))
if ivl:
    print("  Prometheus's own interval p99: %.2f s (15 s asked)" % float(ivl[0]["value"][1]))
if v:
    print("  exporters' CPU: %.3f s/s replaying unscraped, %.3f s/s while scraped; per scrape %.2f ms "
          "(all of it: %.2f ms; /proc counts in 10 ms ticks a process)" % (base, busy / (t3 - t2), (busy - base * (t3 - t2)) / len(v) * 1000,
                                    busy / len(v) * 1000))
print("  memory: exporters' RSS %s MB together (%.1f MB each), Prometheus %s MB"
      % (sys.argv[6], float(sys.argv[6]) / max(alive, 1), sys.argv[7]))
EOF
echo "  load average at the end: $(load) (2 cores shared)"
