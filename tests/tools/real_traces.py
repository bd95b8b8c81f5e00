"""The real traces of ../shared/real beside the source tree."""
import glob
import os
import sys


def kineto_trace(root, name):
    """The first *.json.gz of ../shared/real/kineto/NAME beside the source tree root; when there
    is none, says so and exits 77 (the test is skipped)."""
    folder = os.path.join(os.path.dirname(os.path.abspath(root)), "shared", "real", "kineto", name)
    found = sorted(glob.glob(os.path.join(folder, "*.json.gz")))
    if not found:
        print("no %s: skipped" % folder)
        sys.exit(77)
    return found[0]
