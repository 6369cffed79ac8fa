/*
 * simple_streams: what the CUDA sample simpleStreams does, written against
 * CUDA names only.  The same work (copy in, kernel, copy out) runs once on
 * the default stream as a whole and once split into chunks over several
 * streams, each stream copying and computing its own chunk with
 * cudaMemcpyAsync, and each pass is timed between two events.  The stop
 * event is recorded on the legacy default stream, which waits for the
 * blocking streams' work, so synchronizing on it must find every chunk
 * done.  One stream is created with the greatest priority.
 */
#include "cuda_check.h"

#include <string.h>

enum { NSTREAMS = 4, N = 1 << 20, ITERS = 5, FACTOR = 3, PASSES = 3 };

static void check_out(const int *out, const char *what) {
  int errors = 0;
  for (int i = 0; i < N; ++i) {
    int want = i + FACTOR * ITERS;
    if (out[i] != want && errors++ < 5)
      fprintf(stderr, "%s: out[%d] = %d, expected %d\n", what, i, out[i], want);
  }
  EXPECT(errors == 0, "%s: %d wrong elements", what, errors);
}

int main(void) {
  const size_t nbytes = N * sizeof(int);
  const size_t chunk = N / NSTREAMS;
  int *h_in, *h_out, *d_data, *d_factor;
  int factor = FACTOR;
  cudaStream_t streams[NSTREAMS];
  cudaEvent_t start, stop;
  float ms;

  print_cuda_device();
  const void *add_factor = load_kernel("add_factor");

  CUDA_CHECK(cudaMallocHost((void **)&h_in, nbytes));
  CUDA_CHECK(cudaMallocHost((void **)&h_out, nbytes));
  CUDA_CHECK(cudaMalloc((void **)&d_data, nbytes));
  CUDA_CHECK(cudaMalloc((void **)&d_factor, sizeof factor));
  CUDA_CHECK(
      cudaMemcpy(d_factor, &factor, sizeof factor, cudaMemcpyHostToDevice));
  for (int i = 0; i < N; ++i) h_in[i] = i;

  int least, greatest;
  CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  printf("stream priorities: least %d, greatest %d\n", least, greatest);
  CUDA_CHECK(
      cudaStreamCreateWithPriority(&streams[0], cudaStreamDefault, greatest));
  for (int i = 1; i < NSTREAMS; ++i) CUDA_CHECK(cudaStreamCreate(&streams[i]));
  int prio;
  unsigned flags;
  CUDA_CHECK(cudaStreamGetPriority(streams[0], &prio));
  EXPECT(prio == greatest, "priority %d, asked for %d", prio, greatest);
  CUDA_CHECK(cudaStreamGetFlags(streams[1], &flags));
  EXPECT(flags == cudaStreamDefault, "flags %u", flags);

  CUDA_CHECK(cudaEventCreateWithFlags(&start, cudaEventBlockingSync));
  CUDA_CHECK(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));

  dim3 block = {256, 1, 1};
  unsigned iters = ITERS;

  /* Warm up (the first launch may include compiling for the device). */
  {
    unsigned n = N;
    void *args[] = {&d_data, &d_factor, &iters, &n};
    dim3 grid = {N / 256, 1, 1};
    CUDA_CHECK(cudaMemset(d_data, 0, nbytes));
    CUDA_CHECK(cudaLaunchKernel(add_factor, grid, block, args, 0, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  for (int pass = 0; pass < PASSES; ++pass) {
    /* Non-streamed: the whole array in the default stream. */
    unsigned n = N;
    void *args[] = {&d_data, &d_factor, &iters, &n};
    dim3 grid = {N / 256, 1, 1};
    memset(h_out, 0, nbytes);
    CUDA_CHECK(cudaEventRecord(start, 0));
    CUDA_CHECK(
        cudaMemcpyAsync(d_data, h_in, nbytes, cudaMemcpyHostToDevice, 0));
    CUDA_CHECK(cudaLaunchKernel(add_factor, grid, block, args, 0, 0));
    CUDA_CHECK(
        cudaMemcpyAsync(h_out, d_data, nbytes, cudaMemcpyDeviceToHost, 0));
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_ELAPSED(&ms, start, stop);
    EXPECT(ms >= 0.0f, "elapsed %f ms", (double)ms);
    printf("pass %d: non-streamed %.3f ms", pass, (double)ms);
    check_out(h_out, "non-streamed");

    /* Streamed: chunk i in stream i, copies and kernel in stream order. */
    memset(h_out, 0, nbytes);
    CUDA_CHECK(cudaMemset(d_data, 0, nbytes));
    CUDA_CHECK(cudaEventRecord(start, 0));
    for (int s = 0; s < NSTREAMS; ++s) {
      int *d_chunk = d_data + s * chunk; /* device pointers are addresses */
      unsigned cn = (unsigned)chunk;
      void *cargs[] = {&d_chunk, &d_factor, &iters, &cn};
      dim3 cgrid = {(unsigned)(chunk / 256), 1, 1};
      CUDA_CHECK(cudaMemcpyAsync(d_chunk, h_in + s * chunk, chunk * sizeof(int),
                                 cudaMemcpyHostToDevice, streams[s]));
      CUDA_CHECK(
          cudaLaunchKernel(add_factor, cgrid, block, cargs, 0, streams[s]));
      CUDA_CHECK(cudaMemcpyAsync(h_out + s * chunk, d_chunk,
                                 chunk * sizeof(int), cudaMemcpyDeviceToHost,
                                 streams[s]));
    }
    /* The legacy stream waits for the blocking streams: no per-stream
     * synchronization is needed before reading h_out. */
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_ELAPSED(&ms, start, stop);
    EXPECT(ms >= 0.0f, "elapsed %f ms", (double)ms);
    printf(", %d streams %.3f ms\n", NSTREAMS, (double)ms);
    check_out(h_out, "streamed");
    for (int s = 0; s < NSTREAMS; ++s) CUDA_CHECK(cudaStreamQuery(streams[s]));
  }

  for (int i = 0; i < NSTREAMS; ++i) CUDA_CHECK(cudaStreamDestroy(streams[i]));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaFree(d_data));
  CUDA_CHECK(cudaFree(d_factor));
  CUDA_CHECK(cudaFreeHost(h_in));
  CUDA_CHECK(cudaFreeHost(h_out));
  CUDA_CHECK(cudaGetLastError());
  printf("simple_streams: PASSED\n");
  return 0;
}
