/* OpenCL backend, layer 3: views of host memory in other contexts
 * (hostview.c).  Host memory (pinned, mapped, registered, managed) whose owner
 * device's context is not the launching device's reaches kernels as a buffer of
 * the launching device's context over the same range, made on first
 * need. */
#ifndef CLSTREAM_OPENCL_HOSTVIEW_H
#define CLSTREAM_OPENCL_HOSTVIEW_H

#include "driver.h"

/* Notes opened device d's context (open.c): views are looked up only
 * once a second context exists. */
void cls__ocl_hostviews_context(cls__ocl_device *d);
/* Where p lies in host memory of another context than d's: 1 with the
 * view (or its sub-buffer at an aligned offset, *off then 0) and the
 * offset in it, noted for this thread's launch (hostargs.c); 0 where p
 * is not such memory, or no view could be made (logged). */
int cls__ocl_hostview_at(cls__ocl_device *d, const void *p, cl_mem *mem,
                         size_t *off);
/* The devices (up to max) holding a view of the host memory at base. */
unsigned cls__ocl_hostview_devices(const void *base, int *devs, unsigned max);
/* Unmaps and releases the views of the host memory at base (freed): the
 * caller has waited for those devices' work (hostmem.c). */
void cls__ocl_hostviews_drop(const void *base);

#endif /* CLSTREAM_OPENCL_HOSTVIEW_H */
