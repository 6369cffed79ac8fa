/* OpenCL backend, layer 4 (waits and threads): waiting for one event as
 * the device's schedule flag says (wait.c, devflags.c), flushes that
 * never strand work and event watches (monitor.c), and the worker
 * threads that run jobs outside driver callbacks (workers.c). */
#ifndef CLSTREAM_OPENCL_THREADS_H
#define CLSTREAM_OPENCL_THREADS_H

#include "driver.h"

/* Blocks until ev completes; sleeps rather than spins when `sleep` is set.
 * clsErrorLaunchFailure if the command ended in error. */
clsError_t cls__ocl_wait(cl_event ev, int sleep);

/* How the library's waits for `ev` behave under clsSetDeviceFlags
 * (devflags.c): CLS__WAIT_DRIVER (clWaitForEvents), or the device's
 * schedule flag (clsDeviceScheduleSpin, Yield, BlockingSync). */
#define CLS__WAIT_DRIVER 0u

unsigned cls__ocl_wait_mode(cl_event ev);

/* Waits for ev by polling its status (mode clsDeviceScheduleSpin), yielding
 * the CPU between polls (clsDeviceScheduleYield). */
clsError_t cls__ocl_poll_wait(cl_event ev, unsigned mode);

/* clFlush(q), and where it fails, the monitor thread flushes q again
 * until a flush succeeds: a failed flush never strands the commands.
 * Never waits on the device; out of host memory (no room to list q) it
 * retries clFlush, sleeping 1 ms between tries, for up to a second. */
void cls__ocl_flush(cl_command_queue q);

/* Work for the library's worker threads: run(job) is called once on a
 * worker, never inside an OpenCL callback.  `status` is the triggering
 * event's execution status. */
typedef struct cls__ocl_job {
  void (*run)(struct cls__ocl_job *job);
  struct cls__ocl_job *next;
  cl_int status;
} cls__ocl_job;

/* Hands a job to a worker (starting one if all are busy).  Safe to call
 * from an OpenCL callback: it only locks a mutex and signals.  Its one
 * caller is a watch's claim (monitor.c), so the monitor thread, which
 * adds workers when jobs starve, is running by then. */
void cls__ocl_post(cls__ocl_job *job);

/* Starts a detached thread running fn(NULL); 0 if none could be started
 * (workers.c). */
int cls__ocl_spawn(void *(*fn)(void *));

/* Called by the monitor: a job that has found no idle worker for a while
 * gets a new worker (workers.c). */
void cls__ocl_feed_starved(void);

/* A job to run on a worker once an event completes or fails, exactly
 * once, also where the driver skips CL_COMPLETE callbacks for failed
 * commands (PoCL): the event's callback and the monitor thread race to
 * claim it.  job.run gets job.status = the event's final status and must
 * end with cls__ocl_watch_done(w), which frees the watch (the struct it
 * starts) once the monitor has let go of it too.  No driver callback ever
 * takes a library lock on this path, so none can deadlock against a
 * library thread that holds one while it queries the driver. */
typedef struct cls__ocl_watch {
  cls__ocl_job job;
  cl_event ev;
  atomic_int claimed;
  atomic_int poll; /* no callback: the monitor claims on CL_COMPLETE too */
  atomic_int refs; /* the monitor's list and the job */
  struct cls__ocl_watch *next, *prev; /* pending list (monitor's lock) */
} cls__ocl_watch;

/* Starts watching ev (retained by the watch; only job.run need be set). */
void cls__ocl_watch_event(cls__ocl_watch *w, cl_event ev);

/* The end of every watch job: drops the job's reference. */
void cls__ocl_watch_done(cls__ocl_watch *w);

#endif /* CLSTREAM_OPENCL_THREADS_H */
