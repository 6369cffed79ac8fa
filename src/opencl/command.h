/* OpenCL backend, layer 7 (commands): what the files of the top layer
 * (streams, events, host jobs, bridges, device synchronization, copies,
 * modules and launches, pools, attributes) offer one another besides the
 * backend interface (backend.h).  Nothing below includes it. */
#ifndef CLSTREAM_OPENCL_COMMAND_H
#define CLSTREAM_OPENCL_COMMAND_H

#include "enqueue.h"
#include "memory.h"

/* A token for the work issued to s so far (timed: it has an end time),
 * enqueueing at most one command (event.c).  *out NULL: known complete
 * (untimed only); a token with no command (pos.ev NULL) is complete too. */
clsError_t cls__ocl_record(cls__bstream *s, int timed, cls__btoken **out);

/* Completes user event `user`, retrying a transient failure (hostjob.c). */
void cls__ocl_complete_user(cl_event user);

/* A created stream over the program's in-order queue q of d (retained),
 * exposed from the start (expose.c, cls__ocl_expose): stream.c, for
 * native.c. */
clsError_t cls__ocl_stream_adopt(cls__ocl_device *d, cl_command_queue q,
                                 unsigned flags, cls__bstream **out);

#endif /* CLSTREAM_OPENCL_COMMAND_H */
