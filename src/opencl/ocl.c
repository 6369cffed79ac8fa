/* OpenCL backend: the bottom layer's helpers, which every other file may
 * call and which call no other file of the backend: the one map from
 * cl_int to clsError_t, an event's execution status, a device's command
 * queues and host clock, and growing an array.  Holds no lock. */
#include "ocl.h"

#include <stdlib.h>
#include <time.h>

/* ---- cl_int -> clsError_t: the one place ------------------------------ */

static const char *cls__cl_name(cl_int e) {
  switch (e) {
// clang-format off
#define N(x)                                                                \
  case x:                                                                   \
    return #x;
    N(CL_DEVICE_NOT_FOUND) N(CL_DEVICE_NOT_AVAILABLE)
    N(CL_COMPILER_NOT_AVAILABLE) N(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    N(CL_OUT_OF_RESOURCES) N(CL_OUT_OF_HOST_MEMORY)
    N(CL_PROFILING_INFO_NOT_AVAILABLE) N(CL_BUILD_PROGRAM_FAILURE)
    N(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    N(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    N(CL_COMPILE_PROGRAM_FAILURE) N(CL_LINK_PROGRAM_FAILURE)
    N(CL_DEVICE_PARTITION_FAILED) N(CL_INVALID_VALUE)
    N(CL_INVALID_DEVICE_TYPE) N(CL_INVALID_PLATFORM) N(CL_INVALID_DEVICE)
    N(CL_INVALID_CONTEXT) N(CL_INVALID_QUEUE_PROPERTIES)
    N(CL_INVALID_COMMAND_QUEUE) N(CL_INVALID_HOST_PTR)
    N(CL_INVALID_MEM_OBJECT) N(CL_INVALID_BINARY)
    N(CL_INVALID_BUILD_OPTIONS) N(CL_INVALID_PROGRAM)
    N(CL_INVALID_PROGRAM_EXECUTABLE) N(CL_INVALID_KERNEL_NAME)
    N(CL_INVALID_KERNEL_DEFINITION) N(CL_INVALID_KERNEL)
    N(CL_INVALID_ARG_INDEX) N(CL_INVALID_ARG_VALUE) N(CL_INVALID_ARG_SIZE)
    N(CL_INVALID_KERNEL_ARGS) N(CL_INVALID_WORK_DIMENSION)
    N(CL_INVALID_WORK_GROUP_SIZE) N(CL_INVALID_WORK_ITEM_SIZE)
    N(CL_INVALID_GLOBAL_OFFSET) N(CL_INVALID_EVENT_WAIT_LIST)
    N(CL_INVALID_EVENT) N(CL_INVALID_OPERATION)
    N(CL_INVALID_BUFFER_SIZE) N(CL_INVALID_GLOBAL_WORK_SIZE)
    N(CL_INVALID_PROPERTY) N(CL_INVALID_COMPILER_OPTIONS)
    N(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef N
        // clang-format on
        default : return "an OpenCL error";
  }
}

clsError_t cls__ocl_code(cl_int err) {
  clsError_t e;
  switch (err) {
  case CL_SUCCESS:
    return clsSuccess;
  case CL_OUT_OF_HOST_MEMORY:
  case CL_MEM_OBJECT_ALLOCATION_FAILURE:
  case CL_INVALID_BUFFER_SIZE:
    e = clsErrorMemoryAllocation;
    break;
  case CL_OUT_OF_RESOURCES:
    e = clsErrorLaunchOutOfResources;
    break;
  case CL_INVALID_WORK_GROUP_SIZE:
  case CL_INVALID_WORK_ITEM_SIZE:
  case CL_INVALID_GLOBAL_WORK_SIZE:
  case CL_INVALID_WORK_DIMENSION:
    e = clsErrorInvalidConfiguration;
    break;
  case CL_BUILD_PROGRAM_FAILURE:
  case CL_COMPILE_PROGRAM_FAILURE:
  case CL_LINK_PROGRAM_FAILURE:
    e = clsErrorInvalidSource;
    break;
  case CL_INVALID_KERNEL_NAME:
    e = clsErrorSymbolNotFound;
    break;
  case CL_INVALID_VALUE:
  case CL_INVALID_BUILD_OPTIONS:
  case CL_INVALID_COMPILER_OPTIONS:
  case CL_INVALID_LINKER_OPTIONS:
  case CL_INVALID_ARG_VALUE:
  case CL_INVALID_ARG_SIZE:
  case CL_INVALID_ARG_INDEX:
  case CL_INVALID_KERNEL_ARGS:
    e = clsErrorInvalidValue;
    break;
  case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
    e = clsErrorLaunchFailure;
    break;
  case CL_DEVICE_NOT_AVAILABLE:
  case CL_DEVICE_NOT_FOUND:
  case CL_INVALID_DEVICE:
    e = clsErrorInvalidDevice;
    break;
  case CL_COMPILER_NOT_AVAILABLE:
  case CL_INVALID_OPERATION:
  case CL_INVALID_QUEUE_PROPERTIES:
    e = clsErrorNotSupported;
    break;
  default:
    e = err < 0 ? clsErrorUnknown : clsErrorLaunchFailure;
    break;
  }
  return e;
}

clsError_t cls__ocl_error(cl_int err, const char *what) {
  if (err == CL_SUCCESS) return clsSuccess;
  return cls__reason(cls__ocl_code(err), "%s failed with %s (%d)", what,
                     cls__cl_name(err), (int)err);
}

/* ---- Execution status ------------------------------------------------- */

clsError_t cls__ocl_failed(cl_int st) {
  return cls__reason(clsErrorLaunchFailure,
                     "a device command failed (execution status %d)", (int)st);
}

cl_int cls__ocl_status(cl_event ev) {
  cl_int st = CL_COMPLETE;
  if (clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st,
                     NULL) != CL_SUCCESS)
    return CL_SUBMITTED; /* unknown: keep waiting for it, never drop it */
  return st;
}

/* ---- Small helpers ---------------------------------------------------- */

int cls__ocl_grow(void **arr, unsigned *cap, unsigned need, size_t elem) {
  if (need <= *cap) return 1;
  unsigned c = *cap ? *cap * 2 : 8;
  while (c < need) c *= 2;
  void *p = realloc(*arr, c * elem);
  if (!p) return 0;
  *arr = p;
  *cap = c;
  return 1;
}

/* ---- Queues and the host clock ----------------------------------------- */

cl_command_queue cls__ocl_queue(cls__ocl_device *d, int profiling, int high,
                                cl_int *err, const char **what) {
  if (d->facts.version < 20) {
    *what = "clCreateCommandQueue";
    return clCreateCommandQueue(d->ctx, d->id,
                                profiling ? CL_QUEUE_PROFILING_ENABLE : 0, err);
  }
  cl_queue_properties props[5] = {
      CL_QUEUE_PROPERTIES, profiling ? CL_QUEUE_PROFILING_ENABLE : 0, 0, 0, 0};
  if (d->priority_hints && high) {
    props[2] = CL_QUEUE_PRIORITY_KHR;
    props[3] = CL_QUEUE_PRIORITY_HIGH_KHR;
  }
  *what = "clCreateCommandQueueWithProperties";
  return clCreateCommandQueueWithProperties(d->ctx, d->id, props, err);
}

cl_ulong cls__ocl_host_stamp(const cls__ocl_device *d) {
  struct timespec t;
  clock_gettime((clockid_t)(d->facts.host_clock - 1), &t);
  return (cl_ulong)t.tv_sec * 1000000000u + (cl_ulong)t.tv_nsec;
}
