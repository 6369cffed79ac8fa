/* Kernels for the model-based random test (tests/model/): each writes a
 * value the reference model can compute, so that a missed ordering edge
 * shows up as a wrong buffer. */

/* t[i] = v + i for i < n. */
CLS_KERNEL void model_fill(CLS_GLOBAL unsigned *t, unsigned v, unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) t[i] = v + i;
}

/* t[i] += k for i < n, after `iters` rounds of busy work (so that the
 * command takes a while); `zero` is 0 at run time, which keeps the loop
 * from being optimized away. */
CLS_KERNEL void model_add(CLS_GLOBAL unsigned *t, unsigned k, unsigned n,
                          unsigned iters, unsigned zero) {
  unsigned i = cls_global_id(0);
  unsigned x = i + 1u;
  for (unsigned r = 0; r < iters; ++r) x = x * 1664525u + 1013904223u;
  if (i < n) t[i] += k + (x & zero);
}

/* dst[i] = src[i] for i < n. */
CLS_KERNEL void model_copy(CLS_GLOBAL unsigned *dst,
                           CLS_GLOBAL const unsigned *src, unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) dst[i] = src[i];
}
