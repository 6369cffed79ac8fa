"""pytest set-up: a second device where one can be had (PoCL's CPU split in
two by CLSTREAM_SPLIT_DEVICES, read when the library first opens a
platform), and the build's array library or a skip with the reason."""

import os
import sys

import pytest

os.environ.setdefault("CLSTREAM_SPLIT_DEVICES", "2")
HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples", "python")

import clstream  # noqa: E402


@pytest.fixture
def arrays():
    try:
        from clstream.array import to_device
    except ImportError as e:
        pytest.skip(f"no array library for this build: {e}")
    return to_device


@pytest.fixture
def other_device():
    """A device other than the current one, or a skip."""
    n = clstream.device_count()
    cur = clstream.current_device()
    for i in range(n):
        if i != cur and clstream.get_device_properties(i).platform_name == \
                clstream.get_device_properties(cur).platform_name:
            return i
    pytest.skip(f"only one device of this platform ({n} in all; PoCL splits with CLSTREAM_SPLIT_DEVICES)")


@pytest.fixture
def gate():
    """A threading.Event a host function waits on; set at teardown so no
    stream stays held."""
    import threading

    g = threading.Event()
    yield g
    g.set()
