/* OpenCL backend, layer 3 (device memory): host buffers in launches
 * (hostargs.c), beside memory.c, which calls it. */
#ifndef CLSTREAM_OPENCL_HOSTARGS_H
#define CLSTREAM_OPENCL_HOSTARGS_H

#include "driver.h"

/* Notes, while a launch's arguments are set on this thread, that it
 * passes the host buffer `mem` over [base, base+size) (memory.c). */
void cls__ocl_harg_note(cl_mem mem, void *base, size_t size);
/* Around the enqueue of a launch whose arguments were just set on this
 * thread: gives the host buffers it passes to the device in queue q
 * (unmaps them; a failure is returned with *what naming the call, and the
 * launch is not to be enqueued), and after the enqueue (made, failed or
 * skipped) back to the host (maps them again) and forgets the list.  The
 * remap returns the event of the last map it enqueued, retained for the
 * caller (NULL: none): the launch is over for the host only once it is
 * complete, so a launch with an event stands for it by that one. */
cl_int cls__ocl_host_args_unmap(cl_command_queue q, const char **what);
cl_event cls__ocl_host_args_remap(cl_command_queue q);
/* Forgets the launch state of the host buffer at base (freed). */
void cls__ocl_hargs_forget(void *base);

#endif /* CLSTREAM_OPENCL_HOSTARGS_H */
