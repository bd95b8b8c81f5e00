#!/usr/bin/env python3
"""soname.py LIB: prints the DT_SONAME of the ELF shared library LIB (meson.build
finds libxlsxwriter's, which opmfu loads by that name when it writes a workbook)."""
import struct
import sys


def soname(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        raise SystemExit("%s: not an ELF file" % path)
    is64, little = data[4] == 2, data[5] == 1
    e = "<" if little else ">"
    if is64:
        shoff, = struct.unpack_from(e + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(e + "HH", data, 0x3A)
    else:
        shoff, = struct.unpack_from(e + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(e + "HH", data, 0x2E)
    secs = []
    for i in range(shnum):
        off = shoff + i * shentsize
        if is64:
            _, typ, _, _, soff, size, link, _, _, entsize = struct.unpack_from(e + "IIQQQQIIQQ", data, off)
        else:
            _, typ, _, _, soff, size, link, _, _, entsize = struct.unpack_from(e + "IIIIIIIIII", data, off)
        secs.append((typ, soff, size, link, entsize))
    for typ, soff, size, link, entsize in secs:
        if typ != 6:  # SHT_DYNAMIC
            continue
        strtab = secs[link][1]
        fmt = e + ("qQ" if is64 else "iI")
        step = struct.calcsize(fmt)
        for off in range(soff, soff + size, step):
            tag, val = struct.unpack_from(fmt, data, off)
            if tag == 0:
                break
            if tag == 14:  # DT_SONAME
                end = data.index(b"\0", strtab + val)
                return data[strtab + val:end].decode()
    raise SystemExit("%s: no DT_SONAME" % path)


if __name__ == "__main__":
    print(soname(sys.argv[1]))
