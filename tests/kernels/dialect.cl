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
