#!/usr/bin/env bash
# The floors of user space (tests/structure/layers.py): user/lib/ includes and
# calls nothing else of the tree, rocetop-gen (gen/) includes only its own
# headers and user/lib's, the core includes and calls nothing above it, the
# NIC code nothing of the commands, the sinks and exporters nothing of the
# sources, and nothing but the commands uses the report (user/report/); the
# core's objects, and tui/'s, call each other in no circle. Checked on this tree and its
# objects, then on copies with one breach each put in, which the check must
# name.
. "$(dirname "$0")/../lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
CHECK=tests/structure/layers.py
PYTHON=${PYTHON:-python3}
OBJ=$BUILD/obj

rt_need_cmd layers nm cc
[ -f "$OBJ/user/core/loop.o" ] || { echo "FAIL layers: no objects under $OBJ: build first (make)"; exit 1; }

if out=$($PYTHON $CHECK . "$OBJ" 2>&1); then
	echo "PASS layers: this tree keeps its floors"
else
	echo "FAIL layers: this tree breaks its floors:"
	echo "$out" | sed 's/^/  /'
fi

rt_tmpdir T
copy() {
	rm -rf "$T/src" "$T/obj"
	mkdir -p "$T/src"
	cp -a user tui exporters bpf gen "$T/src/"
	cp -a "$OBJ" "$T/obj"
}
# expect NAME PATTERN: the check fails on the copy and prints PATTERN.
expect() {
	local out rc
	out=$($PYTHON $CHECK "$T/src" "$T/obj" 2>/dev/null)
	rc=$?
	if [ "$rc" -eq 1 ] && grep -qF -- "$2" <<<"$out"; then
		echo "PASS layers-$1: the check says: $(grep -F -- "$2" <<<"$out" | head -1)"
	else
		echo "FAIL layers-$1: exit $rc, wanted 1 and a line with '$2'; it said:"
		echo "$out" | sed 's/^/  /'
	fi
}
# probe FILE CODE: a source file in the copy, compiled to its object there.
probe() {
	printf '%s\n' "$2" >"$T/src/$1"
	cc -c -o "$T/obj/${1%.c}.o" "$T/src/$1"
}

copy
sed -i '0,/#include "/s//#include "sflow.h"\n#include "/' "$T/src/user/core/stream.c"
expect core-include 'user/core/stream.c: includes "sflow.h", not a header of user/lib or user/core or bpf'

copy
sed -i '0,/#include "/s//#include "fmt.h"\n#include "/' "$T/src/user/lib/num.c"
expect lib-include 'user/lib/num.c: includes "fmt.h", not a header of user/lib (it is user/core'"'"'s)'

copy
probe user/lib/zz_probe.c 'struct rt_delta; int rt_fmt_bits(char *b, unsigned long n, double v); int zz(char *b) { return rt_fmt_bits(b, 8, 1); }'
expect lib-call 'user/lib/zz_probe.c: calls rt_fmt_bits of user/core/fmt.c'

copy
sed -i '0,/#include "/s//#include "snapshot.h"\n#include "/' "$T/src/gen/gen_util.c"
expect gen-include 'gen/gen_util.c: includes "snapshot.h", not a header of gen or user/lib'

copy
probe user/core/zz_probe.c 'struct rt_nic; struct rt_nic *rt_nic_new(const void *o); struct rt_nic *zz(void) { return rt_nic_new(0); }'
expect core-call 'user/core/zz_probe.c: calls rt_nic_new of user/nic/nic.c'

copy
probe user/core/zz_a.c 'int zz_b(int); int zz_a(int x) { return x ? zz_b(x - 1) : 0; }'
probe user/core/zz_b.c 'int zz_a(int); int zz_b(int x) { return x ? zz_a(x - 1) : 1; }'
expect core-circle 'user/core/zz_a.c -> user/core/zz_b.c -> user/core/zz_a.c call each other in a circle'

copy
probe tui/zz_a.c 'int zz_b(int); int zz_a(int x) { return x ? zz_b(x - 1) : 0; }'
probe tui/zz_b.c 'int zz_a(int); int zz_b(int x) { return x ? zz_a(x - 1) : 1; }'
expect tui-circle 'tui: tui/zz_a.c -> tui/zz_b.c -> tui/zz_a.c call each other in a circle'

copy
sed -i '0,/#include "/s//#include "cmd.h"\n#include "/' "$T/src/user/nic/nic_dcb.c"
expect nic-cmd 'user/nic/nic_dcb.c: includes "cmd.h" of user/cmd/'

copy
sed -i '0,/#include "/s//#include "sflow_decode.h"\n#include "/' "$T/src/user/sinks/batch.c"
expect sink-source 'user/sinks/batch.c: includes "sflow_decode.h" of user/sources/'

copy
probe exporters/zz_probe.c 'int rt_sflow_fd(const void *sf); int zz(const void *sf) { return rt_sflow_fd(sf); }'
expect exporter-call 'exporters/zz_probe.c: calls rt_sflow_fd of user/sources/sflow.c'

copy
sed -i '0,/#include "/s//#include "report_agg.h"\n#include "/' "$T/src/user/sinks/batch.c"
expect sink-report 'user/sinks/batch.c: includes "report_agg.h" of user/report/'

copy
sed -i '0,/#include "/s//#include "cmd.h"\n#include "/' "$T/src/user/report/report_agg.c"
expect report-cmd 'user/report/report_agg.c: includes "cmd.h" of user/cmd/'
