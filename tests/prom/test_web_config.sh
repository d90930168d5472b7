#!/usr/bin/env bash
# --web-config: TLS by libmicrohttpd's GnuTLS support and basic
# authentication with bcrypt hashes (htpasswd -nbB), checked with curl: no
# credentials 401, a wrong password or user 401, the right ones 200 over
# TLS verified against the test's own CA certificate; clear text to the TLS
# port gets no HTTP answer. A bad configuration is one sentence and a
# non-zero exit.
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
out=$("$ROCETOP" -i lo --web-config "$tmp/web.yml" -D 2>&1); rc=$?
[ $rc -ne 0 ] && [ "$(echo "$out" | grep -c .)" = 1 ] && pass "--web-config without --listen: exit $rc, $out" ||
	fail "--web-config without --listen: exit $rc, $out"
[ $fails -eq 0 ]
