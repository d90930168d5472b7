#!/usr/bin/env bash
# The shipped alert rules and Alertmanager example: promtool checks the rules
# and runs their unit tests (exporters/rocetop.rules.test.yml, hand-written
# series and the alerts expected of them); amtool checks the example.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_need_cmd rules promtool amtool
fails=0
if out=$(promtool check rules exporters/rocetop.rules.yml 2>&1); then
	echo "PASS rules: promtool check rules: $(echo "$out" | grep -o '[0-9]* rules found')"
else echo "FAIL rules: promtool check rules: $out"; fails=$((fails + 1)); fi
if out=$(cd exporters && promtool test rules rocetop.rules.test.yml 2>&1); then
	echo "PASS rules: promtool test rules: $(grep -c 'eval_time:' exporters/rocetop.rules.test.yml) alert checks"
else echo "FAIL rules: promtool test rules: $out"; fails=$((fails + 1)); fi
if out=$(amtool check-config exporters/alertmanager.yml 2>&1); then
	echo "PASS rules: amtool check-config accepts exporters/alertmanager.yml"
else echo "FAIL rules: amtool check-config: $out"; fails=$((fails + 1)); fi
[ $fails -eq 0 ]
