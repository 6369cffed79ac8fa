/* The clock delay kernel (tests/test_kclock.c, the cuda_names sample
 * clock_delay.c): as the delay kernels of CUDA's samples and HIP's tests
 * (clock_block), it spins on cls_clock64() until `ticks` have passed and
 * stores how many did.  Only where the device has a clock: elsewhere this
 * module does not build (CLS_HAS_CLOCK64 is 0). */
CLS_KERNEL void clock_block(CLS_GLOBAL ulong *out, ulong ticks) {
  ulong start = cls_clock64(), now = start, back = 0, prev = start;
  while (now - start < ticks) {
    now = cls_clock64();
    if (now < prev) back++;
    prev = now;
  }
  if (cls_global_id(0) == 0) {
    out[0] = now - start;
    out[1] = back;
  }
}
