/*
 * The seam (backend.h), its second half: the front services, what a
 * backend may use of the front.  Each section names the front file that
 * implements it; none of them calls into a backend, so no dependency runs
 * in a circle across the seam.  Included by backend.h, and by nothing
 * else.
 */
#ifndef CLSTREAM_BACKEND_SERVICES_H
#define CLSTREAM_BACKEND_SERVICES_H

#include "clstream.h"
#include "lock.h"
#include "rangetab.h"

#include <stddef.h>

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
    "keeps coarse-grained SVM where the device has it; coarse is svm with "    \
    "the device's fine-grained SVM left unused",                               \
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

#endif /* CLSTREAM_BACKEND_SERVICES_H */
