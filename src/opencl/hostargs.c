/* OpenCL backend: host buffers in launches.
 *
 * A kernel must not use a buffer that is mapped (OpenCL leaves it
 * undefined; Oclgrind reports it, and a driver whose map is a copy would
 * lose the kernel's writes), so a launch passing host buffers (pinned,
 * registered or host-mapped managed memory, opencl/hostmem.c) gives them
 * to the device in its stream: unmap before the kernel, map again after
 * it, both in the stream's in-order queue.  The map is the host's again
 * once the stream's work is done, which is CUDA's synchronization point.
 * The host buffers a launch passes are noted while its arguments are set
 * (memory.c, under the function's lock) in a thread-local list that
 * launch.c hands to cls__ocl_host_args_unmap and _remap.
 *
 * One range of host memory may have a buffer in each context that reaches
 * it (the owner's, and hostview.c's for devices of other contexts): each
 * has its own state, since each is unmapped and mapped on its own.
 *
 * Owns the launch state of each host buffer in use (a range table with its
 * own lock): its launches in flight and the map that last gave it back. */
#include "hostargs.h"

#include <time.h>

/* One buffer over the range: its state. */
typedef struct cls__hbuf {
  cl_mem mem;     /* NULL: a free entry */
  unsigned users; /* launches between unmap and remap, on any thread */
  cl_event remap; /* the map that last gave it back (NULL: done) */
} cls__hbuf;

/* As many contexts as one process has met with two platforms, and one of
 * them split (CLSTREAM_CONTEXT_PER_DEVICE): more stay mapped (unused). */
#define CLS__HOST_CTXS 4
typedef struct cls__hstate {
  cls__range r;
  cls__hbuf b[CLS__HOST_CTXS];
} cls__hstate;

static cls__rangetab cls__hstates = CLS__RANGETAB_INIT(cls__hstate);

#define CLS__MAX_HOST_ARGS 16
static _Thread_local struct {
  unsigned n;
  int unmapped[CLS__MAX_HOST_ARGS];
  uintptr_t base[CLS__MAX_HOST_ARGS];
  cl_mem mem[CLS__MAX_HOST_ARGS];
} cls__hargs;

/* The state of buffer `mem` over the range at base (under the table's
 * write lock), made on first need when `make`; NULL if none. */
static cls__hbuf *cls__hbuf_of(uintptr_t base, cl_mem mem, int make) {
  cls__hstate *a = cls__rangetab_find(&cls__hstates, base);
  if (!a) return NULL;
  cls__hbuf *free_b = NULL;
  for (int i = 0; i < CLS__HOST_CTXS; ++i) {
    if (a->b[i].mem == mem) return &a->b[i];
    if (!a->b[i].mem && !free_b) free_b = &a->b[i];
  }
  if (make && free_b) free_b->mem = mem;
  return make ? free_b : NULL;
}

void cls__ocl_harg_note(cl_mem mem, void *base, size_t size) {
  uintptr_t b = (uintptr_t)base;
  for (unsigned k = 0; k < cls__hargs.n; ++k)
    if (cls__hargs.base[k] == b && cls__hargs.mem[k] == mem) return;
  if (cls__hargs.n == CLS__MAX_HOST_ARGS) return; /* stays mapped */
  cls__hstate st = {{b, size}, {{0}}};
  /* Made on first use; an entry already there (the same range) stays. */
  if (cls__rangetab_insert(&cls__hstates, &st, NULL) == CLS__RANGETAB_NOMEM)
    return;
  cls__rangetab_wrlock(&cls__hstates);
  int room = cls__hbuf_of(b, mem, 1) != NULL;
  cls__rangetab_unlock(&cls__hstates);
  if (!room) return; /* stays mapped */
  cls__hargs.unmapped[cls__hargs.n] = 0;
  cls__hargs.mem[cls__hargs.n] = mem;
  cls__hargs.base[cls__hargs.n++] = b;
}

cl_int cls__ocl_host_args_unmap(cl_command_queue q, const char **what) {
  cl_int err = CL_SUCCESS;
  for (unsigned k = 0; k < cls__hargs.n && err == CL_SUCCESS; ++k) {
    cls__rangetab_wrlock(&cls__hstates);
    cls__hbuf *a = cls__hbuf_of(cls__hargs.base[k], cls__hargs.mem[k], 0);
    if (a) {
      /* The first launch in flight takes it from the host, after the map
       * that last gave it back (which may be in another stream). */
      if (a->users == 0)
        err = clEnqueueUnmapMemObject(q, a->mem, (void *)cls__hargs.base[k],
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
    cls__rangetab_unlock(&cls__hstates);
  }
  if (err != CL_SUCCESS) *what = "clEnqueueUnmapMemObject (host memory)";
  return err;
}

unsigned cls__ocl_host_args_noted(void) { return cls__hargs.n; }

unsigned cls__ocl_host_args_drop(void) {
  unsigned n = cls__hargs.n;
  cls__hargs.n = 0;
  return n;
}

cl_event cls__ocl_host_args_remap(cl_command_queue q, cl_event after) {
  cl_event last = NULL;
  for (unsigned k = 0; k < cls__hargs.n; ++k) {
    if (!cls__hargs.unmapped[k]) continue;
    cls__rangetab_wrlock(&cls__hstates);
    cls__hstate *st = cls__rangetab_find(&cls__hstates, cls__hargs.base[k]);
    cls__hbuf *a = cls__hbuf_of(cls__hargs.base[k], cls__hargs.mem[k], 0);
    if (a && a->users && --a->users == 0) {
      /* The last one gives it back; a buffer whose memory is host memory
       * maps at the same address again (USE_HOST_PTR: OpenCL promises
       * it).  Out of resources is transient: retried, since a buffer
       * left unmapped would not be the host's again.  The map waits for
       * the kernel's event as well as following it in the queue, so that
       * a failed kernel fails it too. */
      cl_event ev = NULL;
      cl_int err = CL_SUCCESS;
      for (int t = 0; t < 100; ++t) {
        (void)clEnqueueMapBuffer(
            q, a->mem, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, 0, st->r.size,
            after ? 1 : 0, after ? &after : NULL, &ev, &err);
        if (err != CL_OUT_OF_RESOURCES && err != CL_OUT_OF_HOST_MEMORY) break;
        struct timespec ms = {0, 1000000L};
        nanosleep(&ms, NULL);
      }
      if (a->remap) clReleaseEvent(a->remap);
      a->remap = err == CL_SUCCESS ? ev : NULL;
      if (a->remap) {
        if (last) clReleaseEvent(last);
        clRetainEvent(a->remap);
        last = a->remap;
      }
    }
    cls__rangetab_unlock(&cls__hstates);
  }
  cls__hargs.n = 0;
  return last;
}

void cls__ocl_hargs_forget(void *base) {
  if (CLS__LIKELY(cls__rangetab_count(&cls__hstates) == 0)) return;
  cls__hstate st;
  if (!cls__rangetab_remove(&cls__hstates, (uintptr_t)base, NULL, NULL, &st))
    return;
  for (int i = 0; i < CLS__HOST_CTXS; ++i)
    if (st.b[i].remap) clReleaseEvent(st.b[i].remap);
}
