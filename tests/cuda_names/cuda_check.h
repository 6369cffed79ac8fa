/*
 * What the CUDA-name test programs share.  Host code here uses only CUDA
 * runtime names (through clstream_cuda.h); the one exception is loading the
 * kernels, which are in the clstream dialect: clsModuleLoadData and
 * clsModuleGetFunction, wrapped in load_kernel.
 */
#ifndef CLSTREAM_TESTS_CUDA_CHECK_H
#define CLSTREAM_TESTS_CUDA_CHECK_H

#include <clstream_cuda.h>
/* cls_kernel_cuda_samples: tests/kernels/cuda_samples.cl */
#include <clstream_kernels.h>

#include <stdio.h>
#include <stdlib.h>

/* The usual CUDA sample idiom: stop on any error, saying where and why. */
#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t cuda_check_err_ = (call);                                      \
    if (cuda_check_err_ != cudaSuccess) {                                      \
      fprintf(stderr, "%s:%d: %s failed: %s (%s, %d)\n", __FILE__, __LINE__,   \
              #call, cudaGetErrorName(cuda_check_err_),                        \
              cudaGetErrorString(cuda_check_err_), (int)cuda_check_err_);      \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

/* The name NVIDIA's helper_cuda.h gives the same idiom. */
#define checkCudaErrors(call) CUDA_CHECK(call)

/* Stops with a message when `cond` is false. */
#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: expected %s: ", __FILE__, __LINE__, #cond);      \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

/* cudaEventElapsedTime that accepts a device which cannot time work
 * (clstream on rusticl: cudaErrorNotSupported, docs/drivers.md): then *ms
 * is 0 and the last error is cleared.  Returns 1 when *ms was measured. */
#define CUDA_ELAPSED(ms, a, b)                                                 \
  cuda_elapsed_or_untimed((ms), (a), (b), __FILE__, __LINE__)
static inline int cuda_elapsed_or_untimed(float *ms, cudaEvent_t a,
                                          cudaEvent_t b, const char *file,
                                          int line) {
  cudaError_t e = cudaEventElapsedTime(ms, a, b);
  if (e == cudaErrorNotSupported) {
    (void)cudaGetLastError();
    *ms = 0.0f;
    return 0;
  }
  if (e != cudaSuccess) {
    fprintf(stderr, "%s:%d: cudaEventElapsedTime failed: %s (%s, %d)\n", file,
            line, cudaGetErrorName(e), cudaGetErrorString(e), (int)e);
    exit(1);
  }
  return 1;
}

/* Prints the current device as CUDA samples do, and returns its index. */
static inline int print_cuda_device(void) {
  int dev;
  struct cudaDeviceProp prop; /* the C spelling CUDA's headers need */
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  printf("device %d: %s, %d multiprocessors, %zu MiB\n", dev, prop.name,
         prop.multiProcessorCount, prop.totalGlobalMem >> 20);
  return dev;
}

/* Loads tests/kernels/cuda_samples.cl and returns kernel `name`, as a
 * CUDA program would take a kernel's address: a `const void *` for
 * cudaLaunchKernel. */
static inline const void *load_kernel(const char *name) {
  static clsModule_t mod;
  clsFunction_t f;
  if (!mod) {
    cudaError_t e = clsModuleLoadData(&mod, cls_kernel_cuda_samples, NULL);
    if (e != cudaSuccess)
      fprintf(stderr, "build log:\n%s\n", clsGetLastBuildLog());
    CUDA_CHECK(e);
  }
  CUDA_CHECK(clsModuleGetFunction(&f, mod, name));
  return (const void *)f;
}

#endif /* CLSTREAM_TESTS_CUDA_CHECK_H */
