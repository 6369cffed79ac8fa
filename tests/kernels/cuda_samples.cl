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

/* The kernel of docs/porting-from-cuda.md's example: out[g] = the sum of
 * block g's elements of in[0..n), through local memory.  The block size
 * must be 256. */
CLS_KERNEL void block_sum(CLS_GLOBAL const float *in, CLS_GLOBAL float *out,
                          unsigned n) {
  CLS_LOCAL float part[256];
  unsigned t = cls_local_id(0);
  unsigned i = cls_global_id(0);
  part[t] = i < n ? in[i] : 0.0f;
  cls_barrier();
  for (unsigned s = cls_local_size(0) / 2; s > 0; s /= 2) {
    if (t < s) part[t] += part[t + s];
    cls_barrier();
  }
  if (t == 0) out[cls_group_id(0)] = part[0];
}

/* c[i] = a[i] + b[i] for i < n (the zero-copy and stream-ordered
 * allocation programs). */
CLS_KERNEL void vec_add(CLS_GLOBAL const float *a, CLS_GLOBAL const float *b,
                        CLS_GLOBAL float *c, unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
