# shellcheck shell=bash
# What the shell tests share: the root and tool checks, names unique to this
# run, network namespaces and veth pairs, and one cleanup on exit. Source it
# first thing:   . "$(dirname "$0")/../lib.sh"
#
# A test prints "PASS name", "FAIL name: why" or "SKIP name: why" lines
# (tests/run counts them; STRICT=1 there turns a skip into a failure).

# A suffix for names (namespaces, interfaces, tmux sessions, pins) that no
# concurrent run shares: the test shell's pid. Short on purpose: interface
# names stop at 15 characters, and the TUI tests read them off an 80-column
# screen.
RT_ID=$$

# The programs under test, from tests/run's environment, else this tree's
# build (a test sources this file from the top of the tree); a test that set
# one of them before keeps its own.
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
GEN=${GEN-${ROCETOP_GEN:-$PWD/build/rocetop-gen}}
PY=${PY:-${PYTHON:-/usr/bin/python3}}

# ---- cleanup: commands run in reverse order of registration, once, on exit ----
_rt_exit=()
rt_on_exit() { _rt_exit+=("$1"); }
_rt_cleanup() {
	local i
	for ((i = ${#_rt_exit[@]} - 1; i >= 0; i--)); do eval "${_rt_exit[i]}" 2>/dev/null; done
	_rt_exit=()
}
trap _rt_cleanup EXIT
trap 'exit 130' INT TERM

# ---- skipping ----
# rt_skip NAME WHY: this test cannot run here; say why and stop.
rt_skip() { echo "SKIP $1: $2"; exit 0; }
# rt_need_root NAME [WHY]
rt_need_root() { [ "$(id -u)" -eq 0 ] || rt_skip "$1" "${2:-needs root}"; }
# rt_need_cmd NAME CMD...: each command must be installed.
rt_need_cmd() {
	local name=$1 c
	shift
	for c in "$@"; do command -v "$c" >/dev/null || rt_skip "$name" "$c is not installed"; done
}

# ---- files ----
# rt_tmpdir VAR: a temporary directory in VAR, removed on exit (kept when KEEP is set).
rt_tmpdir() {
	local d
	d=$(mktemp -d "/tmp/rt$RT_ID.XXXXXX") || return 1
	printf -v "$1" '%s' "$d"
	rt_on_exit "[ -n \"\${KEEP:-}\" ] && echo \"kept $d\" || rm -rf '$d'"
}

# ---- namespaces ----
# rt_netns NS...: new network namespaces with lo up, deleted on exit.
rt_netns() {
	local ns
	for ns in "$@"; do
		ip netns add "$ns" || return 1
		rt_on_exit "ip netns del '$ns'"
		ip -n "$ns" link set lo up || return 1
	done
}

# rt_no_ipv6 NS...: IPv6 off in these namespaces, so router solicitations
# and neighbour discovery do not add packets a test counts.
rt_no_ipv6() {
	local ns
	for ns in "$@"; do ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 || return 1; done
}

# rt_veth NS_A IF_A NS_B IF_B: a veth pair between two namespaces, both ends up.
rt_veth() {
	ip link add "$2" netns "$1" type veth peer name "$4" netns "$3" &&
		ip -n "$1" link set "$2" up && ip -n "$3" link set "$4" up
}

# rt_kill_on_exit PID...: processes to kill -9 (and reap) on exit.
rt_kill_on_exit() {
	local p
	for p in "$@"; do rt_on_exit "kill -9 $p; wait $p"; done
}

# ---- the common start ----
# rt_checks NAME [PREFIX]: T, a temporary directory removed on exit; pass NAME
# and fail NAME WHY, which print "PASS PREFIXNAME" and "FAIL PREFIXNAME: WHY"
# (fail also counts in $fails).
rt_checks() {
	_rt_prefix=${2:-}
	fails=0
	pass() { echo "PASS $_rt_prefix$1"; }
	fail() { echo "FAIL $_rt_prefix$1: $2"; fails=$((fails + 1)); }
	rt_tmpdir T || { fail "$1" "cannot create a temporary directory"; exit 1; }
}

# rt_setup NAME [PREFIX]: what most tests start with, after sourcing this
# file: rt_checks, and a failure when rocetop is not built.
rt_setup() {
	rt_checks "$@"
	[ -x "$ROCETOP" ] || { fail "$1" "no $ROCETOP (run make)"; exit 1; }
}

# rt_need_py NAME MODULE...: Python modules the test needs (make deps
# installs them): missing, the test fails.
rt_need_py() {
	local name=$1 m
	shift
	for m in "$@"; do
		"${PY:-/usr/bin/python3}" -c "import $m" 2>/dev/null || { echo "FAIL $name: no $m in ${PY:-python3}"; exit 1; }
	done
}

# rt_scapy_start NAME [MODULE]: the start of a test on captures scapy
# writes: scapy's MODULE (scapy if none) importable, else the test is
# skipped; T a temporary directory.
rt_scapy_start() {
	"$PY" -c "import ${2:-scapy}" 2>/dev/null || rt_skip "$1" "scapy is not installed"
	rt_tmpdir T
}

# rt_captures NAME [DIR]: the findings tests' scapy captures
# (tests/findings/captures.py: storm.pcap and the others, and what each calls
# for) written into DIR ($T by default). Under tests/run (RT_SHARED) scapy
# writes them once for every test, under a lock, and each test gets a copy.
rt_captures() {
	local to=${2:-$T} c
	rt_need_py "$1" scapy
	if [ -z "${RT_SHARED:-}" ]; then
		"$PY" tests/findings/captures.py gen "$to" >/dev/null || { echo "FAIL $1: the scapy generator failed"; exit 1; }
		return
	fi
	c=$RT_SHARED/captures
	(
		flock 9 || exit 1
		[ -f "$c/done" ] && exit 0
		rm -rf "$c" && mkdir -p "$c" && "$PY" tests/findings/captures.py gen "$c" >/dev/null && touch "$c/done"
	) 9>"$RT_SHARED/captures.lock" && cp "$c"/*.pcap "$c"/*.want.json "$to"/ ||
		{ echo "FAIL $1: the scapy generator failed"; exit 1; }
}

# rt_mac NS IF: the interface's MAC address.
rt_mac() {
	ip -n "$1" -o link show "$2" | grep -o 'link/ether [0-9a-f:]*' | cut -d' ' -f2
}

# rt_free_port [NS]: a TCP port of 127.0.0.1 free now (in namespace NS).
rt_free_port() {
	${1:+ip netns exec "$1"} "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# rt_wait_until PID TRIES CMD...: wait (TRIES x 0.1 s) until CMD succeeds;
# give up at once when PID ("-": none to watch) has ended.
rt_wait_until() {
	local pid=$1 tries=$2 _
	shift 2
	for _ in $(seq "$tries"); do
		"$@" && return 0
		[ "$pid" = - ] || kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# rt_wait_file FILE PID [TRIES]: wait (TRIES x 0.1 s, 100 by default) until
# FILE is not empty, while PID runs: rocetop's CSV files appear once its
# source is up.
rt_wait_file() { rt_wait_until "$2" "${3:-100}" test -s "$1"; }

# rt_wait_frames PCAP N: wait (up to 5 s) until tcpdump reads N frames other
# than ICMP in the capture: it has caught up with what was sent.
rt_wait_frames() { rt_wait_until - 50 _rt_frames_ge "$1" "$2"; }
_rt_frames_ge() { [ "$(tcpdump -r "$1" 2>/dev/null | grep -vc ICMP)" -ge "$2" ]; }

# rt_two_hosts NAME TAG: the live tests' start, as root: two namespaces A
# and B (TAG and this run's id, then a and b) joined by a veth pair IFA-IFB
# (x and y), lo up, no IPv6, their MACs in MAC_A and MAC_B; tmp, a temporary
# directory; pids, processes the test starts, killed on exit.
rt_two_hosts() {
	local name=$1 tag=$2$RT_ID
	A=${tag}a B=${tag}b IFA=${tag}x IFB=${tag}y
	pids=()
	rt_need_root "$name" "needs root for namespaces and BPF"
	rt_tmpdir tmp
	rt_on_exit 'for p in "${pids[@]}"; do kill -9 "$p"; done; wait'
	rt_netns "$A" "$B" && rt_veth "$A" "$IFA" "$B" "$IFB" && rt_no_ipv6 "$A" "$B" ||
		{ echo "FAIL $name: cannot build the namespaces"; exit 1; }
	MAC_A=$(rt_mac "$A" "$IFA")
	MAC_B=$(rt_mac "$B" "$IFB")
}

# rt_wait_rows CSV: wait (up to 20 s) until the CSV file holds a row below
# its header: rocetop has written its first interval.
rt_wait_rows() {
	local _
	for _ in $(seq 400); do
		[ -s "$1" ] && [ "$(wc -l <"$1")" -gt 1 ] && return 0
		sleep 0.05
	done
	return 1
}

# ---- the NIC's fixtures ----
# rt_fixture_start NAME [TREE]: the fixture tests' start: FIX, the fixture
# host's tree (TREE, below tests/fixtures; sysfs/mlx5-host if none), root (to
# attach to lo), rocetop built, tmp a temporary directory.
rt_fixture_start() {
	FIX=$PWD/tests/fixtures/${2:-sysfs/mlx5-host}
	rt_need_root "$1" "needs root to attach to lo"
	[ -x "$ROCETOP" ] || { echo "FAIL $1: $ROCETOP not built"; exit 1; }
	rt_tmpdir tmp
}

# rt_fixture_run NAME T0 T1 CSV ARGS...: rocetop ARGS on lo of a namespace of
# its own (FIX_NS; the host's lo is shared with other runs), with
# --sysfs-root on $tmp/root, a link to the fixture tree T0 that moves to T1
# once CSV (a file its --csv writes) holds the first interval's rows. Its
# output goes to $tmp/out and $tmp/err, its exit status to rc.
rt_fixture_run() {
	local name=$1 t0=$2 t1=$3 csv=$4
	shift 4
	FIX_NS=rtfx${RT_ID}n
	rt_netns "$FIX_NS" || { echo "FAIL $name: cannot create a namespace"; exit 1; }
	ln -s "$t0" "$tmp/root"
	ip netns exec "$FIX_NS" "$ROCETOP" --sysfs-root "$tmp/root" -i lo "$@" >"$tmp/out" 2>"$tmp/err" &
	_rt_fix_pid=$!
	rt_on_exit '[ -n "$_rt_fix_pid" ] && kill $_rt_fix_pid'
	rt_wait_rows "$csv"
	ln -sfn "$t1" "$tmp/root"
	wait $_rt_fix_pid; rc=$?; _rt_fix_pid=
}

# ---- tmux (the live view's tests) ----
# rt_tui_need NAME [CMD...]: the live view's tests' start: skip WHY (a skip
# of NAME), tmux and the commands named installed, rocetop built; fail=0.
rt_tui_need() {
	_rt_tui_name=$1
	skip() { rt_skip "$_rt_tui_name" "$*"; }
	rt_need_cmd "$@" tmux
	[ -x "$ROCETOP" ] || skip "$ROCETOP is not built"
	fail=0
}
# rt_tmux NAME SESSION COLS ROWS: a tmux session of that size running a bare
# bash, killed on exit; rt_cap and rt_wait_for read its screen.
rt_tmux() {
	RT_TMUX=$2
	tmux new-session -d -s "$2" -x "$3" -y "$4" "env PS1='$ ' TERM=screen bash --norc --noprofile" ||
		rt_skip "$1" "tmux cannot start a session"
	rt_on_exit "tmux kill-session -t '$2'"
}
# rt_cap: the screen now.
rt_cap() { tmux capture-pane -p -t "$RT_TMUX"; }
# rt_wait_for REGEX [TRIES]: wait (TRIES x 0.1 s, 80 by default) until the screen matches.
rt_wait_for() {
	local _
	for _ in $(seq "${2:-80}"); do
		rt_cap | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
