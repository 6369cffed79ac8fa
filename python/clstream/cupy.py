"""CuPy in clstream's stream order (the CUDA build).

Importing this module makes ``with clstream.stream(s):`` also make
``cupy.cuda.ExternalStream(s.native_handle)`` CuPy's current stream, so
CuPy's operations inside run on ``s``.  ``to_device(x)`` copies to the
device on a stream (default: the current one).  Untested in the
repository's CI (no GPU there); ci/gpu.sh runs it.
"""

from __future__ import annotations

from typing import Any, Optional

from . import _core
from ._lib import backend

if backend != "CUDA":
    raise ImportError("clstream.cupy needs the CUDA build of libclstream (this one is OpenCL's)")

import numpy as np  # noqa: E402

import cupy  # noqa: E402

__all__ = ["external", "to_device"]


def external(s: _core.Stream) -> "cupy.cuda.ExternalStream":
    """CuPy's view of a clstream stream (its ``cudaStream_t``)."""
    return cupy.cuda.ExternalStream(s.native_handle, s.device)


_core._stream_hooks.append(external)


def to_device(x: Any, dtype: Any = None, stream: Optional[_core.Stream] = None,
              allocator: Any = None) -> Any:
    """``x`` as a CuPy array, copied on ``stream`` (default: current).
    ``allocator`` must be None (CuPy's memory pool allocates)."""
    if allocator is not None:
        raise ValueError("to_device: CuPy arrays take no allocator here")
    s = stream if stream is not None else _core._current()
    a = np.ascontiguousarray(np.asarray(x, dtype=dtype))
    with external(s):
        return cupy.asarray(a)
