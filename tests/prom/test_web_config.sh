#!/usr/bin/env bash
# --web-config: TLS by libmicrohttpd's GnuTLS support and basic
# authentication with bcrypt hashes (htpasswd -nbB), checked with curl: no
# credentials 401, a wrong password or user 401, the right ones 200 over
# TLS verified against the test's own CA certificate; clear text to the TLS
# port gets no HTTP answer; a password with a NUL is refused; bcrypt work is
# bounded (a flood of wrong passwords does not delay the right user, 429
# past 4 checks then one a second, SIGTERM prompt). A bad configuration
# (a directory, a FIFO, a cost outside 04-14, a line over 1,023 bytes) is
# one sentence and a non-zero exit.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
ROCETOP=${ROCETOP:-$PWD/$BUILD/rocetop}
PY=${PYTHON:-/usr/bin/python3}
. tests/lib.sh
rt_need_root "web config"
rt_need_cmd "web config" openssl htpasswd curl
id=$RT_ID
A=rtw${id}a B=rtw${id}b IFA=rtw${id}x IFB=rtw${id}y
fails=0
pass() { echo "PASS web config: $*"; }
fail() { echo "FAIL web config: $*"; fails=$((fails + 1)); }
rt_tmpdir tmp
rt_netns "$A" "$B" && rt_veth "$A" "$IFA" "$B" "$IFB" || { fail "cannot build the namespaces"; exit 1; }
inb() { ip netns exec "$B" "$@"; }
freeport() { rt_free_port "$B"; }

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/server.key" -out "$tmp/server.crt" -days 2 \
	-subj /CN=rocetop-test -addext subjectAltName=IP:127.0.0.1 2>/dev/null ||
	{ fail "openssl cannot make a certificate"; exit 1; }
HASH_Y=$(htpasswd -nbB -C 5 alice 'open sesame' | cut -d: -f2-)
HASH_B=$(htpasswd -nbB -C 5 bob 'hunter2' | cut -d: -f2- | sed 's/^\$2y\$/$2b$/')
cat >"$tmp/web.yml" <<YML
# the exporter toolkit's format; the files are relative to this one
tls_server_config:
  cert_file: server.crt
  key_file: "server.key"
basic_auth_users:
  alice: '$HASH_Y'
  bob: $HASH_B   # a \$2b\$ hash
YML

serve() {	# CONFIG: start rocetop on B with --web-config, PORT and rt set
	PORT=$(freeport)
	# not through inb: $! must be rocetop's pid, not a subshell's
	ip netns exec "$B" "$ROCETOP" -i "$IFB" --listen "127.0.0.1:$PORT" --web-config "$1" -D -d 0.5 --no-nic \
		2>"$tmp/rt.err" &
	rt=$!
	rt_kill_on_exit $rt
	for _ in $(seq 200); do
		inb ss -ltnH "sport = :$PORT" | grep -q . && return 0
		kill -0 $rt 2>/dev/null || break
		sleep 0.1
	done
	fail "rocetop did not listen: $(cat "$tmp/rt.err")"; exit 1
}
# A stopped rocetop's BPF link goes a moment after it exits: wait for that.
stop() {
	kill $rt; wait $rt 2>/dev/null
	for _ in $(seq 100); do
		ip -n "$B" link show "$IFB" | grep -q 'prog/xdp' || return 0
		sleep 0.1
	done
}
calc() { awk "BEGIN { print ($1) }"; }
code() { inb curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@"; }

serve "$tmp/web.yml"
url=https://127.0.0.1:$PORT/metrics
ca=(--cacert "$tmp/server.crt")
c1=$(code "${ca[@]}" "$url")
c2=$(code "${ca[@]}" -u 'alice:open sesam' "$url")
c3=$(code "${ca[@]}" -u 'mallory:open sesame' "$url")
c4=$(code "${ca[@]}" -u 'alice:open sesame' "$url")
c5=$(code "${ca[@]}" -u 'bob:hunter2' "$url")
c6=$(code "${ca[@]}" -u 'bob:open sesame' "$url")
if [ "$c1 $c2 $c3 $c4 $c5 $c6" = "401 401 401 200 200 401" ]; then
	pass "over TLS: no credentials 401, wrong password 401, unknown user 401, alice (\$2y\$) 200, bob (\$2b\$) 200, bob with alice's password 401"
else fail "over TLS got $c1 $c2 $c3 $c4 $c5 $c6, want 401 401 401 200 200 401"; fi
hdr=$(inb curl -s -D - -o /dev/null "${ca[@]}" "$url" | tr -d '\r' | grep -i '^www-authenticate:')
[ "$hdr" = 'WWW-Authenticate: Basic realm="rocetop"' ] && pass "401 asks for Basic authentication: $hdr" ||
	fail "the 401's WWW-Authenticate header: '$hdr'"
if inb curl -s "${ca[@]}" -u 'alice:open sesame' "$url" | grep -q '^rocetop_build_info{'; then
	pass "the metrics come over TLS, the certificate verified against the test's own"
else fail "no metrics over TLS"; fi
subj=$(echo | inb openssl s_client -connect "127.0.0.1:$PORT" 2>/dev/null | openssl x509 -noout -subject 2>/dev/null)
[ "$subj" = "subject=CN = rocetop-test" ] && pass "openssl s_client sees the configured certificate ($subj)" ||
	fail "openssl s_client saw '$subj'"
out=$(inb curl -s -o /dev/null -w '%{http_code}' --max-time 5 -u 'alice:open sesame' "http://127.0.0.1:$PORT/metrics")
rc=$?
[ "$out" = 000 ] && [ $rc -ne 0 ] && pass "clear text to the TLS port gets no HTTP answer (curl exit $rc)" ||
	fail "clear text to the TLS port: HTTP $out, curl exit $rc"
stop

# Users without TLS: the same checks in clear text.
printf 'basic_auth_users:\n  alice: %s\n' "$HASH_Y" >"$tmp/auth.yml"
serve "$tmp/auth.yml"
url=http://127.0.0.1:$PORT/metrics
c1=$(code "$url"); c2=$(code -u 'alice:x' "$url"); c3=$(code -u 'alice:open sesame' "$url")
c4=$(code -u 'alice:open sesame' "http://127.0.0.1:$PORT/")
[ "$c1 $c2 $c3 $c4" = "401 401 200 200" ] && pass "basic auth without TLS: 401, 401, 200, and / 200 with credentials" ||
	fail "basic auth without TLS: $c1 $c2 $c3 $c4, want 401 401 200 200"
stop

# A password with a NUL: "open sesame\0junk" is not "open sesame" (401).
printf 'basic_auth_users:\n  alice: %s\n' "$HASH_Y" >"$tmp/auth.yml"
serve "$tmp/auth.yml"
url=http://127.0.0.1:$PORT/metrics
b64=$(printf 'alice:open sesame\0junk' | base64 -w0)
c1=$(code -H "Authorization: Basic $b64" "$url")
c2=$(code -H "Authorization: Basic $(printf 'alice:open sesame' | base64 -w0)" "$url")
[ "$c1 $c2" = "401 200" ] && pass "a Basic password 'open sesame\\0junk' 401, 'open sesame' 200" ||
	fail "a Basic password with a NUL: $c1, the right one $c2, want 401 200"
stop

# bcrypt bounded: 400 wrong passwords at cost 10 sent 40 at a time (one
# Python process: no process per request) do not hold up the right user's
# scrape (verified before: remembered): it must take less than 10 times its
# first, bcrypt-checked scrape (0.5 s at least; the machine may be busy),
# where before it waited behind the flood's queue of bcrypts; an address
# gets RT_WEB_BURST (4) wrong guesses, then one a second (429 past it); and
# SIGTERM during a flood ends the run as quickly.
flood() {	# N THREADS OUT: N wrong passwords, their status codes in OUT
	inb "$PY" - "$PORT" "$1" "$2" >"$3" <<'PY' &
import base64, http.client, sys, threading
port, n, k = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
codes, lock, nxt = [], threading.Lock(), [0]
def run():
    while True:
        with lock:
            i = nxt[0]; nxt[0] += 1
        if i >= n:
            return
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            c.request("GET", "/metrics", headers={"Authorization": "Basic " +
                      base64.b64encode(b"alice:wrong%d" % i).decode()})
            code = c.getresponse().status
            c.close()
        except Exception:
            code = 0
        with lock:
            codes.append(code)
ts = [threading.Thread(target=run) for _ in range(k)]
[t.start() for t in ts]
[t.join() for t in ts]
print("\n".join(map(str, codes)))
PY
	flood_pid=$!
}
HASH_10=$(htpasswd -nbB -C 10 alice 'open sesame' | cut -d: -f2-)
printf 'basic_auth_users:\n  alice: %s\n' "$HASH_10" >"$tmp/c10.yml"
serve "$tmp/c10.yml"
url=http://127.0.0.1:$PORT/metrics
t=$(inb curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 30 -u 'alice:open sesame' "$url")
c0=${t% *} first=${t#* }
limit=$(calc "10 * $first < 0.5 ? 0.5 : 10 * $first")
t0=$(date +%s.%N)
flood 400 40 "$tmp/flood.codes"
sleep 0.5
t=$(inb curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 60 -u 'alice:open sesame' "$url")
wait $flood_pid
t1=$(date +%s.%N)
n401=$(grep -c '^401$' "$tmp/flood.codes"); n429=$(grep -c '^429$' "$tmp/flood.codes")
echo "MEASURE web config: the right user's scrape: $first s alone (a bcrypt of cost 10), ${t#* } s during a flood" \
	"of 400 wrong passwords; the flood: $n401 answered 401, $n429 answered 429 in $(calc "$t1 - $t0") s"
if [ "$c0" = 200 ] && [ "${t% *}" = 200 ] && [ "$(calc "${t#* } < $limit")" = 1 ]; then
	pass "the right user's scrape during a flood of 400 wrong passwords: 200 in ${t#* } s (under $limit s)"
else fail "the right user's scrape during the flood: first $c0, then ${t% *} in ${t#* } s (want 200 in under $limit s)"; fi
# at most the burst and one a second of the flood's time cost a bcrypt
most=$(calc "int(4 + $t1 - $t0 + 1)")
[ "$n401" -ge 4 ] && [ "$n401" -le "$most" ] && [ $((n401 + n429)) = 400 ] &&
	pass "the flood: $n401 checked (401, at most $most: 4 then 1/s), $n429 refused with 429" ||
	fail "the flood: $n401 answered 401 and $n429 429 of 400 (want 4 to $most checked, the rest 429)"
sleep 1.2
c1=$(code -u 'alice:wrong' "$url")
[ "$c1" = 401 ] && pass "a second later the address may check a password again (401)" || fail "a second later: $c1, want 401"
flood 200 40 "$tmp/flood2.codes"
sleep 0.5
t0=$(date +%s.%N); kill -TERM $rt; wait $rt 2>/dev/null; t1=$(date +%s.%N)
wait $flood_pid
secs=$(calc "$t1 - $t0")
limit=$(calc "10 * $first < 2 ? 2 : 10 * $first")
echo "MEASURE web config: SIGTERM during a flood of wrong passwords ended the run in $secs s"
[ "$(calc "$secs < $limit")" = 1 ] && pass "SIGTERM during a flood ends the run in $secs s (under $limit s)" ||
	fail "SIGTERM during a flood took $secs s (want under $limit s)"
stop 2>/dev/null

# Bad configurations: one sentence, a non-zero exit, nothing served. An
# empty capture for a source: the endpoint is set up before it is read.
"$PY" -c 'import struct, sys; open(sys.argv[1], "wb").write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))' \
	"$tmp/empty.pcap"
bad() {	# WHAT EXPECTED-WORDS CONTENT
	printf '%b' "$3" >"$tmp/bad.yml"
	inb "$ROCETOP" -r "$tmp/empty.pcap" --listen "127.0.0.1:$(freeport)" --web-config "$tmp/bad.yml" -D \
		>/dev/null 2>"$tmp/bad.err"
	local rc=$?
	if [ $rc -ne 0 ] && [ "$(grep -c . "$tmp/bad.err")" = 1 ] && grep -q "$2" "$tmp/bad.err"; then
		pass "$1: exit $rc, $(cat "$tmp/bad.err")"
	else fail "$1: exit $rc, stderr: $(cat "$tmp/bad.err")"; fi
}
bad "an unknown key" "'http_server_config' is not supported" "http_server_config:\n  http2: false\n"
bad "an unknown TLS key" "'client_ca_file' is not supported" \
	"tls_server_config:\n  cert_file: $tmp/server.crt\n  key_file: $tmp/server.key\n  client_ca_file: ca.crt\n"
bad "a clear-text password" "must be a bcrypt hash" "basic_auth_users:\n  alice: secret\n"
bad "an empty tls_server_config" "needs both cert_file and key_file" "tls_server_config:\nbasic_auth_users:\n  alice: $HASH_Y\n"
bad "a certificate without its key" "needs both cert_file and key_file" "tls_server_config:\n  cert_file: $tmp/server.crt\n"
bad "a missing key file" "cannot read the key" "tls_server_config:\n  cert_file: $tmp/server.crt\n  key_file: nope.key\n"
bad "a key that is not PEM" "is not a PEM file" "tls_server_config:\n  cert_file: $tmp/server.crt\n  key_file: $tmp/web.yml\n"
bad "a key that does not match" "not valid, or they do not match" \
	"tls_server_config:\n  cert_file: $tmp/server.crt\n  key_file: $tmp/server.crt\n"
long=$(head -c 1100 /dev/zero | tr '\0' x)
bad "a line over 1,023 bytes: the error names it" "line 3: the line is longer than 1,023 bytes" \
	"# users\nbasic_auth_users:\n  alice: '$HASH_Y' # $long\n  bob: '$HASH_B'\n"
bad "a NUL byte" "line 2: the line holds a NUL byte" "basic_auth_users:\n  alice: '$HASH_Y'\0junk\n"
for cost in 03 15 31 32 99; do
	bad "a bcrypt hash of cost $cost" "cost must be 04 to 14" "basic_auth_users:\n  alice: '${HASH_Y:0:4}$cost${HASH_Y:6}'\n"
done
# configurations that cannot be read whole are refused at start: a
# directory (read as empty, it served without authentication), a FIFO (it
# hung the start)
badpath() {	# WHAT PATH
	timeout 10 "$ROCETOP" -r "$tmp/empty.pcap" --listen "127.0.0.1:$(freeport)" --web-config "$2" -D \
		>/dev/null 2>"$tmp/bad.err"
	local rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(grep -c . "$tmp/bad.err")" = 1 ] &&
	   grep -q "is not a regular file" "$tmp/bad.err"; then
		pass "$1: exit $rc, $(cat "$tmp/bad.err")"
	else fail "$1: exit $rc (124: it hung), stderr: $(cat "$tmp/bad.err")"; fi
}
mkdir "$tmp/dir.yml"
badpath "a directory" "$tmp/dir.yml"
mkfifo "$tmp/fifo.yml"
badpath "a FIFO" "$tmp/fifo.yml"
printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' "$tmp/server.crt" "$tmp/fifo.yml" >"$tmp/fifokey.yml"
badpath "a FIFO as the key" "$tmp/fifokey.yml"
out=$("$ROCETOP" -i lo --web-config "$tmp/web.yml" -D 2>&1); rc=$?
[ $rc -ne 0 ] && [ "$(echo "$out" | grep -c .)" = 1 ] && pass "--web-config without --listen: exit $rc, $out" ||
	fail "--web-config without --listen: exit $rc, $out"
[ $fails -eq 0 ]
