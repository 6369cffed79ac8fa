/* CUDA backend: the lifetime of released modules.  A module's library is
 * unloaded only at a device-wide synchronization that follows its release
 * (cls__b_device_sync, device.c, takes and settles them here), so that
 * launches still pending when it was released can run.  Kept apart from
 * module.c, which compiles and loads, so that device.c and module.c do not
 * depend on each other. */
#include "cuda_be.h"

#include <stdlib.h>

/* Modules released by cls__b_module_unload whose library is not unloaded
 * yet, of every device: launches enqueued before the release may still be
 * pending, and the runtime promises neither that cudaLibraryUnload lets
 * them run nor that it returns without waiting for them (which would
 * deadlock behind a host function that waits for the caller).  A module
 * leaves the list at a device-wide synchronization of its device that
 * began after its release: its last launch was enqueued before that wait,
 * so once the wait succeeds the library can go. */
static pthread_mutex_t cls__retired_lock = PTHREAD_MUTEX_INITIALIZER;
static cls__bmodule *cls__retired; /* guarded by cls__retired_lock */

static void cls__module_free(cls__bmodule *m) {
  (void)cudaLibraryUnload(m->lib);
  pthread_mutex_destroy(&m->lock);
  free(m);
}

void cls__b_module_unload(cls__bmodule *m) {
  /* The front has retired every function of m, so no launch of it can
   * follow; those already enqueued may be pending.  Free the function
   * objects now and leave the library to the device's next
   * synchronization. */
  cls__bfunction *f = m->fns;
  while (f) {
    cls__bfunction *next = f->next;
    free(f);
    f = next;
  }
  m->fns = NULL;
  pthread_mutex_lock(&cls__retired_lock);
  m->next_retired = cls__retired;
  cls__retired = m;
  pthread_mutex_unlock(&cls__retired_lock);
}

cls__bmodule *cls__cuda_retired_take(int dev) {
  cls__bmodule *taken = NULL;
  pthread_mutex_lock(&cls__retired_lock);
  cls__bmodule **p = &cls__retired;
  while (*p) {
    cls__bmodule *m = *p;
    if (m->dev == dev) {
      *p = m->next_retired;
      m->next_retired = taken;
      taken = m;
    } else {
      p = &m->next_retired;
    }
  }
  pthread_mutex_unlock(&cls__retired_lock);
  return taken;
}

void cls__cuda_retired_settle(cls__bmodule *taken, int idle) {
  if (!taken) return;
  if (!idle) {
    /* The wait failed: nothing says the launches ended.  Keep the modules
     * for a later synchronization. */
    cls__bmodule *last = taken;
    while (last->next_retired) last = last->next_retired;
    pthread_mutex_lock(&cls__retired_lock);
    last->next_retired = cls__retired;
    cls__retired = taken;
    pthread_mutex_unlock(&cls__retired_lock);
    return;
  }
  /* No lock held: cudaLibraryUnload may take the runtime's own locks. */
  while (taken) {
    cls__bmodule *next = taken->next_retired;
    cls__module_free(taken);
    taken = next;
  }
}
