/*
 * constant_table: a `__constant__` filter (CLS_CONSTANT) whose taps the
 * host sets with cudaMemcpyToSymbol and reads back with
 * cudaMemcpyFromSymbol, then changes in stream order with
 * cudaMemcpyToSymbolAsync between two launches on one stream.  The symbol
 * is the address clsModuleGetGlobal returns (a module loaded at run time
 * has no host shadow variable).  Kernel: tests/kernels/kparams_samples.cl.
 */
#include "cuda_check.h"

#include <string.h>

enum { N = 1000, TAPS = 8 };

static void expect_fir(const float *in, const float *out, const float *taps,
                       unsigned ntaps) {
  for (int i = 0; i < N; i++) {
    float acc = 0.0f;
    for (unsigned t = 0; t < ntaps; t++) acc += taps[t] * in[i + t];
    EXPECT(out[i] == acc, "out[%d] = %f, expected %f", i, (double)out[i],
           (double)acc);
  }
}

int main(void) {
  print_cuda_device();
  clsModule_t mod;
  clsFunction_t fir;
  cudaError_t e = clsModuleLoadData(&mod, cls_kernel_kparams_samples, NULL);
  if (e != cudaSuccess) fprintf(stderr, "%s\n", clsGetLastBuildLog());
  CUDA_CHECK(e);
  CUDA_CHECK(clsModuleGetFunction(&fir, mod, "fir"));
  void *taps_sym, *ntaps_sym;
  size_t taps_bytes;
  CUDA_CHECK(clsModuleGetGlobal(&taps_sym, &taps_bytes, mod, "filter_taps"));
  CUDA_CHECK(clsModuleGetGlobal(&ntaps_sym, NULL, mod, "filter_ntaps"));
  size_t size;
  CUDA_CHECK(cudaGetSymbolSize(&size, taps_sym));
  EXPECT(size == TAPS * sizeof(float) && size == taps_bytes, "size %zu", size);

  static float in[N + TAPS], out[N];
  for (int i = 0; i < N + TAPS; i++) in[i] = (float)(i % 10);
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc((void **)&d_in, sizeof in));
  CUDA_CHECK(cudaMalloc((void **)&d_out, sizeof out));
  CUDA_CHECK(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));

  /* Synchronous: set, read back, launch. */
  const float taps1[TAPS] = {0.5f, 0.25f, 0.125f, 0, 0, 0, 0, 0};
  unsigned ntaps1 = 3;
  CUDA_CHECK(cudaMemcpyToSymbol(taps_sym, taps1, sizeof taps1, 0,
                                cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpyToSymbol(ntaps_sym, &ntaps1, sizeof ntaps1, 0,
                                cudaMemcpyHostToDevice));
  float back[TAPS];
  CUDA_CHECK(cudaMemcpyFromSymbol(back, taps_sym, sizeof back, 0,
                                  cudaMemcpyDeviceToHost));
  EXPECT(memcmp(back, taps1, sizeof back) == 0, "taps read back differ");
  unsigned n = N;
  void *args[] = {&d_in, &d_out, &n};
  dim3 grid = {(N + 127) / 128, 1, 1}, block = {128, 1, 1};
  CUDA_CHECK(cudaLaunchKernel((const void *)fir, grid, block, args, 0, 0));
  CUDA_CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  expect_fir(in, out, taps1, ntaps1);

  /* Stream-ordered: a launch, new taps (the last four, at an offset), a
   * second launch; each launch sees the taps set before it. */
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  float *h_taps, *out1, *out2;
  CUDA_CHECK(cudaMallocHost((void **)&h_taps, 4 * sizeof(float)));
  CUDA_CHECK(cudaMallocHost((void **)&out1, sizeof out));
  CUDA_CHECK(cudaMallocHost((void **)&out2, sizeof out));
  for (int t = 0; t < 4; t++) h_taps[t] = (float)(t + 1);
  unsigned ntaps2 = TAPS;
  CUDA_CHECK(cudaLaunchKernel((const void *)fir, grid, block, args, 0, s));
  CUDA_CHECK(
      cudaMemcpyAsync(out1, d_out, sizeof out, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaMemcpyToSymbolAsync(taps_sym, h_taps, 4 * sizeof(float),
                                     4 * sizeof(float), cudaMemcpyHostToDevice,
                                     s));
  CUDA_CHECK(cudaMemcpyToSymbolAsync(ntaps_sym, &ntaps2, sizeof ntaps2, 0,
                                     cudaMemcpyHostToDevice, s));
  CUDA_CHECK(cudaLaunchKernel((const void *)fir, grid, block, args, 0, s));
  CUDA_CHECK(
      cudaMemcpyAsync(out2, d_out, sizeof out, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  expect_fir(in, out1, taps1, ntaps1);
  const float taps2[TAPS] = {0.5f, 0.25f, 0.125f, 0, 1, 2, 3, 4};
  expect_fir(in, out2, taps2, ntaps2);

  /* The symbol's address is device memory a copy reaches too. */
  void *addr;
  CUDA_CHECK(cudaGetSymbolAddress(&addr, taps_sym));
  CUDA_CHECK(cudaMemcpy(back, addr, sizeof back, cudaMemcpyDeviceToHost));
  EXPECT(memcmp(back, taps2, sizeof back) == 0, "taps by address differ");

  CUDA_CHECK(cudaFreeHost(h_taps));
  CUDA_CHECK(cudaFreeHost(out1));
  CUDA_CHECK(cudaFreeHost(out2));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(clsModuleUnload(mod));
  printf("constant_table: PASSED\n");
  return 0;
}
