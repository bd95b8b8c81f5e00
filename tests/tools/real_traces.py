"""The real traces of ../shared/real beside the source tree (tests that need them skip,
exit 77, when they are absent)."""
import glob
import os


def kineto_trace(root, name):
    """(folder, the first *.json.gz in it or None) of ../shared/real/kineto/NAME beside the
    source tree root."""
    folder = os.path.join(os.path.dirname(os.path.abspath(root)), "shared", "real", "kineto", name)
    found = sorted(glob.glob(os.path.join(folder, "*.json.gz")))
    return folder, found[0] if found else None
