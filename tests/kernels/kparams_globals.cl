/* Module globals (issue 25 point 6): a __constant table with an initial
 * value, one without, and a __device__ counter. */
CLS_CONSTANT(float, kp_coef[4]) = {1.0f, 2.0f, 3.0f, 4.0f};
CLS_CONSTANT(int, kp_table[16]);
CLS_DEVICE_GLOBAL(int, kp_counter);

/* x[i] *= kp_coef[i % 4]. */
CLS_KERNEL void apply_coef(CLS_GLOBAL float *x, unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) x[i] *= kp_coef[i % 4];
}

/* out[i] = kp_table[idx[i] % 16]. */
CLS_KERNEL void lookup(CLS_GLOBAL const int *idx, CLS_GLOBAL int *out,
                       unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) out[i] = kp_table[idx[i] % 16];
}

/* One thread adds `by` to the counter and stores its new value. */
CLS_KERNEL void bump_counter(int by, CLS_GLOBAL int *seen) {
  if (cls_global_id(0) == 0 && seen) {
    kp_counter += by;
    *seen = kp_counter;
  }
}

/* out[i] = p[i]: reads a global through its address as a plain pointer. */
CLS_KERNEL void read_through(CLS_GLOBAL const int *p, CLS_GLOBAL int *out,
                             unsigned n) {
  unsigned i = cls_global_id(0);
  if (i < n) out[i] = p[i];
}
