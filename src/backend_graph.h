/*
 * The seam (backend.h), continued: the contract's section for graph
 * replay (docs/design.md, "Capture and replay"), kept in a header of its
 * own so that backend.h stays readable; included at the end of
 * backend.h, and by nothing else.
 */
#ifndef CLSTREAM_BACKEND_GRAPH_H
#define CLSTREAM_BACKEND_GRAPH_H

/* ---- Graphs -------------------------------------------------------------
 * Called by graph.c (kernel nodes copy their arguments when they are made)
 * and graphexec.c (replay).  OpenCL: opencl/graph.c.  CUDA: cuda/graph.c. */

/* Stores in *n the number of f's parameters and, for i < min(*n, max), in
 * sizes[i] how many bytes a launch reads from args[i].  Fails as a launch
 * of f would for a kernel whose parameters cannot be passed. */
clsError_t cls__b_function_params(cls__bfunction *f, size_t *n, size_t *sizes,
                                  size_t max);

/* Replay.  The front keeps the graphs and orders an executable graph's
 * nodes topologically; it then offers them to the backend, which makes a
 * prepared replay of its own (CUDA: a cudaGraphExec_t built from the
 * nodes, cuda/graph.c; OpenCL: kernel objects with their arguments set
 * once, enqueued in order without events, opencl/replay.c), or *out NULL,
 * and the front issues the nodes one by one through the calls above.
 * Every node's deps name earlier positions; kernel args stay valid (the
 * front's) until the exec is destroyed or the node updated. */
typedef struct cls__bexec cls__bexec;
enum cls__bnode_kind {
  CLS__BNODE_EMPTY = 0,
  CLS__BNODE_KERNEL,
  CLS__BNODE_COPY, /* async; a host side may be pageable memory (stage) */
  CLS__BNODE_SET,  /* rows of n bytes, pitch apart */
  CLS__BNODE_HOST  /* fn(user), on a thread that runs only host work */
};
typedef struct cls__bnode {
  int kind;
  size_t ndeps;
  const size_t *deps;
  cls__bfunction *f; /* kernel */
  clsDim3 grid, block;
  size_t shmem; /* dynamic shared memory, bytes */
  void **args;
  void *dst; /* copy, set */
  const void *src;
  size_t n;
  clsMemcpyKind dir; /* copy, resolved */
  /* Copy: src is pageable host memory, which each launch reads when it is
   * issued (the bytes are staged, CLS__COPY_STAGE); a pageable dst is
   * written when the node runs.  CUDA stages such copies itself. */
  int stage;
  int value; /* set */
  size_t pitch, rows;
  clsHostFn_t fn; /* host */
  void *user;
} cls__bnode;
/* Prepares nodes[0..n) (in order: each node's deps come before it) for
 * replay on opened `dev`; *out NULL where the backend has no prepared
 * replay for them.  *ordered: the backend itself orders each launch after
 * the exec's previous one (else the front does, with a record and a
 * wait).  The front serializes launches, uploads and updates of one
 * exec. */
clsError_t cls__b_exec_prepare(int dev, const cls__bnode *nodes, size_t n,
                               cls__bexec **out, int *ordered);
/* Makes the uploads a first launch on `s` would make. */
clsError_t cls__b_exec_upload(cls__bexec *x, cls__bstream *s);
/* Issues the whole graph on `s`, after its earlier work (and, where
 * *ordered was set, after the exec's previous launch).  Never blocks. */
clsError_t cls__b_exec_launch(cls__bexec *x, cls__bstream *s);
/* New parameters for kernel node i (same function) in later launches. */
clsError_t cls__b_exec_kernel_update(cls__bexec *x, size_t i,
                                     const cls__bnode *node);
/* Releases x; launches already issued still run. */
void cls__b_exec_destroy(cls__bexec *x);

#endif /* CLSTREAM_BACKEND_GRAPH_H */
