/*
 * async_api: what the CUDA sample asyncAPI does, written against CUDA
 * names only.  An asynchronous copy to the device, a kernel and a copy back
 * are issued to the default stream with events around them; the host then
 * counts while the device works, polling the stop event with
 * cudaEventQuery, and finally checks the results and the elapsed time.
 *
 * So that the host is sure to see the work unfinished at least once (on a
 * fast device it might otherwise finish before the first poll), a host
 * function at the head of the stream holds the stream until the first poll
 * has answered cudaErrorNotReady.
 */
#include "cuda_check.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

static atomic_int go;

/* Runs on a library thread, in stream order: holds the stream until the
 * host has seen the stop event not ready. */
static void CUDART_CB hold_until_go(void *arg) {
  atomic_int *flag = arg;
  struct timespec ts = {0, 100000}; /* 0.1 ms */
  while (!atomic_load(flag)) nanosleep(&ts, NULL);
}

int main(void) {
  const int n = 1 << 20;
  const size_t nbytes = n * sizeof(int);
  const int value = 26;
  int *a = NULL, *d_a = NULL;
  cudaEvent_t start, stop;
  float gpu_ms = -1.0f;

  print_cuda_device();
  const void *increment = load_kernel("increment");

  CUDA_CHECK(cudaMallocHost((void **)&a, nbytes));
  memset(a, 0, nbytes);
  CUDA_CHECK(cudaMalloc((void **)&d_a, nbytes));
  CUDA_CHECK(cudaMemset(d_a, 255, nbytes));

  dim3 threads = {256, 1, 1};
  dim3 blocks = {(unsigned)(n + 255) / 256, 1, 1};
  unsigned un = (unsigned)n;
  int inc = value;
  void *args[] = {&d_a, &inc, &un};

  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaDeviceSynchronize());

  /* Everything asynchronous, on the legacy default stream (0). */
  CUDA_CHECK(cudaLaunchHostFunc(0, hold_until_go, &go));
  CUDA_CHECK(cudaEventRecord(start, 0));
  CUDA_CHECK(cudaMemcpyAsync(d_a, a, nbytes, cudaMemcpyHostToDevice, 0));
  CUDA_CHECK(cudaLaunchKernel(increment, blocks, threads, args, 0, 0));
  CUDA_CHECK(cudaMemcpyAsync(a, d_a, nbytes, cudaMemcpyDeviceToHost, 0));
  CUDA_CHECK(cudaEventRecord(stop, 0));

  /* The host works while the device does. */
  unsigned long counter = 0;
  cudaError_t q;
  while ((q = cudaEventQuery(stop)) == cudaErrorNotReady) {
    ++counter;
    atomic_store(&go, 1);
  }
  CUDA_CHECK(q);
  EXPECT(counter >= 1, "the stop event was never seen not ready");
  /* Printed as CUDA prints it. */
  EXPECT(strcmp(cudaGetErrorName(cudaErrorNotReady), "cudaErrorNotReady") == 0,
         "cudaGetErrorName(cudaErrorNotReady) is %s",
         cudaGetErrorName(cudaErrorNotReady));
  EXPECT(strcmp(cudaGetErrorString(cudaErrorNotReady), "device not ready") == 0,
         "cudaGetErrorString(cudaErrorNotReady) is %s",
         cudaGetErrorString(cudaErrorNotReady));
  /* A not-ready answer is a state, not an error. */
  CUDA_CHECK(cudaGetLastError());

  CUDA_ELAPSED(&gpu_ms, start, stop);
  EXPECT(gpu_ms >= 0.0f, "elapsed time %f ms", (double)gpu_ms);
  printf("time spent on the device: %.2f ms\n", (double)gpu_ms);
  printf("host iterations while waiting: %lu\n", counter);

  int errors = 0;
  for (int i = 0; i < n; ++i)
    if (a[i] != value && errors++ < 5)
      fprintf(stderr, "a[%d] = %d, expected %d\n", i, a[i], value);
  EXPECT(errors == 0, "%d wrong elements", errors);

  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaFreeHost(a));
  CUDA_CHECK(cudaFree(d_a));
  printf("async_api: PASSED\n");
  return 0;
}
