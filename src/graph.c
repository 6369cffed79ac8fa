/* Graphs: placeholder bodies of the capture and graph calls, so that code
 * written against the declarations builds while the real ones land. */
#include "internal.h"

#define CLS__TODO() CLS__RETURN(cls__reason(clsErrorNotSupported, "not yet"))

clsError_t clsStreamBeginCapture(clsStream_t s, clsStreamCaptureMode mode) {
  (void)s, (void)mode;
  CLS__TODO();
}
clsError_t clsStreamEndCapture(clsStream_t s, clsGraph_t *graph) {
  (void)s, (void)graph;
  CLS__TODO();
}
clsError_t clsStreamIsCapturing(clsStream_t s, clsStreamCaptureStatus *st) {
  (void)s, (void)st;
  CLS__TODO();
}
clsError_t clsStreamGetCaptureInfo(clsStream_t s, clsStreamCaptureStatus *st,
                                   unsigned long long *id) {
  (void)s, (void)st, (void)id;
  CLS__TODO();
}
clsError_t clsThreadExchangeStreamCaptureMode(clsStreamCaptureMode *mode) {
  (void)mode;
  CLS__TODO();
}
clsError_t clsGraphCreate(clsGraph_t *g, unsigned flags) {
  (void)g, (void)flags;
  CLS__TODO();
}
clsError_t clsGraphDestroy(clsGraph_t g) {
  (void)g;
  CLS__TODO();
}
clsError_t clsGraphGetNodes(clsGraph_t g, clsGraphNode_t *n, size_t *c) {
  (void)g, (void)n, (void)c;
  CLS__TODO();
}
clsError_t clsGraphAddEmptyNode(clsGraphNode_t *n, clsGraph_t g,
                                const clsGraphNode_t *d, size_t nd) {
  (void)n, (void)g, (void)d, (void)nd;
  CLS__TODO();
}
clsError_t clsGraphAddKernelNode(clsGraphNode_t *n, clsGraph_t g,
                                 const clsGraphNode_t *d, size_t nd,
                                 const clsKernelNodeParams *p) {
  (void)n, (void)g, (void)d, (void)nd, (void)p;
  CLS__TODO();
}
clsError_t clsGraphAddMemcpyNode1D(clsGraphNode_t *n, clsGraph_t g,
                                   const clsGraphNode_t *d, size_t nd,
                                   void *dst, const void *src, size_t count,
                                   clsMemcpyKind kind) {
  (void)n, (void)g, (void)d, (void)nd, (void)dst, (void)src, (void)count;
  (void)kind;
  CLS__TODO();
}
clsError_t clsGraphAddMemsetNode(clsGraphNode_t *n, clsGraph_t g,
                                 const clsGraphNode_t *d, size_t nd,
                                 const clsMemsetParams *p) {
  (void)n, (void)g, (void)d, (void)nd, (void)p;
  CLS__TODO();
}
clsError_t clsGraphAddHostNode(clsGraphNode_t *n, clsGraph_t g,
                               const clsGraphNode_t *d, size_t nd,
                               const clsHostNodeParams *p) {
  (void)n, (void)g, (void)d, (void)nd, (void)p;
  CLS__TODO();
}
clsError_t clsGraphAddDependencies(clsGraph_t g, const clsGraphNode_t *from,
                                   const clsGraphNode_t *to, size_t n) {
  (void)g, (void)from, (void)to, (void)n;
  CLS__TODO();
}
clsError_t clsGraphInstantiate(clsGraphExec_t *x, clsGraph_t g,
                               unsigned long long flags) {
  (void)x, (void)g, (void)flags;
  CLS__TODO();
}
clsError_t clsGraphLaunch(clsGraphExec_t x, clsStream_t s) {
  (void)x, (void)s;
  CLS__TODO();
}
clsError_t clsGraphUpload(clsGraphExec_t x, clsStream_t s) {
  (void)x, (void)s;
  CLS__TODO();
}
clsError_t clsGraphExecDestroy(clsGraphExec_t x) {
  (void)x;
  CLS__TODO();
}
clsError_t clsGraphExecKernelNodeSetParams(clsGraphExec_t x, clsGraphNode_t n,
                                           const clsKernelNodeParams *p) {
  (void)x, (void)n, (void)p;
  CLS__TODO();
}
