/*
 * Private to the library: the front's shared helpers (errors, handles,
 * the current device, the allocation table).  Nothing here is exported.
 */
#ifndef CLSTREAM_INTERNAL_H
#define CLSTREAM_INTERNAL_H

#include "backend.h"
#include "clstream.h"
#include "lock.h"

#include <stdatomic.h>
#include <stdint.h>

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

/* ---- Errors (error.c) ------------------------------------------------ */

/* Records why the current call is failing, for CLSTREAM_LOG.  Cheap when
 * logging is off.  Returns `code` so that `return cls__reason(code, ...)`
 * reads naturally. */
clsError_t cls__reason(clsError_t code, const char *fmt, ...) CLS__PRINTF(2, 3);
/* The end of every public function: stores a failure as the thread's last
 * error (never clsErrorNotReady) and logs it under CLSTREAM_LOG=1. */
clsError_t cls__finish(const char *func, clsError_t code);
/* Whether CLSTREAM_LOG is on: -1 not read yet, 0 off, 1 on (error.c). */
extern atomic_int cls__log_state;
/* cls__finish with its common case inline: a success with logging off
 * (or not asked about yet) leaves nothing to store, log or clear. */
static inline clsError_t cls__finish_fast(const char *func, clsError_t code) {
  if (CLS__LIKELY(code == clsSuccess) &&
      atomic_load_explicit(&cls__log_state, memory_order_relaxed) <= 0)
    return code;
  return cls__finish(func, code);
}
#define CLS__RETURN(code) return cls__finish_fast(__func__, (code))

/* Thread-locals read by every call: the initial-exec model makes each
 * read one %fs-relative load instead of a __tls_get_addr call (the
 * library's few small ones fit glibc's static TLS surplus even when it is
 * dlopened). */
#if defined(__GNUC__)
#define CLS__TLS_FAST __attribute__((tls_model("initial-exec")))
#else
#define CLS__TLS_FAST
#endif

/* Non-zero while the calling thread runs a host function or callback. */
extern _Thread_local int cls__in_host_fn CLS__TLS_FAST;
#define CLS__NOT_IN_HOST_FN()                                                  \
  do {                                                                         \
    if (CLS__UNLIKELY(cls__in_host_fn))                                        \
      CLS__RETURN(cls__reason(clsErrorNotPermitted,                            \
                              "called from a host function or callback"));     \
  } while (0)

/* Whether `code` is one of clsError_t's codes (for the CUDA backend,
 * which passes those on unchanged). */
int cls__error_listed(int code);

/* Whether CLSTREAM_LOG is on (read once). */
int cls__log_enabled(void);

/* ---- Handles (handle.c) ---------------------------------------------- */

/* Handles are (generation, slot, kind) values, never pointers: a stale or
 * garbage handle is rejected without dereferencing anything. */
enum cls__kind {
  CLS__KIND_STREAM = 1,
  CLS__KIND_EVENT = 2,
  CLS__KIND_MODULE = 3,
  CLS__KIND_FUNCTION = 4
};
/* Registers obj; returns its handle, or 0 when the table is full. */
uintptr_t cls__handle_new(enum cls__kind kind, void *obj);
/* The slot table (handle.c owns it; here for cls__handle_get, which every
 * call makes): chunks of slots, never freed once allocated. */
#define CLS__CHUNK_BITS 12
#define CLS__CHUNK_SLOTS (1u << CLS__CHUNK_BITS)
#define CLS__MAX_CHUNKS 4096u /* 16 M live handles */
typedef struct cls__slot {
  _Atomic uintptr_t id; /* the live handle, or 0 when free */
  void *_Atomic obj;
  uint32_t gen;       /* generation of the next handle (under lock) */
  uint32_t next_free; /* free list link, slot index + 1 (under lock) */
} cls__slot;
extern cls__slot *_Atomic cls__chunks[CLS__MAX_CHUNKS];
/* The object behind a live handle of `kind`, or NULL. Lock-free. */
static inline void *cls__handle_get(enum cls__kind kind, uintptr_t h) {
  if (CLS__UNLIKELY((h & 0xf) != (uintptr_t)kind || (h >> 32) == 0))
    return NULL;
  uint32_t index = (uint32_t)((h >> 4) & 0x0fffffffu);
  if (CLS__UNLIKELY((index >> CLS__CHUNK_BITS) >= CLS__MAX_CHUNKS)) return NULL;
  cls__slot *chunk = atomic_load_explicit(
      &cls__chunks[index >> CLS__CHUNK_BITS], memory_order_acquire);
  if (CLS__UNLIKELY(!chunk)) return NULL;
  cls__slot *slot = &chunk[index & (CLS__CHUNK_SLOTS - 1)];
  if (atomic_load_explicit(&slot->id, memory_order_acquire) != h) return NULL;
  /* A destroy and a create on another thread between the two loads would
   * give the slot's next object, maybe of another kind: check that the
   * handle still owns the slot.  Every obj store is a release after the id
   * changed, so an obj written by a later owner, read here by an acquire
   * load (not a fence, which TSan does not model), makes the id load
   * after it see the change. */
  void *obj = atomic_load_explicit(&slot->obj, memory_order_acquire);
  if (atomic_load_explicit(&slot->id, memory_order_relaxed) != h) return NULL;
  return obj;
}
/* Retires a live handle and returns its object (exactly one caller wins),
 * or NULL if it was not live. */
void *cls__handle_retire(enum cls__kind kind, uintptr_t h);

/* ---- Library state (device.c) ---------------------------------------- */

/* Initializes the library once; returns the init result every time. */
clsError_t cls__init(void);
/* The calling thread's current device once it is open, else -1 (device.c
 * owns it). */
extern _Thread_local int cls__current CLS__TLS_FAST;
/* cls__current_device when the thread has no open current device yet. */
clsError_t cls__current_device_open(int *dev);
/* The calling thread's current device, opened; fails with a reason.  The
 * hot path is one thread-local read. */
static inline clsError_t cls__current_device(int *dev) {
  int d = cls__current;
  if (CLS__LIKELY(d >= 0)) {
    *dev = d;
    return clsSuccess;
  }
  return cls__current_device_open(dev);
}
/* Per-device limits the front validates launches against. */
typedef struct cls__limits {
  int max_threads_per_block;
  int max_threads_dim[3];
  int max_grid[3];
  size_t shared_mem_per_block;
} cls__limits;
const cls__limits *cls__device_limits(int dev);

/* ---- Front objects --------------------------------------------------- */

typedef struct cls__stream {
  int dev;
  unsigned flags;
  int priority;
  cls__bstream *b;
} cls__stream;

/* An event; its state and every transition of it live in event.c. */
typedef struct cls__event cls__event;
/* The live event behind handle h, or NULL.  Lock-free. */
cls__event *cls__event_lookup(clsEvent_t h);
/* clsStreamWaitEvent once the handles are resolved: later work in `s`
 * waits for e's newest record as of this call; no effect when e was
 * never recorded.  Never blocks. */
clsError_t cls__event_stream_wait(cls__event *e, cls__bstream *s);

/* The calling thread's last legacy stream and its device (-1: none yet),
 * kept by cls__stream_resolve_slow (stream.c): a device's legacy stream,
 * once created, lives as long as the library (backend.h). */
extern _Thread_local cls__bstream *cls__tl_legacy CLS__TLS_FAST;
extern _Thread_local int cls__tl_legacy_dev CLS__TLS_FAST;
/* cls__stream_resolve's slow cases (stream.c): the default streams but the
 * thread's cached legacy stream, and a handle that is not a live stream. */
clsError_t cls__stream_resolve_slow(clsStream_t h, int *dev, cls__bstream **b,
                                    unsigned *flags, int *priority);
/* Resolves a stream handle (NULL, clsStreamLegacy, clsStreamPerThread or a
 * created stream) to its device and backend stream.  `flags`/`priority`
 * may be NULL.  Fails with clsErrorInvalidResourceHandle (and a reason).
 * The legacy stream of the thread's current device, the common case of
 * launches and copies, costs two thread-local reads; a created stream one
 * slot-table read. */
static inline clsError_t cls__stream_resolve(clsStream_t h, int *dev,
                                             cls__bstream **b, unsigned *flags,
                                             int *priority) {
  if (h == NULL || h == clsStreamLegacy) {
    int d = cls__current;
    if (CLS__LIKELY(d >= 0 && d == cls__tl_legacy_dev) && !flags && !priority) {
      *dev = d;
      *b = cls__tl_legacy;
      return clsSuccess;
    }
  } else if (h != clsStreamPerThread) {
    /* A created stream: one slot-table read (a dead handle takes the
     * slow path, which words the error). */
    const cls__stream *s = cls__handle_get(CLS__KIND_STREAM, (uintptr_t)h);
    if (CLS__LIKELY(s != NULL)) {
      *dev = s->dev;
      *b = s->b;
      if (flags) *flags = s->flags;
      if (priority) *priority = s->priority;
      return clsSuccess;
    }
  }
  return cls__stream_resolve_slow(h, dev, b, flags, priority);
}

/* ---- The allocation table (memory.c, a rangetab.h table) -------------- */

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

/* Adds [p, p+size) of `kind` on `dev`.  clsErrorHostMemoryAlreadyRegistered
 * (with a reason) when the range overlaps an entry already there. */
clsError_t cls__mem_add(void *p, size_t size, int kind, int dev);
/* Removes the entry that starts exactly at p if its kind's bit is in
 * `kinds`; returns its kind (CLS__MEM_NONE if none) and stores its device
 * and size (either may be NULL). */
int cls__mem_remove(void *p, unsigned kinds, int *dev, size_t *size);
/* The kind of the entry that contains p (CLS__MEM_NONE if none); *base,
 * *size and *dev (each may be NULL) get the entry's.  A repeat of the
 * calling thread's last hit, with no removal since, takes no lock. */
int cls__mem_lookup(const void *p, void **base, size_t *size, int *dev);
/* The allocation table's generation: it changes with every removal, so
 * what a lookup found is still true while it reads the same.  One
 * atomic load, no lock. */
size_t cls__mem_gen(void);
/* Gives memory of `kind` (already out of the table, its device's work
 * done) back to the backend: the one place that knows which backend
 * function frees which kind. */
clsError_t cls__mem_release(int kind, int dev, void *p, size_t size);

/* ---- Kernels ---------------------------------------------------------- */

/* The prelude cl/clstream_kernel.h, embedded at build time. */
extern const char cls__prelude[];

#endif /* CLSTREAM_INTERNAL_H */
