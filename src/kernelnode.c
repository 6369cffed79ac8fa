/* Kernel nodes of hand-built graphs: clsGraphAddKernelNode, and the check
 * of a kernel node's parameters that clsGraphExecKernelNodeSetParams
 * shares (graphexec.c).  A kernel node names a function, whose backend
 * kernel module.c makes, so these sit above module.c, apart from graph.c:
 * graph.c lies below the capture hooks, which module.c's launch calls. */
#include "graph.h"

#include "device.h"

clsError_t cls__kernel_node_params(const clsKernelNodeParams *p, int *dev,
                                   cls__node *n) {
  if (!p) return cls__reason(clsErrorInvalidValue, "params is NULL");
  if (p->extra)
    return cls__reason(clsErrorNotSupported, "params->extra must be NULL");
  clsError_t e = cls__current_device(dev);
  if (e != clsSuccess) return e;
  const cls__limits *lim = cls__device_limits(*dev);
  if (p->sharedMemBytes > lim->shared_mem_per_block)
    return cls__reason(clsErrorInvalidValue,
                       "sharedMemBytes %u exceeds the device's "
                       "sharedMemPerBlock %zu",
                       p->sharedMemBytes, lim->shared_mem_per_block);
  const unsigned gd[3] = {p->gridDim.x, p->gridDim.y, p->gridDim.z};
  const unsigned bd[3] = {p->blockDim.x, p->blockDim.y, p->blockDim.z};
  unsigned long long threads = 1;
  for (int i = 0; i < 3; ++i) {
    if (!gd[i] || !bd[i] ||
        (lim->max_grid[i] > 0 && gd[i] > (unsigned)lim->max_grid[i]) ||
        (lim->max_threads_dim[i] > 0 &&
         bd[i] > (unsigned)lim->max_threads_dim[i]))
      return cls__reason(clsErrorInvalidValue,
                         "grid (%u, %u, %u) or block (%u, %u, %u) is empty "
                         "or past the device's limits",
                         gd[0], gd[1], gd[2], bd[0], bd[1], bd[2]);
    threads *= bd[i];
  }
  if (threads > (unsigned long long)lim->max_threads_per_block)
    return cls__reason(clsErrorInvalidValue,
                       "block of %llu threads exceeds maxThreadsPerBlock %d",
                       threads, lim->max_threads_per_block);
  cls__bfunction *bf;
  e = cls__function_get(p->func, *dev, &bf);
  if (e != clsSuccess) return e;
  cls__kargs a;
  e = cls__kargs_copy(bf, p->kernelParams, &a);
  if (e != clsSuccess) return e;
  n->u.k.fn = (uintptr_t)p->func;
  n->u.k.bf = bf;
  n->u.k.grid = p->gridDim;
  n->u.k.block = p->blockDim;
  n->u.k.shmem = p->sharedMemBytes;
  n->u.k.args = a;
  return clsSuccess;
}

clsError_t clsGraphAddKernelNode(clsGraphNode_t *node, clsGraph_t g,
                                 const clsGraphNode_t *deps, size_t numDeps,
                                 const clsKernelNodeParams *p) {
  CLS__NOT_IN_HOST_FN();
  cls__graph *gr;
  cls__node *n;
  clsError_t e =
      cls__graph_add_begin(node, g, deps, numDeps, CLS__NODE_EMPTY, &gr, &n);
  if (e != clsSuccess) CLS__RETURN(e);
  int dev = -1;
  e = cls__kernel_node_params(p, &dev, n);
  if (e == clsSuccess && gr->dev >= 0 && gr->dev != dev)
    e = cls__reason(clsErrorInvalidValue,
                    "the graph's nodes are on device %d, not %d", gr->dev, dev);
  if (e == clsSuccess) {
    n->kind = CLS__NODE_KERNEL;
    gr->dev = dev;
  } else if (n->u.k.args.blob || n->u.k.args.argv) {
    cls__kargs_free(&n->u.k.args);
  }
  CLS__RETURN(cls__graph_add_end(gr, n, e, node));
}
