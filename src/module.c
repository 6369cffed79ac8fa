/*
 * Modules, functions and launches: the front.
 *
 * It validates arguments, handles and launch configurations so that every
 * backend returns the same codes, prepends the kernel dialect's prelude to
 * the user's source, keeps the calling thread's last build log, and owns
 * the handles of a module's functions so that unloading the module retires
 * them.
 *
 * A module works on every device, as a CUDA runtime kernel does: it is
 * built for the device current at clsModuleLoadData (so that the build's
 * errors are that call's), and for any other device on the first launch
 * there.  Each function keeps one backend function per device, found with
 * one atomic load on the launch path once built.
 */
#include "internal.h"
#include "graph.h"
#include "device.h"
#include "launchcfg.h"
#include "stream_resolve.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct cls__module cls__module;

typedef struct cls__function {
  cls__module *mod;
  /* The backend function on each device, NULL until first used there;
   * written once, under mod->lock. */
  cls__bfunction *_Atomic *b;
  uintptr_t handle;
  cls__fattr attrs;           /* clsFuncSetAttribute's (funcattr.c) */
  struct cls__function *next; /* the module's list */
  char name[];
} cls__function;

struct cls__module {
  int ndev;
  char *source;         /* the prelude and the user's source */
  char *options;        /* NULL for none */
  pthread_mutex_t lock; /* guards fns, unloaded and building into b */
  int unloaded;
  cls__function *fns;
  /* The backend module on each device, NULL until built there. */
  cls__bmodule *_Atomic *b;
};

/* ---- The per-thread build log ----------------------------------------- */

static pthread_once_t cls__log_once = PTHREAD_ONCE_INIT;
static pthread_key_t cls__log_key;
static int cls__log_key_ok;

static void cls__log_key_make(void) {
  cls__log_key_ok = pthread_key_create(&cls__log_key, free) == 0;
}

/* Replaces the calling thread's build log with `log` (owned from here on;
 * NULL means none).  The previous log is freed; the thread's log is freed
 * when the thread exits. */
static void cls__log_set(char *log) {
  pthread_once(&cls__log_once, cls__log_key_make);
  if (!cls__log_key_ok) {
    free(log);
    return;
  }
  char *old = pthread_getspecific(cls__log_key);
  if (pthread_setspecific(cls__log_key, log) != 0) {
    free(log);
    return;
  }
  free(old);
}

const char *clsGetLastBuildLog(void) {
  pthread_once(&cls__log_once, cls__log_key_make);
  if (!cls__log_key_ok) return "";
  const char *log = pthread_getspecific(cls__log_key);
  return log ? log : "";
}

/* ---- Modules ------------------------------------------------------------ */

/* Frees a module whose functions are retired: its backend modules (and
 * with them the backend functions), the functions and the source. */
static void cls__module_free(cls__module *mod) {
  cls__symbol_drop(mod);
  for (int d = 0; d < mod->ndev; ++d) {
    cls__bmodule *bm = atomic_load(&mod->b[d]);
    if (bm) cls__b_module_unload(bm);
  }
  cls__function *f = mod->fns;
  while (f) {
    cls__function *next = f->next;
    free(f->b);
    free(f);
    f = next;
  }
  pthread_mutex_destroy(&mod->lock);
  free(mod->b);
  free(mod->source);
  free(mod->options);
  free(mod);
}

clsError_t clsModuleLoadData(clsModule_t *m, const char *source,
                             const char *options) {
  CLS__NOT_IN_HOST_FN();
  if (!m) CLS__RETURN(cls__reason(clsErrorInvalidValue, "module is NULL"));
  if (!source) CLS__RETURN(cls__reason(clsErrorInvalidValue, "source is NULL"));
  int dev;
  clsError_t err = cls__current_device(&dev);
  if (err != clsSuccess) CLS__RETURN(err);

  /* The prelude, then the user's source numbered from line 1 so that the
   * compiler's messages point at the user's lines. */
  static const char sep[] = "\n#line 1\n";
  size_t plen = strlen(cls__prelude), slen = strlen(source);
  char *full = malloc(plen + sizeof sep - 1 + slen + 1);
  if (!full)
    CLS__RETURN(cls__reason(clsErrorMemoryAllocation,
                            "out of host memory for the kernel source"));
  memcpy(full, cls__prelude, plen);
  memcpy(full + plen, sep, sizeof sep - 1);
  memcpy(full + plen + sizeof sep - 1, source, slen + 1);

  cls__bmodule *bm = NULL;
  char *log = NULL;
  err = cls__b_module_load(dev, full, options, &bm, &log);
  cls__log_set(log);
  if (err != clsSuccess) {
    free(full);
    CLS__RETURN(err);
  }

  int ndev = cls__b_device_count();
  cls__module *mod = calloc(1, sizeof *mod);
  if (mod) {
    mod->b = calloc((size_t)ndev, sizeof *mod->b);
    mod->options = options ? strdup(options) : NULL;
  }
  if (!mod || !mod->b || (options && !mod->options)) {
    if (mod) {
      free(mod->b);
      free(mod->options);
    }
    free(mod);
    free(full);
    cls__b_module_unload(bm);
    CLS__RETURN(cls__reason(clsErrorMemoryAllocation,
                            "out of host memory for a module"));
  }
  mod->ndev = ndev;
  mod->source = full;
  atomic_init(&mod->b[dev], bm);
  pthread_mutex_init(&mod->lock, NULL);
  uintptr_t h = cls__handle_new(CLS__KIND_MODULE, mod);
  if (!h) {
    cls__module_free(mod);
    CLS__RETURN(
        cls__reason(clsErrorMemoryAllocation, "the handle table is full"));
  }
  *m = (clsModule_t)h;
  CLS__RETURN(clsSuccess);
}

/* Modules unloaded so far (graphexec.c checks an exec's functions again
 * only after one more). */
static atomic_size_t cls__unloads;

size_t cls__module_unloads(void) {
  return atomic_load_explicit(&cls__unloads, memory_order_acquire);
}

clsError_t clsModuleUnload(clsModule_t m) {
  CLS__NOT_IN_HOST_FN();
  cls__module *mod = cls__handle_retire(CLS__KIND_MODULE, (uintptr_t)m);
  if (!mod)
    CLS__RETURN(cls__reason(clsErrorInvalidResourceHandle,
                            "module %p is not a loaded module", (void *)m));
  /* Retire the functions first, so that no launch can find them once
   * their backend objects are gone.  Taking the lock also waits for a
   * GetFunction that is in progress. */
  pthread_mutex_lock(&mod->lock);
  mod->unloaded = 1;
  cls__function *f = mod->fns;
  mod->fns = NULL;
  pthread_mutex_unlock(&mod->lock);
  for (cls__function *g = f; g; g = g->next)
    cls__handle_retire(CLS__KIND_FUNCTION, g->handle);
  /* Counted once its functions are retired: a launch that read the count
   * before looks at its exec's functions again at the next launch. */
  atomic_fetch_add_explicit(&cls__unloads, 1, memory_order_acq_rel);
  mod->fns = f;
  cls__module_free(mod);
  CLS__RETURN(clsSuccess);
}

/* The backend function of `fn` on device `dev`, building the module for
 * that device first if it is not yet built there.  Blocks (compiles) the
 * first time per device. */
/* The backend module of mod on device `dev` (under mod->lock), building
 * it there first if it is not yet built; `what` names the kernel or
 * global asked for, for the message. */
static clsError_t cls__module_on(cls__module *mod, int dev, const char *what,
                                 cls__bmodule **out) {
  cls__bmodule *bm = atomic_load(&mod->b[dev]);
  clsError_t err = clsSuccess;
  if (!bm) {
    char *log = NULL;
    err = cls__b_module_load(dev, mod->source, mod->options, &bm, &log);
    cls__log_set(log);
    if (err != clsSuccess) {
      err = cls__reason(clsErrorNoKernelImageForDevice,
                        "%s: its module does not build for device %d (%s); "
                        "see clsGetLastBuildLog()",
                        what, dev, clsGetErrorName(err));
      bm = NULL;
    } else {
      atomic_store(&mod->b[dev], bm);
    }
  }
  *out = bm;
  return err;
}

static clsError_t cls__function_on(cls__function *fn, int dev,
                                   cls__bfunction **out) {
  cls__module *mod = fn->mod;
  clsError_t err = clsSuccess;
  pthread_mutex_lock(&mod->lock);
  cls__bfunction *bf = atomic_load(&fn->b[dev]);
  cls__bmodule *bm = NULL;
  if (!bf) err = cls__module_on(mod, dev, fn->name, &bm);
  if (!bf && bm) {
    err = cls__b_module_function(bm, fn->name, &bf);
    if (err == clsSuccess) atomic_store(&fn->b[dev], bf);
  }
  pthread_mutex_unlock(&mod->lock);
  *out = bf;
  return err;
}

clsError_t clsModuleGetFunction(clsFunction_t *f, clsModule_t m,
                                const char *name) {
  CLS__NOT_IN_HOST_FN();
  if (!f) CLS__RETURN(cls__reason(clsErrorInvalidValue, "function is NULL"));
  if (!name) CLS__RETURN(cls__reason(clsErrorInvalidValue, "name is NULL"));
  cls__module *mod = cls__handle_get(CLS__KIND_MODULE, (uintptr_t)m);
  if (!mod)
    CLS__RETURN(cls__reason(clsErrorInvalidResourceHandle,
                            "module %p is not a loaded module", (void *)m));

  clsError_t err = clsSuccess;
  pthread_mutex_lock(&mod->lock);
  if (mod->unloaded) {
    err = cls__reason(clsErrorInvalidResourceHandle,
                      "module %p is being unloaded", (void *)m);
    goto out;
  }
  /* The same name gives the same handle. */
  for (cls__function *g = mod->fns; g; g = g->next) {
    if (strcmp(g->name, name) == 0) {
      *f = (clsFunction_t)g->handle;
      goto out;
    }
  }
  size_t nlen = strlen(name);
  cls__function *fn = malloc(sizeof *fn + nlen + 1);
  if (fn) fn->b = calloc((size_t)mod->ndev, sizeof *fn->b);
  if (!fn || !fn->b) {
    free(fn);
    err = cls__reason(clsErrorMemoryAllocation,
                      "out of host memory for a function");
    goto out;
  }
  atomic_init(&fn->attrs.dyn_set, 0);
  atomic_init(&fn->attrs.dyn_smem, 0);
  atomic_init(&fn->attrs.carve_set, 0);
  atomic_init(&fn->attrs.carveout, -1);
  /* Looked up on the device the module was built for at load (any one it
   * is built for), so that an unknown name fails here, as in CUDA. */
  int dev = 0;
  while (dev < mod->ndev && !atomic_load(&mod->b[dev])) ++dev;
  cls__bfunction *bf = NULL;
  err = cls__b_module_function(atomic_load(&mod->b[dev]), name, &bf);
  if (err != clsSuccess) {
    free(fn->b);
    free(fn);
    goto out;
  }
  /* The backend function belongs to the backend module and is freed with
   * it, even if registering its handle fails below. */
  atomic_init(&fn->b[dev], bf);
  fn->mod = mod;
  memcpy(fn->name, name, nlen + 1);
  fn->handle = cls__handle_new(CLS__KIND_FUNCTION, fn);
  if (!fn->handle) {
    free(fn->b);
    free(fn);
    err = cls__reason(clsErrorMemoryAllocation, "the handle table is full");
    goto out;
  }
  fn->next = mod->fns;
  mod->fns = fn;
  *f = (clsFunction_t)fn->handle;
out:
  pthread_mutex_unlock(&mod->lock);
  CLS__RETURN(err);
}

/* ---- Launches ----------------------------------------------------------- */

clsError_t clsLaunchKernel(clsFunction_t f, clsDim3 grid, clsDim3 block,
                           void **args, size_t sharedMem, clsStream_t s) {
  CLS__NOT_IN_HOST_FN();
  cls__function *fn = cls__handle_get(CLS__KIND_FUNCTION, (uintptr_t)f);
  if (CLS__UNLIKELY(!fn))
    CLS__RETURN(cls__reason(clsErrorInvalidResourceHandle,
                            "function %p is not a live function "
                            "(never returned by clsModuleGetFunction, or its "
                            "module was unloaded)",
                            (void *)f));

  int sdev;
  cls__bstream *bs;
  clsError_t err = cls__stream_resolve(s, &sdev, &bs, NULL, NULL);
  if (CLS__UNLIKELY(err != clsSuccess)) CLS__RETURN(err);
  if (CLS__UNLIKELY(!cls__config_seen(sdev, grid, block, sharedMem))) {
    const cls__limits *lim = cls__device_limits(sdev);
    if (!cls__config_ok(lim, grid, block, sharedMem))
      CLS__RETURN(cls__config_error(lim, grid, block, sharedMem));
    cls__config_remember(sdev, grid, block);
  }

  /* MaxDynamicSharedMemorySize, once set, bounds sharedMem (kparams). */
  if (CLS__UNLIKELY(sharedMem != 0) &&
      atomic_load_explicit(&fn->attrs.dyn_set, memory_order_relaxed) &&
      sharedMem > (size_t)atomic_load_explicit(&fn->attrs.dyn_smem,
                                               memory_order_relaxed))
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "sharedMem %zu exceeds the kernel's "
                            "MaxDynamicSharedMemorySize %d",
                            sharedMem, atomic_load(&fn->attrs.dyn_smem)));

  /* As in CUDA, a kernel runs on any device, but only into a stream of
   * the current device. */
  int cur = sdev;
  if (s != NULL && s != clsStreamLegacy && s != clsStreamPerThread &&
      (err = cls__current_device(&cur)) != clsSuccess)
    CLS__RETURN(err);
  if (CLS__UNLIKELY(sdev != cur))
    CLS__RETURN(cls__reason(clsErrorInvalidResourceHandle,
                            "the stream belongs to device %d, not to the "
                            "current device %d",
                            sdev, cur));
  cls__bfunction *bf = atomic_load_explicit(&fn->b[sdev], memory_order_acquire);
  if (CLS__UNLIKELY(!bf) &&
      (err = cls__function_on(fn, sdev, &bf)) != clsSuccess)
    CLS__RETURN(err);
  if (CLS__CAPTURING() &&
      cls__cap_kernel(s, bs, f, bf, grid, block, args, sharedMem, &err))
    CLS__RETURN(err);
  CLS__RETURN(cls__b_launch(bf, grid, block, args, sharedMem, bs));
}

/* ---- Graphs: kernel nodes (graph.h) -------------------------------------- */

clsError_t cls__function_get(clsFunction_t f, int dev, cls__bfunction **bf) {
  cls__function *fn = cls__handle_get(CLS__KIND_FUNCTION, (uintptr_t)f);
  if (!fn)
    return cls__reason(clsErrorInvalidResourceHandle,
                       "function %p is not a live function", (void *)f);
  *bf = atomic_load_explicit(&fn->b[dev], memory_order_acquire);
  return *bf ? clsSuccess : cls__function_on(fn, dev, bf);
}

/* ---- Module globals (kparams; the public call is in symbol.c) -------- */

clsError_t cls__module_global(clsModule_t m, int dev, const char *name,
                              void **p, size_t *n) {
  cls__module *mod = cls__handle_get(CLS__KIND_MODULE, (uintptr_t)m);
  if (!mod)
    return cls__reason(clsErrorInvalidResourceHandle,
                       "module %p is not a loaded module", (void *)m);
  pthread_mutex_lock(&mod->lock);
  cls__bmodule *bm = NULL;
  clsError_t err = mod->unloaded
                       ? cls__reason(clsErrorInvalidResourceHandle,
                                     "module %p is being unloaded", (void *)m)
                       : cls__module_on(mod, dev, name, &bm);
  if (err == clsSuccess) err = cls__b_module_global(bm, name, p, n);
  if (err == clsSuccess) err = cls__symbol_add(*p, *n, mod, dev);
  pthread_mutex_unlock(&mod->lock);
  return err;
}

/* ---- Kernel attributes (funcattr.c) ------------------------------------ */

clsError_t cls__function_current(clsFunction_t f, int *dev, cls__bfunction **bf,
                                 cls__fattr **fa) {
  cls__function *fn = cls__handle_get(CLS__KIND_FUNCTION, (uintptr_t)f);
  if (!fn)
    return cls__reason(clsErrorInvalidDeviceFunction,
                       "function %p is not a live function (never returned "
                       "by clsModuleGetFunction, or its module was unloaded)",
                       (void *)f);
  clsError_t err = cls__current_device(dev);
  if (err != clsSuccess) return err;
  *bf = atomic_load_explicit(&fn->b[*dev], memory_order_acquire);
  if (!*bf && (err = cls__function_on(fn, *dev, bf)) != clsSuccess) return err;
  *fa = &fn->attrs;
  return clsSuccess;
}
