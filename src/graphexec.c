/* Executable graphs: instantiate, launch, upload, destroy and kernel node
 * updates.
 *
 * An exec is a copy of its graph's nodes in a topological order (the
 * graph may be destroyed or changed afterwards), each node ready to issue
 * with no checks left: kernel arguments copied, functions resolved to the
 * device's backend function, copy directions and modes decided.  A launch
 * issues them in that order onto the launch stream: the stream is in
 * order, so every dependency holds without a wait or a barrier, and an
 * event recorded after the launch completes after the whole graph.
 *
 * Two launches of one exec never interleave: each launch ends with an
 * untimed record of the exec's own event, and a launch on another stream
 * than the previous one first waits for that record.  Launches are issued
 * under the exec's lock, so a launch and a kernel node update on another
 * thread do not tear a node's arguments.
 *
 * What an exec keeps alive: nothing of the streams and events its graph
 * was captured from (captured records and waits make no nodes), so those
 * may be destroyed at any time.  Kernel nodes name their function: a
 * launch checks that every kernel node's function is still live (its
 * module loaded) before it issues anything, and refuses with
 * clsErrorInvalidResourceHandle where one is not; launches already
 * issued run to the end, as launches of an unloaded module do. */
#include "graph.h"

#include "device.h"
#include "stream_resolve.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A host node's call as the backend's prepared replay makes it: the
 * record lives as long as the exec, and the exec's destruction waits for
 * its last launch when it has any (see clsGraphExecDestroy). */
typedef struct cls__hostrec {
  clsHostFn_t fn;
  clsStreamCallback_t cb;
  void *user;
  clsStream_t stream;
} cls__hostrec;

static void cls__hostrec_run(void *p) {
  const cls__hostrec *r = p;
  int was = cls__in_host_fn;
  cls__in_host_fn = 1;
  if (r->cb)
    r->cb(r->stream, clsSuccess, r->user);
  else
    r->fn(r->user);
  cls__in_host_fn = was;
}

typedef struct cls__exec {
  unsigned long long gid; /* the graph it was made from */
  int dev;                /* -1: no node needs a device */
  size_t n;
  cls__node *nodes; /* copies, in launch order */
  size_t gn;
  size_t *pos;          /* graph index -> launch position */
  pthread_mutex_t lock; /* launches and kernel node updates */
  cls__bevent *be;      /* the exec's event: its last launch's end */
  cls__btoken *last;
  cls__bstream *last_s;
  cls__bexec *bx;      /* the backend's prepared replay, or NULL */
  int bx_ordered;      /* bx orders launches itself */
  cls__hostrec *hosts; /* for bx: one per node (host nodes' used) */
  size_t nhost;        /* host nodes */
  int pageable;        /* a copy node touches pageable host memory */
  /* cls__module_unloads() when every kernel node's function was last
   * found live (SIZE_MAX: never), so that a launch looks at each node only
   * after a module was unloaded. */
  atomic_size_t live_at;
} cls__exec;

static void cls__exec_free(cls__exec *x) {
  for (size_t i = 0; i < x->n; ++i)
    if (x->nodes[i].kind == CLS__NODE_KERNEL)
      cls__kargs_free(&x->nodes[i].u.k.args);
  if (x->bx) cls__b_exec_destroy(x->bx);
  free(x->hosts);
  free(x->nodes);
  free(x->pos);
  cls__b_token_release(x->last);
  if (x->be) cls__b_event_destroy(x->be);
  pthread_mutex_destroy(&x->lock);
  free(x);
}

/* Orders g's nodes so that each comes after its dependencies (Kahn's
 * algorithm, ties in the order the nodes were added): order[i] is a graph
 * index. */
static clsError_t cls__topo(const cls__graph *g, size_t *order) {
  size_t n = g->n, *indeg = calloc(n + 1, sizeof *indeg);
  size_t *first = calloc(n + 1, sizeof *first), nedges = 0;
  for (size_t i = 0; i < n; ++i) nedges += g->nodes[i]->ndeps;
  size_t *succ = malloc((nedges + 1) * sizeof *succ);
  clsError_t e = clsSuccess;
  if (!indeg || !first || !succ) {
    e = cls__reason(clsErrorMemoryAllocation, "out of host memory");
    goto out;
  }
  /* Successor lists in one array: first[d] .. first[d+1] for node d. */
  for (size_t i = 0; i < n; ++i) {
    indeg[i] = g->nodes[i]->ndeps;
    for (size_t j = 0; j < g->nodes[i]->ndeps; ++j)
      first[g->nodes[i]->deps[j]->index]++;
  }
  size_t at = 0;
  for (size_t d = 0; d <= n; ++d) {
    size_t c = first[d];
    first[d] = at;
    at += c;
  }
  size_t *fill = calloc(n + 1, sizeof *fill);
  if (!fill) {
    e = cls__reason(clsErrorMemoryAllocation, "out of host memory");
    goto out;
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < g->nodes[i]->ndeps; ++j) {
      size_t d = g->nodes[i]->deps[j]->index;
      succ[first[d] + fill[d]++] = i;
    }
  free(fill);
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < n; ++i)
    if (!indeg[i]) order[tail++] = i;
  while (head < tail) {
    size_t v = order[head++];
    for (size_t k = first[v]; k < first[v + 1]; ++k)
      if (--indeg[succ[k]] == 0) order[tail++] = succ[k];
  }
  if (tail != n) e = cls__reason(clsErrorInvalidValue, "the graph has a cycle");
out:
  free(indeg);
  free(first);
  free(succ);
  return e;
}

/* Copies node `src` into `dst` for the exec (arguments deep-copied). */
static clsError_t cls__node_copy(cls__node *dst, const cls__node *src) {
  *dst = *src;
  dst->handle = 0;
  dst->deps = NULL;
  dst->ndeps = 0;
  dst->g = NULL;
  if (src->kind != CLS__NODE_KERNEL) return clsSuccess;
  memset(&dst->u.k.args, 0, sizeof dst->u.k.args);
  return cls__kargs_copy(src->u.k.bf, src->u.k.args.argv, &dst->u.k.args);
}

/* The backend's description of exec node i (deps: positions). */
static void cls__bnode_of(const cls__exec *x, size_t i, cls__bnode *b) {
  const cls__node *n = &x->nodes[i];
  memset(b, 0, sizeof *b);
  switch (n->kind) {
  case CLS__NODE_KERNEL:
    b->kind = CLS__BNODE_KERNEL;
    b->f = n->u.k.bf;
    b->grid = n->u.k.grid;
    b->block = n->u.k.block;
    b->shmem = n->u.k.shmem;
    b->args = n->u.k.args.argv;
    break;
  case CLS__NODE_COPY:
    b->kind = CLS__BNODE_COPY;
    b->dst = n->u.c.dst;
    b->src = n->u.c.src;
    b->n = n->u.c.n;
    b->dir = n->u.c.kind;
    b->stage = n->u.c.mode == CLS__COPY_STAGE;
    break;
  case CLS__NODE_SET:
    b->kind = CLS__BNODE_SET;
    b->dst = n->u.m.dst;
    b->value = n->u.m.value;
    b->n = n->u.m.n;
    b->pitch = n->u.m.pitch;
    b->rows = n->u.m.rows;
    break;
  case CLS__NODE_HOST:
    b->kind = CLS__BNODE_HOST;
    b->fn = cls__hostrec_run;
    b->user = &x->hosts[i];
    break;
  default:
    b->kind = CLS__BNODE_EMPTY;
  }
}

/* Offers the ordered nodes to the backend (g's lock held: the deps are
 * read from the graph). */
static clsError_t cls__exec_prepare(cls__exec *x, const cls__graph *g) {
  size_t ndeps = 0;
  for (size_t i = 0; i < x->n; ++i) {
    if (x->nodes[i].kind == CLS__NODE_HOST) x->nhost++;
    ndeps += g->nodes[i]->ndeps;
  }
  cls__bnode *b = calloc(x->n + 1, sizeof *b);
  size_t *deps = malloc((ndeps + 1) * sizeof *deps);
  x->hosts = calloc(x->n + 1, sizeof *x->hosts);
  clsError_t e = clsSuccess;
  if (!b || !deps || !x->hosts) {
    e = cls__reason(clsErrorMemoryAllocation, "out of host memory");
    goto out;
  }
  size_t at = 0;
  for (size_t gi = 0; gi < g->n; ++gi) {
    size_t i = x->pos[gi];
    const cls__node *gn = g->nodes[gi];
    cls__hostrec r = {gn->u.h.fn, gn->u.h.cb, gn->u.h.user, gn->u.h.stream};
    if (gn->kind == CLS__NODE_HOST) x->hosts[i] = r;
    cls__bnode_of(x, i, &b[i]);
    b[i].deps = deps + at;
    b[i].ndeps = gn->ndeps;
    for (size_t d = 0; d < gn->ndeps; ++d)
      deps[at++] = x->pos[gn->deps[d]->index];
  }
  e = cls__b_exec_prepare(x->dev, b, x->n, &x->bx, &x->bx_ordered);
out:
  free(b);
  free(deps);
  return e;
}

static clsError_t cls__instantiate(clsGraphExec_t *out, cls__graph *g) {
  cls__exec *x = calloc(1, sizeof *x);
  if (!x) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  pthread_mutex_init(&x->lock, NULL);
  atomic_init(&x->live_at, SIZE_MAX);
  clsError_t e = clsSuccess;
  size_t *order = NULL;
  pthread_mutex_lock(&g->lock);
  x->gid = g->gid;
  x->dev = g->dev;
  x->gn = g->n;
  x->nodes = calloc(g->n + 1, sizeof *x->nodes);
  x->pos = calloc(g->n + 1, sizeof *x->pos);
  order = malloc((g->n + 1) * sizeof *order);
  if (!x->nodes || !x->pos || !order)
    e = cls__reason(clsErrorMemoryAllocation, "out of host memory");
  if (e == clsSuccess) e = cls__topo(g, order);
  for (size_t i = 0; e == clsSuccess && i < g->n; ++i) {
    e = cls__node_copy(&x->nodes[i], g->nodes[order[i]]);
    x->pos[order[i]] = i;
    x->n = i + 1;
    if (x->nodes[i].kind == CLS__NODE_COPY && x->nodes[i].u.c.pageable)
      x->pageable = 1;
  }
  if (e == clsSuccess && x->dev < 0) e = cls__current_device(&x->dev);
  if (e == clsSuccess) e = cls__exec_prepare(x, g);
  pthread_mutex_unlock(&g->lock);
  free(order);
  if (e == clsSuccess)
    e = cls__b_event_create(x->dev, clsEventDisableTiming, &x->be);
  uintptr_t h = 0;
  if (e == clsSuccess && !(h = cls__handle_new(CLS__KIND_EXEC, x)))
    e = cls__reason(clsErrorMemoryAllocation, "the handle table is full");
  if (e != clsSuccess) {
    cls__exec_free(x);
    return e;
  }
  *out = (clsGraphExec_t)h;
  return clsSuccess;
}

clsError_t clsGraphInstantiate(clsGraphExec_t *exec, clsGraph_t g,
                               unsigned long long flags) {
  CLS__NOT_IN_HOST_FN();
  if (!exec) CLS__RETURN(cls__reason(clsErrorInvalidValue, "exec is NULL"));
  if (!g) CLS__RETURN(cls__reason(clsErrorInvalidValue, "graph is NULL"));
  if (flags)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "flags must be 0, not 0x%llx",
                            flags));
  cls__graph *gr = cls__handle_get(CLS__KIND_GRAPH, (uintptr_t)g);
  if (!gr)
    CLS__RETURN(cls__reason(clsErrorInvalidResourceHandle,
                            "graph %p is not a live graph", (void *)g));
  CLS__RETURN(cls__instantiate(exec, gr));
}

clsError_t cls__node_issue(const cls__node *n, cls__bstream *b) {
  switch (n->kind) {
  case CLS__NODE_KERNEL:
    return cls__b_launch(n->u.k.bf, n->u.k.grid, n->u.k.block, n->u.k.args.argv,
                         n->u.k.shmem, b);
  case CLS__NODE_COPY:
    if (!n->u.c.n) return clsSuccess;
    return cls__b_memcpy(b, n->u.c.dst, n->u.c.src, n->u.c.n, n->u.c.kind,
                         n->u.c.mode);
  case CLS__NODE_SET:
    for (size_t r = 0; r < n->u.m.rows; ++r) {
      clsError_t e = cls__b_memset(b, (char *)n->u.m.dst + r * n->u.m.pitch,
                                   n->u.m.value, n->u.m.n, CLS__COPY_ASYNC);
      if (e != clsSuccess) return e;
    }
    return clsSuccess;
  case CLS__NODE_HOST:
    return cls__host_job_issue(b, n->u.h.stream, n->u.h.fn, n->u.h.cb,
                               n->u.h.user);
  default:
    return clsSuccess;
  }
}

/* The exec and stream of a launch or upload, checked. */
static clsError_t cls__exec_target(clsGraphExec_t h, clsStream_t s,
                                   const char *what, cls__exec **xp,
                                   cls__bstream **bp) {
  if (!h) return cls__reason(clsErrorInvalidValue, "exec is NULL");
  cls__exec *x = cls__handle_get(CLS__KIND_EXEC, (uintptr_t)h);
  if (!x)
    return cls__reason(clsErrorInvalidResourceHandle,
                       "exec %p is not a live executable graph", (void *)h);
  int dev;
  cls__bstream *b;
  clsError_t e = cls__stream_resolve(s, &dev, &b, NULL, NULL);
  if (e != clsSuccess) return e;
  if (CLS__CAPTURING() && cls__cap_refuse(s, b, what, &e)) return e;
  if (dev != x->dev)
    return cls__reason(clsErrorInvalidValue,
                       "the exec's nodes are on device %d, the stream on %d",
                       x->dev, dev);
  size_t unloads = cls__module_unloads();
  if (atomic_load_explicit(&x->live_at, memory_order_relaxed) != unloads) {
    for (size_t i = 0; i < x->n; ++i)
      if (x->nodes[i].kind == CLS__NODE_KERNEL &&
          !cls__handle_get(CLS__KIND_FUNCTION, x->nodes[i].u.k.fn))
        return cls__reason(clsErrorInvalidResourceHandle,
                           "kernel node %zu's function is no longer live (its "
                           "module was unloaded)",
                           i);
    atomic_store_explicit(&x->live_at, unloads, memory_order_relaxed);
  }
  *xp = x;
  *bp = b;
  return clsSuccess;
}

clsError_t clsGraphLaunch(clsGraphExec_t h, clsStream_t s) {
  CLS__NOT_IN_HOST_FN();
  cls__exec *x;
  cls__bstream *b;
  clsError_t e = cls__exec_target(h, s, "clsGraphLaunch", &x, &b);
  if (e != clsSuccess) CLS__RETURN(e);
  /* CUDA 13 returns from a launch on the legacy stream of a graph with a
   * copy over pageable memory only once the graph is done (measured on
   * the H100); on any other stream at once. */
  const int sync = x->pageable && (s == NULL || s == clsStreamLegacy);
  pthread_mutex_lock(&x->lock);
  /* After the exec's previous launch, wherever it was issued. */
  if (x->last && x->last_s != b && !(x->bx && x->bx_ordered))
    e = cls__b_stream_wait_token(b, x->last);
  if (e == clsSuccess && x->bx) {
    e = cls__b_exec_launch(x->bx, b);
    /* A backend that orders launches itself needs no record, but for
     * the host records that clsGraphExecDestroy must outlive and for a
     * launch to wait for. */
    if (x->bx_ordered && ((!x->nhost && !sync) || e != clsSuccess)) {
      pthread_mutex_unlock(&x->lock);
      CLS__RETURN(e);
    }
  } else {
    for (size_t i = 0; e == clsSuccess && i < x->n; ++i)
      e = cls__node_issue(&x->nodes[i], b);
  }
  cls__btoken *t = NULL;
  int complete = 0;
  clsError_t r = cls__b_record(x->be, b, clsEventDisableTiming, &t, &complete);
  if (r == clsSuccess) {
    cls__b_token_release(x->last);
    x->last = t;
    x->last_s = b;
    if (sync && t) cls__b_token_retain(t);
  }
  pthread_mutex_unlock(&x->lock);
  if (sync && t) {
    /* Outside the exec's lock: another launch may go on meanwhile. */
    if (e == clsSuccess) r = cls__b_token_wait(t, 0);
    cls__b_token_release(t);
  }
  CLS__RETURN(e != clsSuccess ? e : r);
}

clsError_t clsGraphUpload(clsGraphExec_t h, clsStream_t s) {
  CLS__NOT_IN_HOST_FN();
  cls__exec *x;
  cls__bstream *b;
  clsError_t e = cls__exec_target(h, s, "clsGraphUpload", &x, &b);
  /* Without a prepared replay the exec is ready to issue from its
   * instantiation: nothing is left to upload. */
  if (e == clsSuccess && x->bx) {
    pthread_mutex_lock(&x->lock);
    e = cls__b_exec_upload(x->bx, b);
    pthread_mutex_unlock(&x->lock);
  }
  CLS__RETURN(e);
}

clsError_t clsGraphExecDestroy(clsGraphExec_t h) {
  CLS__NOT_IN_HOST_FN();
  cls__exec *x = cls__handle_retire(CLS__KIND_EXEC, (uintptr_t)h);
  if (!x)
    CLS__RETURN(cls__reason(clsErrorInvalidResourceHandle,
                            "exec %p is not a live executable graph",
                            (void *)h));
  /* A launch on another thread that found the handle before the retire
   * holds the lock until its commands are issued. */
  pthread_mutex_lock(&x->lock);
  pthread_mutex_unlock(&x->lock);
  /* A prepared replay's host nodes read the exec's records when they run:
   * the records go once the last launch is over. */
  clsError_t e = clsSuccess;
  if (x->bx && x->nhost && x->last) e = cls__b_token_wait(x->last, 0);
  cls__exec_free(x);
  CLS__RETURN(e);
}

clsError_t clsGraphExecKernelNodeSetParams(clsGraphExec_t h,
                                           clsGraphNode_t node,
                                           const clsKernelNodeParams *p) {
  CLS__NOT_IN_HOST_FN();
  cls__exec *x = cls__handle_get(CLS__KIND_EXEC, (uintptr_t)h);
  if (!x)
    CLS__RETURN(cls__reason(clsErrorInvalidResourceHandle,
                            "exec %p is not a live executable graph",
                            (void *)h));
  cls__node *gn = cls__handle_get(CLS__KIND_NODE, (uintptr_t)node);
  if (!gn || gn->g->gid != x->gid || gn->index >= x->gn)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "node %p is not a node of the graph the exec was "
                            "made from",
                            (void *)node));
  cls__node *xn = &x->nodes[x->pos[gn->index]];
  if (xn->kind != CLS__NODE_KERNEL)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "the node is no kernel"));
  cls__node fresh;
  memset(&fresh, 0, sizeof fresh);
  int dev;
  clsError_t e = cls__kernel_node_params(p, &dev, &fresh);
  if (e == clsSuccess && (fresh.u.k.fn != xn->u.k.fn || dev != x->dev)) {
    cls__kargs_free(&fresh.u.k.args);
    e = cls__reason(clsErrorInvalidValue,
                    "a kernel node's function and device cannot change");
  }
  if (e != clsSuccess) CLS__RETURN(e);
  pthread_mutex_lock(&x->lock);
  cls__kargs old = xn->u.k.args;
  xn->u.k.grid = fresh.u.k.grid;
  xn->u.k.block = fresh.u.k.block;
  xn->u.k.shmem = fresh.u.k.shmem;
  xn->u.k.args = fresh.u.k.args;
  if (x->bx) {
    cls__bnode b;
    cls__bnode_of(x, x->pos[gn->index], &b);
    e = cls__b_exec_kernel_update(x->bx, x->pos[gn->index], &b);
  }
  pthread_mutex_unlock(&x->lock);
  cls__kargs_free(&old);
  CLS__RETURN(e);
}
