/*
 * porting_example: the host side of docs/porting-from-cuda.md's "after"
 * example, so that the guide's code keeps compiling and working.  CUDA
 * names throughout; the kernel (block_sum, tests/kernels/cuda_samples.cl) is
 * the guide's ported kernel.
 */
#include "cuda_check.h"

int main(void) {
  enum { N = 10000, BLOCK = 256 };
  const unsigned blocks = (N + BLOCK - 1) / BLOCK;
  unsigned n = N;
  float *h_in, *h_out, *d_in, *d_out;
  cudaStream_t stream;

  print_cuda_device();
  const void *block_sum = load_kernel("block_sum");

  CUDA_CHECK(cudaMallocHost((void **)&h_in, N * sizeof(float)));
  CUDA_CHECK(cudaMallocHost((void **)&h_out, blocks * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&d_in, N * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&d_out, blocks * sizeof(float)));
  for (int i = 0; i < N; ++i) h_in[i] = (float)(i % 7);
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  /* CUDA: block_sum<<<blocks, 256, 0, stream>>>(d_in, d_out, n); */
  void *args[] = {&d_in, &d_out, &n};
  CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, N * sizeof(float),
                             cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaLaunchKernel(block_sum, (dim3){blocks, 1, 1},
                              (dim3){BLOCK, 1, 1}, args, 0, stream));
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, blocks * sizeof(float),
                             cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  for (unsigned b = 0; b < blocks; ++b) {
    float want = 0.0f;
    for (unsigned i = b * BLOCK; i < (b + 1) * BLOCK && i < N; ++i)
      want += h_in[i];
    EXPECT(h_out[b] == want, "block %u: %f, expected %f", b, (double)h_out[b],
           (double)want);
  }
  /* Dynamic shared memory the kernel does not declare is accepted, as on
   * CUDA; more than a block can have is refused and is not sticky. */
  CUDA_CHECK(cudaLaunchKernel(block_sum, (dim3){blocks, 1, 1},
                              (dim3){BLOCK, 1, 1}, args, 64, stream));
  struct cudaDeviceProp prop;
  int dev;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  EXPECT(cudaLaunchKernel(block_sum, (dim3){blocks, 1, 1}, (dim3){BLOCK, 1, 1},
                          args, prop.sharedMemPerBlock + 1,
                          stream) == cudaErrorInvalidValue,
         "a launch over sharedMemPerBlock succeeded");
  EXPECT(cudaGetLastError() != cudaSuccess, "no last error after it");
  EXPECT(cudaGetLastError() == cudaSuccess, "last error not reset");
  CUDA_CHECK(cudaStreamSynchronize(stream));

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFreeHost(h_in));
  CUDA_CHECK(cudaFreeHost(h_out));
  printf("porting_example: %u block sums: PASSED\n", blocks);
  return 0;
}
