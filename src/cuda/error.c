/* CUDA backend: the one map from native codes (cudaError_t, nvrtcResult)
 * to clsError_t, and the reasons that name the native code.  Every other
 * file of the backend goes through cls__cuda_error or cls__cuda_rt. */
#include "cuda_be.h"

/* clsError_t copies cudaError_t's numbers for the names it has; this folds
 * the codes clstream does not distinguish into those. */
static clsError_t cls__cuda_map(int code) {
  switch (code) {
  case cudaSuccess:
    return clsSuccess;
  case cudaErrorInvalidValue:
  case cudaErrorInvalidPitchValue:
  case cudaErrorInvalidSymbol:
  case cudaErrorInvalidHostPointer:
    return clsErrorInvalidValue;
  case cudaErrorMemoryAllocation:
    return clsErrorMemoryAllocation;
  case cudaErrorInitializationError:
  case cudaErrorCudartUnloading:
  case cudaErrorStubLibrary:
  case cudaErrorInsufficientDriver:
  case cudaErrorCallRequiresNewerDriver:
    return clsErrorInitializationError;
  case cudaErrorInvalidConfiguration:
    return clsErrorInvalidConfiguration;
  case cudaErrorInvalidDevicePointer:
    return clsErrorInvalidDevicePointer;
  case cudaErrorInvalidMemcpyDirection:
    return clsErrorInvalidMemcpyDirection;
  case cudaErrorNoDevice:
    return clsErrorNoDevice;
  case cudaErrorInvalidDevice:
    return clsErrorInvalidDevice;
  case cudaErrorDevicesUnavailable: /* compute mode prohibited, or busy */
  case cudaErrorDeviceAlreadyInUse:
    return clsErrorNotSupported;
  case cudaErrorInvalidDeviceFunction:
  case cudaErrorDeviceUninitialized:
  case cudaErrorInvalidResourceHandle:
  case cudaErrorContextIsDestroyed:
    return clsErrorInvalidResourceHandle;
  case cudaErrorInvalidKernelImage:
  case cudaErrorNoKernelImageForDevice:
  case cudaErrorInvalidPtx:
  case cudaErrorJitCompilerNotFound:
  case cudaErrorUnsupportedPtxVersion:
  case cudaErrorJitCompilationDisabled:
  case cudaErrorSharedObjectSymbolNotFound:
  case cudaErrorSharedObjectInitFailed:
    return clsErrorInvalidKernelImage;
  case cudaErrorInvalidSource:
    return clsErrorInvalidSource;
  case cudaErrorIllegalState:
    return clsErrorIllegalState;
  case cudaErrorSymbolNotFound:
    return clsErrorSymbolNotFound;
  case cudaErrorNotReady:
    return clsErrorNotReady;
  case cudaErrorLaunchOutOfResources:
    return clsErrorLaunchOutOfResources;
  case cudaErrorECCUncorrectable:
  case cudaErrorIllegalAddress:
  case cudaErrorLaunchTimeout:
  case cudaErrorAssert:
  case cudaErrorHardwareStackError:
  case cudaErrorIllegalInstruction:
  case cudaErrorMisalignedAddress:
  case cudaErrorInvalidAddressSpace:
  case cudaErrorInvalidPc:
  case cudaErrorLaunchFailure:
    return clsErrorLaunchFailure;
  case cudaErrorNotPermitted:
    return clsErrorNotPermitted;
  case cudaErrorNotSupported:
    return clsErrorNotSupported;
  default:
    return clsErrorUnknown;
  }
}

static clsError_t cls__nvrtc_map(nvrtcResult r) {
  switch (r) {
  case NVRTC_SUCCESS:
    return clsSuccess;
  case NVRTC_ERROR_OUT_OF_MEMORY:
    return clsErrorMemoryAllocation;
  case NVRTC_ERROR_COMPILATION:
    return clsErrorInvalidSource;
  case NVRTC_ERROR_INVALID_INPUT:
  case NVRTC_ERROR_INVALID_PROGRAM:
  case NVRTC_ERROR_INVALID_OPTION:
    return clsErrorInvalidValue;
  default:
    return clsErrorUnknown;
  }
}

clsError_t cls__cuda_error(enum cls__cuda_api api, int code, const char *what) {
  clsError_t e = api == CLS__NVRTC ? cls__nvrtc_map((nvrtcResult)code)
                                   : cls__cuda_map(code);
  if (e == clsSuccess || e == clsErrorNotReady || !what) return e;
  if (api == CLS__NVRTC)
    return cls__reason(e, "%s: %s", what,
                       nvrtcGetErrorString((nvrtcResult)code));
  return cls__reason(e, "%s: %s (%s)", what,
                     cudaGetErrorName((cudaError_t)code),
                     cudaGetErrorString((cudaError_t)code));
}
