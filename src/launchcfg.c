/* The launch-configuration checks' cold half (launchcfg.h has the inline
 * one): the reason a configuration is refused, and the calling thread's
 * last configuration that passed. */
#include "launchcfg.h"

_Thread_local struct cls__config_memo cls__tl_config CLS__TLS_FAST = {0, 0, 0,
                                                                      0, -1};

/* The first rule of cls__config_ok broken, as a reason (launchcfg.h). */
CLS__NOINLINE clsError_t cls__config_error(const cls__limits *lim, clsDim3 grid,
                                           clsDim3 block, size_t sharedMem) {
  if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z)
    return cls__reason(clsErrorInvalidValue,
                       "zero dimension in grid (%u, %u, %u) or block "
                       "(%u, %u, %u)",
                       grid.x, grid.y, grid.z, block.x, block.y, block.z);
  const unsigned bd[3] = {block.x, block.y, block.z};
  const unsigned gd[3] = {grid.x, grid.y, grid.z};
  for (int d = 0; d < 3; d++) {
    if (!cls__dim_ok(bd[d], lim->max_threads_dim[d]))
      return cls__reason(clsErrorInvalidValue,
                         "block dimension %c = %u exceeds the device's "
                         "limit of %d",
                         "xyz"[d], bd[d], lim -> max_threads_dim[d]);
    if (!cls__dim_ok(gd[d], lim->max_grid[d]))
      return cls__reason(clsErrorInvalidValue,
                         "grid dimension %c = %u exceeds the device's "
                         "limit of %d (maxGridSize)",
                         "xyz"[d], gd[d], lim -> max_grid[d]);
    /* Folded away where size_t has 64 bits. */
    if ((unsigned long long)gd[d] * bd[d] > SIZE_MAX)
      return cls__reason(clsErrorInvalidValue,
                         "grid dimension %c = %u times block dimension "
                         "%u overflows size_t",
                         "xyz"[d], gd[d], bd[d]);
  }
  const unsigned long long threads =
      (unsigned long long)block.x * block.y * block.z;
  if (threads > (unsigned long long)lim->max_threads_per_block)
    return cls__reason(clsErrorInvalidValue,
                       "block of %llu threads (%u x %u x %u) exceeds "
                       "maxThreadsPerBlock %d",
                       threads, block.x, block.y, block.z,
                       lim->max_threads_per_block);
  if (sharedMem > lim->shared_mem_per_block)
    return cls__reason(clsErrorInvalidValue,
                       "sharedMem %zu exceeds the device's "
                       "sharedMemPerBlock %zu",
                       sharedMem, lim->shared_mem_per_block);
  return cls__reason(clsErrorInvalidValue, "invalid launch configuration");
}
