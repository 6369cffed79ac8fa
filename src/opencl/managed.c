/* OpenCL backend: managed memory's advice and prefetches.
 *
 * OpenCL keeps no advice, so the front's records answer for it.  A
 * prefetch of fine-grained SVM managed memory is a clEnqueueSVMMigrateMem
 * in the stream (OpenCL 2.1 and later; to the host with
 * CL_MIGRATE_MEM_OBJECT_HOST), which a driver that moves pages uses and
 * the others complete at once.  Host-mapped managed memory (hostmem.c)
 * stays where the host and kernels both reach it: its prefetch has
 * nothing to move and enqueues nothing, which keeps the stream's order
 * trivially. */
#include "command.h"

clsError_t cls__b_mem_advise(int dev, const void *p, size_t count, int advice,
                             clsMemLocation loc) {
  (void)dev;
  (void)p;
  (void)count;
  (void)advice;
  (void)loc;
  return clsSuccess;
}

int cls__b_mem_range_attribute(void *data, size_t size, int attr, const void *p,
                               size_t count, clsError_t *err) {
  (void)data;
  (void)size;
  (void)attr;
  (void)p;
  (void)count;
  (void)err;
  return 0;
}

clsError_t cls__b_mem_prefetch(cls__bstream *s, const void *p, size_t count,
                               clsMemLocation loc) {
  cls__ocl_device *d = s->dev;
  if (d->facts.buffers || d->facts.version < 21 || cls__ocl_hostbuf_at(p))
    return clsSuccess;
  cls__ocl_batch b;
  cl_event ev = NULL;
  const void *ptrs[1] = {p};
  size_t sizes[1] = {count};
  cl_mem_migration_flags fl =
      loc.type == clsMemLocationTypeDevice ? 0 : CL_MIGRATE_MEM_OBJECT_HOST;
  cls__ocl_begin_cmd(s, &b);
  cl_int err = clEnqueueSVMMigrateMem(s->q, 1, ptrs, sizes, fl, b.n, b.list,
                                      cls__ocl_event_slot(s, &ev));
  int ok = err == CL_SUCCESS;
  if (ok && !ev) {
    cls__ocl_end_unnamed(s, &b);
    return clsSuccess;
  }
  b.what = "prefetch";
  b.cat = "copy";
  b.work = 1;
  cls__ocl_end_cmd(s, &b, ok, ev);
  if (ok) return clsSuccess;
  if (ev) clReleaseEvent(ev);
  /* A driver that cannot migrate this memory leaves it where it is: the
   * prefetch is a hint, as on CUDA devices that do not page. */
  if (err == CL_INVALID_OPERATION || err == CL_INVALID_VALUE) return clsSuccess;
  return cls__ocl_error(err, "clEnqueueSVMMigrateMem");
}
