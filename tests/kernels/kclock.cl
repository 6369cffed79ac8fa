/* Kernels of the kernel clock, warp size and device query tests
 * (tests/test_kclock.c) and of the clock delay sample
 * (tests/cuda_names/clock_delay.c). */

/* What the device offers: CLS_CLOCK64_KIND and cls_warp_size(). */
CLS_KERNEL void kclock_features(CLS_GLOBAL unsigned *out) {
  if (cls_global_id(0) != 0) return;
  out[0] = CLS_CLOCK64_KIND;
  out[1] = cls_warp_size();
}

/* simpleHyperQ's `sum`: one block of 32 threads adds n values, each thread
 * a strided share, then halves the shared array from warpSize / 2 down,
 * with a barrier between steps. */
CLS_KERNEL void kclock_sum(CLS_GLOBAL long *values, int n) {
  CLS_LOCAL long part[32];
  /* Blocks of up to 32 threads only (the whole block leaves at once, so
   * no barrier is skipped): the kernel sweep launches 64. */
  if (cls_local_size(0) > 32) return;
  unsigned t = cls_local_id(0);
  long mine = 0;
  for (int i = (int)t; i < n; i += (int)cls_local_size(0)) mine += values[i];
  part[t] = mine;
  cls_barrier();
  for (unsigned i = cls_warp_size() / 2; i > 0; i /= 2) {
    if (t < i) part[t] += part[t + i];
    cls_barrier();
  }
  if (t == 0) values[0] = part[0];
}

/* A few rounds of arithmetic per work-item, so that a timed launch does
 * measurable work on every device. */
CLS_KERNEL void kclock_busy(CLS_GLOBAL unsigned *out, unsigned rounds) {
  unsigned i = cls_global_id(0);
  unsigned v = i;
  for (unsigned k = 0; k < rounds; ++k) v = v * 1664525u + 1013904223u;
  out[i] = v;
}
