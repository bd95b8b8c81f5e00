#!/usr/bin/env python3
"""Dump an .xlsx workbook as text, for tests: xlsx_cells.py FILE.xlsx

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
  style 1: font "Times New Roman" 11 bold; fill solid FFAFEEEE; border thin; valign center; numfmt General
                              the styles that cells of this sheet use
  A1=Rank ID (s) s1           every cell: value, type, style index

Types: s (shared string), inlineStr (inline string), n (number: the value exactly as
stored), b (boolean), e (error), str (formula string result), blank (a styled cell
without a value); a cell with a formula shows (formula =TEXT) as its type.
In values, backslash, tab, line breaks and other control characters are escaped
(\\\\, \\t, \\n, \\r, \\xHH); the _xHHHH_ escapes of the file are decoded first.
"""
import re
import sys
import zipfile
import xml.etree.ElementTree as ET

NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
      "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
      "rel": "http://schemas.openxmlformats.org/package/2006/relationships"}
M = "{%s}" % NS["m"]

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


def dump_sheet(z, name, path, sst, styles):
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


def dump(path):
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
        for sh in ET.fromstring(z.read("xl/workbook.xml")).iter(M + "sheet"):
            rid = sh.get("{%s}id" % NS["r"])
            out.extend(dump_sheet(z, sh.get("name"), rels[rid], sst, styles))
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: xlsx_cells.py FILE.xlsx\n")
        return 2
    sys.stdout.write(dump(sys.argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
