/*
 * Private to the library: the front's shared helpers (errors, handles,
 * the current device, the allocation table).  Nothing here is exported.
 */
#ifndef CLSTREAM_INTERNAL_H
#define CLSTREAM_INTERNAL_H

#include "backend.h"
#include "clstream.h"

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
#define CLS__RETURN(code) return cls__finish(__func__, (code))

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
/* The object behind a live handle of `kind`, or NULL. Lock-free. */
void *cls__handle_get(enum cls__kind kind, uintptr_t h);
/* Retires a live handle and returns its object (exactly one caller wins),
 * or NULL if it was not live. */
void *cls__handle_retire(enum cls__kind kind, uintptr_t h);

/* ---- Library state (device.c) ---------------------------------------- */

/* Initializes the library once; returns the init result every time. */
clsError_t cls__init(void);
/* The calling thread's current device, opened; fails with a reason. */
clsError_t cls__current_device(int *dev);
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

/* Resolves a stream handle (NULL, clsStreamLegacy, clsStreamPerThread or a
 * created stream) to its device and backend stream.  `flags`/`priority`
 * may be NULL.  Fails with clsErrorInvalidResourceHandle (and a reason). */
clsError_t cls__stream_resolve(clsStream_t h, int *dev, cls__bstream **b,
                               unsigned *flags, int *priority);

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
