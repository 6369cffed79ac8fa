/*
 * clstream_cuda_interop.h: clstream inside a program that uses the CUDA
 * runtime directly (native handles both ways).  Guide: docs/interop.md.
 *
 * Every function exists in both builds; on the OpenCL build each returns
 * clsErrorNotSupported.  Device pointers need no conversion: on the CUDA
 * build clsMalloc memory is CUDA device memory.
 *
 * Ownership.  clsCUDAGetStream and clsCUDAGetEvent give clstream's own
 * handles: not the program's to destroy, valid until the clstream stream
 * or event is destroyed.  A handle the program gives clstream stays the
 * program's: clstream never destroys it, and the program must keep it
 * alive until it has destroyed the clstream stream or event made over it.
 *
 * Ordering.  A CUDA stream keeps no state in clstream beyond the runtime's
 * own (no held-back waits, no known-idle shortcut), so work the program
 * issues on the stream is ordered exactly like clstream's.
 */
#ifndef CLSTREAM_CUDA_INTEROP_H
#define CLSTREAM_CUDA_INTEROP_H

#include "clstream.h"

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The stream's cudaStream_t (the default streams give cudaStreamLegacy or
 * cudaStreamPerThread). */
CLS_API clsError_t clsCUDAGetStream(clsStream_t stream, cudaStream_t *out);

/* The event's cudaEvent_t: it follows the event's records. */
CLS_API clsError_t clsCUDAGetEvent(clsEvent_t event, cudaEvent_t *out);

/* A stream over the program's cudaStream_t (of the current device).
 * flags: clsStreamDefault or clsStreamNonBlocking, as the stream was
 * created with. */
CLS_API clsError_t clsCUDAStreamCreateFromStream(clsStream_t *stream,
                                                 cudaStream_t cuStream,
                                                 unsigned flags);

/* An event over the program's cudaEvent_t, recorded as that event is:
 * query, synchronize, waits and elapsed times go to it, and clsEventRecord
 * records it.  flags must match the cudaEvent_t's (clsEventDisableTiming
 * where it was made with cudaEventDisableTiming). */
CLS_API clsError_t clsCUDAEventCreateFromEvent(clsEvent_t *event,
                                               cudaEvent_t cuEvent,
                                               unsigned flags);

#ifdef __cplusplus
}
#endif

#endif /* CLSTREAM_CUDA_INTEROP_H */
