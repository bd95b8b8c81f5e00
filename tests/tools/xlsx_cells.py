#!/usr/bin/env python3
"""Dump an .xlsx workbook as text, for tests: xlsx_cells.py FILE.xlsx [SHEET]

With SHEET, only the sheet of that name (nothing when there is none).

Standard library only (zipfile + ElementTree). For each sheet, in this order:

  sheet NAME
  dimension A1:M10
  freeze A2                   the first cell of the scrolling part (no line: nothing frozen)
  autofilter A1:M10
  col C width 50 (xml 50.7109375)
                              one line per <col> range (C or C:E); the width as Excel's
                              "Column Width" dialog shows it, then as stored
  row 1 height 27             rows with a custom height
  merge B2:B4
  conditional G2:G10 colorScale num 0 FFF8696B, num 0.5 FFFFEB84, num 1 FF63BE7B
  ignore D2:E10 numberStoredAsText
  page landscape fit 1x0      orientation; fit to W pages wide and H high (0: as many as needed)
  print titles $1:$1          rows repeated on every printed page
  break after row 31          a manual page break (rows 1-based)
  chart A10:P31 bar col percentStacked gap 50 overlap 100 legend b title "Where the step went"
    series name Ranks!$L$1 cat Ranks!$A$2:$A$9 val Ranks!$L$2:$L$9 fill 2E7D32 cached 8
    axis cat b deleted reverse min 0 max 1 format "0%" skip 2 crosses max labels low title "Rank"
                              one chart of the sheet's drawing, where it is anchored (from
                              and to cells), its plot (bar/line/scatter..., direction,
                              grouping); its series (name: a literal in quotes or a
                              reference; categories and values references, a scatter's
                              x and y; fill colour; line colour or none; points cached
                              in the file) and axes (only what is set; log N: a log
                              scale of base N)
  style 1: font "Times New Roman" 11 bold; fill solid FFAFEEEE; border thin; valign center; numfmt General
                              the styles that cells of this sheet use
  A1=Rank ID (s) s1           every cell: value, type, style index

Types: s (shared string), inlineStr (inline string), n (number: the value exactly as
stored), b (boolean), e (error), str (formula string result), blank (a styled cell
without a value); a cell with a formula shows (formula =TEXT) as its type.
In values, backslash, tab, line breaks and other control characters are escaped
(\\\\, \\t, \\n, \\r, \\xHH); the _xHHHH_ escapes of the file are decoded first.
"""
import os
import re
import sys
import zipfile
import xml.etree.ElementTree as ET

NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
      "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
      "rel": "http://schemas.openxmlformats.org/package/2006/relationships"}
M = "{%s}" % NS["m"]
C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
XDR = "{http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing}"
R_ID = "{%s}id" % NS["r"]

BUILTIN_NUMFMT = {0: "General", 1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00", 9: "0%",
                  10: "0.00%", 11: "0.00E+00", 12: "# ?/?", 13: "# ??/??", 14: "m/d/yyyy",
                  49: "@"}


def unescape_ooxml(s):
    return re.sub(r"_x([0-9A-Fa-f]{4})_", lambda m: chr(int(m.group(1), 16)), s)


def show(s):
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def text_of(el):
    """Text of a <si> or <is>: plain <t> or the runs of rich text."""
    if el is None:
        return ""
    return "".join(t.text or "" for t in el.iter(M + "t"))


def shown_width(w):
    """Excel stores width + padding rounded to 1/256; the dialog shows characters."""
    pixels = int(w * 7 + 0.5)
    chars = (pixels - 5) / 7.0 if pixels > 12 else pixels / 12.0
    return "%g" % round(chars, 2)


def col_name(n):
    s = ""
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


def load_styles(z):
    if "xl/styles.xml" not in z.namelist():
        return {}
    root = ET.fromstring(z.read("xl/styles.xml"))
    numfmts = dict(BUILTIN_NUMFMT)
    for nf in root.iter(M + "numFmt"):
        numfmts[int(nf.get("numFmtId"))] = nf.get("formatCode")
    fonts = []
    for f in root.find(M + "fonts"):
        name = f.find(M + "name")
        size = f.find(M + "sz")
        desc = '"%s" %s' % (name.get("val") if name is not None else "?",
                            size.get("val") if size is not None else "?")
        for tag, word in (("b", "bold"), ("i", "italic"), ("u", "underline"), ("strike", "strike")):
            if f.find(M + tag) is not None:
                desc += " " + word
        color = f.find(M + "color")
        if color is not None and color.get("rgb"):
            desc += " color " + color.get("rgb")
        fonts.append(desc)
    fills = []
    for f in root.find(M + "fills"):
        p = f.find(M + "patternFill")
        kind = p.get("patternType", "none") if p is not None else "none"
        fg = p.find(M + "fgColor") if p is not None else None
        if fg is not None and fg.get("rgb"):
            kind += " " + fg.get("rgb")
        fills.append(kind)
    borders = []
    for b in root.find(M + "borders"):
        sides = []
        for side in ("left", "right", "top", "bottom"):
            el = b.find(M + side)
            sides.append(el.get("style", "none") if el is not None else "none")
        borders.append(sides[0] if len(set(sides)) == 1 else " ".join(
            "%s=%s" % kv for kv in zip(("left", "right", "top", "bottom"), sides)))
    xfs = []
    for xf in root.find(M + "cellXfs"):
        al = xf.find(M + "alignment")
        parts = ["font " + fonts[int(xf.get("fontId", 0))],
                 "fill " + fills[int(xf.get("fillId", 0))],
                 "border " + borders[int(xf.get("borderId", 0))]]
        if al is not None:
            if al.get("horizontal"):
                parts.append("halign " + al.get("horizontal"))
            if al.get("vertical"):
                parts.append("valign " + al.get("vertical"))
            if al.get("wrapText"):
                parts.append("wrap")
        parts.append('numfmt "%s"' % numfmts.get(int(xf.get("numFmtId", 0)), "?"))
        xfs.append("; ".join(parts))
    res = dict(enumerate(xfs))
    res["dxf"] = [dxf_desc(d) for d in (root.find(M + "dxfs") or [])]
    return res


def dxf_desc(d):
    """A conditional format's style: bold, font and fill colours."""
    parts = []
    font = d.find(M + "font")
    if font is not None:
        if font.find(M + "b") is not None:
            parts.append("bold")
        c = font.find(M + "color")
        if c is not None and c.get("rgb"):
            parts.append("font " + c.get("rgb"))
    fill = d.find(M + "fill")
    p = fill.find(M + "patternFill") if fill is not None else None
    if p is not None:
        for tag in ("fgColor", "bgColor"):
            c = p.find(M + tag)
            if c is not None and c.get("rgb"):
                parts.append("fill %s %s" % (tag, c.get("rgb")))
    return ", ".join(parts) or "none"


def dump_sheet(z, name, path, sst, styles, titles=None):
    root = ET.fromstring(z.read(path))
    lines = ["sheet " + name]
    dim = root.find(M + "dimension")
    if dim is not None:
        lines.append("dimension " + dim.get("ref"))
    for pane in root.iter(M + "pane"):
        if pane.get("state") in ("frozen", "frozenSplit"):
            lines.append("freeze " + pane.get("topLeftCell", "?"))
    af = root.find(M + "autoFilter")
    if af is not None:
        lines.append("autofilter " + af.get("ref"))
    cols = root.find(M + "cols")
    if cols is not None:
        for c in cols:
            lo, hi = int(c.get("min")), int(c.get("max"))
            ref = col_name(lo) if lo == hi else "%s:%s" % (col_name(lo), col_name(hi))
            w = c.get("width")
            desc = "col %s" % ref
            if w is not None:
                desc += " width %s (xml %s)" % (shown_width(float(w)), w)
            if c.get("hidden") == "1":
                desc += " hidden"
            lines.append(desc)
    rows = root.find(M + "sheetData")
    for row in rows:
        if row.get("customHeight") == "1":
            lines.append("row %s height %s" % (row.get("r"), row.get("ht")))
    mc = root.find(M + "mergeCells")
    if mc is not None:
        for m in mc:
            lines.append("merge " + m.get("ref"))
    for cf in root.iter(M + "conditionalFormatting"):
        for rule in cf:
            desc = "conditional %s %s" % (cf.get("sqref"), rule.get("type"))
            cs = rule.find(M + "colorScale")
            if cs is not None:
                cfvos = cs.findall(M + "cfvo")
                colors = cs.findall(M + "color")
                desc += " " + ", ".join("%s %s %s" % (v.get("type"), v.get("val", ""), c.get("rgb", "?"))
                                        for v, c in zip(cfvos, colors))
            else:
                extra = " ".join("%s=%s" % kv for kv in sorted(rule.attrib.items())
                                 if kv[0] not in ("type", "priority"))
                if extra:
                    desc += " " + extra
                for f in rule.findall(M + "formula"):
                    desc += " formula " + (f.text or "")
                if rule.get("dxfId") is not None:
                    dxfs = styles.get("dxf", [])
                    i = int(rule.get("dxfId"))
                    desc += " style (%s)" % (dxfs[i] if i < len(dxfs) else "?")
            lines.append(desc)
    ie = root.find(M + "ignoredErrors")
    if ie is not None:
        for e in ie:
            kinds = " ".join(k for k, v in sorted(e.attrib.items()) if k != "sqref" and v == "1")
            lines.append("ignore %s %s" % (e.get("sqref"), kinds))
    lines.extend(page_lines(root, titles))
    lines.extend(chart_lines(z, path, root))
    cells = []
    used = set()
    for row in rows:
        for c in row:
            ref, t, s = c.get("r"), c.get("t"), int(c.get("s", 0))
            used.add(s)
            f = c.find(M + "f")
            v = c.find(M + "v")
            if t == "s":
                val, kind = sst[int(v.text)], "s"
            elif t == "inlineStr":
                val, kind = unescape_ooxml(text_of(c.find(M + "is"))), "inlineStr"
            elif v is None and f is None:
                val, kind = "", "blank"
            else:
                val, kind = (v.text or "") if v is not None else "", t or "n"
                if t == "str":
                    val = unescape_ooxml(val)
            if f is not None:
                kind = "formula =" + (f.text or "")
            cells.append("%s=%s (%s) s%d" % (ref, show(val), kind, s))
    for s in sorted(used):
        lines.append("style %d: %s" % (s, styles.get(s, "?")))
    return lines + cells


def page_lines(root, titles):
    """Orientation and fit to pages, print titles, manual row breaks."""
    lines = []
    ps = root.find(M + "pageSetup")
    pr = root.find(M + "sheetPr")
    fit = pr is not None and pr.find(M + "pageSetUpPr") is not None and \
        pr.find(M + "pageSetUpPr").get("fitToPage") == "1"
    if ps is not None and (ps.get("orientation") or fit):
        desc = "page " + ps.get("orientation", "default")
        if fit:
            desc += " fit %sx%s" % (ps.get("fitToWidth", "1"), ps.get("fitToHeight", "1"))
        lines.append(desc)
    if titles:
        lines.append("print titles " + titles)
    rb = root.find(M + "rowBreaks")
    if rb is not None:
        for brk in rb:
            lines.append("break after row %d" % (int(brk.get("id")) + 0))
    return lines


def rels_of(z, part):
    """The relationships of a part: id -> target part name."""
    d, base = part.rsplit("/", 1)
    rp = "%s/_rels/%s.rels" % (d, base)
    if rp not in z.namelist():
        return {}
    res = {}
    for r in ET.fromstring(z.read(rp)):
        t = r.get("Target")
        res[r.get("Id")] = t.lstrip("/") if t.startswith("/") else os.path.normpath(d + "/" + t)
    return res


def val_of(el, tag):
    x = el.find(tag) if el is not None else None
    return x.get("val") if x is not None else None


def anchor_cell(el):
    return "%s%d" % (col_name(int(el.find(XDR + "col").text) + 1), int(el.find(XDR + "row").text) + 1)


def series_line(ser):
    parts = []
    tx = ser.find(C + "tx")
    if tx is not None:
        f = tx.find(".//" + C + "f")
        v = tx.find(C + "v")
        parts.append("name " + (f.text if f is not None else '"%s"' % (v.text if v is not None else "")))
    for tag, word in (("cat", "cat"), ("xVal", "x"), ("val", "val"), ("yVal", "y")):
        el = ser.find(C + tag)
        f = el.find(".//" + C + "f") if el is not None else None
        if f is not None:
            parts.append("%s %s" % (word, f.text))
    sp = ser.find(C + "spPr")
    clr = sp.find(A + "solidFill/" + A + "srgbClr") if sp is not None else None
    if clr is not None:
        parts.append("fill " + clr.get("val"))
    ln = sp.find(A + "ln") if sp is not None else None
    if ln is not None:
        lc = ln.find(A + "solidFill/" + A + "srgbClr")
        parts.append("line" + (" " + lc.get("val") if lc is not None else "") +
                     (" none" if ln.find(A + "noFill") is not None else ""))
    cached = ser.find(C + "val/" + C + "numRef/" + C + "numCache/" + C + "ptCount")
    if cached is None:
        cached = ser.find(C + "yVal/" + C + "numRef/" + C + "numCache/" + C + "ptCount")
    parts.append("cached %s" % (cached.get("val") if cached is not None else 0))
    return "    series " + " ".join(parts)


def axis_line(ax):
    kind = ax.tag[len(C):-2]
    parts = ["    axis", kind, val_of(ax, C + "axPos") or "?"]
    if val_of(ax, C + "delete") == "1":
        parts.append("deleted")
    if val_of(ax.find(C + "scaling"), C + "orientation") == "maxMin":
        parts.append("reverse")
    for tag, word in (("logBase", "log"), ("min", "min"), ("max", "max")):
        v = val_of(ax.find(C + "scaling"), C + tag)
        if v is not None:
            parts.append("%s %s" % (word, v))
    nf = ax.find(C + "numFmt")
    if nf is not None and nf.get("sourceLinked") == "0":
        parts.append('format "%s"' % nf.get("formatCode"))
    for tag, word in (("tickLblSkip", "skip"), ("crossesAt", "crosses at"), ("crosses", "crosses")):
        v = val_of(ax, C + tag)
        if v is not None and v != "autoZero":
            parts.append("%s %s" % (word, v))
    if val_of(ax, C + "tickLblPos") not in (None, "nextTo"):
        parts.append("labels " + val_of(ax, C + "tickLblPos"))
    t = ax.find(C + "title")
    if t is not None:
        parts.append('title "%s"' % "".join(x.text or "" for x in t.iter(A + "t")))
    return " ".join(parts)


def chart_lines(z, sheet_part, root):
    """Each chart of the sheet's drawing, in drawing order."""
    dr = root.find(M + "drawing")
    if dr is None:
        return []
    drawing = rels_of(z, sheet_part)[dr.get(R_ID)]
    charts = rels_of(z, drawing)
    lines = []
    for anchor in ET.fromstring(z.read(drawing)):
        ref = anchor.find(".//" + C + "chart")
        if ref is None:
            continue
        ch = ET.fromstring(z.read(charts[ref.get(R_ID)])).find(C + "chart")
        where = anchor_cell(anchor.find(XDR + "from"))
        if anchor.find(XDR + "to") is not None:
            where += ":" + anchor_cell(anchor.find(XDR + "to"))
        head = ["chart", where]
        plot = ch.find(C + "plotArea")
        sers, axes = [], []
        for el in plot:
            tag = el.tag[len(C):]
            if tag.endswith("Chart"):
                head.append(tag[:-5])
                for t, fmt in (("barDir", "%s"), ("grouping", "%s"), ("scatterStyle", "%s"),
                               ("gapWidth", "gap %s"), ("overlap", "overlap %s")):
                    v = val_of(el, C + t)
                    if v is not None:
                        head.append(fmt % v)
                sers.extend(series_line(s) for s in el.findall(C + "ser"))
            elif tag in ("catAx", "valAx", "dateAx", "serAx"):
                axes.append(axis_line(el))
        legend = ch.find(C + "legend")
        head.append("legend " + (val_of(legend, C + "legendPos") or "r") if legend is not None else "no legend")
        title = ch.find(C + "title")
        if title is not None:
            head.append('title "%s"' % "".join(x.text or "" for x in title.iter(A + "t")))
        lines.append(" ".join(head))
        lines.extend(sers)
        lines.extend(axes)
    return lines


def dump(path, sheet=None):
    """The dump of the workbook at path; of its sheet named sheet only, when given."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        sst = []
        if "xl/sharedStrings.xml" in names:
            for si in ET.fromstring(z.read("xl/sharedStrings.xml")):
                sst.append(unescape_ooxml(text_of(si)))
        styles = load_styles(z)
        rels = {}
        for r in ET.fromstring(z.read("xl/_rels/workbook.xml.rels")):
            target = r.get("Target")
            rels[r.get("Id")] = target.lstrip("/") if target.startswith("/") else "xl/" + target
        out = []
        book = ET.fromstring(z.read("xl/workbook.xml"))
        titles = {}
        for dn in book.iter(M + "definedName"):
            if dn.get("name") == "_xlnm.Print_Titles":
                titles[int(dn.get("localSheetId", -1))] = (dn.text or "").split("!")[-1]
        for i, sh in enumerate(book.iter(M + "sheet")):
            if sheet is not None and sh.get("name") != sheet:
                continue
            rid = sh.get("{%s}id" % NS["r"])
            out.extend(dump_sheet(z, sh.get("name"), rels[rid], sst, styles, titles.get(i)))
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) not in (2, 3):
        sys.stderr.write("usage: xlsx_cells.py FILE.xlsx [SHEET]\n")
        return 2
    sys.stdout.write(dump(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
