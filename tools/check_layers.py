#!/usr/bin/env python3
"""Fails the build when a source file includes what its layer may not.

Usage: check_layers.py STAMP SRC_DIR

Each folder of src/ is a layer; a file may include the opmfu headers of the
layers listed for its own, and the third-party library headers listed for
it. Include paths alone cannot enforce this (every layer needs -Isrc, and
<sqlite3.h> is on the system path), so this check runs before every build
(docs/architecture.md, "Rules between layers").
"""
import os
import re
import sys

# layer -> opmfu layers its files may include (its own is always allowed)
LAYERS = {
    'api': ['base'],                      # src/opmfu.h: the public header
    'base': [],
    'trace': ['base'],                      # the format-neutral trace model and result tables
    'chips': ['base'],
    'mflops': ['base'],                     # model FLOPs formulas (SPEC 12)
    'read': ['base', 'trace', 'chips', 'mflops'],
    'flops': ['base', 'trace'],
    'reference': ['base', 'trace', 'chips', 'flops'],   # OperatorMFU, ModuleMFU (SPEC 2, 3)
    'analyze': ['base', 'trace', 'chips', 'flops', 'reference'],
    'write': ['base', 'trace'],             # tables and writers only: no analysis, no report
    'lib': ['base', 'trace', 'chips', 'mflops', 'read', 'flops', 'reference', 'analyze', 'write', 'api'],
    'cli': ['api'],
}

# third-party headers -> where they may appear (layer, or layer/file.c)
LIBRARIES = {
    'sqlite3.h': ['read', 'write/write_sqlite.c'],
    'xlsxwriter.h': ['write/xlsx_book.h', 'write/xlsx_book.c', 'write/write_xlsx.c', 'write/summary_xlsx.c'],
    'yajl/': ['read'],
    'zlib.h': ['read'],
}

# generated at build time from schema/: the SQL of one layer each
GENERATED = {'sql_embed.h': 'read', 'sql_out.h': 'write'}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def layer_of(rel):
    parts = rel.split('/')
    return parts[0] if len(parts) > 1 else 'api'


def allowed_lib(rel, header):
    for name, where in LIBRARIES.items():
        if header == name or (name.endswith('/') and header.startswith(name)):
            layer = layer_of(rel)
            return any(w == layer or w == rel for w in where), name
    return True, None


def check(src):
    faults = []
    for dirpath, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, src)
            layer = layer_of(rel)
            if layer not in LAYERS:
                faults.append('%s: folder %s is no known layer (add it to tools/check_layers.py)' % (rel, layer))
                continue
            with open(path, encoding='utf-8') as fh:
                text = fh.read()
            for kind, header in INCLUDE.findall(text):
                if kind == '<':
                    ok, name = allowed_lib(rel, header)
                    if not ok:
                        faults.append('%s includes <%s>: only %s may' % (rel, header, ', '.join(LIBRARIES[name])))
                    continue
                if header in GENERATED:
                    if GENERATED[header] != layer:
                        faults.append('%s includes %s, which belongs to %s/' % (rel, header, GENERATED[header]))
                    continue
                target = layer_of(header)
                if not os.path.exists(os.path.join(src, header)):
                    faults.append('%s includes "%s": no such file under src/ (include paths start at src/)'
                                  % (rel, header))
                elif target != layer and target not in LAYERS[layer]:
                    faults.append('%s includes "%s": %s/ may include only %s' %
                                  (rel, header, layer, ', '.join(LAYERS[layer]) or 'libc'))
    return faults


def main():
    stamp, src = sys.argv[1], sys.argv[2]
    faults = check(src)
    if faults:
        for f in faults:
            sys.stderr.write('layer check: %s\n' % f)
        return 1
    with open(stamp, 'w') as fh:
        fh.write('ok\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
