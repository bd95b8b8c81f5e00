#!/usr/bin/env python3
"""The progress line appears on stderr only when stderr is a terminal and
--quiet is not given. usage: progress_tty.py OPMFU SOURCE_ROOT"""
import os
import pty
import shutil
import subprocess
import sys
import tempfile

root = sys.argv[2]
sys.path.insert(0, os.path.join(root, "tools"))
from build_fixture import build_fixture  # noqa: E402


def run_with_tty_stderr(args):
    """Runs args with stdout to a pipe and stderr to a pseudo-terminal."""
    master, slave = pty.openpty()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO once the child has closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    out = p.stdout.read()
    p.wait(timeout=60)
    os.close(master)
    return p.returncode, out.decode(), b"".join(chunks).decode(errors="replace")


def main():
    tmp = tempfile.mkdtemp(prefix="opmfu-tty-")
    fails = 0
    try:
        tree = os.path.join(tmp, "tree")
        build_fixture(root, "cluster", tree)
        opmfu = sys.argv[1]
        rc, out, err = run_with_tty_stderr([opmfu, "analyze", tree, "-o", os.path.join(tmp, "o1")])
        if rc != 0 or "3/3 ranks" not in err or "kernels/s" not in err:
            print("terminal: no progress line (exit %d): %r" % (rc, err))
            fails += 1
        rc, out, err = run_with_tty_stderr([opmfu, "analyze", tree, "-o", os.path.join(tmp, "o2"), "-q"])
        if rc != 0 or "ranks," in err or out:
            print("--quiet on a terminal printed progress or a summary: %r %r" % (err, out))
            fails += 1
        p = subprocess.run([opmfu, "analyze", tree, "-o", os.path.join(tmp, "o3")],
                           capture_output=True, text=True)
        if p.returncode != 0 or "ranks," in p.stderr:
            print("stderr not a terminal, yet progress was printed: %r" % p.stderr)
            fails += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("progress_tty: %s" % ("ok" if not fails else "%d failures" % fails))
    return 1 if fails else 0


sys.exit(main())
