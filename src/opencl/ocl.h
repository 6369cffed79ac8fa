/*
 * Private to the OpenCL backend, layer 1 (objects and driver calls): the
 * backend's objects (platform, device, stream, position, token, batch),
 * which every layer reads, and the helpers of ocl.c, which call no other
 * file of the backend.  Every file includes it, through its own layer's
 * header: ocl.h, driver.h, memory.h, threads.h, position.h, batch.h and
 * enqueue.h, command.h, bottom to top (docs/design.md, "The OpenCL backend",
 * draws them).
 *
 * Locks: the backend's lock table (every mutex, the one file that owns
 * it and the state it guards, and what may be taken inside it), its lock
 * order and the few waits made under a lock are kept in one place,
 * docs/design.md ("Locks"); change it with the lock.  Where a comment says
 * a function runs under a lock, the function asserts it in debug builds
 * (CLS__ASSERT_HELD, CLS__ASSERT_MUTEX_HELD: src/lock.h).
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

#include "../backend.h"

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
  int command_buffer;     /* cl_khr_command_buffer (graphs) */
  /* For the rest of CUDA 13's cudaDeviceProp (identity.c): */
  int pci_bus, pci_dev, pci_domain; /* cl_khr_pci_bus_info or NVIDIA's */
  unsigned char uuid[16];           /* cl_khr_device_uuid, else zeros */
  unsigned char luid[8];            /* its LUID where valid, else zeros */
  unsigned node_mask;               /* its node mask where the LUID is valid */
  int global_cache;                 /* global memory is cached */
} cls__ocl_ident;

/* What the backend knows about a device's driver: decided once, by
 * cls__facts_read (facts.c, the one place for driver facts), before the
 * device is used, but for the last two, which cls__facts_open decides
 * when it is opened; read everywhere else, never changed. */
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
  int replay_command_buffers; /* graph replay records command buffers */
  int kc_guard;               /* a launch widening a kernel's grid waits for its
                                 narrower launches in flight (PoCL 4, 5; kcguard.c) */
  int warp_const;             /* modules are built with -DCLS__WARP_CONST=1:
                                 cls_warp_size() is 32, not read from the sub-group
                                 size (PoCL 4 to 6 with sub-groups; facts.c) */
  /* Decided when the device is opened (published by `opened`): */
  int no_timestamps; /* profiling timestamps are unusable: elapsed times
                        return clsErrorNotSupported */
  int host_clock;    /* the profiling clock is this host clock (a clockid_t
                        plus 1; 0: none found): a timed record on an idle
                        stream reads it and enqueues nothing */
  /* The kernel clock (decided at opening by a probe build, facts.c):
   * what cls_clock64() reads (clsDeviceProp's kernelClock: 0 none, 1 the
   * multiprocessor's cycle counter, 2 cl_khr_kernel_clock, 3 the CPU's
   * time-stamp counter), and whether modules are built with
   * -DCLS__CLOCK_PTX=1 (the compiler takes inline PTX: NVIDIA's). */
  int kernel_clock;
  int clock_ptx;
  /* Decided on first need by the argument-form probe (formprobe.c,
   * published by the device's forms_probed): a kernel object's argument
   * that once held an SVM pointer refuses a buffer (NVIDIA's driver), so
   * a launch passing one there runs the function's other kernel object
   * (launch.c, function.c). */
  int svm_args_stick;
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

  /* Set once by cls__b_device_open (open.c). */
  pthread_mutex_t open_lock;
  _Atomic int opened; /* 1 ok, -1 failed */
  /* 1 once the argument-form probe has decided facts.svm_args_stick
   * (formprobe.c, its one writer). */
  _Atomic int forms_probed;
  clsError_t open_err;
  cl_context ctx;
  /* What the start-up timestamp check found (open.c measures, facts.c's
   * cls__facts_open decides):
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
  /* Native handles (docs/interop.md): the queue was handed out, so the
   * program's own commands may follow ev at any time.  Set once, by
   * cls__pos_expose; done then stays 0. */
  _Atomic int foreign;
} cls__ocl_pos;

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

/* A record's token (backend.h): a position that never moves, shared by
 * reference count between the front's event, stream waits and the
 * backend's own users (pool.c, copy.c).  Made by cls__ocl_token_new
 * (position.c), freed when the last reference goes. */
struct cls__btoken {
  cls__ocl_pos pos; /* pos.unnamed is always 0 */
  cl_ulong stamp;   /* with pos.ev NULL: a timed record complete at once,
                       at this host time (facts.host_clock) */
  /* On a device whose profiling timestamps cannot time work
   * (facts.no_timestamps), a timed record is host-stamped (event.c): the
   * CLOCK_MONOTONIC nanoseconds at which a library thread saw the
   * recorded work complete, 0 until then. */
  int host_stamped;
  _Atomic cl_ulong hstamp;
  cls__ocl_device *dev;
  _Atomic int refs;
};

/* How many queues and events a batch can set aside to wait for once its
 * locks are dropped (cls__ocl_batch): beyond that, the last resort is to
 * wait with the lock held (the lock table's exceptions). */
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

/* ---- Codes, status, queues (ocl.c) ------------------------------------ */

/* The one map from OpenCL error codes to clsError_t. */
clsError_t cls__ocl_code(cl_int err);

/* cls__ocl_code, recording `what` as the reason. */
clsError_t cls__ocl_error(cl_int err, const char *what);

/* clsErrorLaunchFailure, with a reason, for execution status st < 0. */
clsError_t cls__ocl_failed(cl_int st);

/* Execution status of ev: CL_COMPLETE, a negative error, or "not yet"
 * (> 0), which is also the answer when the query itself fails: an event
 * whose state is unknown is waited for, never dropped.  Never blocks. */
cl_int cls__ocl_status(cl_event ev);

/* A command queue on d: in order, with profiling when `profiling` is set
 * and at high priority when `high` is set and d has priority hints;
 * through clCreateCommandQueue on OpenCL 1.x.  *what names the call. */
cl_command_queue cls__ocl_queue(cls__ocl_device *d, int profiling, int high,
                                cl_int *err, const char **what);

/* The host clock's reading now, on d's profiling clock (d->facts.host_clock
 * must be set; open.c decides it). */
cl_ulong cls__ocl_host_stamp(const cls__ocl_device *d);

/* Grows *arr (of *cap elements of `elem` bytes) to hold `need`; 0 when
 * out of host memory (*arr unchanged). */
int cls__ocl_grow(void **arr, unsigned *cap, unsigned need, size_t elem);

#endif /* CLSTREAM_OPENCL_OCL_H */
