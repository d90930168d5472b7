#!/usr/bin/python3
"""Hold dist/kubernetes/ to README.md's capability matrix ("Containers and
Kubernetes"): the DaemonSet adds exactly the capabilities the matrix's rows
name after dropping ALL, mounts every host path the rows name read-only from
the same host path, shares the host namespaces they name, runs neither
privileged nor with privilege escalation, under the shipped seccomp profile,
with the requests and limits the README gives; the seccomp profile allows
bpf() and perf_event_open() without conditions; Prometheus's Kubernetes
discovery keeps the DaemonSet's pods and port; the rules ConfigMap holds
exporters/rocetop.rules.yml unchanged. Writes Prometheus's configuration
with the discovery block replaced by a static target, for promtool.

Usage: check_k8s.py OUT_DIR   (run from the top of the tree)
"""
import json
import os
import re
import sys

import yaml

out = sys.argv[1]
fails = []


def check(ok, what):
    print("%s k8s: %s" % ("PASS" if ok else "FAIL", what))
    if not ok:
        fails.append(what)


readme = open("README.md").read()
sec = readme[readme.index("### Containers and Kubernetes"):]
table = sec[sec.index("The capability matrix"):]
rows = [r for r in table.split("\n\n")[1].splitlines() if r.startswith("| ") and not r.startswith("| ---")][1:]
caps, paths, hostns = set(), set(), set()
for r in rows:
    cells = [c.strip() for c in r.strip("|").split("|")]
    caps |= {c.strip() for c in cells[1].split(",") if c.strip() != "none"}
    for w in (w.strip() for w in cells[2].split(",")):
        (paths if w.startswith("/") else hostns).add(w)
check(caps == {"BPF", "PERFMON", "NET_ADMIN", "SYS_PTRACE"} and len(rows) >= 8,
      "README's matrix read: %d rows, capabilities %s" % (len(rows), sorted(caps)))

docs = list(yaml.safe_load_all(open("dist/kubernetes/rocetop-daemonset.yaml")))
ds = [d for d in docs if d["kind"] == "DaemonSet"][0]
spec = ds["spec"]["template"]["spec"]
ctr = spec["containers"][0]
sc = ctr["securityContext"]
check(sc["capabilities"]["drop"] == ["ALL"], "drops ALL capabilities")
check(set(sc["capabilities"]["add"]) == caps and len(sc["capabilities"]["add"]) == len(caps),
      "adds exactly the matrix's capabilities: %s" % sc["capabilities"]["add"])
check(sc.get("privileged") is False and sc.get("allowPrivilegeEscalation") is False and
      sc.get("readOnlyRootFilesystem") is True, "not privileged, no escalation, read-only root")
check(hostns == {"hostNetwork", "hostPID"} and all(spec.get(h) is True for h in hostns),
      "host namespaces as the matrix: %s" % sorted(hostns))
vols = {v["name"]: v for v in spec["volumes"]}
mounts = {m["mountPath"]: m for m in ctr["volumeMounts"]}
for p in sorted(paths):
    m = mounts.get(p)
    ok = m is not None and m.get("readOnly") is True and vols[m["name"]].get("hostPath", {}).get("path") == p
    check(ok, "%s mounted read-only from the host's %s" % (p, p))
extra = [p for p, m in mounts.items() if p not in paths and "hostPath" in vols[m["name"]]]
check(not extra, "no host path beyond the matrix's (%s)" % (extra or "none"))
prof = sc["seccompProfile"]
check(prof["type"] == "Localhost" and os.path.basename(prof["localhostProfile"]) == "rocetop-seccomp.json",
      "seccomp profile: %s" % prof)
seccomp = json.load(open("dist/kubernetes/rocetop-seccomp.json"))
uncond = [r for r in seccomp["syscalls"] if r["action"] == "SCMP_ACT_ALLOW" and not r.get("includes") and
          not r.get("excludes") and not r.get("args")]
for call in ("bpf", "perf_event_open"):
    check(any(call in r["names"] for r in uncond) and
          not any(call in r["names"] for r in seccomp["syscalls"] if r["action"] != "SCMP_ACT_ALLOW"),
          "the seccomp profile allows %s() without conditions" % call)
m = re.search(r"requests and limits \((\w+) and (\w+); (\w+) and (\w+)\)", sec)
res = ctr["resources"]
check(m is not None and [res["requests"]["cpu"], res["requests"]["memory"], res["limits"]["cpu"],
                         res["limits"]["memory"]] == list(m.groups()),
      "requests and limits as README says: %s" % res)
env = {e["name"] for e in ctr["env"]}
dflt = set(re.findall(r"^(ROCETOP_\w+)=", open("dist/rocetop.default").read(), re.M))
check(env == dflt, "the variables are the service's: %s" % sorted(env))
port = [p for p in ctr["ports"] if p["name"] == "metrics"][0]["containerPort"]
listen = [e["value"] for e in ctr["env"] if e["name"] == "ROCETOP_LISTEN"][0]
check(listen.endswith(":%d" % port), "ROCETOP_LISTEN %s serves the metrics port %d" % (listen, port))

# Prometheus: discovery by parsing, the rest by promtool on a static copy.
prom = yaml.safe_load(open("dist/kubernetes/prometheus-scrape.yml"))
job = prom["scrape_configs"][0]
sd = job["kubernetes_sd_configs"][0]
check(job["job_name"] == "rocetop" and sd["role"] == "pod" and
      sd["namespaces"]["names"] == [ds["metadata"]["namespace"]], "discovery: pods of namespace rocetop")
label = ds["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/name"]
keeps = {tuple(r["source_labels"]): r["regex"] for r in job["relabel_configs"] if r.get("action") == "keep"}
check(re.fullmatch(keeps[("__meta_kubernetes_pod_label_app_kubernetes_io_name",)], label) is not None and
      re.fullmatch(keeps[("__meta_kubernetes_pod_container_port_name",)], "metrics") is not None,
      "discovery keeps the DaemonSet's pods (%s) and their metrics port" % label)
cm = yaml.safe_load(open("dist/kubernetes/rocetop-rules.yaml"))
rules = cm["data"]["rocetop.rules.yml"]
check(rules == open("exporters/rocetop.rules.yml").read(), "the ConfigMap holds exporters/rocetop.rules.yml unchanged")
with open(os.path.join(out, "rocetop.rules.yml"), "w") as f:
    f.write(rules)
del job["kubernetes_sd_configs"]
job["static_configs"] = [{"targets": ["node-1:%d" % port]}]
prom["rule_files"] = [os.path.join(out, "rocetop.rules.yml")]
with open(os.path.join(out, "prometheus.yml"), "w") as f:
    yaml.safe_dump(prom, f)
sys.exit(1 if fails else 0)
