#!/usr/bin/env bash
# The view on a hardware host (tests/fixtures/hwhost, make-fixtures.py): the
# header carries the doctor's first failing check (bad-ecn: ECN off for the
# reaction point on PFC priority 3), and the QPs' counters from the NIC are
# flows marked nic: in the IFACE column, one per QP and direction the NIC
# counts: QP 282 (0x11a) and 300 (0x12c) in, the peer QP 691 (0x2b3) out.
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
FIX=$PWD/tests/fixtures/hwhost
S=rt12t$$ ns=rt12t$$-$RANDOM
tmp=$(mktemp -d)
cleanup() { tmux kill-session -t "$S" 2>/dev/null; ip netns del "$ns" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
if [ "$(id -u)" -ne 0 ]; then echo "SKIP tui_nic: needs root to attach to lo"; exit 0; fi
command -v tmux >/dev/null || { echo "SKIP tui_nic: tmux is not installed"; exit 0; }
ip netns add "$ns" && ip -n "$ns" link set lo up || { echo "FAIL tui_nic: cannot make netns $ns"; exit 1; }

# The NIC's flows are there from the first interval (counting from 0), the
# doctor's line too: wait for both (a loaded machine starts slowly).
ln -s "$FIX/bad-ecn" "$tmp/root"
tmux new-session -d -s "$S" -x 200 -y 50 \
	"NO_COLOR=1 ip netns exec $ns $ROCETOP --sysfs-root $tmp/root -i lo -d 0.3; echo EXITED \$? > $tmp/rc; sleep 5"
for _ in $(seq 200); do
	tmux capture-pane -p -t "$S" >"$tmp/screen"
	grep -q '^doctor: ' "$tmp/screen" && [ "$(grep -c ' nic:eth2 ' "$tmp/screen")" -ge 3 ] && break
	sleep 0.1
done
tmux send-keys -t "$S" q
for _ in $(seq 50); do [ -s "$tmp/rc" ] && break; sleep 0.1; done

fail=0
# the header: the lines above the table's column titles
hdr=$(sed -n '1,/^SRC /p' "$tmp/screen")
grep -q '^doctor: eth2: priority 3 has PFC but ECN is off for the reaction point' <<<"$hdr" ||
	{ echo "  no doctor line in the header"; fail=1; }
for row in '192.168.1.20 +192.168.1.10 +282 +in +nic:eth2' '192.168.1.30 +192.168.1.10 +300 +in +nic:eth2' \
	   '192.168.1.10 +192.168.1.20 +691 +out +nic:eth2'; do
	grep -Eq "^$row " "$tmp/screen" || { echo "  no row $row"; fail=1; }
done
grep -q 'EXITED 0' "$tmp/rc" 2>/dev/null || { echo "  exit: $(cat "$tmp/rc" 2>/dev/null)"; fail=1; }
if [ $fail = 0 ]; then
	echo "PASS tui_nic: the doctor's finding in the header, the NIC's per-QP flows marked nic:"
else
	echo "FAIL tui_nic: see above"
	sed 's/^/  | /' "$tmp/screen" | head -20
	exit 1
fi
