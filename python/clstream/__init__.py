"""clstream: torch.cuda's Event and Stream on every OpenCL device (and on
CUDA), over the clstream C library (ctypes; every blocking call releases
the GIL).  Guide: docs/python.md; the C behaviour each call keeps:
docs/semantics.md.

    import clstream
    s = clstream.Stream()
    e = clstream.Event(enable_timing=True)
    with clstream.stream(s):
        ...                      # work on s (clstream.opencl's arrays)
        e.record()
    e.synchronize()
"""

from ._lib import backend, path as library_path
from ._errors import *  # noqa: F401,F403  (Error and one class per code)
from ._errors import Error
from ._core import (
    DeviceProperties,
    Event,
    ExternalStream,
    Stream,
    StreamContext,
    current_device,
    current_stream,
    default_stream,
    device_count,
    get_device_name,
    get_device_properties,
    set_device,
    set_stream,
    stream,
    synchronize,
)

__version__ = "0.1.0"


def is_available() -> bool:
    """True when clstream finds a device."""
    return device_count() > 0
