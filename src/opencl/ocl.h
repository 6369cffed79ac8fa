/*
 * Private to the OpenCL backend: its objects and the helpers its files
 * share.
 *
 * Every mutex of the backend, outer to inner: a thread holding one may
 * take only those named in its last column (and what they take in turn).
 * The file is the one that owns the lock and the state it guards.
 */
// clang-format off
/*
 * | lock                | file      | guards                                  | taken inside it                    |
 * |---------------------|-----------|-----------------------------------------|------------------------------------|
 * | device.open_lock    | device.c  | opening a device once; the legacy       | platform.lock; busy_lock and       |
 * |                     |           | stream's creation (stream.c)            | streams_lock (creating the stream) |
 * | platform.lock       | device.c  | the platform's shared context           | (leaf)                             |
 * | stream.lock         | enqueue.c | enqueue order on the queue; writes of   | function.lock, busy_lock,          |
 * |                     |           | the stream's waits (also bridge.c)      | last_lock (own and others'),       |
 * |                     |           | (a cls__lock, src/lock.h)               | monitor lock, trace_lock           |
 * | function.lock       | module.c  | a cl_kernel's arguments until enqueued  | buffer table and the front's       |
 * |                     |           | (a cls__lock)                           | allocation table (both read)       |
 * | cls__lock.m         | lock.c    | the sleep of a thread waiting for a     | (leaf)                             |
 * |                     | (front)   | cls__lock                               |                                    |
 * | device.streams_lock | stream.c  | the live stream list (read: devsync.c)  | last_lock                          |
 * | device.busy_lock    | enqueue.c | the busy list and orphans (stream.c     | last_lock                          |
 * |                     |           | reserves and drops; devsync.c reads)    |                                    |
 * | stream.last_lock    | enqueue.c | newest command, unnamed count, waits    | monitor lock (a failed flush);     |
 * |                     |           | (read by other streams, event.c); the   | enqueues a barrier, never waits    |
 * |                     |           | position's `done` (position.c); a       |                                    |
 * |                     |           | cls__lock                               |                                    |
 * | pool.lock           | pool.c    | a device's stream-ordered pool          | (leaf; token status reads)         |
 * | module.lock         | module.c  | a module's function list                | (leaf)                             |
 * | buffer table (rw)   | memory.c  | buffer allocations and sub-buffers (its | (leaf)                             |
 * |                     |           | rangetab.h table's own rwlock)          |                                    |
 * | pinned_lock         | memory.c  | the clsMallocHost buffers               | (leaf)                             |
 * | monitor lock + cond | monitor.c | pending watches, unflushed queues       | worker lock (claiming a watch)     |
 * | worker lock + cond  | workers.c | the worker pool's job queue and counts  | (leaf; starts threads)             |
 * | sleeper m + c       | wait.c    | one sleeping wait's `done`              | (leaf)                             |
 * | trace_lock          | trace.c   | the timeline trace                      | (leaf; queries timestamps)         |
 */
// clang-format on
/*
 * Outside the backend, the front's module lock (src/module.c) is held
 * around cls__b_module_load and cls__b_module_function, which build
 * programs (a compile, not a device wait) and take module.lock; the
 * front's event lock (a bit of its state word, src/event.c) is held
 * around cls__b_token_status (a driver query, no backend lock); the
 * front's other locks are not held across backend calls.  Tokens
 * (position.c) have no lock: what they stand for never changes.  Driver
 * callbacks take only the worker and sleeper locks.
 *
 * No lock is held while waiting on the device.  Where a gather meets a
 * queue it cannot name or an event its list has no room for, the batch
 * sets it aside and it is waited for once the locks are dropped
 * (cls__ocl_batch_unstall).  The exceptions, each the last resort or
 * unavoidable:
 * - device.open_lock is held through the device's one-time open, which
 *   includes the start-up timestamp check's clFinish calls on a private
 *   queue (device.c): every caller of the device must wait for the open
 *   anyway, and nothing else waits on that queue.
 * - A batch that could set aside no more (CLS__STALL_MAX queues or
 *   events) waits at once, under the locks of the gather; cls__ocl_begin
 *   after CLS__STALL_ROUNDS rounds of gathering again waits under
 *   stream.lock alone.  Both need the host out of memory or the driver
 *   out of resources for a barrier and a marker at once.
 * - cls__ocl_flush, out of host memory to list a queue whose flush
 *   failed, retries clFlush (not a wait) for up to a second, under the
 *   enqueue or last lock of its caller.
 */
#ifndef CLSTREAM_OPENCL_OCL_H
#define CLSTREAM_OPENCL_OCL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
/* clCreateCommandQueue, for OpenCL 1.x platforms. */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include "../internal.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct cls__ocl_platform {
  cl_platform_id id;
  char name[256];
  char version[128];
  pthread_mutex_t lock; /* guards ctx creation */
  cl_context ctx;       /* one context for all the platform's devices */
  cl_device_id *devices;
  cl_uint ndevices;
} cls__ocl_platform;

/* What a device is, as CUDA's properties and attributes describe it:
 * read once at enumeration (identity.c). */
typedef struct cls__ocl_ident {
  int cc_major, cc_minor; /* compute capability (see clsDeviceProp) */
  int cc_native;          /* the hardware's own (NVIDIA) */
  int cl_major, cl_minor; /* CL_DEVICE_VERSION */
  int nvidia;             /* cl_nv_device_attribute_query */
  int warp;               /* CL_DEVICE_WARP_SIZE_NV, else 1 */
  int integrated;         /* shares the host's memory */
  int overlap;            /* copies overlap kernels (NVIDIA's answer) */
  int regs_per_block;     /* CL_DEVICE_REGISTERS_PER_BLOCK_NV, else 0 */
  int exec_timeout;       /* CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV, else 0 */
  int ecc;                /* CL_DEVICE_ERROR_CORRECTION_SUPPORT */
  int fine_grain;         /* fine-grained SVM buffers */
  int system_svm;         /* fine-grained system SVM: any host memory */
  cl_ulong l2;            /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE */
  cl_ulong const_mem;     /* CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE */
  cl_ulong max_alloc;     /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
} cls__ocl_ident;

/* What the backend knows about a device's driver: decided once, by
 * cls__facts_read (facts.c, the one place for driver facts), before the
 * device is used; read everywhere else, never changed. */
typedef struct cls__ocl_facts {
  int version;        /* OpenCL version the calls may use: 12, 20, 30 */
  int simulator;      /* a simulator (Oclgrind): never the default */
  int buffers;        /* device memory is cl_mem buffers, not SVM */
  int flush_runs;     /* clFlush runs the commands on the calling thread
                         and waits for their wait lists (Oclgrind) */
  int flush_together; /* the commands of one flush complete together
                         (rusticl) */
  int host_inline;    /* host jobs run at enqueue on the calling thread
                         (where flush_runs, or CLSTREAM_HOST_INLINE=1) */
  size_t base_align;  /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes */
  int flush_to_start; /* an unflushed command may never start */
  int flush_waited;   /* commands someone will wait for are flushed at
                         once (not where the driver submits at enqueue) */
  int command_events; /* launches, copies and fills ask for their events */
  /* Decided when the device is opened (published by `opened`): */
  int no_timestamps; /* profiling timestamps are unusable: elapsed times
                        return clsErrorNotSupported */
  int host_clock;    /* the profiling clock is this host clock (a clockid_t
                        plus 1; 0: none found): a timed record on an idle
                        stream reads it and enqueues nothing */
} cls__ocl_facts;

typedef struct cls__ocl_device {
  int index;
  cl_device_id id;
  cls__ocl_platform *plat;
  char name[256];
  char driver[64];
  cl_device_type type;
  cl_device_svm_capabilities svm;
  int priority_hints; /* cl_khr_priority_hints */
  cl_uint compute_units;
  cl_uint clock_mhz;
  size_t max_wg;
  size_t max_item[3];
  cl_ulong global_mem;
  cl_ulong local_mem;
  size_t timer_res_ns;
  /* Macros its OpenCL C compiler predefines (NULL-terminated; may be
   * NULL when out of memory), for kernel_sig.c. */
  const char *const *predef;
  cls__ocl_ident ident;
  _Atomic unsigned sched; /* clsSetDeviceFlags' schedule flag (devflags.c) */
  cls__ocl_facts facts;

  /* Set once by cls__b_device_open. */
  pthread_mutex_t open_lock;
  _Atomic int opened; /* 1 ok, -1 failed */
  clsError_t open_err;
  cl_context ctx;
  /* What the start-up timestamp check found (cls__facts_open, facts.c):
   * markers behind device work or on an idle queue are stamped on the
   * device's clock; markers behind a user event (a host-function gate, a
   * bridged wait) are too.  A timed record that would be a marker where
   * its fact is 0 is a tiny copy instead.  timing_fallback: either is 0
   * (1: the first, so every timed record is a copy; 2: only the second,
   * as on NVIDIA's OpenCL). */
  int markers_after_work;
  int markers_after_gate;
  int timing_fallback;
  void *scratch;         /* SVM scratch for the fallback copy */
  cl_command_queue mapq; /* maps and unmaps clsMallocHost buffers */
  /* One released token kept for the next record (position.c): a record
   * then costs no allocation.  Taken and given back by atomic exchange. */
  struct cls__btoken *_Atomic spare_token;

  /* Every live stream (for device-wide synchronization). */
  pthread_mutex_t streams_lock;
  struct cls__bstream *streams;
  /* Blocking streams that may have unfinished work (legacy sync), and the
   * newest commands of streams destroyed with work pending. */
  pthread_mutex_t busy_lock;
  struct cls__bstream **busy;
  unsigned nbusy, capbusy, nblocking; /* capbusy >= nblocking streams */
  /* 0 only while the busy list and the orphans are empty: set by every
   * addition (enqueue.c), cleared by the legacy gather that finds both
   * empty, written under busy_lock and read without it, so that a legacy
   * command, synchronize or query with nothing to wait for takes no lock
   * for it (a removal elsewhere leaves it set: the next gather clears
   * it). */
  _Atomic int busy_any;
  struct cls__ocl_orphan {
    cl_event ev;
    int blocking;
  } * orphans;
  unsigned norphans, caporphans;
  /* The legacy default stream, created on first use. */
  struct cls__bstream *_Atomic legacy;
} cls__ocl_device;

/* ---- Positions (position.c) ------------------------------------------ */

/* A position in a queue: a command's event and what is known of it.  The
 * one owner in this backend of "is that command done": `done` is written
 * only by the cls__pos_ functions in position.c.  A stream's newest
 * command is one (cls__bstream.last, moved under the stream's last_lock);
 * a record's token holds one that never moves. */
typedef struct cls__ocl_pos {
  cl_event ev;      /* the command, retained; NULL: none (complete) */
  unsigned unnamed; /* commands after ev enqueued without an event */
  int work;         /* ev is stamped right (batch.work) */
  int barrier;      /* ev is a barrier: its timestamps are not kept */
  _Atomic int done; /* ev known complete and unnamed == 0 */
} cls__ocl_pos;

/* Empty and complete. */
void cls__pos_init(cls__ocl_pos *p);
/* The queue moved on: ev (retained, handed over) is its newest command,
 * of kind work/barrier; NULL counts one more command without an event.
 * Returns the event replaced, for the caller to release (outside its
 * locks), or NULL.  Under the owner's lock. */
cl_event cls__pos_advance(cls__ocl_pos *p, cl_event ev, int work, int barrier);
/* The one transition cls__pos_advance makes for a command without an
 * event, inline for the command path (cls__ocl_end_unnamed): one more
 * command follows ev, so the position is not known complete.  Under the
 * owner's lock. */
static inline void cls__pos_unnamed(cls__ocl_pos *p) {
  p->unnamed++;
  atomic_store_explicit(&p->done, 0, memory_order_release);
}
/* Execution status of the position: CL_COMPLETE, a negative error, or
 * "not yet" (> 0, also while unnamed commands follow ev).  Asks the
 * driver only while not known complete, and remembers CL_COMPLETE: the
 * transition to done.  Never blocks.  Under the owner's lock (a token's
 * never moves: no lock). */
cl_int cls__pos_status(cls__ocl_pos *p);
/* A wait for ev returned clsSuccess: p is done if ev is still its newest
 * command with nothing unnamed after it (no driver call).  Under the
 * owner's lock. */
void cls__pos_reached(cls__ocl_pos *p, cl_event ev);
/* Whether the position is known complete: one atomic load, no lock. */
static inline int cls__pos_known_done(cls__ocl_pos *p) {
  return atomic_load_explicit(&p->done, memory_order_acquire);
}
/* A token for ev (retained, handed over; NULL gives a NULL token) on d,
 * one reference.  NULL with a reason when out of host memory (ev is
 * released then). */
cls__btoken *cls__ocl_token_new(cls__ocl_device *d, cl_event ev, int work,
                                int barrier);
/* A token of d for no command: a timed record complete at once, whose end
 * time is `stamp` (d->facts.host_clock).  NULL with a reason when out of
 * host memory. */
cls__btoken *cls__ocl_token_stamped(cls__ocl_device *d, cl_ulong stamp);
/* A token of d standing for no command yet, one reference: a record's,
 * made before its command is enqueued so that running out of host memory
 * enqueues nothing.  NULL with a reason when out of host memory. */
cls__btoken *cls__ocl_token_reserve(cls__ocl_device *d);
/* The reserved token t stands for ev (retained, handed over), of kind
 * work/barrier, and gains a reference for the stream whose newest command
 * ev becomes (cls__ocl_end_record): one driver reference for both. */
void cls__ocl_token_place(cls__btoken *t, cl_event ev, int work, int barrier);
/* A token for the work issued to s so far (timed: it has an end time),
 * enqueueing at most one command (event.c).  *out NULL: known complete
 * (untimed only); a token with no command (pos.ev NULL) is complete too. */
clsError_t cls__ocl_record(cls__bstream *s, int timed, cls__btoken **out);

enum cls__stream_role {
  CLS__ROLE_CREATED = 0,
  CLS__ROLE_LEGACY = 1,
  CLS__ROLE_PER_THREAD = 2
};

struct cls__bstream {
  cls__ocl_device *dev;
  cl_command_queue q;
  int role;
  int blocking; /* takes part in legacy-stream synchronization */
  unsigned id;  /* for the timeline trace */

  /* Serializes enqueues on q (held only while enqueueing). */
  cls__lock lock;
  /* Waits from clsStreamWaitEvent (retained) for the next command. */
  cl_event *waits;
  unsigned nwaits, capwaits;
  /* Some of the waits may be pending (0: none is): set when waits are
   * added, cleared when a command consumes them or when
   * cls__ocl_waits_status finds all of them complete. */
  _Atomic int has_waits;

  /* The stream's newest command (a position, read by other streams).
   * The command path (launches, copies, fills) may ask the driver for no
   * event: last.unnamed counts the commands enqueued after last.ev
   * without one, and whoever needs the stream's position names it with a
   * barrier then (cls__ocl_position).  Under last_lock, but for the
   * lock-free cls__pos_known_done(&last). */
  cls__lock last_lock;
  cls__ocl_pos last;
  /* The record token whose command last.ev is, or NULL: the stream then
   * holds last.ev through a reference to the token (the driver's one
   * reference serves both), and learns from the token when a wait on the
   * record saw it complete (cls__last_known_done).  Under last_lock. */
  cls__btoken *last_tok;
  int in_busy; /* listed in dev->busy (under last_lock) */

  /* Device stream list (under dev->streams_lock). */
  struct cls__bstream *next, *prev;
};

/* What a stream let go of when its newest command moved on, released by
 * cls__last_drop once last_lock is dropped. */
typedef struct cls__last_ref {
  cl_event ev;
  cls__btoken *tok;
} cls__last_ref;
/* s's newest command moved on: cls__pos_advance of s->last, with ev's
 * reference held by the record token `tok` (NULL: by the stream itself).
 * Under last_lock (position.c). */
cls__last_ref cls__last_advance(struct cls__bstream *s, cl_event ev, int work,
                                int barrier, cls__btoken *tok);
void cls__last_drop(cls__last_ref r);
/* Whether s's newest command is known complete, from the stream's own
 * position or from the record token that shares its command (a wait on
 * the record saw it complete: then the stream's position learns it, with
 * no driver call).  Under last_lock. */
int cls__last_known_done(struct cls__bstream *s);
/* cls__pos_status of s's newest command, after cls__last_known_done.
 * Under last_lock. */
cl_int cls__last_status(struct cls__bstream *s);

/* A record's token (backend.h): a position that never moves, shared by
 * reference count between the front's event, stream waits and the
 * backend's own users (pool.c, memory.c).  Made by cls__ocl_token_new
 * (position.c), freed when the last reference goes. */
struct cls__btoken {
  cls__ocl_pos pos; /* pos.unnamed is always 0 */
  cl_ulong stamp;   /* with pos.ev NULL: a timed record complete at once,
                       at this host time (facts.host_clock) */
  cls__ocl_device *dev;
  _Atomic int refs;
};

/* How many queues and events a batch can set aside to wait for once its
 * locks are dropped (cls__ocl_batch): beyond that, the last resort is to
 * wait with the lock held (see the lock table). */
#define CLS__STALL_MAX 8

/* The events a command must wait for, gathered by cls__ocl_begin. */
typedef struct cls__ocl_batch {
  cl_event *list;
  cl_uint n;
  cl_uint npending; /* the first npending came from stream->waits */
  cl_uint cap;
  cl_event small[8];
  /* For the timeline trace (CLSTREAM_TRACE): the command's name and
   * category (NULL: "command"), and an earlier event whose END starts the
   * span (host functions), all optional. */
  const char *what;
  const char *cat;
  cl_event from;
  /* Set by the caller when the command's END is stamped on the device's
   * clock after the commands before it: device work (kernel, copy,
   * fill), which every driver stamps right, or a marker where the
   * device's facts say markers there are stamped right; `barrier` for a
   * barrier, whose timestamps are not kept (NVIDIA's END reads 0). */
  int work;
  int barrier;
  /* What the gathers could not put in the list while holding locks, to be
   * waited for once every lock is dropped (cls__ocl_batch_unstall):
   * queues whose position could not be named (not even a barrier could be
   * enqueued), of which the first nfinished have been finished already,
   * and events the list had no room for (out of host memory). */
  cl_command_queue stall_q[CLS__STALL_MAX];
  cl_event stall_ev[CLS__STALL_MAX];
  unsigned nstall_q, nfinished, nstall_ev;
} cls__ocl_batch;

/* ---- Driver facts (facts.c) ------------------------------------------ */

/* The host clock's reading now, on d's profiling clock (d->facts.host_clock
 * must be set; device.c). */
cl_ulong cls__ocl_host_stamp(const cls__ocl_device *d);
/* Fills d->facts (d's other fields described already). */
void cls__facts_read(cls__ocl_device *d);
/* The OpenCL version calls to device d of platform p may use (12, 20,
 * 30): the lower of the platform's and the device's. */
int cls__facts_version(cl_platform_id p, cl_device_id d);
/* Whether clCreateSubDevices can split d equally (checked before any call
 * to it: some drivers lack the entry point). */
int cls__facts_can_split(cl_platform_id p, cl_device_id d);
/* Whether the named device is a simulator (ranked last). */
int cls__facts_simulator(const char *platform, const char *device);

/* ---- Device memory (memory.c) ---------------------------------------- */

/* Whether p lies in a buffer-backed allocation: then *mem is its buffer
 * (not retained: valid while the allocation lives), *off the offset of p
 * in it and *avail (if not NULL) the bytes from p to its end.  Never
 * blocks; costs one atomic load while no buffer allocation exists. */
int cls__ocl_buffer_at(const void *p, cl_mem *mem, size_t *off, size_t *avail);
/* Device memory of d (SVM or buffer-backed, as d->facts says). */
clsError_t cls__ocl_alloc(cls__ocl_device *d, size_t size, void **out);
void cls__ocl_free(cls__ocl_device *d, void *p);
/* Enqueue a non-blocking copy or fill on q, as a buffer command where a
 * side is buffer-backed and an SVM command otherwise (CL_INVALID_OPERATION
 * on a device without SVM).  *what names the OpenCL call made. */
cl_int cls__ocl_enqueue_copy(cls__ocl_device *d, cl_command_queue q, void *dst,
                             const void *src, size_t n, cl_uint nw,
                             const cl_event *wl, cl_event *ev,
                             const char **what);
cl_int cls__ocl_enqueue_fill(cls__ocl_device *d, cl_command_queue q, void *dst,
                             unsigned char v, size_t n, cl_uint nw,
                             const cl_event *wl, cl_event *ev,
                             const char **what);

/* Sets kernel argument i of k to device pointer ptr for a launch on d:
 * an SVM pointer, NULL, or for buffer-backed memory the buffer itself (at
 * its start) or a sub-buffer (inside it, at an offset that is a multiple
 * of CL_DEVICE_MEM_BASE_ADDR_ALIGN; other offsets are refused with
 * CL_INVALID_ARG_VALUE).  *what names the call made, or the rule broken;
 * *svm is 1 when the call made was clSetKernelArgSVMPointer (the
 * argument now holds an SVM pointer), else 0.  Under the function's
 * lock. */
cl_int cls__ocl_set_pointer_arg(cls__ocl_device *d, cl_kernel k, cl_uint i,
                                void *ptr, const char **what, int *svm);

/* A command queue on d: in order, with profiling when `profiling` is set
 * and at high priority when `high` is set and d has priority hints;
 * through clCreateCommandQueue on OpenCL 1.x.  *what names the call. */
cl_command_queue cls__ocl_queue(cls__ocl_device *d, int profiling, int high,
                                cl_int *err, const char **what);

/* Device `dev` (index checked by the front). */
cls__ocl_device *cls__ocl_device_get(int dev);

/* Fills d->ident from the driver (identity.c; at enumeration). */
void cls__ocl_identify(cls__ocl_device *d);
/* Copies what d->ident decides into *p: major.minor and the fields CUDA's
 * properties have for features (identity.c). */
void cls__ocl_identity_props(const cls__ocl_device *d, clsDeviceProp *p);

/* How the library's waits for `ev` behave under clsSetDeviceFlags
 * (devflags.c): CLS__WAIT_DRIVER (clWaitForEvents), or the device's
 * schedule flag (clsDeviceScheduleSpin, Yield, BlockingSync). */
#define CLS__WAIT_DRIVER 0u
unsigned cls__ocl_wait_mode(cl_event ev);
/* Waits for ev by polling its status (mode clsDeviceScheduleSpin), yielding
 * the CPU between polls (clsDeviceScheduleYield). */
clsError_t cls__ocl_poll_wait(cl_event ev, unsigned mode);

/* Execution status of ev: CL_COMPLETE, a negative error, or "not yet"
 * (> 0), which is also the answer when the query itself fails: an event
 * whose state is unknown is waited for, never dropped.  Never blocks. */
cl_int cls__ocl_status(cl_event ev);

/* The one map from OpenCL error codes to clsError_t. */
clsError_t cls__ocl_code(cl_int err);
/* cls__ocl_code, recording `what` as the reason. */
clsError_t cls__ocl_error(cl_int err, const char *what);

/* Starts an enqueue on s: locks s->lock and gathers in *b the events the
 * next command must wait for (clsStreamWaitEvent waits, and the legacy
 * stream's implicit synchronization).  Pass b->n and b->list as the
 * command's wait list.  Always paired with cls__ocl_end. */
void cls__ocl_begin(cls__bstream *s, cls__ocl_batch *b);
/* Ends an enqueue: on success (`ev` non-NULL, retained by the caller and
 * handed over) ev becomes the stream's newest command, consumed waits are
 * dropped and the queue is flushed; on failure (ev NULL) the waits stay
 * pending for the next command.  Unlocks s->lock. */
void cls__ocl_end(cls__bstream *s, cls__ocl_batch *b, cl_event ev);
/* cls__ocl_end of a record's command: ev's reference is held by the
 * token `t` (cls__ocl_token_place gave it one for the stream). */
void cls__ocl_end_record(cls__bstream *s, cls__ocl_batch *b, cl_event ev,
                         cls__btoken *t);
/* cls__ocl_end of a successful enqueue (ev non-NULL, handed over) that
 * leaves the queue unflushed: for a command whose flush must wait (an
 * inline host job's gate, hostjob.c).  Unlocks s->lock. */
void cls__ocl_end_unflushed(cls__bstream *s, cls__ocl_batch *b, cl_event ev);
/* Lists s (whose in_busy the caller just set) in the device's busy list.
 * Takes d->busy_lock. */
void cls__ocl_busy_add(cls__bstream *s);
/* Whether s must be added to its device's busy list now that it has
 * work the legacy stream may wait for: a blocking stream not listed yet.
 * Marks it listed; the caller then calls cls__ocl_busy_add once
 * last_lock is dropped.  Under s->last_lock.  The one statement of the
 * rule for every path that gives a stream work (enqueue.c, bridge.c). */
static inline int cls__busy_claim(cls__bstream *s) {
  if (!s->blocking || s->in_busy) return 0;
  s->in_busy = 1;
  return 1;
}
/* cls__ocl_end_unnamed's cases other than the common one (enqueue.c). */
void cls__ocl_end_unnamed_slow(cls__bstream *s, cls__ocl_batch *b);
/* Ends an enqueue whose command was enqueued without an event (the
 * command path): the stream counts it as unnamed, consumed waits are
 * dropped, and the queue is flushed only where the driver needs a flush
 * to start work.  Unlocks s->lock.  Inline for its common case: the
 * command waited for nothing, on a driver that starts work without a
 * flush, so that only the position moves (and the stream is listed busy
 * if it was not). */
static inline void cls__ocl_end_unnamed(cls__bstream *s, cls__ocl_batch *b) {
  if (CLS__LIKELY(!b->n && !s->nwaits && !s->dev->facts.flush_to_start)) {
    cls__lock_take(&s->last_lock);
    cls__pos_unnamed(&s->last);
    int add = cls__busy_claim(s);
    cls__lock_give(&s->last_lock);
    if (CLS__UNLIKELY(add)) cls__ocl_busy_add(s); /* as cls__end_ok does */
    cls__lock_give(&s->lock);
    return;
  }
  cls__ocl_end_unnamed_slow(s, b);
}
/* The end of a command-path enqueue: cls__ocl_end_unnamed, or
 * cls__ocl_end with ev when the command was asked for its event (or with
 * NULL when `ok` is 0: the enqueue failed). */
void cls__ocl_end_cmd(cls__bstream *s, cls__ocl_batch *b, int ok, cl_event ev);
/* Where the command path may enqueue a command without an event: returns
 * NULL for "no event" or `ev` for "ask for one": on devices whose events
 * cost next to nothing (facts.command_events), and when the timeline trace
 * needs every command's event. */
static inline cl_event *cls__ocl_event_slot(const cls__bstream *s,
                                            cl_event *ev) {
  extern int cls__trace_on;
  return s->dev->facts.command_events || CLS__UNLIKELY(cls__trace_on) ? ev
                                                                      : NULL;
}
/* Whether the legacy stream of d may have work that blocking streams
 * wait for: two atomic loads, no lock (enqueue.c). */
static inline int cls__ocl_legacy_pending(cls__ocl_device *d) {
  cls__bstream *l = atomic_load_explicit(&d->legacy, memory_order_acquire);
  return l && (!cls__pos_known_done(&l->last) ||
               atomic_load_explicit(&l->has_waits, memory_order_acquire));
}
/* Whether s's next command may have to wait for anything (s->lock held):
 * its clsStreamWaitEvent waits, or with `gather` the legacy stream's
 * implicit synchronization (blocking streams' work for the legacy
 * stream, the legacy stream's work for a blocking stream).  No lock is
 * taken: the device's busy_any and the legacy stream's known-done flag
 * are set before the enqueue call of any command they stand for returns,
 * so they say "nothing" only when every command issued before this call
 * needs no wait (enqueue.c). */
static inline int cls__ocl_waits_any(cls__bstream *s, int gather) {
  if (s->nwaits) return 1;
  if (!gather) return 0;
  if (s->role == CLS__ROLE_LEGACY)
    return atomic_load_explicit(&s->dev->busy_any, memory_order_acquire);
  return s->blocking && cls__ocl_legacy_pending(s->dev);
}
/* A batch with nothing to wait for and nothing set aside (list NULL, as
 * OpenCL wants an empty wait list): what cls__ocl_begin gives in the
 * common case. */
static inline void cls__ocl_batch_none(cls__ocl_batch *b) {
  b->list = NULL;
  b->n = b->npending = b->cap = 0;
  b->nstall_q = b->nfinished = b->nstall_ev = 0;
  b->what = b->cat = NULL;
  b->from = NULL;
  b->work = 0;
  b->barrier = 0;
}
/* cls__ocl_begin once s->lock is held and cls__ocl_waits_any(s, 1) said
 * the command may have something to wait for (enqueue.c). */
void cls__ocl_begin_held(cls__bstream *s, cls__ocl_batch *b);
/* cls__ocl_begin for the command path (launches, copies, fills), its
 * common case inline. */
static inline void cls__ocl_begin_cmd(cls__bstream *s, cls__ocl_batch *b) {
  cls__lock_take(&s->lock);
  if (CLS__LIKELY(!cls__ocl_waits_any(s, 1)))
    cls__ocl_batch_none(b);
  else
    cls__ocl_begin_held(s, b);
}
/* cls__ocl_begin without the legacy stream's implicit synchronization:
 * gathers only s's own clsStreamWaitEvent waits (enqueue.c). */
void cls__ocl_begin_waits(cls__bstream *s, cls__ocl_batch *b);
/* An empty batch (its list is b->small), nothing set aside. */
void cls__ocl_batch_init(cls__ocl_batch *b);
/* Whether the gathers set aside something b's command must wait for that
 * its list could not hold (cls__ocl_batch). */
static inline int cls__ocl_batch_stalled(const cls__ocl_batch *b) {
  return b->nstall_ev || b->nstall_q > b->nfinished;
}
/* Waits for what the gathers set aside (finishing the queues, waiting
 * for and releasing the events); call it with no lock held.  The queues
 * stay listed as finished (a later gather into b skips them) until
 * cls__ocl_batch_forget.  Returns the first error. */
clsError_t cls__ocl_batch_unstall(cls__ocl_batch *b);
/* Releases the queues b set aside. */
void cls__ocl_batch_forget(cls__ocl_batch *b);
/* Waits for every event of a wait-only batch (and what it set aside),
 * with no lock held, releasing them and b's list.  Returns the first
 * error. */
clsError_t cls__ocl_batch_wait(cls__ocl_batch *b);
/* Releases b's events and list without waiting for them (their waits
 * went elsewhere: module.c's watches); b must not be stalled. */
void cls__ocl_batch_release(cls__ocl_batch *b);
/* Adds ev (retained by the caller; b's reference now) to b. */
void cls__ocl_batch_push(cls__ocl_batch *b, cl_event ev);
/* Grows *arr (of *cap elements of `elem` bytes) to hold `need`; 0 when
 * out of host memory (*arr unchanged). */
int cls__ocl_grow(void **arr, unsigned *cap, unsigned need, size_t elem);
/* Adds to b (retained; b may be NULL, to look only) t's newest command
 * and its unconsumed waits that are not complete; returns their worst
 * status (CL_COMPLETE when there are none).  Under t->last_lock. */
cl_int cls__ocl_gather_stream(cls__bstream *t, cls__ocl_batch *b);
/* The same for the device's busy blocking streams and its blocking
 * orphans, dropping the complete ones from the busy list.  Takes
 * d->busy_lock and each stream's last_lock. */
cl_int cls__ocl_gather_blocking(cls__ocl_device *d, cls__ocl_batch *b);
/* Adds to b (retained) the pending work of every stream of d, live or
 * destroyed (devsync.c): each one's newest command and unconsumed waits,
 * and the orphans.  Takes device.streams_lock, each stream's last_lock
 * and device.busy_lock, one at a time. */
void cls__ocl_gather_device(cls__ocl_device *d, cls__ocl_batch *b);
/* Keeps ev (retained; the caller's reference moves) visible to legacy
 * work and device synchronization after its stream is gone.  Under
 * d->busy_lock; returns 0, keeping the caller's reference, when there is
 * no room (out of host memory). */
int cls__ocl_orphan_add(cls__ocl_device *d, cl_event ev, int blocking);
/* Names s's position if commands were enqueued after `last` without an
 * event: a barrier with an event stands for them.  Under s->last_lock. */
void cls__ocl_position(cls__bstream *s);
/* Adds to b (retained; b may be NULL, to look only) the waits of s that
 * no command has consumed and that are not complete; returns their worst
 * status (CL_COMPLETE when there are none) and clears s->has_waits when
 * none is pending.  Under s->last_lock. */
cl_int cls__ocl_waits_status(cls__bstream *s, cls__ocl_batch *b);

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
/* Completes user event `user`, retrying a transient failure (hostjob.c). */
void cls__ocl_complete_user(cl_event user);

/* ---- Kernel parameters read from the source (kernel_sig.c) ------------ */

/* One kernel parameter, as clGetKernelArgInfo describes it. */
typedef struct cls__kernel_param {
  cl_kernel_arg_address_qualifier aq;
  cl_kernel_arg_access_qualifier acq;
  char type[128]; /* type words, qualifiers dropped; "*" ends a pointer */
  char name[64];
} cls__kernel_param;
/* Reads the parameters of kernel `kernel` from the program source (after
 * the build options' -D/-U and the `predefined` macros, "NAME" or
 * "NAME=VALUE", NULL-terminated), into out[0..max).  Returns how many
 * there are, or -1 with `why` saying what could not be read. */
int cls__kernel_params(const char *source, const char *options,
                       const char *const *predefined, const char *kernel,
                       cls__kernel_param *out, int max, char *why, size_t nwhy);

/* ---- Timeline trace (trace.c) ----------------------------------------- */

/* Non-zero when CLSTREAM_TRACE names a file (set by cls__b_init). */
extern int cls__trace_on;
void cls__trace_init(void);
/* Names a stream's lane. */
void cls__trace_stream(cls__bstream *s);
/* Records a command enqueued on s (from cls__ocl_end). */
void cls__trace_command(cls__bstream *s, cl_event ev, const cls__ocl_batch *b);
/* Writes the trace file with every command completed so far. */
void cls__trace_write(void);

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

/* Blocks until ev completes; sleeps rather than spins when `sleep` is set.
 * clsErrorLaunchFailure if the command ended in error. */
clsError_t cls__ocl_wait(cl_event ev, int sleep);
/* clsErrorLaunchFailure, with a reason, for execution status st < 0. */
clsError_t cls__ocl_failed(cl_int st);

#endif /* CLSTREAM_OPENCL_OCL_H */
