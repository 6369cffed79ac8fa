/*
 * The seam (backend.h), continued: the contract's section for native
 * handles (docs/interop.md), kept in a header of its own so that
 * backend.h stays readable; included at the end of backend.h, and by
 * nothing else.
 */
#ifndef CLSTREAM_BACKEND_NATIVE_H
#define CLSTREAM_BACKEND_NATIVE_H

/* ---- Native handles (docs/interop.md) ----------------------------------
 * Called by native.c.  OpenCL: opencl/native.c.  CUDA: cuda/native.c.
 * Native objects cross the seam as void *: OpenCL's (cl_command_queue,
 * cl_event, cl_mem, ...) on the OpenCL build, the CUDA runtime's
 * (cudaStream_t, cudaEvent_t) on the CUDA build.  The front refuses the
 * other API's calls (cls__b_native_api) before it calls any of these. */

#define CLS__NATIVE_OPENCL 1
#define CLS__NATIVE_CUDA 2
/* Which native API this build has: CLS__NATIVE_OPENCL or _CUDA. */
int cls__b_native_api(void);
/* Opened dev's platform, device and context (OpenCL only; any may be
 * NULL; not retained). */
clsError_t cls__b_native_device(int dev, void **plat, void **id, void **ctx);
/* s's queue or stream (not retained).  OpenCL: from now on s is ordered
 * with the program's own commands on it (expose.c, cls__ocl_expose).
 * Takes s's locks, never waits. */
clsError_t cls__b_native_stream(cls__bstream *s, void **out);
/* The native event for event e of dev whose newest record is t (NULL:
 * complete or never recorded).  OpenCL: a new reference to a cl_event (a
 * completed user event for NULL), a snapshot: *follow NULL.  CUDA: e's
 * cudaEvent_t, not retained, which the program may record itself: *follow
 * is the token that follows it (one reference), and the front stops
 * trusting its own record state for e (src/event.c, cls__event_follow). */
clsError_t cls__b_native_event(int dev, cls__bevent *e, cls__btoken *t,
                               void **out, cls__btoken **follow);
/* A created stream over the program's queue or stream `native` of opened
 * dev, with validated flags; the front owns *out as it owns a created
 * stream.  Refuses (InvalidValue, with a reason) a queue of another
 * context or device, or out of order. */
clsError_t cls__b_stream_import(int dev, void *native, unsigned flags,
                                cls__bstream **out);
/* An event of opened dev already recorded at the program's `native`
 * event: *be its backend part (as cls__b_event_create's), *tok the
 * record's token (one reference; NULL: none needed), and *follows set
 * where the program may record the native event again (CUDA).  Refuses an
 * event of another context with InvalidValue. */
clsError_t cls__b_event_import(int dev, void *native, unsigned flags,
                               cls__bevent **be, cls__btoken **tok,
                               int *follows);
/* The buffer and offset behind device memory p of dev, whose allocation is
 * [base, base+size) (OpenCL: a buffer-backed allocation, or a view of an
 * SVM allocation made here; not retained). */
clsError_t cls__b_native_mem(int dev, const void *p, void *base, size_t size,
                             void **mem, size_t *off);
/* A device pointer for the program's buffer `mem` (retained) of opened
 * dev; *size gets its size.  Refuses a buffer of another context. */
clsError_t cls__b_mem_register(int dev, void *mem, void **p, size_t *size);
/* Undoes cls__b_mem_register for p; clsErrorInvalidValue when p is not a
 * registered buffer's pointer. */
clsError_t cls__b_mem_unregister(int dev, void *p);

#endif /* CLSTREAM_BACKEND_NATIVE_H */
