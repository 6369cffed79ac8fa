/*
 * clstream_opencl.h: clstream inside a program that uses OpenCL directly
 * (native handles both ways).  Guide: docs/interop.md.
 *
 * Every function exists in both builds; on the CUDA build each returns
 * clsErrorNotSupported.  Bad input gets CUDA-style codes with a reason
 * under CLSTREAM_LOG=1: clsErrorInvalidValue (a NULL output, a queue,
 * event or buffer of a context clstream does not know, an out-of-order
 * queue, a pointer that is not clstream device memory) or
 * clsErrorInvalidResourceHandle (a destroyed stream or event).
 *
 * Ownership.  "Not retained" handles stay clstream's: the program must
 * not release them, and they stay valid only as long as the clstream
 * object they came from (the process, the stream, the allocation).  A
 * "new reference" is the program's to release.  A handle the program
 * gives clstream is retained by clstream, which releases only its own
 * reference when its object is destroyed.
 *
 * Ordering.  Once a stream's queue has been handed out
 * (clsOpenCLGetQueue), or the stream was made over the program's queue
 * (clsOpenCLStreamCreateFromQueue), work the program enqueues on that
 * queue is ordered exactly like the stream's own: every later record,
 * query, synchronize, clsStreamWaitEvent, legacy-stream implicit
 * synchronization and clsDeviceSynchronize covers it, and it waits for
 * every clsStreamWaitEvent made on the stream before it was enqueued.
 * Such a stream pays an extra barrier per record, query and synchronize;
 * streams never handed out are unchanged.
 */
#ifndef CLSTREAM_OPENCL_H
#define CLSTREAM_OPENCL_H

#include "clstream.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The platform, device and context clstream uses for `device` (any
 * output may be NULL).  Opens the device.  Not retained; valid while the
 * process runs. */
CLS_API clsError_t clsOpenCLGetDevice(int device, cl_platform_id *platform,
                                      cl_device_id *dev, cl_context *ctx);

/* The stream's in-order queue (NULL, clsStreamLegacy and
 * clsStreamPerThread name the default streams).  Not retained; valid until
 * the stream is destroyed.  From this call on the stream is ordered with
 * the program's own commands on the queue (see Ordering above). */
CLS_API clsError_t clsOpenCLGetQueue(clsStream_t stream,
                                     cl_command_queue *queue);

/* A new reference (the caller releases it) to a cl_event that completes
 * when the work captured by the event's newest record completes; for an
 * event never recorded, or whose work was known complete at record time,
 * a completed user event.  Never blocks. */
CLS_API clsError_t clsOpenCLGetEvent(clsEvent_t event, cl_event *clEvent);

/* The buffer and offset behind a device pointer (clsMalloc or
 * clsMallocAsync memory, or a pointer clsOpenCLMemRegister gave), on both
 * memory paths: on the SVM
 * path, a cl_mem view of the SVM allocation made on first use (OpenCL
 * libraries without an SVM interface, such as CLBlast, take it).  Not
 * retained; valid until the allocation is freed. */
CLS_API clsError_t clsOpenCLGetMem(const void *devPtr, cl_mem *mem,
                                   size_t *offset);

/* A stream over the program's in-order queue, which must be of the
 * context and device clsOpenCLGetDevice gives for the current device.
 * flags: clsStreamDefault or clsStreamNonBlocking.  The queue is retained;
 * clsStreamDestroy releases clstream's reference and never destroys it.
 * Timed records need the queue to have CL_QUEUE_PROFILING_ENABLE. */
CLS_API clsError_t clsOpenCLStreamCreateFromQueue(clsStream_t *stream,
                                                  cl_command_queue queue,
                                                  unsigned flags);

/* An event already recorded at the program's cl_event (retained; of the
 * current device's context): query, synchronize, clsStreamWaitEvent and,
 * where the cl_event has profiling information, elapsed times work on
 * it.  flags as clsEventCreateWithFlags'.  A later clsEventRecord replaces
 * the imported record, as any record does.  An imported event that never
 * completes (a user event) may be destroyed at any time. */
CLS_API clsError_t clsOpenCLEventCreateFromEvent(clsEvent_t *event,
                                                 cl_event clEvent,
                                                 unsigned flags);

/* A device pointer for the program's buffer (of the current device's
 * context; retained), usable in launches, copies and sets until
 * clsOpenCLMemUnregister; clsFree also ends it. */
CLS_API clsError_t clsOpenCLMemRegister(void **devPtr, cl_mem mem);
CLS_API clsError_t clsOpenCLMemUnregister(void *devPtr);

#ifdef __cplusplus
}
#endif

#endif /* CLSTREAM_OPENCL_H */
