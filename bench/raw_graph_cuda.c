/*
 * The raw CUDA side of clstream-bench's graph rows (graph_10, graph_100,
 * graph_1000): a CUDA graph of N tiny kernels (kernel i stores i + 1),
 * captured once from a stream (cudaStreamBeginCapture, N cudaLaunchKernel,
 * cudaStreamEndCapture), instantiated and uploaded at setup; a run is one
 * cudaGraphLaunch and a cudaStreamSynchronize.
 */
#include <cuda_runtime_api.h>

#include "raw.h"

/* From raw_cuda.c: the fill kernel and the 4 KiB device buffer. */
const void *raw_cuda_fill_kernel(void);
int *raw_cuda_buf(void);

#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t ck_err_ = (call);                                              \
    if (ck_err_ != cudaSuccess)                                                \
      return raw_fail("%s:%d: %s -> %s", __FILE__, __LINE__, #call,            \
                      cudaGetErrorName(ck_err_));                              \
  } while (0)

static cudaStream_t gs;
static cudaGraph_t gg;
static cudaGraphExec_t gx;
static unsigned gn;

int raw_graph_run(int sc, unsigned inner) {
  (void)sc;
  (void)inner; /* inner is N: one run replays the N kernels once */
  CK(cudaGraphLaunch(gx, gs));
  CK(cudaStreamSynchronize(gs));
  return 0;
}

int raw_graph_setup(int sc, unsigned param) {
  int *buf = raw_cuda_buf(), got = 0;
  unsigned one = 1;
  dim3 d1 = {1, 1, 1};

  (void)param;
  gn = SC_GRAPH_KERNELS(sc);
  CK(cudaStreamCreateWithFlags(&gs, cudaStreamNonBlocking));
  CK(cudaStreamBeginCapture(gs, cudaStreamCaptureModeGlobal));
  for (unsigned i = 0; i < gn; ++i) {
    int v = (int)i + 1;
    void *args[] = {&buf, &v, &one};
    cudaError_t e =
        cudaLaunchKernel(raw_cuda_fill_kernel(), d1, d1, args, 0, gs);
    if (e != cudaSuccess) {
      cudaStreamEndCapture(gs, &gg);
      return raw_fail("capture: cudaLaunchKernel -> %s", cudaGetErrorName(e));
    }
  }
  CK(cudaStreamEndCapture(gs, &gg));
  CK(cudaGraphInstantiate(&gx, gg, 0));
  CK(cudaGraphUpload(gx, gs));
  /* One run, checked: the last kernel's value is what the buffer holds. */
  if (raw_graph_run(sc, gn)) return -1;
  CK(cudaMemcpy(&got, buf, sizeof got, cudaMemcpyDeviceToHost));
  if (got != (int)gn)
    return raw_fail("graph_%u raw: buffer holds %d, expected %u", gn, got, gn);
  return 0;
}

int raw_graph_reset(int sc) {
  (void)sc;
  return 0;
}

void raw_graph_teardown(int sc) {
  (void)sc;
  if (gs) cudaStreamSynchronize(gs);
  if (gx) cudaGraphExecDestroy(gx);
  if (gg) cudaGraphDestroy(gg);
  if (gs) cudaStreamDestroy(gs);
  gx = NULL;
  gg = NULL;
  gs = NULL;
  gn = 0;
}
