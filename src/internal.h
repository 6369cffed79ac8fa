/*
 * Private to the front (the .c files of src/): what its files share and no
 * backend may use (the fast return path, handles, the current device, the
 * front's objects, changes to the allocation table).  What the backends may
 * use of the front is the seam's "front services" (backend_services.h,
 * through backend.h), included here.  Nothing here is exported.
 */
#ifndef CLSTREAM_INTERNAL_H
#define CLSTREAM_INTERNAL_H

#include "backend.h"
#include "clstream.h"
#include "error.h"

#include <stdatomic.h>
#include <stdint.h>

/* ---- Errors (error.h, error.c) ----------------------------------------
 * The return path every public function ends with (CLS__RETURN) and the
 * refusal inside host functions (CLS__NOT_IN_HOST_FN), in error.h, beside
 * the file that implements them. */

/* ---- Handles (handle.c) ---------------------------------------------- */

/* Handles are (generation, slot, kind) values, never pointers: a stale or
 * garbage handle is rejected without dereferencing anything. */
enum cls__kind {
  CLS__KIND_STREAM = 1,
  CLS__KIND_EVENT = 2,
  CLS__KIND_MODULE = 3,
  CLS__KIND_FUNCTION = 4,
  /* Graphs (graph.h). */
  CLS__KIND_GRAPH = 5,
  CLS__KIND_EXEC = 6,
  CLS__KIND_NODE = 7
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

/* ---- The current device and the streams -------------------------------
 * device.h (device.c): library initialization, the thread's current
 * device (with its inline fast path), per-device limits.
 * stream_resolve.h (stream_resolve.c): the front's stream and the inline
 * resolution of a stream handle.  Each is a header of its own, beside the
 * file that implements it, so that this header names nothing those files
 * define.  An event's
 * fields, its state and clsStreamWaitEvent are event.c's alone. */

/* ---- The allocation table (memtab.c, a rangetab.h table) -------------- */

/* The kinds, cls__mem_lookup and cls__mem_gen: backend.h's front
 * services. */

/* Adds [p, p+size) of `kind` on `dev`.  clsErrorHostMemoryAlreadyRegistered
 * (with a reason) when the range overlaps an entry already there. */
clsError_t cls__mem_add(void *p, size_t size, int kind, int dev);
/* Removes the entry that starts exactly at p if its kind's bit is in
 * `kinds`; returns its kind (CLS__MEM_NONE if none) and stores its device
 * and size (either may be NULL). */
int cls__mem_remove(void *p, unsigned kinds, int *dev, size_t *size);
/* Gives memory of `kind` (already out of the table, its device's work
 * done) back to the backend: the one place that knows which backend
 * function frees which kind (memory.c). */
clsError_t cls__mem_release(int kind, int dev, void *p, size_t size);
/* The mode (enum cls__copy_mode) of a set of memory of `kind`: clsMemsetAsync
 * (sync 0) returns at once; clsMemset (sync 1) of memory the host sees
 * (pinned, either kind, registered or managed) returns once the legacy
 * stream's earlier work and the set are done, of device memory at once
 * (CUDA 13, measured; memory.c, for memcpy2d.c's sets too). */
int cls__set_mode(int kind, int sync);
/* Bytes of device, pool and managed memory of `dev` in the table
 * (clsMemGetInfo, mempool.c).  Takes the table's read lock. */
size_t cls__mem_bytes_on(int dev);

/* ---- Module globals (kparams; symtab.c) --------------------------------
 * The globals clsModuleGetGlobal has handed out, which the symbol calls
 * accept: cls__symbol_add records p (size bytes on device dev, of module
 * `owner`) in the symbol list and the allocation table (once);
 * cls__symbol_drop takes every global of `owner` out of both; and
 * cls__symbol_size gives a symbol's size, or clsErrorInvalidSymbol (as
 * CUDA for an address that is no global). */
clsError_t cls__symbol_add(void *p, size_t size, const void *owner, int dev);
void cls__symbol_drop(const void *owner);
clsError_t cls__symbol_size(const void *sym, size_t *size);
/* Global `name` of module m on device dev (built there first if need
 * be), recorded with cls__symbol_add (module.c). */
clsError_t cls__module_global(clsModule_t m, int dev, const char *name,
                              void **p, size_t *n);

/* ---- Native handles (event.c, for native.c) ---------------------------- */

/* The live event h's device, backend part and newest record's token
 * (retained; NULL: never recorded or known complete), or
 * clsErrorInvalidResourceHandle with a reason. */
clsError_t cls__event_native(clsEvent_t h, int *dev, cls__bevent **b,
                             cls__btoken **tok);
/* A new event of the current device with validated-here flags, recorded
 * at the program's native event (cls__b_event_import). */
clsError_t cls__event_import(clsEvent_t *out, unsigned flags, void *native);
/* The program holds h's native event and may record it itself (CUDA):
 * h follows token t (one reference, handed over) from now on, and its
 * completion is never cached. */
void cls__event_follow(clsEvent_t h, cls__btoken *t);

/* ---- Kernels ---------------------------------------------------------- */

/* The prelude cl/clstream_kernel.h, embedded at build time. */
extern const char cls__prelude[];

/* What clsFuncSetAttribute set on a function (funcattr.c; kept with the
 * function in module.c).  *_set is 0 until the attribute is set. */
typedef struct cls__fattr {
  _Atomic int dyn_set, dyn_smem;
  _Atomic int carve_set, carveout;
} cls__fattr;
/* The function behind handle f on the calling thread's current device
 * (*dev), its module built there first if need be (blocks while
 * compiling), and its kept attributes: clsErrorInvalidDeviceFunction,
 * with a reason, for a handle that is not a live function (module.c). */
clsError_t cls__function_current(clsFunction_t f, int *dev, cls__bfunction **bf,
                                 cls__fattr **fa);

#endif /* CLSTREAM_INTERNAL_H */
