#!/usr/bin/env bash
# QEMU VMs on Debian's packaged kernels, sharing this host's root file system.
#
# Usage:
#   tests/vm/vm.sh fetch VER...                 fetch (or refresh) the kernels only
#   tests/vm/vm.sh run VER [--] CMD [ARG...]    run one command in one VM of kernel VER
#   tests/vm/vm.sh pair VER SCRIPT [ARG...]     boot two VMs joined by a network link and
#                                               run "bash SCRIPT ARG..." in both (see below)
#   VER is 5.10 (bullseye), 6.1 (bookworm) or 6.12 (trixie).
#
# run: CMD runs as root in the VM, in the directory vm.sh was called from, with the
# host's root file system read-only underneath a tmpfs overlay (so the host's packages
# and the fresh build are there), the kernel's own modules at /lib/modules/$(uname -r),
# and proc, sys, devtmpfs, bpffs (/sys/fs/bpf), debugfs, tracefs, cgroup2 and /run
# mounted. Its stdout and stderr come back on vm.sh's stdout and stderr (after the VM
# has stopped) and vm.sh exits with its exit code; vm.sh's own messages are "vm: ..."
# lines on stderr. If the VM produced no exit code (boot failure, timeout), vm.sh says
# why, shows the end of the serial console and exits 125 (124 on a timeout).
#   e.g. tests/vm/vm.sh run 6.1 -- /work/main/build/tests/test_bpf
# The guest's /run is its own (empty); /tmp is the host's, seen through the
# overlay like the rest (a work tree cloned under /tmp, as CI may, is there):
# the guest's writes land in the overlay and vanish with the VM: what must come
# back goes to stdout.
# No udev, no systemd: modules load by name (modprobe). KVM refuses these stock
# kernels on some hosts ("failed to set MSR"): vm.sh then says so and uses TCG
# (a boot takes 5-15 s, a whole run of one command a few seconds more).
#
# pair: two VMs, "a" (10.77.0.1) and "b" (10.77.0.2), joined by a QEMU socket netdev on
# 127.0.0.1 (eth0 in both; no bridge). SCRIPT runs in both with ROLE=a|b, MY_IP,
# PEER_IP, PEER (the other role), VM_VER and SYNC (a directory both VMs and the host
# share, for barriers and results: each VM's own files go under $SYNC/$ROLE; with
# VM_RESULTS=DIR set, vm.sh copies it there at the end, with each VM's serial
# console). vm.sh prints each VM's output prefixed with its role and exits non-zero
# if either exits non-zero; once one VM has stopped, the other has 30 s.
#
# Environment:
#   ROCETOP_VM_CACHE   kernels, apt lists and debs (default /var/cache/rocetop-vm)
#   VM_ACCEL           auto (default: KVM, then TCG if KVM refuses), kvm or tcg
#   VM_MEM             MiB per VM (default 1024)
#   VM_TIMEOUT         seconds a VM may run before it is killed (default 900)
#   VM_REFRESH=1       re-read the archive's package lists even if a kernel is cached
#   KEEP=1             keep the run directory (console logs, outputs)
# A kernel that cannot be fetched is an error (exit 2) with one sentence, never a skip.
set -u
set -o pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${ROCETOP_VM_CACHE:-/var/cache/rocetop-vm}
VM_ACCEL=${VM_ACCEL:-auto}
VM_MEM=${VM_MEM:-1024}
VM_TIMEOUT=${VM_TIMEOUT:-900}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
MIRROR=${VM_MIRROR:-http://deb.debian.org/debian}
# Seconds to wait for a KVM guest to report that it booted before retrying under TCG.
KVM_BOOT_WAIT=${KVM_BOOT_WAIT:-40}

say() { echo "vm: $*" >&2; }
die() { echo "vm: $*" >&2; exit 2; }

suite_of() {
	case "$1" in
	5.10) echo bullseye ;;
	6.1) echo bookworm ;;
	6.12) echo trixie ;;
	*) return 1 ;;
	esac
}

# ---- fetching: a private apt configuration, the system's sources untouched ----
APT_DIR=$CACHE/apt
apt_opts() {
	echo -o "Dir::Etc::SourceList=$APT_DIR/sources.list" \
		-o "Dir::Etc::SourceParts=$APT_DIR/sources.list.d" \
		-o "Dir::Etc::Preferences=$APT_DIR/preferences" \
		-o "Dir::Etc::PreferencesParts=$APT_DIR/preferences.d" \
		-o "Dir::State::Lists=$APT_DIR/lists" \
		-o "Dir::Cache=$APT_DIR/cache" \
		-o "APT::Architectures::=amd64" -o "Acquire::Languages=none" \
		-o "APT::Sandbox::User=root" -o "Debug::NoLocking=1"
}

# apt_update SUITE...: the lists of these suites only (one suite that fails
# does not stop the others' kernels).
apt_update() {
	mkdir -p "$APT_DIR"/{lists/partial,cache/archives/partial,sources.list.d,preferences.d} || return 1
	local s
	: >"$APT_DIR/sources.list"
	for s in "$@"; do
		echo "deb [signed-by=$KEYRING] $MIRROR $s main" >>"$APT_DIR/sources.list"
	done
	# shellcheck disable=SC2046
	apt-get $(apt_opts) -qq update >"$APT_DIR/update.log" 2>&1
}

# fetch_one VER: the kernel package linux-image-amd64 of VER's suite depends on,
# downloaded and unpacked under $CACHE/k/VER (vmlinuz, lib/modules/KVER with depmod's
# files, kver). Returns non-zero with one sentence on stderr.
fetch_one() {
	local ver=$1 suite kd dep pkg pver deb
	suite=$(suite_of "$ver") || { echo "vm: kernel $ver is not one of 5.10, 6.1, 6.12" >&2; return 1; }
	kd=$CACHE/k/$ver
	if [ -f "$kd/ready" ] && [ "${VM_REFRESH:-0}" != 1 ] && [ "${_FETCH_FORCE:-0}" != 1 ]; then
		return 0
	fi
	apt_update "$suite" || { echo "vm: apt-get update of $suite from $MIRROR failed: $(grep -E '^(E|W):' "$APT_DIR/update.log" | head -1)" >&2; return 1; }
	# shellcheck disable=SC2046
	dep=$(apt-cache $(apt_opts) show "linux-image-amd64/$suite" 2>/dev/null | sed -n 's/^Depends: *//p' | head -1)
	pkg=$(echo "$dep" | sed -n 's/^\(linux-image-[^ ,]*\) (= \([^)]*\)).*/\1/p')
	pver=$(echo "$dep" | sed -n 's/^\(linux-image-[^ ,]*\) (= \([^)]*\)).*/\2/p')
	[ -n "$pkg" ] && [ -n "$pver" ] || { echo "vm: linux-image-amd64 in $suite names no versioned kernel package (Depends: '${dep:-none}')" >&2; return 1; }
	if [ -f "$kd/ready" ] && [ "$(cat "$kd/package" 2>/dev/null)" = "${pkg}_$pver" ]; then
		return 0
	fi
	mkdir -p "$CACHE/debs" || return 1
	deb=$CACHE/debs/${pkg}_${pver//:/%3a}_amd64.deb
	if [ ! -s "$deb" ]; then
		# shellcheck disable=SC2046
		(cd "$CACHE/debs" && apt-get $(apt_opts) -qq download "$pkg=$pver" >"$CACHE/debs/download.log" 2>&1) ||
			{ echo "vm: apt-get download $pkg=$pver from $suite failed: $(grep -E '^(E|W):' "$CACHE/debs/download.log" | head -1)" >&2; return 1; }
	fi
	deb=$(ls "$CACHE/debs/${pkg}_"*"_amd64.deb" 2>/dev/null | head -1)
	[ -s "$deb" ] || { echo "vm: apt-get download $pkg left no .deb in $CACHE/debs" >&2; return 1; }
	rm -rf "$kd.new" && mkdir -p "$kd.new" || return 1
	dpkg-deb -x "$deb" "$kd.new/root" || { echo "vm: dpkg-deb -x $deb failed" >&2; return 1; }
	# trixie's packages put the modules under /usr/lib only (merged /usr).
	if [ ! -e "$kd.new/root/lib" ] && [ -d "$kd.new/root/usr/lib/modules" ]; then
		ln -s usr/lib "$kd.new/root/lib"
	fi
	local kver
	kver=$(ls "$kd.new/root/lib/modules" 2>/dev/null | head -1)
	[ -n "$kver" ] && [ -f "$kd.new/root/boot/vmlinuz-$kver" ] || { echo "vm: $deb holds no /boot/vmlinuz-* with its modules" >&2; return 1; }
	depmod -b "$kd.new/root" "$kver" || { echo "vm: depmod of $kver failed" >&2; return 1; }
	echo "$kver" >"$kd.new/kver"
	echo "${pkg}_$pver" >"$kd.new/package"
	touch "$kd.new/ready"
	rm -rf "$kd" && mv "$kd.new" "$kd"
	say "kernel $ver: $pkg $pver ($kver) from $suite"
}

# fetch VER...: under a lock, since several runs may share the cache.
fetch() {
	mkdir -p "$CACHE" || die "cannot create the cache $CACHE"
	local v rc=0
	exec 9>"$CACHE/lock"
	flock 9
	for v in "$@"; do fetch_one "$v" || rc=1; done
	flock -u 9
	return $rc
}

# ---- the initramfs: a static busybox and the modules that mount the root ----
ROOT_MODULES="virtio_pci 9pnet_virtio 9p overlay"

# mk_initrd VER OUT.gz
mk_initrd() {
	local ver=$1 out=$2 kd=$CACHE/k/$1 kver d m
	kver=$(cat "$kd/kver")
	d=$(mktemp -d) || return 1
	mkdir -p "$d"/{bin,dev,proc,sys,mnt/lower,mnt/rw,newroot,mod}
	cp /bin/busybox "$d/bin/busybox" || { rm -rf "$d"; echo "vm: no static /bin/busybox (busybox-static)" >&2; return 1; }
	# modprobe resolves the dependencies (against depmod's files); the list keeps
	# its order, a module once. Compressed modules are unpacked here, so that
	# busybox's insmod needs no decompressor.
	: >"$d/mod/order"
	# shellcheck disable=SC2086
	for m in $(modprobe -d "$kd/root" -S "$kver" -a --show-depends $ROOT_MODULES | awk '$1 == "insmod" {print $2}' | awk '!seen[$0]++'); do
		local base
		base=$(basename "$m")
		case "$m" in
		*.ko.xz) base=${base%.xz}; xz -dc "$m" >"$d/mod/$base" ;;
		*.ko.zst) base=${base%.zst}; zstd -qdc "$m" >"$d/mod/$base" ;;
		*.ko.gz) base=${base%.gz}; gzip -dc "$m" >"$d/mod/$base" ;;
		*) cp "$m" "$d/mod/$base" ;;
		esac || { rm -rf "$d"; return 1; }
		echo "$base" >>"$d/mod/order"
	done
	cat >"$d/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /mod/order); do insmod /mod/$m || echo "rt-initrd: insmod $m failed"; done
arg() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" /proc/cmdline; }
KVER=$(arg rt.kver) GUEST_INIT=$(arg rt.init)
o=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o $o,ro,cache=loose hostroot /mnt/lower || { echo "rt-initrd: cannot mount the host's root"; poweroff -f; }
mount -t tmpfs -o mode=0755 rw /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work overlay /newroot || { echo "rt-initrd: overlay failed"; poweroff -f; }
mkdir -p /newroot/lib/modules/$KVER /newroot/vm
mount -t 9p -o $o,ro,cache=loose kmods /newroot/lib/modules/$KVER || echo "rt-initrd: cannot mount the modules"
mount -t 9p -o $o vmout /newroot/vm || echo "rt-initrd: cannot mount the output share"
mount --move /dev /newroot/dev
umount /proc /sys
exec switch_root /newroot /bin/bash "$GUEST_INIT"
EOF
	chmod 755 "$d/init"
	(cd "$d" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
	local rc=$?
	rm -rf "$d"
	return $rc
}

# ---- booting ----
RUN=
QEMU_PIDS=()
cleanup() {
	# timeout passes a TERM on to qemu; qemu's own pid is in its pidfile.
	local p q
	for p in "${QEMU_PIDS[@]}"; do
		q=$(cat "${p#*:}".pid 2>/dev/null)
		kill -TERM "$(cat "${p#*:}".tpid 2>/dev/null)" 2>/dev/null
		[ -n "$q" ] && kill -9 "$q" 2>/dev/null
		wait "${p%%:*}" 2>/dev/null
	done
	if [ -n "$RUN" ]; then
		if [ -n "${KEEP:-}" ]; then say "kept $RUN"; else rm -rf "$RUN"; fi
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# vm_kill PID OUTDIR: stop a VM started by vm_start (its timeout and its qemu).
vm_kill() {
	local q
	q=$(cat "$2.pid" 2>/dev/null)
	kill -TERM "$(cat "$2.tpid" 2>/dev/null)" 2>/dev/null
	[ -n "$q" ] && kill -9 "$q" 2>/dev/null
	wait "$1" 2>/dev/null
}

kvm_usable() { [ -r /dev/kvm ] && [ -w /dev/kvm ]; }

# vm_start NAME VER ACCEL OUTDIR [QEMU ARGS...]: boots in the background; its pid in
# VM_PID. OUTDIR is the VM's /vm (job, env, outputs); the console goes to OUTDIR.console.
vm_start() {
	local name=$1 ver=$2 accel=$3 out=$4 kd=$CACHE/k/$2 kver cpu
	shift 4
	kver=$(cat "$kd/kver")
	# Under TCG a plain qemu64 CPU: with "max" Debian's 5.10 ran even a shell's
	# own loop 3x slower (6.1 1.1x), and the VM tests took 2.7x as long.
	# Debian 13's 6.12 (6.12.117+deb13) stops before its first console line
	# on qemu64 and boots in 10 s with x86-64-v2's features added.
	cpu=qemu64
	[ "$ver" = 6.12 ] && cpu=qemu64,+ssse3,+sse4.1,+sse4.2,+popcnt,+cx16
	[ "$accel" = kvm ] && cpu=host || cpu=${VM_CPU:-$cpu}
	rm -f "$out/booted" "$out/rc"
	# In a subshell whose stderr goes to the log, so that a qemu that aborts makes
	# a status here, not a job-control message; timeout's own pid in OUTDIR.tpid.
	{ timeout -k 5 "$VM_TIMEOUT" qemu-system-x86_64 -name "rocetop-$name" \
		-accel "$accel" -cpu "$cpu" -m "$VM_MEM" -smp 1 \
		-nodefaults -no-user-config -display none -no-reboot \
		-serial "file:$out.console" -monitor none -pidfile "$out.pid" \
		-kernel "$kd/root/boot/vmlinuz-$kver" -initrd "$RUN/initrd-$ver.gz" \
		-append "console=ttyS0 quiet loglevel=3 panic=-1 rt.kver=$kver rt.init=$HERE/guest-init.sh" \
		-fsdev "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap" \
		-device "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot" \
		-fsdev "local,id=kmods,path=$kd/root/lib/modules/$kver,security_model=none,readonly=on" \
		-device "virtio-9p-pci,fsdev=kmods,mount_tag=kmods" \
		-fsdev "local,id=vmout,path=$out,security_model=none" \
		-device "virtio-9p-pci,fsdev=vmout,mount_tag=vmout" \
		"$@" >"$out.qemu" 2>&1 &
	echo $! >"$out.tpid"
	wait $!; } 2>>"$out.qemu" &
	VM_PID=$!
	QEMU_PIDS+=("$VM_PID:$out")
}

# wait_booted OUTDIR PID SECONDS: 0 once the guest wrote OUTDIR/booted, 1 if the
# VM exited or the time ran out first.
wait_booted() {
	local out=$1 pid=$2 n=$(($3 * 10))
	while [ "$n" -gt 0 ]; do
		[ -f "$out/booted" ] && return 0
		kill -0 "$pid" 2>/dev/null || { [ -f "$out/booted" ]; return; }
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# pick_accel: KVM when usable and asked for, else TCG.
pick_accel() {
	case "$VM_ACCEL" in
	kvm | tcg) echo "$VM_ACCEL" ;;
	*) if kvm_usable; then echo kvm; else echo tcg; fi ;;
	esac
}

# boot_one NAME VER OUTDIR [QEMU ARGS]: vm_start with KVM, and TCG when the KVM guest
# does not come up in KVM_BOOT_WAIT seconds (VM_ACCEL=auto). Sets VM_PID, VM_ACCEL_USED.
boot_one() {
	local name=$1 ver=$2 out=$3 accel t0
	shift 3
	accel=$(pick_accel)
	t0=$(date +%s.%N)
	vm_start "$name" "$ver" "$accel" "$out" "$@"
	if [ "$accel" = kvm ] && [ "$VM_ACCEL" = auto ]; then
		if ! wait_booted "$out" "$VM_PID" "$KVM_BOOT_WAIT"; then
			local why
			why=$(grep -m1 'qemu-system-x86_64: ' "$out.qemu" 2>/dev/null | cut -c1-160)
			say "$name: kernel $ver did not boot under KVM (${why:-no init after ${KVM_BOOT_WAIT}s}); falling back to TCG"
			vm_kill "$VM_PID" "$out"
			accel=tcg
			VM_ACCEL=tcg # for the other VMs of this run
			t0=$(date +%s.%N)
			vm_start "$name" "$ver" "$accel" "$out" "$@"
		fi
	fi
	VM_ACCEL_USED=$accel
	VM_T0=$t0
}

# write_job OUTDIR CWD ARGS...: the command and environment the guest runs.
write_job() {
	local out=$1 cwd=$2
	shift 2
	{
		printf 'cd %q 2>/dev/null || cd /\n' "$cwd"
		printf 'exec'
		printf ' %q' "$@"
		printf '\n'
	} >"$out/job"
}

report_boot() {
	local name=$1 ver=$2 out=$3 t0=$4 bt up
	if [ -f "$out/booted" ]; then
		bt=$(python3 -c "import os,sys; print('%.1f' % (os.stat(sys.argv[1]).st_mtime - float(sys.argv[2])))" "$out/booted" "$t0")
		up=$(cut -d' ' -f1 "$out/booted")
		say "$name: kernel $ver ($(cat "$CACHE/k/$ver/kver")) booted under ${VM_ACCEL_USED^^} in ${bt}s (guest uptime ${up}s at init)"
	fi
}

vm_failed() {
	local name=$1 out=$2 rc=$3
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		say "$name: the VM was killed after VM_TIMEOUT=${VM_TIMEOUT}s without finishing its command"
	elif [ ! -f "$out/booted" ]; then
		say "$name: the VM stopped (qemu exit $rc) before its init ran"
	else
		say "$name: the VM stopped (qemu exit $rc) with no exit code from its command"
	fi
	say "$name: qemu said: $(tail -c 400 "$out.qemu" 2>/dev/null | tr '\n' ' ')"
	say "$name: end of the serial console:"
	tail -n 25 "$out.console" 2>/dev/null | sed 's/^/vm:   | /' >&2
}

setup_run() {
	local ver
	RUN=$(mktemp -d "${TMPDIR:-/tmp}/rocetop-vm.XXXXXX") || die "cannot create a run directory"
	chmod 755 "$RUN"
	for ver in "$@"; do
		[ -f "$RUN/initrd-$ver.gz" ] && continue
		mk_initrd "$ver" "$RUN/initrd-$ver.gz" || die "cannot build the initramfs of kernel $ver"
	done
}

cmd_run() {
	local ver=$1 out t_start t_end rc
	shift
	[ "${1:-}" = -- ] && shift
	[ $# -gt 0 ] || die "usage: vm.sh run VER [--] CMD [ARG...]"
	suite_of "$ver" >/dev/null || die "kernel $ver is not one of 5.10, 6.1, 6.12"
	fetch "$ver" || exit 2
	setup_run "$ver"
	out=$RUN/vm
	mkdir -p "$out"
	echo "ROLE=vm" >"$out/env"
	write_job "$out" "$PWD" "$@"
	t_start=$(date +%s.%N)
	boot_one "$ver" "$ver" "$out"
	wait "$VM_PID" 2>/dev/null
	rc=$?
	t_end=$(date +%s.%N)
	report_boot "$ver" "$ver" "$out" "$VM_T0"
	say "$ver: whole run $(python3 -c "print('%.1f' % ($t_end - $t_start))")s"
	[ -f "$out/stdout" ] && cat "$out/stdout"
	[ -f "$out/stderr" ] && cat "$out/stderr" >&2
	if [ -f "$out/rc" ]; then
		exit "$(cat "$out/rc")"
	fi
	vm_failed "$ver" "$out" "$rc"
	[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && exit 124
	exit 125
}

# free_port: a TCP port on 127.0.0.1 nothing listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cmd_pair() {
	local ver=$1 script port t_start t_end rc_a rc_b r rc=0
	shift
	[ $# -gt 0 ] || die "usage: vm.sh pair VER SCRIPT [ARG...]"
	script=$(realpath "$1") || die "no script $1"
	shift
	suite_of "$ver" >/dev/null || die "kernel $ver is not one of 5.10, 6.1, 6.12"
	fetch "$ver" || exit 2
	setup_run "$ver"
	mkdir -p "$RUN/a" "$RUN/b" "$RUN/sync"
	chmod 777 "$RUN/sync"
	for r in a b; do
		{
			echo "ROLE=$r"
			if [ "$r" = a ]; then echo "MY_IP=10.77.0.1 PEER_IP=10.77.0.2 PEER=b"; else echo "MY_IP=10.77.0.2 PEER_IP=10.77.0.1 PEER=a"; fi
			echo "SYNC=/sync VM_VER=$ver"
		} >"$RUN/$r/env"
		write_job "$RUN/$r" "$PWD" bash "$script" "$@"
	done
	port=$(free_port)
	local sync_args=(-fsdev "local,id=sync,path=$RUN/sync,security_model=none" -device "virtio-9p-pci,fsdev=sync,mount_tag=sync")
	t_start=$(date +%s.%N)
	# a listens, b connects: a point-to-point link on 127.0.0.1, no bridge.
	# An e1000 on each end: with virtio-net, a guest's TX queue stopped for
	# good now and then under a loaded TCG host (the watchdog's transmit
	# timeouts, ARP FAILED, every later phase unable to connect), over the
	# socket and the stream netdevs alike; with the e1000 the same runs pass.
	boot_one a "$ver" "$RUN/a" "${sync_args[@]}" \
		-netdev "stream,id=n0,server=on,addr.type=inet,addr.host=127.0.0.1,addr.port=$port" -device "e1000,netdev=n0,mac=52:54:00:77:00:01"
	local pid_a=$VM_PID t0_a=$VM_T0 n=50
	while [ $n -gt 0 ] && ! ss -Hltn "sport = :$port" | grep -q .; do sleep 0.1; n=$((n - 1)); done
	boot_one b "$ver" "$RUN/b" "${sync_args[@]}" \
		-netdev "stream,id=n0,server=off,addr.type=inet,addr.host=127.0.0.1,addr.port=$port" -device "e1000,netdev=n0,mac=52:54:00:77:00:02"
	local pid_b=$VM_PID t0_b=$VM_T0
	# Once one VM has stopped, the other has 30 s to finish (its peer may
	# have crashed), then it is stopped too.
	while kill -0 "$pid_a" 2>/dev/null && kill -0 "$pid_b" 2>/dev/null; do sleep 1; done
	n=30
	while [ $n -gt 0 ] && { kill -0 "$pid_a" 2>/dev/null || kill -0 "$pid_b" 2>/dev/null; }; do sleep 1; n=$((n - 1)); done
	kill -0 "$pid_a" 2>/dev/null && { say "a: still running 30 s after b stopped; stopped"; vm_kill "$pid_a" "$RUN/a"; }
	kill -0 "$pid_b" 2>/dev/null && { say "b: still running 30 s after a stopped; stopped"; vm_kill "$pid_b" "$RUN/b"; }
	wait "$pid_a" 2>/dev/null
	rc_a=$?
	wait "$pid_b" 2>/dev/null
	rc_b=$?
	t_end=$(date +%s.%N)
	report_boot a "$ver" "$RUN/a" "$t0_a"
	report_boot b "$ver" "$RUN/b" "$t0_b"
	say "$ver: pair run $(python3 -c "print('%.1f' % ($t_end - $t_start))")s"
	for r in a b; do
		[ -f "$RUN/$r/stdout" ] && sed "s/^/$r: /" "$RUN/$r/stdout"
		[ -f "$RUN/$r/stderr" ] && sed "s/^/$r: /" "$RUN/$r/stderr" >&2
	done
	[ -f "$RUN/a/rc" ] || { vm_failed a "$RUN/a" "$rc_a"; rc=125; }
	[ -f "$RUN/b/rc" ] || { vm_failed b "$RUN/b" "$rc_b"; rc=125; }
	# The results stay for the caller when it named a directory (also after a
	# failure: what a VM left is evidence), with the serial consoles.
	if [ -n "${VM_RESULTS:-}" ]; then
		cp -a "$RUN/sync/." "$VM_RESULTS/"
		for r in a b; do [ -d "$VM_RESULTS/$r" ] && cp "$RUN/$r.console" "$VM_RESULTS/$r/console"; done
	fi
	[ "$rc" -eq 0 ] || exit $rc
	[ "$(cat "$RUN/a/rc")" -eq 0 ] && [ "$(cat "$RUN/b/rc")" -eq 0 ] || exit 1
}

case "${1:-}" in
fetch)
	shift
	[ $# -gt 0 ] || die "usage: vm.sh fetch VER..."
	_FETCH_FORCE=1 fetch "$@" || exit 2
	;;
run)
	shift
	[ $# -gt 0 ] || die "usage: vm.sh run VER [--] CMD [ARG...]"
	cmd_run "$@"
	;;
pair)
	shift
	[ $# -gt 1 ] || die "usage: vm.sh pair VER SCRIPT [ARG...]"
	cmd_pair "$@"
	;;
*)
	sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
