/* Errors: the one table of names and strings, the per-thread last error,
 * and CLSTREAM_LOG. */
#include "error.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every code with its clstream name, CUDA's name and CUDA's description
 * (cudaGetErrorString's text in CUDA 13.0). */
#define CLS__E(x, str)                                                         \
  { cls##x, "cls" #x, "cuda" #x, str }
static const struct {
  clsError_t code;
  const char *name;
  const char *cuda_name;
  const char *string;
} cls__errors[] = {
    CLS__E(Success, "no error"),
    CLS__E(ErrorInvalidValue, "invalid argument"),
    CLS__E(ErrorMemoryAllocation, "out of memory"),
    CLS__E(ErrorInitializationError, "initialization error"),
    CLS__E(ErrorCudartUnloading, "driver shutting down"),
    CLS__E(ErrorInvalidConfiguration, "invalid configuration argument"),
    CLS__E(ErrorInvalidPitchValue, "invalid pitch argument"),
    CLS__E(ErrorInvalidSymbol, "invalid device symbol"),
    CLS__E(ErrorInvalidHostPointer, "invalid host pointer"),
    CLS__E(ErrorInvalidDevicePointer, "invalid device pointer"),
    CLS__E(ErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    CLS__E(ErrorStubLibrary, "CUDA driver is a stub library"),
    CLS__E(ErrorInsufficientDriver,
           "CUDA driver version is insufficient for CUDA runtime version"),
    CLS__E(ErrorCallRequiresNewerDriver,
           "API call is not supported in the installed CUDA driver"),
    CLS__E(ErrorDevicesUnavailable,
           "CUDA-capable device(s) is/are busy or unavailable"),
    CLS__E(ErrorMissingConfiguration,
           "__global__ function call is not configured"),
    CLS__E(ErrorInvalidDeviceFunction, "invalid device function"),
    CLS__E(ErrorNoDevice, "no CUDA-capable device is detected"),
    CLS__E(ErrorInvalidDevice, "invalid device ordinal"),
    CLS__E(ErrorInvalidKernelImage, "device kernel image is invalid"),
    CLS__E(ErrorDeviceUninitialized, "invalid device context"),
    CLS__E(ErrorNoKernelImageForDevice,
           "no kernel image is available for execution on the device"),
    CLS__E(ErrorECCUncorrectable, "uncorrectable ECC error encountered"),
    CLS__E(ErrorUnsupportedLimit,
           "limit is not supported on this architecture"),
    CLS__E(ErrorDeviceAlreadyInUse,
           "exclusive-thread device already in use by a different thread"),
    CLS__E(ErrorPeerAccessUnsupported,
           "peer access is not supported between these two devices"),
    CLS__E(ErrorInvalidPtx, "a PTX JIT compilation failed"),
    CLS__E(ErrorJitCompilerNotFound, "PTX JIT compiler library not found"),
    CLS__E(ErrorUnsupportedPtxVersion,
           "the provided PTX was compiled with an unsupported toolchain."),
    CLS__E(ErrorJitCompilationDisabled, "PTX JIT compilation was disabled"),
    CLS__E(ErrorInvalidSource, "device kernel image is invalid"),
    CLS__E(ErrorSharedObjectSymbolNotFound, "shared object symbol not found"),
    CLS__E(ErrorSharedObjectInitFailed, "shared object initialization failed"),
    CLS__E(ErrorInvalidResourceHandle, "invalid resource handle"),
    CLS__E(ErrorIllegalState,
           "the operation cannot be performed in the present state"),
    CLS__E(ErrorSymbolNotFound, "named symbol not found"),
    CLS__E(ErrorNotReady, "device not ready"),
    CLS__E(ErrorIllegalAddress, "an illegal memory access was encountered"),
    CLS__E(ErrorLaunchOutOfResources,
           "too many resources requested for launch"),
    CLS__E(ErrorLaunchTimeout, "the launch timed out and was terminated"),
    CLS__E(ErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
    CLS__E(ErrorPeerAccessNotEnabled, "peer access has not been enabled"),
    CLS__E(ErrorContextIsDestroyed, "context is destroyed"),
    CLS__E(ErrorAssert, "device-side assert triggered"),
    CLS__E(ErrorHostMemoryAlreadyRegistered,
           "part or all of the requested memory range is already mapped"),
    CLS__E(ErrorHostMemoryNotRegistered,
           "pointer does not correspond to a registered memory region"),
    CLS__E(ErrorHardwareStackError, "hardware stack error"),
    CLS__E(ErrorIllegalInstruction, "an illegal instruction was encountered"),
    CLS__E(ErrorMisalignedAddress, "misaligned address"),
    CLS__E(ErrorInvalidAddressSpace,
           "operation not supported on global/shared address space"),
    CLS__E(ErrorInvalidPc, "invalid program counter"),
    CLS__E(ErrorLaunchFailure, "unspecified launch failure"),
    CLS__E(ErrorCooperativeLaunchTooLarge,
           "too many blocks in cooperative launch"),
    CLS__E(ErrorNotPermitted, "operation not permitted"),
    CLS__E(ErrorNotSupported, "operation not supported"),
    CLS__E(ErrorSystemNotReady, "system not yet initialized"),
    CLS__E(ErrorSystemDriverMismatch,
           "system has unsupported display driver / cuda driver combination"),
    CLS__E(ErrorStreamCaptureUnsupported,
           "operation not permitted when stream is capturing"),
    CLS__E(ErrorStreamCaptureInvalidated,
           "operation failed due to a previous error during capture"),
    CLS__E(ErrorStreamCaptureImplicit,
           "operation would make the legacy stream depend on a capturing "
           "blocking stream"),
    CLS__E(ErrorCapturedEvent,
           "operation not permitted on an event last recorded in a "
           "capturing stream"),
    CLS__E(ErrorTimeout, "wait operation timed out"),
    CLS__E(ErrorUnknown, "unknown error"),
};
#undef CLS__E

static const char cls__unrecognized[] = "unrecognized error code";

static int cls__find(clsError_t code) {
  for (size_t i = 0; i < sizeof cls__errors / sizeof cls__errors[0]; ++i)
    if (cls__errors[i].code == code) return (int)i;
  return -1;
}

const char *clsGetErrorName(clsError_t error) {
  int i = cls__find(error);
  return i < 0 ? cls__unrecognized : cls__errors[i].name;
}

const char *clsGetErrorNameCuda(clsError_t error) {
  int i = cls__find(error);
  return i < 0 ? cls__unrecognized : cls__errors[i].cuda_name;
}

int cls__error_listed(int code) { return cls__find((clsError_t)code) >= 0; }

const char *clsGetErrorString(clsError_t error) {
  int i = cls__find(error);
  return i < 0 ? cls__unrecognized : cls__errors[i].string;
}

/* ---- Per-thread state ------------------------------------------------ */

static _Thread_local clsError_t cls__last_error CLS__TLS_FAST = clsSuccess;
_Thread_local int cls__in_host_fn CLS__TLS_FAST = 0;
static _Thread_local char cls__why[512];

clsError_t clsGetLastError(void) {
  clsError_t e = cls__last_error;
  cls__last_error = clsSuccess;
  return e;
}

clsError_t clsPeekAtLastError(void) { return cls__last_error; }

/* ---- CLSTREAM_LOG ---------------------------------------------------- */

atomic_int cls__log_state = -1; /* -1 unknown, 0 off, 1 on */

int cls__log_enabled(void) {
  int s = atomic_load_explicit(&cls__log_state, memory_order_relaxed);
  if (CLS__LIKELY(s >= 0)) return s;
  const char *v = cls__setting(CLS__SET_LOG);
  s = v && *v && strcmp(v, "0") != 0;
  atomic_store_explicit(&cls__log_state, s, memory_order_relaxed);
  return s;
}

clsError_t cls__reason(clsError_t code, const char *fmt, ...) {
  if (cls__log_enabled() && !cls__why[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cls__why, sizeof cls__why, fmt, ap);
    va_end(ap);
  }
  return code;
}

clsError_t cls__finish(const char *func, clsError_t code) {
  if (CLS__LIKELY(code == clsSuccess || code == clsErrorNotReady)) {
    /* A reason is only ever written with logging on. */
    if (CLS__UNLIKELY(
            atomic_load_explicit(&cls__log_state, memory_order_relaxed) > 0) &&
        cls__why[0])
      cls__why[0] = '\0'; /* recovered */
    return code;
  }
  cls__last_error = code;
  if (cls__log_enabled()) {
    fprintf(stderr, "clstream: %s: %s (%s)%s%s\n", func, clsGetErrorName(code),
            clsGetErrorString(code), cls__why[0] ? ": " : "", cls__why);
    fflush(stderr);
  }
  cls__why[0] = '\0';
  return code;
}
