"""Loading libclstream and its C prototypes (ctypes; no C extension).

The library is the ``libclstream.so`` installed beside this file by the
package's build, or the file named by ``CLSTREAM_LIBRARY`` (a build tree's
library, an ASan build's).  ``ctypes.CDLL`` releases the GIL around every
call, so a blocking call (a synchronize) never holds it.

Each function object is looked up once, here, with its ``argtypes`` and
``restype`` set; the hot paths of ``_core`` bind them to module globals.
"""

from __future__ import annotations

import ctypes
import importlib.resources
import os
from ctypes import POINTER, c_char, c_char_p, c_double, c_float, c_int, c_size_t, c_uint, c_void_p

__all__ = ["lib", "path", "libc", "DeviceProp"]


def _find() -> str:
    env = os.environ.get("CLSTREAM_LIBRARY")
    if env:
        return env
    ref = importlib.resources.files("clstream") / "libclstream.so"
    with importlib.resources.as_file(ref) as p:
        if not os.path.exists(p):
            raise ImportError(
                "clstream: libclstream.so is not installed beside the package "
                f"({p}); install with 'pip install ./python' or set CLSTREAM_LIBRARY "
                "to a built libclstream.so"
            )
        return str(p)


path = _find()
lib = ctypes.CDLL(path)
libc = ctypes.CDLL(None)

_VP = c_void_p
_PVP = POINTER(c_void_p)

# name: (restype, argtypes)
_PROTOS = {
    "clsGetLastError": (c_int, ()),
    "clsGetErrorName": (c_char_p, (c_int,)),
    "clsGetErrorNameCuda": (c_char_p, (c_int,)),
    "clsGetErrorString": (c_char_p, (c_int,)),
    "clsGetLastErrorReason": (c_char_p, ()),
    "clsKeepErrorReasons": (c_int, (c_int,)),
    "clsGetDeviceCount": (c_int, (POINTER(c_int),)),
    "clsSetDevice": (c_int, (c_int,)),
    "clsGetDevice": (c_int, (POINTER(c_int),)),
    "clsGetDeviceProperties": (c_int, (c_void_p, c_int)),
    "clsDeviceSynchronize": (c_int, ()),
    "clsDeviceGetStreamPriorityRange": (c_int, (POINTER(c_int), POINTER(c_int))),
    "clsStreamCreateWithPriority": (c_int, (_PVP, c_uint, c_int)),
    "clsStreamDestroy": (c_int, (_VP,)),
    "clsStreamSynchronize": (c_int, (_VP,)),
    "clsStreamQuery": (c_int, (_VP,)),
    "clsStreamWaitEvent": (c_int, (_VP, _VP, c_uint)),
    "clsStreamGetFlags": (c_int, (_VP, POINTER(c_uint))),
    "clsStreamGetPriority": (c_int, (_VP, POINTER(c_int))),
    "clsLaunchHostFunc": (c_int, (_VP, _VP, _VP)),
    "clsEventCreateWithFlags": (c_int, (_PVP, c_uint)),
    "clsEventDestroy": (c_int, (_VP,)),
    "clsEventRecord": (c_int, (_VP, _VP)),
    "clsEventQuery": (c_int, (_VP,)),
    "clsEventSynchronize": (c_int, (_VP,)),
    "clsEventElapsedTime": (c_int, (POINTER(c_float), _VP, _VP)),
    "clsMalloc": (c_int, (_PVP, c_size_t)),
    "clsFree": (c_int, (_VP,)),
    "clsMemcpyAsync": (c_int, (_VP, _VP, c_size_t, c_int, _VP)),
    "clsOpenCLGetDevice": (c_int, (c_int, _PVP, _PVP, _PVP)),
    "clsOpenCLGetQueue": (c_int, (_VP, _PVP)),
    "clsOpenCLGetEvent": (c_int, (_VP, _PVP)),
    "clsOpenCLGetMem": (c_int, (_VP, _PVP, POINTER(c_size_t))),
    "clsOpenCLStreamCreateFromQueue": (c_int, (_PVP, _VP, c_uint)),
    "clsCUDAGetStream": (c_int, (_VP, _PVP)),
    "clsCUDAGetEvent": (c_int, (_VP, _PVP)),
    "clsCUDAStreamCreateFromStream": (c_int, (_PVP, _VP, c_uint)),
}

for _name, (_res, _args) in _PROTOS.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

for _name in ("sem_init", "sem_post", "sem_wait", "sem_destroy"):
    getattr(libc, _name).restype = c_int
libc.sem_init.argtypes = (c_void_p, c_int, c_uint)
libc.sem_post.argtypes = (c_void_p,)
libc.sem_wait.argtypes = (c_void_p,)
libc.sem_destroy.argtypes = (c_void_p,)


class DeviceProp(ctypes.Structure):
    """The leading fields of ``clsDeviceProp`` (include/clstream.h), in its
    order; ``_rest`` leaves room for the fields after them."""

    _fields_ = [
        ("name", c_char * 256),
        ("totalGlobalMem", c_size_t),
        ("sharedMemPerBlock", c_size_t),
        ("multiProcessorCount", c_int),
        ("maxThreadsPerBlock", c_int),
        ("maxThreadsDim", c_int * 3),
        ("maxGridSize", c_int * 3),
        ("warpSize", c_int),
        ("clockRate", c_int),
        ("major", c_int),
        ("minor", c_int),
        ("concurrentKernels", c_int),
        ("unifiedAddressing", c_int),
        ("integrated", c_int),
        ("canMapHostMemory", c_int),
        ("asyncEngineCount", c_int),
        ("deviceOverlap", c_int),
        ("computeMode", c_int),
        ("managedMemory", c_int),
        ("concurrentManagedAccess", c_int),
        ("pageableMemoryAccess", c_int),
        ("hostRegisterSupported", c_int),
        ("memoryPoolsSupported", c_int),
        ("streamPrioritiesSupported", c_int),
        ("platformName", c_char * 256),
        ("driverVersion", c_char * 64),
        ("isCpu", c_int),
        ("svmCoarseGrain", c_int),
        ("selectable", c_int),
        ("streamPriorities", c_int),
        ("timerResolutionNs", c_double),
        ("timingFallback", c_int),
        ("clVersionMajor", c_int),
        ("clVersionMinor", c_int),
        ("computeCapabilityNative", c_int),
        ("bufferMemory", c_int),
        ("simulator", c_int),
        ("bufferArgAlign", c_size_t),
        ("timerIsHostClock", c_int),
        ("hostFuncsInline", c_int),
        ("_rest", c_char * 16384),
    ]


# Where this library runs its device work: "OpenCL" or "CUDA".  On the
# CUDA build every clsOpenCL* call returns clsErrorNotSupported at once
# (and a NULL pointer touches no device on the OpenCL build).
_probe, _off = c_void_p(), c_size_t()
backend = "CUDA" if lib.clsOpenCLGetMem(None, ctypes.byref(_probe), ctypes.byref(_off)) == 801 else "OpenCL"
lib.clsGetLastError()

# Reasons for failures, kept without printing (clsGetLastErrorReason).
lib.clsKeepErrorReasons(1)
