/*
 * zero_copy: the host-memory paths CUDA programs choose between, written
 * against CUDA names only.  It asks for blocking synchronization and
 * mapped memory with cudaSetDeviceFlags before anything else, as
 * zero-copy samples do, then
 *  - where the device can map host memory (canMapHostMemory), adds two
 *    vectors that live in cudaHostAllocMapped memory through the pointers
 *    cudaHostGetDevicePointer gives, without a single copy;
 *  - where it cannot, takes the usual fallback: pinned buffers
 *    (cudaHostAlloc, portable and write-combined), device memory and
 *    async copies;
 *  - registers ordinary malloc'd memory with cudaHostRegister (as
 *    simpleStreams does for "generic" memory) and copies through it;
 *  - uses managed memory (cudaMallocManaged) where the device has it,
 *    with advice and prefetches (CUDA 13's cudaMemLocation forms).
 */
#include "cuda_check.h"

#include <string.h>

enum { N = 1 << 16 };

static void fill_inputs(float *a, float *b) {
  for (int i = 0; i < N; ++i) {
    a[i] = (float)i;
    b[i] = 0.5f * (float)i;
  }
}

static void check_sum(const float *c, const char *what) {
  int errors = 0;
  for (int i = 0; i < N; ++i)
    if (c[i] != 1.5f * (float)i && errors++ < 5)
      fprintf(stderr, "%s: c[%d] = %g\n", what, i, (double)c[i]);
  EXPECT(errors == 0, "%s: %d wrong elements", what, errors);
}

static void launch_add(const void *vec_add, float *a, float *b, float *c,
                       cudaStream_t s) {
  unsigned n = N;
  void *args[] = {&a, &b, &c, &n};
  dim3 grid = {N / 256, 1, 1}, block = {256, 1, 1};
  checkCudaErrors(cudaLaunchKernel(vec_add, grid, block, args, 0, s));
}

int main(void) {
  /* Before the device is used, as the samples do it. */
  checkCudaErrors(
      cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
  unsigned flags = 0;
  checkCudaErrors(cudaGetDeviceFlags(&flags));
  EXPECT((flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync,
         "flags 0x%x", flags);
  int dev = print_cuda_device();
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
  const void *vec_add = load_kernel("vec_add");
  size_t bytes = N * sizeof(float);
  float *a, *b, *c;

  if (prop.canMapHostMemory) {
    EXPECT(flags & cudaDeviceMapHost, "flags 0x%x lack MapHost", flags);
    float *d_a, *d_b, *d_c;
    checkCudaErrors(cudaHostAlloc(&a, bytes, cudaHostAllocMapped));
    checkCudaErrors(cudaHostAlloc(&b, bytes, cudaHostAllocMapped));
    checkCudaErrors(
        cudaHostAlloc(&c, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    fill_inputs(a, b);
    memset(c, 0, bytes);
    checkCudaErrors(cudaHostGetDevicePointer(&d_a, a, 0));
    checkCudaErrors(cudaHostGetDevicePointer(&d_b, b, 0));
    checkCudaErrors(cudaHostGetDevicePointer(&d_c, c, 0));
    launch_add(vec_add, d_a, d_b, d_c, 0);
    checkCudaErrors(cudaDeviceSynchronize());
    check_sum(c, "zero-copy");
    printf("zero-copy: kernels read and wrote mapped host memory\n");
  } else {
    /* The fallback real programs take: pinned staging buffers. */
    float *d_a, *d_b, *d_c;
    checkCudaErrors(cudaHostAlloc(
        &a, bytes, cudaHostAllocPortable | cudaHostAllocWriteCombined));
    checkCudaErrors(cudaHostAlloc(&b, bytes, cudaHostAllocWriteCombined));
    checkCudaErrors(cudaHostAlloc(&c, bytes, cudaHostAllocDefault));
    void *no;
    EXPECT(cudaHostGetDevicePointer(&no, a, 0) != cudaSuccess,
           "a device pointer for memory the device cannot map");
    (void)cudaGetLastError();
    checkCudaErrors(cudaMalloc(&d_a, bytes));
    checkCudaErrors(cudaMalloc(&d_b, bytes));
    checkCudaErrors(cudaMalloc(&d_c, bytes));
    fill_inputs(a, b);
    cudaStream_t s;
    checkCudaErrors(cudaStreamCreate(&s));
    checkCudaErrors(cudaMemcpyAsync(d_a, a, bytes, cudaMemcpyHostToDevice, s));
    checkCudaErrors(cudaMemcpyAsync(d_b, b, bytes, cudaMemcpyHostToDevice, s));
    launch_add(vec_add, d_a, d_b, d_c, s);
    checkCudaErrors(cudaMemcpyAsync(c, d_c, bytes, cudaMemcpyDeviceToHost, s));
    checkCudaErrors(cudaStreamSynchronize(s));
    check_sum(c, "pinned copies");
    checkCudaErrors(cudaStreamDestroy(s));
    checkCudaErrors(cudaFree(d_a));
    checkCudaErrors(cudaFree(d_b));
    checkCudaErrors(cudaFree(d_c));
    printf("zero-copy: not available, pinned copies instead\n");
  }
  checkCudaErrors(cudaFreeHost(a));
  checkCudaErrors(cudaFreeHost(b));
  checkCudaErrors(cudaFreeHost(c));

  /* Generic memory, page-locked after the fact. */
  float *ga = malloc(bytes), *gb = malloc(bytes), *gc = malloc(bytes);
  float *d_a, *d_b, *d_c;
  fill_inputs(ga, gb);
  checkCudaErrors(cudaHostRegister(ga, bytes, cudaHostRegisterDefault));
  checkCudaErrors(cudaHostRegister(gb, bytes, cudaHostRegisterPortable));
  checkCudaErrors(cudaHostRegister(gc, bytes, cudaHostRegisterMapped));
  EXPECT(cudaHostRegister(gc, bytes, 0) == cudaErrorHostMemoryAlreadyRegistered,
         "registered twice");
  (void)cudaGetLastError();
  checkCudaErrors(cudaMalloc(&d_a, bytes));
  checkCudaErrors(cudaMalloc(&d_b, bytes));
  checkCudaErrors(cudaMalloc(&d_c, bytes));
  cudaStream_t s;
  checkCudaErrors(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  checkCudaErrors(cudaMemcpyAsync(d_a, ga, bytes, cudaMemcpyHostToDevice, s));
  checkCudaErrors(cudaMemcpyAsync(d_b, gb, bytes, cudaMemcpyHostToDevice, s));
  launch_add(vec_add, d_a, d_b, d_c, s);
  checkCudaErrors(cudaMemcpyAsync(gc, d_c, bytes, cudaMemcpyDeviceToHost, s));
  checkCudaErrors(cudaStreamSynchronize(s));
  check_sum(gc, "registered memory");
  checkCudaErrors(cudaHostUnregister(ga));
  checkCudaErrors(cudaHostUnregister(gb));
  checkCudaErrors(cudaHostUnregister(gc));
  EXPECT(cudaHostUnregister(gc) == cudaErrorHostMemoryNotRegistered,
         "unregistered twice");
  (void)cudaGetLastError();
  free(ga);
  free(gb);
  free(gc);

  /* Managed memory where the device has it: one pointer for both. */
  int managed = 0;
  checkCudaErrors(
      cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, dev));
  if (managed) {
    float *m_a, *m_b, *m_c;
    checkCudaErrors(cudaMallocManaged(&m_a, bytes, cudaMemAttachGlobal));
    checkCudaErrors(cudaMallocManaged(&m_b, bytes, cudaMemAttachGlobal));
    checkCudaErrors(cudaMallocManaged(&m_c, bytes, cudaMemAttachGlobal));
    fill_inputs(m_a, m_b);
    /* CUDA 13's forms: advice and prefetches take a cudaMemLocation. */
    struct cudaMemLocation on_dev = {cudaMemLocationTypeDevice, dev};
    struct cudaMemLocation on_host = {cudaMemLocationTypeHost, 0};
    checkCudaErrors(
        cudaMemAdvise(m_a, bytes, cudaMemAdviseSetReadMostly, on_dev));
    checkCudaErrors(cudaMemPrefetchAsync(m_a, bytes, on_dev, 0, s));
    checkCudaErrors(cudaMemPrefetchAsync(m_b, bytes, on_dev, 0, s));
    launch_add(vec_add, m_a, m_b, m_c, s);
    checkCudaErrors(cudaMemPrefetchAsync(m_c, bytes, on_host, 0, s));
    checkCudaErrors(cudaStreamSynchronize(s));
    check_sum(m_c, "managed memory");
    int read_mostly = 0, last = 0;
    checkCudaErrors(cudaMemRangeGetAttribute(&read_mostly, sizeof read_mostly,
                                             cudaMemRangeAttributeReadMostly,
                                             m_a, bytes));
    checkCudaErrors(cudaMemRangeGetAttribute(
        &last, sizeof last, cudaMemRangeAttributeLastPrefetchLocation, m_c,
        bytes));
    EXPECT(read_mostly == 1, "ReadMostly of m_a is %d", read_mostly);
    EXPECT(last == cudaCpuDeviceId, "m_c last prefetched to %d", last);
    checkCudaErrors(cudaFree(m_a));
    checkCudaErrors(cudaFree(m_b));
    checkCudaErrors(cudaFree(m_c));
    printf("managed memory: used in place by host and kernel\n");
  } else {
    float *m;
    EXPECT(cudaMallocManaged(&m, bytes, cudaMemAttachGlobal) ==
               cudaErrorNotSupported,
           "managed memory on a device without it");
    (void)cudaGetLastError();
    printf("managed memory: not available on this device\n");
  }
  checkCudaErrors(cudaStreamDestroy(s));
  checkCudaErrors(cudaFree(d_a));
  checkCudaErrors(cudaFree(d_b));
  checkCudaErrors(cudaFree(d_c));
  checkCudaErrors(cudaSetDeviceFlags(cudaDeviceScheduleAuto));
  checkCudaErrors(cudaGetLastError());
  printf("zero_copy: PASSED\n");
  return 0;
}
