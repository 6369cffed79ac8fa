/* OpenCL backend, layer 3 (device memory): host buffers in launches
 * (hostargs.c), beside memory.c, which calls it. */
#ifndef CLSTREAM_OPENCL_HOSTARGS_H
#define CLSTREAM_OPENCL_HOSTARGS_H

#include "driver.h"

/* Notes, while a launch's arguments are set on this thread, that it
 * passes the host buffer `mem` over [base, base+size) (memory.c). */
void cls__ocl_harg_note(cl_mem mem, void *base, size_t size);
/* How many host buffers this thread has noted since its list was last
 * consumed. */
unsigned cls__ocl_host_args_noted(void);
/* Forgets this thread's list, returning how many it held: for arguments
 * set outside a launch (replay.c prepares kernel objects ahead). */
unsigned cls__ocl_host_args_drop(void);
/* Around the enqueue of a launch whose arguments were just set on this
 * thread: gives the host buffers it passes to the device in queue q
 * (unmaps them; a failure is returned with *what naming the call, and the
 * launch is not to be enqueued), and after the enqueue (made, failed or
 * skipped) back to the host (maps them again, after the kernel's event
 * `after` where it has one) and forgets the list.  The remap returns the
 * event of the last map it enqueued (the caller's reference) or NULL:
 * the launch's work ends there, so the stream's position belongs after
 * it, or a synchronize could return before the host has its memory. */
cl_int cls__ocl_host_args_unmap(cl_command_queue q, const char **what);
cl_event cls__ocl_host_args_remap(cl_command_queue q, cl_event after);
/* Forgets the launch state of the host buffer at base (freed). */
void cls__ocl_hargs_forget(void *base);

#endif /* CLSTREAM_OPENCL_HOSTARGS_H */
