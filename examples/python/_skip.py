"""Shared by the Python examples: the array library of this build, or a
clear skip (exit status 77, CTest's and ci/examples.sh's "skipped")."""

import sys


def arrays():
    try:
        from clstream.array import to_device
    except ImportError as e:
        print(f"skipped: {e}")
        sys.exit(77)
    return to_device
