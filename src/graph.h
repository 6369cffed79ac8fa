/* Private to the front: graphs and their nodes (graph.c; kernel nodes in
 * kernelnode.c), the capture hooks that the calls issuing work to a stream
 * make (capture_hooks.c, over capture.c's state), and the executable
 * graphs' replay (graphexec.c).
 *
 * A graph is a list of nodes in the order they were added; each node
 * names the nodes it runs after.  Captured work becomes nodes of the
 * capture's graph: the hooks below are the one place where a call that
 * would issue work to a stream asks whether the stream captures, and
 * where the calls a capture refuses are refused.  Each is called only
 * while CLS__CAPTURING() holds, so a process that never captures pays one
 * relaxed atomic load per call. */
#ifndef CLSTREAM_GRAPH_H
#define CLSTREAM_GRAPH_H

#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>

enum cls__node_kind {
  CLS__NODE_EMPTY = 0,
  CLS__NODE_KERNEL,
  CLS__NODE_COPY,
  CLS__NODE_SET,
  CLS__NODE_HOST
};

/* A kernel's argument values, copied when the node is made: argv[i]
 * points into blob, as clsLaunchKernel's args[i] would. */
typedef struct cls__kargs {
  size_t n;
  void **argv;
  unsigned char *blob;
} cls__kargs;

typedef struct cls__node cls__node;
typedef struct cls__graph cls__graph;

struct cls__node {
  uintptr_t handle; /* its clsGraphNode_t */
  cls__graph *g;
  size_t index; /* position in g->nodes */
  int kind;     /* enum cls__node_kind */
  size_t ndeps;
  cls__node **deps;
  union {
    struct {
      uintptr_t fn; /* the clsFunction_t, checked live at every launch */
      cls__bfunction *bf;
      clsDim3 grid, block;
      size_t shmem; /* dynamic shared memory, bytes */
      cls__kargs args;
    } k;
    struct {
      void *dst;
      const void *src;
      size_t n;
      clsMemcpyKind kind; /* resolved */
      /* CLS__COPY_STAGE where src is pageable host memory, which each
       * launch copies aside when it is issued; else CLS__COPY_ASYNC. */
      int mode;
      int pageable; /* a side is pageable host memory */
    } c;
    struct {
      void *dst;
      int value;
      size_t n, pitch, rows; /* rows of n bytes, pitch apart */
    } m;
    struct {
      clsHostFn_t fn;         /* a host function, or */
      clsStreamCallback_t cb; /* a stream callback */
      void *user;
      clsStream_t stream; /* as the callback's caller named it */
    } h;
  } u;
};

struct cls__graph {
  uintptr_t handle;       /* 0 while a capture builds it */
  unsigned long long gid; /* unique: execs tell their graph's nodes by it */
  int dev;                /* the device of its kernels and copies, or -1 */
  pthread_mutex_t lock;   /* guards nodes (hand-built graphs) */
  size_t n, cap;
  cls__node **nodes;
};

/* ---- Graphs and nodes (graph.c) ---------------------------------------- */

/* A new graph with no handle yet (a capture's). */
clsError_t cls__graph_new(cls__graph **out);
/* Registers g's handle. */
clsError_t cls__graph_publish(cls__graph *g);
/* Frees g and its nodes, retiring every handle. */
void cls__graph_free(cls__graph *g);
/* Adds a node of `kind` after deps[0..ndeps) to g; *node gets it with
 * its handle registered and the kind's fields zeroed for the caller to
 * fill (the caller holds whatever lock guards g). */
clsError_t cls__graph_add(cls__graph *g, int kind, cls__node *const *deps,
                          size_t ndeps, cls__node **node);
/* Marks in seen[] (indexed by node index) every node that from[0..n) run
 * after, and those nodes themselves, but for nodes already marked;
 * `stack` has room for every node of the graph.  Returns 1 as soon as it
 * meets `stop` (NULL: never), else 0. */
int cls__graph_walk(cls__node *const *from, size_t n, unsigned char *seen,
                    cls__node **stack, const cls__node *stop);
/* Undoes the last cls__graph_add (its fields already freed). */
void cls__graph_drop_last(cls__graph *g);
/* Fills copy node n (hand-built or captured) with its sides, as a graph
 * copies them (docs/semantics.md, the graph rows of CUDA 13): a pageable
 * source is read when a launch is issued (staged), a pageable destination
 * is written when the node runs, and a launch on the legacy stream of a
 * graph with such a node returns once the graph is done (graphexec.c). */
void cls__copy_node_set(cls__node *n, void *dst, const void *src, size_t count,
                        clsMemcpyKind kind, int pageable_dst, int pageable_src);
/* Copies the argument values a launch of bf reads from args. */
clsError_t cls__kargs_copy(cls__bfunction *bf, void **args, cls__kargs *out);
void cls__kargs_free(cls__kargs *a);
/* What every clsGraphAdd*Node shares: checks `out`, `h` and the deps,
 * takes g's lock and adds a node of `kind`.  On success the lock is held,
 * *gp is the graph and *node has its kind's fields to fill; end with
 * cls__graph_add_end, which keeps the node when e is clsSuccess, else
 * drops it, and unlocks. */
clsError_t cls__graph_add_begin(clsGraphNode_t *out, clsGraph_t h,
                                const clsGraphNode_t *deps, size_t ndeps,
                                int kind, cls__graph **gp, cls__node **node);
clsError_t cls__graph_add_end(cls__graph *g, cls__node *n, clsError_t e,
                              clsGraphNode_t *out);
/* Checks kernel node parameters (as clsGraphAddKernelNode takes them) on
 * the current device, stored in *dev, and fills n's kernel fields
 * (kernelnode.c). */
clsError_t cls__kernel_node_params(const clsKernelNodeParams *p, int *dev,
                                   cls__node *n);

/* ---- Capture hooks (capture_hooks.c)
 * ----------------------------------------- */

/* Streams in a capture (any state): non-zero while one may be. */
extern atomic_int cls__cap_live;
#define CLS__CAPTURING()                                                       \
  CLS__UNLIKELY(atomic_load_explicit(&cls__cap_live, memory_order_relaxed))

/* What an event holds of a record made in a capture (event.c owns it and
 * hands it to the hooks): the capture's id and the nodes the record
 * captured.  rec is 0 when the event's last record was not in a capture. */
typedef struct cls__evcap {
  _Atomic int rec;
  unsigned long long id;
  size_t n;
  cls__node **nodes;
} cls__evcap;

/* The issue hooks: each returns 1 where the call is handled (the work
 * became a node, or the capture refused it: the call returns *err), 0
 * where the stream does not capture and the call goes on.  `h` is the
 * stream as the caller named it, `b` it resolved. */
int cls__cap_kernel(clsStream_t h, cls__bstream *b, clsFunction_t f,
                    cls__bfunction *bf, clsDim3 grid, clsDim3 block,
                    void **args, size_t shmem, clsError_t *err);
int cls__cap_copy(clsStream_t h, cls__bstream *b, void *dst, const void *src,
                  size_t n, clsMemcpyKind kind, int pageable_dst,
                  int pageable_src, int across, clsError_t *err);
int cls__cap_set(clsStream_t h, cls__bstream *b, void *dst, int value, size_t n,
                 clsError_t *err);
int cls__cap_host(clsStream_t h, cls__bstream *b, clsHostFn_t fn,
                  clsStreamCallback_t cb, void *user, clsError_t *err);
/* A call on `b` that a capture refuses (synchronize, query, stream-ordered
 * allocation): StreamCaptureUnsupported, and the capture is invalidated. */
int cls__cap_refuse(clsStream_t h, cls__bstream *b, const char *what,
                    clsError_t *err);
/* An unsafe call (allocation, free) under the capture modes: clsSuccess, or
 * StreamCaptureUnsupported with the captures that forbid it invalidated. */
clsError_t cls__cap_unsafe(const char *what);
/* The hook line of an unsafe call: returns from it when refused. */
#define CLS__CAP_UNSAFE(what)                                                  \
  do {                                                                         \
    clsError_t cap_e_ = cls__cap_unsafe(what);                                 \
    if (cap_e_ != clsSuccess) CLS__RETURN(cap_e_);                             \
  } while (0)
/* clsDeviceSynchronize: refused while any stream of dev captures. */
clsError_t cls__cap_device_sync(int dev);
/* clsEventRecord on `b`: handled when b captures (ec takes the record). */
int cls__cap_record(clsStream_t h, cls__bstream *b, cls__evcap *ec,
                    clsError_t *err);
/* clsStreamWaitEvent: handled when b captures or ec holds a captured
 * record (fork, join, Isolation, a capture that ended).  `recorded`: the
 * event has a record outside any capture. */
int cls__cap_wait(clsStream_t h, cls__bstream *b, cls__evcap *ec, int recorded,
                  clsError_t *err);
/* Query or synchronize of an event whose last record was captured. */
clsError_t cls__cap_event_use(cls__evcap *ec, const char *what);
/* The event is recorded outside a capture, or destroyed. */
void cls__cap_event_forget(cls__evcap *ec);
/* A stream is destroyed: it leaves its capture, which is invalidated. */
void cls__cap_stream_gone(cls__bstream *b);

/* ---- Replay (graphexec.c) ---------------------------------------------- */

/* Issues one node on `b` (the exec's replay, and nothing else). */
clsError_t cls__node_issue(const cls__node *n, cls__bstream *b);

/* The host-job path of clsLaunchHostFunc and clsStreamAddCallback, past
 * the capture hook (stream.c). */
clsError_t cls__host_job_issue(cls__bstream *b, clsStream_t h, clsHostFn_t fn,
                               clsStreamCallback_t cb, void *user);
/* The backend function of clsFunction_t f on dev (module.c). */
clsError_t cls__function_get(clsFunction_t f, int dev, cls__bfunction **bf);
/* How many modules have been unloaded (module.c): a function live when
 * the count was n is live while it stays n. */
size_t cls__module_unloads(void);

#endif /* CLSTREAM_GRAPH_H */
