/*
 * simple_callback: what the CUDA sample simpleCallback does, written
 * against CUDA names only.  Several workers each own a stream, a host and a
 * device buffer; each issues copy in, kernel, copy out and then
 * cudaStreamAddCallback with its own data.  Each callback checks its
 * worker's results on the host.  A cudaLaunchHostFunc behind each callback
 * checks that stream order held.  After cudaDeviceSynchronize every
 * callback must have run exactly once, with cudaSuccess and its own stream.
 */
#include "cuda_check.h"

#include <stdatomic.h>

enum { NWORKERS = 8, N = 1 << 16 };

typedef struct worker {
  int id;
  cudaStream_t stream;
  int *h_data, *d_data;
  atomic_int callbacks;    /* times the stream callback ran */
  atomic_int host_fns;     /* times the host function ran */
  atomic_int bad_status;   /* callbacks that got a status other than Success */
  atomic_int bad_stream;   /* callbacks that got another stream */
  atomic_int bad_data;     /* wrong elements the callback saw */
  atomic_int out_of_order; /* host functions that ran before the callback */
} worker;

/* A stream callback: runs on a library thread once the worker's copies and
 * kernel are done, so the worker's host buffer holds the results. */
static void CUDART_CB worker_callback(cudaStream_t stream, cudaError_t status,
                                      void *data) {
  worker *w = data;
  if (status != cudaSuccess) atomic_fetch_add(&w->bad_status, 1);
  if (stream != w->stream) atomic_fetch_add(&w->bad_stream, 1);
  int bad = 0;
  for (int i = 0; i < N; ++i)
    if (w->h_data[i] != i + w->id + 1) ++bad;
  atomic_fetch_add(&w->bad_data, bad);
  atomic_fetch_add(&w->callbacks, 1);
}

/* A host function behind the callback in the same stream. */
static void CUDART_CB worker_host_fn(void *data) {
  worker *w = data;
  if (atomic_load(&w->callbacks) != 1) atomic_fetch_add(&w->out_of_order, 1);
  atomic_fetch_add(&w->host_fns, 1);
}

int main(void) {
  static worker workers[NWORKERS];
  const void *increment;

  print_cuda_device();
  increment = load_kernel("increment");

  for (int w = 0; w < NWORKERS; ++w) {
    worker *wk = &workers[w];
    wk->id = w;
    CUDA_CHECK(cudaStreamCreateWithFlags(&wk->stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMallocHost((void **)&wk->h_data, N * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&wk->d_data, N * sizeof(int)));
    for (int i = 0; i < N; ++i) wk->h_data[i] = i + w;
  }

  for (int w = 0; w < NWORKERS; ++w) {
    worker *wk = &workers[w];
    int inc = 1;
    unsigned n = N;
    void *args[] = {&wk->d_data, &inc, &n};
    dim3 block = {128, 1, 1}, grid = {N / 128, 1, 1};
    CUDA_CHECK(cudaMemcpyAsync(wk->d_data, wk->h_data, N * sizeof(int),
                               cudaMemcpyHostToDevice, wk->stream));
    CUDA_CHECK(cudaLaunchKernel(increment, grid, block, args, 0, wk->stream));
    CUDA_CHECK(cudaMemcpyAsync(wk->h_data, wk->d_data, N * sizeof(int),
                               cudaMemcpyDeviceToHost, wk->stream));
    CUDA_CHECK(cudaStreamAddCallback(wk->stream, worker_callback, wk, 0));
    CUDA_CHECK(cudaLaunchHostFunc(wk->stream, worker_host_fn, wk));
  }

  /* Waits for every stream of the device, host functions included. */
  CUDA_CHECK(cudaDeviceSynchronize());

  for (int w = 0; w < NWORKERS; ++w) {
    worker *wk = &workers[w];
    EXPECT(atomic_load(&wk->callbacks) == 1, "worker %d: %d callbacks", w,
           atomic_load(&wk->callbacks));
    EXPECT(atomic_load(&wk->host_fns) == 1, "worker %d: %d host functions", w,
           atomic_load(&wk->host_fns));
    EXPECT(atomic_load(&wk->bad_status) == 0, "worker %d: callback status", w);
    EXPECT(atomic_load(&wk->bad_stream) == 0, "worker %d: callback stream", w);
    EXPECT(atomic_load(&wk->bad_data) == 0, "worker %d: %d wrong elements", w,
           atomic_load(&wk->bad_data));
    EXPECT(atomic_load(&wk->out_of_order) == 0,
           "worker %d: host function ran before the callback", w);
    CUDA_CHECK(cudaStreamQuery(wk->stream));
    CUDA_CHECK(cudaStreamDestroy(wk->stream));
    CUDA_CHECK(cudaFree(wk->d_data));
    CUDA_CHECK(cudaFreeHost(wk->h_data));
  }
  CUDA_CHECK(cudaGetLastError());
  printf("simple_callback: %d workers, each callback ran once: PASSED\n",
         NWORKERS);
  return 0;
}
