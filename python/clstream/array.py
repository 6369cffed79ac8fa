"""Arrays in stream order, whichever the build: ``clstream.opencl``'s
``DeviceArray`` (PyOpenCL) on OpenCL, CuPy arrays on CUDA
(``clstream.cupy``).  ``to_device(x)`` is torch's ``tensor(x).cuda()``;
arithmetic runs on the current stream; ``.get()`` reads back after the
current stream's earlier work.  Importing this module raises ImportError,
with the reason, where the build's array library is not installed."""

from __future__ import annotations

from ._lib import backend

try:
    if backend == "OpenCL":
        from .opencl import to_device  # noqa: F401
    else:
        from .cupy import to_device  # noqa: F401
except ImportError as e:
    lib_name = "PyOpenCL and NumPy" if backend == "OpenCL" else "CuPy"
    raise ImportError(f"clstream.array on the {backend} build needs {lib_name}: {e}") from e

__all__ = ["to_device"]
