"""opmfu_report.html read strictly, and checked against the result database
it was made from (tests/cli/html_report.py, tests/cli/html_browser.py).

parse(path) parses the page with Python's html.parser and fails (raises
PageError) on: a tag closed that is not the one open, a tag left open, a
tag outside the few the page uses, a src or an href that is not "#..." (no
load of any kind), a second script or one with a src, and a
Content-Security-Policy meta tag missing, not "default-src 'none'", or
whose script-src hash is not the SHA-256 of the page's script (so the
browser would refuse it). It returns the elements with an id (their
attributes and text) and every table's body rows (cells' data-v, text and title).

check_db(page, db) compares what the page shows with the tables of db, read
with sqlite3 (the page's data-v attributes carry the tables' values whole):
OpmfuRun's median step, step time and trace MFU; the top hotspot (the first
OpmfuHotspots row: its kind, name and recoverable time); for each hotspot
kind, the table's first rows in order (names and recoverable time); the
ranks shown, by the rule written here from its description (docs/html.md:
every analysed rank up to 8, else the median rank, best and worst trace MFU
and the 5 slowest median steps); the stragglers; OpmfuModel's run rows.
"""
import base64
import hashlib
import html.parser
import re
import sqlite3

VOID = {"meta", "br", "rect", "line", "circle", "polyline", "path"}
ALLOWED = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "nav", "a", "p", "section", "table",
           "thead", "tbody", "tr", "th", "td", "span", "b", "svg", "rect", "line", "circle", "polyline", "text",
           "title", "script", "dl", "dt", "dd"}
TOP = 20  # rows per hotspot kind (OPMFU_HTML_TOP)
RANK_COLS = 13  # the ranks table's columns before "Shown as"
NAME_MAX = 300  # bytes of a name shown (OPMFU_HTML_NAME_MAX)


class PageError(Exception):
    pass


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.ids = {}       # id -> {"attrs": {...}, "text": str}
        self.tables = {}    # table id -> [[(data-v, text), ...], ...] (body rows)
        self.heads = {}     # table id -> [header texts]
        self.scripts = []
        self.csp = None
        self.open_ids = []  # (depth, id) whose text is being collected
        self.table = None
        self.row = None
        self.cell = None
        self.in_head = False
        self.in_script = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag not in ALLOWED:
            raise PageError("tag <%s> is not one the page uses" % tag)
        for k in ("src", "href", "xlink:href", "action", "srcset", "poster", "data"):
            if k in a and not (k == "href" and tag == "a" and a[k].startswith("#")):
                raise PageError("<%s %s=%r>: a load" % (tag, k, a[k]))
        for k in a:
            if k.startswith("on"):
                raise PageError("<%s %s>: an event handler" % (tag, k))
        if tag == "meta" and a.get("http-equiv", "").lower() == "content-security-policy":
            self.csp = a.get("content", "")
        if tag == "script":
            self.scripts.append("")
            self.in_script = True
        if tag not in VOID:
            self.stack.append(tag)
        if "id" in a:
            if a["id"] in self.ids:
                raise PageError("id %s twice" % a["id"])
            self.ids[a["id"]] = {"attrs": a, "text": ""}
            if tag not in VOID:
                self.open_ids.append((len(self.stack), a["id"]))
        if tag == "table":
            self.table = a.get("id")
            self.tables.setdefault(self.table, [])
            self.heads.setdefault(self.table, [])
        elif tag == "thead":
            self.in_head = True
        elif tag == "tbody":
            self.in_head = False
        elif tag == "tr" and not self.in_head:
            self.row = []
            self.tables[self.table].append(self.row)
        elif tag in ("td", "th") and self.row is not None and not self.in_head:
            self.cell = [a.get("data-v"), "", a.get("title")]
            self.row.append(self.cell)
        elif tag == "th" and self.in_head:
            self.heads[self.table].append("")
            self.cell = None

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            raise PageError("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
        while self.open_ids and self.open_ids[-1][0] == len(self.stack):
            self.open_ids.pop()
        self.stack.pop()
        if tag == "script":
            self.in_script = False
        elif tag in ("td", "th"):
            self.cell = None
        elif tag == "tr":
            self.row = None
        elif tag == "table":
            self.table = None

    def handle_data(self, data):
        if self.in_script:
            self.scripts[-1] += data
            return
        for _, i in self.open_ids:
            self.ids[i]["text"] += data
        if self.cell is not None:
            self.cell[1] += data
        elif self.in_head and self.table in self.heads and self.stack and self.stack[-1] == "th":
            self.heads[self.table][-1] += data


def parse(path):
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8")  # strict: the page is valid UTF-8
    if not text.startswith("<!DOCTYPE html>"):
        raise PageError("no doctype")
    p = Page()
    p.feed(text)
    p.close()
    if p.stack:
        raise PageError("left open: %s" % p.stack)
    if len(p.scripts) != 1:
        raise PageError("%d script elements, expected 1" % len(p.scripts))
    if p.csp is None:
        raise PageError("no Content-Security-Policy")
    pol = {d.split()[0]: d.split()[1:] for d in p.csp.split(";") if d.strip()}
    if pol.get("default-src") != ["'none'"]:
        raise PageError("CSP default-src is %r" % pol.get("default-src"))
    want = "'sha256-%s'" % base64.b64encode(hashlib.sha256(p.scripts[0].encode("utf-8")).digest()).decode()
    if pol.get("script-src") != [want]:
        raise PageError("CSP script-src %r, the script's hash is %s" % (pol.get("script-src"), want))
    for d in ("img-src", "connect-src"):
        if pol.get(d) != ["'none'"]:
            raise PageError("CSP %s is %r" % (d, pol.get(d)))
    p.size = len(raw)
    return p


def shown_name(b, limit=NAME_MAX):
    """A name as the page shows it: UTF-8 repaired as Python's "replace" (Unicode's maximal subparts, as
    write/utf8.h), control characters but tab and newline as U+FFFD, cut after limit bytes with an ellipsis."""
    if isinstance(b, str):
        b = b.encode("utf-8", "surrogateescape")
    cut = len(b) > limit
    out, i = [], 0
    s = b.decode("utf-8", "replace") if not cut else None
    if cut:
        # whole characters (or maximal subparts) that start before the limit
        dec = b.decode("utf-8", "replace")
        acc = 0
        for ch in dec:
            if acc >= limit:
                break
            n = 1 if ch == "\ufffd" else len(ch.encode("utf-8"))
            # U+FFFD stands for 1..3 bytes; re-encode to count them exactly
            out.append(ch)
            acc += n
        s = "".join(out) + "\u2026"
    return "".join("\ufffd" if (ord(c) < 0x20 and c not in "\t\n") or 0x7F <= ord(c) <= 0x9F else c for c in s)


def same(v, want):
    """data-v against a table value: "" is NULL; numbers equal as doubles."""
    if want is None:
        return v == ""
    if isinstance(want, (int, float)):
        try:
            return float(v) == float(want)
        except (TypeError, ValueError):
            return False
    return v == want


def ranks_rule(rows, analysed, median_rank):
    """The rank rows shown, by the rule of docs/html.md (the terminal's), independently of trace/rank_pick.c."""
    ok = [r for r in rows if r["status"] is not None and r["status"] != "failed"]
    if analysed <= 8:
        return [(r["rank_id"], "") for r in ok]
    out = [(r["rank_id"], "median") for r in rows if r["rank_id"] == median_rank][:1]
    with_mfu = [r for r in ok if r["trace_mfu"] is not None]
    if with_mfu:
        out.append((max(with_mfu, key=lambda r: (r["trace_mfu"], -rows.index(r)))["rank_id"], "best"))
        out.append((min(with_mfu, key=lambda r: (r["trace_mfu"], rows.index(r)))["rank_id"], "worst"))
    slow = sorted([r for r in ok if r["step_ns_median"] is not None],
                  key=lambda r: (-r["step_ns_median"], rows.index(r)))[:5]
    out += [(r["rank_id"], "slow") for r in slow]
    return out


def check_db(page, db, fails, name):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    con.row_factory = sqlite3.Row
    con.text_factory = bytes

    def t(v):
        return v.decode("utf-8", "replace") if isinstance(v, bytes) else v

    def bad(msg):
        fails.append("%s: %s" % (name, msg))

    run = con.execute("SELECT * FROM OpmfuRun").fetchone()
    if run is None:
        if "no-run" not in page.ids:
            bad("no OpmfuRun row and the page does not say so")
        return
    for id_, col in (("median-step", "median_step"), ("step-time", "step_ns"), ("trace-mfu", "trace_mfu"),
                     ("median-rank", "median_rank"), ("peak", "peak_tflops")):
        got = page.ids.get(id_, {}).get("attrs", {}).get("data-v")
        if not same(got, run[col]):
            bad("#%s data-v %r, OpmfuRun.%s %r" % (id_, got, col, run[col]))
    if run["median_step"] is None and run["median_rank"] is not None and \
            page.ids["median-step"]["text"] != "the whole trace":
        bad("median step NULL shown as %r" % page.ids["median-step"]["text"])
    hot = con.execute("SELECT kind, name, recoverable_ns FROM OpmfuHotspots ORDER BY rowid").fetchall()
    if hot:
        top = page.ids.get("top-hotspot")
        if not top:
            bad("no #top-hotspot")
        else:
            if not same(top["attrs"].get("data-v"), hot[0]["recoverable_ns"]) or \
                    top["attrs"].get("data-kind") != t(hot[0]["kind"]):
                bad("top hotspot %r, OpmfuHotspots' first row %r" % (top["attrs"], tuple(hot[0])))
            if not top["text"].startswith(shown_name(hot[0]["name"]) + " ("):
                bad("top hotspot's text %r, its name %r" % (top["text"], hot[0]["name"]))
    kinds = {"module_class": "hot-module-class", "op_type": "hot-op-type", "shape": "hot-shape",
             "module": "hot-module", "kernel": "hot-kernel", "collective": "hot-collective"}
    for kind, tid in kinds.items():
        rows = [r for r in hot if t(r["kind"]) == kind][:TOP]
        got = page.tables.get(tid, [])
        if len(got) != len(rows):
            bad("%s: %d rows shown, want %d" % (tid, len(got), len(rows)))
            continue
        for i, (r, g) in enumerate(zip(rows, got)):
            # cells: #, name, ranks, calls, kernel, recoverable, ...
            # a kernel shows its short name (base/kname.h), the whole name in its title
            name_shown = g[1][2] if kind == "kernel" else g[1][1]
            if name_shown != shown_name(r["name"]):
                bad("%s row %d: name %r, want %r" % (tid, i + 1, name_shown, shown_name(r["name"])))
            if not same(g[5][0], r["recoverable_ns"]):
                bad("%s row %d: recoverable %r, want %r" % (tid, i + 1, g[5][0], r["recoverable_ns"]))
    rs = [dict((k, t(r[k])) for k in r.keys()) for r in con.execute("SELECT * FROM OpmfuRankSummary ORDER BY rowid")]
    if rs:
        want = ranks_rule(rs, run["ranks_analysed"], run["median_rank"])
        # the last cell says why a row is there, when not every rank is
        got = [(int(float(r[0][0])), r[-1][1] if len(r) > RANK_COLS else "")
               for r in page.tables.get("ranks-table", [])]
        if got != want:
            bad("ranks shown %r, the rule gives %r" % (got, want))
    st = con.execute("SELECT rank_id, value, culprit_of FROM OpmfuStragglers ORDER BY rowid").fetchall()
    got = page.tables.get("stragglers-table", [])
    if [(float(g[1][0]), float(g[2][0]) if g[2][0] else None) for g in got] != \
            [(float(r["rank_id"]), r["value"]) for r in st]:
        bad("stragglers %r, the table's %r" % ([g[1:3] for g in got], [tuple(r) for r in st]))
    if con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'OpmfuModel'").fetchone()[0]:
        mr = con.execute("SELECT convention, model_mfu FROM OpmfuModel WHERE rank_id IS NULL ORDER BY rowid").fetchall()
        got = page.tables.get("model-table", [])
        if len(got) != len(mr) or not all(g[0][1] == t(r[0]) and same(g[4][0], r[1]) for g, r in zip(got, mr)):
            bad("model rows %r, the table's %r" % ([(g[0][1], g[4][0]) for g in got], [tuple(r) for r in mr]))
    con.close()


def check_diff(page, db, fails, name):
    """The Diff section against OpmfuDiff: per kind, the table's first rows in order."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    con.text_factory = bytes
    rows = con.execute("SELECT kind, name, delta_lost_ns FROM OpmfuDiff ORDER BY rowid").fetchall()
    con.close()
    if not rows:
        fails.append("%s: OpmfuDiff is empty" % name)
    for kind in ("step_share", "module", "op_type", "collective", "model", "rank"):
        want = [r for r in rows if r[0].decode() == kind][:TOP]
        got = page.tables.get("diff-" + kind, [])
        if len(got) != len(want) or not all(g[0][1] == shown_name(r[1]) and same(g[7][0], r[2])
                                            for g, r in zip(got, want)):
            fails.append("%s: diff %s rows %r, OpmfuDiff's %r" % (name, kind, [(g[0][1], g[7][0]) for g in got],
                                                                 want))
