"""PyOpenCL in clstream's stream order (the OpenCL build).

``context()`` is clstream's ``cl_context`` for a device and ``queue(s)``
the stream's own in-order ``cl_command_queue`` (``clsOpenCLGetQueue``),
both as PyOpenCL objects: whatever PyOpenCL enqueues on that queue is
ordered exactly like the stream's own work, so events recorded on the
stream cover it, ``Stream.wait_event`` holds it, and the legacy stream's
implicit synchronization applies (docs/interop.md, "Ordering").

Arrays in torch's sense (``tensor(...).cuda()``, ``t.cpu()``, ``t1 + t2``
on the current stream): ``to_device(x)`` gives a ``DeviceArray``, a
``pyopencl.array.Array`` whose queue is *the calling thread's current
stream's* queue at each operation, so inside ``with clstream.stream(s):``
``t1 + t2`` runs on ``s`` and outside on the current stream, and
``.cpu()`` / ``.get()`` read back after that stream's earlier work.  Its
memory is PyOpenCL's (``clCreateBuffer`` in clstream's context) or,
with ``allocator=malloc``, clstream's (``clsMalloc``: SVM or buffers;
the array's buffer is ``clsOpenCLGetMem``'s ``cl_mem``, and
``DeviceArray.ptr`` the device pointer for clstream's calls).
"""

from __future__ import annotations

import ctypes
import threading
import weakref
from ctypes import byref, c_size_t, c_void_p
from typing import Any, Dict, List, Optional

from . import _core, _hostfn
from ._errors import error_class, raise_for
from ._lib import backend, lib

if backend != "OpenCL":
    raise ImportError("clstream.opencl needs the OpenCL build of libclstream (this one is CUDA's)")

import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402
import pyopencl.array as cl_array  # noqa: E402

__all__ = ["context", "device", "queue", "event", "to_device", "empty", "zeros", "malloc", "DeviceArray"]

_contexts: Dict[int, "cl.Context"] = {}
_devices: Dict[int, "cl.Device"] = {}
_lock = threading.Lock()


def _open(i: int) -> None:
    plat, dev, ctx = c_void_p(), c_void_p(), c_void_p()
    rc = lib.clsOpenCLGetDevice(i, byref(plat), byref(dev), byref(ctx))
    if rc:
        raise_for(rc, "clstream.opencl.context")
    with _lock:
        if i not in _contexts:
            _contexts[i] = cl.Context.from_int_ptr(ctx.value, retain=True)
            _devices[i] = cl.Device.from_int_ptr(dev.value, retain=True)


def context(device: Optional[int] = None) -> "cl.Context":
    """clstream's ``cl_context`` for the device (``clsOpenCLGetDevice``), as
    a ``pyopencl.Context`` (retained; the same object on every call)."""
    i = _core._device_index(device, "clstream.opencl.context")
    c = _contexts.get(i)
    if c is None:
        _open(i)
        c = _contexts[i]
    return c


def device(device: Optional[int] = None) -> "cl.Device":
    """The device's ``cl_device_id`` as a ``pyopencl.Device``."""
    i = _core._device_index(device, "clstream.opencl.device")
    if i not in _devices:
        _open(i)
    return _devices[i]


def queue(stream: Optional[_core.Stream] = None) -> "cl.CommandQueue":
    """The stream's own in-order queue (default: the current stream) as a
    ``pyopencl.CommandQueue`` (``clsOpenCLGetQueue``; retained by PyOpenCL,
    valid while the stream lives).  Work enqueued on it runs in the
    stream's order.  The same object for the same stream."""
    if stream is None:
        stream = _core._current()
    elif not isinstance(stream, _core.Stream):
        raise TypeError(f"clstream.opencl.queue: expected a Stream or None, not {type(stream).__name__}")
    q = stream._pyqueue
    if q is None:
        if stream._h.value in (None, 1, 2):
            # The default streams' handles name the current device's.
            with _core._OnDevice(stream._device):
                context(stream._device)
                q = cl.CommandQueue.from_int_ptr(stream.native_handle, retain=True)
        else:
            context(stream._device)
            q = cl.CommandQueue.from_int_ptr(stream.native_handle, retain=True)
        stream._pyqueue = q
    return q


def event(e: _core.Event) -> "cl.Event":
    """A ``pyopencl.Event`` that completes with the work ``e``'s newest
    record captured (``clsOpenCLGetEvent``; a completed event for one never
    recorded), for PyOpenCL's ``wait_for`` lists."""
    if not isinstance(e, _core.Event):
        raise TypeError(f"clstream.opencl.event: expected an Event, not {type(e).__name__}")
    out = c_void_p()
    rc = lib.clsOpenCLGetEvent(e._h, byref(out))
    if rc:
        raise_for(rc, "clstream.opencl.event")
    return cl.Event.from_int_ptr(out.value, retain=False)  # takes over our reference


# ---- memory ---------------------------------------------------------------------

_deferred: List[int] = []  # pointers collected on a host-function thread, freed later


def _free(ptr: int) -> None:
    if threading.get_ident() in _hostfn.dispatcher_ids:
        _deferred.append(ptr)  # clsFree blocks on the streams: not here
        return
    while _deferred:
        lib.clsFree(c_void_p(_deferred.pop()))
    lib.clsFree(c_void_p(ptr))


def malloc(nbytes: int) -> "cl.Buffer":
    """A PyOpenCL allocator over ``clsMalloc``: a ``pyopencl.Buffer`` on the
    allocation's ``cl_mem`` (``clsOpenCLGetMem``, SVM or buffer path) with
    the device pointer as ``.cls_ptr``; ``clsFree`` runs when the buffer is
    collected (it waits for the device's streams, as ``cudaFree`` does)."""
    if isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer)):
        raise TypeError(f"clstream.opencl.malloc: nbytes must be an int, not {type(nbytes).__name__}")
    nbytes = max(int(nbytes), 1)
    p = c_void_p()
    rc = lib.clsMalloc(byref(p), nbytes)
    if rc:
        raise_for(rc, "clstream.opencl.malloc")
    mem, off = c_void_p(), c_size_t()
    rc = lib.clsOpenCLGetMem(p, byref(mem), byref(off))
    if rc:
        lib.clsFree(p)
        raise_for(rc, "clstream.opencl.malloc")
    buf = cl.MemoryObject.from_int_ptr(mem.value, retain=True)
    if off.value:
        buf = buf.get_sub_region(off.value, nbytes)
    ptr = p.value or 0
    buf.cls_ptr = ptr
    weakref.finalize(buf, _free, ptr)
    return buf


class DeviceArray(cl_array.Array):
    """A ``pyopencl.array.Array`` whose queue is the calling thread's current
    clstream stream's at every operation (see the module's text), with
    torch's ``cpu()``.  Results of arithmetic are DeviceArrays too."""

    @property  # type: ignore[override]
    def queue(self) -> "cl.CommandQueue":
        return queue(_core._current())

    @queue.setter
    def queue(self, value: Any) -> None:
        pass  # the queue is always the current stream's

    def cpu(self) -> np.ndarray:
        """The array in host memory, read on the current stream after its
        earlier work (``get()``)."""
        return self.get()

    def cuda(self) -> "DeviceArray":
        """Already on the device: itself (torch's ``.cuda()``)."""
        return self

    @property
    def ptr(self) -> int:
        """The clstream device pointer of the first element where the memory
        came from ``malloc`` (usable in clstream's C calls), else
        ``InvalidDevicePointer``."""
        p = getattr(self.base_data, "cls_ptr", None)
        if p is None:
            raise error_class(17)(17, "the array's memory is PyOpenCL's; allocate with allocator=malloc",
                                  "DeviceArray.ptr")
        return p + self.offset


def to_device(x: Any, dtype: Any = None, stream: Optional[_core.Stream] = None,
              allocator: Any = None) -> DeviceArray:
    """Copies ``x`` (anything ``numpy.asarray`` takes) to the device on
    ``stream`` (default: the current stream), as torch's
    ``torch.tensor(x).cuda()``.  ``allocator=malloc`` puts it in clstream's
    memory; the default is PyOpenCL's, in clstream's context."""
    a = np.ascontiguousarray(np.asarray(x, dtype=dtype))
    s = stream if stream is not None else _core._current()
    if not isinstance(s, _core.Stream):
        raise TypeError(f"to_device: stream must be a Stream or None, not {type(s).__name__}")
    q = queue(s)
    out = DeviceArray(q, a.shape, a.dtype, allocator=allocator)
    # Asynchronous, in the stream's order (a blocking write would wait for
    # the stream's earlier work on the host); the array keeps the host copy.
    out.set(a, queue=q, async_=True)
    out._cls_host = a
    return out


def empty(shape: Any, dtype: Any = np.float32, allocator: Any = None) -> DeviceArray:
    """An uninitialized DeviceArray."""
    return DeviceArray(queue(), shape, np.dtype(dtype), allocator=allocator)


def zeros(shape: Any, dtype: Any = np.float32, allocator: Any = None) -> DeviceArray:
    """A DeviceArray of zeros, set on the current stream."""
    a = empty(shape, dtype, allocator)
    a.fill(0)
    return a
