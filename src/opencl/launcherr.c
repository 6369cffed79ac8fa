/*
 * OpenCL backend: why a kernel launch was refused, in CUDA's terms
 * (launch.c's and replay.c's failures).  The launch path itself only
 * notes where it stopped (the parameter, or all of them for the enqueue)
 * and the call or rule that stopped it; the code and the message are made
 * here, off the hot path.
 */
#include "function.h"

#include <stdio.h>
#include <string.h>

clsError_t cls__ocl_shared_error(const cls__bfunction *f, size_t sharedMem,
                                 cl_ulong local_mem) {
  return cls__reason(clsErrorInvalidValue,
                     "sharedMem %zu bytes: kernel '%s' uses %llu bytes of "
                     "local memory itself and the device has %llu",
                     sharedMem, f->name, (unsigned long long)f->static_local,
                     (unsigned long long)local_mem);
}

clsError_t cls__ocl_launch_error(const cls__bfunction *f, cl_int err, cl_uint i,
                                 const char *what, size_t threads) {
  if (!what)
    return cls__reason(clsErrorInvalidValue,
                       "args[%u] is NULL (kernel '%s' parameter %u)",
                       (unsigned)i, f->name, (unsigned)i);
  if (i == f->nuser &&
      (err == CL_INVALID_WORK_GROUP_SIZE || err == CL_OUT_OF_RESOURCES))
    return cls__reason(clsErrorLaunchOutOfResources,
                       "the driver refused kernel '%s' with a block of %zu "
                       "threads (%s; the kernel's CL_KERNEL_WORK_GROUP_SIZE "
                       "hint is %zu)",
                       f->name, threads,
                       err == CL_OUT_OF_RESOURCES
                           ? "CL_OUT_OF_RESOURCES"
                           : "CL_INVALID_WORK_GROUP_SIZE",
                       f->hint_wg);
  /* memory.c's refusals of a pointer, which no driver call made, each
   * open with "passing". */
  if (i != f->nuser && err == CL_INVALID_ARG_VALUE &&
      !strncmp(what, "passing ", 8))
    return cls__reason(clsErrorInvalidValue, "%s (kernel '%s' parameter %u)",
                       what, f->name, (unsigned)i);
  if (i != f->nuser) {
    char buf[320];
    snprintf(buf, sizeof buf, "%s (kernel '%s' parameter %u)", what, f->name,
             (unsigned)i);
    return cls__ocl_error(err, buf);
  }
  return cls__ocl_error(err, what);
}
