"""Python callables in stream order (``Stream.launch_host_func``).

No Python runs on the library's threads, and none takes the GIL there.
Each call is two C host functions, both plain libc calls on a POSIX
semaphore pair owned by the stream's dispatcher (one Python thread per
stream that uses host functions):

    clsLaunchHostFunc(s, sem_post, ready)   -- "the stream reached it"
    clsLaunchHostFunc(s, sem_wait, done)    -- later work waits for it

The dispatcher sleeps in ``sem_wait(ready)`` (ctypes releases the GIL),
runs the callable that is next in its FIFO (launches of one stream run in
their order, so the FIFO and the posts agree), and posts ``done``.  The
library thread only ever blocks in ``sem_wait`` on ``done``; it holds no
clstream lock there (host functions run outside every library lock,
docs/design.md), and the GIL is taken only by the dispatcher, a thread
Python owns.  So a callable may take the GIL, and any Python lock, while
the main thread synchronizes: the main thread's synchronize releases the
GIL for as long as it waits.

An exception a callable raises is kept with its launch's sequence number
and re-raised by the next ``synchronize()`` or ``query()`` of the stream,
of an event recorded on the stream after it, or of the device.
"""

from __future__ import annotations

import collections
import ctypes
import threading
import weakref
from typing import Any, Callable, Deque, List, Optional, Tuple

from ._errors import raise_for
from ._lib import lib, libc

_launch = lib.clsLaunchHostFunc
_sem_wait = libc.sem_wait
_sem_post = libc.sem_post
_SEM_POST = ctypes.cast(libc.sem_post, ctypes.c_void_p).value
_SEM_WAIT = ctypes.cast(libc.sem_wait, ctypes.c_void_p).value
_SEM_BYTES = 64  # sizeof(sem_t) is 32 on glibc's 64-bit targets

# Semaphores are never freed: a library thread may still be inside
# sem_post on one when its dispatcher ends.  128 bytes per stream that
# used host functions.
_keep: List[Any] = []
# Every dispatcher with work or kept exceptions (device synchronize).
_live: "weakref.WeakSet[HostQueue]" = weakref.WeakSet()
# Thread ids of the dispatchers: clstream's blocking calls are refused
# there (a callable that synchronizes its own stream would wait forever,
# as in CUDA, where the call returns cudaErrorNotPermitted).
dispatcher_ids: set = set()
used = False  # set once any stream launched a host function


class HostQueue:
    """One stream's dispatcher: the FIFO of callables and their errors."""

    def __init__(self) -> None:
        global used
        buf = ctypes.create_string_buffer(2 * _SEM_BYTES)
        _keep.append(buf)
        self._ready = ctypes.addressof(buf)
        self._done = self._ready + _SEM_BYTES
        if libc.sem_init(self._ready, 0, 0) or libc.sem_init(self._done, 0, 0):
            raise OSError(ctypes.get_errno(), "sem_init failed")
        self._ready_p = ctypes.c_void_p(self._ready)
        self._done_p = ctypes.c_void_p(self._done)
        self._fifo: Deque[Tuple[int, Optional[Callable[..., Any]], tuple]] = collections.deque()
        self._lock = threading.Lock()
        self.launched = 0  # sequence number of the newest launch
        self.errors: List[Tuple[int, BaseException]] = []
        self._thread = threading.Thread(target=self._run, name="clstream-host-fn", daemon=True)
        self._thread.start()
        _live.add(self)
        used = True

    def launch(self, handle: ctypes.c_void_p, fn: Callable[..., Any], args: tuple) -> None:
        with self._lock:
            seq = self.launched + 1
            self._fifo.append((seq, fn, args))
            rc = _launch(handle, _SEM_POST, self._ready_p)
            if rc:
                self._fifo.pop()
                raise_for(rc, "Stream.launch_host_func")
            rc = _launch(handle, _SEM_WAIT, self._done_p)
            self.launched = seq
            if rc:
                # The callable runs (its post went in); nothing waits for
                # its done, so take it here.
                _sem_wait(self._done_p)
                raise_for(rc, "Stream.launch_host_func")

    def close(self, handle: ctypes.c_void_p) -> None:
        """Ends the dispatcher after the stream's last launched callable
        (called just before the stream is destroyed)."""
        with self._lock:
            self._fifo.append((0, None, ()))
            if _launch(handle, _SEM_POST, self._ready_p):
                lib.clsGetLastError()
                self._fifo.pop()  # leave it running; it is a daemon

    def _run(self) -> None:
        dispatcher_ids.add(threading.get_ident())
        fifo, done = self._fifo, self._done_p
        while True:
            _sem_wait(self._ready_p)
            seq, fn, args = fifo.popleft()
            if fn is None:
                break
            try:
                fn(*args)
            except BaseException as e:  # kept for the stream's next sync
                self.errors.append((seq, e))
            finally:
                _sem_post(done)
        dispatcher_ids.discard(threading.get_ident())

    def take(self, upto: Optional[int] = None) -> None:
        """Re-raises the oldest kept exception of a launch numbered
        ``upto`` or lower (any, for None), once."""
        errs = self.errors
        if errs and (upto is None or errs[0][0] <= upto):
            _, e = errs.pop(0)
            raise e


def take_any() -> None:
    """Re-raises one kept exception of any stream (device synchronize)."""
    for q in list(_live):
        q.take()
