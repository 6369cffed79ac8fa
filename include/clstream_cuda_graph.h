/*
 * clstream_cuda_graph.h: CUDA's stream-capture and graph names for
 * clstream, included by clstream_cuda.h (include that one, never this
 * alone).  Macros, typedefs and a few static inline wrappers, as in
 * clstream_cuda.h.
 */
#ifndef CLSTREAM_CUDA_GRAPH_H
#define CLSTREAM_CUDA_GRAPH_H

#include "clstream.h"

/* ---- Stream capture and graphs ----------------------------------------
 * CUDA 13's signatures.  cudaStreamGetCaptureInfo and
 * cudaGraphAddDependencies take the edge arguments CUDA 13 added; clstream
 * has only default edges, so edge data must be NULL (an edgeData_out asked
 * for gets NULL, which CUDA also gives for default edges), and the
 * capture's graph and dependencies are not given (NULL, or
 * cudaErrorNotSupported when asked for). */
typedef clsGraph_t cudaGraph_t;
typedef clsGraphExec_t cudaGraphExec_t;
typedef clsGraphNode_t cudaGraphNode_t;
typedef clsStreamCaptureMode cudaStreamCaptureMode_t;
typedef clsStreamCaptureStatus cudaStreamCaptureStatus_t;
#define cudaStreamCaptureMode clsStreamCaptureMode
#define cudaStreamCaptureStatus clsStreamCaptureStatus
#define cudaStreamCaptureModeGlobal clsStreamCaptureModeGlobal
#define cudaStreamCaptureModeThreadLocal clsStreamCaptureModeThreadLocal
#define cudaStreamCaptureModeRelaxed clsStreamCaptureModeRelaxed
#define cudaStreamCaptureStatusNone clsStreamCaptureStatusNone
#define cudaStreamCaptureStatusActive clsStreamCaptureStatusActive
#define cudaStreamCaptureStatusInvalidated clsStreamCaptureStatusInvalidated
#define cudaMemsetParams clsMemsetParams
#define cudaHostNodeParams clsHostNodeParams
/* CUDA's edge data (cudaGraphEdgeData); only NULL is accepted. */
typedef struct cudaGraphEdgeData_st {
  unsigned char from_port, to_port, type, reserved[5];
} cudaGraphEdgeData;

#define cudaStreamBeginCapture clsStreamBeginCapture
#define cudaStreamEndCapture clsStreamEndCapture
#define cudaStreamIsCapturing clsStreamIsCapturing
#define cudaThreadExchangeStreamCaptureMode clsThreadExchangeStreamCaptureMode
#define cudaGraphCreate clsGraphCreate
#define cudaGraphDestroy clsGraphDestroy
#define cudaGraphGetNodes clsGraphGetNodes
#define cudaGraphAddEmptyNode clsGraphAddEmptyNode
#define cudaGraphAddMemcpyNode1D clsGraphAddMemcpyNode1D
#define cudaGraphAddMemsetNode clsGraphAddMemsetNode
#define cudaGraphAddHostNode clsGraphAddHostNode
#define cudaGraphLaunch clsGraphLaunch
#define cudaGraphUpload clsGraphUpload
#define cudaGraphExecDestroy clsGraphExecDestroy

/* CUDA's default arguments, in C++ only (CUDA's __dv). */
#ifdef __cplusplus
#define CLSTREAM_DV(v) = v
#else
#define CLSTREAM_DV(v)
#endif

/* Kernel nodes.  In C, cudaKernelNodeParams is clsKernelNodeParams, whose
 * func (a clsFunction_t) takes the `(void *)kernel` CUDA code assigns.  In
 * C++, where void * does not convert so, it is a struct of CUDA's layout
 * that the two calls below pass on. */
#ifdef __cplusplus
struct cudaKernelNodeParams {
  void *func;
  dim3 gridDim, blockDim;
  unsigned sharedMemBytes;
  void **kernelParams;
  void **extra;
};
static inline clsKernelNodeParams
clstream_kernel_node_params_(const cudaKernelNodeParams *p) {
  clsKernelNodeParams q = {(clsFunction_t)p->func, p->gridDim,      p->blockDim,
                           p->sharedMemBytes,      p->kernelParams, p->extra};
  return q;
}
static inline cudaError_t
cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                       const cudaGraphNode_t *pDependencies,
                       size_t numDependencies,
                       const cudaKernelNodeParams *pNodeParams) {
  if (!pNodeParams)
    return clsGraphAddKernelNode(pGraphNode, graph, pDependencies,
                                 numDependencies, NULL);
  clsKernelNodeParams q = clstream_kernel_node_params_(pNodeParams);
  return clsGraphAddKernelNode(pGraphNode, graph, pDependencies,
                               numDependencies, &q);
}
static inline cudaError_t
cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec,
                                 cudaGraphNode_t node,
                                 const cudaKernelNodeParams *pNodeParams) {
  if (!pNodeParams)
    return clsGraphExecKernelNodeSetParams(hGraphExec, node, NULL);
  clsKernelNodeParams q = clstream_kernel_node_params_(pNodeParams);
  return clsGraphExecKernelNodeSetParams(hGraphExec, node, &q);
}
/* cudaGraphInstantiate's flags default to 0 in C++. */
static inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec,
                                               cudaGraph_t graph,
                                               unsigned long long flags = 0) {
  return clsGraphInstantiate(pGraphExec, graph, flags);
}
#else
#define cudaKernelNodeParams clsKernelNodeParams
#define cudaGraphAddKernelNode clsGraphAddKernelNode
#define cudaGraphExecKernelNodeSetParams clsGraphExecKernelNodeSetParams
#define cudaGraphInstantiate clsGraphInstantiate
#endif

/* cudaStreamGetCaptureInfo with CUDA 13's parameters. */
static inline cudaError_t cudaStreamGetCaptureInfo(
    cudaStream_t stream, cudaStreamCaptureStatus_t *captureStatus_out,
    unsigned long long *id_out CLSTREAM_DV(0),
    cudaGraph_t *graph_out CLSTREAM_DV(0),
    const cudaGraphNode_t **dependencies_out CLSTREAM_DV(0),
    const cudaGraphEdgeData **edgeData_out CLSTREAM_DV(0),
    size_t *numDependencies_out CLSTREAM_DV(0)) {
  if (graph_out || dependencies_out || numDependencies_out)
    return clsErrorNotSupported;
  if (edgeData_out) *edgeData_out = NULL;
  return clsStreamGetCaptureInfo(stream, captureStatus_out, id_out);
}

/* cudaGraphAddDependencies with CUDA 13's edgeData (NULL only). */
static inline cudaError_t cudaGraphAddDependencies(
    cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
    const cudaGraphEdgeData *edgeData, size_t numDependencies) {
  if (edgeData) return clsErrorNotSupported;
  return clsGraphAddDependencies(graph, from, to, numDependencies);
}

#endif /* CLSTREAM_CUDA_GRAPH_H */
