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

#include "hostview.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
  int adopted; /* the program's buffer (clsOpenCLMemRegister) */
  /* A host buffer (hostmem.c): the buffer's memory is host memory at
   * r.base, which copies treat as host memory; only kernel arguments
   * reach it through the buffer (hostargs.c hands it to the device and
   * back around each launch).  span is 0: nothing is reserved. */
  int host;
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

static clsError_t cls__buf_place(cl_mem mem, size_t size, int adopted,
                                 void **out);

static void cls__buf_drop(cls__bufalloc *e);

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
  cl_int err;
  cl_mem mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, size, NULL, &err);
  if (!mem || err != CL_SUCCESS)
    return cls__reason(clsErrorMemoryAllocation,
                       "clCreateBuffer of %zu bytes failed on device %d "
                       "(OpenCL error %d)",
                       size, d->index, (int)err);
  return cls__buf_place(mem, size, 0, out);
}

/* Puts buffer `mem` (of size bytes; its reference moves here, released
 * on failure unless `adopted`) behind a fresh reservation. */
static clsError_t cls__buf_place(cl_mem mem, size_t size, int adopted,
                                 void **out) {
  size_t page = cls__page();
  size_t span = (size + page - 1) / page * page;
  void *p = mmap(NULL, span, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    if (!adopted) clReleaseMemObject(mem);
    return cls__reason(clsErrorMemoryAllocation,
                       "reserving %zu bytes of addresses failed", span);
  }
  cls__bufalloc a = {{(uintptr_t)p, size}, span, mem, NULL, 0, 0, adopted, 0};
  /* Fresh addresses overlap no other reservation: only memory can fail. */
  if (cls__rangetab_insert(&cls__bufs, &a, NULL) != CLS__RANGETAB_OK) {
    munmap(p, span);
    if (!adopted) clReleaseMemObject(mem);
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  }
  atomic_fetch_add_explicit(&cls__ndevbufs, 1, memory_order_release);
  *out = p;
  return clsSuccess;
}

/* Whether the entry is a host buffer (arg NULL) or not (arg non-NULL:
 * then also the program's buffer only if *(int *)arg says so). */
static int cls__take(const void *entry, void *arg) {
  const cls__bufalloc *a = entry;
  if (!arg) return a->host;
  return !a->host && (*(int *)arg == 0 || a->adopted);
}

/* Frees the buffer allocation starting at p; 0 if there is none. */
static int cls__buf_free(void *p) {
  cls__bufalloc a;
  int any = 0;
  if (!cls__rangetab_remove(&cls__bufs, (uintptr_t)p, cls__take, &any, &a))
    return 0;
  cls__buf_drop(&a);
  return 1;
}

/* Lets go of a removed entry: its sub-buffers, its reference to the
 * buffer (the program's own for an adopted one; a host buffer's stays the
 * caller's) and its addresses. */
static void cls__buf_drop(cls__bufalloc *e) {
  cls__bufalloc a = *e;
  /* Commands still using the buffer keep it alive (OpenCL defers the
   * deletion); the addresses are free for reuse at once. */
  for (unsigned i = 0; i < a.nsubs; ++i) clReleaseMemObject(a.subs[i].mem);
  free(a.subs);
  if (a.host) {
    cls__ocl_hargs_forget((void *)a.r.base);
    return;
  }
  atomic_fetch_sub_explicit(&cls__ndevbufs, 1, memory_order_release);
  clReleaseMemObject(a.mem);
  munmap((void *)a.r.base, a.span);
}

clsError_t cls__ocl_hostbuf_add(void *p, size_t size, cl_mem mem) {
  cls__bufalloc a = {{(uintptr_t)p, size}, 0, mem, NULL, 0, 0, 0, 1};
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
  cls__bufalloc a;
  if (!cls__rangetab_remove(&cls__bufs, (uintptr_t)p, cls__take, NULL, &a))
    return 0;
  cls__buf_drop(&a);
  *mem = a.mem;
  return 1;
}

int cls__ocl_hostbuf_at(const void *p) {
  if (CLS__LIKELY(cls__rangetab_count(&cls__bufs) == 0)) return 0;
  cls__bufalloc a;
  return cls__rangetab_lookup(&cls__bufs, (uintptr_t)p, &a) && a.host;
}

int cls__ocl_arg_buffer_at(cls__ocl_device *d, const void *p, cl_mem *mem,
                           size_t *off) {
  if (CLS__UNLIKELY(cls__ocl_hostview_at(d, p, mem, off))) return 1;
  if (CLS__LIKELY(cls__rangetab_count(&cls__bufs) == 0)) return 0;
  cls__bufalloc a;
  if (!cls__rangetab_lookup(&cls__bufs, (uintptr_t)p, &a)) return 0;
  if (a.host) cls__ocl_harg_note(a.mem, (void *)a.r.base, a.r.size);
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
  cls__ocl_view_drop(p);
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

/* What the memory holding p is, for messages. */
static const char *cls__kind_name(const void *p) {
  static const char *const name[] = {
      [CLS__MEM_DEVICE] = "device memory (clsMalloc)",
      [CLS__MEM_POOL] = "pool memory (clsMallocAsync)",
      [CLS__MEM_HOST] = "pinned memory (clsMallocHost)",
      [CLS__MEM_HOST_MAPPED] = "mapped pinned memory (clsHostAlloc)",
      [CLS__MEM_REGISTERED] = "registered memory (clsHostRegister)",
      [CLS__MEM_MANAGED] = "managed memory (clsMallocManaged)"};
  int k = cls__mem_lookup(p, NULL, NULL, NULL);
  return k > 0 && (size_t)k < sizeof name / sizeof name[0] && name[k]
             ? name[k]
             : "memory a kernel reaches through a buffer";
}

/* The thread's last refusal message (the launch reports it at once). */
static _Thread_local char cls__refusal[640];

const char *cls__ocl_offset_refusal(const cls__ocl_device *d, const void *ptr,
                                    const char *why) {
  void *base = NULL;
  (void)cls__mem_lookup(ptr, &base, NULL, NULL);
  size_t off = base ? (size_t)((uintptr_t)ptr - (uintptr_t)base) : 0;
  snprintf(cls__refusal, sizeof cls__refusal,
           "passing %s at byte offset %zu to a kernel: the offset is not a "
           "multiple of the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN (%zu "
           "bytes), and %s",
           cls__kind_name(ptr), off, d->facts.base_align, why);
  return cls__refusal;
}

/* Pointer argument i at ptr inside buffer-backed memory, at an offset no
 * sub-buffer takes (not a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN). */
static CLS__NOINLINE cl_int cls__unaligned(cls__ocl_device *d, cl_kernel k,
                                           cl_uint i, void *ptr,
                                           const char **what, int *svm) {
  int host = cls__ocl_hostbuf_at(ptr);
  if (host && d->ident.system_svm && d->svm) {
    /* An SVM device that reaches any host memory: the address itself. */
    *what = "clSetKernelArgSVMPointer";
    *svm = 1;
    return clSetKernelArgSVMPointer(k, i, ptr);
  }
  if (host && !d->facts.buffers) {
    /* A host buffer on a device whose modules are built as written (SVM
     * memory): the launch passes it as the buffer and an offset, through
     * the function's offset variant (launch.c). */
    *what = "a host buffer at an unaligned offset";
    return CLS__OCL_NEEDS_OFFSET;
  }
  /* The buffer path, for a pointer parameter the rewrite gave no offset
   * argument (kernel_rw.c). */
  *what = cls__ocl_offset_refusal(
      d, ptr,
      "the parameter has no offset argument (the kernel has more pointer "
      "parameters than the rewrite gives offset arguments)");
  return CL_INVALID_ARG_VALUE;
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
  if (!cls__ocl_arg_buffer_at(d, ptr, &mem, &off)) {
    /* Only memory kernels can reach goes to the driver: another host
     * pointer would run, and its writes would be lost (CUDA faults). */
    int owner = -1;
    int kind = cls__mem_lookup(ptr, NULL, NULL, &owner);
    /* Host memory outside the buffer table is fine-grained SVM here
     * (hostmem.c). */
    int reach = kind == CLS__MEM_DEVICE || kind == CLS__MEM_POOL ||
                kind == CLS__MEM_MANAGED || kind == CLS__MEM_HOST_MAPPED ||
                kind == CLS__MEM_HOST ||
                (kind == CLS__MEM_REGISTERED && d->ident.system_svm);
    if (!reach) {
      *what = kind == CLS__MEM_REGISTERED
                  ? "passing registered memory (clsHostRegister) that no "
                    "buffer covers to a kernel (see the reason "
                    "clsHostRegister logged)"
                  : "passing a pointer that is not device memory (nor "
                    "pinned, registered or managed memory) to a kernel";
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
  if (CLS__UNLIKELY(off % d->facts.base_align != 0))
    return cls__unaligned(d, k, i, ptr, what, svm);
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

/* ---- Native handles (docs/interop.md) ---------------------------------- */

clsError_t cls__ocl_buffer_adopt(cl_mem mem, size_t size, void **out) {
  cl_int err = clRetainMemObject(mem);
  if (err != CL_SUCCESS) return cls__ocl_error(err, "clRetainMemObject");
  clsError_t e = cls__buf_place(mem, size, 1, out);
  if (e != clsSuccess) clReleaseMemObject(mem);
  return e;
}

int cls__ocl_buffer_unadopt(void *p) {
  cls__bufalloc a;
  int adopted = 1;
  if (!cls__rangetab_remove(&cls__bufs, (uintptr_t)p, cls__take, &adopted, &a))
    return 0;
  cls__buf_drop(&a);
  return 1;
}

/* The cl_mem views of SVM allocations that clsOpenCLGetMem handed out
 * (a buffer made with CL_MEM_USE_HOST_PTR on the SVM pointer, which the
 * OpenCL 2.0 specification makes share the SVM memory), one per
 * allocation, made on first use and released when the allocation is
 * freed (cls__ocl_free). */
typedef struct cls__view {
  cls__range r;
  cl_mem mem;
} cls__view;

static cls__rangetab cls__views = CLS__RANGETAB_INIT(cls__view);

clsError_t cls__ocl_view_at(cls__ocl_device *d, void *base, size_t size,
                            cl_mem *out) {
  cls__view v;
  if (cls__rangetab_lookup(&cls__views, (uintptr_t)base, &v)) {
    if (v.r.base == (uintptr_t)base && v.r.size >= size) {
      *out = v.mem;
      return clsSuccess;
    }
    /* A pool block reused for a larger allocation: a view of its size. */
    cls__ocl_view_drop((void *)v.r.base);
  }
  cl_int err;
  cl_mem mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                              size, base, &err);
  if (!mem || err != CL_SUCCESS)
    return cls__ocl_error(err ? err : CL_OUT_OF_RESOURCES,
                          "clCreateBuffer (a view of SVM memory)");
  v = (cls__view){{(uintptr_t)base, size}, mem};
  cls__view clash;
  int r = cls__rangetab_insert(&cls__views, &v, &clash);
  if (r == CLS__RANGETAB_OK) {
    *out = mem;
    return clsSuccess;
  }
  clReleaseMemObject(mem);
  if (r == CLS__RANGETAB_OVERLAP && clash.r.base == (uintptr_t)base) {
    *out = clash.mem; /* another thread made it first */
    return clsSuccess;
  }
  return cls__reason(clsErrorMemoryAllocation, "out of host memory");
}

void cls__ocl_view_drop(void *base) {
  if (CLS__LIKELY(cls__rangetab_count(&cls__views) == 0)) return;
  cls__view v;
  if (cls__rangetab_remove(&cls__views, (uintptr_t)base, NULL, NULL, &v))
    clReleaseMemObject(v.mem);
}
