/* OpenCL backend, layer 3 (device memory): allocations of device memory
 * (SVM or buffer-backed), the buffer table, and the one place that picks
 * the driver command for a copy, a fill or a pointer argument
 * (memory.c).  Opening a device (open.c) sits beside it. */
#ifndef CLSTREAM_OPENCL_MEMORY_H
#define CLSTREAM_OPENCL_MEMORY_H

#include "driver.h"
#include "hostargs.h"

/* Whether p lies in a buffer-backed allocation: then *mem is its buffer
 * (not retained: valid while the allocation lives), *off the offset of p
 * in it and *avail (if not NULL) the bytes from p to its end.  Never
 * blocks; costs one atomic load while no buffer allocation exists. */
int cls__ocl_buffer_at(const void *p, cl_mem *mem, size_t *off, size_t *avail);

/* Device memory of d (SVM or buffer-backed, as d->facts says). */
clsError_t cls__ocl_alloc(cls__ocl_device *d, size_t size, void **out);

void cls__ocl_free(cls__ocl_device *d, void *p);

/* Enqueue a non-blocking copy or fill on q, as a buffer command where a
 * side is buffer-backed and an SVM command otherwise (CL_INVALID_OPERATION
 * on a device without SVM).  *what names the OpenCL call made. */
cl_int cls__ocl_enqueue_copy(cls__ocl_device *d, cl_command_queue q, void *dst,
                             const void *src, size_t n, cl_uint nw,
                             const cl_event *wl, cl_event *ev,
                             const char **what);

cl_int cls__ocl_enqueue_fill(cls__ocl_device *d, cl_command_queue q, void *dst,
                             unsigned char v, size_t n, cl_uint nw,
                             const cl_event *wl, cl_event *ev,
                             const char **what);

/* Not an OpenCL code: cls__ocl_set_pointer_arg's answer for a pointer
 * into a host buffer (pinned, registered or host-mapped managed memory)
 * at an offset no sub-buffer takes, on a device whose modules are built
 * without offset arguments (SVM memory).  The launch passes it as the
 * buffer and an offset through the function's offset variant (launch.c,
 * function.c); the argument is left unset. */
#define CLS__OCL_NEEDS_OFFSET (-1999)

/* Sets kernel argument i of k to device pointer ptr for a launch on d:
 * an SVM pointer, NULL, or for buffer-backed memory the buffer itself (at
 * its start) or a sub-buffer (inside it, at an offset that is a multiple
 * of CL_DEVICE_MEM_BASE_ADDR_ALIGN).  Other offsets: a host buffer's on an
 * SVM-memory device is CLS__OCL_NEEDS_OFFSET (above), anything else
 * CL_INVALID_ARG_VALUE, with *what saying why and naming the memory.
 * *what names the call made, or the rule broken;
 * *svm is 1 when the call made was clSetKernelArgSVMPointer (the
 * argument now holds an SVM pointer), else 0.  Its caller holds the
 * function's lock (launch.c, which asserts it). */
cl_int cls__ocl_set_pointer_arg(cls__ocl_device *d, cl_kernel k, cl_uint i,
                                void *ptr, const char **what, int *svm);

/* *stick: whether opened device d's driver refuses a buffer on an
 * argument of a kernel object that once held an SVM pointer
 * (facts.svm_args_stick), probed the first time it is asked (formprobe.c;
 * one atomic load after that).  A probe the driver's lack of resources
 * stopped returns that code, decides nothing and runs again at the next
 * ask.  Asked only by launches that pass a buffer on such an argument
 * (launch.c, replay.c), under stream and function locks: the probe takes
 * its own lock only, a leaf. */
cl_int cls__ocl_svm_args_stick(cls__ocl_device *d, int *stick);

/* Why a pointer at ptr, at an offset no sub-buffer takes, cannot go to a
 * kernel on d: the memory's kind and the offset, then `why` (a clause).
 * Opens with "passing", as every refusal here (launch.c reports them
 * as such).  Formatted into a buffer of the calling thread, valid until
 * its next call. */
const char *cls__ocl_offset_refusal(const cls__ocl_device *d, const void *ptr,
                                    const char *why);

/* ---- Host buffers (hostmem.c) -----------------------------------------
 * Host memory that kernels reach through a cl_mem buffer whose memory it
 * is (pinned, registered and host-mapped managed memory): kept in the
 * buffer table, so that a kernel argument anywhere inside it becomes the
 * buffer or a sub-buffer as for device memory, while copies and fills
 * keep treating it as host memory (cls__ocl_buffer_at does not see it). */

/* Enters [p, p+size) as host memory backed by `mem` (the table holds the
 * caller's reference until cls__ocl_hostbuf_remove hands it back). */
clsError_t cls__ocl_hostbuf_add(void *p, size_t size, cl_mem mem);
/* Removes the host buffer starting at p: 1 with its buffer in *mem (the
 * caller releases it), 0 if there is none. */
int cls__ocl_hostbuf_remove(void *p, cl_mem *mem);
/* Whether p lies in a host buffer.  One atomic load while the table is
 * empty. */
int cls__ocl_hostbuf_at(const void *p);
/* Like cls__ocl_buffer_at (no *avail), host buffers included: the buffer
 * a kernel argument at p goes as on device d (a view, below, for host
 * memory of another context).  A host buffer found is noted for the
 * launch being set up on this thread (hostargs.c). */
int cls__ocl_arg_buffer_at(cls__ocl_device *d, const void *p, cl_mem *mem,
                           size_t *off);

/* ---- Native handles (docs/interop.md) ---------------------------------- */

/* A device pointer for the program's buffer `mem` of `size` bytes (retained
 * here): a buffer-backed allocation like clsMalloc's on the buffer path,
 * marked as the program's. */
clsError_t cls__ocl_buffer_adopt(cl_mem mem, size_t size, void **out);

/* Drops the adopted buffer starting at p (and clstream's reference);
 * 0 when p starts none. */
int cls__ocl_buffer_unadopt(void *p);

/* The cl_mem view of the SVM allocation [base, base+size) of d, made on
 * first use (not retained: valid until the allocation is freed). */
clsError_t cls__ocl_view_at(cls__ocl_device *d, void *base, size_t size,
                            cl_mem *out);

/* Releases the view of the allocation at base, if one was made. */
void cls__ocl_view_drop(void *base);

#endif /* CLSTREAM_OPENCL_MEMORY_H */
