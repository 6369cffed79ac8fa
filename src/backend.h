/*
 * The one seam between the front and a backend.
 *
 * The library has three layers: the public header (include/clstream.h),
 * the front (the .c files of src/: argument checks, handles, the current
 * device, the events' state, the allocation table) and one backend, chosen at
 * build time (src/opencl/ or src/cuda/; CMake compiles exactly one of them, so
 * every cls__b_ function below has two definitions, one per backend).
 * This header is all that the two sides share: a backend includes it and
 * its own headers, never a front header, and the front includes it
 * through src/internal.h.
 *
 * It has two halves.  The contract (cls__b_*) is what a backend
 * implements and the front calls; each section names the front file that
 * calls it and the file of each backend that implements it.  The front
 * services (at the end) are what a backend may use of the front: reasons
 * and logging, settings, the allocation table, the host-thread mark,
 * locks and range tables; each names the front file that implements it.
 * No front service calls into a backend, so no dependency runs in a
 * circle across the seam.
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
#include "lock.h"
#include "rangetab.h"

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

/* ---- Devices ----------------------------------------------------------
 * Called by device.c.  OpenCL: opencl/device.c (cls__b_device_open:
 * opencl/open.c; cls__b_device_sync: opencl/devsync.c).  CUDA:
 * cuda/device.c. */

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

/* ---- Streams ----------------------------------------------------------
 * Called by stream.c.  OpenCL: opencl/stream.c (host jobs and functions:
 * opencl/hostjob.c).  CUDA: cuda/stream.c. */

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
 * and that cls__host_thread_mark (front services) has already marked.  Returns
 * 1 with the result in *err, or 0 (nothing enqueued) for the front to make a
 * job. */
int cls__b_stream_host_fn(cls__bstream *s, clsHostFn_t fn, void *user,
                          clsError_t *err);

/* ---- Events -----------------------------------------------------------
 * Called by event.c.  OpenCL: opencl/event.c (the token functions:
 * opencl/position.c; cls__b_stream_wait_token: opencl/bridge.c).  CUDA:
 * cuda/event.c (cls__b_stream_wait_token: cuda/stream.c). */

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

/* ---- Memory -----------------------------------------------------------
 * Called by memory.c.  OpenCL: opencl/memory.c (cls__b_memcpy,
 * cls__b_memcpy_across, cls__b_memset: opencl/copy.c; cls__b_free_wait:
 * opencl/devsync.c).  CUDA: cuda/memory.c. */

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

/* ---- Device attributes, flags, profiler -------------------------------
 * Called by attribute.c and devflags.c.  OpenCL: opencl/attribute.c (the
 * flags and the profiler: opencl/devflags.c).  CUDA: cuda/attribute.c. */

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

/* ---- Host memory and managed memory -----------------------------------
 * Called by hostmem.c.  OpenCL: opencl/hostmem.c.  CUDA: cuda/hostmem.c. */

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
/* Unregisters memory registered by cls__b_host_register, the device's
 * work being done; the memory is the caller's once it returns (OpenCL
 * blocks for the unmap of the buffer over it).  An error is reported
 * after the range was unregistered all the same. */
clsError_t cls__b_host_unregister(int dev, void *p);
/* Allocates `size` (> 0) bytes of managed memory on opened `dev` with
 * validated flags; clsErrorNotSupported (with a reason) where the device
 * has none. */
clsError_t cls__b_malloc_managed(int dev, size_t size, unsigned flags,
                                 void **out);
/* Frees managed memory; the device's work is done. */
void cls__b_free_managed(int dev, void *p);

/* ---- Managed memory: advice and prefetch (issue 26) -------------------
 * Called by managed.c.  OpenCL: opencl/managed.c.  CUDA: cuda/managed.c.
 * The front checked that [p, p+count) lies in one managed allocation of
 * device `dev` and that the location is the host or a valid device. */

/* Passes validated advice on (CUDA: cudaMemAdvise); OpenCL keeps nothing
 * here (the front keeps the advice).  Never blocks. */
clsError_t cls__b_mem_advise(int dev, const void *p, size_t count, int advice,
                             clsMemLocation loc);
/* Enqueues a migration of [p, p+count) to `loc` on `s`.  Never blocks. */
clsError_t cls__b_mem_prefetch(cls__bstream *s, const void *p, size_t count,
                               clsMemLocation loc);
/* Answers a range attribute from the runtime: 1 with *err set (CUDA), or
 * 0 for the front to answer from the advice it keeps (OpenCL). */
int cls__b_mem_range_attribute(void *data, size_t size, int attr, const void *p,
                               size_t count, clsError_t *err);

/* ---- Stream-ordered allocation ----------------------------------------
 * Called by pool.c and memory.c.  OpenCL: opencl/pool.c.  CUDA:
 * cuda/pool.c. */

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

/* ---- Modules and launches ---------------------------------------------
 * Called by module.c.  OpenCL: opencl/module.c (cls__b_module_function:
 * opencl/function.c; cls__b_launch: opencl/launch.c).  CUDA:
 * cuda/module.c (cls__b_module_unload: cuda/retired.c). */

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

/* ---- Graphs -------------------------------------------------------------
 * Called by graph.c (kernel nodes copy their arguments when they are made)
 * and graphexec.c (replay).  OpenCL: opencl/graph.c.  CUDA: cuda/graph.c. */

/* Stores in *n the number of f's parameters and, for i < min(*n, max), in
 * sizes[i] how many bytes a launch reads from args[i].  Fails as a launch
 * of f would for a kernel whose parameters cannot be passed. */
clsError_t cls__b_function_params(cls__bfunction *f, size_t *n, size_t *sizes,
                                  size_t max);

/* Replay.  The front keeps the graphs and orders an executable graph's
 * nodes topologically; it then offers them to the backend, which makes a
 * prepared replay of its own (CUDA: a cudaGraphExec_t built from the
 * nodes, cuda/graph.c; OpenCL: kernel objects with their arguments set
 * once, enqueued in order without events, opencl/replay.c), or *out NULL,
 * and the front issues the nodes one by one through the calls above.
 * Every node's deps name earlier positions; kernel args stay valid (the
 * front's) until the exec is destroyed or the node updated. */
typedef struct cls__bexec cls__bexec;
enum cls__bnode_kind {
  CLS__BNODE_EMPTY = 0,
  CLS__BNODE_KERNEL,
  CLS__BNODE_COPY, /* device or pinned memory on both sides, async */
  CLS__BNODE_SET,  /* rows of n bytes, pitch apart */
  CLS__BNODE_HOST  /* fn(user), on a thread that runs only host work */
};
typedef struct cls__bnode {
  int kind;
  size_t ndeps;
  const size_t *deps;
  cls__bfunction *f; /* kernel */
  clsDim3 grid, block;
  size_t shmem; /* dynamic shared memory, bytes */
  void **args;
  void *dst; /* copy, set */
  const void *src;
  size_t n;
  clsMemcpyKind dir; /* copy, resolved */
  int value;         /* set */
  size_t pitch, rows;
  clsHostFn_t fn; /* host */
  void *user;
} cls__bnode;
/* Prepares nodes[0..n) (in order: each node's deps come before it) for
 * replay on opened `dev`; *out NULL where the backend has no prepared
 * replay for them.  *ordered: the backend itself orders each launch after
 * the exec's previous one (else the front does, with a record and a
 * wait).  The front serializes launches, uploads and updates of one
 * exec. */
clsError_t cls__b_exec_prepare(int dev, const cls__bnode *nodes, size_t n,
                               cls__bexec **out, int *ordered);
/* Makes the uploads a first launch on `s` would make. */
clsError_t cls__b_exec_upload(cls__bexec *x, cls__bstream *s);
/* Issues the whole graph on `s`, after its earlier work (and, where
 * *ordered was set, after the exec's previous launch).  Never blocks. */
clsError_t cls__b_exec_launch(cls__bexec *x, cls__bstream *s);
/* New parameters for kernel node i (same function) in later launches. */
clsError_t cls__b_exec_kernel_update(cls__bexec *x, size_t i,
                                     const cls__bnode *node);
/* Releases x; launches already issued still run. */
void cls__b_exec_destroy(cls__bexec *x);

/* ---- Module globals (kparams) -------------------------------------------
 * The device address and size of module global `name` of m
 * (CLS_DEVICE_GLOBAL, CLS_CONSTANT); clsErrorSymbolNotFound when m has
 * none of that name.  OpenCL: opencl/modmeta.c; CUDA: cuda/module.c. */
clsError_t cls__b_module_global(cls__bmodule *m, const char *name, void **ptr,
                                size_t *size);

/* ---- Pool attributes, free memory, peers, 2-D copies (issue 26) -------
 * Called by mempool.c, peer.c and memcpy2d.c.  OpenCL: opencl/pool.c
 * (attributes, trim), opencl/meminfo.c (free memory, peers),
 * opencl/copy2d.c.  CUDA: cuda/mpool.c. */

/* Reads (set 0) or writes (set 1) attribute `attr` (a clsMemPoolAttr) of
 * the default pool of opened `dev` through *value (the Reuse ints
 * widened).  The front has refused writes to the Current attributes and
 * non-zero writes to the High ones.  Never blocks. */
clsError_t cls__b_pool_attr(int dev, int attr, int set,
                            unsigned long long *value);
/* Gives cached memory of the pool of opened `dev` back to the driver,
 * once its frees have been reached, until the pool holds at most `keep`
 * bytes (in use included).  Never blocks. */
clsError_t cls__b_pool_trim(int dev, size_t keep);
/* Free and total device memory of opened `dev`: the driver's free figure
 * where it gives one, else total minus `held` (what the front's table
 * holds on `dev`) and what the backend keeps cached.  Never blocks. */
clsError_t cls__b_mem_info(int dev, size_t held, size_t *free, size_t *total);
/* Whether kernels of `dev` can use memory of `peer` (dev != peer, both
 * in range).  Opens neither. */
int cls__b_can_access_peer(int dev, int peer);
/* Enables (on 1) or disables peer access of opened `dev` to `peer`, after
 * the front's checks (CUDA forwards; OpenCL needs nothing). */
clsError_t cls__b_peer_access(int dev, int peer, int on);
/* Enqueues on `s` a copy of `height` rows of `width` bytes (both > 0,
 * width <= both pitches), every side reachable by `s`'s device.  `kind`
 * resolved, `mode` as for cls__b_memcpy. */
clsError_t cls__b_memcpy2d(cls__bstream *s, void *dst, size_t dpitch,
                           const void *src, size_t spitch, size_t width,
                           size_t height, clsMemcpyKind kind, int mode);
/* Enqueues on `s` a fill of `height` rows of `width` bytes, `pitch`
 * apart; `mode` as for cls__b_memset. */
clsError_t cls__b_memset2d(cls__bstream *s, void *dst, size_t pitch, int value,
                           size_t width, size_t height, int mode);

/* ---- Kernel attributes and occupancy ------------------------------------
 * Called by funcattr.c.  OpenCL: opencl/funcattr.c.  CUDA:
 * cuda/funcattr.c.  None blocks on the device. */

/* Fills *a with f's attributes on device `dev` (whose function f is); the
 * front then puts in the settable ones clsFuncSetAttribute kept. */
clsError_t cls__b_func_attributes(int dev, cls__bfunction *f,
                                  clsFuncAttributes *a);
/* Applies settable attribute `attr` (8 to 15, its value checked by the
 * front for 8 and 9): CUDA forwards it; OpenCL keeps nothing (the front
 * keeps 8 and 9) and refuses the cluster ones with NotSupported. */
clsError_t cls__b_func_set_attribute(int dev, cls__bfunction *f, int attr,
                                     int value);
/* Stores in *blocks how many blocks of `block` (> 0) threads of f, with
 * `dyn` bytes of dynamic shared memory each, a multiprocessor of `dev`
 * holds at once. */
clsError_t cls__b_occupancy(int dev, cls__bfunction *f, int block, size_t dyn,
                            int *blocks);

/* =====================================================================
 * Front services: what a backend may use of the front.  Each is
 * implemented by the front file named in its section; none of them calls
 * into the backend.
 * ===================================================================== */

/* ---- Native handles: backend_native.h (included at the end) ---------- */

/* ---- Compiler hints ---------------------------------------------------- */

#if defined(__GNUC__)
#define CLS__LIKELY(x) __builtin_expect(!!(x), 1)
#define CLS__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CLS__PRINTF(a, b) __attribute__((format(printf, a, b)))
#define CLS__NOINLINE __attribute__((noinline))
#else
#define CLS__LIKELY(x) (x)
#define CLS__UNLIKELY(x) (x)
#define CLS__PRINTF(a, b)
#define CLS__NOINLINE
#endif
/* Thread-locals read by every call: the initial-exec model makes each
 * read one %fs-relative load instead of a __tls_get_addr call (the
 * library's few small ones fit glibc's static TLS surplus even when it is
 * dlopened). */
#if defined(__GNUC__)
#define CLS__TLS_FAST __attribute__((tls_model("initial-exec")))
#else
#define CLS__TLS_FAST
#endif

/* ---- Reasons and logging (error.c) ------------------------------------- */

/* Records why the current call is failing, for CLSTREAM_LOG.  Cheap when
 * logging is off.  Returns `code` so that `return cls__reason(code, ...)`
 * reads naturally. */
clsError_t cls__reason(clsError_t code, const char *fmt, ...) CLS__PRINTF(2, 3);
/* The end of every public function: stores a failure as the thread's last
 * error (never clsErrorNotReady) and logs it under CLSTREAM_LOG=1.  A
 * backend calls it for a failure it learns of after the call that caused
 * it returned (the OpenCL backend's staged copies), naming that call. */
clsError_t cls__finish(const char *func, clsError_t code);
/* Whether CLSTREAM_LOG is on (read once). */
int cls__log_enabled(void);
/* Whether `code` is one of clsError_t's codes (for the CUDA backend,
 * which passes those on unchanged). */
int cls__error_listed(int code);

/* ---- Settings (settings.c) ---------------------------------------------
 * Every CLSTREAM_* environment variable the library reads, in one table:
 * X(id, name, meaning, what holds when it is unset).  settings.c reads
 * each one once, at its first use; clsGetSetting lists them (clstream.h)
 * and docs/settings.md describes them at length. */
#define CLS__SETTINGS(X)                                                       \
  X(DEVICE, "CLSTREAM_DEVICE",                                                 \
    "the default device: an index, or a case-insensitive substring of a "      \
    "device's or its platform's name",                                         \
    "the first device that can be used")                                       \
  X(LOG, "CLSTREAM_LOG",                                                       \
    "any value but 0 prints one line on stderr, with its reason, for every "   \
    "error a function returns",                                                \
    "off")                                                                     \
  X(SPLIT_DEVICES, "CLSTREAM_SPLIT_DEVICES",                                   \
    "OpenCL: N (2 or more) splits every device that can be partitioned "       \
    "equally into N sub-devices, listed after the root devices",               \
    "no split")                                                                \
  X(CONTEXT_PER_DEVICE, "CLSTREAM_CONTEXT_PER_DEVICE",                         \
    "OpenCL: 1 gives each device a context of its own, as devices of two "     \
    "platforms have",                                                          \
    "one context per platform")                                                \
  X(TRACE, "CLSTREAM_TRACE",                                                   \
    "OpenCL: a file that every command is written to, in the Chrome trace "    \
    "event format, at clsDeviceSynchronize and at exit",                       \
    "no trace")                                                                \
  X(KERNEL_ARG_INFO, "CLSTREAM_KERNEL_ARG_INFO",                               \
    "OpenCL: source takes kernel parameter types from the source even where "  \
    "the driver gives them",                                                   \
    "the driver's, the source's where the driver has none")                    \
  X(ARG_CACHE, "CLSTREAM_ARG_CACHE",                                           \
    "OpenCL: 0 sets every kernel argument at every launch",                    \
    "arguments unchanged since the last launch are not set again")             \
  X(MEMORY, "CLSTREAM_MEMORY",                                                 \
    "OpenCL: buffers makes device memory cl_mem buffers on every device; svm " \
    "keeps coarse-grained SVM where the device has it",                        \
    "svm")                                                                     \
  X(HOST_INLINE, "CLSTREAM_HOST_INLINE",                                       \
    "OpenCL: 1 runs host functions on the calling thread, at enqueue, on "     \
    "every device",                                                            \
    "only where a flush runs the queue (Oclgrind)")                            \
  X(FLUSH_WAITED, "CLSTREAM_FLUSH_WAITED",                                     \
    "OpenCL: 0 or 1 turns off or on the flush of a command that the host or "  \
    "another queue will wait for",                                             \
    "on, except on NVIDIA's driver")                                           \
  X(COMMAND_EVENTS, "CLSTREAM_COMMAND_EVENTS",                                 \
    "OpenCL: 0 or 1 turns off or on asking the driver for the events of "      \
    "launches, copies and fills",                                              \
    "on, except on NVIDIA's driver")                                           \
  X(TIMING_FALLBACK, "CLSTREAM_TIMING_FALLBACK",                               \
    "OpenCL: 1 forces timed records to be a 4-byte copy, 0 forbids it, gate "  \
    "uses it only behind host functions and waits",                            \
    "decided by the start-up timestamp check of each device")                  \
  X(HOST_CLOCK, "CLSTREAM_HOST_CLOCK",                                         \
    "OpenCL: 0 stops timed records on an idle stream from reading the host "   \
    "clock instead of enqueuing a marker",                                     \
    "the host clock where the device's timestamps are read from it")           \
  X(KERNEL_CACHE_GUARD, "CLSTREAM_KERNEL_CACHE_GUARD",                         \
    "OpenCL: 1 or 0 turns on or off ordering a launch that widens a "          \
    "kernel's grid after the narrower launches of that kernel in flight "      \
    "(PoCL 4 and 5's kernel cache aborts otherwise)",                          \
    "on for PoCL 4.x and 5.x, off elsewhere")

enum cls__setting_id {
#define CLS__SETTING_ID(id, name, meaning, unset) CLS__SET_##id,
  CLS__SETTINGS(CLS__SETTING_ID)
#undef CLS__SETTING_ID
      CLS__SET_COUNT
};
/* The value of a setting, as getenv gave it at the setting's first use
 * in the process (later changes to the environment are not seen), or
 * NULL when it is unset.  The string lives as long as the library.
 * Thread-safe; after the first use one atomic load. */
const char *cls__setting(enum cls__setting_id id);

/* ---- The allocation table (memtab.c) ----------------------------------- */

/* What an address range in the table is. */
enum cls__mem_kind {
  CLS__MEM_NONE = 0,
  CLS__MEM_DEVICE,      /* clsMalloc */
  CLS__MEM_HOST,        /* clsMallocHost, clsHostAlloc without Mapped */
  CLS__MEM_POOL,        /* clsMallocAsync (pool.c) */
  CLS__MEM_MANAGED,     /* clsMallocManaged (hostmem.c) */
  CLS__MEM_HOST_MAPPED, /* clsHostAlloc with Mapped, on a device that maps */
  CLS__MEM_REGISTERED   /* clsHostRegister (hostmem.c) */
};
/* Device memory as far as copies, sets and devices are concerned. */
#define CLS__MEM_ON_DEVICE(k)                                                  \
  ((k) == CLS__MEM_DEVICE || (k) == CLS__MEM_POOL || (k) == CLS__MEM_MANAGED)
/* One bit per kind, for cls__mem_remove. */
#define CLS__MEM_BIT(k) (1u << (k))

/* The kind of the entry that contains p (CLS__MEM_NONE if none); *base,
 * *size and *dev (each may be NULL) get the entry's.  A repeat of the
 * calling thread's last hit, with no removal since, takes no lock. */
int cls__mem_lookup(const void *p, void **base, size_t *size, int *dev);
/* The allocation table's generation: it changes with every removal, so
 * what a lookup found is still true while it reads the same.  One
 * atomic load, no lock. */
size_t cls__mem_gen(void);

/* ---- Host threads (hostmark.c) ------------------------------------------ */

/* Marks the calling thread, for good, as one that runs only host
 * functions and callbacks, so that every clstream call made on it is
 * refused (clsErrorNotPermitted) as from inside one. */
void cls__host_thread_mark(void);

/* ---- The kernel prelude (embedded by CMake with the front) ------------- */

/* cl/clstream_kernel.h, as clsModuleLoadData prepends it: the OpenCL
 * backend builds it once per device to probe the kernel clock (facts.c). */
extern const char cls__prelude[];

/* ---- Locks (lock.h, lock.c) and range tables (rangetab.h, rangetab.c) ---
 * Included above: cls__lock, the light lock taken on every command, and
 * cls__rangetab, the sorted address-range table under the front's
 * allocation table and the OpenCL backend's buffer table. */

/* The contract's native-handles section, in a header of its own. */
#include "backend_native.h"

#endif /* CLSTREAM_BACKEND_H */
