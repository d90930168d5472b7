#!/usr/bin/env bash
# The sFlow families of the Prometheus exporter (the switch ports, the drops
# by reason, the agents), rendered by tests/unit/test_sflow.c from byte-built
# datagrams, pass promtool's check of the exposition format.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
T=$(mktemp -d /tmp/rt-sflow-prom.XXXXXX)
trap 'rm -rf "$T"' EXIT
command -v promtool >/dev/null || { echo "SKIP sflow_prom: no promtool"; exit 0; }
PROM_DUMP_DIR=$T "$BUILD/tests/test_sflow" >/dev/null 2>&1
if [ ! -s "$T/sflow.prom" ]; then
	echo "FAIL sflow_prom: test_sflow wrote no metrics"; exit 1
fi
if out=$(promtool check metrics <"$T/sflow.prom" 2>&1); then
	echo "PASS sflow_prom: promtool accepts the sFlow families ($(grep -c '^rocetop_sflow' "$T/sflow.prom") series)"
else
	echo "FAIL sflow_prom: promtool: $out"; exit 1
fi
