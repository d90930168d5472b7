"""A Prometheus server's HTTP API, as the tests ask it: the series a query
returns, each as (its labels, its value), polled until they are what a test
expects or a deadline passes."""
import json
import time
import urllib.parse
import urllib.request


def series(url, q):
    """{frozenset(labels.items()): value string} of the instant query q
    (__name__ among the labels); None and why on an error."""
    u = url + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
    try:
        with urllib.request.urlopen(u, timeout=5) as r:
            res = json.load(r)
    except Exception as e:  # noqa: BLE001 - whatever the API did is the answer
        return None, str(e)
    if res.get("status") != "success":
        return None, "status %s" % res.get("status")
    return {frozenset(s["metric"].items()): s["value"][1] for s in res["data"]["result"]}, None


def poll(url, q, want, deadline):
    """series(url, q) until it equals want or deadline (seconds) passes:
    the last answer and why it failed, if it did."""
    end = time.monotonic() + deadline
    while True:
        got, why = series(url, q)
        if got == want or time.monotonic() > end:
            return got, why
        time.sleep(0.5)
