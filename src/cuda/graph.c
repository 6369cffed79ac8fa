/* CUDA backend: what graphs need of a kernel (backend.h, "Graphs"): the
 * size of each parameter, from the runtime's cudaFuncGetParamInfo, so that
 * a kernel node can copy the argument values when it is made. */
#include "cuda_be.h"

#include <stdlib.h>

clsError_t cls__b_function_params(cls__bfunction *f, size_t *n, size_t *sizes,
                                  size_t max) {
  size_t i = 0;
  for (;; ++i) {
    size_t offset = 0, size = 0;
    cudaError_t r =
        cudaFuncGetParamInfo((const void *)f->kernel, i, &offset, &size);
    if (r == cudaErrorInvalidValue) {
      (void)cudaGetLastError(); /* past the last parameter */
      break;
    }
    if (r != cudaSuccess) return cls__cuda_rt(r, "cudaFuncGetParamInfo");
    if (i < max) sizes[i] = size;
  }
  *n = i;
  return clsSuccess;
}

/* ---- Replay: a CUDA graph built from the front's nodes ---------------- */

struct cls__bexec {
  int dev;
  cudaGraph_t g;
  cudaGraphExec_t x;
  size_t n;
  cudaGraphNode_t *nodes; /* by position */
};

/* Adds node `i` of `in` to x->g after its dependencies. */
static cudaError_t cls__cuda_add_node(struct cls__bexec *x,
                                      const cls__bnode *in, size_t i,
                                      cudaGraphNode_t *deps) {
  for (size_t d = 0; d < in->ndeps; ++d) deps[d] = x->nodes[in->deps[d]];
  cudaGraphNode_t *out = &x->nodes[i];
  switch (in->kind) {
  case CLS__BNODE_KERNEL: {
    struct cudaKernelNodeParams p = {(void *)in->f->kernel,
                                     {in->grid.x, in->grid.y, in->grid.z},
                                     {in->block.x, in->block.y, in->block.z},
                                     (unsigned)in->shmem,
                                     in->args,
                                     NULL};
    return cudaGraphAddKernelNode(out, x->g, deps, in->ndeps, &p);
  }
  case CLS__BNODE_COPY:
    return cudaGraphAddMemcpyNode1D(out, x->g, deps, in->ndeps, in->dst,
                                    in->src, in->n,
                                    (enum cudaMemcpyKind)in->dir);
  case CLS__BNODE_SET: {
    struct cudaMemsetParams p = {in->dst, in->pitch, (unsigned)in->value,
                                 1,       in->n,     in->rows};
    return cudaGraphAddMemsetNode(out, x->g, deps, in->ndeps, &p);
  }
  case CLS__BNODE_HOST: {
    struct cudaHostNodeParams p = {in->fn, in->user};
    return cudaGraphAddHostNode(out, x->g, deps, in->ndeps, &p);
  }
  default:
    return cudaGraphAddEmptyNode(out, x->g, deps, in->ndeps);
  }
}

clsError_t cls__b_exec_prepare(int dev, const cls__bnode *nodes, size_t n,
                               cls__bexec **out, int *ordered) {
  *out = NULL;
  *ordered = 1; /* cudaGraphLaunch orders launches of one exec */
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  struct cls__bexec *x = calloc(1, sizeof *x);
  size_t maxdeps = 1;
  for (size_t i = 0; i < n; ++i)
    if (nodes[i].ndeps > maxdeps) maxdeps = nodes[i].ndeps;
  cudaGraphNode_t *deps = malloc(maxdeps * sizeof *deps);
  if (x) x->nodes = calloc(n + 1, sizeof *x->nodes);
  if (!x || !deps || !x->nodes) {
    e = cls__reason(clsErrorMemoryAllocation, "out of host memory");
    goto fail;
  }
  x->dev = dev;
  x->n = n;
  e = cls__cuda_rt(cudaGraphCreate(&x->g, 0), "cudaGraphCreate");
  for (size_t i = 0; e == clsSuccess && i < n; ++i)
    e = cls__cuda_rt(cls__cuda_add_node(x, &nodes[i], i, deps),
                     "cudaGraphAdd*Node");
  if (e == clsSuccess)
    e = cls__cuda_rt(cudaGraphInstantiate(&x->x, x->g, 0),
                     "cudaGraphInstantiate");
  if (e != clsSuccess) goto fail;
  free(deps);
  *out = x;
  return clsSuccess;
fail:
  free(deps);
  if (x) cls__b_exec_destroy(x);
  return e;
}

clsError_t cls__b_exec_upload(cls__bexec *x, cls__bstream *s) {
  clsError_t e = cls__cuda_use(x->dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaGraphUpload(x->x, s->s), "cudaGraphUpload");
}

clsError_t cls__b_exec_launch(cls__bexec *x, cls__bstream *s) {
  clsError_t e = cls__cuda_use(x->dev);
  if (e != clsSuccess) return e;
  /* CUDA orders a launch after the exec's previous one on any stream. */
  return cls__cuda_rt(cudaGraphLaunch(x->x, s->s), "cudaGraphLaunch");
}

clsError_t cls__b_exec_kernel_update(cls__bexec *x, size_t i,
                                     const cls__bnode *in) {
  clsError_t e = cls__cuda_use(x->dev);
  if (e != clsSuccess) return e;
  struct cudaKernelNodeParams p = {(void *)in->f->kernel,
                                   {in->grid.x, in->grid.y, in->grid.z},
                                   {in->block.x, in->block.y, in->block.z},
                                   (unsigned)in->shmem,
                                   in->args,
                                   NULL};
  return cls__cuda_rt(cudaGraphExecKernelNodeSetParams(x->x, x->nodes[i], &p),
                      "cudaGraphExecKernelNodeSetParams");
}

void cls__b_exec_destroy(cls__bexec *x) {
  if (x->x) (void)cudaGraphExecDestroy(x->x);
  if (x->g) (void)cudaGraphDestroy(x->g);
  free(x->nodes);
  free(x);
}
