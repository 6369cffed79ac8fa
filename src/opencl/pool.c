/* OpenCL backend: the stream-ordered allocator's pool (clsMallocAsync,
 * clsFreeAsync), one per device, owned by the library.
 *
 * A free records, as an event record would, the point its stream has
 * reached (for the legacy stream, with the blocking streams' work it waits
 * for).  The block then waits in the pool with that record and a reference
 * to the stream's queue.  An allocation on stream T may take a block
 *  - freed in T itself: T's later work is ordered after the free's point
 *    by the in-order queue, so no wait is needed, even if the point has
 *    not been reached yet;
 *  - freed in any stream, once the free's point has been reached (its
 *    record completed or failed): no work from before the free still runs.
 * Nothing else: the pool never adds a hidden wait between streams, and
 * never hands out memory that unfinished work may still use.
 *
 * Blocks are grouped by size class; a block is at least the size asked for
 * and less than twice it, and an allocation takes only a block of exactly
 * its class's size (so the counts below stay exact).  Free blocks beyond
 * the release threshold (CLS__POOL_KEEP bytes per device until
 * clsMemPoolSetAttribute changes it) go back to the driver once their
 * point has been reached.  The pool counts what it holds from the driver
 * (reserved) and what it has handed out (used), with their peaks, for
 * clsMemPoolGetAttribute; ReuseAllowOpportunistic 0 stops a stream from
 * taking a block freed in another stream.  The
 * pool's lock is a leaf: under it the pool only queries event status and
 * releases events and queues (never blocking calls). */
#include "command.h"

#include <pthread.h>
#include <stdlib.h>

enum {
  CLS__POOL_MIN_SHIFT = 8,  /* 256 bytes: CUDA's allocation alignment */
  CLS__POOL_BIG_SHIFT = 20, /* above 1 MiB, sizes round to 1 MiB */
  CLS__POOL_BUCKETS = 64,
  CLS__POOL_SCAN = 32 /* blocks looked at per allocation */
};
#define CLS__POOL_KEEP ((size_t)64 << 20)

typedef struct cls__block {
  void *p;
  size_t cap;         /* bytes the block holds */
  cls__btoken *freed; /* the free's point; NULL once reached */
  cl_command_queue q; /* the freeing stream's queue, retained */
  struct cls__block *next;
} cls__block;

typedef struct cls__pool {
  pthread_mutex_t lock;
  cls__block *bucket[CLS__POOL_BUCKETS]; /* newest first */
  size_t cached;                         /* bytes in free blocks */
  size_t keep;                           /* the release threshold */
  size_t reserved, reserved_high;        /* bytes held from the driver */
  size_t used, used_high;                /* bytes handed out */
  int opportunistic;                     /* reuse across streams */
  int follow_events, internal_deps;      /* stored only */
} cls__pool;

static pthread_once_t cls__pools_once = PTHREAD_ONCE_INIT;
static cls__pool *cls__pools;

static void cls__pools_init(void) {
  int n = cls__b_device_count();
  cls__pools = calloc(n > 0 ? (size_t)n : 1, sizeof *cls__pools);
  for (int i = 0; cls__pools && i < n; ++i) {
    pthread_mutex_init(&cls__pools[i].lock, NULL);
    cls__pools[i].keep = CLS__POOL_KEEP;
    cls__pools[i].opportunistic = 1;
  }
}

static cls__pool *cls__pool_of(int dev) {
  pthread_once(&cls__pools_once, cls__pools_init);
  return cls__pools ? &cls__pools[dev] : NULL;
}

static unsigned cls__log2(size_t v) {
  unsigned k = 0;
  while (v >>= 1) ++k;
  return k;
}

/* The size of the block the pool makes for a request of n bytes. */
static size_t cls__pool_cap(size_t n) {
  const size_t big = (size_t)1 << CLS__POOL_BIG_SHIFT;
  if (n > big) return n > SIZE_MAX - (big - 1) ? n : (n + big - 1) & ~(big - 1);
  size_t c = (size_t)1 << CLS__POOL_MIN_SHIFT;
  while (c < n) c <<= 1;
  return c;
}

/* Whether the free's point has been reached (a failed command counts: it
 * no longer runs).  Under the pool's lock. */
static int cls__block_reached(cls__block *b) {
  if (!b->freed) return 1;
  if (cls__b_token_status(b->freed) == clsErrorNotReady) return 0;
  cls__b_token_release(b->freed);
  b->freed = NULL;
  return 1;
}

/* Drops what a block holds besides its memory (under the lock or not). */
static void cls__block_forget(cls__block *b) {
  cls__b_token_release(b->freed);
  if (b->q) clReleaseCommandQueue(b->q);
  b->freed = NULL;
  b->q = NULL;
}

/* Unlinks up to `want` bytes (all, for SIZE_MAX) of free blocks whose
 * point has been reached; returns them as a list for the caller to free
 * outside the lock.  Under the lock. */
static cls__block *cls__pool_trim(cls__pool *pl, size_t want) {
  CLS__ASSERT_MUTEX_HELD(&pl->lock);
  cls__block *out = NULL;
  size_t got = 0;
  for (int k = CLS__POOL_BUCKETS - 1; k >= 0 && got < want; --k) {
    for (cls__block **at = &pl->bucket[k]; *at && got < want;) {
      cls__block *b = *at;
      if (!cls__block_reached(b)) {
        at = &b->next;
        continue;
      }
      *at = b->next;
      pl->cached -= b->cap;
      pl->reserved -= b->cap;
      got += b->cap;
      b->next = out;
      out = b;
    }
  }
  return out;
}

static void cls__free_blocks(int dev, cls__block *b) {
  while (b) {
    cls__block *next = b->next;
    cls__block_forget(b);
    cls__b_free(dev, b->p);
    free(b);
    b = next;
  }
}

static void cls__pool_grew(cls__pool *pl, size_t reserved, size_t used) {
  CLS__ASSERT_MUTEX_HELD(&pl->lock);
  pl->reserved += reserved;
  pl->used += used;
  if (pl->reserved > pl->reserved_high) pl->reserved_high = pl->reserved;
  if (pl->used > pl->used_high) pl->used_high = pl->used;
}

/* Puts a block into its bucket and gives back what exceeds the pool's
 * release threshold.  A block of kind CLS__MEM_POOL was handed out by the
 * pool; one of CLS__MEM_DEVICE (clsMalloc memory freed with clsFreeAsync)
 * joins the pool's reserve. */
static void cls__pool_put(int dev, cls__pool *pl, cls__block *b, int kind) {
  unsigned k = cls__log2(b->cap);
  pthread_mutex_lock(&pl->lock);
  b->next = pl->bucket[k];
  pl->bucket[k] = b;
  pl->cached += b->cap;
  if (kind == CLS__MEM_POOL)
    pl->used -= b->cap < pl->used ? b->cap : pl->used;
  else
    cls__pool_grew(pl, b->cap, 0);
  cls__block *extra = NULL;
  if (pl->cached > pl->keep) extra = cls__pool_trim(pl, pl->cached - pl->keep);
  pthread_mutex_unlock(&pl->lock);
  cls__free_blocks(dev, extra);
}

clsError_t cls__b_malloc_async(cls__bstream *s, size_t size, void **out) {
  int dev = s->dev->index;
  cls__pool *pl = cls__pool_of(dev);
  if (!pl) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  size_t need = cls__pool_cap(size);
  unsigned k = cls__log2(need);
  cls__block *hit = NULL;
  pthread_mutex_lock(&pl->lock);
  int looked = 0;
  for (cls__block **at = &pl->bucket[k]; *at && looked < CLS__POOL_SCAN;
       at = &(*at)->next, ++looked) {
    cls__block *b = *at;
    if (b->cap != need) continue; /* a clsMalloc block of another size */
    /* The same queue orders this stream's later work after the free. */
    if (b->q == s->q || (pl->opportunistic && cls__block_reached(b))) {
      *at = b->next;
      pl->cached -= b->cap;
      cls__pool_grew(pl, 0, b->cap);
      hit = b;
      break;
    }
  }
  pthread_mutex_unlock(&pl->lock);
  if (hit) {
    *out = hit->p;
    cls__block_forget(hit);
    free(hit);
    return clsSuccess;
  }
  clsError_t e = cls__b_malloc(dev, need, out);
  if (e == clsErrorMemoryAllocation) {
    /* Give the driver back whatever the pool may, and try once more. */
    pthread_mutex_lock(&pl->lock);
    cls__block *all = cls__pool_trim(pl, SIZE_MAX);
    pthread_mutex_unlock(&pl->lock);
    if (all) {
      cls__free_blocks(dev, all);
      e = cls__b_malloc(dev, need, out);
    }
  }
  if (e == clsSuccess) {
    pthread_mutex_lock(&pl->lock);
    cls__pool_grew(pl, need, need);
    pthread_mutex_unlock(&pl->lock);
  }
  return e;
}

clsError_t cls__b_free_async(cls__bstream *s, int dev, void *p, size_t size,
                             int kind) {
  cls__pool *pl = cls__pool_of(dev);
  cls__block *b = calloc(1, sizeof *b);
  if (!pl || !b) {
    free(b);
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  }
  b->p = p;
  b->cap = kind == CLS__MEM_POOL ? cls__pool_cap(size) : size;
  /* What an event recorded now would capture, without timing: nothing on
   * an idle stream, else the newest command or a marker after it. */
  clsError_t e = cls__ocl_record(s, 0, &b->freed);
  if (e != clsSuccess) {
    free(b);
    return e;
  }
  clRetainCommandQueue(s->q);
  b->q = s->q;
  cls__pool_put(dev, pl, b, kind);
  return clsSuccess;
}

void cls__b_pool_free_now(int dev, void *p, size_t size) {
  cls__pool *pl = cls__pool_of(dev);
  cls__block *b = pl ? calloc(1, sizeof *b) : NULL;
  if (!b) {
    cls__b_free(dev, p); /* no room to keep it: the device is idle */
    return;
  }
  b->p = p;
  b->cap = cls__pool_cap(size);
  cls__pool_put(dev, pl, b, CLS__MEM_POOL);
}

/* ---- Attributes (clsMemPoolGetAttribute, clsMemPoolSetAttribute) ------- */

clsError_t cls__b_pool_attr(int dev, int attr, int set,
                            unsigned long long *value) {
  cls__pool *pl = cls__pool_of(dev);
  if (!pl) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  unsigned long long v = *value;
  cls__block *extra = NULL;
  pthread_mutex_lock(&pl->lock);
  switch (attr) {
  case clsMemPoolReuseFollowEventDependencies:
    if (set) pl->follow_events = v != 0;
    v = (unsigned long long)pl->follow_events;
    break;
  case clsMemPoolReuseAllowOpportunistic:
    if (set) pl->opportunistic = v != 0;
    v = (unsigned long long)pl->opportunistic;
    break;
  case clsMemPoolReuseAllowInternalDependencies:
    if (set) pl->internal_deps = v != 0;
    v = (unsigned long long)pl->internal_deps;
    break;
  case clsMemPoolAttrReleaseThreshold:
    if (set) {
      pl->keep = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
      if (pl->cached > pl->keep)
        extra = cls__pool_trim(pl, pl->cached - pl->keep);
    }
    v = pl->keep;
    break;
  case clsMemPoolAttrReservedMemCurrent:
    v = pl->reserved;
    break;
  case clsMemPoolAttrReservedMemHigh:
    if (set) pl->reserved_high = pl->reserved; /* the front allowed only 0 */
    v = pl->reserved_high;
    break;
  case clsMemPoolAttrUsedMemCurrent:
    v = pl->used;
    break;
  default: /* clsMemPoolAttrUsedMemHigh */
    if (set) pl->used_high = pl->used;
    v = pl->used_high;
    break;
  }
  pthread_mutex_unlock(&pl->lock);
  cls__free_blocks(dev, extra);
  if (!set) *value = v;
  return clsSuccess;
}

clsError_t cls__b_pool_trim(int dev, size_t keep) {
  cls__pool *pl = cls__pool_of(dev);
  if (!pl) return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  pthread_mutex_lock(&pl->lock);
  cls__block *extra =
      pl->reserved > keep ? cls__pool_trim(pl, pl->reserved - keep) : NULL;
  pthread_mutex_unlock(&pl->lock);
  cls__free_blocks(dev, extra);
  return clsSuccess;
}

size_t cls__ocl_pool_cached(int dev) {
  cls__pool *pl = cls__pool_of(dev);
  if (!pl) return 0;
  pthread_mutex_lock(&pl->lock);
  size_t n = pl->cached;
  pthread_mutex_unlock(&pl->lock);
  return n;
}
