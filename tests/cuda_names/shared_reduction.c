/*
 * shared_reduction: a CUDA-samples-style reduction whose shared array is
 * `extern __shared__` (CLS_DYNAMIC_SHARED), sized by the launch's third
 * parameter: CUDA's reduce<<<blocks, threads, threads * sizeof(float)>>>.
 * Two passes reduce 2^20 + 3 floats; the block size changes between runs
 * and so does the shared size.  Kernel: tests/kernels/kparams_samples.cl.
 */
#include "cuda_check.h"

static const void *load(const char *name) {
  static clsModule_t mod;
  clsFunction_t f;
  if (!mod) {
    cudaError_t e = clsModuleLoadData(&mod, cls_kernel_kparams_samples, NULL);
    if (e != cudaSuccess) fprintf(stderr, "%s\n", clsGetLastBuildLog());
    CUDA_CHECK(e);
  }
  CUDA_CHECK(clsModuleGetFunction(&f, mod, name));
  return (const void *)f;
}

/* Reduces d_in[0, n) to one float, block by block, with `threads` per
 * block, alternating between two scratch arrays. */
static float reduce(const void *k, float *d_in, float *d_a, float *d_b,
                    unsigned n, unsigned threads, cudaStream_t s) {
  float *src = d_in, *dst = d_a;
  while (n > 1) {
    unsigned blocks = (n + threads * 2 - 1) / (threads * 2);
    void *args[] = {&src, &dst, &n};
    CUDA_CHECK(cudaLaunchKernel(k, (dim3){blocks, 1, 1}, (dim3){threads, 1, 1},
                                args, threads * sizeof(float), s));
    n = blocks;
    src = dst;
    dst = dst == d_a ? d_b : d_a;
  }
  float r;
  CUDA_CHECK(cudaMemcpyAsync(&r, src, sizeof r, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  return r;
}

int main(void) {
  enum { N = (1 << 20) + 3 };
  print_cuda_device();
  const void *k = load("reduce_shared");
  float *h = malloc(N * sizeof *h), *d_in, *d_a, *d_b;
  EXPECT(h != NULL, "out of memory");
  double want = 0;
  for (int i = 0; i < N; i++) {
    h[i] = (float)(i % 17) * 0.25f; /* exact in float at every step */
    want += h[i];
  }
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  CUDA_CHECK(cudaMalloc((void **)&d_in, N * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&d_a, N * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&d_b, N * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_in, h, N * sizeof(float), cudaMemcpyHostToDevice));
  const unsigned threads[] = {256, 64, 128};
  for (int t = 0; t < 3; t++) {
    float got = reduce(k, d_in, d_a, d_b, N, threads[t], s);
    printf("threads %u: sum %.2f (expected %.2f)\n", threads[t], (double)got,
           want);
    EXPECT((double)got == want, "sum %f with %u threads", (double)got,
           threads[t]);
  }
  /* More shared memory than a block can have is refused, as on CUDA. */
  int dev;
  struct cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  unsigned n = N;
  void *args[] = {&d_in, &d_a, &n};
  EXPECT(cudaLaunchKernel(k, (dim3){1, 1, 1}, (dim3){64, 1, 1}, args,
                          prop.sharedMemPerBlock + 1,
                          s) == cudaErrorInvalidValue,
         "a launch over sharedMemPerBlock was not refused");
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "no last error");
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_a));
  CUDA_CHECK(cudaFree(d_b));
  CUDA_CHECK(cudaStreamDestroy(s));
  free(h);
  printf("shared_reduction: PASSED\n");
  return 0;
}
