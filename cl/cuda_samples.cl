/* Kernels for the CUDA-name test programs (tests/cuda_names/), in the
 * clstream dialect. */

/* g[i] += inc for i < n. */
CLS_KERNEL void increment(CLS_GLOBAL int *g, int inc, unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) g[i] += inc;
}

/* g[i] += *factor, `iters` times, for i < n: the factor is read from device
 * memory, and the loop gives the kernel some length. */
CLS_KERNEL void add_factor(CLS_GLOBAL int *g, CLS_GLOBAL const int *factor,
                           unsigned iters, unsigned n) {
  unsigned i = cls_global_id(0);
  if (i >= n) return;
  int v = g[i];
  for (unsigned k = 0; k < iters; ++k) v += *factor;
  g[i] = v;
}
