/*
 * gemm_pipeline: batches of SGEMMs from a real BLAS on a clstream stream,
 * with the host-to-device copies of batch k+1 on a second stream
 * overlapping the GEMM of batch k, ordered only by events
 * (docs/interop.md explains it).  The BLAS is CLBlast on the OpenCL build
 * (on the stream's queue, from clsOpenCLGetQueue, with the buffers and
 * offsets clsOpenCLGetMem gives) and cuBLAS on the CUDA build (on the
 * stream's cudaStream_t).  Every result is checked against a CPU
 * reference; the overlap is measured with clsEventElapsedTime.
 *
 * Usage: gemm_pipeline [SIZE [BATCHES]]   (default 256 and 6)
 */
#include "common.h"

#include <math.h>
#include <string.h>

#if defined(GEMM_CLBLAST)
#include <clblast_c.h>
#include <clstream_opencl.h>
#elif defined(GEMM_CUBLAS)
#include <clstream_cuda_interop.h>
#include <cublas_v2.h>
#else
#error "build with GEMM_CLBLAST or GEMM_CUBLAS"
#endif

/* C = A * B for row-major n x n matrices on `s`, through the BLAS. */
static void gemm(clsStream_t s, int n, const float *a, const float *b,
                 float *c) {
#if defined(GEMM_CLBLAST)
  cl_command_queue q;
  CHECK(clsOpenCLGetQueue(s, &q));
  cl_mem ma, mb, mc;
  size_t oa, ob, oc; /* bytes; CLBlast counts offsets in elements */
  CHECK(clsOpenCLGetMem(a, &ma, &oa));
  CHECK(clsOpenCLGetMem(b, &mb, &ob));
  CHECK(clsOpenCLGetMem(c, &mc, &oc));
  size_t un = (size_t)n, f = sizeof(float);
  CLBlastStatusCode st = CLBlastSgemm(
      CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, un, un, un,
      1.0f, ma, oa / f, un, mb, ob / f, un, 0.0f, mc, oc / f, un, &q, NULL);
  if (st != CLBlastSuccess) {
    fprintf(stderr, "CLBlastSgemm failed: %d\n", (int)st);
    exit(1);
  }
#else
  static cublasHandle_t h;
  if (!h && cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "cublasCreate failed\n");
    exit(1);
  }
  cudaStream_t cs;
  CHECK(clsCUDAGetStream(s, &cs));
  const float one = 1.0f, zero = 0.0f;
  /* Row-major C = A B is column-major C^T = B^T A^T. */
  if (cublasSetStream(h, cs) != CUBLAS_STATUS_SUCCESS ||
      cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero,
                  c, n) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "cublasSgemm failed\n");
    exit(1);
  }
#endif
}

/* Milliseconds of [a0, a1] that overlap [b0, b1], all from event t0. */
static float overlap_ms(clsEvent_t t0, clsEvent_t a0, clsEvent_t a1,
                        clsEvent_t b0, clsEvent_t b1) {
  float x0, x1, y0, y1;
  CHECK(clsEventElapsedTime(&x0, t0, a0));
  CHECK(clsEventElapsedTime(&x1, t0, a1));
  CHECK(clsEventElapsedTime(&y0, t0, b0));
  CHECK(clsEventElapsedTime(&y1, t0, b1));
  float lo = x0 > y0 ? x0 : y0, hi = x1 < y1 ? x1 : y1;
  return hi > lo ? hi - lo : 0.0f;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 256;
  int nb = argc > 2 ? atoi(argv[2]) : 6;
  if (n < 1 || nb < 2) {
    fprintf(stderr, "usage: gemm_pipeline [SIZE >= 1 [BATCHES >= 2]]\n");
    return 2;
  }
  print_device();
  size_t elems = (size_t)n * n, bytes = elems * sizeof(float);

  /* Pinned host inputs and outputs of every batch. */
  float *ha, *hb, *hc;
  CHECK(clsMallocHost((void **)&ha, bytes * nb));
  CHECK(clsMallocHost((void **)&hb, bytes * nb));
  CHECK(clsMallocHost((void **)&hc, bytes * nb));
  srand(7);
  for (size_t i = 0; i < elems * nb; ++i) {
    ha[i] = (float)(rand() % 17 - 8) / 8.0f;
    hb[i] = (float)(rand() % 13 - 6) / 6.0f;
  }
  /* Two device slots: batch k uses slot k % 2. */
  float *da[2], *db[2], *dc[2];
  for (int i = 0; i < 2; ++i) {
    CHECK(clsMalloc((void **)&da[i], bytes));
    CHECK(clsMalloc((void **)&db[i], bytes));
    CHECK(clsMalloc((void **)&dc[i], bytes));
  }
  clsStream_t copy, compute;
  CHECK(clsStreamCreateWithFlags(&copy, clsStreamNonBlocking));
  CHECK(clsStreamCreateWithFlags(&compute, clsStreamNonBlocking));
  /* Per batch: copy start/end, GEMM start/end, and the slot's release
   * (its result copied back). */
  clsEvent_t t0, *h0 = calloc(nb, sizeof *h0), *h1 = calloc(nb, sizeof *h1),
                 *g0 = calloc(nb, sizeof *g0), *g1 = calloc(nb, sizeof *g1),
                 *done = calloc(nb, sizeof *done);
  if (!h0 || !h1 || !g0 || !g1 || !done) return 1;
  CHECK(clsEventCreate(&t0));
  for (int k = 0; k < nb; ++k) {
    CHECK(clsEventCreate(&h0[k]));
    CHECK(clsEventCreate(&h1[k]));
    CHECK(clsEventCreate(&g0[k]));
    CHECK(clsEventCreate(&g1[k]));
    CHECK(clsEventCreateWithFlags(&done[k], clsEventDisableTiming));
  }

  /* A warm-up GEMM (the BLAS compiles or loads its kernels). */
  gemm(compute, n, da[0], db[0], dc[0]);
  CHECK(clsStreamSynchronize(compute));

  CHECK(clsEventRecord(t0, copy));
  for (int k = 0; k < nb; ++k) {
    int s = k % 2;
    /* The slot is free once batch k-2's result has been copied back. */
    if (k >= 2) CHECK(clsStreamWaitEvent(copy, done[k - 2], 0));
    CHECK(clsEventRecord(h0[k], copy));
    CHECK(clsMemcpyAsync(da[s], ha + elems * k, bytes, clsMemcpyHostToDevice,
                         copy));
    CHECK(clsMemcpyAsync(db[s], hb + elems * k, bytes, clsMemcpyHostToDevice,
                         copy));
    CHECK(clsEventRecord(h1[k], copy));
    /* The GEMM of batch k waits for its inputs only. */
    CHECK(clsStreamWaitEvent(compute, h1[k], 0));
    CHECK(clsEventRecord(g0[k], compute));
    gemm(compute, n, da[s], db[s], dc[s]);
    CHECK(clsEventRecord(g1[k], compute));
    CHECK(clsMemcpyAsync(hc + elems * k, dc[s], bytes, clsMemcpyDeviceToHost,
                         compute));
    CHECK(clsEventRecord(done[k], compute));
  }
  CHECK(clsStreamSynchronize(compute));

  /* Check every batch against the CPU. */
  float *ref = malloc(bytes);
  if (!ref) return 1;
  int bad = 0;
  for (int k = 0; k < nb && !bad; ++k) {
    const float *a = ha + elems * k, *b = hb + elems * k, *c = hc + elems * k;
    memset(ref, 0, bytes);
    for (int i = 0; i < n; ++i)
      for (int l = 0; l < n; ++l)
        for (int j = 0; j < n; ++j)
          ref[(size_t)i * n + j] += a[(size_t)i * n + l] * b[(size_t)l * n + j];
    for (size_t i = 0; i < elems; ++i)
      if (fabsf(c[i] - ref[i]) > 1e-3f * (1.0f + fabsf(ref[i]))) {
        printf("batch %d: C[%zu] = %g, expected %g\n", k, i, c[i], ref[i]);
        bad = 1;
        break;
      }
  }
  free(ref);

  /* What the events measured (a device without usable timestamps, such
   * as rusticl on llvmpipe, times nothing). */
  printf("%d SGEMMs of %d x %d: %s\n", nb, n, n, bad ? "WRONG" : "correct");
  float total, copies = 0, hidden = 0, gemms = 0;
  clsError_t te = clsEventElapsedTime(&total, t0, g1[nb - 1]);
  if (te == clsErrorNotSupported) {
    printf("no timing on this device (clsErrorNotSupported)\n");
    nb = -nb; /* skip the report, keep the clean-up */
  }
  CHECK(te == clsErrorNotSupported ? clsSuccess : te);
  for (int k = 0; k < nb; ++k) {
    float c, g;
    CHECK(clsEventElapsedTime(&c, h0[k], h1[k]));
    CHECK(clsEventElapsedTime(&g, g0[k], g1[k]));
    copies += c;
    gemms += g;
    if (k + 1 < nb)
      hidden += overlap_ms(t0, h0[k + 1], h1[k + 1], g0[k], g1[k]);
  }
  double flops = 2.0 * n * (double)n * n * nb;
  if (nb > 0)
    printf("copies %.3f ms, GEMMs %.3f ms, copies hidden behind GEMMs %.3f ms "
           "(%.0f%%)\n",
           copies, gemms, hidden, copies > 0 ? 100.0 * hidden / copies : 0.0);
  if (nb > 0)
    printf("GFLOP/s: %.2f over the pipeline (%.3f ms), %.2f in the GEMMs\n",
           total > 0 ? flops / (total * 1e6) : 0.0, total,
           gemms > 0 ? flops / (gemms * 1e6) : 0.0);
  if (nb < 0) nb = -nb;

  for (int k = 0; k < nb; ++k) {
    CHECK(clsEventDestroy(h0[k]));
    CHECK(clsEventDestroy(h1[k]));
    CHECK(clsEventDestroy(g0[k]));
    CHECK(clsEventDestroy(g1[k]));
    CHECK(clsEventDestroy(done[k]));
  }
  CHECK(clsEventDestroy(t0));
  CHECK(clsStreamDestroy(copy));
  CHECK(clsStreamDestroy(compute));
  for (int i = 0; i < 2; ++i) {
    CHECK(clsFree(da[i]));
    CHECK(clsFree(db[i]));
    CHECK(clsFree(dc[i]));
  }
  CHECK(clsFreeHost(ha));
  CHECK(clsFreeHost(hb));
  CHECK(clsFreeHost(hc));
  free(h0), free(h1), free(g0), free(g1), free(done);
  return bad;
}
