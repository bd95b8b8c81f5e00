#!/usr/bin/env python3
"""opmfu_report.html in a real headless browser (SPEC 23, docs/html.md): Debian's chromium driven
by chromedriver over the W3C WebDriver protocol (Python's urllib, no selenium).
usage: html_browser.py OPMFU SOURCE_ROOT [SCREENSHOT]

Chromium runs with the network shut (a proxy on a closed port, every host name unresolved) on
top of the page's own Content-Security-Policy. For each page: the browser's console must hold
no message of level SEVERE or WARNING (a CSP refusal, a failed load, a script error all are);
the median step, step time, trace MFU and the top hotspot read from the DOM equal OpmfuRun's and
OpmfuHotspots' first row in the result database; clicking the "Recoverable time (ms)" header of
the op types table sorts its rows ascending, a second click descending (checked against the
rows' values); the only script element is the page's own; a screenshot is taken.

Pages: fixtures/coll_skew (collectives, culprits), fixtures/steps_waterfall, the diff of
fixtures/diff_inputs, a page with hostile names (the module, op and kernel names of
html_report.py's hostile case: the DOM's textContent of their cells is the name, and no script
but the page's ran: window.opmfuPwned stays undefined), and the real Ascend level1 export and
a real Kineto trace when ../shared/real is there (else said and left out).

Exits 77 (skipped) only when chromium or chromedriver is not installed or cannot start, saying
why; installed, it runs for real. SCREENSHOT: where to keep the real level1 page's screenshot
(docs/html.md's; default: not kept).
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

OPMFU = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2])
KEEP = sys.argv[3] if len(sys.argv) > 3 else None
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests", "cli"))
from build_fixture import build_tree  # noqa: E402
from html_page import shown_name  # noqa: E402
import sqlite3  # noqa: E402

REPORT = os.path.join("cluster_analysis_output", "opmfu_report.html")
fails = []


def find(*names):
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None


class Driver:
    """A chromedriver process and one session."""

    def __init__(self, tmp):
        self.proc = None
        chromium = find("chromium", "chromium-browser")
        driver = find("chromedriver")
        if not chromium or not driver:
            raise RuntimeError("chromium%s is not installed (Debian: apt-get install chromium chromium-driver)" %
                               ("" if chromium else "") + ("" if driver else ", chromedriver"))
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.log = open(os.path.join(tmp, "chromedriver.log"), "w")
        self.proc = subprocess.Popen([driver, "--port=%d" % self.port], stdout=self.log, stderr=subprocess.STDOUT)
        self.base = "http://127.0.0.1:%d" % self.port
        for _ in range(100):
            try:
                self.req("GET", "/status")
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        else:
            raise RuntimeError("chromedriver did not start")
        args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--user-data-dir=" + os.path.join(tmp, "profile"), "--window-size=1280,2000",
                # the network shut: no proxy answers, no name resolves
                "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--disable-extensions"]
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:chromeOptions": {"binary": chromium, "args": args},
            "goog:loggingPrefs": {"browser": "ALL"}}}}
        r = self.req("POST", "/session", caps, timeout=60)
        self.sid = r["value"]["sessionId"]

    def req(self, method, path, body=None, timeout=30):
        data = json.dumps(body).encode() if body is not None else None
        rq = urllib.request.Request(self.base + path, data=data, method=method,
                                    headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(rq, timeout=timeout) as f:
                return json.loads(f.read().decode())
        except urllib.error.HTTPError as e:
            raise RuntimeError("%s %s: %s" % (method, path, e.read().decode()[:500]))

    def s(self, method, path, body=None):
        return self.req(method, "/session/%s%s" % (self.sid, path), body)["value"]

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def logs(self):
        return self.s("POST", "/se/log", {"type": "browser"})

    def quit(self):
        try:
            if getattr(self, "sid", None):
                self.req("DELETE", "/session/" + self.sid)
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        if self.proc:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


def db_values(db):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    con.text_factory = bytes
    run = con.execute("SELECT median_step, step_ns, trace_mfu FROM OpmfuRun").fetchone()
    hot = con.execute("SELECT kind, name, recoverable_ns FROM OpmfuHotspots ORDER BY rowid LIMIT 1").fetchone()
    con.close()
    return run, hot


READ = """
function v(id){var e=document.getElementById(id);return e?e.getAttribute('data-v'):null;}
var t=document.getElementById('top-hotspot');
return {median_step:v('median-step'), step_ns:v('step-time'), trace_mfu:v('trace-mfu'),
  top_v:t?t.getAttribute('data-v'):null, top_kind:t?t.getAttribute('data-kind'):null,
  top_name:t?t.querySelector('.name').textContent:null, scripts:document.scripts.length,
  script_src:Array.prototype.map.call(document.scripts,function(s){return s.src;}),
  pwned:typeof window.opmfuPwned, title:document.title};
"""


def num_eq(got, want):
    if want is None:
        return got == ""
    try:
        return float(got) == float(want)
    except (TypeError, ValueError):
        return False


def check_page(drv, name, page, db, shot=None):
    drv.logs()  # the earlier pages' messages: this page's are read after it is done with
    drv.s("POST", "/url", {"url": "file://" + page})
    got = drv.js(READ)
    if db:
        run, hot = db_values(db)
        for k, want in (("median_step", run[0]), ("step_ns", run[1]), ("trace_mfu", run[2])):
            if not num_eq(got[k], want):
                fails.append("%s: DOM %s %r, OpmfuRun %r" % (name, k, got[k], want))
        if hot:
            if not num_eq(got["top_v"], hot[2]) or got["top_kind"] != hot[0].decode() or \
                    got["top_name"] != shown_name(hot[1]):
                fails.append("%s: DOM top hotspot %r, OpmfuHotspots %r" % (name, (got["top_kind"], got["top_name"],
                                                                                 got["top_v"]), hot))
    if got["scripts"] != 1 or got["script_src"] != [""] or got["pwned"] != "undefined":
        fails.append("%s: scripts %r (src %r), opmfuPwned %s" % (name, got["scripts"], got["script_src"],
                                                                 got["pwned"]))
    if shot:  # before a click scrolls the page
        png = base64.b64decode(drv.s("GET", "/screenshot"))
        if not png.startswith(b"\x89PNG") or len(png) < 1000:
            fails.append("%s: no screenshot" % name)
        with open(shot, "wb") as f:
            f.write(png)
    check_sort(drv, name)
    bad = [m for m in drv.logs() if m.get("level") in ("SEVERE", "WARNING")]
    if bad:
        fails.append("%s: console: %r" % (name, [m.get("message") for m in bad]))
    print("%-24s %s" % (name, "ok" if not any(f.startswith(name + ":") for f in fails) else "FAILED"))
    return got


def column(drv, table, col):
    return drv.js("var t=document.getElementById(arguments[0]),i=arguments[1];if(!t)return null;"
                  "return Array.prototype.map.call(t.tBodies[0].rows,function(r){return r.cells[i]"
                  ".getAttribute('data-v');});", table, col)


def check_sort(drv, name):
    """A click on the op types' "Recoverable time (ms)" header sorts ascending, a second descending."""
    for table in ("hot-op-type", "hot-kernel", "hot-collective"):
        heads = drv.js("var t=document.getElementById(arguments[0]);return t?Array.prototype.map.call("
                       "t.tHead.rows[0].cells,function(c){return c.textContent;}):null;", table)
        if heads is None:
            continue
        col = [h for h in heads if h.startswith("Recoverable time") or h.startswith("Exposed time")]
        if not col:
            continue
        i = heads.index(col[0])
        el = drv.s("POST", "/element", {"using": "css selector",
                                        "value": "#%s thead th:nth-child(%d)" % (table, i + 1)})
        eid = list(el.values())[0]
        vals = []
        for _ in range(2):
            drv.s("POST", "/element/%s/click" % eid, {})
            vals.append([float(v) if v else None for v in column(drv, table, i)])
        known = [[v for v in vs if v is not None] for vs in vals]
        if known[0] != sorted(known[0]) or known[1] != sorted(known[1], reverse=True) or \
                any(vs[len(k):] != [None] * (len(vs) - len(k)) for vs, k in zip(vals, known)):
            fails.append("%s: %s sorted by a click: %r then %r" % (name, table, vals[0], vals[1]))
        return


def run(args):
    p = subprocess.run([OPMFU] + args, capture_output=True, text=True, timeout=600)
    if p.returncode not in (0, 3):
        fails.append("%s: exit %d: %s" % (" ".join(args[:2]), p.returncode, p.stderr[-300:]))
    return p


def main():
    with open(os.path.join(ROOT, "schema", "in", "ascend.sql"), encoding="utf-8") as f:
        schema = f.read()
    tmp = tempfile.mkdtemp(prefix="opmfu-browser-")
    drv = None
    try:
        try:
            drv = Driver(tmp)
        except (RuntimeError, OSError) as e:
            print("skip: %s" % e)
            return 77
        for case in ("coll_skew", "steps_waterfall"):
            tree, out = os.path.join(tmp, case), os.path.join(tmp, case + "_out")
            build_tree(os.path.join(ROOT, "fixtures", case, "tree"), tree, schema)
            run(["analyze", tree, "-o", out, "--export", "db,html", "-q"])
            check_page(drv, case, os.path.join(out, REPORT), os.path.join(out, "cluster_analysis_output",
                                                                           "cluster_analysis.db"),
                       os.path.join(tmp, case + ".png"))
        d = os.path.join(ROOT, "fixtures", "diff_inputs")
        base, new, out, alone = (os.path.join(tmp, x) for x in ("base", "new", "diff_out", "alone"))
        build_tree(os.path.join(d, "tree"), base, schema)
        build_tree(os.path.join(d, "tree_new"), new, schema)
        run(["diff", base, new, "-o", out, "--export", "html"])
        run(["analyze", new, "-o", alone, "-q"])
        check_page(drv, "diff", os.path.join(out, REPORT), os.path.join(alone, "cluster_analysis_output",
                                                                         "cluster_analysis.db"))
        if drv.js("return !!document.getElementById('diff-step_share');") is not True:
            fails.append("diff: no diff-step_share table in the DOM")
        # hostile names: the DOM holds them as text
        import html_report
        html_report.fails = fails
        tree = html_report.hostile_tree(schema, tmp)
        out = os.path.join(tmp, "hostile_out")
        run(["analyze", tree, "-o", out, "--export", "db,html", "-q"])
        check_page(drv, "hostile", os.path.join(out, REPORT), os.path.join(out, "cluster_analysis_output",
                                                                            "cluster_analysis.db"))
        texts = drv.js("return Array.prototype.map.call(document.querySelectorAll('td'),function(c){"
                       "return [c.textContent, c.getAttribute('title')];});")
        for what, want in (("module", html_report.MODULE), ("op", html_report.OP),
                           ("kernel", shown_name(html_report.KERNEL))):
            if not any(t == want or ti == want or t.startswith(want + "/") for t, ti in texts):
                fails.append("hostile: the %s %r is not a cell's text in the DOM" % (what, want))
        real = os.path.join(SHARED, "real")
        if os.path.isdir(os.path.join(real, "level1")):
            out = os.path.join(tmp, "level1_out")
            # the chip its export names (NPU_INFO's family alone is only suggested): a peak, so MFU
            run(["analyze", os.path.join(real, "level1"), "-o", out, "--chip", "Ascend910B", "--export", "db,html",
                 "-q"])
            check_page(drv, "real level1", os.path.join(out, REPORT), os.path.join(out, "cluster_analysis_output",
                                                                                   "cluster_analysis.db"),
                       KEEP or os.path.join(tmp, "level1.png"))
            k = os.path.join(real, "kineto", "kineto_h100_bert_small_infer",
                             "gaunernst_bert-small-uncased__1016001.json.gz")
            if os.path.exists(k):
                out = os.path.join(tmp, "kineto_out")
                run(["analyze", k, "-o", out, "--export", "db,html", "-q"])
                check_page(drv, "real kineto", os.path.join(out, REPORT),
                           os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))
        else:
            print("real traces: skipped, %s/level1 is not there" % real)
    finally:
        if drv:
            drv.quit()
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
