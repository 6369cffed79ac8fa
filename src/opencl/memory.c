/* OpenCL backend: device memory and the copies and fills on it.
 *
 * Device memory is coarse-grained SVM where the device has it, and
 * otherwise (or with CLSTREAM_MEMORY=buffers, facts.c) a cl_mem buffer
 * behind an address range reserved here with mmap(PROT_NONE) of the same
 * size: clsMalloc still returns a pointer, pointer arithmetic works, a host
 * dereference faults (as on CUDA), and the address never collides with
 * host memory, so clsMemcpyDefault tells the sides apart.  The buffer
 * table below maps any address inside a reservation to (buffer, offset).
 * Copies and fills take any offset; a kernel argument inside a buffer
 * allocation becomes the buffer itself or a sub-buffer (module.c).
 *
 * Commands are chosen by where the pointers lie, not by the stream's
 * device: a buffer-backed side gets buffer commands (read, write, copy,
 * fill), everything else SVM commands, and host memory on both sides a
 * host job instead where the device has no SVM command for it, or where
 * the driver refused the SVM one (cls__host_side decides both).
 *
 * A copy touching memory of a device in another OpenCL context (another
 * platform) is staged through host memory by a host job in the stream's
 * order (cls__b_memcpy_across). */
#include "ocl.h"

#include "../rangetab.h"

#include <pthread.h>
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
} cls__bufalloc;

static cls__rangetab cls__bufs = CLS__RANGETAB_INIT(cls__bufalloc);

int cls__ocl_buffer_at(const void *p, cl_mem *mem, size_t *off, size_t *avail) {
  /* No buffer allocation at all (SVM devices): one atomic load. */
  if (CLS__LIKELY(cls__rangetab_count(&cls__bufs) == 0)) return 0;
  cls__bufalloc a;
  if (!cls__rangetab_lookup(&cls__bufs, (uintptr_t)p, &a)) return 0;
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
  cls__bufalloc a = {{(uintptr_t)p, size}, span, mem, NULL, 0, 0};
  /* Fresh addresses overlap no other reservation: only memory can fail. */
  if (cls__rangetab_insert(&cls__bufs, &a, NULL) != CLS__RANGETAB_OK) {
    munmap(p, span);
    clReleaseMemObject(mem);
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  }
  *out = p;
  return clsSuccess;
}

/* Frees the buffer allocation starting at p; 0 if there is none. */
static int cls__buf_free(void *p) {
  cls__bufalloc a;
  if (!cls__rangetab_remove(&cls__bufs, (uintptr_t)p, NULL, NULL, &a)) return 0;
  /* Commands still using the buffer keep it alive (OpenCL defers the
   * deletion); the addresses are free for reuse at once. */
  for (unsigned i = 0; i < a.nsubs; ++i) clReleaseMemObject(a.subs[i].mem);
  free(a.subs);
  clReleaseMemObject(a.mem);
  munmap(p, a.span);
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
  /* NULL as a buffer argument (module.c passes NULL itself, in the form
   * the parameter's last pointer took). */
  if (!ptr) {
    *what = "clSetKernelArg";
    return clSetKernelArg(k, i, sizeof(cl_mem), NULL);
  }
  cl_mem mem;
  size_t off;
  if (!cls__ocl_buffer_at(ptr, &mem, &off, NULL)) {
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

/* Host memory for async copies: page-locked where the driver can give it,
 * through OpenCL's one portable way, a buffer allocated by the driver in
 * host memory (CL_MEM_ALLOC_HOST_PTR) and kept mapped until it is freed.
 * Copies read and write it in place, as host memory. */
typedef struct cls__pinned {
  void *p;
  cl_mem buf;
  cls__ocl_device *dev;
  struct cls__pinned *next;
} cls__pinned;

static pthread_mutex_t cls__pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static cls__pinned *cls__pinned_list;

clsError_t cls__b_malloc_host(int dev, size_t size, void **out) {
  cls__ocl_device *d = cls__ocl_device_get(dev);
  if (d->ident.max_alloc && size > d->ident.max_alloc) /* as cls__buf_alloc */
    return cls__reason(clsErrorMemoryAllocation,
                       "%zu bytes exceed device %d's largest allocation "
                       "(CL_DEVICE_MAX_MEM_ALLOC_SIZE, %llu bytes)",
                       size, d->index, (unsigned long long)d->ident.max_alloc);
  cls__pinned *pn = malloc(sizeof *pn);
  if (!pn) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  cl_int err;
  pn->buf = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                           size, NULL, &err);
  if (err == CL_SUCCESS) {
    pn->p = clEnqueueMapBuffer(d->mapq, pn->buf, CL_TRUE,
                               CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, NULL,
                               NULL, &err);
    if (err != CL_SUCCESS) clReleaseMemObject(pn->buf);
  }
  if (err != CL_SUCCESS) {
    free(pn);
    return cls__reason(clsErrorMemoryAllocation,
                       "allocating %zu bytes of host memory failed "
                       "(OpenCL error %d)",
                       size, (int)err);
  }
  pn->dev = d;
  pthread_mutex_lock(&cls__pinned_lock);
  pn->next = cls__pinned_list;
  cls__pinned_list = pn;
  pthread_mutex_unlock(&cls__pinned_lock);
  *out = pn->p;
  return clsSuccess;
}

clsError_t cls__b_free_host(int dev, void *p) {
  (void)dev;
  pthread_mutex_lock(&cls__pinned_lock);
  cls__pinned **at = &cls__pinned_list;
  while (*at && (*at)->p != p) at = &(*at)->next;
  cls__pinned *pn = *at;
  if (pn) *at = pn->next;
  pthread_mutex_unlock(&cls__pinned_lock);
  if (!pn) return clsSuccess;
  /* The buffer goes once the unmap is done (OpenCL defers a released
   * object's deletion until the commands that use it finish).  A buffer
   * released while still mapped keeps its host memory (PoCL), so a failed
   * unmap (out of resources: transient) is retried. */
  for (int i = 0; i < 100; ++i) {
    if (clEnqueueUnmapMemObject(pn->dev->mapq, pn->buf, p, 0, NULL, NULL) ==
        CL_SUCCESS) {
      cls__ocl_flush(pn->dev->mapq);
      break;
    }
    struct timespec ms = {0, 1000000L};
    nanosleep(&ms, NULL);
  }
  clReleaseMemObject(pn->buf);
  free(pn);
  return clsSuccess;
}

/* Finishes an enqueue begun with cls__ocl_begin and, if `blocking`,
 * waits for the command. */
static clsError_t cls__finish_cmd(cls__bstream *s, cls__ocl_batch *b,
                                  cl_int err, cl_event ev, int blocking,
                                  const char *what) {
  if (err == CL_SUCCESS && blocking) clRetainEvent(ev);
  cls__ocl_end_cmd(s, b, err == CL_SUCCESS, ev);
  if (err != CL_SUCCESS) return cls__ocl_error(err, what);
  if (!blocking) return clsSuccess;
  clsError_t r = cls__ocl_wait(ev, 0);
  clReleaseEvent(ev);
  return r;
}

/* A staged source, freed once its copy completes or fails. */
typedef struct cls__staging {
  cls__ocl_watch watch;
  unsigned char data[];
} cls__staging;

static void cls__staging_run(cls__ocl_job *j) {
  cls__ocl_watch_done((cls__ocl_watch *)j); /* frees the staging copy */
}

/* A copy or fill that cls__host_side gives the host: a host job (after
 * the stream's earlier work; later work waits for it). */
typedef struct cls__hcopy {
  void *dst;
  const void *src; /* NULL: a fill with `value` */
  size_t n;
  int value;
  unsigned char data[]; /* the staged source, if staged */
} cls__hcopy;

static void cls__hcopy_run(void *job, clsError_t status) {
  cls__hcopy *c = job;
  if (status == clsSuccess) {
    if (c->src)
      memcpy(c->dst, c->src, c->n);
    else
      memset(c->dst, c->value, c->n);
  }
  free(c);
}

static clsError_t cls__reach(cls__bstream *s);

/* A fill of host memory that cls__host_side gives the host: a host job,
 * as for host-to-host copies (when blocking: on the caller's thread, once
 * the stream's earlier work is done). */
static clsError_t cls__host_fill(cls__bstream *s, void *dst, int value,
                                 size_t n, int blocking) {
  if (blocking) {
    clsError_t e = cls__reach(s);
    if (e == clsSuccess) memset(dst, value, n);
    return e;
  }
  cls__hcopy *c = malloc(sizeof *c);
  if (!c) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  *c = (cls__hcopy){dst, NULL, n, (unsigned char)value};
  clsError_t e = cls__b_stream_host_job(s, cls__hcopy_run, c);
  if (e != clsSuccess) {
    free(c);
    return e;
  }
  return clsSuccess;
}

/* Waits, with a marker, for the work s's next command would wait for
 * (the stream's and the legacy synchronization's): a blocking host-side
 * copy or fill then runs on the caller's thread, with no host job. */
static clsError_t cls__reach(cls__bstream *s) {
  cls__ocl_batch b;
  cl_event ev = NULL;
  cls__ocl_begin(s, &b);
  b.what = "host copy";
  b.cat = "marker";
  cl_int err = clEnqueueMarkerWithWaitList(s->q, b.n, b.list, &ev);
  if (err == CL_SUCCESS) clRetainEvent(ev);
  cls__ocl_end(s, &b, err == CL_SUCCESS ? ev : NULL);
  if (err != CL_SUCCESS)
    return cls__ocl_error(err, "clEnqueueMarkerWithWaitList");
  clsError_t e = cls__ocl_wait(ev, 0);
  clReleaseEvent(ev);
  return e;
}

static clsError_t cls__host_copy(cls__bstream *s, void *dst, const void *src,
                                 size_t n, int mode) {
  if (mode == CLS__COPY_BLOCKING) {
    clsError_t e = cls__reach(s);
    if (e == clsSuccess) memcpy(dst, src, n);
    return e;
  }
  int stage = mode == CLS__COPY_STAGE;
  cls__hcopy *c = malloc(sizeof *c + (stage ? n : 0));
  if (!c) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  c->dst = dst;
  c->n = n;
  if (stage) {
    memcpy(c->data, src, n);
    c->src = c->data;
  } else {
    c->src = src;
  }
  clsError_t e = cls__b_stream_host_job(s, cls__hcopy_run, c);
  if (e != clsSuccess) {
    free(c);
    return e;
  }
  return clsSuccess;
}

/* Whether p is host memory: pinned, mapped, registered or pageable, as
 * opposed to device memory (SVM or a buffer, clsMalloc's or a pool's) or
 * managed memory, which the driver always takes. */
static int cls__host_memory(const void *p) {
  cl_mem m;
  size_t off;
  if (cls__ocl_buffer_at(p, &m, &off, NULL)) return 0;
  int kind = cls__mem_lookup(p, NULL, NULL, NULL);
  return kind == CLS__MEM_NONE || kind == CLS__MEM_HOST ||
         kind == CLS__MEM_HOST_MAPPED || kind == CLS__MEM_REGISTERED;
}

/* Whether a copy (src non-NULL) or a fill (src NULL) is the host's to do
 * (cls__host_copy, cls__host_fill) rather than a driver command's: the one
 * place that decides it, asked before the command (`refused` CL_SUCCESS)
 * and again if the driver refused it (`refused` its error).
 *
 * A buffer-memory device has no SVM command to name host memory with, so
 * there the host does every copy or fill with no buffer side.  On an SVM
 * device host memory goes to clEnqueueSVMMemcpy and clEnqueueSVMMemFill,
 * which OpenCL does not promise to take: clsMallocHost memory is a
 * CL_MEM_ALLOC_HOST_PTR buffer kept mapped (cls__b_malloc_host), not
 * clSVMAlloc memory, and a fill's pointer must be clSVMAlloc memory unless
 * the device has fine-grained system SVM.  PoCL 3.1 takes both; PoCL 5.0,
 * which looks the pointer up among its SVM allocations, refuses the fill
 * with CL_INVALID_OPERATION (and takes the copy).  Where the driver
 * refuses with CL_INVALID_OPERATION or CL_INVALID_VALUE and every side is
 * host memory, the host does the command instead, in the same stream
 * order; device memory is never written by the host. */
static int cls__host_side(const cls__ocl_device *d, const void *dst,
                          const void *src, cl_int refused) {
  if (CLS__LIKELY(refused == CL_SUCCESS && !d->facts.buffers)) return 0;
  if (refused == CL_SUCCESS) { /* a buffer-memory device: no buffer side */
    cl_mem m;
    size_t off;
    return !cls__ocl_buffer_at(dst, &m, &off, NULL) &&
           (!src || !cls__ocl_buffer_at(src, &m, &off, NULL));
  }
  if (refused != CL_INVALID_OPERATION && refused != CL_INVALID_VALUE) return 0;
  return cls__host_memory(dst) && (!src || cls__host_memory(src));
}

/* The copy or fill that the driver refused (`err`, from `what`) and that
 * cls__host_side gave the host, done there with the same `mode`. */
static clsError_t cls__host_instead(cls__bstream *s, void *dst, const void *src,
                                    int value, size_t n, int mode, cl_int err,
                                    const char *what) {
  /* Said only if the host fails too: a call that succeeds clears its
   * reason (cls__finish), and the host's own would only come second. */
  cls__reason(clsErrorNotSupported,
              "%s refused host memory at %p (OpenCL error %d), and doing the "
              "%s on the host instead failed too",
              what, dst, (int)err, src ? "copy" : "fill");
  if (src) return cls__host_copy(s, dst, src, n, mode);
  return cls__host_fill(s, dst, value, n, mode == CLS__COPY_BLOCKING);
}

/* Enqueues an SVM copy of n bytes on s and, if `blocking`, waits for it.
 * With `stage` (holding the source) the stage is freed once the copy
 * completes or fails; where the enqueue itself fails, *enqueued is 0 and
 * the stage stays the caller's.  A copy the driver refuses may be done on
 * the host instead (cls__host_side), *enqueued 0 there too. */
static clsError_t cls__enqueue_copy(cls__bstream *s, void *dst, const void *src,
                                    size_t n, cls__staging *stage, int blocking,
                                    int *enqueued) {
  cls__ocl_batch b;
  cl_event ev = NULL;
  const char *what = "a copy";
  cls__ocl_begin(s, &b);
  b.what = "memcpy";
  b.cat = "copy";
  b.work = 1;
  /* An event only where someone needs it: a wait, or the stage's watch. */
  cl_int err = cls__ocl_enqueue_copy(
      s->dev, s->q, dst, src, n, b.n, b.list,
      blocking || stage ? &ev : cls__ocl_event_slot(s, &ev), &what);
  *enqueued = err == CL_SUCCESS;
  if (err != CL_SUCCESS && cls__host_side(s->dev, dst, src, err)) {
    cls__ocl_end(s, &b, NULL); /* nothing was enqueued */
    /* A staged source is the caller's to free: the host job stages its
     * own copy of it. */
    int mode = blocking ? CLS__COPY_BLOCKING
               : stage  ? CLS__COPY_STAGE
                        : CLS__COPY_ASYNC;
    return cls__host_instead(s, dst, src, 0, n, mode, err, what);
  }
  if (stage && err == CL_SUCCESS) clRetainEvent(ev); /* the stage's */
  clsError_t r = cls__finish_cmd(s, &b, err, ev, blocking, what);
  if (stage && err == CL_SUCCESS) {
    /* A copy already done (blocking, or run by the flush, as Oclgrind's
     * is) frees its stage here: no library thread then calls the driver
     * for it.  Otherwise a watch frees it once the copy is done. */
    if (cls__ocl_status(ev) <= CL_COMPLETE) {
      free(stage);
    } else {
      stage->watch.job.run = cls__staging_run;
      cls__ocl_watch_event(&stage->watch, ev);
    }
    clReleaseEvent(ev);
  }
  return r;
}

clsError_t cls__b_memcpy(cls__bstream *s, void *dst, const void *src, size_t n,
                         clsMemcpyKind kind, int mode) {
  (void)kind;            /* the commands follow where the pointers lie */
  mode &= CLS__COPY_HOW; /* OpenCL has no synchronous call of its own */
  if (cls__host_side(s->dev, dst, src, CL_SUCCESS))
    return cls__host_copy(s, dst, src, n, mode);
  cls__staging *staging = NULL;
  if (mode == CLS__COPY_STAGE) {
    staging =
        n <= SIZE_MAX - sizeof *staging ? malloc(sizeof *staging + n) : NULL;
    if (staging) {
      memcpy(staging->data, src, n);
    } else {
      mode = CLS__COPY_BLOCKING; /* no room to stage: wait instead */
    }
  }
  int enqueued;
  clsError_t r =
      cls__enqueue_copy(s, dst, staging ? staging->data : src, n, staging,
                        mode == CLS__COPY_BLOCKING, &enqueued);
  if (!enqueued) free(staging);
  return r;
}

clsError_t cls__b_memset(cls__bstream *s, void *dst, int value, size_t n,
                         int mode) {
  int blocking = (mode & CLS__COPY_HOW) == CLS__COPY_BLOCKING;
  if (cls__host_side(s->dev, dst, NULL, CL_SUCCESS))
    return cls__host_fill(s, dst, value, n, blocking);
  cls__ocl_batch b;
  cl_event ev = NULL;
  const char *what = "a fill";
  cls__ocl_begin(s, &b);
  b.what = "memset";
  b.cat = "set";
  b.work = 1;
  cl_int err = cls__ocl_enqueue_fill(
      s->dev, s->q, dst, (unsigned char)value, n, b.n, b.list,
      blocking ? &ev : cls__ocl_event_slot(s, &ev), &what);
  if (err != CL_SUCCESS && cls__host_side(s->dev, dst, NULL, err)) {
    cls__ocl_end(s, &b, NULL); /* nothing was enqueued */
    return cls__host_instead(s, dst, NULL, value, n,
                             blocking ? CLS__COPY_BLOCKING : CLS__COPY_ASYNC,
                             err, what);
  }
  return cls__finish_cmd(s, &b, err, ev, blocking, what);
}

/* ---- Copies across OpenCL contexts -------------------------------------- */

/* One staged copy: the foreign sides are read and written by a host job
 * that runs in the stream's order, on a worker thread, with copies on the
 * foreign devices' own queues, waited for, each after the work that the
 * foreign device's legacy stream had to wait for at the time of the call
 * (its `after` event, recorded then). */
typedef struct cls__across {
  cls__ocl_device *src_dev, *dst_dev; /* foreign sides, or NULL */
  cls__btoken *src_after, *dst_after; /* NULL: nothing to wait for */
  const void *src; /* read by the job: a foreign or a host source */
  void *dst;       /* written by the job: a foreign or a host destination */
  size_t n;
  int keep_stage; /* a later command of the stream still reads the stage */
  cls__staging *stage;
} cls__across;

/* A copy on a foreign device's own queue, waited for, retried while the
 * driver is short of resources. */
static cl_int cls__foreign_copy(cls__ocl_device *d, void *dst, const void *src,
                                size_t n) {
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < 100; ++i) {
    cl_event ev = NULL;
    const char *what;
    err = cls__ocl_enqueue_copy(d, d->mapq, dst, src, n, 0, NULL, &ev, &what);
    if (err == CL_SUCCESS) {
      err = clWaitForEvents(1, &ev);
      clReleaseEvent(ev);
    }
    if (err != CL_OUT_OF_RESOURCES && err != CL_OUT_OF_HOST_MEMORY) break;
    struct timespec ms = {0, 1000000L};
    nanosleep(&ms, NULL);
  }
  return err;
}

static void cls__across_run(void *job, clsError_t status) {
  cls__across *x = job;
  unsigned char *stage = x->stage->data;
  cl_int err = CL_SUCCESS;
  if (status == clsSuccess) {
    if (x->src_dev) {
      if (cls__b_token_wait(x->src_after, 0) == clsSuccess)
        err = cls__foreign_copy(x->src_dev, stage, x->src, x->n);
    } else if (x->src) {
      memcpy(stage, x->src, x->n);
    }
    if (err == CL_SUCCESS && x->dst_dev) {
      if (cls__b_token_wait(x->dst_after, 0) == clsSuccess)
        err = cls__foreign_copy(x->dst_dev, x->dst, stage, x->n);
    } else if (err == CL_SUCCESS && x->dst) {
      memcpy(x->dst, stage, x->n);
    }
  }
  if (err != CL_SUCCESS) {
    /* Nothing is left to fail: the call returned long ago (PoCL aborts
     * when a user event with dependents is set to an error).  Say so. */
    cls__finish("clsMemcpyAsync", cls__ocl_error(err, "the staged copy "
                                                      "across OpenCL "
                                                      "platforms"));
  }
  cls__b_token_release(x->src_after);
  cls__b_token_release(x->dst_after);
  if (!x->keep_stage) free(x->stage);
  free(x);
}

/* The position of the work that `d`'s legacy stream would wait for now
 * (its own and its blocking streams'), as an untimed record's token. */
static clsError_t cls__legacy_position(cls__ocl_device *d, cls__btoken **out) {
  cls__bstream *legacy;
  clsError_t r = cls__b_stream_default(d->index, 0, &legacy);
  if (r == clsSuccess) r = cls__ocl_record(legacy, 0, out);
  return r;
}

clsError_t cls__b_memcpy_across(cls__bstream *s, void *dst, int dst_dev,
                                const void *src, int src_dev, size_t n,
                                int mode) {
  mode &= CLS__COPY_HOW;
  cls__across *x = calloc(1, sizeof *x);
  cls__staging *stage =
      n <= SIZE_MAX - sizeof *stage ? malloc(sizeof *stage + n) : NULL;
  if (!x || !stage) {
    free(x);
    free(stage);
    return cls__reason(clsErrorMemoryAllocation,
                       "out of host memory staging a copy of %zu bytes", n);
  }
  x->stage = stage;
  x->n = n;
  clsError_t r = clsSuccess;
  cls__ocl_device *sd = src_dev >= 0 ? cls__ocl_device_get(src_dev) : NULL;
  cls__ocl_device *dd = dst_dev >= 0 ? cls__ocl_device_get(dst_dev) : NULL;
  /* Device memory in the stream's own context goes through its queue,
   * before or after the job; host memory is read and written by the job
   * (a pageable source the caller may reuse is read now). */
  int src_local_dev = sd && sd->ctx == s->dev->ctx;
  int dst_local_dev = dd && dd->ctx == s->dev->ctx;
  if (sd && !src_local_dev) {
    x->src_dev = sd;
    r = cls__legacy_position(sd, &x->src_after);
  }
  if (r == clsSuccess && dd && !dst_local_dev) {
    x->dst_dev = dd;
    r = cls__legacy_position(dd, &x->dst_after);
  }
  if (r == clsSuccess) {
    if (src_local_dev)
      r = cls__b_memcpy(s, stage->data, src, n, clsMemcpyDeviceToHost,
                        CLS__COPY_ASYNC);
    else if (!sd && mode == CLS__COPY_STAGE)
      memcpy(stage->data, src, n);
    else
      x->src = src;
  }
  if (!dst_local_dev) x->dst = dst;
  x->keep_stage = dst_local_dev;
  if (r == clsSuccess) r = cls__b_stream_host_job(s, cls__across_run, x);
  if (r != clsSuccess) {
    cls__b_token_release(x->src_after);
    cls__b_token_release(x->dst_after);
    free(stage);
    free(x);
    return r;
  }
  /* From here on the job owns x (and the stage, unless a copy below
   * reads it: that copy's watch frees it then). */
  if (dst_local_dev) {
    int enqueued;
    r = cls__enqueue_copy(s, dst, stage->data, n, stage, 0, &enqueued);
    if (!enqueued) {
      /* The job may still be using the stage: free it once the stream's
       * work so far, the job included, is done. */
      cls__b_stream_sync(s);
      free(stage);
      return r;
    }
  }
  if (mode != CLS__COPY_BLOCKING) return clsSuccess;
  cls__btoken *done = NULL;
  r = cls__ocl_record(s, 0, &done);
  if (r == clsSuccess) r = cls__b_token_wait(done, 0);
  cls__b_token_release(done);
  return r;
}
