/* CUDA backend: what graphs need of a kernel (backend.h, "Graphs"): the
 * size of each parameter, from the runtime's cudaFuncGetParamInfo, so that
 * a kernel node can copy the argument values when it is made. */
#include "cuda_be.h"

clsError_t cls__b_function_params(cls__bfunction *f, size_t *n, size_t *sizes,
                                  size_t max) {
  size_t i = 0;
  for (;; ++i) {
    size_t offset = 0, size = 0;
    cudaError_t r =
        cudaFuncGetParamInfo((const void *)f->kernel, i, &offset, &size);
    if (r != cudaSuccess) {
      (void)cudaGetLastError(); /* past the last parameter */
      break;
    }
    if (i < max) sizes[i] = size;
  }
  *n = i;
  return clsSuccess;
}
