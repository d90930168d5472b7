#!/usr/bin/env bash
# dist/kubernetes/ against README.md's capability matrix (check_k8s.py: the
# DaemonSet's capabilities, mounts, host namespaces, seccomp profile,
# resources; the discovery block; the rules ConfigMap), then promtool: the
# Prometheus configuration (its Kubernetes discovery swapped for a static
# target: Debian's promtool is built without it) and the ConfigMap's rules.
# No root needed; about 1 s.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_need_cmd k8s promtool
rt_need_py k8s yaml
rt_checks k8s "k8s: "
"$PY" tests/image/check_k8s.py "$T" || fails=$((fails + 1))
if out=$(promtool check config "$T/prometheus.yml" 2>&1); then
	pass "promtool check config accepts dist/kubernetes/prometheus-scrape.yml and the ConfigMap's rules ($(grep -o 'SUCCESS: [0-9]* rules found' <<<"$out"))"
else fail promtool "$out"; fi
[ $fails -eq 0 ]
