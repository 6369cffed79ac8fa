/* OpenCL backend: the prepared replay of an executable graph (backend.h,
 * "Graphs").
 *
 * At instantiate every kernel node gets a kernel object of its own, made
 * from its function's program, with its arguments set once; a launch then
 * enqueues the nodes in the front's order onto the stream's in-order
 * queue, so that no dependency needs a wait or a barrier.  Consecutive
 * kernel nodes go in one enqueue bracket (one stream lock, one wait list
 * for the first, one position update): a launch of a chain of kernels is
 * one clEnqueueNDRangeKernel per node and nothing else per node (no
 * event, flush, lock or allocation; the runs of kernels are found when
 * the nodes change, cls__ox_runs).  Only the last kernel of a run asks
 * for its event, and only where events cost next to nothing (facts.c,
 * command_events: PoCL's, not NVIDIA's), so that it names the stream's
 * position: the record that ends the launch (graphexec.c) and a later
 * synchronize then wait for it instead of a marker of their own, which
 * cost PoCL 3.1 some 2,600 instructions and a command per launch.
 * Copies, fills and host nodes take the backend's own command paths.
 *
 * cl_khr_command_buffer is not used (facts.c, replay_command_buffers, 0
 * on every device so far): PoCL 3.1's (0.9.0) replayed 100 tiny kernels
 * no faster than plain enqueues on its CPU device (2.1-3.4 us vs
 * 1.75-2.65 us per kernel), NVIDIA's driver and rusticl 22.3 do not have
 * it, and Debian 12's headers carry its pre-1.0 signatures.
 *
 * Pointer arguments on the buffer path are buffers or sub-buffers looked
 * up in the allocation table, which a free may release (memory.c), so a
 * launch after a free (cls__mem_gen changed) sets them again.  The front
 * serializes launches and updates of one exec (its lock) and orders each
 * launch after the previous one. */
#include "command.h"
#include "driver.h"
#include "enqueue.h"
#include "function.h"
#include "hostargs.h"
#include "memory.h"

#include <stdlib.h>
#include <string.h>

/* A host node's job record: the same for every launch (the host job
 * keeps its own state), read-only once made. */
typedef struct cls__oxjob {
  cls__job head;
  clsHostFn_t fn;
  void *user;
} cls__oxjob;

typedef struct cls__oxnode {
  cls__bnode b; /* the front's description (args stay valid) */
  cl_kernel k;  /* kernel nodes: the node's own kernel object */
  cl_uint dim;  /* the dimensions enqueued: trailing ones of size 1 dropped */
  size_t global[3], local[3];
  /* Kernel nodes: the position after the run of consecutive kernel nodes
   * that starts here and goes in one bracket (cls__ox_runs). */
  size_t run_end;
  cls__oxjob job; /* host nodes */
  /* Kernel nodes passing host buffers, which each launch must unmap and
   * map again (hostargs.c): launched through launch.c. */
  int via_launch;
  /* The arguments of k that have held an SVM pointer (bit i, i < 64; bit
   * 63 stands for the rest too), for the driver fact svm_args_stick. */
  uint64_t svm_args;
} cls__oxnode;

struct cls__bexec {
  cls__ocl_device *dev;
  size_t n;
  size_t gen; /* the allocation table's, when pointers were last set */
  int launched;
  cls__oxnode *nodes;
};

static void cls__oxjob_run(void *p, clsError_t status) {
  const cls__oxjob *j = p;
  if (status == clsSuccess) j->fn(j->user);
}

/* Sets node x's arguments on its kernel object (every one, or the
 * pointers only). */
static clsError_t cls__ox_set_args(cls__ocl_device *d, cls__oxnode *x,
                                   int pointers_only) {
  const cls__bfunction *f = x->b.f;
  for (cl_uint i = 0; i < f->nuser; ++i) {
    const uint64_t bit = (uint64_t)1 << (i < 63 ? i : 63);
    const cls__oarg *a = &f->args[i];
    const void *v = x->b.args[i];
    const char *what = "clSetKernelArg";
    cl_int err;
    if (a->kind == CLS__ARG_POINTER) {
      void *ptr = *(void *const *)v;
      int svm;
      if (a->op == CLS__OP_PTR_OFF) /* the buffer path: buffer and offset */
        err =
            cls__ocl_set_ptr_off_arg(d, x->k, i, a->off_arg, ptr, &what, &svm);
      else
        err = cls__ocl_set_pointer_arg(d, x->k, i, ptr, &what, &svm);
      /* A host buffer at an offset no sub-buffer takes: noted like any
       * host buffer, so the node launches through launch.c, which runs
       * the function's offset variant. */
      if (err == CLS__OCL_NEEDS_OFFSET) err = CL_SUCCESS;
      if (err == CL_SUCCESS && svm) x->svm_args |= bit;
      /* A buffer where the object held an SVM pointer, on a driver that
       * refuses it (facts.c, svm_args_stick): the node gets a fresh kernel
       * object, all of whose arguments are set again.  Enqueued
       * launches keep the old one alive. */
      int stick = 0;
      if (err == CL_SUCCESS && !svm && (x->svm_args & bit) &&
          (err = cls__ocl_svm_args_stick(d, &stick)) != CL_SUCCESS)
        what = "the kernel argument form probe";
      if (err == CL_SUCCESS && stick) {
        cl_kernel k = cls__ocl_function_kernel(f, &err);
        if (k) {
          clReleaseKernel(x->k);
          x->k = k;
          x->svm_args = 0;
          pointers_only = 0;
          i = (cl_uint)-1;
          (void)cls__ocl_host_args_drop();
          continue;
        }
        what = "clCreateKernel";
      }
    } else if (pointers_only) {
      continue;
    } else if (a->kind == CLS__ARG_VEC3) {
      unsigned char v3[CLS__VEC3_MAX] = {0};
      memcpy(v3, v, a->copy);
      err = clSetKernelArg(x->k, i, a->size, v3);
    } else {
      err = clSetKernelArg(x->k, i, a->size, v);
    }
    if (err != CL_SUCCESS) {
      (void)cls__ocl_host_args_drop();
      return cls__ocl_launch_error(f, err, i, what, 0);
    }
  }
  x->via_launch = cls__ocl_host_args_drop() != 0;
  return clsSuccess;
}

/* Whether kernel node x can be prepared here: dynamic shared memory (a
 * hidden __local argument sized per launch) keeps the graph on the front's
 * node-by-node replay, which launches through launch.c.  The other hidden
 * arguments of the kernel rewrite are the buffer path's pointer offsets,
 * set with their pointers, and the module globals' base, set once
 * (cls__ocl_function_kernel). */
static int cls__ox_preparable(const cls__bnode *b) {
  return !b->shmem && b->f->dyn < 0;
}

/* Node x's work sizes from its grid and block.  Trailing dimensions of
 * size 1 are left out of the enqueue (the kernel reads 1 for them all the
 * same), which spares the driver the loops over them. */
static void cls__ox_sizes(cls__oxnode *x) {
  const unsigned g[3] = {x->b.grid.x, x->b.grid.y, x->b.grid.z};
  const unsigned b[3] = {x->b.block.x, x->b.block.y, x->b.block.z};
  x->dim = 1;
  for (int i = 0; i < 3; ++i) {
    x->local[i] = b[i];
    x->global[i] = (size_t)g[i] * b[i];
    if (i && x->global[i] != 1) x->dim = (cl_uint)i + 1;
  }
}

/* Where each run of kernel nodes that go in one bracket ends (those
 * passing host buffers go alone, through launch.c): found once, when the
 * nodes or their arguments change, so that a launch does no work per
 * node but the enqueue. */
static void cls__ox_runs(cls__bexec *x) {
  for (size_t i = x->n; i-- > 0;) {
    cls__oxnode *o = &x->nodes[i];
    const cls__oxnode *next = i + 1 < x->n ? &x->nodes[i + 1] : NULL;
    int joins = o->b.kind == CLS__BNODE_KERNEL && !o->via_launch && next &&
                next->b.kind == CLS__BNODE_KERNEL && !next->via_launch;
    o->run_end = joins ? next->run_end : i + 1;
  }
}

/* Makes kernel node x ready: its kernel object, sizes and arguments. */
static clsError_t cls__ox_kernel(cls__ocl_device *d, cls__oxnode *x) {
  const cls__bfunction *f = x->b.f;
  if (f->bad >= 0)
    return cls__reason(clsErrorInvalidValue, "%s",
                       f->bad_msg ? f->bad_msg : "unsupported parameter");
  /* A kernel object of the node's own, from f's program (f->k may be
   * swapped for its other object by a launch meanwhile, launch.c). */
  cl_int err;
  x->k = cls__ocl_function_kernel(f, &err);
  if (!x->k) return cls__ocl_error(err, "clCreateKernel");
  cls__ox_sizes(x);
  return cls__ox_set_args(d, x, 0);
}

static void cls__ox_free(void *p) {
  cls__bexec *x = p;
  for (size_t i = 0; i < x->n; ++i)
    if (x->nodes[i].k) clReleaseKernel(x->nodes[i].k);
  free(x->nodes);
  free(x);
}

void cls__b_exec_destroy(cls__bexec *x) {
  /* Launches may still be pending: the kernel objects (and the program
   * they hold, which the module may have let go) are released after
   * them, as an unloaded module's are. */
  if (x->launched)
    cls__ocl_free_after_pending(x->dev, cls__ox_free, x);
  else
    cls__ox_free(x);
}

clsError_t cls__b_exec_prepare(int dev, const cls__bnode *nodes, size_t n,
                               cls__bexec **out, int *ordered) {
  *out = NULL;
  *ordered = 0; /* the front orders launches of one exec */
  cls__ocl_device *d = cls__ocl_device_get(dev);
  /* Where a kernel needs launch.c's own argument handling, the front
   * replays node by node, through cls__b_launch. */
  for (size_t i = 0; i < n; ++i)
    if (nodes[i].kind == CLS__BNODE_KERNEL && !cls__ox_preparable(&nodes[i]))
      return clsSuccess;
  cls__bexec *x = calloc(1, sizeof *x);
  if (x) x->nodes = calloc(n + 1, sizeof *x->nodes);
  if (!x || !x->nodes) {
    free(x);
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  }
  x->dev = d;
  x->gen = cls__mem_gen();
  clsError_t e = clsSuccess;
  for (size_t i = 0; i < n && e == clsSuccess; ++i) {
    cls__oxnode *o = &x->nodes[i];
    o->b = nodes[i];
    x->n = i + 1;
    if (o->b.kind == CLS__BNODE_KERNEL) {
      e = cls__ox_kernel(d, o);
    } else if (o->b.kind == CLS__BNODE_HOST) {
      o->job.head.run = cls__oxjob_run;
      o->job.head.skippable = 1;
      o->job.fn = o->b.fn;
      o->job.user = o->b.user;
    }
  }
  if (e != clsSuccess) {
    cls__b_exec_destroy(x);
    return e;
  }
  cls__ox_runs(x);
  *out = x;
  return clsSuccess;
}

clsError_t cls__b_exec_upload(cls__bexec *x, cls__bstream *s) {
  (void)x, (void)s; /* everything was made at instantiate */
  return clsSuccess;
}

clsError_t cls__b_exec_kernel_update(cls__bexec *x, size_t i,
                                     const cls__bnode *node) {
  cls__oxnode *o = &x->nodes[i];
  o->b = *node;
  cls__ox_sizes(o);
  clsError_t e = cls__ox_set_args(x->dev, o, 0);
  cls__ox_runs(x); /* o may pass host buffers now, or no longer */
  return e;
}

/* Enqueues kernel nodes [i, j) on s in one bracket: one
 * clEnqueueNDRangeKernel each, the first with the bracket's wait list,
 * none with an event but the last, and that one only on devices whose
 * events cost next to nothing (cls__ocl_event_slot: facts.command_events,
 * PoCL's), where it becomes the stream's newest command, so that the
 * record ending the launch (graphexec.c) and a synchronize wait for it
 * instead of a marker of their own.  On NVIDIA's driver no node has an
 * event: the nodes cost what the raw enqueues cost. */
static clsError_t cls__ox_kernels(cls__bexec *x, size_t i, size_t j,
                                  cls__bstream *s) {
  cls__ocl_batch b;
  cl_event ev = NULL;
  cls__ocl_begin_cmd(s, &b);
  cl_event *slot = cls__ocl_event_slot(s, &ev);
  cl_int err = CL_SUCCESS;
  size_t k = i;
  for (; k < j; ++k) {
    const cls__oxnode *o = &x->nodes[k];
    const int first = k == i, last = k + 1 == j;
    err = clEnqueueNDRangeKernel(s->q, o->k, o->dim, NULL, o->global, o->local,
                                 first ? b.n : 0, first ? b.list : NULL,
                                 last ? slot : NULL);
    if (err != CL_SUCCESS) break;
  }
  /* The position stands after the kernels enqueued, named by ev where the
   * last one has it. */
  cls__ocl_end_cmd(s, &b, k > i, ev);
  if (err == CL_SUCCESS) return clsSuccess;
  return cls__ocl_error(err, "clEnqueueNDRangeKernel");
}

/* Enqueues kernel node o on s through the kernel-cache guard (PoCL 4 and
 * 5, facts.c kc_guard; kcguard.c), as launch.c does: a bracket of its
 * own, since the guard may add waits to it, and the kernel's event, which
 * the guard lists.  Only the argument setting of a plain launch is left
 * out, and the three dimensions are the launch path's, whose widths the
 * guard reads as the driver does. */
static clsError_t cls__ox_guarded(const cls__oxnode *o, cls__bstream *s) {
  cls__ocl_batch b;
  cl_event ev = NULL;
  cls__ocl_begin_cmd(s, &b);
  void *kc = cls__kc_enter(s, o->b.f->name, o->global, o->local, &b);
  cl_int err = clEnqueueNDRangeKernel(s->q, o->k, 3, NULL, o->global, o->local,
                                      b.n, b.list, &ev);
  cls__kc_leave(kc, s, err == CL_SUCCESS ? ev : NULL);
  cls__ocl_end_cmd(s, &b, err == CL_SUCCESS, err == CL_SUCCESS ? ev : NULL);
  if (err == CL_SUCCESS) return clsSuccess;
  return cls__ocl_error(err, "clEnqueueNDRangeKernel");
}

clsError_t cls__b_exec_launch(cls__bexec *x, cls__bstream *s) {
  clsError_t e = clsSuccess;
  x->launched = 1;
  size_t gen = cls__mem_gen();
  if (gen != x->gen && !x->dev->facts.buffers) {
    x->gen = gen; /* SVM pointers never go stale */
  } else if (gen != x->gen) {
    for (size_t i = 0; i < x->n && e == clsSuccess; ++i)
      if (x->nodes[i].b.kind == CLS__BNODE_KERNEL)
        e = cls__ox_set_args(x->dev, &x->nodes[i], 1);
    cls__ox_runs(x);
    if (e != clsSuccess) return e;
    x->gen = gen;
  }
  for (size_t i = 0; i < x->n && e == clsSuccess;) {
    const cls__oxnode *o = &x->nodes[i];
    switch (o->b.kind) {
    case CLS__BNODE_KERNEL: {
      /* One bracket per run of kernels; one launch each while tracing,
       * which needs every command's event, and for those passing host
       * buffers. */
      const int alone = cls__trace_on || o->via_launch;
      const size_t j = alone ? i + 1 : o->run_end;
      if (alone)
        e = cls__b_launch(o->b.f, o->b.grid, o->b.block, o->b.args, 0, s);
      else if (CLS__UNLIKELY(x->dev->facts.kc_guard))
        for (size_t k = i; k < j && e == clsSuccess; ++k)
          e = cls__ox_guarded(&x->nodes[k], s);
      else
        e = cls__ox_kernels(x, i, j, s);
      i = j;
      continue;
    }
    case CLS__BNODE_COPY:
      /* A pageable source is copied aside now, at the launch's issue. */
      if (o->b.n)
        e = cls__b_memcpy(s, o->b.dst, o->b.src, o->b.n, o->b.dir,
                          o->b.stage ? CLS__COPY_STAGE : CLS__COPY_ASYNC);
      break;
    case CLS__BNODE_SET:
      for (size_t r = 0; r < o->b.rows && e == clsSuccess; ++r)
        e = cls__b_memset(s, (char *)o->b.dst + r * o->b.pitch, o->b.value,
                          o->b.n, CLS__COPY_ASYNC);
      break;
    case CLS__BNODE_HOST:
      e = cls__b_stream_host_job(s, cls__oxjob_run, (void *)&o->job);
      break;
    default:
      break;
    }
    ++i;
  }
  return e;
}
