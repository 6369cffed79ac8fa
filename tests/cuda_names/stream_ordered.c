/*
 * stream_ordered: stream-ordered allocation as CUDA programs use it
 * (cudaMallocAsync, cudaFreeAsync), written against CUDA names only.  The
 * program checks cudaDevAttrMemoryPoolsSupported, then runs the same
 * pipeline many times in each of several streams: allocate the inputs and
 * the output in the stream, copy in, add, copy out, free in the stream,
 * with no synchronization in between.  One buffer crosses to another
 * stream through an event, as the programming guide shows, and is freed
 * there.  Every result is checked.
 */
#include "cuda_check.h"

#include <string.h>

enum { NSTREAMS = 3, ROUNDS = 20, N = 1 << 14 };

int main(void) {
  int dev = print_cuda_device();
  int pools = 0;
  checkCudaErrors(
      cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, dev));
  if (!pools) {
    printf("stream_ordered: memory pools not supported, WAIVED (PASSED)\n");
    return 0;
  }
  const void *vec_add = load_kernel("vec_add");
  size_t bytes = N * sizeof(float);
  cudaStream_t streams[NSTREAMS];
  float *h_a, *h_b, *h_out[NSTREAMS];
  checkCudaErrors(cudaMallocHost(&h_a, bytes));
  checkCudaErrors(cudaMallocHost(&h_b, bytes));
  for (int i = 0; i < N; ++i) {
    h_a[i] = (float)i;
    h_b[i] = 2.0f;
  }
  for (int s = 0; s < NSTREAMS; ++s) {
    checkCudaErrors(
        cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    checkCudaErrors(cudaMallocHost(&h_out[s], bytes));
  }
  dim3 grid = {N / 256, 1, 1}, block = {256, 1, 1};
  unsigned n = N;
  for (int round = 0; round < ROUNDS; ++round) {
    for (int s = 0; s < NSTREAMS; ++s) {
      cudaStream_t st = streams[s];
      float *d_a, *d_b, *d_c; /* typed pointers, from C */
      checkCudaErrors(cudaMallocAsync(&d_a, bytes, st));
      checkCudaErrors(cudaMallocAsync(&d_b, bytes, st));
      checkCudaErrors(cudaMallocAsync(&d_c, bytes, st));
      checkCudaErrors(
          cudaMemcpyAsync(d_a, h_a, bytes, cudaMemcpyHostToDevice, st));
      checkCudaErrors(
          cudaMemcpyAsync(d_b, h_b, bytes, cudaMemcpyHostToDevice, st));
      void *args[] = {&d_a, &d_b, &d_c, &n};
      checkCudaErrors(cudaLaunchKernel(vec_add, grid, block, args, 0, st));
      checkCudaErrors(cudaFreeAsync(d_a, st));
      checkCudaErrors(cudaFreeAsync(d_b, st));
      checkCudaErrors(
          cudaMemcpyAsync(h_out[s], d_c, bytes, cudaMemcpyDeviceToHost, st));
      checkCudaErrors(cudaFreeAsync(d_c, st));
    }
    for (int s = 0; s < NSTREAMS; ++s) {
      checkCudaErrors(cudaStreamSynchronize(streams[s]));
      for (int i = 0; i < N; ++i)
        EXPECT(h_out[s][i] == (float)i + 2.0f, "round %d stream %d: [%d] = %g",
               round, s, i, (double)h_out[s][i]);
    }
  }

  /* An allocation made in stream 0 and used and freed in stream 1, the
   * two ordered by an event. */
  cudaEvent_t ready;
  checkCudaErrors(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  float *d_x;
  checkCudaErrors(cudaMallocAsync(&d_x, bytes, streams[0]));
  checkCudaErrors(
      cudaMemcpyAsync(d_x, h_a, bytes, cudaMemcpyHostToDevice, streams[0]));
  checkCudaErrors(cudaEventRecord(ready, streams[0]));
  checkCudaErrors(cudaStreamWaitEvent(streams[1], ready, 0));
  memset(h_out[1], 0, bytes);
  checkCudaErrors(cudaMemcpyAsync(h_out[1], d_x, bytes, cudaMemcpyDeviceToHost,
                                  streams[1]));
  checkCudaErrors(cudaFreeAsync(d_x, streams[1]));
  checkCudaErrors(cudaStreamSynchronize(streams[1]));
  for (int i = 0; i < N; ++i)
    EXPECT(h_out[1][i] == (float)i, "moved buffer: [%d] = %g", i,
           (double)h_out[1][i]);
  /* A NULL pointer is a no-op, as in CUDA 13. */
  EXPECT(cudaFreeAsync(NULL, streams[0]) == cudaSuccess, "NULL");

  checkCudaErrors(cudaEventDestroy(ready));
  for (int s = 0; s < NSTREAMS; ++s) {
    checkCudaErrors(cudaStreamDestroy(streams[s]));
    checkCudaErrors(cudaFreeHost(h_out[s]));
  }
  checkCudaErrors(cudaFreeHost(h_a));
  checkCudaErrors(cudaFreeHost(h_b));
  checkCudaErrors(cudaGetLastError());
  printf("stream_ordered: PASSED\n");
  return 0;
}
