/* Graphs: creation and destruction, nodes and their dependencies, the
 * hand-built node calls (clsGraphAdd*Node; kernel nodes in kernelnode.c)
 * and clsGraphGetNodes.  A captured graph is built by the capture hooks
 * through cls__graph_add and handed over here once its capture ends.  It
 * lies below the hooks and calls no file that issues work. */
#include "graph.h"
#include "memcheck.h"

#include <stdlib.h>
#include <string.h>

static atomic_ullong cls__next_gid = 1;

clsError_t cls__graph_new(cls__graph **out) {
  cls__graph *g = calloc(1, sizeof *g);
  if (!g) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  g->gid = atomic_fetch_add(&cls__next_gid, 1);
  g->dev = -1;
  pthread_mutex_init(&g->lock, NULL);
  *out = g;
  return clsSuccess;
}

clsError_t cls__graph_publish(cls__graph *g) {
  g->handle = cls__handle_new(CLS__KIND_GRAPH, g);
  return g->handle ? clsSuccess
                   : cls__reason(clsErrorMemoryAllocation,
                                 "the handle table is full");
}

static void cls__node_free(cls__node *n) {
  if (n->handle) cls__handle_retire(CLS__KIND_NODE, n->handle);
  if (n->kind == CLS__NODE_KERNEL) cls__kargs_free(&n->u.k.args);
  free(n->deps);
  free(n);
}

void cls__graph_free(cls__graph *g) {
  if (g->handle) cls__handle_retire(CLS__KIND_GRAPH, g->handle);
  for (size_t i = 0; i < g->n; ++i) cls__node_free(g->nodes[i]);
  free(g->nodes);
  pthread_mutex_destroy(&g->lock);
  free(g);
}

clsError_t cls__graph_add(cls__graph *g, int kind, cls__node *const *deps,
                          size_t ndeps, cls__node **out) {
  if (g->n == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 16;
    cls__node **a = realloc(g->nodes, cap * sizeof *a);
    if (!a) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
    g->nodes = a;
    g->cap = cap;
  }
  cls__node *n = calloc(1, sizeof *n);
  if (n && ndeps) n->deps = malloc(ndeps * sizeof *n->deps);
  if (!n || (ndeps && !n->deps)) {
    if (n) free(n);
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  }
  if (ndeps) memcpy(n->deps, deps, ndeps * sizeof *deps);
  n->ndeps = ndeps;
  n->g = g;
  n->kind = kind;
  n->index = g->n;
  n->handle = cls__handle_new(CLS__KIND_NODE, n);
  if (!n->handle) {
    free(n->deps);
    free(n);
    return cls__reason(clsErrorMemoryAllocation, "the handle table is full");
  }
  g->nodes[g->n++] = n;
  *out = n;
  return clsSuccess;
}

void cls__graph_drop_last(cls__graph *g) {
  cls__node *n = g->nodes[--g->n];
  n->kind = CLS__NODE_EMPTY; /* its fields are the caller's, freed */
  cls__node_free(n);
}

/* ---- Kernel arguments ---------------------------------------------------- */

void cls__kargs_free(cls__kargs *a) {
  free(a->argv);
  free(a->blob);
  memset(a, 0, sizeof *a);
}

clsError_t cls__kargs_copy(cls__bfunction *bf, void **args, cls__kargs *out) {
  size_t n = 0, fixed[16], *sizes = fixed;
  clsError_t e = cls__b_function_params(bf, &n, fixed, 16);
  if (e != clsSuccess) return e;
  if (n > 16) {
    sizes = malloc(n * sizeof *sizes);
    if (!sizes) return cls__reason(clsErrorMemoryAllocation, "out of memory");
    e = cls__b_function_params(bf, &n, sizes, n);
  }
  memset(out, 0, sizeof *out);
  if (e == clsSuccess && n && !args)
    e = cls__reason(clsErrorInvalidValue,
                    "the kernel has %zu parameters but args is NULL", n);
  /* Each value at a 16-byte boundary, so that it is aligned for any
   * parameter type. */
  size_t total = 0;
  for (size_t i = 0; e == clsSuccess && i < n; ++i) {
    if (!args[i]) e = cls__reason(clsErrorInvalidValue, "args[%zu] is NULL", i);
    total += (sizes[i] + 15) & ~(size_t)15;
  }
  if (e == clsSuccess && n) {
    out->argv = malloc(n * sizeof *out->argv);
    out->blob = malloc(total ? total : 1);
    if (!out->argv || !out->blob)
      e = cls__reason(clsErrorMemoryAllocation, "out of host memory");
  }
  size_t at = 0;
  for (size_t i = 0; e == clsSuccess && i < n; ++i) {
    memcpy(out->blob + at, args[i], sizes[i]);
    out->argv[i] = out->blob + at;
    at += (sizes[i] + 15) & ~(size_t)15;
  }
  out->n = n;
  if (e != clsSuccess) cls__kargs_free(out);
  if (sizes != fixed) free(sizes);
  return e;
}

/* ---- Graphs ----------------------------------------------------------------
 */

static cls__graph *cls__graph_lookup(clsGraph_t h) {
  return cls__handle_get(CLS__KIND_GRAPH, (uintptr_t)h);
}

#define CLS__BAD_GRAPH(h)                                                      \
  cls__reason(clsErrorInvalidResourceHandle, "graph %p is not a live graph",   \
              (void *)(h))

clsError_t clsGraphCreate(clsGraph_t *out, unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  if (!out) CLS__RETURN(cls__reason(clsErrorInvalidValue, "graph is NULL"));
  if (flags)
    CLS__RETURN(
        cls__reason(clsErrorInvalidValue, "flags must be 0, not 0x%x", flags));
  cls__graph *g = NULL;
  clsError_t e = cls__graph_new(&g);
  if (e == clsSuccess && (e = cls__graph_publish(g)) != clsSuccess)
    cls__graph_free(g);
  if (e == clsSuccess) *out = (clsGraph_t)g->handle;
  CLS__RETURN(e);
}

clsError_t clsGraphDestroy(clsGraph_t h) {
  CLS__NOT_IN_HOST_FN();
  cls__graph *g = cls__handle_retire(CLS__KIND_GRAPH, (uintptr_t)h);
  if (!g) CLS__RETURN(CLS__BAD_GRAPH(h));
  g->handle = 0;
  cls__graph_free(g);
  CLS__RETURN(clsSuccess);
}

clsError_t clsGraphGetNodes(clsGraph_t h, clsGraphNode_t *nodes,
                            size_t *numNodes) {
  CLS__NOT_IN_HOST_FN();
  if (!numNodes)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "numNodes is NULL"));
  cls__graph *g = cls__graph_lookup(h);
  if (!g) CLS__RETURN(CLS__BAD_GRAPH(h));
  pthread_mutex_lock(&g->lock);
  if (nodes) {
    size_t k = *numNodes < g->n ? *numNodes : g->n;
    for (size_t i = 0; i < k; ++i)
      nodes[i] = (clsGraphNode_t)g->nodes[i]->handle;
    *numNodes = k;
  } else {
    *numNodes = g->n;
  }
  pthread_mutex_unlock(&g->lock);
  CLS__RETURN(clsSuccess);
}

/* The nodes behind deps[0..n), all of g (ndeps checked against NULL). */
static clsError_t cls__deps_resolve(cls__graph *g, const clsGraphNode_t *deps,
                                    size_t n, cls__node **out) {
  if (n && !deps)
    return cls__reason(clsErrorInvalidValue, "deps is NULL with numDeps %zu",
                       n);
  for (size_t i = 0; i < n; ++i) {
    cls__node *d = cls__handle_get(CLS__KIND_NODE, (uintptr_t)deps[i]);
    if (!d || d->g != g)
      return cls__reason(clsErrorInvalidValue,
                         "deps[%zu] = %p is not a node of the graph", i,
                         (void *)deps[i]);
    for (size_t j = 0; j < i; ++j)
      if (out[j] == d)
        return cls__reason(clsErrorInvalidValue, "deps[%zu] repeats a node", i);
    out[i] = d;
  }
  return clsSuccess;
}

/* What every clsGraphAdd*Node shares: checks, the graph's lock, the node.
 * On success the lock is held and *node has its kind's fields to fill. */
clsError_t cls__graph_add_begin(clsGraphNode_t *out, clsGraph_t h,
                                const clsGraphNode_t *deps, size_t ndeps,
                                int kind, cls__graph **gp, cls__node **node) {
  if (!out) return cls__reason(clsErrorInvalidValue, "node is NULL");
  cls__graph *g = cls__graph_lookup(h);
  if (!g) return CLS__BAD_GRAPH(h);
  cls__node *fixed[8], **d = fixed;
  if (ndeps > 8 && !(d = malloc(ndeps * sizeof *d)))
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  pthread_mutex_lock(&g->lock);
  clsError_t e = cls__deps_resolve(g, deps, ndeps, d);
  if (e == clsSuccess) e = cls__graph_add(g, kind, d, ndeps, node);
  if (d != fixed) free(d);
  if (e != clsSuccess) {
    pthread_mutex_unlock(&g->lock);
    return e;
  }
  *gp = g;
  return clsSuccess;
}

/* Ends a clsGraphAdd*Node: keeps the node on success, else drops it. */
clsError_t cls__graph_add_end(cls__graph *g, cls__node *n, clsError_t e,
                              clsGraphNode_t *out) {
  if (e == clsSuccess)
    *out = (clsGraphNode_t)n->handle;
  else
    cls__graph_drop_last(g);
  pthread_mutex_unlock(&g->lock);
  return e;
}

clsError_t clsGraphAddEmptyNode(clsGraphNode_t *node, clsGraph_t g,
                                const clsGraphNode_t *deps, size_t numDeps) {
  CLS__NOT_IN_HOST_FN();
  cls__graph *gr;
  cls__node *n;
  clsError_t e =
      cls__graph_add_begin(node, g, deps, numDeps, CLS__NODE_EMPTY, &gr, &n);
  if (e == clsSuccess) e = cls__graph_add_end(gr, n, clsSuccess, node);
  CLS__RETURN(e);
}

/* Whether p lies in a known allocation with n bytes from it, for
 * hand-built memset nodes. */
static int cls__dev_range(const void *p, size_t n) {
  void *base;
  size_t size;
  int kind = cls__mem_lookup(p, &base, &size, NULL);
  return kind != CLS__MEM_NONE &&
         n <= size - (size_t)((const char *)p - (const char *)base);
}

void cls__copy_node_set(cls__node *n, void *dst, const void *src, size_t count,
                        clsMemcpyKind kind, int pageable_dst,
                        int pageable_src) {
  n->u.c.dst = dst;
  n->u.c.src = src;
  n->u.c.n = count;
  n->u.c.kind = kind;
  n->u.c.mode = pageable_src ? CLS__COPY_STAGE : CLS__COPY_ASYNC;
  n->u.c.pageable = pageable_dst || pageable_src;
}

clsError_t clsGraphAddMemcpyNode1D(clsGraphNode_t *node, clsGraph_t g,
                                   const clsGraphNode_t *deps, size_t numDeps,
                                   void *dst, const void *src, size_t count,
                                   clsMemcpyKind kind) {
  CLS__NOT_IN_HOST_FN();
  /* As clsMemcpyAsync checks its sides: device sides in device memory,
   * host sides pinned, registered, managed or pageable (CUDA 13 takes
   * malloc'ed and stack memory on either side of a copy node). */
  clsMemcpyKind k;
  int pdst, psrc;
  cls__where dw, sw;
  clsError_t e =
      cls__copy_check(dst, src, count, kind, &k, &dw, &sw, &pdst, &psrc);
  if (e != clsSuccess) CLS__RETURN(e);
  cls__graph *gr;
  cls__node *n;
  e = cls__graph_add_begin(node, g, deps, numDeps, CLS__NODE_COPY, &gr, &n);
  if (e != clsSuccess) CLS__RETURN(e);
  cls__copy_node_set(n, dst, src, count, k, pdst, psrc);
  CLS__RETURN(cls__graph_add_end(gr, n, clsSuccess, node));
}

clsError_t clsGraphAddMemsetNode(clsGraphNode_t *node, clsGraph_t g,
                                 const clsGraphNode_t *deps, size_t numDeps,
                                 const clsMemsetParams *p) {
  CLS__NOT_IN_HOST_FN();
  if (!p) CLS__RETURN(cls__reason(clsErrorInvalidValue, "params is NULL"));
  unsigned es = p->elementSize;
  if (es != 1 && es != 2 && es != 4)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "elementSize %u is not 1, 2 or 4", es));
  /* The backends fill bytes: a wider element must repeat one byte. */
  unsigned char b0 = (unsigned char)p->value;
  for (unsigned i = 1; i < es; ++i)
    if ((unsigned char)(p->value >> (8 * i)) != b0)
      CLS__RETURN(cls__reason(clsErrorNotSupported,
                              "a memset node of %u-byte elements must "
                              "repeat one byte (value 0x%x)",
                              es, p->value));
  size_t row = p->width * es, rows = p->height;
  if (!p->dst || !row || !rows || (rows > 1 && p->pitch < row) ||
      !cls__dev_range(p->dst, (rows - 1) * p->pitch + row))
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "memset node: dst %p, %zu rows of %zu bytes, "
                            "pitch %zu do not lie in one allocation",
                            p->dst, rows, row, p->pitch));
  cls__graph *gr;
  cls__node *n;
  clsError_t e =
      cls__graph_add_begin(node, g, deps, numDeps, CLS__NODE_SET, &gr, &n);
  if (e != clsSuccess) CLS__RETURN(e);
  n->u.m.dst = p->dst;
  n->u.m.value = b0;
  n->u.m.n = row;
  n->u.m.pitch = rows > 1 ? p->pitch : row;
  n->u.m.rows = rows;
  CLS__RETURN(cls__graph_add_end(gr, n, clsSuccess, node));
}

clsError_t clsGraphAddHostNode(clsGraphNode_t *node, clsGraph_t g,
                               const clsGraphNode_t *deps, size_t numDeps,
                               const clsHostNodeParams *p) {
  CLS__NOT_IN_HOST_FN();
  if (!p || !p->fn)
    CLS__RETURN(
        cls__reason(clsErrorInvalidValue, "params%s is NULL", p ? "->fn" : ""));
  cls__graph *gr;
  cls__node *n;
  clsError_t e =
      cls__graph_add_begin(node, g, deps, numDeps, CLS__NODE_HOST, &gr, &n);
  if (e != clsSuccess) CLS__RETURN(e);
  n->u.h.fn = p->fn;
  n->u.h.user = p->userData;
  CLS__RETURN(cls__graph_add_end(gr, n, clsSuccess, node));
}

int cls__graph_walk(cls__node *const *from, size_t n, unsigned char *seen,
                    cls__node **stack, const cls__node *stop) {
  size_t top = 0;
  for (size_t i = 0; i < n; ++i)
    if (!seen[from[i]->index]) {
      seen[from[i]->index] = 1;
      stack[top++] = from[i];
    }
  while (top) {
    cls__node *v = stack[--top];
    if (v == stop) return 1;
    for (size_t i = 0; i < v->ndeps; ++i)
      if (!seen[v->deps[i]->index]) {
        seen[v->deps[i]->index] = 1;
        stack[top++] = v->deps[i];
      }
  }
  return 0;
}

/* Whether `from` is `to` or runs after it (a new edge to -> from would
 * close a cycle). */
static int cls__reaches_node(cls__graph *g, cls__node *from, cls__node *to) {
  unsigned char *seen = calloc(g->n + 1, 1);
  cls__node **stack = malloc((g->n + 1) * sizeof *stack);
  /* Out of memory: refuse rather than risk a cycle. */
  int found = !seen || !stack || cls__graph_walk(&from, 1, seen, stack, to);
  free(seen);
  free(stack);
  return found;
}

clsError_t clsGraphAddDependencies(clsGraph_t h, const clsGraphNode_t *from,
                                   const clsGraphNode_t *to, size_t n) {
  CLS__NOT_IN_HOST_FN();
  cls__graph *g = cls__graph_lookup(h);
  if (!g) CLS__RETURN(CLS__BAD_GRAPH(h));
  if (n && (!from || !to))
    CLS__RETURN(
        cls__reason(clsErrorInvalidValue, "%s is NULL", from ? "to" : "from"));
  clsError_t e = clsSuccess;
  pthread_mutex_lock(&g->lock);
  for (size_t i = 0; i < n && e == clsSuccess; ++i) {
    cls__node *a = cls__handle_get(CLS__KIND_NODE, (uintptr_t)from[i]);
    cls__node *b = cls__handle_get(CLS__KIND_NODE, (uintptr_t)to[i]);
    if (!a || !b || a->g != g || b->g != g) {
      e = cls__reason(clsErrorInvalidValue,
                      "edge %zu: a node is not a node of the graph", i);
      break;
    }
    int dup = 0;
    for (size_t j = 0; j < b->ndeps; ++j) dup |= b->deps[j] == a;
    if (dup) {
      e = cls__reason(clsErrorInvalidValue, "edge %zu is already there", i);
    } else if (cls__reaches_node(g, a, b)) {
      e = cls__reason(clsErrorInvalidValue, "edge %zu would close a cycle", i);
    } else {
      cls__node **d = realloc(b->deps, (b->ndeps + 1) * sizeof *d);
      if (!d) {
        e = cls__reason(clsErrorMemoryAllocation, "out of host memory");
      } else {
        d[b->ndeps++] = a;
        b->deps = d;
      }
    }
  }
  pthread_mutex_unlock(&g->lock);
  CLS__RETURN(e);
}
