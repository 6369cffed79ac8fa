"""torch.cuda's Event and Stream over clstream's C calls.

Rows cited as "semantics: <table>, <case>" are those of docs/semantics.md
(the C call's behaviour, which each method keeps).  The hot paths (record,
query, synchronize, wait) are one ctypes call on a prebuilt handle, with
no allocation; ctypes releases the GIL for every call.
"""

from __future__ import annotations

import ctypes
import threading
from ctypes import byref, c_float, c_int, c_uint, c_void_p
from typing import Any, Callable, Iterator, List, Optional, Tuple, Union

from . import _hostfn
from ._errors import Error, error_class, raise_for
from ._lib import DeviceProp, backend, lib

__all__ = [
    "Event", "Stream", "ExternalStream", "StreamContext", "stream", "current_stream",
    "default_stream", "set_stream", "synchronize", "device_count", "current_device",
    "set_device", "get_device_name", "get_device_properties", "DeviceProperties",
]

_NOT_READY = 600
_LEGACY = 1  # clsStreamLegacy
_NONBLOCKING = 1
_BLOCKING_SYNC, _DISABLE_TIMING, _INTERPROCESS = 1, 2, 4

_ev_record = lib.clsEventRecord
_ev_query = lib.clsEventQuery
_ev_sync = lib.clsEventSynchronize
_st_query = lib.clsStreamQuery
_st_sync = lib.clsStreamSynchronize
_st_wait = lib.clsStreamWaitEvent
_get_device = lib.clsGetDevice

DeviceLike = Union[int, None]

# ---- threads and devices ----------------------------------------------------


class _Local(threading.local):
    cur: Optional["Stream"] = None  # the thread's current stream (None: default)
    dev: int = -1  # the thread's current device as this package last saw it


_tls = _Local()
_hq_lock = threading.Lock()


def _in_host_fn_check(what: str) -> None:
    if threading.get_ident() in _hostfn.dispatcher_ids:
        raise error_class(800)(800, "called from a host function (Stream.launch_host_func)", what)


def _device_index(device: Any, what: str) -> int:
    """An explicit device argument as an index (int, or an object with an
    int ``index``, as torch.device has); None is the current device."""
    if device is None:
        return current_device()
    if isinstance(device, bool):
        raise TypeError(f"{what}: device must be an int or None, not bool")
    if isinstance(device, int):
        if device < 0:
            raise ValueError(f"{what}: device must be >= 0, not {device}")
        return device
    idx = getattr(device, "index", None)
    if isinstance(idx, int):
        return idx
    if idx is None and hasattr(device, "index"):
        return current_device()
    raise TypeError(f"{what}: device must be an int or None, not {type(device).__name__}")


def device_count() -> int:
    """The number of devices (``clsGetDeviceCount``; 0 when there is none,
    where torch also gives 0)."""
    n = c_int()
    rc = lib.clsGetDeviceCount(byref(n))
    if rc == 100:  # NoDevice
        lib.clsGetLastError()
        return 0
    if rc:
        raise_for(rc, "device_count")
    return n.value


def current_device() -> int:
    """The calling thread's current device (``clsGetDevice``)."""
    d = _tls.dev
    if d < 0:
        n = c_int()
        rc = _get_device(byref(n))
        if rc:
            raise_for(rc, "current_device")
        d = _tls.dev = n.value
    return d


def set_device(device: int) -> None:
    """Makes ``device`` the calling thread's current device
    (``clsSetDevice``; an index out of range raises ``InvalidDevice``)."""
    if device is None:
        raise TypeError("set_device: device must be an int, not None")
    i = _device_index(device, "set_device")
    rc = lib.clsSetDevice(i)
    if rc:
        raise_for(rc, "set_device")
    _tls.dev = i


class _Owned:
    """Base of the objects that may own a C handle (``_owned``): one that
    does destroys it when it is collected."""

    __slots__ = ()

    def destroy(self) -> None:
        raise NotImplementedError

    def __del__(self) -> None:
        try:
            if getattr(self, "_owned", False):
                self.destroy()
        except Exception:
            pass


class _OnDevice:
    """``with _OnDevice(i):`` makes device i current for the block."""

    __slots__ = ("i", "old")

    def __init__(self, i: int) -> None:
        self.i = i
        self.old = -1

    def __enter__(self) -> None:
        cur = current_device()
        if cur != self.i:
            self.old = cur
            set_device(self.i)

    def __exit__(self, *exc: Any) -> None:
        if self.old >= 0:
            set_device(self.old)


class DeviceProperties:
    """The fields of ``clsDeviceProp`` with torch's names where torch has
    one (``name``, ``total_memory``, ``multi_processor_count``, ``major``,
    ``minor``) and clstream's own (``platform_name``, ``is_cpu``,
    ``buffer_memory``, ``host_funcs_inline``, ...)."""

    def __init__(self, p: DeviceProp) -> None:
        self.name = p.name.decode(errors="replace")
        self.total_memory = int(p.totalGlobalMem)
        self.multi_processor_count = int(p.multiProcessorCount)
        self.max_threads_per_block = int(p.maxThreadsPerBlock)
        self.warp_size = int(p.warpSize)
        self.major, self.minor = int(p.major), int(p.minor)
        self.platform_name = p.platformName.decode(errors="replace")
        self.driver_version = p.driverVersion.decode(errors="replace")
        self.is_cpu = bool(p.isCpu)
        self.svm_coarse_grain = bool(p.svmCoarseGrain)
        self.buffer_memory = bool(p.bufferMemory)
        self.host_funcs_inline = bool(p.hostFuncsInline)
        self.timer_resolution_ns = float(p.timerResolutionNs)

    def __repr__(self) -> str:
        return (f"DeviceProperties(name={self.name!r}, platform={self.platform_name!r}, "
                f"total_memory={self.total_memory >> 20}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device: DeviceLike = None) -> DeviceProperties:
    """``clsGetDeviceProperties`` (does not open the device)."""
    i = _device_index(device, "get_device_properties")
    p = DeviceProp()
    rc = lib.clsGetDeviceProperties(byref(p), i)
    if rc:
        raise_for(rc, "get_device_properties")
    return DeviceProperties(p)


def get_device_name(device: DeviceLike = None) -> str:
    """The device's name."""
    return get_device_properties(device).name


def synchronize(device: DeviceLike = None) -> None:
    """Waits for every stream of the device, host functions included
    (``clsDeviceSynchronize``); then re-raises an exception a host function
    raised, if one is kept."""
    if _hostfn.used:
        _in_host_fn_check("synchronize")
    i = _device_index(device, "synchronize")
    with _OnDevice(i):
        rc = lib.clsDeviceSynchronize()
    if rc:
        raise_for(rc, "synchronize")
    if _hostfn.used:
        _hostfn.take_any()


# ---- streams ------------------------------------------------------------------


class Stream(_Owned):
    """A stream (``clsStreamCreateWithPriority``), as ``torch.cuda.Stream``.

    ``non_blocking=True`` (the default, as torch's pool streams) makes a
    ``clsStreamNonBlocking`` stream: no implicit synchronization with the
    legacy stream (semantics: The legacy default stream, "non-blocking
    streams are exempt").  ``non_blocking=False`` gives CUDA's blocking
    stream.  ``priority`` is clamped into ``priority_range()`` (semantics:
    Streams, "create with a priority outside the range").
    """

    __slots__ = ("_h", "_device", "_hq", "_owned", "_native", "_pyqueue", "__weakref__")

    def __init__(self, device: DeviceLike = None, priority: int = 0, non_blocking: bool = True) -> None:
        self._owned = False
        self._hq: Optional[_hostfn.HostQueue] = None
        self._native: Optional[int] = None
        self._pyqueue: Any = None
        if not isinstance(priority, int) or isinstance(priority, bool):
            raise TypeError(f"Stream: priority must be an int, not {type(priority).__name__}")
        if not isinstance(non_blocking, bool):
            raise TypeError(f"Stream: non_blocking must be a bool, not {type(non_blocking).__name__}")
        self._device = _device_index(device, "Stream")
        h = c_void_p()
        with _OnDevice(self._device):
            rc = lib.clsStreamCreateWithPriority(byref(h), _NONBLOCKING if non_blocking else 0, priority)
        if rc:
            raise_for(rc, "Stream")
        self._h = h
        self._owned = True

    @classmethod
    def _wrap(cls, handle: int, device: int) -> "Stream":
        s = cls.__new__(cls)
        s._h, s._device, s._hq, s._owned, s._native, s._pyqueue = c_void_p(handle), device, None, False, None, None
        return s

    # -- queries and waits
    def query(self) -> bool:
        """True when all the stream's work is done (``clsStreamQuery``; for
        the legacy stream, the blocking streams' work it would wait for
        too).  Never blocks."""
        rc = _st_query(self._h)
        if self._hq is not None and self._hq.errors:
            self._hq.take()
        if rc == 0:
            return True
        if rc == _NOT_READY:
            return False
        raise_for(rc, "Stream.query")

    def synchronize(self) -> None:
        """Blocks until all the stream's work is done (``clsStreamSynchronize``,
        semantics: Streams, "synchronize"); then re-raises an exception of one
        of its host functions, if one is kept."""
        if _hostfn.used:
            _in_host_fn_check("Stream.synchronize")
        rc = _st_sync(self._h)
        if rc:
            raise_for(rc, "Stream.synchronize")
        if self._hq is not None and self._hq.errors:
            self._hq.take()

    def wait_event(self, event: "Event") -> None:
        """Later work in the stream waits for the work ``event`` captured at
        its newest record (``clsStreamWaitEvent``; an event never recorded:
        no effect; an event of another device works)."""
        if not isinstance(event, Event):
            raise TypeError(f"Stream.wait_event: expected an Event, not {type(event).__name__}")
        rc = _st_wait(self._h, event._h, 0)
        if rc:
            raise_for(rc, "Stream.wait_event")

    def wait_stream(self, stream: "Stream") -> None:
        """Later work in this stream waits for the work in ``stream`` so far
        (``wait_event(stream.record_event())``)."""
        if not isinstance(stream, Stream):
            raise TypeError(f"Stream.wait_stream: expected a Stream, not {type(stream).__name__}")
        self.wait_event(stream.record_event())

    def record_event(self, event: Optional["Event"] = None) -> "Event":
        """Records ``event`` (a new one when None) on this stream and returns it."""
        if event is None:
            with _OnDevice(self._device):
                event = Event()
        elif not isinstance(event, Event):
            raise TypeError(f"Stream.record_event: expected an Event or None, not {type(event).__name__}")
        event.record(self)
        return event

    def launch_host_func(self, fn: Callable[..., Any], *args: Any) -> None:
        """Runs ``fn(*args)`` once, after all earlier work of the stream;
        later work waits until it returns (``clsLaunchHostFunc``; semantics:
        Streams, "a host function or callback").  ``fn`` runs on a Python
        thread of this stream's own (never on a library or driver thread),
        may take the GIL and Python locks while other threads synchronize,
        and must not call a blocking clstream call (``NotPermitted``).  An
        exception it raises is re-raised by the next ``synchronize()`` or
        ``query()`` of this stream, of an event recorded on it later, or of
        the device."""
        if not callable(fn):
            raise TypeError(f"Stream.launch_host_func: fn must be callable, not {type(fn).__name__}")
        hq = self._hq
        if hq is None:
            with _hq_lock:  # one dispatcher per stream, whichever thread is first
                hq = self._hq
                if hq is None:
                    hq = self._hq = _hostfn.HostQueue()
        hq.launch(self._h, fn, args)

    # -- attributes
    @property
    def device(self) -> int:
        """The stream's device index."""
        return self._device

    @property
    def priority(self) -> int:
        """The stream's (clamped) priority (``clsStreamGetPriority``)."""
        p = c_int()
        rc = lib.clsStreamGetPriority(self._h, byref(p))
        if rc:
            raise_for(rc, "Stream.priority")
        return p.value

    @property
    def non_blocking(self) -> bool:
        """Whether the stream was made with ``clsStreamNonBlocking``."""
        f = c_uint()
        rc = lib.clsStreamGetFlags(self._h, byref(f))
        if rc:
            raise_for(rc, "Stream.non_blocking")
        return bool(f.value & _NONBLOCKING)

    @staticmethod
    def priority_range() -> Tuple[int, int]:
        """``(least, greatest)`` priorities (``clsDeviceGetStreamPriorityRange``;
        ``(0, 0)`` where the device has none)."""
        lo, hi = c_int(), c_int()
        rc = lib.clsDeviceGetStreamPriorityRange(byref(lo), byref(hi))
        if rc:
            raise_for(rc, "Stream.priority_range")
        return lo.value, hi.value

    @property
    def native_handle(self) -> int:
        """The native stream as an int: the ``cl_command_queue``
        (``clsOpenCLGetQueue``; from then on the stream pays one barrier per
        record, query and synchronize, docs/interop.md) or the
        ``cudaStream_t`` (``clsCUDAGetStream``).  Not retained: valid while
        the stream lives."""
        n = self._native
        if n is None:
            out = c_void_p()
            with _OnDevice(self._device):
                if backend == "OpenCL":
                    rc = lib.clsOpenCLGetQueue(self._h, byref(out))
                else:
                    rc = lib.clsCUDAGetStream(self._h, byref(out))
            if rc:
                raise_for(rc, "Stream.native_handle")
            n = self._native = out.value or 0
        return n

    cuda_stream = native_handle  # torch's name for it

    # -- life
    def destroy(self) -> None:
        """Destroys the stream now (``clsStreamDestroy``: returns at once;
        work in it, host functions included, still runs).  Later calls on
        the object raise ``InvalidResourceHandle``, from the C library.
        Also done when the object is collected."""
        if not self._owned:
            if self._h.value in (None, _LEGACY, 2):
                raise error_class(400)(400, "the default streams cannot be destroyed", "Stream.destroy")
            return
        self._owned = False
        if self._hq is not None:
            self._hq.close(self._h)
        rc = lib.clsStreamDestroy(self._h)
        if rc:
            raise_for(rc, "Stream.destroy")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Stream):
            return NotImplemented
        return self._h.value == other._h.value and self._device == other._device

    def __hash__(self) -> int:
        return hash((self._h.value, self._device))

    def __repr__(self) -> str:
        kind = "legacy" if self._h.value == _LEGACY else hex(self._h.value or 0)
        return f"<clstream.Stream device={self._device} handle={kind}>"


class ExternalStream(Stream):
    """A stream over a program's native stream (``torch.cuda.ExternalStream``):
    an in-order ``cl_command_queue`` of clstream's context for the device
    (``clsOpenCLStreamCreateFromQueue``) or a ``cudaStream_t``
    (``clsCUDAStreamCreateFromStream``), given as an int.  The stream is
    non-blocking; destroying it releases clstream's reference only."""

    __slots__ = ()

    def __init__(self, native_handle: int, device: DeviceLike = None) -> None:
        self._owned = False
        self._hq = None
        self._native = None
        self._pyqueue = None
        if isinstance(native_handle, bool) or not isinstance(native_handle, int):
            raise TypeError(f"ExternalStream: native_handle must be an int, not {type(native_handle).__name__}")
        if native_handle == 0:
            raise ValueError("ExternalStream: native_handle must not be 0")
        self._device = _device_index(device, "ExternalStream")
        h = c_void_p()
        with _OnDevice(self._device):
            if backend == "OpenCL":
                rc = lib.clsOpenCLStreamCreateFromQueue(byref(h), c_void_p(native_handle), _NONBLOCKING)
            else:
                rc = lib.clsCUDAStreamCreateFromStream(byref(h), c_void_p(native_handle), _NONBLOCKING)
        if rc:
            raise_for(rc, "ExternalStream")
        self._h = h
        self._owned = True
        self._native = native_handle


_defaults: List[Optional[Stream]] = []


def default_stream(device: DeviceLike = None) -> Stream:
    """The device's legacy default stream (``clsStreamLegacy``), with its
    implicit synchronization with blocking streams (semantics: The legacy
    default stream).  Its calls act on the calling thread's current
    device, as ``clsStreamLegacy`` does."""
    i = _device_index(device, "default_stream")
    while len(_defaults) <= i:
        _defaults.append(None)
    s = _defaults[i]
    if s is None:
        s = _defaults[i] = Stream._wrap(_LEGACY, i)
    return s


def current_stream(device: DeviceLike = None) -> Stream:
    """The calling thread's current stream (set by ``set_stream`` or
    ``stream(s)``), else the device's default stream."""
    s = _tls.cur
    if s is not None and (device is None or s._device == _device_index(device, "current_stream")):
        return s
    return default_stream(device)


def set_stream(s: Optional[Stream]) -> None:
    """Makes ``s`` the calling thread's current stream (None: no change,
    as torch)."""
    if s is None:
        return
    if not isinstance(s, Stream):
        raise TypeError(f"set_stream: expected a Stream, not {type(s).__name__}")
    _tls.cur = s


# Callables (stream) -> context manager, entered with the current stream by
# ``stream(s)`` (clstream.cupy makes CuPy's current stream follow).
_stream_hooks: List[Callable[["Stream"], Any]] = []


class StreamContext:
    """``with clstream.stream(s):`` -- ``s`` is the thread's current stream
    inside, the previous one again after (nesting restores); ``None`` is a
    no-op."""

    __slots__ = ("s", "prev", "hooked")

    def __init__(self, s: Optional[Stream]) -> None:
        if s is not None and not isinstance(s, Stream):
            raise TypeError(f"stream: expected a Stream or None, not {type(s).__name__}")
        self.s = s
        self.prev: Optional[Stream] = None
        self.hooked: List[Any] = []

    def __enter__(self) -> Optional[Stream]:
        if self.s is not None:
            self.prev = _tls.cur
            _tls.cur = self.s
            for h in _stream_hooks:
                cm = h(self.s)
                cm.__enter__()
                self.hooked.append(cm)
        return self.s

    def __exit__(self, *exc: Any) -> None:
        if self.s is not None:
            _tls.cur = self.prev
            while self.hooked:
                self.hooked.pop().__exit__(None, None, None)


def stream(s: Optional[Stream]) -> StreamContext:
    """The context manager that makes ``s`` current (``torch.cuda.stream``)."""
    return StreamContext(s)


def _current() -> Stream:
    s = _tls.cur
    return s if s is not None else default_stream()


# ---- events -------------------------------------------------------------------


class Event(_Owned):
    """An event (``clsEventCreateWithFlags``), as ``torch.cuda.Event``:
    timing off by default (``clsEventDisableTiming``), ``blocking`` for
    ``clsEventBlockingSync`` (synchronize sleeps instead of spinning),
    ``interprocess`` for ``clsEventInterprocess`` (inside the process only
    on OpenCL; needs ``enable_timing=False``, semantics: Events)."""

    __slots__ = ("_h", "_timing", "_recorded", "_hq", "_seq", "_owned", "__weakref__")

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        self._owned = False
        for n, v in (("enable_timing", enable_timing), ("blocking", blocking), ("interprocess", interprocess)):
            if not isinstance(v, bool):
                raise TypeError(f"Event: {n} must be a bool, not {type(v).__name__}")
        if interprocess and enable_timing:
            raise ValueError("Event: an interprocess event cannot have timing (enable_timing=False)")
        flags = (0 if enable_timing else _DISABLE_TIMING) | (_BLOCKING_SYNC if blocking else 0) | (
            _INTERPROCESS if interprocess else 0)
        h = c_void_p()
        rc = lib.clsEventCreateWithFlags(byref(h), flags)
        if rc:
            raise_for(rc, "Event")
        self._h = h
        self._timing = enable_timing
        self._recorded = False
        self._hq: Optional[_hostfn.HostQueue] = None
        self._seq = 0
        self._owned = True

    def record(self, stream: Optional[Stream] = None) -> None:
        """Captures the stream's work so far (``clsEventRecord``; default:
        the current stream).  A stream of another device raises
        ``InvalidResourceHandle`` (semantics: Events)."""
        if stream is None:
            s = _tls.cur
            stream = s if s is not None else default_stream()
        elif not isinstance(stream, Stream):
            raise TypeError(f"Event.record: expected a Stream or None, not {type(stream).__name__}")
        rc = _ev_record(self._h, stream._h)
        if rc:
            raise_for(rc, "Event.record")
        self._recorded = True
        hq = self._hq = stream._hq
        if hq is not None:
            self._seq = hq.launched

    def wait(self, stream: Optional[Stream] = None) -> None:
        """Makes later work in the stream (default: the current one) wait for
        this event's work (``clsStreamWaitEvent``)."""
        if stream is None:
            s = _tls.cur
            stream = s if s is not None else default_stream()
        elif not isinstance(stream, Stream):
            raise TypeError(f"Event.wait: expected a Stream or None, not {type(stream).__name__}")
        rc = _st_wait(stream._h, self._h, 0)
        if rc:
            raise_for(rc, "Event.wait")

    def query(self) -> bool:
        """True when the captured work is done, or the event was never
        recorded (``clsEventQuery``; semantics: Events, "query or
        synchronize an event never recorded").  Never blocks."""
        rc = _ev_query(self._h)
        hq = self._hq
        if hq is not None and hq.errors:
            hq.take(self._seq)
        if rc == 0:
            return True
        if rc == _NOT_READY:
            return False
        raise_for(rc, "Event.query")

    def synchronize(self) -> None:
        """Blocks until the captured work is done; returns at once for an
        event never recorded (``clsEventSynchronize``)."""
        if _hostfn.used:
            _in_host_fn_check("Event.synchronize")
        rc = _ev_sync(self._h)
        if rc:
            raise_for(rc, "Event.synchronize")
        hq = self._hq
        if hq is not None and hq.errors:
            hq.take(self._seq)

    def elapsed_time(self, end_event: "Event") -> float:
        """Milliseconds from this event's record to ``end_event``'s
        (``clsEventElapsedTime``).  As torch: ``ValueError`` when either was
        made without timing or was never recorded, ``RuntimeError``
        (``clstream.NotReady``) while either has not completed."""
        if not isinstance(end_event, Event):
            raise TypeError(f"Event.elapsed_time: expected an Event, not {type(end_event).__name__}")
        if not (self._timing and end_event._timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if not (self._recorded and end_event._recorded):
            raise ValueError("Both events must be recorded before calculating elapsed time.")
        ms = c_float()
        rc = lib.clsEventElapsedTime(byref(ms), self._h, end_event._h)
        if rc:
            raise_for(rc, "Event.elapsed_time")
        return ms.value

    @property
    def native_handle(self) -> int:
        """On CUDA, the ``cudaEvent_t`` as an int (clstream's own, not
        retained).  On OpenCL events have no single native handle; use
        ``clstream.opencl.event(e)`` for a new ``cl_event``."""
        if backend == "OpenCL":
            raise error_class(801)(801, "an OpenCL event has no fixed handle: use clstream.opencl.event()",
                                   "Event.native_handle")
        out = c_void_p()
        rc = lib.clsCUDAGetEvent(self._h, byref(out))
        if rc:
            raise_for(rc, "Event.native_handle")
        return out.value or 0

    def destroy(self) -> None:
        """Destroys the event now (``clsEventDestroy``; work it captured still
        runs).  Later calls raise ``InvalidResourceHandle``, from the C
        library.  Also done when the object is collected."""
        if not self._owned:
            return
        self._owned = False
        rc = lib.clsEventDestroy(self._h)
        if rc:
            raise_for(rc, "Event.destroy")

    def __repr__(self) -> str:
        return f"<clstream.Event handle={hex(self._h.value or 0)} timing={self._timing}>"
