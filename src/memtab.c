/* The allocation table: every address range the library handed out or
 * registered (clsMalloc, clsMallocHost, clsHostAlloc, clsMallocAsync,
 * clsMallocManaged, clsHostRegister), with its kind and device, in a
 * range table (rangetab.h).  A front service (backend.h): the backends
 * look pointers up here; only the front adds and removes entries.  It
 * calls nothing of the backend. */
#include "internal.h"

typedef struct cls__alloc {
  cls__range r;
  int kind; /* enum cls__mem_kind */
  int dev;
} cls__alloc;

static cls__rangetab cls__table = CLS__RANGETAB_INIT(cls__alloc);

/* The calling thread's last allocation found, while the table's
 * generation is still `gen` (no removal since: the entry is still there,
 * unchanged).  Kernel launches look up the same few pointers again and
 * again; this makes each repeat a thread-local compare, no lock. */
static _Thread_local struct {
  size_t gen;
  cls__alloc a; /* size 0: empty */
} cls__last CLS__TLS_FAST;

/* The allocation containing p into *a; 0 if there is none. */
static int cls__table_find(const void *p, cls__alloc *a) {
  uintptr_t u = (uintptr_t)p;
  size_t gen = cls__rangetab_gen(&cls__table);
  if (CLS__LIKELY(cls__last.gen == gen &&
                  u - cls__last.a.r.base < cls__last.a.r.size)) {
    *a = cls__last.a;
    return 1;
  }
  if (!cls__rangetab_lookup(&cls__table, u, a)) return 0;
  cls__last.gen = gen;
  cls__last.a = *a;
  return 1;
}

clsError_t cls__mem_add(void *p, size_t size, int kind, int dev) {
  cls__alloc a = {{(uintptr_t)p, size}, kind, dev}, clash;
  switch (cls__rangetab_insert(&cls__table, &a, &clash)) {
  case CLS__RANGETAB_OK:
    return clsSuccess;
  case CLS__RANGETAB_OVERLAP:
    /* Allocations never overlap; a registered host range may try to. */
    return cls__reason(clsErrorHostMemoryAlreadyRegistered,
                       "[%p, +%zu) overlaps a range the library already has "
                       "(base %p, %zu bytes)",
                       p, size, (void *)clash.r.base, clash.r.size);
  default:
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  }
}

/* Whether the entry's kind is one of *(unsigned *)kinds (CLS__MEM_BIT). */
static int cls__kind_in(const void *entry, void *kinds) {
  const cls__alloc *a = entry;
  return (*(unsigned *)kinds & CLS__MEM_BIT(a->kind)) != 0;
}

int cls__mem_remove(void *p, unsigned kinds, int *dev, size_t *size) {
  cls__alloc a;
  if (!cls__rangetab_remove(&cls__table, (uintptr_t)p, cls__kind_in, &kinds,
                            &a))
    return CLS__MEM_NONE;
  if (dev) *dev = a.dev;
  if (size) *size = a.r.size;
  return a.kind;
}

int cls__mem_lookup(const void *p, void **base, size_t *size, int *dev) {
  cls__alloc a;
  if (!cls__table_find(p, &a)) return CLS__MEM_NONE;
  if (base) *base = (void *)a.r.base;
  if (size) *size = a.r.size;
  if (dev) *dev = a.dev;
  return a.kind;
}

size_t cls__mem_gen(void) { return cls__rangetab_gen(&cls__table); }

size_t cls__mem_bytes_on(int dev) {
  size_t sum = 0;
  cls__rangetab_rdlock(&cls__table);
  const cls__alloc *a = (const cls__alloc *)cls__table.ents;
  for (size_t i = 0; i < cls__table.n; ++i)
    if (a[i].dev == dev && CLS__MEM_ON_DEVICE(a[i].kind)) sum += a[i].r.size;
  cls__rangetab_unlock(&cls__table);
  return sum;
}
