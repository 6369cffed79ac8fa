/* Private to the front: the launch-configuration checks of
 * clsLaunchKernel (module.c).  The common case, a configuration the
 * calling thread launched with last, is a few word compares inline
 * (cls__config_seen); a new one is checked against the device's limits
 * without branches (cls__config_ok), and only a refusal leaves the launch
 * path for launchcfg.c's cls__config_error, which says which rule broke. */
#ifndef CLSTREAM_LAUNCHCFG_H
#define CLSTREAM_LAUNCHCFG_H

#include "internal.h"
#include "device.h"

#include <stdint.h>

/* Whether v lies in 1..max, where max <= 0 means "no limit": one unsigned
 * compare after the zero test, without branches, for the launch path's
 * single test of the common case. */
static inline int cls__dim_ok(unsigned v, int max) {
  return (v != 0) & (v - 1u <= (unsigned)max - 1u);
}

/* Why the configuration failed cls__config_ok (the first rule broken, as
 * CUDA 13.0 returns InvalidValue for all of these: measured; older CUDA
 * documented InvalidConfiguration).  Like any argument error it is not
 * sticky.  Off the launch path. */
clsError_t cls__config_error(const cls__limits *lim, clsDim3 grid,
                             clsDim3 block, size_t sharedMem);

/* Whether the device can run the configuration (the rules
 * cls__config_error names): one expression without branches, since every
 * launch asks. */
static inline int cls__config_ok(const cls__limits *lim, clsDim3 grid,
                                 clsDim3 block, size_t sharedMem) {
  int ok = cls__dim_ok(block.x, lim->max_threads_dim[0]) &
           cls__dim_ok(block.y, lim->max_threads_dim[1]) &
           cls__dim_ok(block.z, lim->max_threads_dim[2]) &
           cls__dim_ok(grid.x, lim->max_grid[0]) &
           cls__dim_ok(grid.y, lim->max_grid[1]) &
           cls__dim_ok(grid.z, lim->max_grid[2]) &
           (sharedMem <= lim->shared_mem_per_block);
  /* Folded away where size_t has 64 bits. */
  ok &= ((unsigned long long)grid.x * block.x <= SIZE_MAX) &
        ((unsigned long long)grid.y * block.y <= SIZE_MAX) &
        ((unsigned long long)grid.z * block.z <= SIZE_MAX);
  return ok && (unsigned long long)block.x * block.y * block.z <=
                   (unsigned long long)lim->max_threads_per_block;
}

/* The calling thread's last configuration that passed cls__config_ok,
 * and its device (-1: none): device limits never change, so a launch
 * that repeats it (the common case) compares a few words instead.  The
 * x and y sizes are kept packed, as they arrive in registers. */
struct cls__config_memo {
  uint64_t grid_xy, block_xy;
  unsigned grid_z, block_z;
  int dev;
};
extern _Thread_local struct cls__config_memo cls__tl_config CLS__TLS_FAST;

static inline uint64_t cls__xy(clsDim3 d) {
  return (uint64_t)d.x | (uint64_t)d.y << 32;
}

static inline int cls__config_seen(int dev, clsDim3 grid, clsDim3 block,
                                   size_t sharedMem) {
  const struct cls__config_memo *m = &cls__tl_config;
  return ((m->grid_xy ^ cls__xy(grid)) | (m->block_xy ^ cls__xy(block)) |
          (m->grid_z ^ grid.z) | (m->block_z ^ block.z) |
          (unsigned)(m->dev ^ dev) | sharedMem) == 0;
}

/* Remembers a configuration that passed cls__config_ok on dev;
 * cls__config_seen matches it only for launches without dynamic shared
 * memory. */
static inline void cls__config_remember(int dev, clsDim3 grid, clsDim3 block) {
  cls__tl_config.grid_xy = cls__xy(grid);
  cls__tl_config.block_xy = cls__xy(block);
  cls__tl_config.grid_z = grid.z;
  cls__tl_config.block_z = block.z;
  cls__tl_config.dev = dev;
}

#endif /* CLSTREAM_LAUNCHCFG_H */
