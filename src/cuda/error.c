/* CUDA backend: the one map from native codes (cudaError_t, nvrtcResult)
 * to clsError_t, and the reasons that name the native code.  Every other
 * file of the backend goes through cls__cuda_error or cls__cuda_rt. */
#include "cuda_be.h"

/* clsError_t copies cudaError_t's numbers (and CUresult's agree for the
 * codes that reach here), so a code it lists passes on unchanged, as CUDA
 * returns it; the few others fold into the nearest listed code. */
static clsError_t cls__cuda_map(int code) {
  if (cls__error_listed(code)) return (clsError_t)code;
  switch (code) {
  case 53: /* PriorLaunchFailure */
    return clsErrorLaunchFailure;
  case 220: /* NvlinkUncorrectable */
  case 226: /* Contained */
    return clsErrorECCUncorrectable;
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
