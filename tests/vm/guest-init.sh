#!/bin/bash
# PID 1 of a rocetop test VM (tests/vm/vm.sh), started by the initramfs after
# switch_root onto the host's root file system (read-only 9p under a tmpfs overlay).
# /vm is the run's writable share: env (ROLE and the like), job (the command), and
# what comes back: booted (the guest's uptime when init started), stdout, stderr, rc.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs -o mode=1777 tmp /tmp
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
cut -d' ' -f1 /proc/uptime >/vm/booted
bash /vm/job </dev/null >/vm/stdout 2>/vm/stderr
echo $? >/vm/rc.tmp
sync
mv /vm/rc.tmp /vm/rc
sync
echo o >/proc/sysrq-trigger
sleep 10
