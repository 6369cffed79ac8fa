/* Kernels of the dialect's tests (tests/test_dialect.c). */

/* size_t and ptrdiff_t parameters receive the host's 64-bit values. */
CLS_KERNEL void sizes(CLS_GLOBAL ulong *out, size_t n, ptrdiff_t d,
                      CLS_GLOBAL const int *t, size_t at) {
  size_t i = cls_global_id(0);
  if (i != 0) return;
  out[0] = (ulong)n;
  out[1] = (ulong)d;
  out[2] = (ulong)t[at];
}

/* What the device offers: cls_warp_size() and CLS_HAS_CLOCK64. */
CLS_KERNEL void features(CLS_GLOBAL unsigned *out) {
  if (cls_global_id(0) != 0) return;
  out[0] = cls_warp_size();
  out[1] = CLS_HAS_CLOCK64;
}

/* Issue 35's reduction: one block of 32 sums in[0..31] into out[0]
 * through a body __local array, with a barrier in a loop that starts at
 * half the warp size (PoCL 5.0 crashed on it where cls_warp_size() read
 * the sub-group size; facts.c, warp_const).  Blocks of up to 64. */
CLS_KERNEL void warp_loop_sum(CLS_GLOBAL const int *in, CLS_GLOBAL int *out) {
  CLS_LOCAL int sm[64];
  unsigned t = cls_local_id(0);
  sm[t] = in[t];
  cls_barrier();
  for (unsigned s = cls_warp_size() / 2; s > 0; s /= 2) {
    if (t < s) sm[t] += sm[t + s];
    cls_barrier();
  }
  if (t == 0) out[0] = sm[0];
}
