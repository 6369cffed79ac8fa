/* The symbol list: the module globals clsModuleGetGlobal has handed out,
 * each with its size and module (internal.h, "Module globals").  module.c
 * adds a global when it hands one out and drops a module's globals at its
 * unloading; the symbol calls (symbol.c) look a symbol up.  It calls only
 * the allocation table (memtab.c), where each global is device memory. */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct cls__symbol {
  void *p;
  size_t size;
  const void *owner;
} cls__symbol;

static pthread_mutex_t cls__sym_lock = PTHREAD_MUTEX_INITIALIZER;
static cls__symbol *cls__syms; /* guarded by cls__sym_lock */
static size_t cls__nsyms, cls__capsyms;

clsError_t cls__symbol_add(void *p, size_t size, const void *owner, int dev) {
  clsError_t err = clsSuccess;
  pthread_mutex_lock(&cls__sym_lock);
  for (size_t i = 0; i < cls__nsyms; i++)
    if (cls__syms[i].p == p) goto out;
  if (cls__nsyms == cls__capsyms) {
    size_t cap = cls__capsyms ? cls__capsyms * 2 : 16;
    cls__symbol *s = realloc(cls__syms, cap * sizeof *s);
    if (!s) {
      err = cls__reason(clsErrorMemoryAllocation,
                        "out of host memory for a module global");
      goto out;
    }
    cls__syms = s;
    cls__capsyms = cap;
  }
  err = cls__mem_add(p, size ? size : 1, CLS__MEM_DEVICE, dev);
  if (err == clsSuccess)
    cls__syms[cls__nsyms++] = (cls__symbol){p, size, owner};
out:
  pthread_mutex_unlock(&cls__sym_lock);
  return err;
}

void cls__symbol_drop(const void *owner) {
  pthread_mutex_lock(&cls__sym_lock);
  for (size_t i = 0; i < cls__nsyms;) {
    if (cls__syms[i].owner != owner) {
      i++;
      continue;
    }
    (void)cls__mem_remove(cls__syms[i].p, CLS__MEM_BIT(CLS__MEM_DEVICE), NULL,
                          NULL);
    cls__syms[i] = cls__syms[--cls__nsyms];
  }
  pthread_mutex_unlock(&cls__sym_lock);
}

/* The size of symbol `sym`, or clsErrorInvalidSymbol (as CUDA for an
 * address that is no global). */
clsError_t cls__symbol_size(const void *sym, size_t *size) {
  if (!sym) return cls__reason(clsErrorInvalidSymbol, "symbol is NULL");
  int found = 0;
  pthread_mutex_lock(&cls__sym_lock);
  for (size_t i = 0; i < cls__nsyms && !found; i++)
    if (cls__syms[i].p == sym) {
      *size = cls__syms[i].size;
      found = 1;
    }
  pthread_mutex_unlock(&cls__sym_lock);
  if (!found)
    return cls__reason(clsErrorInvalidSymbol,
                       "symbol %p is not a module global from "
                       "clsModuleGetGlobal (or its module was unloaded)",
                       sym);
  return clsSuccess;
}
