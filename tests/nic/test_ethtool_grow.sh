#!/usr/bin/env bash
# The ethtool statistics read through the ioctl when the driver's count grows
# between the calls (a channel added, an XDP program attached): the kernel
# writes as many strings and values as the driver counts when it answers,
# whatever count it was given (net/ethtool/ioctl.c), so a buffer sized by the
# first call is overrun. ethtool_grow.c (LD_PRELOAD) answers as such a driver
# (4 statistics counted, 68 written) and exits 99 where the kernel would
# overrun rocetop's buffer; rocetop doctor -i lo reads the statistics live and
# must name the pause counters among the first 4: priorities 0 (sent) and 3
# (received).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
name=ethtool_grow
rt_need_cmd $name "${CC:-gcc}"
[ -x "$ROCETOP" ] || { echo "FAIL $name: $ROCETOP not built"; exit 1; }
rt_tmpdir tmp
"${CC:-gcc}" -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -o "$tmp/grow.so" tests/nic/ethtool_grow.c -ldl ||
	{ echo "FAIL $name: cannot build the ioctl shim"; exit 1; }
LD_PRELOAD=$tmp/grow.so "$ROCETOP" doctor -i lo -d 0 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && grep -qx '  PFC frames counted on: 0,3' "$tmp/out"; then
	echo "PASS $name: a statistics count grown between the ioctls overruns nothing; the pause counters read"
else
	echo "FAIL $name: exit $rc, $(head -c 300 "$tmp/err") $(grep 'PFC frames' "$tmp/out")"
	exit 1
fi
