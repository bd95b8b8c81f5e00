"""SPEC 20's short kernel names, written again in Python as an oracle for the
views' tests (src/base/kname.c is the implementation): "void " dropped,
each matched <...> dropped but a lone identifier, each matched (...) dropped
but a scope "(...)::", trailing spaces trimmed, then cut to width - 3 bytes
and "..." when longer than width (never inside a UTF-8 character)."""
import re


def kernel_short(name, width=80):
    """name's short form, at most width bytes (0: no cut)."""
    s, i, out = name.encode(), 0, b""
    if s.startswith(b"void ") and len(s) > 5:
        i = 5
    def close(j, o, c):
        d = 0
        while j < len(s):
            if s[j] == o:
                d += 1
            elif s[j] == c:
                d -= 1
                if d == 0:
                    return j + 1
            j += 1
        return len(s)
    while i < len(s):
        ch = s[i:i + 1]
        if ch == b"<":
            e = close(i, ord("<"), ord(">"))
            inner = s[i + 1:e - 1]
            if s[e - 1:e] == b">" and re.fullmatch(rb"[A-Za-z0-9_:]*[A-Za-z_][A-Za-z0-9_:]*", inner):
                out += s[i:e]
            i = e
        elif ch == b"(":
            e = close(i, ord("("), ord(")"))
            if s[e:e + 2] == b"::":
                out += s[i:e]
            i = e
        else:
            out += ch
            i += 1
    out = out.rstrip(b" ")
    if width >= 4 and len(out) > width:
        k = width - 3
        while k > 0 and (out[k] & 0xC0) == 0x80:
            k -= 1
        out = out[:k] + b"..."
    return out.decode()
