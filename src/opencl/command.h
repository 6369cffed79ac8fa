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
/* The bytes of free blocks the stream-ordered pool of `dev` keeps cached
 * (pool.c, for meminfo.c). */
size_t cls__ocl_pool_cached(int dev);

/* ---- The kernel-cache guard (kcguard.c, for launch.c and replay.c) -----
 * On a device with facts.kc_guard, a launch of kernel `name`
 * calls cls__kc_enter between cls__ocl_begin_cmd and its enqueue: it
 * takes the guard's lock and, where the launch's grid is wider than any
 * before for that name and block, adds the launches of it in flight to
 * b.  It returns a key (NULL out of memory) for cls__kc_leave, which the
 * launch calls after its enqueue, with its event (NULL: the enqueue
 * failed), to list it and drop the lock.  The launch must ask for its
 * event. */
void *cls__kc_enter(cls__bstream *s, const char *name, const size_t global[3],
                    const size_t local[3], cls__ocl_batch *b);
void cls__kc_leave(void *key, cls__bstream *s, cl_event ev);

#endif /* CLSTREAM_OPENCL_COMMAND_H */
