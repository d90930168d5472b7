#!/bin/bash
# PID 1 of a rocetop test VM (tests/vm/vm.sh), started by the initramfs after
# switch_root onto the host's root file system (read-only 9p under a tmpfs overlay).
# /vm is the run's writable share: env (ROLE and the like), job (the command), and
# what comes back: booted (the guest's uptime when init started), stdout, stderr, rc.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
mount -t proc proc /proc
mount -t sysfs sys /sys
# /tmp stays the overlay's (the host's, writes kept in the guest): a tmpfs
# there would hide a work tree under /tmp, where a CI clone may be.
mount -t tmpfs -o mode=0755 run /run
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs shm /dev/shm
mount -t bpf bpf /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup
ip link set lo up
ulimit -l unlimited
# shellcheck disable=SC1091
set -a; . /vm/env; set +a
hostname "rt-${ROLE:-vm}"
# vm.sh pair: the share both VMs see, and the link between them (no udev here:
# the driver is loaded by name; IPv6 off so that only the test's packets cross).
if [ -n "${SYNC:-}" ]; then
	mkdir -p "$SYNC" && mount -t 9p -o trans=virtio,version=9p2000.L sync "$SYNC"
fi
if [ -n "${MY_IP:-}" ]; then
	modprobe e1000
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip addr add "$MY_IP/24" dev eth0
	# The e1000's largest receive ring (256 by default): a vCPU the loaded
	# host holds off for a while misses frames once the ring is full (b's
	# rx_missed_errors, and frames a's capture sent that b's never saw, in
	# the deep phase of tests/vm/rdma-pair.sh beside other work).
	ethtool -G eth0 rx 4096 2>/dev/null
	ip link set eth0 up
fi
cut -d' ' -f1 /proc/uptime >/vm/booted
bash /vm/job </dev/null >/vm/stdout 2>/vm/stderr
echo $? >/vm/rc.tmp
sync
mv /vm/rc.tmp /vm/rc
sync
echo o >/proc/sysrq-trigger
sleep 10
