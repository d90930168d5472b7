#!/usr/bin/python3
"""Write dist/kubernetes/rocetop-rules.yaml: the alert rules file
(exporters/rocetop.rules.yml) unchanged, as the data of a ConfigMap that
Prometheus mounts (dist/kubernetes/prometheus-scrape.yml lists it).

Usage: gen-rules-configmap.py [RULES_YML] > rocetop-rules.yaml
"""
import sys

HEAD = """# The alert rules (exporters/rocetop.rules.yml, the same text) as a
# ConfigMap, mounted into Prometheus at /etc/prometheus/rocetop
# (dist/kubernetes/prometheus-scrape.yml lists the file). Made by
# dist/kubernetes/gen-rules-configmap.py; tests/image/test_k8s.sh checks that
# it holds the rules file unchanged.
apiVersion: v1
kind: ConfigMap
metadata:
  name: rocetop-rules
  namespace: rocetop
data:
  rocetop.rules.yml: |
"""
src = sys.argv[1] if len(sys.argv) > 1 else "exporters/rocetop.rules.yml"
with open(src) as f:
    rules = f.read()
sys.stdout.write(HEAD + "".join("    " + line if line.strip() else "\n" for line in rules.splitlines(True)))
