/* OpenCL backend: 2-D copies and fills (clsMemcpy2D, clsMemset2D and the
 * 3-D copies the front cuts into slices), in a stream's order.
 *
 * Rows that touch end to end are one command.  Where both sides are
 * device memory in buffers (a device without SVM, or CLSTREAM_MEMORY=
 * buffers), the rectangle is one clEnqueueCopyBufferRect.  Otherwise each row
 * is a command of copy.c's (so every pairing of host, pinned and device memory
 * takes the command copy.c picks for it, staging included), all but the last
 * enqueued without waiting, the last one returning as `mode` says: the stream
 * is in order, so the last row is done only after the others.  (Host memory
 * against a buffer could take clEnqueueRead/WriteBufferRect; it takes the
 * row loop for now.) */
#include "command.h"

/* Both sides in buffers, the whole rectangle inside each: one
 * clEnqueueCopyBufferRect.  Returns 0 (nothing done) where that does not
 * apply. */
static int cls__rect_copy(cls__bstream *s, void *dst, size_t dpitch,
                          const void *src, size_t spitch, size_t width,
                          size_t height, int mode, clsError_t *r) {
  cl_mem dm, sm;
  size_t doff, soff, davail, savail;
  size_t span_d = (height - 1) * dpitch + width;
  size_t span_s = (height - 1) * spitch + width;
  /* Device memory on both sides (pinned memory stays mapped: the host's). */
  if (!CLS__MEM_ON_DEVICE(cls__mem_lookup(dst, NULL, NULL, NULL)) ||
      !CLS__MEM_ON_DEVICE(cls__mem_lookup(src, NULL, NULL, NULL)))
    return 0;
  if (!cls__ocl_buffer_at(dst, &dm, &doff, &davail) ||
      !cls__ocl_buffer_at(src, &sm, &soff, &savail) || span_d > davail ||
      span_s > savail)
    return 0;
  int blocking = (mode & CLS__COPY_HOW) == CLS__COPY_BLOCKING;
  /* Buffer origins in bytes, rows and slices; the offsets go into x. */
  const size_t so[3] = {soff, 0, 0}, dor[3] = {doff, 0, 0};
  const size_t region[3] = {width, height, 1};
  cls__ocl_batch b;
  cl_event ev = NULL;
  cls__ocl_begin(s, &b);
  b.what = "memcpy2d";
  b.cat = "copy";
  b.work = 1;
  cl_int err = clEnqueueCopyBufferRect(
      s->q, sm, dm, so, dor, region, spitch, 0, dpitch, 0, b.n, b.list,
      blocking ? &ev : cls__ocl_event_slot(s, &ev));
  if (err == CL_SUCCESS && blocking) clRetainEvent(ev);
  cls__ocl_end_cmd(s, &b, err == CL_SUCCESS, ev);
  if (err != CL_SUCCESS) {
    *r = cls__ocl_error(err, "clEnqueueCopyBufferRect");
    return 1;
  }
  *r = clsSuccess;
  if (blocking) {
    *r = cls__ocl_wait(ev, 0);
    clReleaseEvent(ev);
  }
  return 1;
}

/* The mode of a row before the last: it need not block. */
static int cls__row_mode(int mode) {
  int how = mode & CLS__COPY_HOW;
  return (mode & ~CLS__COPY_HOW) |
         (how == CLS__COPY_BLOCKING ? CLS__COPY_ASYNC : how);
}

clsError_t cls__b_memcpy2d(cls__bstream *s, void *dst, size_t dpitch,
                           const void *src, size_t spitch, size_t width,
                           size_t height, clsMemcpyKind kind, int mode) {
  if (dpitch == width && spitch == width)
    return cls__b_memcpy(s, dst, src, width * height, kind, mode);
  clsError_t e = clsSuccess;
  if (cls__rect_copy(s, dst, dpitch, src, spitch, width, height, mode, &e))
    return e;
  for (size_t r = 0; r < height && e == clsSuccess; ++r)
    e = cls__b_memcpy(s, (char *)dst + r * dpitch,
                      (const char *)src + r * spitch, width, kind,
                      r + 1 == height ? mode : cls__row_mode(mode));
  return e;
}

clsError_t cls__b_memset2d(cls__bstream *s, void *dst, size_t pitch, int value,
                           size_t width, size_t height, int mode) {
  if (pitch == width) return cls__b_memset(s, dst, value, width * height, mode);
  clsError_t e = clsSuccess;
  for (size_t r = 0; r < height && e == clsSuccess; ++r)
    e = cls__b_memset(s, (char *)dst + r * pitch, value, width,
                      r + 1 == height ? mode : cls__row_mode(mode));
  return e;
}
