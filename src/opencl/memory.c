/* OpenCL backend: device memory, and the one place that tells which
 * driver command copies or fills it.
 *
 * Device memory is coarse-grained SVM where the device has it, and
 * otherwise (or with CLSTREAM_MEMORY=buffers, facts.c) a cl_mem buffer
 * behind an address range reserved here with mmap(PROT_NONE) of the same
 * size: clsMalloc still returns a pointer, pointer arithmetic works, a host
 * dereference faults (as on CUDA), and the address never collides with
 * host memory, so clsMemcpyDefault tells the sides apart.  The buffer
 * table below maps any address inside a reservation to (buffer, offset).
 * Copies and fills take any offset; a kernel argument inside a buffer
 * allocation becomes the buffer itself or a sub-buffer (launch.c).
 * Commands in a stream's order are copy.c's; pinned host memory is
 * hostmem.c's.  Owns the buffer table's lock (rangetab.h). */
#include "memory.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* ---- The buffer table ------------------------------------------------ */

/* Sub-buffers made for kernel arguments inside an allocation, kept until
 * it is freed (at most CLS__MAX_SUBS; the oldest goes first: commands
 * already enqueued hold their own references). */
#define CLS__MAX_SUBS 32
typedef struct cls__sub {
  size_t off;
  cl_mem mem;
} cls__sub;

typedef struct cls__bufalloc {
  cls__range r; /* r.size: bytes asked for (the buffer's size) */
  size_t span;  /* bytes reserved (size rounded up to pages) */
  cl_mem mem;
  cls__sub *subs; /* CLS__MAX_SUBS entries once one is made */
  unsigned nsubs, next_sub;
  /* A host buffer (hostmem.c): the buffer's memory is host memory at
   * r.base, which copies treat as host memory; only kernel arguments
   * reach it through the buffer.  span is 0: nothing is reserved. */
  int host;
  /* A host buffer's launches in flight on any thread (those between
   * cls__ocl_host_args_unmap and _remap) and the map that last gave it
   * back to the host (NULL: the first one, done). */
  unsigned users;
  cl_event remap;
} cls__bufalloc;

static cls__rangetab cls__bufs = CLS__RANGETAB_INIT(cls__bufalloc);
/* The table's entries that are not host buffers: copies on SVM devices
 * ask the table nothing while it is 0. */
static atomic_size_t cls__ndevbufs;

int cls__ocl_buffer_at(const void *p, cl_mem *mem, size_t *off, size_t *avail) {
  /* No buffer allocation at all (SVM devices): one atomic load. */
  if (CLS__LIKELY(atomic_load_explicit(&cls__ndevbufs, memory_order_acquire) ==
                  0))
    return 0;
  cls__bufalloc a;
  if (!cls__rangetab_lookup(&cls__bufs, (uintptr_t)p, &a) || a.host) return 0;
  *mem = a.mem;
  *off = (uintptr_t)p - a.r.base;
  if (avail) *avail = a.r.size - *off;
  return 1;
}

static size_t cls__page(void) {
  static size_t page;
  if (!page) {
    long v = sysconf(_SC_PAGESIZE);
    page = v > 0 ? (size_t)v : 4096;
  }
  return page;
}

/* A buffer of `size` bytes behind a fresh reservation. */
static clsError_t cls__buf_alloc(cls__ocl_device *d, size_t size, void **out) {
  size_t page = cls__page();
  if (size > SIZE_MAX - page)
    return cls__reason(clsErrorMemoryAllocation,
                       "%zu bytes of device memory cannot be reserved", size);
  /* Larger than the driver's stated limit is an error (CL_INVALID_BUFFER_SIZE)
   * the driver need not be asked for: Oclgrind's API check reports it. */
  if (d->ident.max_alloc && size > d->ident.max_alloc)
    return cls__reason(clsErrorMemoryAllocation,
                       "%zu bytes exceed device %d's largest allocation "
                       "(CL_DEVICE_MAX_MEM_ALLOC_SIZE, %llu bytes)",
                       size, d->index, (unsigned long long)d->ident.max_alloc);
  size_t span = (size + page - 1) / page * page;
  cl_int err;
  cl_mem mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, size, NULL, &err);
  if (!mem || err != CL_SUCCESS)
    return cls__reason(clsErrorMemoryAllocation,
                       "clCreateBuffer of %zu bytes failed on device %d "
                       "(OpenCL error %d)",
                       size, d->index, (int)err);
  void *p = mmap(NULL, span, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    clReleaseMemObject(mem);
    return cls__reason(clsErrorMemoryAllocation,
                       "reserving %zu bytes of addresses failed", span);
  }
  cls__bufalloc a = {{(uintptr_t)p, size}, span, mem, NULL, 0, 0, 0, 0, NULL};
  /* Fresh addresses overlap no other reservation: only memory can fail. */
  if (cls__rangetab_insert(&cls__bufs, &a, NULL) != CLS__RANGETAB_OK) {
    munmap(p, span);
    clReleaseMemObject(mem);
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  }
  atomic_fetch_add_explicit(&cls__ndevbufs, 1, memory_order_release);
  *out = p;
  return clsSuccess;
}

/* Whether the entry is a host buffer as *(int *)want says (1 or 0). */
static int cls__host_is(const void *entry, void *want) {
  return ((const cls__bufalloc *)entry)->host == *(int *)want;
}

/* Removes the entry starting at p if it is a host buffer as `host` says
 * and releases its sub-buffers; *mem gets its buffer (still held). */
static int cls__entry_remove(void *p, int host, cl_mem *mem, size_t *span) {
  cls__bufalloc a;
  if (!cls__rangetab_remove(&cls__bufs, (uintptr_t)p, cls__host_is, &host, &a))
    return 0;
  if (!host) atomic_fetch_sub_explicit(&cls__ndevbufs, 1, memory_order_release);
  /* Commands still using the buffer keep it alive (OpenCL defers the
   * deletion); the addresses are free for reuse at once. */
  for (unsigned i = 0; i < a.nsubs; ++i) clReleaseMemObject(a.subs[i].mem);
  free(a.subs);
  if (a.remap) clReleaseEvent(a.remap);
  *mem = a.mem;
  *span = a.span;
  return 1;
}

/* Frees the buffer allocation starting at p; 0 if there is none. */
static int cls__buf_free(void *p) {
  cl_mem mem;
  size_t span;
  if (!cls__entry_remove(p, 0, &mem, &span)) return 0;
  clReleaseMemObject(mem);
  munmap(p, span);
  return 1;
}

clsError_t cls__ocl_hostbuf_add(void *p, size_t size, cl_mem mem) {
  cls__bufalloc a = {{(uintptr_t)p, size}, 0, mem, NULL, 0, 0, 1, 0, NULL};
  switch (cls__rangetab_insert(&cls__bufs, &a, NULL)) {
  case CLS__RANGETAB_OK:
    return clsSuccess;
  case CLS__RANGETAB_OVERLAP: /* the front's table rules this out */
    return cls__reason(clsErrorInvalidValue,
                       "[%p, +%zu) overlaps memory a kernel already reaches", p,
                       size);
  default:
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  }
}

int cls__ocl_hostbuf_remove(void *p, cl_mem *mem) {
  size_t span;
  return cls__entry_remove(p, 1, mem, &span);
}

int cls__ocl_hostbuf_at(const void *p) {
  if (CLS__LIKELY(cls__rangetab_count(&cls__bufs) == 0)) return 0;
  cls__bufalloc a;
  return cls__rangetab_lookup(&cls__bufs, (uintptr_t)p, &a) && a.host;
}

/* ---- Host buffers in launches ----------------------------------------
 * A kernel must not use a buffer that is mapped (OpenCL leaves it
 * undefined; Oclgrind reports it, and a driver whose map is a copy would
 * lose the kernel's writes), so a launch passing host buffers gives them
 * to the device in its stream: unmap before the kernel, map again after
 * it, both in the stream's in-order queue.  The map is the host's once
 * the stream's work is done, which is CUDA's synchronization point.  The
 * host buffers a launch passes are collected while its arguments are set
 * (cls__arg_buffer_at, under the function's lock) in a thread-local list
 * that launch.c hands to cls__ocl_host_args_unmap and _remap. */
#define CLS__MAX_HOST_ARGS 16
static _Thread_local struct {
  unsigned n;
  int unmapped[CLS__MAX_HOST_ARGS];
  uintptr_t base[CLS__MAX_HOST_ARGS];
} cls__hargs;

static void cls__harg_note(uintptr_t base) {
  for (unsigned k = 0; k < cls__hargs.n; ++k)
    if (cls__hargs.base[k] == base) return;
  if (cls__hargs.n == CLS__MAX_HOST_ARGS) return; /* stays mapped */
  cls__hargs.unmapped[cls__hargs.n] = 0;
  cls__hargs.base[cls__hargs.n++] = base;
}

cl_int cls__ocl_host_args_unmap(cl_command_queue q, const char **what) {
  cl_int err = CL_SUCCESS;
  for (unsigned k = 0; k < cls__hargs.n && err == CL_SUCCESS; ++k) {
    cls__rangetab_wrlock(&cls__bufs);
    cls__bufalloc *a = cls__rangetab_find(&cls__bufs, cls__hargs.base[k]);
    if (a && a->host) {
      /* The first launch in flight takes it from the host, after the map
       * that last gave it back (which may be in another stream). */
      if (a->users == 0)
        err = clEnqueueUnmapMemObject(q, a->mem, (void *)a->r.base,
                                      a->remap ? 1 : 0,
                                      a->remap ? &a->remap : NULL, NULL);
      if (err == CL_SUCCESS) {
        a->users++;
        cls__hargs.unmapped[k] = 1;
      } else if (err == CL_INVALID_VALUE) {
        /* The driver holds the buffer unmapped already (rusticl refuses
         * the unmap of a pointer its last map gave back, at times): the
         * kernel may use it as it is, and nothing is to be given back. */
        err = CL_SUCCESS;
      }
    }
    cls__rangetab_unlock(&cls__bufs);
  }
  if (err != CL_SUCCESS) *what = "clEnqueueUnmapMemObject (host memory)";
  return err;
}

void cls__ocl_host_args_remap(cl_command_queue q) {
  for (unsigned k = 0; k < cls__hargs.n; ++k) {
    if (!cls__hargs.unmapped[k]) continue;
    cls__rangetab_wrlock(&cls__bufs);
    cls__bufalloc *a = cls__rangetab_find(&cls__bufs, cls__hargs.base[k]);
    if (a && a->host && a->users && --a->users == 0) {
      /* The last one gives it back; a buffer whose memory is host memory
       * maps at the same address again (USE_HOST_PTR: OpenCL promises
       * it). */
      cl_event ev = NULL;
      cl_int err = CL_SUCCESS;
      /* Out of resources is transient: retried, since a buffer left
       * unmapped would not be the host's again. */
      for (int t = 0; t < 100; ++t) {
        (void)clEnqueueMapBuffer(q, a->mem, CL_FALSE,
                                 CL_MAP_READ | CL_MAP_WRITE, 0, a->r.size, 0,
                                 NULL, &ev, &err);
        if (err != CL_OUT_OF_RESOURCES && err != CL_OUT_OF_HOST_MEMORY) break;
        struct timespec ms = {0, 1000000L};
        nanosleep(&ms, NULL);
      }
      if (a->remap) clReleaseEvent(a->remap);
      a->remap = err == CL_SUCCESS ? ev : NULL;
    }
    cls__rangetab_unlock(&cls__bufs);
  }
  cls__hargs.n = 0;
}

/* Like cls__ocl_buffer_at, host buffers included: what kernels reach. */
static int cls__arg_buffer_at(const void *p, cl_mem *mem, size_t *off) {
  if (CLS__LIKELY(cls__rangetab_count(&cls__bufs) == 0)) return 0;
  cls__bufalloc a;
  if (!cls__rangetab_lookup(&cls__bufs, (uintptr_t)p, &a)) return 0;
  if (a.host) cls__harg_note(a.r.base);
  *mem = a.mem;
  *off = (uintptr_t)p - a.r.base;
  return 1;
}

clsError_t cls__ocl_alloc(cls__ocl_device *d, size_t size, void **out) {
  if (d->facts.buffers) return cls__buf_alloc(d, size, out);
  void *p = clSVMAlloc(d->ctx, CL_MEM_READ_WRITE, size, 0);
  if (!p)
    return cls__reason(clsErrorMemoryAllocation,
                       "clSVMAlloc of %zu bytes failed on device %d", size,
                       d->index);
  *out = p;
  return clsSuccess;
}

void cls__ocl_free(cls__ocl_device *d, void *p) {
  if (!cls__buf_free(p) && !d->facts.buffers) clSVMFree(d->ctx, p);
}

clsError_t cls__b_malloc(int dev, size_t size, void **out) {
  return cls__ocl_alloc(cls__ocl_device_get(dev), size, out);
}

clsError_t cls__b_free(int dev, void *p) {
  cls__ocl_free(cls__ocl_device_get(dev), p);
  return clsSuccess;
}

/* ---- Kernel arguments ------------------------------------------------- */

/* The sub-buffer of the allocation holding p from offset off to its end,
 * made on first use.  NULL with *err set when it cannot be made. */
static cl_mem cls__sub_at(const void *p, cl_int *err) {
  cl_mem sub = NULL;
  *err = CL_INVALID_ARG_VALUE;
  cls__rangetab_wrlock(&cls__bufs);
  cls__bufalloc *a = cls__rangetab_find(&cls__bufs, (uintptr_t)p);
  if (a) {
    size_t off = (uintptr_t)p - a->r.base;
    for (unsigned k = 0; k < a->nsubs && !sub; ++k)
      if (a->subs[k].off == off) sub = a->subs[k].mem;
    if (!sub && !a->subs) a->subs = calloc(CLS__MAX_SUBS, sizeof *a->subs);
    if (!sub && a->subs) {
      cl_buffer_region r = {off, a->r.size - off};
      sub = clCreateSubBuffer(a->mem, CL_MEM_READ_WRITE,
                              CL_BUFFER_CREATE_TYPE_REGION, &r, err);
      if (sub && *err == CL_SUCCESS) {
        unsigned k = a->nsubs < CLS__MAX_SUBS ? a->nsubs++ : a->next_sub;
        if (a->nsubs == CLS__MAX_SUBS && k == a->next_sub) {
          if (a->subs[k].mem) clReleaseMemObject(a->subs[k].mem);
          a->next_sub = (a->next_sub + 1) % CLS__MAX_SUBS;
        }
        a->subs[k] = (cls__sub){off, sub};
      } else {
        sub = NULL;
      }
    } else if (!sub) {
      *err = CL_OUT_OF_HOST_MEMORY;
    }
    if (sub) *err = CL_SUCCESS;
  }
  cls__rangetab_unlock(&cls__bufs);
  return sub;
}

cl_int cls__ocl_set_pointer_arg(cls__ocl_device *d, cl_kernel k, cl_uint i,
                                void *ptr, const char **what, int *svm) {
  *svm = 0;
  /* NULL as a buffer argument (launch.c passes NULL itself, in the form
   * the parameter's last pointer took). */
  if (!ptr) {
    *what = "clSetKernelArg";
    return clSetKernelArg(k, i, sizeof(cl_mem), NULL);
  }
  cl_mem mem;
  size_t off;
  if (!cls__arg_buffer_at(ptr, &mem, &off)) {
    /* Only memory kernels can reach goes to the driver: a host pointer
     * or pinned (clsMallocHost) memory would run, and its writes would be
     * lost (CUDA faults instead). */
    int owner = -1;
    int kind = cls__mem_lookup(ptr, NULL, NULL, &owner);
    int reach = kind == CLS__MEM_DEVICE || kind == CLS__MEM_POOL ||
                kind == CLS__MEM_MANAGED || kind == CLS__MEM_HOST_MAPPED ||
                (kind == CLS__MEM_REGISTERED && d->ident.system_svm);
    if (!reach) {
      *what = kind == CLS__MEM_HOST
                  ? "passing clsMallocHost memory to a kernel (page-locked "
                    "memory is not kernel memory on OpenCL; use "
                    "clsHostAlloc with clsHostAllocMapped and "
                    "clsHostGetDevicePointer)"
                  : "passing a pointer that is not device memory (nor mapped "
                    "host memory) to a kernel";
      return CL_INVALID_ARG_VALUE;
    }
    if (kind != CLS__MEM_HOST_MAPPED && kind != CLS__MEM_REGISTERED &&
        owner >= 0 && !cls__b_shares_memory(owner, d->index)) {
      *what = "passing memory of a device of another OpenCL platform to a "
              "kernel";
      return CL_INVALID_ARG_VALUE;
    }
    if (d->facts.buffers && !d->svm) {
      *what = "passing a pointer that is not clsMalloc memory to a kernel "
              "on a device without SVM";
      return CL_INVALID_ARG_VALUE;
    }
    *what = "clSetKernelArgSVMPointer";
    *svm = 1;
    return clSetKernelArgSVMPointer(k, i, ptr);
  }
  *what = "clSetKernelArg";
  if (off == 0) return clSetKernelArg(k, i, sizeof mem, &mem);
  if (off % d->facts.base_align != 0) {
    *what = "passing a pointer inside a clsMalloc allocation to a kernel "
            "on a buffer-memory device: its offset must be a multiple of "
            "the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN (clstream-info "
            "shows it)";
    return CL_INVALID_ARG_VALUE;
  }
  cl_int err;
  cl_mem sub = cls__sub_at(ptr, &err);
  if (!sub) {
    *what = "clCreateSubBuffer";
    return err;
  }
  return clSetKernelArg(k, i, sizeof sub, &sub);
}

/* ---- Commands on either kind of memory -------------------------------- */

cl_int cls__ocl_enqueue_copy(cls__ocl_device *d, cl_command_queue q, void *dst,
                             const void *src, size_t n, cl_uint nw,
                             const cl_event *wl, cl_event *ev,
                             const char **what) {
  cl_mem dm, sm;
  size_t doff = 0, soff = 0;
  int db = cls__ocl_buffer_at(dst, &dm, &doff, NULL);
  int sb = cls__ocl_buffer_at(src, &sm, &soff, NULL);
  if (db && sb) {
    *what = "clEnqueueCopyBuffer";
    return clEnqueueCopyBuffer(q, sm, dm, soff, doff, n, nw, wl, ev);
  }
  if (db) {
    *what = "clEnqueueWriteBuffer";
    return clEnqueueWriteBuffer(q, dm, CL_FALSE, doff, n, src, nw, wl, ev);
  }
  if (sb) {
    *what = "clEnqueueReadBuffer";
    return clEnqueueReadBuffer(q, sm, CL_FALSE, soff, n, dst, nw, wl, ev);
  }
  *what = "clEnqueueSVMMemcpy";
  if (d->facts.buffers) return CL_INVALID_OPERATION; /* no SVM call here */
  return clEnqueueSVMMemcpy(q, CL_FALSE, dst, src, n, nw, wl, ev);
}

cl_int cls__ocl_enqueue_fill(cls__ocl_device *d, cl_command_queue q, void *dst,
                             unsigned char v, size_t n, cl_uint nw,
                             const cl_event *wl, cl_event *ev,
                             const char **what) {
  cl_mem m;
  size_t off = 0;
  if (cls__ocl_buffer_at(dst, &m, &off, NULL)) {
    *what = "clEnqueueFillBuffer";
    return clEnqueueFillBuffer(q, m, &v, 1, off, n, nw, wl, ev);
  }
  *what = "clEnqueueSVMMemFill";
  if (d->facts.buffers) return CL_INVALID_OPERATION;
  return clEnqueueSVMMemFill(q, dst, &v, 1, n, nw, wl, ev);
}
