/*
 * param_struct: a kernel that takes its settings as one struct by value
 * (a scale, a count, a stride and an array of two bounds), launched
 * several times with different settings, as CUDA programs pass parameter
 * blocks.  The host's struct is the kernel's (the same C layout).  Kernel:
 * tests/kernels/kparams_samples.cl.
 */
#include "cuda_check.h"

typedef struct saxpy_params {
  float a;
  unsigned n;
  int stride;
  float clamp[2];
} saxpy_params;

int main(void) {
  enum { N = 4096 };
  print_cuda_device();
  clsModule_t mod;
  clsFunction_t f;
  cudaError_t e = clsModuleLoadData(&mod, cls_kernel_kparams_samples, NULL);
  if (e != cudaSuccess) fprintf(stderr, "%s\n", clsGetLastBuildLog());
  CUDA_CHECK(e);
  CUDA_CHECK(clsModuleGetFunction(&f, mod, "saxpy_struct"));
  static float x[N], y[N], want[N], got[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)(i % 100);
    y[i] = want[i] = (float)(i % 7);
  }
  float *dx, *dy;
  CUDA_CHECK(cudaMalloc((void **)&dx, sizeof x));
  CUDA_CHECK(cudaMalloc((void **)&dy, sizeof y));
  CUDA_CHECK(cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dy, y, sizeof y, cudaMemcpyHostToDevice));
  const saxpy_params runs[] = {
      {2.0f, N, 1, {-1e9f, 1e9f}},
      {0.5f, N / 2, 2, {10.0f, 40.0f}},
      {-1.0f, N / 4, 4, {-50.0f, 0.0f}},
  };
  for (int r = 0; r < 3; r++) {
    saxpy_params p = runs[r];
    void *args[] = {&p, &dx, &dy};
    unsigned blocks = (p.n + 127) / 128;
    CUDA_CHECK(cudaLaunchKernel((const void *)f, (dim3){blocks, 1, 1},
                                (dim3){128, 1, 1}, args, 0, 0));
    for (unsigned i = 0; i < p.n; i++) {
      unsigned k = i * (unsigned)p.stride;
      float v = p.a * x[k] + want[k];
      want[k] = v < p.clamp[0] ? p.clamp[0] : (v > p.clamp[1] ? p.clamp[1] : v);
    }
  }
  CUDA_CHECK(cudaMemcpy(got, dy, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; i++)
    EXPECT(got[i] == want[i], "y[%d] = %f, expected %f", i, (double)got[i],
           (double)want[i]);
  CUDA_CHECK(cudaFree(dx));
  CUDA_CHECK(cudaFree(dy));
  CUDA_CHECK(clsModuleUnload(mod));
  printf("param_struct: PASSED\n");
  return 0;
}
