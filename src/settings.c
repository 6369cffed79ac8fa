/* Settings: every CLSTREAM_* environment variable the library reads, read
 * here and nowhere else (the list is CLS__SETTINGS, backend.h; what each
 * means is docs/settings.md).  Each is read once, at its first use in the
 * process, and kept: the value a device was opened with stays the value
 * every later device and call sees.  clsGetSetting (device.c) lists
 * them.  A front service (backend.h): it calls nothing of the backend,
 * nor any other file of the front. */
#include "settings.h"

#include "backend.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct cls__setting_row {
  const char *name, *meaning, *unset;
} cls__setting_row;

static const cls__setting_row cls__setting_rows[CLS__SET_COUNT] = {
#define CLS__SETTING_ROW(id, name, meaning, unset) {name, meaning, unset},
    CLS__SETTINGS(CLS__SETTING_ROW)
#undef CLS__SETTING_ROW
};

/* Each setting's value once read (NULL: unset), published by `read`. */
static const char *cls__setting_value[CLS__SET_COUNT];
static atomic_int cls__setting_read[CLS__SET_COUNT];
/* Serializes the first reads (a leaf: nothing else is taken under it). */
static pthread_mutex_t cls__setting_lock = PTHREAD_MUTEX_INITIALIZER;

const char *cls__setting(enum cls__setting_id id) {
  if (CLS__LIKELY(
          atomic_load_explicit(&cls__setting_read[id], memory_order_acquire)))
    return cls__setting_value[id];
  pthread_mutex_lock(&cls__setting_lock);
  if (!atomic_load_explicit(&cls__setting_read[id], memory_order_relaxed)) {
    /* A copy: a later setenv may free or reuse the environment's string.
     * Without memory for it, the environment's own string serves. */
    const char *v = getenv(cls__setting_rows[id].name);
    char *copy = v ? strdup(v) : NULL;
    cls__setting_value[id] = copy ? copy : v;
    atomic_store_explicit(&cls__setting_read[id], 1, memory_order_release);
  }
  pthread_mutex_unlock(&cls__setting_lock);
  return cls__setting_value[id];
}

const char *cls__setting_about(enum cls__setting_id id, const char **meaning,
                               const char **unset) {
  *meaning = cls__setting_rows[id].meaning;
  *unset = cls__setting_rows[id].unset;
  return cls__setting_rows[id].name;
}
