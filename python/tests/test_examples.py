"""The examples of examples/python, run as a user runs them, print what
their torch originals print."""

import os
import subprocess
import sys

import pytest

from conftest import EXAMPLES

EXPECTED = {
    "event_synchronize.py": "[ 2  4  6  8 10]\n",
    "stream_add.py": "[6 6 6 6 6]\n",
    "event_query.py": "False\nTrue\n[ 3  6  9 12 15]\n",
}


def run(name):
    import clstream

    env = dict(os.environ)  # the clstream this test imported, installed or not
    root = os.path.dirname(os.path.dirname(os.path.abspath(clstream.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)], capture_output=True, text=True,
                       timeout=300, cwd=EXAMPLES, env=env)
    if p.returncode == 77:
        pytest.skip(p.stdout.strip())
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_canonical_example(name):
    assert run(name) == EXPECTED[name]


def test_timing_example():
    out = run("timing.py")
    for word in ("copy (events):", "compute (events):", "both (host clock):", "overlap:"):
        assert word in out
