"""clstream's errors: ``Error`` and one subclass per code of
``CLS_ERROR_LIST`` (include/clstream.h), named after CUDA's
(``cudaErrorNotReady`` -> ``NotReady``), with the same numbers.

Each carries ``code`` (the number), ``name`` (CUDA's name,
``"cudaErrorNotReady"``), ``cls_name`` (``"clsErrorNotReady"``) and
``reason``: what ``CLSTREAM_LOG=1`` would print after the code for the
call that failed ("" when it gave none), from ``clsGetLastErrorReason``.
The classes below were written from the header's list, which stays the
one source of the numbers: test_errors checks that every code the
library names has its class here, under CUDA's name, so a code added to
the list fails that test until its class is added.
"""

from __future__ import annotations

from typing import Dict, NoReturn, Type

from ._lib import lib

__all__ = ["Error", "error_class", "raise_for"]


class Error(RuntimeError):
    """A clstream call failed; the subclass names the code."""

    code: int = -1

    def __init__(self, code: int, reason: str = "", func: str = "") -> None:
        self.code = code
        self.name = lib.clsGetErrorNameCuda(code).decode()
        self.cls_name = lib.clsGetErrorName(code).decode()
        self.reason = reason
        self.func = func
        text = lib.clsGetErrorString(code).decode()
        msg = f"{self.name} ({text})"
        if func:
            msg = f"{func}: {msg}"
        if reason:
            msg += f": {reason}"
        super().__init__(msg)

class InvalidValue(Error, ValueError):
    """cudaErrorInvalidValue (1); a ValueError too."""

    code = 1

class MemoryAllocation(Error):
    """cudaErrorMemoryAllocation (2)."""

    code = 2

class InitializationError(Error):
    """cudaErrorInitializationError (3)."""

    code = 3

class CudartUnloading(Error):
    """cudaErrorCudartUnloading (4)."""

    code = 4

class InvalidConfiguration(Error):
    """cudaErrorInvalidConfiguration (9)."""

    code = 9

class InvalidPitchValue(Error):
    """cudaErrorInvalidPitchValue (12)."""

    code = 12

class InvalidSymbol(Error):
    """cudaErrorInvalidSymbol (13)."""

    code = 13

class InvalidHostPointer(Error):
    """cudaErrorInvalidHostPointer (16)."""

    code = 16

class InvalidDevicePointer(Error):
    """cudaErrorInvalidDevicePointer (17)."""

    code = 17

class InvalidMemcpyDirection(Error):
    """cudaErrorInvalidMemcpyDirection (21)."""

    code = 21

class StubLibrary(Error):
    """cudaErrorStubLibrary (34)."""

    code = 34

class InsufficientDriver(Error):
    """cudaErrorInsufficientDriver (35)."""

    code = 35

class CallRequiresNewerDriver(Error):
    """cudaErrorCallRequiresNewerDriver (36)."""

    code = 36

class DevicesUnavailable(Error):
    """cudaErrorDevicesUnavailable (46)."""

    code = 46

class MissingConfiguration(Error):
    """cudaErrorMissingConfiguration (52)."""

    code = 52

class InvalidDeviceFunction(Error):
    """cudaErrorInvalidDeviceFunction (98)."""

    code = 98

class NoDevice(Error):
    """cudaErrorNoDevice (100)."""

    code = 100

class InvalidDevice(Error):
    """cudaErrorInvalidDevice (101)."""

    code = 101

class InvalidKernelImage(Error):
    """cudaErrorInvalidKernelImage (200)."""

    code = 200

class DeviceUninitialized(Error):
    """cudaErrorDeviceUninitialized (201)."""

    code = 201

class NoKernelImageForDevice(Error):
    """cudaErrorNoKernelImageForDevice (209)."""

    code = 209

class ECCUncorrectable(Error):
    """cudaErrorECCUncorrectable (214)."""

    code = 214

class UnsupportedLimit(Error):
    """cudaErrorUnsupportedLimit (215)."""

    code = 215

class DeviceAlreadyInUse(Error):
    """cudaErrorDeviceAlreadyInUse (216)."""

    code = 216

class PeerAccessUnsupported(Error):
    """cudaErrorPeerAccessUnsupported (217)."""

    code = 217

class InvalidPtx(Error):
    """cudaErrorInvalidPtx (218)."""

    code = 218

class JitCompilerNotFound(Error):
    """cudaErrorJitCompilerNotFound (221)."""

    code = 221

class UnsupportedPtxVersion(Error):
    """cudaErrorUnsupportedPtxVersion (222)."""

    code = 222

class JitCompilationDisabled(Error):
    """cudaErrorJitCompilationDisabled (223)."""

    code = 223

class InvalidSource(Error):
    """cudaErrorInvalidSource (300)."""

    code = 300

class SharedObjectSymbolNotFound(Error):
    """cudaErrorSharedObjectSymbolNotFound (302)."""

    code = 302

class SharedObjectInitFailed(Error):
    """cudaErrorSharedObjectInitFailed (303)."""

    code = 303

class InvalidResourceHandle(Error):
    """cudaErrorInvalidResourceHandle (400)."""

    code = 400

class IllegalState(Error):
    """cudaErrorIllegalState (401)."""

    code = 401

class SymbolNotFound(Error):
    """cudaErrorSymbolNotFound (500)."""

    code = 500

class NotReady(Error):
    """cudaErrorNotReady (600)."""

    code = 600

class IllegalAddress(Error):
    """cudaErrorIllegalAddress (700)."""

    code = 700

class LaunchOutOfResources(Error):
    """cudaErrorLaunchOutOfResources (701)."""

    code = 701

class LaunchTimeout(Error):
    """cudaErrorLaunchTimeout (702)."""

    code = 702

class PeerAccessAlreadyEnabled(Error):
    """cudaErrorPeerAccessAlreadyEnabled (704)."""

    code = 704

class PeerAccessNotEnabled(Error):
    """cudaErrorPeerAccessNotEnabled (705)."""

    code = 705

class ContextIsDestroyed(Error):
    """cudaErrorContextIsDestroyed (709)."""

    code = 709

class Assert(Error):
    """cudaErrorAssert (710)."""

    code = 710

class HostMemoryAlreadyRegistered(Error):
    """cudaErrorHostMemoryAlreadyRegistered (712)."""

    code = 712

class HostMemoryNotRegistered(Error):
    """cudaErrorHostMemoryNotRegistered (713)."""

    code = 713

class HardwareStackError(Error):
    """cudaErrorHardwareStackError (714)."""

    code = 714

class IllegalInstruction(Error):
    """cudaErrorIllegalInstruction (715)."""

    code = 715

class MisalignedAddress(Error):
    """cudaErrorMisalignedAddress (716)."""

    code = 716

class InvalidAddressSpace(Error):
    """cudaErrorInvalidAddressSpace (717)."""

    code = 717

class InvalidPc(Error):
    """cudaErrorInvalidPc (718)."""

    code = 718

class LaunchFailure(Error):
    """cudaErrorLaunchFailure (719)."""

    code = 719

class CooperativeLaunchTooLarge(Error):
    """cudaErrorCooperativeLaunchTooLarge (720)."""

    code = 720

class NotPermitted(Error):
    """cudaErrorNotPermitted (800)."""

    code = 800

class NotSupported(Error):
    """cudaErrorNotSupported (801)."""

    code = 801

class SystemNotReady(Error):
    """cudaErrorSystemNotReady (802)."""

    code = 802

class SystemDriverMismatch(Error):
    """cudaErrorSystemDriverMismatch (803)."""

    code = 803

class StreamCaptureUnsupported(Error):
    """cudaErrorStreamCaptureUnsupported (900)."""

    code = 900

class StreamCaptureInvalidated(Error):
    """cudaErrorStreamCaptureInvalidated (901)."""

    code = 901

class StreamCaptureMerge(Error):
    """cudaErrorStreamCaptureMerge (902)."""

    code = 902

class StreamCaptureUnmatched(Error):
    """cudaErrorStreamCaptureUnmatched (903)."""

    code = 903

class StreamCaptureUnjoined(Error):
    """cudaErrorStreamCaptureUnjoined (904)."""

    code = 904

class StreamCaptureIsolation(Error):
    """cudaErrorStreamCaptureIsolation (905)."""

    code = 905

class StreamCaptureImplicit(Error):
    """cudaErrorStreamCaptureImplicit (906)."""

    code = 906

class CapturedEvent(Error):
    """cudaErrorCapturedEvent (907)."""

    code = 907

class StreamCaptureWrongThread(Error):
    """cudaErrorStreamCaptureWrongThread (908)."""

    code = 908

class Timeout(Error):
    """cudaErrorTimeout (909)."""

    code = 909

class Unknown(Error):
    """cudaErrorUnknown (999)."""

    code = 999


_BY_CODE: Dict[int, Type[Error]] = {
    1: InvalidValue,
    2: MemoryAllocation,
    3: InitializationError,
    4: CudartUnloading,
    9: InvalidConfiguration,
    12: InvalidPitchValue,
    13: InvalidSymbol,
    16: InvalidHostPointer,
    17: InvalidDevicePointer,
    21: InvalidMemcpyDirection,
    34: StubLibrary,
    35: InsufficientDriver,
    36: CallRequiresNewerDriver,
    46: DevicesUnavailable,
    52: MissingConfiguration,
    98: InvalidDeviceFunction,
    100: NoDevice,
    101: InvalidDevice,
    200: InvalidKernelImage,
    201: DeviceUninitialized,
    209: NoKernelImageForDevice,
    214: ECCUncorrectable,
    215: UnsupportedLimit,
    216: DeviceAlreadyInUse,
    217: PeerAccessUnsupported,
    218: InvalidPtx,
    221: JitCompilerNotFound,
    222: UnsupportedPtxVersion,
    223: JitCompilationDisabled,
    300: InvalidSource,
    302: SharedObjectSymbolNotFound,
    303: SharedObjectInitFailed,
    400: InvalidResourceHandle,
    401: IllegalState,
    500: SymbolNotFound,
    600: NotReady,
    700: IllegalAddress,
    701: LaunchOutOfResources,
    702: LaunchTimeout,
    704: PeerAccessAlreadyEnabled,
    705: PeerAccessNotEnabled,
    709: ContextIsDestroyed,
    710: Assert,
    712: HostMemoryAlreadyRegistered,
    713: HostMemoryNotRegistered,
    714: HardwareStackError,
    715: IllegalInstruction,
    716: MisalignedAddress,
    717: InvalidAddressSpace,
    718: InvalidPc,
    719: LaunchFailure,
    720: CooperativeLaunchTooLarge,
    800: NotPermitted,
    801: NotSupported,
    802: SystemNotReady,
    803: SystemDriverMismatch,
    900: StreamCaptureUnsupported,
    901: StreamCaptureInvalidated,
    902: StreamCaptureMerge,
    903: StreamCaptureUnmatched,
    904: StreamCaptureUnjoined,
    905: StreamCaptureIsolation,
    906: StreamCaptureImplicit,
    907: CapturedEvent,
    908: StreamCaptureWrongThread,
    909: Timeout,
    999: Unknown,
}
__all__ += [c.__name__ for c in _BY_CODE.values()]


def error_class(code: int) -> Type[Error]:
    """The subclass for ``code`` (``Error`` itself for a code not listed)."""
    return _BY_CODE.get(code, Error)


_reason = lib.clsGetLastErrorReason
_clear = lib.clsGetLastError


def raise_for(code: int, func: str = "") -> NoReturn:
    """Raises the subclass of ``code`` with the failed call's reason; clears
    the thread's last error, as a caught CUDA error is usually cleared."""
    reason = _reason().decode(errors="replace") if code != 600 else ""
    _clear()
    raise _BY_CODE.get(code, Error)(code, reason, func)
