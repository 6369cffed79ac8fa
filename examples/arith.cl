/* Small kernels that the examples launch.  The tests (tests/support/) and
 * the benchmark (bench/bench.c: fill and spin) launch them too; they live
 * here, beside the examples, because an example is where a reader first
 * meets them.  Embedded as cls_kernel_arith (<clstream_kernels.h>). */

/* t[i] *= k for i < n. */
CLS_KERNEL void scale(CLS_GLOBAL int *t, int k, unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) t[i] *= k;
}

/* out[i] = a[i] + b[i] for i < n. */
CLS_KERNEL void add(CLS_GLOBAL const int *a, CLS_GLOBAL const int *b,
                    CLS_GLOBAL int *out, unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) out[i] = a[i] + b[i];
}

/* t[i] = v for i < n. */
CLS_KERNEL void fill(CLS_GLOBAL int *t, int v, unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) t[i] = v;
}

/* Busy work: each item iterates `iters` times; out[i] gets a value that
 * depends on every iteration so the loop cannot be removed. */
CLS_KERNEL void spin(CLS_GLOBAL unsigned *out, unsigned iters) {
  unsigned i = cls_global_id(0);
  unsigned x = i + 1u;
  for (unsigned k = 0; k < iters; ++k) x = x * 1664525u + 1013904223u;
  out[i] = x;
}
