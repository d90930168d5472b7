#!/usr/bin/env bash
# End to end on a real veth: rocetop attached to one end of a pair joining two
# namespaces, scapy sending a known mix both ways. flows.csv and pfc.csv must
# sum to the sent tally exactly, and tshark's dissection of a capture of the
# same traffic must agree. Then: after kill -9 nothing stays attached.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
here=tests/live

rt_need_cmd live tshark tcpdump
rt_two_hosts live rte
ip -n "$A" addr add 10.99.0.1/24 dev "$IFA" && ip -n "$B" addr add 10.99.0.2/24 dev "$IFB" ||
	{ echo "FAIL live: cannot address the veth pair"; exit 1; }

# The two mixes, built once with scapy (send.py --build) and sent by each
# mode below without it; the VM tests build them on the host (RT_FRAMES).
export RT_FRAMES=${RT_FRAMES:-$tmp/frames}
for mix in "10.99.1 10.99.0.2 11" "10.99.2 10.99.0.1 22"; do
	set -- $mix
	[ -e "$RT_FRAMES/$1-$2-$3.pcap" ] || "$PY" $here/send.py --build "$RT_FRAMES" $mix >/dev/null ||
		{ echo "FAIL live: scapy could not build the frames of $mix"; exit 1; }
done

# Wait until rocetop has attached: the CSV files appear once the source is up.
wait_attached() { rt_wait_file "$1/flows.csv" "$2"; }

# run_mode NAME ROCETOP-OPTIONS...
run_mode() {
	local mode=$1 dir=$tmp/$1
	shift
	mkdir -p "$dir"
	ip netns exec "$A" tcpdump -q -i "$IFA" -w "$dir/cap.pcap" -U 2>/dev/null &
	local tcpd=$!; pids+=("$tcpd")
	ip netns exec "$B" "$ROCETOP" -i "$IFB" "$@" --csv "$dir/csv" -D -d 0.2 \
		--flow-timeout 0 2>"$dir/err" &
	local rt=$!; pids+=("$rt")
	if ! wait_attached "$dir/csv" "$rt"; then
		echo "FAIL live $mode: rocetop did not start: $(cat "$dir/err")"; return 1
	fi
	sleep 0.5	# tcpdump is up by now too
	local n1 n2
	n1=$(ip netns exec "$A" "$PY" $here/send.py "$IFA" "$MAC_A" "$MAC_B" 10.99.1 10.99.0.2 11 "$dir/in" 2>/dev/null) &&
	n2=$(ip netns exec "$B" "$PY" $here/send.py "$IFB" "$MAC_B" "$MAC_A" 10.99.2 10.99.0.1 22 "$dir/out" 2>/dev/null) ||
		{ echo "FAIL live $mode: scapy could not send"; return 1; }
	# Let the capture catch up with what was sent (a loaded machine lags).
	local want=$(( $(echo "$n1" | awk '{print $2}') + $(echo "$n2" | awk '{print $2}') ))
	rt_wait_frames "$dir/cap.pcap" "$want"
	sleep 0.3
	kill -INT "$rt"; wait "$rt"; local rc=$?
	kill -INT "$tcpd"; wait "$tcpd" 2>/dev/null
	if [ $rc -ne 0 ]; then echo "FAIL live $mode: rocetop exited $rc: $(cat "$dir/err")"; return 1; fi
	grep -q . "$dir/err" && sed 's/^/  stderr: /' "$dir/err"
	"$PY" $here/compare.py "$dir/csv" "$IFB" "$dir/cap.pcap" "$dir/in" "$dir/out" | sed "s/^\(PASS\|FAIL\) /\1 live $mode: /"
	return "${PIPESTATUS[0]}"
}

fails=0
run_mode native --xdp-mode native || fails=$((fails + 1))
run_mode generic --xdp-mode generic || fails=$((fails + 1))
# What kernels before 6.6 run: the split programs (bpf/rocetop.bpf.c), egress
# through a TC filter instead of tcx (user/sources/live_attach.c).
run_mode split --bpf-split || fails=$((fails + 1))
run_mode tc-filter --tc-filter || fails=$((fails + 1))

# kill -9 leaves nothing attached: the links die with the process.
ip netns exec "$B" "$ROCETOP" -i "$IFB" --csv "$tmp/k9" -D 2>"$tmp/k9.err" &
rt=$!; pids+=("$rt")
if wait_attached "$tmp/k9" "$rt"; then
	# rocetop's programs: the XDP one on the interface, and every program
	# sharing its maps (the tcx one).
	xid=$(ip -n "$B" link show "$IFB" | grep -o 'prog/xdp id [0-9]*' | awk '{print $3}')
	setof() { tr ',' '\n' | sort -n | tr '\n' ,; }
	maps=$(bpftool prog show id "$xid" 2>/dev/null | grep -o 'map_ids [0-9,]*' | cut -d' ' -f2 | setof)
	progs=$(bpftool prog show 2>/dev/null | awk '/^[0-9]+:/ {id=$1} /map_ids/ {for (i = 1; i < NF; i++) if ($i == "map_ids") print id, $(i + 1)}' |
		while read -r id m; do [ "$(echo "$m" | setof)" = "$maps" ] && echo "${id%:}"; done | sort -u)
	tcx=$(bpftool link show 2>/dev/null | grep -c "prog $(echo $progs | tr ' ' '\n' | grep -vx "$xid" | head -1)\b")
	xdp_before=$(ip -n "$B" link show "$IFB" | grep -c 'prog/xdp')
	kill -9 "$rt"; wait "$rt" 2>/dev/null
	sleep 0.5
	xdp_after=$(ip -n "$B" link show "$IFB" | grep -c 'prog/xdp')
	left=""
	for p in $progs; do bpftool prog show id "$p" >/dev/null 2>&1 && left="$left $p"; done
	# A kernel without tcx (before 6.6) has rocetop's egress program in a TC
	# filter, which outlives the process until the next start removes it
	# (tests/live/test_attach.sh): there, that one program is left, in the
	# filter tc lists.
	filt=$(ip netns exec "$B" tc filter show dev "$IFB" egress 2>/dev/null | grep -o 'handle 0x7274 .* id [0-9]*' | awk '{print $NF}')
	if grep -q 'no tcx in this kernel' "$tmp/k9.err" && [ "$tcx" = 0 ] && [ -n "$filt" ] &&
		[ "$(echo $left)" = "$filt" ] && [ "$xdp_before" = 1 ] && [ "$xdp_after" = 0 ]; then
		echo "PASS live: after kill -9 no XDP program is attached and only the egress program of rocetop's TC filter ($filt; no tcx in this kernel) is left"
	elif [ "$xdp_before" = 1 ] && [ "$xdp_after" = 0 ] && [ "$(echo $progs | wc -w)" = 2 ] && [ "$tcx" = 1 ] && [ -z "$left" ]; then
		echo "PASS live: after kill -9 no XDP program is attached and rocetop's XDP and tcx programs ($(echo $progs)) are gone"
	else
		echo "FAIL live: after kill -9: xdp before=$xdp_before after=$xdp_after, programs '$progs', tcx links before $tcx, still loaded '$left'"
		fails=$((fails + 1))
	fi
else
	echo "FAIL live: rocetop did not start for the kill -9 check: $(cat "$tmp/k9.err")"; fails=$((fails + 1))
fi
[ $fails -eq 0 ]
