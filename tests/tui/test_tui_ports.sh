#!/usr/bin/env bash
# The NIC ports view (key 4) on the mlx5 fixture: the congestion counters
# (user/nic/nic_sysfs.c's list) come first, marked with *, with the values
# the fixture files hold; the other counters follow.
set -u
cd "$(dirname "$0")/../.."
FIX=tests/fixtures/sysfs/mlx5-host/t0
HW=$FIX/sys/class/infiniband/mlx5_0/ports/1/hw_counters
. tests/lib.sh
S=rtup$RT_ID
# lo of a namespace of our own: the host's lo is shared with other runs.
N=rtup${RT_ID}n
rt_need_root tui_ports "needs root to attach to lo"
rt_need_cmd tui_ports tmux
rt_tmpdir tmp
rt_on_exit 'tmux kill-session -t "$S"'
rt_netns "$N" || { echo "FAIL tui_ports: cannot create a namespace"; exit 1; }

tmux new-session -d -s "$S" -x 120 -y 60 "NO_COLOR=1 ip netns exec $N $ROCETOP --sysfs-root $FIX -i lo -d 0.3; echo EXITED \$? > $tmp/rc; sleep 5"
for _ in $(seq 50); do tmux capture-pane -p -t "$S" | grep -q '^rocetop ' && break; sleep 0.1; done
tmux send-keys -t "$S" 4
sleep 1
tmux capture-pane -p -t "$S" >"$tmp/screen"
tmux send-keys -t "$S" End
tmux send-keys -t "$S" PPage
sleep 1
tmux capture-pane -p -t "$S" >"$tmp/end"
tmux send-keys -t "$S" q
for _ in $(seq 30); do [ -s "$tmp/rc" ] && break; sleep 0.1; done

# Rows of mlx5_0 port 1, in screen order: "*name value" or " name value".
rows=$(awk '$1 == "mlx5_0" && $2 == 1 && $4 == "hw_port" {print}' "$tmp/screen")
order_ok=$(awk '{m = substr($5, 1, 1) == "*"} m && seen_plain {bad = 1} !m {seen_plain = 1} END {print bad ? "no" : "yes"}' <<<"$rows")
want_cnp=$(cat "$HW/np_cnp_sent") want_ecn=$(cat "$HW/np_ecn_marked_roce_packets")
got_cnp=$(awk '$5 == "*np_cnp_sent" {print $6}' <<<"$rows")
got_ecn=$(awk '$5 == "*np_ecn_marked_roce_packets" {print $6}' <<<"$rows")
# The end of the list: the other counters, none of them marked.
end_rows=$(awk '$1 ~ /^[a-z0-9_]+$/ && $2 ~ /^[0-9]+$/ && NF >= 7' "$tmp/end")
end_ok=$(awk 'substr($5, 1, 1) == "*" {bad = 1} END {print (bad || NR < 10) ? "no" : "yes"}' <<<"$end_rows")
# Every sysfs row on both pages shows what its fixture file holds.
values_ok=yes
while read -r dev pt nd from name val _; do
	case $from in hw_port) dir=hw_counters ;; port) dir=counters ;; *) continue ;; esac
	f=$FIX/sys/class/infiniband/$dev/ports/$pt/$dir/${name#\*}
	[ "$(cat "$f" 2>/dev/null)" = "$val" ] || { values_ok="no ($dev $pt $name: screen $val, file $(cat "$f" 2>/dev/null))"; break; }
done <<<"$rows
$end_rows"
if [ "$order_ok" = yes ] && [ "$end_ok" = yes ] && [ "$got_cnp" = "$want_cnp" ] && [ "$got_ecn" = "$want_ecn" ] &&
   [ "$values_ok" = yes ] && grep -q 'EXITED 0' "$tmp/rc"; then
	echo "PASS tui_ports: congestion counters first with the fixture's values (np_cnp_sent $got_cnp, np_ecn_marked_roce_packets $got_ecn), then the others, every value as its fixture file holds it"
else
	echo "FAIL tui_ports: order ok=$order_ok end ok=$end_ok values ok=$values_ok np_cnp_sent '$got_cnp'/$want_cnp ecn '$got_ecn'/$want_ecn rc '$(cat "$tmp/rc" 2>/dev/null)'"
	sed 's/^/  | /' "$tmp/screen" | head -30
	exit 1
fi
