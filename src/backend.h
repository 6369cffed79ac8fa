/*
 * The contract a backend implements (src/opencl/, src/cuda/).
 *
 * The front (src/<object>.c) has already validated every argument and
 * handle, resolved the default streams and checked that objects belong to
 * the right device before it calls any of these.  A backend function that
 * fails reports the reason with cls__reason() and returns the clsError_t;
 * the front stores it as the thread's last error and logs it.
 *
 * Locking: each backend object has its own lock; no function holds a lock
 * while it waits on the device.  Functions marked "blocks" wait on the
 * device; all others return without waiting.  Every function may be called
 * from any thread, concurrently with calls on other objects.
 */
#ifndef CLSTREAM_BACKEND_H
#define CLSTREAM_BACKEND_H

#include "clstream.h"

#include <stddef.h>

typedef struct cls__bstream cls__bstream;
typedef struct cls__bevent cls__bevent;
typedef struct cls__btoken cls__btoken;
typedef struct cls__bmodule cls__bmodule;
typedef struct cls__bfunction cls__bfunction;

/* A host job: run(job, status) is called on a thread that is not the
 * caller's: a library-owned worker (OpenCL: never inside a driver
 * callback), or the CUDA runtime's own callback thread.  The one
 * exception: on an OpenCL driver whose flush runs the queue on the calling
 * thread (Oclgrind; facts.c, host_inline), run is called on the caller's
 * thread before cls__b_stream_host_job returns, with no lock held.  `status` is
 * clsSuccess, or the error of an earlier command in the stream.  If the
 * call that enqueued the job returned an error, run is never called; if
 * it returned clsSuccess, run is called exactly once, except that a
 * skippable job (cls__job below) may instead never be called once an
 * earlier command has failed. */
typedef void (*cls__job_fn)(void *job, clsError_t status);

/* The front's job record begins with this header, so that a backend whose
 * runtime hands its callback one pointer can pass the job as it is,
 * without a record of its own.
 *
 * skippable = 0 (a stream callback): run must be called, with the error,
 * even after an earlier command failed, as cudaStreamAddCallback does.
 * skippable = 1 (a host function): run does nothing but recycle the job
 * when status is not clsSuccess, so a backend may skip the call after a
 * failure, as cudaLaunchHostFunc does after a device error.  The record
 * is then lost, which can only happen once the device has failed. */
typedef struct cls__job {
  cls__job_fn run;
  int skippable;
} cls__job;

/* ---- Devices --------------------------------------------------------- */

/* Enumerates the devices.  Called once, before anything else, by the
 * front (under pthread_once).  Cheap: creates no contexts. */
clsError_t cls__b_init(void);
/* Number of devices (0 when there is none). */
int cls__b_device_count(void);
/* Makes `dev` ready for use (context, legacy stream) if it is not yet.
 * Returns clsErrorNotSupported, with a reason, for a device that cannot
 * be used.  Idempotent and thread-safe; blocks the first time only. */
clsError_t cls__b_device_open(int dev);
/* Whether device memory of `a` may be used by commands of opened device
 * `b` (the same OpenCL context; always on CUDA, through unified
 * addressing). */
int cls__b_shares_memory(int a, int b);
/* Fills *p.  Does not open the device. */
clsError_t cls__b_device_props(int dev, clsDeviceProp *p);
/* Priority range of opened `dev`: *least >= *greatest; 0, 0 without
 * priorities. */
void cls__b_priority_range(int dev, int *least, int *greatest);
/* Blocks until all work in all streams of `dev` is done (host functions
 * included).  Takes no lock while waiting. */
clsError_t cls__b_device_sync(int dev);

/* ---- Streams --------------------------------------------------------- */

/* Creates a stream on opened `dev` with validated flags and a priority
 * already clamped.  The front owns *out until cls__b_stream_destroy. */
clsError_t cls__b_stream_create(int dev, unsigned flags, int priority,
                                cls__bstream **out);
/* The legacy default stream of `dev` (per_thread 0) or the calling
 * thread's per-thread default stream (per_thread 1), created on first use.
 * The backend owns it.  A device's legacy stream, once created, stays the
 * same object as long as the library lives (the front keeps it per
 * thread, src/stream.c). */
clsError_t cls__b_stream_default(int dev, int per_thread, cls__bstream **out);
/* Releases a created stream and returns at once; pending work (host
 * functions included) still runs.  The object may live on internally
 * until that work is done. */
void cls__b_stream_destroy(cls__bstream *s);
/* Blocks until all work issued to `s` so far is done. */
clsError_t cls__b_stream_sync(cls__bstream *s);
/* clsSuccess when all work issued to `s` is done, else clsErrorNotReady. */
clsError_t cls__b_stream_query(cls__bstream *s);
/* clsStreamWaitEvent is cls__b_stream_wait_token (Events, below). */
/* Enqueues a host job on `s` (see cls__job_fn): it runs after all earlier
 * work in `s`, and later work in `s` waits until it returns.  The job
 * survives the destruction of `s`.  `job` is a cls__job whose run is
 * `run` (passed as well for backends that keep their own record). */
clsError_t cls__b_stream_host_job(cls__bstream *s, cls__job_fn run, void *job);
/* Enqueues host function fn(user) on `s` as cls__b_stream_host_job would,
 * but with no job record, where the backend can: its runtime calls a
 * function of fn's type, on a thread that runs nothing but host functions
 * and that cls__host_thread_mark (below) has already marked.  Returns 1
 * with the result in *err, or 0 (nothing enqueued) for the front to make
 * a job. */
int cls__b_stream_host_fn(cls__bstream *s, clsHostFn_t fn, void *user,
                          clsError_t *err);
/* The front's, for the backend: marks the calling thread, for good, as
 * one that runs only host functions and callbacks, so that every clstream
 * call made on it is refused (clsErrorNotPermitted) as from inside one. */
void cls__host_thread_mark(void);

/* ---- Events ---------------------------------------------------------- */

/* The front (src/event.c) owns an event's state: whether it was ever
 * recorded, which record is the newest, and whether that record is known
 * complete.  A backend only captures work and answers for what it
 * captured: a record hands the front a token, an opaque handle on the
 * captured position that it can ask for status, wait on and read an end
 * time from.  A token never changes what it stands for, except on a
 * backend whose tokens are per event (CUDA: the event's cudaEvent_t),
 * where it follows the event's newest record; the front's record
 * generation makes either kind safe (a completion seen through an older
 * token never marks a newer record complete).  A NULL token stands for
 * work already complete; the token functions accept it. */

/* Creates the backend's part of an event on opened `dev` with validated
 * flags (CUDA: a cudaEvent_t; OpenCL: nothing, *out is NULL, or
 * clsErrorNotSupported for interprocess events). */
clsError_t cls__b_event_create(int dev, unsigned flags, cls__bevent **out);
/* Releases it at once; captured work still runs, tokens stay valid. */
void cls__b_event_destroy(cls__bevent *e);
/* Captures the work issued to `s` (of the event's device) so far for
 * event `e` with flags `flags`.  *tok gets the token (the caller owns one
 * reference), or NULL where the work is known complete at record time
 * and there is no end time to keep, which only an untimed record
 * (clsEventDisableTiming) may report: a timed record always has a token
 * with an end time to read.  *complete is set where the work is known
 * complete at record time (always with a NULL token; OpenCL: also a timed
 * record on an idle stream stamped with the host clock).  Never
 * blocks. */
clsError_t cls__b_record(cls__bevent *e, cls__bstream *s, unsigned flags,
                         cls__btoken **tok, int *complete);
/* Takes one more reference to t (NULL allowed).  Never blocks. */
void cls__b_token_retain(cls__btoken *t);
/* Drops a reference; the captured work still runs.  NULL allowed. */
void cls__b_token_release(cls__btoken *t);
/* clsSuccess when t's work is done (NULL: done), clsErrorNotReady when
 * not yet, clsErrorLaunchFailure (with a reason) when it failed.  The
 * hot path: a driver query at most, no wait, no lock but the token's. */
clsError_t cls__b_token_status(cls__btoken *t);
/* Blocks until t's work is done; sleeps rather than spins when `sleep`
 * is set (clsEventBlockingSync; CUDA's event flags decide by themselves),
 * else waits as clsSetDeviceFlags says.  Takes no lock while waiting. */
clsError_t cls__b_token_wait(cls__btoken *t, int sleep);
/* Milliseconds from a's end to b's; both non-NULL tokens of timed
 * records of one device (a == b gives 0).  clsErrorNotReady if either
 * is not complete, clsErrorLaunchFailure if either failed.  Never
 * blocks. */
clsError_t cls__b_token_elapsed(float *ms, cls__btoken *a, cls__btoken *b);
/* Later work in `s` waits for t's work, as captured when t was made
 * (NULL: complete; on the OpenCL legacy stream the wait still orders
 * after the blocking streams' work, as CUDA's does).  t may be of
 * another device. */
clsError_t cls__b_stream_wait_token(cls__bstream *s, cls__btoken *t);

/* ---- Memory ---------------------------------------------------------- */

/* Allocates `size` (> 0) bytes of device memory on opened `dev`. */
clsError_t cls__b_malloc(int dev, size_t size, void **out);
/* Blocks, before a free, until the work of `dev` that may still use the
 * memory is done, as cudaFree and cudaFreeHost wait: OpenCL waits for
 * every stream of the device; CUDA returns at once, because cudaFree and
 * cudaFreeHost wait themselves.  The front calls it before cls__b_free and
 * cls__b_free_host and keeps the memory (leaked) if it fails. */
clsError_t cls__b_free_wait(int dev);
/* Frees device memory from cls__b_malloc, after cls__b_free_wait; returns
 * what the runtime's free returned (CUDA: cudaFree's code, which reports
 * earlier device errors too). */
clsError_t cls__b_free(int dev, void *p);
/* Allocates `size` (> 0) bytes of host memory suitable for async copies
 * on opened `dev`. */
clsError_t cls__b_malloc_host(int dev, size_t size, void **out);
/* Frees memory from cls__b_malloc_host, as cls__b_free does. */
clsError_t cls__b_free_host(int dev, void *p);
/* How cls__b_memcpy and cls__b_memset return: one of the first three
 * (the front picks it from CUDA's rules for the call and the memory),
 * ORed with CLS__COPY_SYNC_CALL for clsMemcpy and clsMemset. */
enum cls__copy_mode {
  CLS__COPY_ASYNC = 0,    /* at once; the stream orders the copy */
  CLS__COPY_BLOCKING = 1, /* once the copy is done (blocks) */
  CLS__COPY_STAGE = 2,    /* at once, src (pageable host memory) having
                             been copied aside so the caller may reuse it */
  CLS__COPY_HOW = 3,      /* mask of the three above */
  /* The call is the synchronous clsMemcpy or clsMemset, on the legacy
   * stream: a backend whose runtime has that call (CUDA) forwards to it,
   * which then decides what to wait for; the others follow the low bits. */
  CLS__COPY_SYNC_CALL = 4
};
/* Enqueues a copy of n (> 0) bytes on `s`; `kind` is resolved (never
 * Default).  `mode` is an enum cls__copy_mode; blocks as it says. */
clsError_t cls__b_memcpy(cls__bstream *s, void *dst, const void *src, size_t n,
                         clsMemcpyKind kind, int mode);
/* Enqueues on `s` a copy of n (> 0) bytes where a side is device memory
 * that `s`'s device cannot reach (cls__b_shares_memory says no): it is
 * staged through host memory, in `s`'s order, and each such side is also
 * ordered after the work its own device's legacy stream had to wait for
 * at the time of the call.  dst_dev and src_dev name the device owning
 * each side's device memory, or are -1 for host memory.  `mode` as for
 * cls__b_memcpy.  (On CUDA every device reaches every other's memory:
 * this is cls__b_memcpy.) */
clsError_t cls__b_memcpy_across(cls__bstream *s, void *dst, int dst_dev,
                                const void *src, int src_dev, size_t n,
                                int mode);
/* Enqueues a fill of n (> 0) bytes with (unsigned char)value on `s`.
 * `mode` is CLS__COPY_ASYNC or CLS__COPY_BLOCKING, maybe ORed with
 * CLS__COPY_SYNC_CALL; blocks as it says. */
clsError_t cls__b_memset(cls__bstream *s, void *dst, int value, size_t n,
                         int mode);

/* ---- Device attributes, flags, profiler (attribute.c, devflags.c) ---- */

/* Stores attribute `attr` (a value of CUDA 13's cudaDeviceAttr enum; the
 * front rejected the others) of `dev`.  Does not open the device. */
clsError_t cls__b_device_attribute(int dev, int attr, int *value);
/* Applies validated device flags to opened `dev` (the front remembers
 * them): the schedule flag decides how the library's waits on `dev`
 * behave.  Never blocks. */
clsError_t cls__b_device_set_flags(int dev, unsigned flags);
/* The flags of opened `dev`, given the ones last set there (`set`). */
clsError_t cls__b_device_get_flags(int dev, unsigned set, unsigned *flags);
/* Starts (start = 1) or stops profiler collection. */
clsError_t cls__b_profiler(int start);

/* ---- Host memory and managed memory (hostmem.c) ---------------------- */

/* Allocates `size` (> 0) bytes of page-locked host memory on opened `dev`
 * with validated clsHostAlloc flags.  *kind gets CLS__MEM_HOST_MAPPED when
 * kernels of `dev` can use the memory at its host address, else
 * CLS__MEM_HOST (freed with cls__b_free_host). */
clsError_t cls__b_host_alloc(int dev, size_t size, unsigned flags, void **out,
                             int *kind);
/* Frees CLS__MEM_HOST_MAPPED memory; the device's work is done. */
void cls__b_free_host_mapped(int dev, void *p);
/* Stores the device pointer through which kernels of opened `dev` reach
 * host memory `host`, which lies in an entry of `kind` (CLS__MEM_HOST,
 * CLS__MEM_HOST_MAPPED or CLS__MEM_REGISTERED).  clsErrorNotSupported,
 * with a reason, where the device cannot reach it.  Never blocks. */
clsError_t cls__b_host_device_pointer(int dev, int kind, void *host,
                                      void **out);
/* Registers [p, p+size) with validated clsHostRegister flags on opened
 * `dev`; the front owns the table entry.  Never blocks. */
clsError_t cls__b_host_register(int dev, void *p, size_t size, unsigned flags);
/* Unregisters memory registered by cls__b_host_register.  Never blocks. */
void cls__b_host_unregister(int dev, void *p);
/* Allocates `size` (> 0) bytes of managed memory on opened `dev` with
 * validated flags; clsErrorNotSupported (with a reason) where the device
 * has none. */
clsError_t cls__b_malloc_managed(int dev, size_t size, unsigned flags,
                                 void **out);
/* Frees managed memory; the device's work is done. */
void cls__b_free_managed(int dev, void *p);

/* ---- Stream-ordered allocation (pool.c) ------------------------------ */

/* Allocates `size` (> 0) bytes of device memory for work enqueued on `s`
 * from now on (see clsMallocAsync).  Never blocks. */
clsError_t cls__b_malloc_async(cls__bstream *s, size_t size, void **out);
/* Frees p (size bytes of device `dev`'s memory, of table kind
 * CLS__MEM_POOL or CLS__MEM_DEVICE, already out of the table) once the
 * work enqueued on `s` so far is done (for the legacy stream, with the
 * blocking streams' work it waits for: what an event recorded now would
 * capture).  On failure p is still the caller's.  Never blocks. */
clsError_t cls__b_free_async(cls__bstream *s, int dev, void *p, size_t size,
                             int kind);
/* Frees CLS__MEM_POOL memory whose device's work is done (clsFree). */
void cls__b_pool_free_now(int dev, void *p, size_t size);

/* ---- Modules and launches -------------------------------------------- */

/* Compiles `source` (prelude already prepended) for opened `dev`.  Blocks.
 * A compile error returns clsErrorInvalidSource, bad compiler options
 * clsErrorInvalidValue; either way *log (malloc'd, the caller frees) gets
 * the compiler's log.  On success *log may hold warnings or be NULL. */
clsError_t cls__b_module_load(int dev, const char *source, const char *options,
                              cls__bmodule **out, char **log);
/* Releases the module; launches already enqueued still run. */
void cls__b_module_unload(cls__bmodule *m);
/* Looks up kernel `name`: clsErrorSymbolNotFound when absent.  The
 * function is owned by the module. */
clsError_t cls__b_module_function(cls__bmodule *m, const char *name,
                                  cls__bfunction **out);
/* Enqueues f on `s`.  Grid and block are non-zero and within the device's
 * limits (the front checked); args follow cudaLaunchKernel's convention. */
clsError_t cls__b_launch(cls__bfunction *f, clsDim3 grid, clsDim3 block,
                         void **args, size_t sharedMem, cls__bstream *s);

#endif /* CLSTREAM_BACKEND_H */
