/*
 * cpp_names: CUDA host code as C++ programs write it, against CUDA names
 * only: dim3's constructors (dim3 grid(n), dim3 block(256)), nullptr for
 * the default stream, std::vector host buffers, a stream created with
 * flags, events around a kernel, and cudaLaunchKernel with dim3
 * temporaries.  clstream_cuda.h must compile unchanged as C++.
 */
#include "cuda_check.h"

#include <cstring>
#include <vector>

static void CUDART_CB mark(void *arg) { *static_cast<int *>(arg) = 1; }

int main() {
  const unsigned n = 1u << 16;
  print_cuda_device();
  const void *increment = load_kernel("increment");

  std::vector<int> host(n, 0);
  int *d = nullptr;
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&d), n * sizeof(int)));
  CUDA_CHECK(cudaMemset(d, 0, n * sizeof(int)));
  /* cudaMemset of device memory returns at once (CUDA 13), and the
   * non-blocking stream below does not wait for the legacy stream. */
  CUDA_CHECK(cudaDeviceSynchronize());

  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreateWithFlags(&stop, cudaEventDefault));

  dim3 block(256);
  dim3 grid((n + block.x - 1) / block.x);
  EXPECT(grid.x == n / 256 && grid.y == 1 && grid.z == 1 && block.y == 1,
         "dim3 constructors: grid (%u, %u, %u)", grid.x, grid.y, grid.z);
  int inc = 7;
  unsigned count = n;
  void *args[] = {&d, &inc, &count};
  CUDA_CHECK(cudaEventRecord(start, s));
  CUDA_CHECK(cudaLaunchKernel(increment, grid, block, args, 0, s));
  inc = 5; /* arguments are captured at the call */
  CUDA_CHECK(cudaLaunchKernel(increment, dim3(grid.x, 1, 1), dim3(256, 1), args,
                              0, s));
  int marked = 0;
  CUDA_CHECK(cudaLaunchHostFunc(s, mark, &marked));
  CUDA_CHECK(cudaMemcpyAsync(host.data(), d, n * sizeof(int),
                             cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaEventRecord(stop, s));
  CUDA_CHECK(cudaEventSynchronize(stop));
  CUDA_CHECK(cudaStreamSynchronize(s));
  EXPECT(marked == 1, "the host function did not run");

  float ms = -1.0f;
  CUDA_ELAPSED(&ms, start, stop);
  EXPECT(ms >= 0.0f, "elapsed time %f ms", static_cast<double>(ms));
  for (unsigned i = 0; i < n; ++i)
    EXPECT(host[i] == 12, "host[%u] = %d, expected 12", i, host[i]);

  /* The default stream as nullptr, a struct dim3 spelled as C does. */
  struct dim3 one = {1, 1, 1};
  CUDA_CHECK(cudaLaunchKernel(increment, one, one, args, 0, nullptr));
  CUDA_CHECK(cudaDeviceSynchronize());
  int first = 0;
  CUDA_CHECK(cudaMemcpy(&first, d, sizeof first, cudaMemcpyDeviceToHost));
  EXPECT(first == 17, "first = %d, expected 17", first);

  /* CUDA's C++ overloads: typed pointers, cudaMallocHost with flags,
   * cudaMallocManaged with its default flags. */
  float *pinned = nullptr, *mapped = nullptr;
  CUDA_CHECK(cudaMallocHost(&pinned, 64 * sizeof(float)));
  CUDA_CHECK(
      cudaMallocHost(&mapped, 64 * sizeof(float), cudaHostAllocPortable));
  int managed = 0, dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, dev));
  if (managed) {
    double *m = nullptr;
    CUDA_CHECK(cudaMallocManaged(&m, 16 * sizeof(double)));
    m[0] = 1.0;
    CUDA_CHECK(cudaFree(m));
  }
  int *pool = nullptr;
  CUDA_CHECK(cudaMallocAsync(&pool, 256, s));
  CUDA_CHECK(cudaFreeAsync(pool, s));
  CUDA_CHECK(cudaFreeHost(pinned));
  CUDA_CHECK(cudaFreeHost(mapped));

  /* Graphs as C++ writes them: a capture, cudaGraphInstantiate with its
   * default flags, cudaStreamGetCaptureInfo with its default arguments,
   * and a kernel node whose func is the kernel cast to void *. */
  CUDA_CHECK(cudaMemset(d, 0, n * sizeof(int)));
  CUDA_CHECK(cudaDeviceSynchronize());
  inc = 1;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  CUDA_CHECK(cudaStreamGetCaptureInfo(s, &st, &id));
  EXPECT(st == cudaStreamCaptureStatusActive, "capture status %d", (int)st);
  CUDA_CHECK(cudaLaunchKernel(increment, grid, block, args, 0, s));
  cudaGraph_t graph;
  CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  cudaKernelNodeParams kp = {};
  kp.func = const_cast<void *>(increment);
  kp.gridDim = grid;
  kp.blockDim = block;
  kp.kernelParams = args;
  cudaGraphNode_t nodes[1], second;
  size_t nnodes = 1;
  CUDA_CHECK(cudaGraphGetNodes(graph, nodes, &nnodes));
  CUDA_CHECK(cudaGraphAddKernelNode(&second, graph, nodes, 1, &kp));
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph));
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaMemcpyAsync(host.data(), d, n * sizeof(int),
                             cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  for (unsigned i = 0; i < n; ++i)
    EXPECT(host[i] == 4, "graph: host[%u] = %d, expected 4", i, host[i]);
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));

  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(d));
  printf("cpp_names: PASSED\n");
  return 0;
}
