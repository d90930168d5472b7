#!/usr/bin/env python3
# rocetop report --html in a real browser: headless Chromium (Selenium and
# chromedriver) opens the page from disk. Run it with the network off (an
# empty network namespace: test_html.sh). Checks, each printed as PASS/FAIL:
#   - no console message of level SEVERE, and no request but the file itself
#     (the Resource Timing entries, the navigation entry);
#   - every number the page shows from the report (an element with
#     data-path) keeps in data-value exactly the value at that path of
#     `rocetop report --json` run on its own, and shows it in the text
#     report's form (fmt_dur, fmt_share below, from user/core/fmt.h's
#     rules): a count as it is, a duration in s/ms/us/ns, a link speed in
#     Mb/s, a share as a percentage; the totals, intervals, duration and
#     the paused seconds of every priority are among them; no table cell
#     holds a raw float (a number with more than 3 decimals);
#   - the episodes: as many as the report's findings, each row's rule,
#     severity, start, length, peak and peak unit those of a finding (as
#     multisets), its UTC text the start's, its length and peak shown in
#     their forms with their units;
#   - every chart holds as many points as the host's intervals, or its
#     buckets when there are more than POINTS; switch ports are drawn when
#     the file has sFlow's;
#   - clicking an episode moves every chart's time axis onto it; clicking a
#     flow draws its chart;
#   - nothing from the file runs as script (pages made from hostile names:
#     test_html.sh): no alert, the title is the page's own, and the page's
#     policy refuses an inline handler added after it drew itself;
#   - the tuning section (report --tune): its rows, host by host, are the
#     report's tuning arrays exactly (every field, as text); no section when
#     the report has none;
#   - optionally: the greatest CE rate a chart holds is SPIKE (a one-second
#     spike kept by the buckets), and a screenshot.
#
#   check_html.py NAME PAGE.html REPORT.json [--shot OUT.png] [--points N] [--spike CE]
#   check_html.py --pages LIST   (a line of LIST: the arguments above, one page)
import argparse, datetime, json, math, os, shlex, sys, time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.check import Checker  # noqa: E402

C = Checker()
ok = C.ok


def at(doc, path):
    v = doc
    for p in path.split('.'):
        v = v[int(p)] if isinstance(v, list) else v[p]
    return v


# The text report's forms, written again from user/core/fmt.h's rules (not
# the page's script): a duration in three significant digits and s, ms, us
# or ns, whole seconds from 1000 s, "0 s" for 0; a share in percent with one
# decimal; a finding's peak with its unit (a share; a bit error rate "%.2e";
# else a count and the noun of what it counts).
def fmt_dur(secs):
    if not secs > 0:
        return "0 s"
    if secs >= 999.5:
        return "%.0f s" % secs
    v, u = secs, 0
    while v < 0.9995 and u < 3:
        v *= 1000
        u += 1
    return ("%.2f" if v < 9.995 else "%.1f" if v < 99.95 else "%.0f") % v + " " + ("s", "ms", "us", "ns")[u]


def fmt_share(v):
    return "%.1f%%" % (100 * v)


def fmt_peak(v, unit):
    if unit == "share":
        return fmt_share(v)
    if unit == "bit error rate":
        return "%.2e %s" % (v, unit)
    return "%.0f %s" % (v, unit)


def form_of(path, v):
    """The text a value of the report's JSON at path is shown as."""
    last = path.split(".")[-1]
    if last in ("duration", "seconds"):
        return fmt_dur(v)
    if last == "link_speed_mbps":
        return "%d Mb/s" % v
    return str(v)


def same(text, v):
    if isinstance(v, bool) or v is None:
        return False
    if isinstance(v, int):
        return text == str(v)
    if isinstance(v, float):
        try:
            return float(text) == v
        except ValueError:
            return False
    return text == str(v)


def browser():
    o = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1400,1000", "--no-first-run", "--disable-extensions"):
        o.add_argument(a)
    o.binary_location = "/usr/bin/chromium"
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)


def files_of(rep):
    return rep["files"] if "files" in rep else [rep]


def want_points(n, pmax):
    k = -(-n // pmax) if n > pmax else 1
    return -(-n // k)


def numbers(name, d, rep):
    cells = d.execute_script(
        "return Array.from(document.querySelectorAll('[data-path]')).map(e => [e.dataset.path, e.dataset.value, e.textContent]);")
    bad = [(p, x, at(rep, p)) for p, x, _ in cells if x is None or not same(x, at(rep, p))]
    ok(name, not bad, "%d numbers on the page keep report --json's exact values (data-value)" % len(cells), str(bad[:5]))
    bad = [(p, t, form_of(p, at(rep, p))) for p, _, t in cells if t != form_of(p, at(rep, p))]
    ok(name, not bad, "each shows in the text report's form with its unit (e.g. %s)" %
       ", ".join(sorted(set("%r" % t for p, _, t in cells if p.endswith(("duration", "seconds"))))[:3]),
       "(path, shown, want) " + str(bad[:5]))
    frac = d.execute_script("return Array.from(document.querySelectorAll('.frac')).map(e => [e.dataset.value, e.textContent]);")
    want = [(p["seconds"] / f["duration"] if f["duration"] > 0 else 0) for f in files_of(rep)
            for p in f["pfc"]["priorities"]]
    got = [float(v) if v is not None else None for v, _ in frac]
    bad = [t for v, t in frac if v is None or t != fmt_share(float(v))]
    ok(name, got == want and not bad, "each priority's share of the time paused is its seconds over the duration, "
       "shown as a percentage (%s)" % [t for _, t in frac][:3], "got %s want %s, shown %s" % (got[:3], want[:3], bad[:3]))
    raw = d.execute_script(
        "return Array.from(document.querySelectorAll('#app td')).map(e => e.textContent).filter(t => /\\d\\.\\d{4,}/.test(t));")
    ok(name, not raw, "no table cell shows a raw float", str(raw[:5]))
    paths = set(p for p, _, _ in cells)
    need = []
    multi = "files" in rep
    for i, f in enumerate(files_of(rep)):
        pre = "files.%d." % i if multi else ""
        need += [pre + "totals." + k for k in ("pkts", "ce", "cnp", "nak", "rnr_nak", "flows")]
        need += [pre + "intervals", pre + "duration"]
        need += [pre + "pfc.priorities.%d.seconds" % j for j in range(len(f["pfc"]["priorities"]))]
    missing = [p for p in need if p not in paths]
    ok(name, not missing, "the page shows the totals, intervals, duration and %d paused priorities" %
       sum(len(f["pfc"]["priorities"]) for f in files_of(rep)), "missing " + str(missing[:5]))


def utc_ms(s):
    ms = math.floor(s * 1000)
    t = datetime.datetime.fromtimestamp(ms // 1000, datetime.timezone.utc)
    return t.strftime("%Y-%m-%d %H:%M:%S") + ".%03d UTC" % (ms % 1000)


def episodes(name, d, rep):
    finds = rep["findings"]
    n = d.find_element(By.ID, "episode-count").text
    ok(name, n == str(len(finds)), "the verdict counts %s episodes, the report %d findings" % (n, len(finds)))
    rows = d.execute_script("""return Array.from(document.querySelectorAll('tr.ep')).map(r => [
        r.querySelector('a.ep-link').textContent, r.querySelector('.sev').textContent,
        r.querySelector('.ep-start').title, r.querySelector('.ep-start').textContent,
        r.querySelector('.ep-dur').dataset.value, r.querySelector('.ep-dur').textContent,
        r.querySelector('.ep-peak').dataset.value, r.querySelector('.ep-peak').dataset.unit,
        r.querySelector('.ep-peak').textContent]);""")
    if any(r[4] is None or r[6] is None for r in rows):
        ok(name, False, "each episode's length and peak keep their exact values (data-value)", str(rows[:2]))
        return rows
    page = sorted((r[0], r[1], float(r[2]), float(r[4]), float(r[6]), r[7]) for r in rows)
    bad = [(r[5], fmt_dur(float(r[4]))) for r in rows if r[5] != fmt_dur(float(r[4]))]
    ok(name, not bad, "each episode's length shown as a duration (%s)" % sorted(set(r[5] for r in rows))[:3],
       "(shown, want) " + str(bad[:3]))
    bad = [(r[8], fmt_peak(float(r[6]), r[7])) for r in rows if not r[7] or r[8] != fmt_peak(float(r[6]), r[7])]
    ok(name, not bad, "each episode's peak shown with its unit (%s)" % sorted(set(r[8] for r in rows))[:4],
       "(shown, want) " + str(bad[:3]))
    rep_ = sorted((f["rule"], f["severity"], f["start"], f["end"] - f["start"], f["peak"], f.get("peak_unit"))
                  for f in finds)
    ok(name, page == rep_, "each episode's rule, severity, start, length, peak and unit are a finding's of the report",
       "page %s report %s" % (page[:3], rep_[:3]))
    # the units the rules give (rules.c): a share of time paused or the NIC's
    # pause-storm counter, pause frames on a victim's priority, a share of CE
    units = {"pfc-storm": ("share", "pause-storm events"), "victim": ("pause frames",),
             "pause-without-ecn": ("pause frames",), "congestion": ("share",)}
    bad = [(f["rule"], f.get("peak_unit"), f["peak"]) for f in finds
           if f["rule"] in units and f.get("peak_unit") not in units[f["rule"]]
           or f.get("peak_unit") == "share" and not 0 < f["peak"] <= 1]
    ok(name, not bad, "the report's peak units are the rules': %s" %
       sorted(set((f["rule"], f.get("peak_unit")) for f in finds)), str(bad[:3]))
    bad = [r for r in rows if r[3] != utc_ms(float(r[2]))]
    ok(name, not bad, "each episode's UTC start is its start", str(bad[:2]))
    shown = d.execute_script("return Array.from(document.querySelectorAll('tr.ep')).filter(r => r.offsetParent).length")
    ok(name, shown == min(10, len(finds)), "the verdict shows the top %d" % shown)
    return rows


def charts(name, d, rep, pmax):
    got = d.execute_script("return window.rocetop.charts.map(g => [g.rtHost, g.numRows(), g.rtTitle, !!g.rtProbe]);")
    # a probed peers' chart: a row per time any peer has (their own timelines, report_probe.h)
    ptimes = d.execute_script("return window.rocetop.data.hosts.map(h => new Set([].concat(...(h.probes || [])"
                              ".map(p => p.t))).size);")
    fs = files_of(rep)
    bad = [(h, n, t) for h, n, t, pr in got if n != (ptimes[h] if pr else want_points(fs[h]["intervals"], pmax))]
    got = [x[:3] for x in got]
    ok(name, got and not bad, "%d charts each hold the points of their host's %s intervals" %
       (len(got), "/".join(str(f["intervals"]) for f in fs)), str(bad[:3]))
    ports = d.execute_script("return window.rocetop.data.hosts.map(h => h.ports.length);")
    sw = sum(1 for _, _, t in got if "switch ports" in t)
    ok(name, sw == 2 * sum(1 for p in ports if p), "%d switch port charts for the %d ports sFlow saw" % (sw, sum(ports)))


def legends(name, d):
    """Each chart's legend lies outside the chart's box (its plot, axis
    labels and titles): the boxes of the two do not intersect."""
    got = d.execute_script("""return window.rocetop.charts.map(g => {
        var a = g.graphDiv.getBoundingClientRect(), b = g.rtLegend ? g.rtLegend.getBoundingClientRect() : null,
            l = g.graphDiv.querySelector('.dygraph-legend');
        if (!b && l) b = l.getBoundingClientRect();
        return [g.rtTitle, a.left, a.top, a.right, a.bottom, b ? [b.left, b.top, b.right, b.bottom] : null,
                b ? b.height : 0, g.getLabels().length - 1];
    });""")
    bad = []
    for t, l, tp, r, bt, lb, lh, n in got:
        if lb is None or lh <= 0:
            bad.append((t, "no legend"))
        elif lb[0] < r and l < lb[2] and lb[1] < bt and tp < lb[3]:
            bad.append((t, "legend %s over the chart %s" % (lb, [l, tp, r, bt])))
    most = max((n for *_, n in got), default=0)
    ok(name, got and not bad, "%d charts' legends (up to %d entries) lie outside their charts' boxes" % (len(got), most),
       str(bad[:3]))


def click_episode(name, d, rep):
    full = d.execute_script("return window.rocetop.charts[0].xAxisRange();")
    eps = d.execute_script("return window.rocetop.data.episodes;")
    span = (full[1] - full[0]) / 1000
    pick = next((i for i, e in enumerate(eps[:10]) if e["end"] - e["start"] < span / 2), None)
    if pick is None:
        ok(name, not eps, "no episode shorter than the recording to click")
        return
    e = eps[pick]
    d.find_element(By.CSS_SELECTOR, "a.ep-link[data-ep='%d']" % pick).click()
    time.sleep(0.3)
    rs = d.execute_script("return window.rocetop.charts.map(g => g.xAxisRange());")
    a, b = e["start"] * 1000, e["end"] * 1000
    good = all(r[0] <= a and r[1] >= b and r[1] - r[0] < full[1] - full[0] for r in rs)
    ok(name, good, "clicking episode %d (%s, %.3f s) moves all %d time axes onto it" %
       (pick, e["rule"], e["end"] - e["start"], len(rs)), "axes %s, episode [%s, %s]" % (rs[:2], a, b))


def click_flow(name, d, rep, pmax):
    rows = d.find_elements(By.CSS_SELECTOR, "tr.flow")
    if not rows:
        ok(name, True, "no flow to click (none congested)")
        return
    rows[0].click()
    time.sleep(0.3)
    got = d.execute_script("""return window.rocetop.charts.filter(g => g.rtFlow).map(g => [g.rtHost, g.numRows()]);""")
    fs = files_of(rep)
    ok(name, len(got) == 1 and got[0][1] == want_points(fs[got[0][0]]["intervals"], pmax),
       "clicking a flow draws its chart", str(got))


def clocks(name, d, rep):
    if "clock_offsets" not in rep:
        return
    text = d.execute_script("var e = document.getElementById('clock-offsets'); return e ? e.textContent : '';")
    want = []
    for c in rep["clock_offsets"][1:]:
        if c["estimated"] and "same_host_as" in c:
            want.append("%s %+.3f s: the same host as %s (applied)" % (c["host"], c["offset_s"], c["same_host_as"]))
        elif c["estimated"]:
            want.append("%s %+.3f s against %s from %d shared flows (applied)" %
                        (c["host"], c["offset_s"], c["against"], c["flows"]))
        else:
            want.append("%s not estimated: %s" % (c["host"], c["why"]))
    ok(name, all(w in text for w in want), "the page states each host's clock offset as the report does: %s" % want,
       "the page says: %s" % text)


def pause_origin(name, d, rep):
    """The page's pause-origin tables say what report --json does."""
    if not rep.get("pause_origin"):
        return
    got = d.execute_script(
        "return Array.from(document.querySelectorAll('table.pause-origin tr.po-host'))"
        ".map(r => Array.from(r.cells).map(c => c.textContent));")
    heads = d.execute_script(
        "return Array.from(document.querySelectorAll('p.po-head')).map(p => p.textContent);")
    want = [[h["host"], h["role"], "%s %s%s" % (h["from"], h["from_if"], "" if h["linked"] else " (by time only)")
             if "from" in h else ""] for p in rep["pause_origin"] for h in p["hosts"]]
    want_heads = ["Priority %s: %s%s" % (p["prio"], "origin " + " and ".join(
        "%s %s" % (o["host"], o["ifname"]) for o in p["origins"]) if p["origins"] else "no origin named",
        "" if p["decided"] else " (not decided)") for p in rep["pause_origin"]]
    ok(name, [[r[0].lstrip("\u2003"), r[1], r[4]] for r in got] == want and heads == want_heads,
       "the page's pause origin: %s" % want_heads, "the page: %s %s" % (heads, got))


TUNE_FIELDS = ("kind", "setting", "scope", "current", "recommended", "evidence", "command", "confidence")


def tuning(name, d, rep):
    """The page's tuning rows are report --json's tuning arrays, field by field."""
    got = d.execute_script(
        "return Array.from(document.querySelectorAll('table.tuning tr.tune'))"
        ".map(r => Array.from(r.cells).map(c => c.textContent));")
    section = d.execute_script("return !!document.getElementById('tuning');")
    labels = d.execute_script("return window.rocetop.data.hosts.map(h => h.label);")
    fs = files_of(rep)
    if not any("tuning" in f for f in fs):
        ok(name, not section and not got, "no tuning section: the report was not asked for one",
           "a section with %s" % got[:2])
        return
    want = [[labels[i]] + [r[k] for k in TUNE_FIELDS] for i, f in enumerate(fs) for r in f.get("tuning", [])]
    ok(name, section and got == want, "the tuning section's %d rows are report --json's tuning array exactly (%s)" %
       (len(want), "; ".join("%s %s: %s -> %s" % (r[2], r[3], r[4], r[5][:40]) for r in want)[:300]),
       "page %s, report %s" % (got[:3], want[:3]))


def probes(name, d, rep):
    """The page's probe rows are report --json's probes rows (names from the file as text), and its
    episodes list holds each probe episode."""
    got = d.execute_script(
        "return Array.from(document.querySelectorAll('table.probes tr.probe'))"
        ".map(r => Array.from(r.cells).map(c => c.textContent));")
    neps = d.execute_script("return document.querySelectorAll('#probes li.probe-ep').length;")
    labels = d.execute_script("return window.rocetop.data.hosts.map(h => h.label);")
    fs = files_of(rep)
    if not any("probes" in f for f in fs):
        ok(name, not got, "no probes section: the recording holds no probe rows", "rows %s" % got[:2])
        return

    def us(v):
        return "-" if v < 0 else "%.1f us" % v
    want = [[labels[i], r["peer"], r["addr"], str(r["path"]), "0x%x" % r["flow_label"], str(r["udp_sport"]),
             str(r["size"]), str(r["sent"]), str(r["lost"]), "%.2f%%" % r["loss_pct"], us(r["rtt_p50_us"]),
             us(r["net_p50_us"]), us(r["resp_p50_us"]), r["clock"]]
            for i, f in enumerate(fs) for r in f.get("probes", {"rows": []})["rows"]]
    weps = sum(len(f["probes"]["episodes"]) for f in fs if "probes" in f)
    ok(name, got == want and neps == weps,
       "the probes section's %d rows are report --json's, field by field, as text (peers %s), and its %d episodes" %
       (len(want), sorted(set(r[1] for r in want)), weps), "page %s, report %s, episodes %d" % (got[:3], want[:3], neps))


# Before the page's own scripts: count alerts (a script from a name would call one).
COUNT_ALERTS = "window.rtAlerts = 0; window.alert = window.confirm = window.prompt = function () { window.rtAlerts++; };"


def no_script(name, d):
    """Nothing from the file ran, and the policy refuses any inline handler."""
    n = d.execute_script("return window.rtAlerts;")
    t = d.execute_script("return document.title;")
    ok(name, n == 0 and t == "rocetop report", "no alert and the page's own title",
       "%s alerts, title %r" % (n, t))
    early = [l for l in d.get_log("browser") if l.get("level") == "SEVERE"]
    d.execute_script("""var i = document.createElement('img'); i.setAttribute('onerror', 'window.rtProbe = 1');
        i.src = 'data:,x'; document.body.appendChild(i);""")
    time.sleep(0.3)
    ran = d.execute_script("return window.rtProbe === 1;")
    ok(name, not ran, "the page's policy refuses an inline handler", "an inline onerror ran")
    d.execute_script("document.body.lastChild.remove();")
    # the probe's own refusal is the one console error it may cause
    probe = [l for l in d.get_log("browser") if l.get("level") == "SEVERE"]
    ok(name, len(probe) <= 1 and all("Content Security Policy" in l.get("message", "") for l in probe),
       "the probe's refusal is the only console message it caused", str(probe[:3]))
    return early


def check_page(d, a):
    """Every check of one page (a: its arguments) in the browser d."""
    rep = json.load(open(a.report))
    url = "file://" + os.path.abspath(a.page)
    d.get(url)
    for _ in range(100):
        if d.execute_script("return !!window.rocetop;"):
            break
        time.sleep(0.1)
    ok(a.name, d.execute_script("return !!window.rocetop;"), "the page drew itself")
    res = d.execute_script("return performance.getEntriesByType('resource').map(e => e.name);")
    nav = d.execute_script("return performance.getEntriesByType('navigation').map(e => e.name);")
    ok(a.name, res == [] and nav == [url], "no request but the file itself", "resources %s, navigation %s" % (res, nav))
    early = no_script(a.name, d)
    numbers(a.name, d, rep)
    episodes(a.name, d, rep)
    charts(a.name, d, rep, a.points)
    legends(a.name, d)
    clocks(a.name, d, rep)
    pause_origin(a.name, d, rep)
    tuning(a.name, d, rep)
    probes(a.name, d, rep)
    if a.spike is not None:
        top = d.execute_script("""var g = window.rocetop.charts[0], i = g.getLabels().indexOf('CE marks/s'), m = 0;
            for (var r = 0; r < g.numRows(); r++) { var v = g.rawData_[r][i]; m = Math.max(m, Array.isArray(v) ? v[2] : v); }
            return m;""")
        ok(a.name, top == float("%.4g" % a.spike), "the one-second spike of %d CE/s is the chart's greatest value" % a.spike,
           "the chart's greatest CE rate is %s" % top)
    if a.shot:
        h = d.execute_script("return document.body.scrollHeight;")
        d.set_window_size(1400, min(max(h + 50, 1000), 16000))
        time.sleep(0.3)
        d.save_screenshot(a.shot)
        d.set_window_size(1400, 1000)
    click_episode(a.name, d, rep)
    click_flow(a.name, d, rep, a.points)
    errs = early + [l for l in d.get_log("browser") if l.get("level") == "SEVERE"]
    # leave the page, so that what it logs on the way out is its own
    d.get("about:blank")
    errs += [l for l in d.get_log("browser") if l.get("level") == "SEVERE"]
    ok(a.name, not errs, "no console error", str(errs[:3]))


def parser():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("page")
    ap.add_argument("report")
    ap.add_argument("--shot")
    ap.add_argument("--points", type=int, default=2000)
    ap.add_argument("--spike", type=int)
    return ap


# One browser for every page: check_html.py NAME PAGE REPORT [...], or
# check_html.py --pages LIST, where each line of LIST holds one page's
# arguments in that form (split as the shell would). A page whose checks
# crash fails and the next is checked.
def main():
    if sys.argv[1:2] == ["--pages"] and len(sys.argv) == 3:
        pages = [parser().parse_args(shlex.split(l)) for l in open(sys.argv[2]) if l.strip()]
    else:
        pages = [parser().parse_args()]
    d = browser()
    try:
        d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": COUNT_ALERTS})
        for a in pages:
            try:
                check_page(d, a)
            except Exception as e:  # noqa: BLE001 (one page's crash is that page's failure)
                ok(a.name, False, "the page's checks ran to the end", "%s: %s" % (type(e).__name__, e))
                d.get("about:blank")
                d.get_log("browser")
    finally:
        d.quit()
    C.done()


if __name__ == "__main__":
    main()
