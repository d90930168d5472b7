#!/usr/bin/python3
"""Every query of the Grafana dashboard must parse and evaluate on a real
Prometheus server that scrapes rocetop.

Usage: check_dashboard.py PROM_URL DASHBOARD_JSON
Grafana's variables are replaced as Grafana would: $__rate_interval by 1m,
$instance by .* (All). Prints PASS or FAIL lines; exit 1 on any FAIL.
"""
import json
import sys
import urllib.parse
import urllib.request

url, path = sys.argv[1:3]
dash = json.load(open(path))
exprs = []
for p in dash["panels"]:
    for t in p.get("targets", []):
        exprs.append((p["title"], t["expr"]))
if dash.get("__inputs", [{}])[0].get("pluginId") != "prometheus":
    print("FAIL prom dashboard: no Prometheus data source input to import with")
    sys.exit(1)
fails = with_data = 0
for title, e in exprs:
    q = e.replace("$__rate_interval", "1m").replace("$instance", ".*")
    try:
        with urllib.request.urlopen(url + "/api/v1/query?" + urllib.parse.urlencode({"query": q}), timeout=5) as r:
            res = json.load(r)
        ok = res.get("status") == "success"
        why = res.get("error", "")
        with_data += bool(ok and res["data"]["result"])
    except urllib.error.HTTPError as err:
        ok, why = False, json.load(err).get("error", str(err))
    if not ok:
        fails += 1
        print("FAIL prom dashboard: panel '%s': %s: %s" % (title, why, q))
if not fails:
    print("PASS prom dashboard: all %d queries of %d panels evaluate on Prometheus (%d with data now)" %
          (len(exprs), len(dash["panels"]), with_data))
sys.exit(1 if fails else 0)
